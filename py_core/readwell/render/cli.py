"""Command-line parts of render mode: ``readwell extract --render URL`` and ``readwell render URL...``.

Kept out of ``readwell.cli`` so that module only wires them in; Playwright is imported when a command runs.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import re
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..errors import InputError
from .cache import Cache, cache_key, default_path
from .config import DEFAULT_FILE, ENV_VAR, find_config, load_options, to_toml
from .options import RenderOptions
from .run import RenderResult, render_urls

EXIT_FOUND, EXIT_NOT_FOUND = 0, 3


def add_render_options(p: argparse.ArgumentParser) -> None:
    """The settings shared by ``extract --render``, ``render`` and ``config``; unset flags (None) leave the
    configuration file's value (or the default) in place."""
    d = RenderOptions()
    g = p.add_argument_group("render mode (headless Chromium)")
    g.add_argument("--config", metavar="FILE", help=f"settings file (default: ${ENV_VAR}, ./{DEFAULT_FILE})")
    g.add_argument(
        "--timeout",
        type=int,
        metavar="MS",
        help=f"per page, all included (render default {d.timeout_ms}; without --render: none)",
    )
    g.add_argument("--settle-ms", type=int, metavar="MS", help=f"quiet window ({d.settle_ms})")
    g.add_argument("--max-scroll-steps", type=int, metavar="N", help=f"({d.max_scroll_steps})")
    g.add_argument(
        "--no-scroll", action="store_true", default=None, help="do not scroll to load lazy content"
    )
    g.add_argument(
        "--show-more", action="store_true", default=None, help='click "show more" controls inside the article'
    )
    g.add_argument("--chromium", metavar="PATH", help=f"browser executable ({d.chromium})")
    g.add_argument("--retries", type=int, metavar="N", help=f"on errors, timeouts, 5xx ({d.retries})")
    g.add_argument(
        "--cache-ttl", type=int, metavar="S", help=f"reuse rendered pages this young ({d.cache_ttl_s})"
    )
    g.add_argument("--no-cache", action="store_true", default=None, help="neither read nor write the cache")


def add_render_command(sub: Any) -> None:
    r = sub.add_parser("render", help="render pages in headless Chromium and extract them")
    r.add_argument("urls", nargs="+", metavar="URL", help="http(s) URLs or local files")
    r.add_argument(
        "-o", "--output-dir", help="write NAME.json and NAME.md per page here (default: JSON lines)"
    )
    r.add_argument("-j", "--jobs", type=int, help=f"pages at once ({RenderOptions().jobs})")
    r.add_argument("--selector", help="CSS selector of the content root (bypasses detection)")
    r.add_argument("--debug", action="store_true", help="include the removal log and per-stage timings")
    r.add_argument(
        "--screenshots", action="store_true", help="also NAME.png with the blocks drawn (needs -o)"
    )
    add_render_options(r)
    c = sub.add_parser("config", help="render-mode configuration (readwell.toml)")
    c.add_argument("--show", action="store_true", required=True, help="print the effective configuration")
    add_render_options(c)
    c.add_argument("-j", "--jobs", type=int, help="pages at once")


# flag -> RenderOptions field (and how an on/off flag maps)
FLAG_FIELDS = {
    "timeout": ("timeout_ms", None),
    "settle_ms": ("settle_ms", None),
    "max_scroll_steps": ("max_scroll_steps", None),
    "no_scroll": ("scroll", lambda v: not v),
    "show_more": ("show_more", None),
    "chromium": ("chromium", None),
    "jobs": ("jobs", None),
    "retries": ("retries", None),
    "cache_ttl": ("cache_ttl_s", None),
    "no_cache": ("cache_ttl_s", lambda v: 0),
}


def options_from_args(a: argparse.Namespace) -> RenderOptions:
    """Defaults, then the configuration file, then the flags given on the command line."""
    opts = load_options(find_config(getattr(a, "config", None)))
    given: dict[str, Any] = {}
    for flag, (name, conv) in FLAG_FIELDS.items():
        v = getattr(a, flag, None)
        if v is not None:
            given[name] = conv(v) if conv else v
    return replace(opts, **given).validate()


def cmd_config(a: argparse.Namespace) -> int:
    """``config --show``: the effective configuration as TOML (readable back with --config)."""
    path = find_config(a.config)
    text = to_toml(options_from_args(a))
    sys.stdout.write(f"# readwell render configuration: defaults < {path or 'no file'} < flags\n{text}")
    return 0


def to_url(source: str) -> str:
    """http(s) URLs as given; a local file becomes a file:// URL (rendered with its relative resources)."""
    if re.match(r"(?i)^(https?|file)://", source):
        return source
    if re.match(r"^[a-zA-Z][\w+.-]*:", source) and not Path(source).exists():
        raise InputError(f"render mode takes http(s) URLs or files, not {source!r}")
    path = Path(source)
    if not path.is_file():
        raise InputError(f"no such file: {source}")
    return path.resolve().as_uri()


def run(
    urls: list[str],
    opts: RenderOptions,
    extract_options: dict[str, Any],
    screenshots: list[str | None] | None = None,
) -> list[RenderResult]:
    """Render ``urls`` (files as file:// URLs); pages in the cache young enough are not rendered again
    (unless a screenshot is wanted: a picture needs the page)."""
    full = [to_url(u) for u in urls]
    if opts.cache_ttl_s <= 0 or (screenshots and any(screenshots)):
        return asyncio.run(render_urls(full, opts, extract_options, screenshots))
    cache = Cache(Path(opts.cache_path) if opts.cache_path else default_path(), opts.cache_ttl_s)
    try:
        keys = [cache_key(u, opts, extract_options) for u in full]
        out: list[RenderResult | None] = []
        for u, k in zip(full, keys, strict=True):
            data = cache.get(k)
            out.append(RenderResult(u, str(data.get("status")), cached=data) if data else None)
        todo = [i for i, r in enumerate(out) if r is None]
        if todo:
            fresh = asyncio.run(render_urls([full[i] for i in todo], opts, extract_options))
            for i, r in zip(todo, fresh, strict=True):
                out[i] = r
                if r.status == "ok":
                    cache.put(keys[i], full[i], r.to_dict())
        return [r for r in out if r is not None]
    finally:
        cache.close()


def cmd_extract_render(a: argparse.Namespace, render_output: Any, xopts: dict[str, Any]) -> int:
    """``extract --render``: the extract command's output, plus ``status`` and ``render`` in JSON."""
    if a.source == "-":
        raise InputError("--render needs a URL or a file, not stdin")
    shot = getattr(a, "screenshot", None)
    if shot:
        _writable(Path(shot))
    res = run([a.source], options_from_args(a), xopts, [shot])[0]
    if res.status == "error":
        raise InputError(f"cannot render {a.source}: {res.error}")
    text = render_output(res.to_dict(), a.format)
    if a.output:
        _write(Path(a.output), text)
    else:
        sys.stdout.write(text)
    return EXIT_FOUND if res.found else EXIT_NOT_FOUND


def cmd_render(a: argparse.Namespace) -> int:
    """``render``: every URL's JSON (one line each, or files in ``-o DIR``); exit 0 only if all were found."""
    out = Path(a.output_dir) if a.output_dir else None
    if a.screenshots and out is None:
        raise InputError("--screenshots needs -o DIR (one NAME.png per page there)")
    if out is not None:
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(f"cannot create {out}: {exc.strerror or exc}") from None
    shots: list[str | None] | None = None
    if a.screenshots and out is not None:
        shots = [str(out / f"{file_name(to_url(u))}.png") for u in a.urls]
    results = run(a.urls, options_from_args(a), {"selector": a.selector, "debug": a.debug}, shots)
    for res in results:
        d = res.to_dict()
        if out is None:
            sys.stdout.write(json.dumps(d, ensure_ascii=False) + "\n")
            continue
        name = file_name(res.url)
        _write(out / f"{name}.json", json.dumps(d, ensure_ascii=False, indent=2) + "\n")
        if d.get("markdown"):
            _write(out / f"{name}.md", d["markdown"])
        sys.stdout.write(f"{res.status}\t{'found' if res.found else 'not-found'}\t{out / name}.json\n")
    return EXIT_FOUND if all(r.found for r in results) else EXIT_NOT_FOUND


def file_name(url: str) -> str:
    """A safe, readable, unique file stem for a URL: its host and path in ASCII plus a short hash."""
    stem = re.sub(r"^[a-z]+://", "", url.lower())
    stem = re.sub(r"[^a-z0-9]+", "-", stem).strip("-")[:80] or "page"
    return f"{stem}-{hashlib.sha256(url.encode('utf-8')).hexdigest()[:8]}"


def _writable(path: Path) -> None:
    """Fail before rendering, not after, when the picture cannot be written."""
    if not path.parent.is_dir():
        raise InputError(f"cannot write {path}: no such directory")


def _write(path: Path, text: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None
