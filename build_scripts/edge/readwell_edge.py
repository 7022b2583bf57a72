"""The edge handler's Python half (build_scripts/edge/handler.mjs calls it inside Pyodide): a request body in,
``[status, JSON text]`` out, with the checks and answers of ``readwell serve``.

The request checks and the extraction with its error statuses are readwell.serve_request's, shared with
serve's workers (readwell.serve_pool is not imported: multiprocessing costs ~2 s to import in Pyodide).
A request that names a URL to fetch comes back as ``[0, {"fetch": url, "options": ...}]``: the JavaScript
half fetches it (fetch_guard.mjs: Pyodide has no sockets) and hands the bytes to ``extract_fetched``. The
file is written into Pyodide's file system when the engine loads; it is not part of the readwell wheel.
"""

from __future__ import annotations

import json
import time
from typing import Any

from readwell.serve_request import (
    HTTPError,
    error_body,
    extraction_answer,
    json_request,
    options_from_query,
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
    return json.dumps([status, error_body(status, message)])


def stages_json() -> str:
    from readwell.pipeline import STAGES

    stages = [{"name": s.name, "summary": s.summary} for s in STAGES]
    return json.dumps({"stages": stages}, ensure_ascii=False) + "\n"


def fetch_needed(url: str, options: dict[str, Any]) -> str:
    """The answer that asks the JavaScript half to fetch ``url`` and call ``extract_fetched``."""
    return json.dumps([0, json.dumps({"fetch": url, "options": options})])


def fetch_job(query_json: str) -> str:
    """GET /extract?url=: the options checked as serve checks them, then a fetch request (or an error)."""
    try:
        query = Query(json.loads(query_json))
        url = query.get("url")
        if not url:
            raise HTTPError(400, "GET /extract needs ?url=")
        return fetch_needed(url, options_from_query(query))
    except HTTPError as exc:
        return error(exc.status, exc.message)


def extract_fetched(body: Any, content_type: str, url: str, options_json: str, deadline_ms: int) -> str:
    """A fetched page's bytes (charset from its Content-Type when declared) → JSON ``[status, body]``."""
    started = time.monotonic()
    try:
        from readwell.parse import parse_html

        data = body.to_bytes() if hasattr(body, "to_bytes") else bytes(body)
        encoding = _declared(content_type)
        answer = extraction_answer(
            lambda: parse_html(data, encoding), url, json.loads(options_json), started + deadline_ms / 1000
        )
        return json.dumps(list(answer))
    except HTTPError as exc:
        return error(exc.status, exc.message)


def extract(body: Any, content_type: str, query_json: str, deadline_ms: int) -> str:
    """POST /extract: ``body`` raw HTML (bytes, charset from ``content_type`` if declared) or JSON
    ``{html | url, options}``. Returns JSON ``[status, body]``; body is the CLI's JSON or an error object,
    or ``[0, fetch request]`` when the JSON names a URL and no HTML."""
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
            assert url is not None  # json_request refuses a body with neither
            return fetch_needed(url, options)
        from readwell.parse import parse_html

        answer = extraction_answer(
            lambda: parse_html(html, encoding), url, options, started + deadline_ms / 1000
        )
        return json.dumps(list(answer))
    except HTTPError as exc:
        return error(exc.status, exc.message)


def _declared(content_type: str) -> str | None:
    from readwell.parse import sniff_declared_encoding

    return sniff_declared_encoding(content_type)
