"""Shared by the extension tests, benchmark and example driver: a fixture server on 127.0.0.1 and a headless
Chromium with build/extension loaded (Python Playwright, Debian chromium; never `playwright install`).

Routes: ``/f/<fixture>.html`` (fixtures/ as is), ``/csp/<fixture>.html`` (same bytes with
``Content-Security-Policy: script-src 'self'``), ``/img/<w>x<h>.png`` (a generated PNG), plus extra routes
given as ``{path: (content_type, bytes)}``.
"""

from __future__ import annotations

import json
import re
import struct
import threading
import zlib
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
EXTENSION = ROOT / "build" / "extension"
CHROMIUM = "/usr/bin/chromium"
STRICT_CSP = "script-src 'self'"
BROWSER_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",
]


def png(w: int, h: int, rgb: tuple[int, int, int] = (40, 120, 200)) -> bytes:
    row = b"\x00" + bytes(rgb) * w
    raw = row * h

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data))
            + kind
            + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
        )

    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


class FixtureServer:
    def __init__(self, extra: dict[str, tuple[str, bytes]] | None = None):
        self.extra = dict(extra or {})
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def do_GET(self):  # noqa: N802
                path = self.path.split("?")[0]
                headers = {}
                if path in server.extra:
                    ctype, body = server.extra[path]
                elif m := re.fullmatch(r"/(f|csp)/([\w.-]+\.html)", path):
                    f = FIXTURES / m.group(2)
                    if not f.is_file():
                        return self.send_error(404)
                    ctype, body = "text/html", f.read_bytes()
                    if m.group(1) == "csp":
                        headers["Content-Security-Policy"] = STRICT_CSP
                elif m := re.fullmatch(r"/img/(\d{1,4})x(\d{1,4})\.png", path):
                    ctype, body = "image/png", png(int(m.group(1)), int(m.group(2)))
                else:
                    return self.send_error(404)
                self.send_response(200)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()

    def url(self, name: str, csp: bool = False) -> str:
        return f"{self.base}/{'csp' if csp else 'f'}/{name}"


@contextmanager
def extension_browser(playwright, profile_dir: Path, downloads_dir: Path, ext_dir: Path = EXTENSION):
    """Yield (context, service_worker, extension_id); downloads land in downloads_dir under their names."""
    if not (ext_dir / "manifest.json").is_file():
        raise RuntimeError(f"{ext_dir} is not built: run `make build`")
    prefs = profile_dir / "Default" / "Preferences"
    prefs.parent.mkdir(parents=True, exist_ok=True)
    prefs.write_text(
        json.dumps({"download": {"default_directory": str(downloads_dir), "prompt_for_download": False}})
    )
    ctx = playwright.chromium.launch_persistent_context(
        str(profile_dir),
        executable_path=CHROMIUM,
        headless=True,
        accept_downloads=True,
        args=[f"--disable-extensions-except={ext_dir}", f"--load-extension={ext_dir}", *BROWSER_ARGS],
    )
    try:
        sw = (
            ctx.service_workers[0]
            if ctx.service_workers
            else ctx.wait_for_event("serviceworker", timeout=60_000)
        )
        cdp = ctx.browser.new_browser_cdp_session() if ctx.browser else None
        if cdp is None:
            page = ctx.pages[0] if ctx.pages else ctx.new_page()
            cdp = ctx.new_cdp_session(page)
        cdp.send("Browser.setDownloadBehavior", {"behavior": "default"})
        sw.evaluate(
            "() => new Promise((r) => { const t = () => self.readwell ? r(true) : setTimeout(t, 50); t(); })"
        )
        yield ctx, sw, sw.url.split("/")[2]
    finally:
        ctx.close()


def tab_id(sw, url: str) -> int:
    """The id of the (only) tab showing url."""
    return sw.evaluate("async (u) => (await chrome.tabs.query({})).find((t) => t.url === u)?.id ?? null", url)


def call(sw, fn: str, tab: int, arg=None, timeout_ms: int = 120000):
    """self.readwell[fn](tab, arg) in the service worker."""
    return sw.evaluate(
        "async ([fn, tab, arg]) => await self.readwell[fn](tab, arg ?? undefined)", [fn, tab, arg]
    )
