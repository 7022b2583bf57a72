"""``micropip.install("readwell")`` in a stock Pyodide (node_modules/pyodide, its own lock untouched) from a
package index served on 127.0.0.1, dependencies included, then an extraction identical to CPython's.

The index (build_scripts/micropip_index.py) holds the readwell wheel built from this checkout and the PyPI
wheels of its dependencies that the engine build downloaded with pinned hashes; micropip itself is the pinned
PyPI wheel, loaded by URL (offline there is no CDN to load it from)."""

from __future__ import annotations

import functools
import http.server
import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import readwell

ROOT = Path(__file__).resolve().parents[1]
NODE = shutil.which("node")
FIXTURE = ROOT / "fixtures" / "core--news-article-basic.html"
PAGE_URL = "https://example.org/news/river-health"

pytestmark = pytest.mark.node


@pytest.fixture(scope="module")
def index_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if NODE is None:
        if os.environ.get("CI"):
            pytest.fail("node is not installed (CI must have it: build_scripts/setup.sh)")
        pytest.skip("node is not installed")
    engine = Path(os.environ.get("READWELL_ENGINE_DIR") or ROOT / "build" / "engine")
    if "READWELL_ENGINE_DIR" not in os.environ:  # builds, or finds the engine up to date (seconds)
        proc = subprocess.run(
            [NODE, str(ROOT / "build_scripts" / "build_engine.mjs"), "--quiet"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=900,
        )
        assert proc.returncode == 0, f"engine build failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    out = tmp_path_factory.mktemp("micropip-index")
    subprocess.run(
        [
            sys.executable,
            str(ROOT / "build_scripts" / "micropip_index.py"),
            "--engine",
            str(engine),
            "--out",
            str(out),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    return out


@pytest.fixture(scope="module")
def index(index_dir: Path) -> Iterator[tuple[str, list[str]]]:
    """(base URL, paths requested) of the index served on 127.0.0.1."""
    requested: list[str] = []

    class Handler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, fmt: str, *args: Any) -> None:
            requested.append(self.path)

    httpd = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Handler, directory=str(index_dir))
    )
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", requested
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


def test_micropip_installs_readwell_and_extracts(index: tuple[str, list[str]]) -> None:
    base, requested = index
    assert NODE is not None
    proc = subprocess.run(
        [NODE, str(ROOT / "build_scripts" / "micropip_check.mjs"), base, str(FIXTURE), PAGE_URL],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    answer = json.loads(proc.stdout.strip().splitlines()[-1])
    versions = {name: info[0] for name, info in answer["installed"].items()}
    assert versions == {
        "micropip": "0.11.1",
        "readwell": "0.1.0",
        "html5lib": "1.1",
        "bleach": "6.4.0",  # ours, not the 6.3.0 Pyodide lists: the index given to micropip is searched first
        "six": "1.17.0",
        "webencodings": "0.6.1",
    }
    wheels = {p.rsplit("/", 1)[1] for p in requested if p.endswith(".whl")}
    assert {w.split("-")[0] for w in wheels} == set(versions)  # every wheel came from the local index
    expected = readwell.extract(FIXTURE.read_bytes(), url=PAGE_URL).to_dict()
    assert answer["result"] == json.loads(json.dumps(expected, ensure_ascii=False))
    assert answer["result"]["found"] is True
