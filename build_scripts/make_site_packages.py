"""Run inside Pyodide by build_engine.mjs: unpack the wheels, byte-compile them for Pyodide's Python and
write one deterministic site-packages zip.

Inputs (Pyodide file system): /build/wheels/*.whl, /build/extra/*.py. Output: /build/site-packages.zip and
the returned JSON (readwell's metadata, file count).
"""

import compileall
import json
import os
import py_compile
import shutil
import sys
import zipfile
from email.parser import Parser

SRC = "/build/wheels"
EXTRA = "/build/extra"
SITE = "/build/site"
OUT = "/build/site-packages.zip"
FIXED_TIME = (1980, 1, 1, 0, 0, 0)


def main():
    shutil.rmtree(SITE, ignore_errors=True)
    os.makedirs(SITE)
    info = {}
    for name in sorted(os.listdir(SRC)):
        if not name.endswith(".whl"):
            continue
        with zipfile.ZipFile(os.path.join(SRC, name)) as zf:
            zf.extractall(SITE)
            dist = name.split("-")[0]
            meta_name = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
            meta = Parser().parsestr(zf.read(meta_name).decode("utf-8"))
            requires = []
            for req in meta.get_all("Requires-Dist") or []:
                if "extra ==" in req:
                    continue
                base = req.split(";")[0].strip()
                for sep in "<>=!~ [(":
                    base = base.split(sep)[0]
                requires.append(base.strip().lower().replace("_", "-"))
            tops = sorted(
                {
                    n.split("/")[0]
                    for n in zf.namelist()
                    if not n.split("/")[0].endswith((".dist-info", ".data"))
                    and (
                        n.endswith("/__init__.py")
                        and n.count("/") == 1
                        or ("/" not in n and n.endswith(".py"))
                    )
                }
            )
            info[dist] = {
                "name": meta["Name"],
                "version": meta["Version"],
                "requires": requires,
                "imports": [t[:-3] if t.endswith(".py") else t for t in tops],
            }
    for name in sorted(os.listdir(EXTRA)):
        shutil.copy(os.path.join(EXTRA, name), os.path.join(SITE, name))

    # Hash-based pycs that are never checked against the source: no mtimes, same bytes every build, and
    # the interpreter uses them without stat-ing the .py files.
    ok = compileall.compile_dir(
        SITE,
        quiet=1,
        invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH,
        workers=1,
    )
    if not ok:
        raise SystemExit("byte-compilation failed")

    files = []
    for root, dirs, names in os.walk(SITE):
        dirs.sort()
        for n in sorted(names):
            files.append(os.path.join(root, n))
    files.sort()
    with zipfile.ZipFile(OUT, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        for path in files:
            rel = os.path.relpath(path, SITE)
            zi = zipfile.ZipInfo(rel, date_time=FIXED_TIME)
            zi.external_attr = 0o644 << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            with open(path, "rb") as f:
                zf.writestr(zi, f.read(), compresslevel=9)
    return json.dumps({"dists": info, "files": len(files), "python": sys.version.split()[0]})


main()
