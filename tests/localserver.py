"""A tiny HTTP server on 127.0.0.1 (random port, background thread) serving fixed pages to URL tests."""

from __future__ import annotations

import contextlib
import http.client
import http.server
import json
import threading
from collections.abc import Iterator
from typing import Any

# path → (body, Content-Type)
Pages = dict[str, tuple[bytes, str]]


@contextlib.contextmanager
def serve(pages: Pages) -> Iterator[str]:
    """Serve ``pages``; yields the base URL (``http://127.0.0.1:PORT``). Unknown paths answer 404."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server API)
            page = pages.get(self.path)
            if page is None:
                self.send_error(404)
                return
            body, ctype = page
            self.send_response(200)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


def request(
    port: int,
    method: str,
    path: str,
    body: bytes | str | None = None,
    headers: dict[str, str] | None = None,
    timeout: float = 120,
) -> tuple[int, dict[str, str], bytes]:
    """One HTTP request to a server of ours on 127.0.0.1: status, headers (lower-cased names), body."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


def json_request(
    port: int, method: str, path: str, body: Any = None, timeout: float = 120
) -> tuple[int, Any]:
    """``request`` with ``body`` sent as JSON (when given) and the answer read as JSON."""
    headers = {"Content-Type": "application/json"} if body is not None else {}
    data = json.dumps(body) if body is not None else None
    status, _, raw = request(port, method, path, data, headers, timeout)
    return status, json.loads(raw)
