"""The edge handler's Python half (build_scripts/edge/handler.mjs calls it inside Pyodide): a request body in,
``[status, JSON text]`` out, with the checks and answers of ``readwell serve``.

The request checks are readwell.serve_request's, the extraction and its error statuses mirror
readwell.serve_pool.run_job (that module is not imported: multiprocessing costs ~2 s to import in Pyodide).
Fetching a URL is refused with 501: an edge isolate has no resolver to check addresses against (see
readwell.fetch), so the SSRF guarantees of ``serve`` could not be kept. The file is written into Pyodide's
file system when the engine loads; it is not part of the readwell wheel.
"""

from __future__ import annotations

import json
import time
from typing import Any

from readwell.errors import InputError
from readwell.serve_request import HTTPError, json_request, options_from_query

NO_FETCH = (
    "this edge handler does not fetch URLs (no address checks are possible here, so no SSRF protection): "
    "POST the page's HTML with ?url= or as JSON {html, url}"
)


class Query:
    """Query parameters as (name, value) pairs, with the two methods readwell.serve_request reads."""

    def __init__(self, pairs: list[list[str]]) -> None:
        self.pairs = [(str(k), str(v)) for k, v in pairs]

    def keys(self) -> set[str]:
        return {k for k, _ in self.pairs}

    def getlist(self, name: str) -> list[str]:
        return [v for k, v in self.pairs if k == name]

    def get(self, name: str) -> str | None:
        values = self.getlist(name)
        return values[-1] if values else None


def error(status: int, message: str) -> str:
    return json.dumps([status, json.dumps({"error": message, "status": status}) + "\n"])


def stages_json() -> str:
    from readwell.pipeline import STAGES

    stages = [{"name": s.name, "summary": s.summary} for s in STAGES]
    return json.dumps({"stages": stages}, ensure_ascii=False) + "\n"


def extract(body: Any, content_type: str, query_json: str, deadline_ms: int) -> str:
    """POST /extract: ``body`` raw HTML (bytes, charset from ``content_type`` if declared) or JSON
    ``{html | url, options}``. Returns JSON ``[status, body]``; body is the CLI's JSON or an error object."""
    started = time.monotonic()
    try:
        data = body.to_bytes() if hasattr(body, "to_bytes") else bytes(body)
        query = Query(json.loads(query_json))
        html: str | bytes | None
        if content_type.split(";")[0].strip().lower() != "application/json":
            if not data:
                raise HTTPError(400, 'empty body: send HTML, or JSON {"html" | "url", "options"}')
            html, url, options = data, query.get("url"), options_from_query(query)
            encoding = _declared(content_type)
        else:
            html, url, options = json_request(data)
            encoding = None
        if html is None:
            raise HTTPError(501, NO_FETCH)
        return json.dumps(
            _run(html, url, options, encoding, deadline_ms - (time.monotonic() - started) * 1000)
        )
    except HTTPError as exc:
        return error(exc.status, exc.message)


def _declared(content_type: str) -> str | None:
    from readwell.parse import sniff_declared_encoding

    return sniff_declared_encoding(content_type)


def _run(html: str | bytes, url: str | None, options: dict[str, Any], encoding: str | None, left_ms: float):
    from readwell.cli import render
    from readwell.extract import extract_document, make_options
    from readwell.parse import parse_html

    try:
        doc = parse_html(html, encoding)
        result = extract_document(doc, make_options(url, {**options, "deadline_ms": max(int(left_ms), 1)}))
        if result.timeout:
            stage = result.timeout.get("stage")
            return json.loads(error(504, f"no answer within the deadline (stopped in {stage})"))
        return [200, render(result.to_dict(), "json")]
    except InputError as exc:
        return json.loads(error(422, str(exc)))
    except (RecursionError, MemoryError) as exc:
        return json.loads(error(422, f"input too complex to process ({type(exc).__name__})"))
    except Exception as exc:  # a bug: one line, the isolate lives on
        return json.loads(error(500, f"internal error: {type(exc).__name__}: {exc}"))
