"""On-disk cache of rendered results (SQLite), keyed by URL and a hash of the settings that shape the result.

Why SQLite: one file, safe for several ``readwell render`` processes at once (WAL), in the standard library.
Only pages that rendered fully (``status: ok``) are stored: a timeout or an error is not an answer to keep.
Entries older than the TTL are ignored and overwritten. Settings that only change *how* pages are rendered
(parallelism, recycling, retries, the cache itself) are left out of the key; everything that can change what
is read (timeouts, viewport, scrolling, removals, weights, extract options) is in it.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from ..errors import InputError
from .options import RenderOptions

# RenderOptions fields that do not change a page's result
NOT_IN_KEY = frozenset(
    {
        "jobs",
        "recycle_after",
        "max_browser_rss_mb",
        "retries",
        "retry_base_ms",
        "retry_max_ms",
        "cache_ttl_s",
        "cache_path",
    }
)
SCHEMA = "CREATE TABLE IF NOT EXISTS pages (key TEXT PRIMARY KEY, url TEXT, created REAL, data TEXT)"


def default_path() -> Path:
    """``$READWELL_CACHE_DIR/render.sqlite``, else the XDG cache directory's ``readwell/render.sqlite``."""
    base = os.environ.get("READWELL_CACHE_DIR")
    if base:
        return Path(base) / "render.sqlite"
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg) / "readwell" / "render.sqlite"


def cache_key(url: str, opts: RenderOptions, extract_options: dict[str, Any]) -> str:
    settings = {k: v for k, v in asdict(opts).items() if k not in NOT_IN_KEY}
    xopts = {k: v for k, v in extract_options.items() if v is not None}
    blob = json.dumps({"url": url, "render": settings, "extract": xopts}, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class Cache:
    """``get``/``put`` of result JSON by key; opened per command run."""

    def __init__(self, path: Path, ttl_s: int) -> None:
        self.path = path
        self.ttl_s = ttl_s
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(path, timeout=30)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute(SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            raise InputError(f"cannot use the render cache at {path}: {exc} (--no-cache skips it)") from None

    def get(self, key: str) -> dict[str, Any] | None:
        row = self.db.execute("SELECT created, data FROM pages WHERE key = ?", (key,)).fetchone()
        if row is None or time.time() - row[0] > self.ttl_s:
            return None
        try:
            data = json.loads(row[1])
        except ValueError:
            return None
        return data if isinstance(data, dict) else None

    def put(self, key: str, url: str, data: dict[str, Any]) -> None:
        with self.db:
            self.db.execute(
                "INSERT OR REPLACE INTO pages VALUES (?, ?, ?, ?)",
                (key, url, time.time(), json.dumps(data, ensure_ascii=False)),
            )

    def close(self) -> None:
        self.db.close()
