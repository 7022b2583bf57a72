"""Fixture loading shared by every runtime's tests: ``fixtures/<category>--<slug>.html`` whose first line is
``<!-- readwell-fixture: {JSON} -->`` (url, options, keep, drop, expect, text_absent), with expected
``.json``/``.md`` beside it. keep/drop phrases are checked on the Markdown; text_absent on the plain text."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
_HEADER = re.compile(rb"^(?:\xef\xbb\xbf)?<!-- readwell-fixture: (\{.*?\}) -->")
# Keys that vary between runs or are diagnostics, not results.
VOLATILE = ("timings", "removals")


@dataclass
class Fixture:
    name: str
    path: Path
    data: bytes
    url: str | None
    options: dict[str, Any]
    keep: list[str] = field(default_factory=list)
    drop: list[str] = field(default_factory=list)
    expect: dict[str, Any] = field(default_factory=dict)
    text_absent: list[str] = field(default_factory=list)  # in Markdown (captions) but not in plain text

    @property
    def json_path(self) -> Path:
        return self.path.with_suffix(".json")

    @property
    def md_path(self) -> Path:
        return self.path.with_suffix(".md")


def load(path: Path) -> Fixture:
    data = path.read_bytes()
    m = _HEADER.match(data)
    if not m:
        raise ValueError(f"{path.name}: first line must be <!-- readwell-fixture: {{...}} -->")
    meta = json.loads(m.group(1).decode("utf-8"))
    return Fixture(
        path.stem,
        path,
        data,
        meta.get("url"),
        meta.get("options") or {},
        meta.get("keep") or [],
        meta.get("drop") or [],
        meta.get("expect") or {},
        meta.get("text_absent") or [],
    )


def all_fixtures(category: str | None = None) -> list[Fixture]:
    out = [load(p) for p in sorted(FIXTURES.glob("*.html"))]
    if category:
        out = [f for f in out if f.name.split("--")[0] == category]
    return out


def stable(result: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in result.items() if k not in VOLATILE}
