"""Render mode: extract from what a browser shows (Playwright driving Debian's Chromium).

``render(url)`` / ``render_urls(urls, opts)`` load pages in headless Chromium, wait until they settle, scroll
lazy content into the DOM, take the extension's snapshot (``snapshot.js``, the same file) and run the core on
it. Needs the ``render`` extra (Playwright); importing this package does not import Playwright.
"""

from .options import RenderOptions
from .run import RenderResult, render, render_urls

__all__ = ["RenderOptions", "RenderResult", "render", "render_urls"]
