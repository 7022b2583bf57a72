"""What ``readwell serve`` accepts in a request, checked without any web framework or worker machinery, so
the edge handler (build_scripts/edge) running inside Pyodide refuses exactly the same input with the same
status and message. Statuses: 400 for malformed input or wrong types, 422 for options the core refuses.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from dataclasses import fields
from typing import Any

from .dom import Document
from .errors import InputError
from .extract import extract_owned, make_options
from .options import OPTION_NAMES, Options

# Option name → accepted JSON types, read from readwell.options (the one source of option names and types);
# query parameters are converted to the first type. A type not listed here is left to the core's coercion.
_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "str | None": (str,),
    "tuple[str, ...]": (list, str),
    "bool": (bool,),
    "int": (int,),
}
OPTION_TYPES: dict[str, tuple[type, ...]] = {
    f.name: _JSON_TYPES[str(f.type)]
    for f in fields(Options)
    if f.name in OPTION_NAMES and str(f.type) in _JSON_TYPES
}
JSON_KEYS = frozenset({"html", "url", "options"})
_SURROGATE = re.compile("[\ud800-\udfff]")
TRUE, FALSE = frozenset({"1", "true", "yes", "on"}), frozenset({"0", "false", "no", "off", ""})


class HTTPError(Exception):
    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.headers = status, message, headers or {}


def check_options(options: Any) -> dict[str, Any]:
    """Types (400) and names/values (422, from the core's own check) of an options object."""
    if not isinstance(options, dict):
        raise HTTPError(400, '"options" must be a JSON object')
    for name, value in options.items():
        types = OPTION_TYPES.get(name)
        if types is None:
            continue  # unknown names: the core's message below (422)
        if isinstance(value, bool) and bool not in types or not isinstance(value, types):
            raise HTTPError(400, f'option "{name}" must be {" or ".join(t.__name__ for t in types)}')
        if isinstance(value, list) and not all(isinstance(v, str) for v in value):
            raise HTTPError(400, f'option "{name}" must be a list of strings')
    try:
        make_options(None, options)
    except (InputError, TypeError, ValueError) as exc:  # InputError is a ValueError; the rest: future options
        raise HTTPError(422, str(exc)) from None
    return options


def options_from_query(params: Any) -> dict[str, Any]:
    """Options given as query parameters (``disable`` may repeat); ``url`` is not an option."""
    options: dict[str, Any] = {}
    for name in set(params.keys()) - {"url"}:
        types = OPTION_TYPES.get(name)
        values = params.getlist(name)
        if types is None:
            options[name] = values[-1]  # refused by check_options with the core's message
        elif list in types:
            options[name] = values
        elif types[0] is bool:
            value = values[-1].lower()
            if value not in TRUE | FALSE:
                raise HTTPError(400, f'query parameter "{name}" must be true or false')
            options[name] = value in TRUE
        elif types[0] is int:
            try:
                options[name] = int(values[-1])
            except ValueError:
                raise HTTPError(400, f'query parameter "{name}" must be an integer') from None
        else:
            options[name] = values[-1]
    return check_options(options)


def json_request(body: bytes) -> tuple[str | None, str | None, dict[str, Any]]:
    """``(html, url, options)`` from a JSON body ``{"html" | "url", "options"}``; HTTPError 400/422."""
    try:
        data = json.loads(body)
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        raise HTTPError(400, f"invalid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise HTTPError(400, 'the JSON body must be an object: {"html" | "url", "options"}')
    unknown = set(data) - JSON_KEYS
    if unknown:
        raise HTTPError(400, f"unknown field(s): {', '.join(sorted(unknown))}; fields are html, url, options")
    html, url = data.get("html"), data.get("url")
    if html is not None and not isinstance(html, str):
        raise HTTPError(400, '"html" must be a string')
    if url is not None and not isinstance(url, str):
        raise HTTPError(400, '"url" must be a string')
    if html is None and not url:
        raise HTTPError(400, 'give "html" (and optionally its "url") or a "url" to fetch')
    if url is not None and _SURROGATE.search(url):  # JSON allows "\ud800"; no URL or output can carry it
        raise HTTPError(400, '"url" contains a lone surrogate (\\ud800-\\udfff)')
    return html, url, check_options(data.get("options", {}))


def error_body(status: int, message: str) -> str:
    """An error answer's body: ``{"error", "status"}`` and a newline (serve and the edge send the same)."""
    return json.dumps({"error": message, "status": status}) + "\n"


def extraction_answer(
    parse: Callable[[], Document], url: str | None, options: dict[str, Any], deadline_at: float
) -> tuple[int, str]:
    """(HTTP status, body) for one extraction: the CLI's JSON, 504 when the core's deadline passed, 422 for
    input the core refuses or cannot hold, 500 (one line) for a bug. The deadline (``time.monotonic()``
    seconds) is what is left once the page is parsed. Shared by serve's workers and the edge handler.
    ``parse`` decodes the page; the run may call it again for the input as it was (``extract_owned``)."""
    from .cli import render

    try:
        doc = parse()
        left_ms = max(int((deadline_at - time.monotonic()) * 1000), 1)
        result = extract_owned(doc, make_options(url, {**options, "deadline_ms": left_ms}), parse)
        if result.timeout:
            stage = result.timeout.get("stage")
            return 504, error_body(504, f"no answer within the deadline (stopped in {stage})")
        return 200, render(result.to_dict(), "json")
    except InputError as exc:
        return 422, error_body(422, str(exc))
    except (RecursionError, MemoryError) as exc:
        return 422, error_body(422, f"input too complex to process ({type(exc).__name__})")
    except Exception as exc:  # a bug: reported as one line, the worker or isolate lives on
        return 500, error_body(500, f"internal error: {type(exc).__name__}: {exc}")
