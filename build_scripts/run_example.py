"""The main job, in the extension: build/extension loaded in headless Chromium, the bundled example page
served from 127.0.0.1, the reader view opened, and the article saved as Markdown and as self-contained HTML,
plus a PNG screenshot of the reader view, under out/extension/.

    python build_scripts/run_example.py [fixtures/core--news-article-basic.html] [--out out/extension]
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
    print(f"reader view shown in {shown['ms']:.0f} ms (cold); wrote " + ", ".join(str(p) for p in written))
    return 0


if __name__ == "__main__":
    sys.exit(main())
