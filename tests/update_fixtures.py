"""Regenerate the golden ``fixtures/*.json`` and ``fixtures/*.md`` files from the current extractor.

    python tests/update_fixtures.py            # rewrite every golden file, print which changed
    python tests/update_fixtures.py --check    # write nothing; exit 1 if any golden file is stale

Run it after a deliberate change to extraction, then review ``git diff fixtures/`` before committing: the
golden files are the record of what each fixture produces, and the diff is the review.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import fixturelib  # the script's folder is on sys.path when run as a script
import readwell


def golden_json(result: readwell.Result) -> str:
    """The exact text of a fixture's .json golden file (stable part of ``to_dict()``)."""
    return json.dumps(fixturelib.stable(result.to_dict()), ensure_ascii=False, indent=2) + "\n"


def golden_md(result: readwell.Result) -> str:
    """The exact text of a fixture's .md golden file (``result.markdown`` unchanged)."""
    return result.markdown


def outputs(fx: fixturelib.Fixture) -> dict[Path, str]:
    result = readwell.extract(fx.data, url=fx.url, **fx.options)
    return {fx.json_path: golden_json(result), fx.md_path: golden_md(result)}


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="only report stale or missing golden files")
    ap.add_argument("names", nargs="*", help="fixture names (stems) to update; default: all")
    a = ap.parse_args(argv)
    fixtures = fixturelib.all_fixtures()
    if a.names:
        wanted = {Path(n).stem for n in a.names}
        fixtures = [f for f in fixtures if f.name in wanted]
        missing = wanted - {f.name for f in fixtures}
        if missing:
            print(f"unknown fixture(s): {', '.join(sorted(missing))}", file=sys.stderr)
            return 2
    changed: list[tuple[str, Path]] = []
    for fx in fixtures:
        for path, text in outputs(fx).items():
            old = _read(path)
            if old == text:
                continue
            changed.append(("new" if old is None else "changed", path))
            if not a.check:
                with open(path, "w", encoding="utf-8", newline="\n") as fh:
                    fh.write(text)
    for what, path in changed:
        print(f"{what:8} {path.relative_to(fixturelib.ROOT)}")
    verb = "stale" if a.check else "written"
    summary: dict[str, Any] = {"fixtures": len(fixtures), verb: len(changed)}
    print(", ".join(f"{k}: {v}" for k, v in summary.items()))
    return 1 if (a.check and changed) else 0


if __name__ == "__main__":
    sys.exit(main())
