"""Hostile pages, dynamically: our outputs loaded in headless Chromium with traps, and nothing may fire.

For every ``fixtures/security--*.html`` page and for one page holding the whole payload corpus, three pages
are served from 127.0.0.1: the article HTML (``content_html``) as a reader view would show it, a saved-article
page assembled from the escaped metadata (``security.checks.saved_page``), and our Markdown rendered by a
permissive CommonMark renderer (raw HTML on, link validation off). Traps: JavaScript dialogs,
``window.__pwned``, any request to ``trap.example`` or to ``/trap`` on the local server, popups, and leaving
the page. Every link, button and summary is clicked, and focus/pointer/animation events are dispatched on
every element.

Requests to any other host are answered with 204 No Content, which keeps the page in place (a navigation to a
204 is abandoned) and keeps the test offline. Uses Debian's /usr/bin/chromium; skipped when it is missing.
"""

from __future__ import annotations

import html
import os
import re
import shutil
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

import fixturelib
import pytest
import readwell

from security import article, checks, payloads, reference

pytestmark = pytest.mark.browser

CHROMIUM = os.environ.get("READWELL_CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",
]
# Every link, button and summary is clicked one at a time (``el.click()`` runs the element's activation
# behaviour: following a link, submitting a form, toggling details), with a pause after each so that a queued
# javascript: navigation runs before the next click could cancel it. Then events are dispatched on every
# element, for any handler attribute that might have survived.
CLICK_AND_DISPATCH = """async () => {
  const pause = () => new Promise(r => setTimeout(r, 4));
  let n = 0;
  const clickable = 'a, button, summary, area, label, input, [onclick], [tabindex]';
  for (const el of document.querySelectorAll(clickable)) {
    // a link back to this very document would only reload it (not a finding, but it ends the run)
    if (el.href && String(el.href).split('#')[0] === location.href.split('#')[0]) continue;
    try { el.click(); n++; } catch (e) {}
    await pause();
  }
  const kinds = ['mouseover', 'mouseenter', 'pointerenter', 'focus', 'focusin', 'animationstart',
                 'animationend', 'transitionend', 'toggle', 'load', 'error', 'dblclick', 'auxclick'];
  for (const el of document.querySelectorAll('*')) {
    for (const k of kinds) { try { el.dispatchEvent(new Event(k)); } catch (e) {} }
  }
  await pause();
  return n;
}"""

SECURITY_FIXTURES = fixturelib.all_fixtures("security")


def _have_browser() -> bool:
    if not (os.path.exists(CHROMIUM) or shutil.which(CHROMIUM)):
        return False
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return False
    return True


if not _have_browser():
    pytest.skip(f"Chromium ({CHROMIUM}) or Python playwright not available", allow_module_level=True)


class _Server:
    """Serves registered pages from 127.0.0.1 and counts hits on /trap."""

    def __init__(self) -> None:
        self.pages: dict[str, bytes] = {}
        self.trap_hits: list[str] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server API)
                if self.path.startswith("/trap"):
                    server.trap_hits.append(self.path)
                body = server.pages.get(self.path.split("?")[0])
                if body is None:
                    self.send_response(204)
                    self.end_headers()
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_POST = do_GET  # noqa: N815

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def add(self, path: str, html: str) -> str:
        self.pages[path] = html.encode("utf-8")
        return f"http://127.0.0.1:{self.port}{path}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(scope="module")
def server() -> Iterator[_Server]:
    s = _Server()
    yield s
    s.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield b
        b.close()


def _reader_page(content_html: str) -> str:
    return (
        '<!DOCTYPE html><html><head><meta charset="utf-8"><title>Reader view</title></head><body>'
        f"<main>{content_html}</main></body></html>"
    )


def _markdown_page(markdown: str) -> str:
    body = checks.markdown_renderer().render(markdown)
    head = '<meta charset="utf-8"><title>Markdown</title>'
    return f"<!DOCTYPE html><html><head>{head}</head><body>{body}</body></html>"


class _Traps:
    """One browser context and page for the module (creating them costs ~0.3 s each); each URL is a fresh
    document in that page."""

    def __init__(self, browser: Any, server: _Server) -> None:
        self.server = server
        self.fired: list[str] = []
        self.context = browser.new_context(java_script_enabled=True)
        self.context.set_default_timeout(60_000)  # a hang guard: a busy machine can take seconds per page
        self.context.route("**/*", self._route)
        self.page = self.context.new_page()  # reused: each run navigates it to a fresh document
        self.page.on("dialog", self._dialog)
        self.page.on("popup", lambda p: self.fired.append(f"popup {p.url}"))

    def _route(self, r: Any) -> None:
        u = r.request.url
        if urlsplit(u).netloc == f"127.0.0.1:{self.server.port}":
            r.continue_()
            return
        if reference.TRAP_HOST in u or "/trap" in u:
            self.fired.append(f"request {u}")
        r.fulfill(status=204, body="")

    def _dialog(self, d: Any) -> None:
        self.fired.append(f"dialog {d.type}: {d.message}")
        d.dismiss()

    def run(self, url: str) -> list[str]:
        """Load ``url``, click every link, button and summary, dispatch events; return what fired."""
        self.fired = []
        page = self.page
        page.goto(url, wait_until="load")
        page.wait_for_timeout(100)
        try:
            page.evaluate(CLICK_AND_DISPATCH)
        except Exception as exc:  # noqa: BLE001 (a javascript: URL that replaced the document, a navigation)
            self.fired.append(f"the page changed under the clicks: {str(exc).splitlines()[0]}")
        page.wait_for_timeout(100)
        if page.url.split("#")[0] == url:
            pwned = page.evaluate("() => window.__pwned")
            if pwned is not None:
                self.fired.append(f"window.__pwned = {pwned!r}")
        else:
            self.fired.append(f"left the page for {page.url}")
        self.fired.extend(f"local trap {h}" for h in self.server.trap_hits)
        self.server.trap_hits.clear()
        return self.fired

    def close(self) -> None:
        self.context.close()


@pytest.fixture(scope="module")
def traps(browser: Any, server: _Server) -> Iterator[_Traps]:
    t = _Traps(browser, server)
    yield t
    t.close()


def test_trap_works(traps: _Traps, server: _Server) -> None:
    """The harness catches what it should: an unsanitized payload page fires every kind of trap."""
    raw = (
        '<!DOCTYPE html><body><img src=x onerror="alert(\'xss-raw\')"><a href="https://example.org/1">1</a>'
        '<a href="javascript:window.__pwned=1">a</a><a href="https://example.org/2">2</a>'
        f'<iframe src="https://{reference.TRAP_HOST}/frame"></iframe></body>'
    )
    fired = traps.run(server.add("/raw", raw))
    assert any(f.startswith("dialog") for f in fired), fired
    assert any(f.startswith("window.__pwned") for f in fired), fired
    assert any(reference.TRAP_HOST in f for f in fired), fired


def _pages(server: _Server, name: str, result: Any) -> list[str]:
    return [
        server.add(f"/{name}/reader", _reader_page(result.content_html)),
        server.add(f"/{name}/saved", checks.saved_page(result)),
        server.add(f"/{name}/markdown", _markdown_page(result.markdown)),
    ]


_VIDEO_LINK = re.compile(r'<p data-embed="video"><a href="([^"]+)"')


def _followed_video_links(result: Any) -> set[str]:
    """A video player becomes a link to the video (``<p data-embed="video">``): clicking it is the user
    following a link the article offers, not a load. Those exact http(s) URLs are the only trap requests a
    click may make; everything else must still fire nothing."""
    links = {html.unescape(u) for u in _VIDEO_LINK.findall(result.content_html)}
    assert all(urlsplit(u).scheme in ("http", "https") for u in links), links
    return {f"request {u}" for u in links}


@pytest.mark.parametrize("fx", SECURITY_FIXTURES, ids=lambda f: f.name)
def test_fixture_outputs_fire_nothing(traps: _Traps, server: _Server, fx: fixturelib.Fixture) -> None:
    result = readwell.extract(fx.data, url=fx.url, **fx.options)
    assert result.found
    followed = _followed_video_links(result)
    for url in _pages(server, fx.name, result):
        assert [f for f in traps.run(url) if f not in followed] == [], url


def test_corpus_outputs_fire_nothing(traps: _Traps, server: _Server) -> None:
    """Every body payload of the corpus in one article (the URL product in one block per context)."""
    parts = [
        f"<p>Sample {p.id} follows in plain words.</p>{p.html}"
        for p in payloads.PAYLOADS
        if p.where == "body" and p.keep
    ]
    page = article.article_page(body="\n".join(parts))
    result = readwell.extract(page, url=article.PAGE_URL)
    assert result.found and article.KEEP_TAIL in result.text
    # without a page URL, relative targets stay relative (the entity-in-target Markdown vector needs that)
    no_url = readwell.extract(page)
    head = "\n".join(p.html for p in payloads.PAYLOADS if p.where == "head")
    meta = readwell.extract(article.article_page(head=head, title=None), url=article.PAGE_URL)
    urls = (
        _pages(server, "corpus", result)
        + _pages(server, "corpus-no-url", no_url)
        + _pages(server, "meta", meta)
    )
    for url in urls:
        assert traps.run(url) == [], url
