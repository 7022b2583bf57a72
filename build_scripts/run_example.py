"""The main job, in the extension: build/extension loaded in headless Chromium, the bundled example page
served from 127.0.0.1, the reader view opened, and the article saved as Markdown and as self-contained HTML,
plus a PNG screenshot of the reader view, under out/extension/. With --shots DIR, also the README's
screenshots (reader light / dark / right-to-left / phone width, debug overlay), so they follow the code.

    python build_scripts/run_example.py [fixtures/core--news-article-basic.html] [--out out/extension]
        [--shots docs/screenshots]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

from extension_harness import FixtureServer, call, extension_browser, tab_id

ROOT = Path(__file__).resolve().parent.parent


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("page", nargs="?", default=str(ROOT / "fixtures" / "core--news-article-basic.html"))
    ap.add_argument("--out", type=Path, default=ROOT / "out" / "extension")
    ap.add_argument(
        "--shots", type=Path, default=ROOT / "docs" / "screenshots", help="the README screenshots go here"
    )
    args = ap.parse_args(argv)
    page_path = Path(args.page).resolve()
    from playwright.sync_api import sync_playwright

    args.out.mkdir(parents=True, exist_ok=True)
    routes = {"/" + page_path.name: ("text/html", page_path.read_bytes())}
    with FixtureServer(routes) as srv, sync_playwright() as pw, tempfile.TemporaryDirectory() as td:
        td = Path(td)
        (td / "dl").mkdir()
        with extension_browser(pw, td / "profile", td / "dl") as (ctx, sw, _):
            page = ctx.new_page()
            page.set_viewport_size({"width": 1000, "height": 1200})
            url = f"{srv.base}/{page_path.name}"
            page.goto(url, wait_until="load")
            tid = tab_id(sw, url)
            shown = call(sw, "reader", tid)
            if not shown["found"]:
                print(f"no article found on {url}", file=sys.stderr)
                return 1
            page.locator('[data-readwell="article"]').wait_for()
            shot = args.out / "reader.png"
            page.screenshot(path=str(shot))
            written = [shot]
            for fmt, name in (("markdown", "article.md"), ("html", "article.html")):
                info = call(sw, "save", tid, {"format": fmt})
                item = sw.evaluate("async (id) => (await chrome.downloads.search({id}))[0]", info["id"])
                dest = args.out / name
                shutil.copyfile(item["filename"], dest)
                written.append(dest)
            page.close()  # tabs are found by URL: the screenshots open the example again
            if args.shots:
                written += screenshots(ctx, sw, srv, url, args.shots)
    print(f"reader view shown in {shown['ms']:.0f} ms (cold); wrote " + ", ".join(str(p) for p in written))
    return 0


# name -> (page, viewport, reader theme or "overlay"); fixtures other than the example come from fixtures/
SHOTS = {
    "reader-light.png": (None, (1000, 760), "light"),
    "reader-dark.png": (None, (1000, 760), "dark"),
    "reader-rtl.png": ("metadata--rtl-arabic.html", (1000, 560), "sepia"),
    "reader-phone.png": (None, (360, 740), "light"),
    "overlay.png": ("core--blog-post-with-sidebar.html", (1000, 900), "overlay"),
}


def screenshots(ctx, sw, srv, example_url: str, folder: Path) -> list[Path]:
    """The README's pictures, each from a fresh tab at its viewport."""
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for name, (fixture, (w, h), mode) in SHOTS.items():
        url = srv.url(fixture) if fixture else example_url
        page = ctx.new_page()
        page.set_viewport_size({"width": w, "height": h})
        page.goto(url, wait_until="load")
        tid = tab_id(sw, url)
        if mode == "overlay":
            call(sw, "overlay", tid)
            page.locator("readwell-overlay .panel").wait_for()
        else:
            sw.evaluate(
                "async (t) => chrome.storage.local.set({readerPrefs: {theme: t, fontSize: 18}})", mode
            )
            call(sw, "reader", tid)
            page.locator('[data-readwell="article"]').wait_for()
        page.screenshot(path=str(folder / name))
        out.append(folder / name)
        page.close()
    sw.evaluate("async () => chrome.storage.local.remove('readerPrefs')")
    return out


if __name__ == "__main__":
    sys.exit(main())
