"""The Pyodide engine in Node (build/engine) against CPython: entry points, CLI, and fixture parity.

The engine is built (or found up to date) once per session with `node build_scripts/build_engine.mjs`; Node
processes are kept few: one batch process runs every fixture, one checks the CommonJS entry, and a few run
the Node CLI. Set READWELL_ENGINE_DIR to test another built engine (it is then not rebuilt).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = sorted((ROOT / "fixtures").glob("*.html"))
FIXTURE_RE = re.compile(rb"^(?:\xef\xbb\xbf)?\s*<!--\s*readwell-fixture:\s*(\{.*?\})\s*-->", re.S)

# Keys whose values legitimately differ between runs and runtimes (wall-clock measurements).
IGNORED_KEYS = frozenset({"timings"})

# Intended CPython/Pyodide differences: fixture file name -> reason. Each one must be explained here.
EXPECTED_DIFFERENCES: dict[str, str] = {}

NODE = shutil.which("node")
IN_CI = bool(os.environ.get("CI"))

pytestmark = pytest.mark.node


def _need_node():
    if NODE is None:
        if IN_CI:
            pytest.fail("node is not installed (CI must have it: build_scripts/setup.sh)")
        pytest.skip("node is not installed")


def fixture_meta(path: Path) -> dict:
    data = path.read_bytes()
    m = FIXTURE_RE.match(data)
    if not m:
        return {}
    return json.loads(m.group(1).decode("utf-8"))


def fixture_call(path: Path) -> tuple[str | None, dict]:
    meta = fixture_meta(path)
    return meta.get("url"), dict(meta.get("options") or {})


def strip_ignored(value):
    if isinstance(value, dict):
        return {k: strip_ignored(v) for k, v in value.items() if k not in IGNORED_KEYS}
    if isinstance(value, list):
        return [strip_ignored(v) for v in value]
    return value


def python_json(obj) -> object:
    """What the engine returns: to_dict() after a JSON round trip (tuples become lists, etc.)."""
    return json.loads(json.dumps(obj, ensure_ascii=False))


def python_stage_names() -> list[str]:
    import readwell

    if hasattr(readwell, "stage_names"):
        return list(readwell.stage_names())
    return [s.name for s in readwell.STAGES]


@pytest.fixture(scope="session")
def engine_dir() -> Path:
    _need_node()
    override = os.environ.get("READWELL_ENGINE_DIR")
    if override:
        path = Path(override).resolve()
        assert (path / "manifest.json").is_file(), f"READWELL_ENGINE_DIR={override} holds no built engine"
        return path
    proc = subprocess.run(
        [NODE, str(ROOT / "build_scripts" / "build_engine.mjs"), "--quiet"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, f"engine build failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    return ROOT / "build" / "engine"


@pytest.fixture(scope="session")
def batch(engine_dir: Path, tmp_path_factory) -> dict:
    """Every fixture through the Node engine, in one Node process."""
    tmp = tmp_path_factory.mktemp("engine-batch")
    jobs = []
    for path in FIXTURES:
        url, options = fixture_call(path)
        if url is not None:
            options = {**options, "url": url}
        jobs.append({"id": path.name, "path": str(path), "options": options})
    out = tmp / "results.json"
    proc = subprocess.run(
        [NODE, str(ROOT / "build_scripts" / "engine_batch.mjs"), str(engine_dir), str(out)],
        input=json.dumps({"jobs": jobs}),
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, f"engine batch failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    return json.loads(out.read_text(encoding="utf-8"))


def run_node_cli(engine_dir: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [NODE, str(engine_dir / "cli.mjs"), *args],
        cwd=cwd or ROOT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=300,
    )


def run_python_cli(*args: str) -> tuple[int, str, str]:
    from readwell.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(list(args))
        except SystemExit as exc:
            rc = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    return int(rc or 0), out.getvalue(), err.getvalue()


# --- entry points -------------------------------------------------------------------------------------


def test_manifest_lists_every_shipped_file(engine_dir: Path):
    manifest = json.loads((engine_dir / "manifest.json").read_text(encoding="utf-8"))
    shipped = {
        p.relative_to(engine_dir).as_posix()
        for p in engine_dir.rglob("*")
        if p.is_file() and p.name != "manifest.json"
    }
    assert shipped == set(manifest["files"])
    assert {"index.mjs", "index.cjs", "cli.mjs", "pyodide-lock.json", "site-packages.zip"} <= shipped
    names = {p["name"] for p in manifest["packages"]}
    assert {"readwell", "html5lib", "bleach", "six", "webencodings"} <= names


def test_esm_exports_and_stages_match_python(batch: dict):
    assert batch["exports"]["named"] == ["extract", "isProbablyReaderable", "stages"]
    assert batch["exports"]["default"] == ["extract", "isProbablyReaderable", "stages"]
    assert batch["stages"] == python_stage_names()


def test_engine_runs_the_same_package_versions(batch: dict):
    from importlib.metadata import version

    for dist in ("readwell", "html5lib", "bleach", "six", "webencodings"):
        assert batch["versions"][dist] == version(dist), (
            f"{dist}: engine has {batch['versions'][dist]}, CPython has {version(dist)} "
            "(keep build_scripts/wheels.lock.json and build_scripts/constraints.txt in step)"
        )


def test_commonjs_entry(engine_dir: Path):
    script = (
        "const rw = require(process.argv[1]);"
        "const names = ['extract', 'isProbablyReaderable', 'stages'];"
        "(async () => {"
        "  const named = names.filter((n) => typeof rw[n] === 'function');"
        "  const dflt = names.filter((n) => rw.default && typeof rw.default[n] === 'function');"
        "  const stages = await rw.stages();"
        "  const html = '<html><body><article><h1>T</h1><p>' + 'Words of text. '.repeat(40)"
        "    + '</p></article></body></html>';"
        "  const r = await rw.default.extract(html, { url: 'https://example.com/cjs' });"
        "  const rd = await rw.isProbablyReaderable('<p>short</p>');"
        "  process.stdout.write(JSON.stringify({ named, dflt, stages, type: typeof r,"
        "    isArray: Array.isArray(r), proto: Object.getPrototypeOf(r) === Object.prototype,"
        "    rdType: typeof rd }));"
        "})().catch((e) => { console.error(e); process.exit(1); });"
    )
    proc = subprocess.run(
        [NODE, "-e", script, str(engine_dir / "index.cjs")], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    assert got["named"] == got["dflt"] == ["extract", "isProbablyReaderable", "stages"]
    assert got["stages"] == python_stage_names()
    assert got["type"] == "object" and not got["isArray"] and got["proto"], (
        "extract() must return a plain object"
    )
    assert got["rdType"] == "object"


# --- the Node CLI mirrors the Python CLI --------------------------------------------------------------


def _found_and_missing_fixtures():
    found = missing = None
    for path in FIXTURES:
        expect = fixture_meta(path).get("expect") or {}
        if found is None and expect.get("found") is True:
            found = path
        if missing is None and expect.get("found") is False:
            missing = path
    return found, missing


def test_cli_json_matches_python_cli(engine_dir: Path):
    found, _ = _found_and_missing_fixtures()
    if found is None:
        pytest.skip("no fixture with expect.found == true")
    url, _ = fixture_call(found)
    args = ["extract", str(found), "--format", "json"] + (["--url", url] if url else [])
    proc = run_node_cli(engine_dir, *args)
    rc, out, err = run_python_cli(*args)
    assert proc.returncode == rc == 0, proc.stderr.decode()
    assert strip_ignored(json.loads(proc.stdout)) == strip_ignored(json.loads(out))


def test_cli_exit_codes(engine_dir: Path, tmp_path: Path):
    _, missing = _found_and_missing_fixtures()
    if missing is not None:
        # not found -> 3, same text output as CPython; -o writes through to the host file system
        target = tmp_path / "out.txt"
        proc = run_node_cli(engine_dir, "extract", str(missing), "--format", "text", "-o", str(target))
        rc, _, _ = run_python_cli("extract", str(missing), "--format", "text")
        assert proc.returncode == rc == 3, proc.stderr.decode()
    # unreadable input -> 2 with a one-line message
    proc = run_node_cli(engine_dir, "extract", str(tmp_path / "does-not-exist.html"), "--format", "json")
    assert proc.returncode == 2
    lines = proc.stderr.decode().strip().splitlines()
    assert len(lines) == 1 and lines[0], proc.stderr
    assert proc.stdout == b""


def test_cli_stages_and_bad_usage(engine_dir: Path):
    proc = run_node_cli(engine_dir, "stages")
    rc, out, _ = run_python_cli("stages")
    assert proc.returncode == rc == 0
    assert proc.stdout.decode() == out
    # bad usage -> 2, as argparse does in CPython
    proc = run_node_cli(engine_dir, "extract", "page.html", "--format", "no-such-format")
    rc, _, _ = run_python_cli("extract", "page.html", "--format", "no-such-format")
    assert proc.returncode == rc == 2
    assert proc.stderr


# --- parity on every fixture -------------------------------------------------------------------------


@pytest.mark.parametrize("path", FIXTURES, ids=[p.name for p in FIXTURES])
def test_fixture_parity(batch: dict, path: Path):
    import readwell

    if path.name in EXPECTED_DIFFERENCES:
        pytest.xfail(EXPECTED_DIFFERENCES[path.name])
    url, options = fixture_call(path)
    node = batch["results"][path.name]
    assert "error" not in node, f"engine raised: {node.get('error')}"
    data = path.read_bytes()
    expected = python_json(readwell.extract(data, url=url, **options).to_dict())
    assert strip_ignored(node["result"]) == strip_ignored(expected)

    node_rd = batch["readerable"][path.name]
    assert "error" not in node_rd, f"engine raised: {node_rd.get('error')}"
    assert strip_ignored(node_rd["result"]) == strip_ignored(
        python_json(readwell.is_probably_readerable(data).to_dict())
    )


def test_there_are_fixtures():
    assert FIXTURES, "fixtures/*.html is empty"


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-v"]))
