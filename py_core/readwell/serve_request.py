"""What ``readwell serve`` accepts in a request, checked without any web framework or worker machinery, so
the edge handler (build_scripts/edge) running inside Pyodide refuses exactly the same input with the same
status and message. Statuses: 400 for malformed input or wrong types, 422 for options the core refuses.
"""

from __future__ import annotations

import json
import re
from dataclasses import fields
from typing import Any

from .errors import InputError
from .extract import make_options
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
