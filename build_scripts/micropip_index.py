"""Lay out a local package index for ``micropip.install("readwell")`` in a stock Pyodide (no internet).

Input: a built engine (``build/engine/wheels``: the readwell wheel built from this checkout and the PyPI
wheels of html5lib, bleach, six and webencodings that ``build_engine.mjs`` downloaded with pinned sha256),
and the micropip wheel pinned in ``micropip.lock.json`` (downloaded here once, into ``build/cache/wheels``, by
pip with ``--require-hashes``). Output (``--out``, default ``build/micropip-index``)::

    simple/index.html, simple/<name>/index.html   PEP 503 pages, each link with its #sha256= fragment
    wheels/*.whl                                   the files the pages link to
    micropip/micropip-<v>-py3-none-any.whl         loaded by URL with pyodide.loadPackage(...)

Serve the folder on 127.0.0.1 and pass ``index_urls=["http://127.0.0.1:PORT/simple/"]`` to micropip.
"""

from __future__ import annotations

import argparse
import hashlib
import html
import json
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def fetch_micropip(cache: Path) -> Path:
    lock = json.loads((HERE / "micropip.lock.json").read_text())
    (wheel,) = lock["wheels"]
    path = cache / wheel["file"]
    if path.is_file() and sha256(path) == wheel["sha256"]:
        return path
    cache.mkdir(parents=True, exist_ok=True)
    req = cache / "micropip-requirements.txt"
    req.write_text(f"{wheel['name']}=={wheel['version']} --hash=sha256:{wheel['sha256']}\n")
    path.unlink(missing_ok=True)
    cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check", "--no-deps"]
    cmd += ["--only-binary=:all:", "--require-hashes", "--python-version", lock["python"], "--implementation"]
    cmd += ["py", "--abi", "none", "--platform", "any", "--dest", str(cache), "-r", str(req)]
    subprocess.run(cmd, check=True)
    if not path.is_file() or sha256(path) != wheel["sha256"]:
        sys.exit(f"micropip_index: {wheel['file']} missing or sha256 mismatch after download")
    return path


def project_of(wheel: Path) -> tuple[str, str | None]:
    """(normalized project name, Requires-Python) from the wheel's own metadata."""
    with zipfile.ZipFile(wheel) as zf:
        meta_name = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        meta = zf.read(meta_name).decode("utf-8")
    name = re.search(r"^Name: (.+)$", meta, re.M)
    requires = re.search(r"^Requires-Python: (.+)$", meta, re.M)
    assert name, wheel
    return re.sub(r"[-_.]+", "-", name.group(1).strip()).lower(), requires.group(
        1
    ).strip() if requires else None


def build(engine: Path, out: Path, cache: Path) -> None:
    wheels = sorted((engine / "wheels").glob("*.whl"))
    if not any(w.name.startswith("readwell-") for w in wheels):
        sys.exit(f"micropip_index: no readwell wheel in {engine / 'wheels'}: run `make build` first")
    micropip = fetch_micropip(cache)
    shutil.rmtree(out, ignore_errors=True)
    (out / "wheels").mkdir(parents=True)
    (out / "micropip").mkdir()
    shutil.copy2(micropip, out / "micropip" / micropip.name)
    projects: dict[str, list[tuple[Path, str | None]]] = {}
    for wheel in wheels:
        shutil.copy2(wheel, out / "wheels" / wheel.name)
        name, requires = project_of(wheel)
        projects.setdefault(name, []).append((wheel, requires))
    root_links = []
    for name, files in sorted(projects.items()):
        links = []
        for wheel, requires in files:
            attr = f' data-requires-python="{html.escape(requires)}"' if requires else ""
            links.append(
                f'<a href="../../wheels/{wheel.name}#sha256={sha256(wheel)}"{attr}>{wheel.name}</a><br>'
            )
        (out / "simple" / name).mkdir(parents=True)
        page = f"<!DOCTYPE html><html><body><h1>{name}</h1>\n" + "\n".join(links) + "\n</body></html>\n"
        (out / "simple" / name / "index.html").write_text(page)
        root_links.append(f'<a href="{name}/">{name}</a><br>')
    (out / "simple" / "index.html").write_text(
        "<!DOCTYPE html><html><body>\n" + "\n".join(root_links) + "\n</body></html>\n"
    )
    print(f"micropip_index: {out} ({', '.join(sorted(projects))}; {micropip.name})")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--engine", type=Path, default=ROOT / "build" / "engine")
    ap.add_argument("--out", type=Path, default=ROOT / "build" / "micropip-index")
    ap.add_argument("--cache", type=Path, default=ROOT / "build" / "cache" / "wheels")
    a = ap.parse_args()
    build(a.engine, a.out, a.cache)
    return 0


if __name__ == "__main__":
    sys.exit(main())
