"""Render mode (readwell.render) in headless Chromium against pages served from 127.0.0.1: an article built
by script after 800 ms, paragraphs that load on scroll, an infinite list, a page that never stops mutating,
a page that opens a popup, dialogs and a download, a "show more" article; static fixtures give the same text
as the static parse; the browser is relaunched on schedule. One browser for the dynamic pages (each page gets
its own settings). Skipped when Chromium or Playwright is missing (failed in CI)."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

import fixturelib
import pytest
import readwell
from extension_harness import CHROMIUM, FixtureServer
from readwell import cli
from readwell.render import RenderOptions, RenderResult
from readwell.render.browser import BrowserPool
from readwell.render.cli import file_name, to_url
from readwell.render.config import load_options, to_toml
from readwell.render.run import render_page, render_urls

ROOT = Path(__file__).resolve().parents[1]

PROSE = (
    "The survey team walked the river from the spring to the estuary and wrote down how the banks, the "
    "water and the plants changed along the way, season after season, so that later visits can compare."
)


def _para(i: int) -> str:
    return f"<p>Paragraph {i}: {PROSE}</p>"


def page(title: str, body: str, script: str = "") -> bytes:
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{title}</title></head>'
        f"<body>{body}<script>{script}</script></body></html>"
    ).encode()


# The article arrives by script 800 ms after load; the static HTML holds only a placeholder.
SHELL = page(
    "Shell",
    '<div id="app">Loading...</div>',
    "setTimeout(() => { document.getElementById('app').innerHTML = '<article><h1>River survey</h1>' + "
    + json.dumps("".join(_para(i) for i in range(4)))
    + " + '<p>SHELLEND arrived by script.</p></article>'; }, 800);",
)
# Three more paragraphs each time the sentinel at the bottom comes into view, five batches, then no more.
# Each batch is taller than the viewport, so the sentinel leaves the view until the next scroll step.
LAZY = page(
    "Lazy",
    "<style>article > p { min-height: 120px } #more p { min-height: 300px }</style>"
    "<article><h1>Lazy river</h1>"
    + "".join(_para(i) for i in range(12))
    + '<div id="more"></div></article><div id="sentinel" style="height:10px"></div>'
    + "<footer><p>Site footer</p></footer>",
    "let batch = 0; const more = document.getElementById('more');"
    "new IntersectionObserver((es) => { if (!es[0].isIntersecting || batch >= 5) return; batch++;"
    "setTimeout(() => { for (let k = 0; k < 3; k++) { const p = document.createElement('p');"
    "p.textContent = 'LAZY' + batch + '-' + k + ' ' + " + json.dumps(PROSE) + "; more.append(p); } }, 100);"
    "}).observe(document.getElementById('sentinel'));",
)
# Items forever: every time the sentinel shows, ten more list items.
INFINITE = page(
    "Infinite",
    "<article><h1>Endless list</h1>"
    + "".join(_para(i) for i in range(3))
    + '<ul id="list"></ul></article><div id="sentinel" style="height:10px"></div>',
    "let n = 0; const list = document.getElementById('list');"
    "new IntersectionObserver((es) => { if (!es[0].isIntersecting) return;"
    "for (let k = 0; k < 10; k++) { const li = document.createElement('li'); li.style.height = '60px';"
    "li.textContent = 'ITEM' + (n++) + ' in the endless list of river gauges'; list.append(li); }"
    "}).observe(document.getElementById('sentinel'));",
)
# A clock that ticks every 50 ms: the page never has a quiet window.
NEVER = page(
    "Never",
    "<article><h1>Never settles</h1>" + "".join(_para(i) for i in range(4)) + '<p id="clock">0</p></article>',
    "let t = 0; setInterval(() => { document.getElementById('clock').textContent = 'tick ' + (t++); }, 50);",
)
# A popup, an alert, a confirm, a download and a notification permission request; the article is static.
NAGGING = page(
    "Nagging",
    "<article><h1>Nagging page</h1>"
    + "".join(_para(i) for i in range(4))
    + '<p id="confirm">CONFIRM?</p><p id="perm">PERM?</p></article>',
    "window.open('/popup-target.html');"
    "alert('hello'); document.getElementById('confirm').textContent = 'CONFIRM ' + confirm('sure?');"
    "const a = document.createElement('a'); a.href = '/file.bin'; a.download = 'file.bin';"
    "document.body.append(a); a.click();"
    "Notification.requestPermission().then((r) => { document.getElementById('perm').textContent ="
    "'PERM ' + r; });",
)
# The second half of the article is hidden until its "Show more" button (inside the article) is clicked.
SHOW_MORE = page(
    "Show more",
    "<article><h1>Folded article</h1>"
    + "".join(_para(i) for i in range(3))
    + '<div id="rest" style="display:none">'
    + "".join(f"<p>FOLDED{i} {PROSE}</p>" for i in range(3))
    + '</div><button id="b" type="button">Show more</button></article>',
    "document.getElementById('b').addEventListener('click', () => {"
    "document.getElementById('rest').style.display = 'block'; });",
)
ROUTES = {
    "/shell.html": ("text/html", SHELL),
    "/lazy.html": ("text/html", LAZY),
    "/infinite.html": ("text/html", INFINITE),
    "/never.html": ("text/html", NEVER),
    "/nagging.html": ("text/html", NAGGING),
    "/popup-target.html": ("text/html", page("Popup", "<p>popup</p>")),
    "/file.bin": ("application/octet-stream", b"\x00" * 64),
    "/show-more.html": ("text/html", SHOW_MORE),
}

# Tests never leave 127.0.0.1: every other host name fails to resolve at once (fixtures link example.org).
LOCAL_ONLY = ("--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",)
FAST = RenderOptions(settle_ms=300, timeout_ms=30_000)


def _need_browser() -> None:
    msg = ""
    if not Path(CHROMIUM).exists():
        msg = f"no Chromium at {CHROMIUM}"
    else:
        try:
            import playwright.async_api  # noqa: F401
        except ImportError:
            msg = "Playwright is not installed"
    if msg:
        if os.environ.get("CI"):
            pytest.fail(msg)
        pytest.skip(msg)


def _closed_port() -> int:
    """A port nobody listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def _render_all(specs: dict[str, tuple[str, RenderOptions]]) -> dict[str, RenderResult]:
    async with BrowserPool(RenderOptions(jobs=2, browser_args=LOCAL_ONLY)) as pool:
        keys = list(specs)
        got = await asyncio.gather(*(render_page(pool, specs[k][0], None, specs[k][1]) for k in keys))
    return dict(zip(keys, got, strict=True))


@pytest.fixture(scope="module")
def srv():
    with FixtureServer(ROUTES) as s:
        yield s


@pytest.fixture(scope="module")
def dyn(srv) -> dict[str, RenderResult]:
    """Every dynamic page rendered once, in one browser, with its own settings."""
    _need_browser()
    b = srv.base
    specs = {
        "shell": (b + "/shell.html", FAST),
        "lazy": (b + "/lazy.html", FAST),
        "lazy_noscroll": (b + "/lazy.html", replace(FAST, scroll=False)),
        "infinite": (b + "/infinite.html", replace(FAST, max_scroll_steps=6)),
        "never": (b + "/never.html", replace(FAST, timeout_ms=3_000)),
        "nagging": (b + "/nagging.html", FAST),
        "folded": (b + "/show-more.html", FAST),
        "unfolded": (b + "/show-more.html", replace(FAST, show_more=True)),
        "missing": (b + "/nothing-here.html", FAST),
        "refused": (f"http://127.0.0.1:{_closed_port()}/", FAST),
    }
    return asyncio.run(_render_all(specs))


@pytest.mark.browser
def test_shell_page_article_arrives_by_script(dyn):
    r = dyn["shell"]
    assert r.status == "ok" and r.found
    assert "SHELLEND arrived by script" in r.result.text
    assert "Paragraph 3:" in r.result.text
    # the static HTML has no article at all
    assert not readwell.extract(SHELL).found


@pytest.mark.browser
def test_lazy_paragraphs_load_on_scroll(dyn):
    r = dyn["lazy"]
    assert r.status == "ok", r.to_dict()["render"]
    for batch in range(1, 6):
        for k in range(3):
            assert f"LAZY{batch}-{k}" in r.result.text
    assert r.info["scroll"]["capped"] is False
    assert "LAZY" not in dyn["lazy_noscroll"].result.text
    assert "scroll" not in dyn["lazy_noscroll"].info


@pytest.mark.browser
def test_infinite_list_honours_the_step_cap(dyn):
    r = dyn["infinite"]
    assert r.info["scroll"]["capped"] is True and r.info["scroll"]["steps"] == 6
    md = r.result.markdown
    assert "ITEM0 " in md and "ITEM10 " in md  # scrolling loaded more than the first batch
    items = md.count(" in the endless list")
    assert 20 <= items <= 10 * (6 + 2), items  # at most one batch per step (plus the initial view)


@pytest.mark.browser
def test_never_settling_page_times_out_with_partial_result(dyn):
    r = dyn["never"]
    assert r.status == "timeout"
    assert r.found and "Paragraph 3:" in r.result.text
    d = r.to_dict()
    assert d["status"] == "timeout" and d["found"] is True


@pytest.mark.browser
def test_popups_dialogs_downloads_and_permissions_refused(dyn):
    r = dyn["nagging"]
    assert r.status == "ok" and r.found
    assert r.info["refused"]["popups"] == 1
    assert r.info["refused"]["dialogs"] == 2
    assert r.info["refused"]["downloads"] == 1
    assert "CONFIRM false" in r.result.text  # the confirm was dismissed
    # the permission answer arrives asynchronously (no mutation or request announces it): never a grant
    assert "PERM granted" not in r.result.text and "PERM default" not in r.result.text


@pytest.mark.browser
def test_show_more_is_off_by_default_and_clicks_inside_the_root(dyn):
    folded, unfolded = dyn["folded"], dyn["unfolded"]
    assert "FOLDED0" not in folded.result.text and "show_more_clicks" not in folded.info
    assert unfolded.info["show_more_clicks"] == 1
    for i in range(3):
        assert f"FOLDED{i}" in unfolded.result.text


@pytest.mark.browser
def test_http_error_and_unreachable(dyn):
    missing = dyn["missing"]
    assert missing.info["http_status"] == 404 and not missing.found
    refused = dyn["refused"]
    assert refused.status == "error" and refused.result is None
    assert "ERR_CONNECTION_REFUSED" in (refused.error or "")
    assert refused.to_dict()["found"] is False


@pytest.mark.browser
def test_static_fixtures_same_text_as_static_parse(srv):
    """Render mode on static fixtures = CPython's static parse, except the differences the live DOM causes
    on purpose (listed in test_extension: computed style, <noscript> under scripting)."""
    _need_browser()
    from test_extension import EXPECTED_DIFFERENCES

    fixtures = fixturelib.all_fixtures()[::3]  # every third: all categories, a third of the browser time
    opts = RenderOptions(settle_ms=150, scroll=False, jobs=2, browser_args=LOCAL_ONLY)
    urls = [srv.url(fx.path.name) for fx in fixtures]
    # fixture options differ per fixture: group by them so each group is one render_urls call
    groups: dict[str, list[int]] = {}
    for i, fx in enumerate(fixtures):
        groups.setdefault(json.dumps(fx.options, sort_keys=True), []).append(i)
    got: dict[int, RenderResult] = {}

    async def run_groups() -> None:
        async with BrowserPool(opts) as pool:
            for key, idx in groups.items():
                xopts = json.loads(key)
                res = await asyncio.gather(*(render_page(pool, urls[i], xopts) for i in idx))
                got.update(zip(idx, res, strict=True))

    asyncio.run(run_groups())
    mismatches: dict[str, Any] = {}
    for i, fx in enumerate(fixtures):
        r = got[i]
        if b'http-equiv="refresh" content="0;' in fx.data and r.status != "ok":
            # the live page follows its meta refresh (to an unreachable host here) unless extraction came
            # first (a race with the browser's timer): an error then, never the browser's error page
            # extracted as an article
            assert r.status == "error" and "navigated itself" in (r.error or ""), (fx.name, r.to_dict())
            continue
        assert r.status == "ok", (fx.name, r.to_dict().get("error"))
        want = readwell.extract(fx.data, url=urls[i], **fx.options).to_dict()
        have = r.to_dict()
        for key in ("found", "text", "title"):
            if have[key] != want[key] and key not in EXPECTED_DIFFERENCES.get(fx.name, {}):
                mismatches.setdefault(fx.name, {})[key] = (want[key], have[key])
    assert not mismatches, json.dumps(mismatches, indent=1, ensure_ascii=False)[:4000]


@pytest.mark.browser
def test_browser_relaunched_after_recycle_after_pages(srv):
    _need_browser()
    opts = RenderOptions(settle_ms=100, scroll=False, jobs=2, recycle_after=2, browser_args=LOCAL_ONLY)
    url = srv.url("core--news-article-basic.html")

    async def go() -> tuple[list[RenderResult], Any]:
        async with BrowserPool(opts) as pool:
            res = await asyncio.gather(*(render_page(pool, url) for _ in range(5)))
            return list(res), pool.stats

    results, stats = asyncio.run(go())
    assert all(r.status == "ok" and r.found for r in results)
    assert stats.launches == 3  # pages 1-2, 3-4, 5
    assert (stats.pages, stats.recycled) == (5, {"pages": 2})
    assert len({r.result.text for r in results}) == 1


@pytest.mark.browser
def test_browser_relaunched_when_its_memory_passes_the_cap(srv):
    """Any Chromium uses more than 1 MB: with that cap, every page after the first finds the browser over it
    and relaunches it first (counted by reason; recycle_after is never reached)."""
    _need_browser()
    opts = RenderOptions(settle_ms=100, scroll=False, jobs=1, max_browser_rss_mb=1, browser_args=LOCAL_ONLY)
    url = srv.url("core--news-article-basic.html")

    async def go() -> tuple[list[RenderResult], Any]:
        async with BrowserPool(opts) as pool:
            res = [await render_page(pool, url) for _ in range(3)]
            return res, pool.stats

    results, stats = asyncio.run(go())
    assert all(r.status == "ok" and r.found for r in results)
    assert (stats.launches, stats.recycled) == (3, {"memory": 2})
    assert len(stats.rss_mb) == 2 and min(stats.rss_mb) > 1


def test_recycling_is_configured_in_readwell_toml(tmp_path):
    cfg = tmp_path / "readwell.toml"
    cfg.write_text("[render]\nrecycle_after = 7\nmax_browser_rss_mb = 900\n", encoding="utf-8")
    opts = load_options(cfg)
    assert (opts.recycle_after, opts.max_browser_rss_mb) == (7, 900)
    assert "recycle_after = 7" in to_toml(opts) and "max_browser_rss_mb = 900" in to_toml(opts)
    cfg.write_text('[render]\nrecycle_after = "often"\n', encoding="utf-8")
    with pytest.raises(readwell.InputError, match="recycle_after"):
        load_options(cfg)
    cfg.write_text("[render]\nrecycle_after = 0\n", encoding="utf-8")
    with pytest.raises(readwell.InputError, match="recycle_after"):
        load_options(cfg).validate()


@pytest.mark.browser
def test_cli_extract_render_and_render_dir(srv, tmp_path, capsys):
    _need_browser()
    url = srv.base + "/shell.html"
    assert cli.main(["extract", "--render", url, "--settle-ms", "300", "--format", "json", "--no-cache"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["status"] == "ok" and "SHELLEND" in d["text"] and d["render"]["final_url"] == url
    out = tmp_path / "out"
    urls = [url, srv.base + "/lazy.html"]
    code = cli.main(["render", *urls, "-o", str(out), "-j", "2", "--settle-ms", "300", "--no-cache"])
    assert code == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and all(line.startswith("ok\tfound\t") for line in lines)
    saved = json.loads((out / f"{file_name(urls[1])}.json").read_text(encoding="utf-8"))
    assert "LAZY5-2" in saved["text"]
    assert "LAZY5-2" in (out / f"{file_name(urls[1])}.md").read_text(encoding="utf-8")


@pytest.mark.browser
def test_render_urls_keeps_input_order(srv):
    _need_browser()
    urls = [srv.url("core--news-article-basic.html"), srv.base + "/nothing-here.html"]
    res = asyncio.run(render_urls(urls, RenderOptions(settle_ms=100, scroll=False, browser_args=LOCAL_ONLY)))
    assert [r.url for r in res] == urls and res[0].found and not res[1].found


# -- no browser needed


@pytest.mark.parametrize(
    "argv, message",
    [
        (["extract", "--render", "-"], "not stdin"),
        (["render", "ftp://example.org/x"], "http(s) URLs or files"),
        (["render", "/no/such/file.html"], "no such file"),
        (["render", "http://127.0.0.1:9/", "--timeout", "5"], "at least 100 ms"),
        (["render", "http://127.0.0.1:9/", "--chromium", "/no/chromium"], "no Chromium at /no/chromium"),
        (["render", "http://127.0.0.1:9/", "-j", "0"], "at least 1"),
    ],
)
def test_bad_render_usage_is_one_line(argv, message, capsys):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_file_names_and_urls(tmp_path):
    a, b = file_name("https://example.org/a?b=1"), file_name("https://example.org/a?b=2")
    assert a != b and a.startswith("example-org-a-b-1-")
    assert file_name("https://例え.jp/").startswith("jp-")
    f = tmp_path / "p.html"
    f.write_text("<p>x</p>")
    assert to_url(str(f)) == f.resolve().as_uri()
    assert to_url("HTTPS://example.org/") == "HTTPS://example.org/"


def test_snapshot_js_is_the_extensions_file():
    from readwell.render.page import SNAPSHOT_JS

    assert SNAPSHOT_JS.read_bytes() == (ROOT / "extension" / "snapshot.js").read_bytes()


# -- the same DOM through the extension and through render mode


@pytest.fixture(scope="module")
def ext(srv, tmp_path_factory):
    """The built extension in its own headless Chromium (builds when out of date, as test_extension does)."""
    _need_browser()
    from extension_harness import extension_browser
    from test_extension import _skip_or_fail, build_extension

    node = shutil.which("node")
    if node is None:
        _skip_or_fail("no node: cannot build the extension")
    build_extension(node)
    from playwright.sync_api import sync_playwright

    tmp = tmp_path_factory.mktemp("ext")
    with sync_playwright() as p, extension_browser(p, tmp / "profile", tmp) as (ctx, sw, _id):
        page = ctx.new_page()
        page.set_default_timeout(60_000)
        yield page, sw


PARITY_FIXTURES = (
    "core--news-article-basic",
    "stage-flatten_shadow--nested-shadow-roots",
    "stage-remove_hidden_and_tiny_media--hidden-elements",
    "stage-resolve_deferred--lazy-images",
)


@pytest.mark.browser
def test_extension_and_render_mode_agree_on_the_same_dom(srv, ext):
    """The extension's snapshot path (content script -> Pyodide) and render mode (isolated world -> CPython)
    give the same result fields on the same live DOM: a page built by script, a folded article, fixtures."""
    from extension_harness import call, tab_id
    from test_extension import COMPARED

    page, sw = ext
    urls = [
        srv.base + "/shell.html",
        srv.base + "/show-more.html",
        *(srv.url(f"{n}.html") for n in PARITY_FIXTURES),
    ]
    want = {}
    for url in urls:
        page.goto(url, wait_until="load")
        if url.endswith("/shell.html"):
            page.wait_for_function("() => document.body.innerText.includes('SHELLEND')")
        want[url] = call(sw, "extract", tab_id(sw, url))
    opts = RenderOptions(
        settle_ms=300, scroll=False, viewport_width=1280, viewport_height=720, browser_args=LOCAL_ONLY
    )
    with ThreadPoolExecutor(1) as pool:  # sync Playwright runs an event loop in this thread
        got = pool.submit(asyncio.run, render_urls(urls, opts)).result()
    diffs = {
        url: {
            k: (want[url].get(k), r.to_dict().get(k))
            for k in COMPARED
            if want[url].get(k) != r.to_dict().get(k)
        }
        for url, r in zip(urls, got, strict=True)
    }
    assert all(r.status == "ok" and r.found for r in got)
    assert not any(diffs.values()), json.dumps(diffs, indent=1, ensure_ascii=False)[:4000]
