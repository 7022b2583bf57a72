"""Adapter between the JavaScript hosts (index.mjs / cli.mjs in Node, engine.mjs in the extension) and
readwell, inside Pyodide: the one bridge every host loads through loader.mjs.

Shipped in build/engine/site-packages.zip next to the readwell wheel's contents; it is part of the Pyodide
adapter, not of py_core. Everything crosses the JS/Python boundary as JSON text, so callers get plain JS
objects with exactly the fields of the CLI's JSON, and no PyProxy outlives a call (which also keeps the
memory snapshot serializable).
"""

import gc
import json
import re
import sys

_CAMEL = re.compile(r"(?<=[a-z0-9])([A-Z])")

# Modules imported before the memory snapshot is taken, so a cold start restores them instead of importing.
PRELOAD = (
    "readwell",
    "readwell.cli",
    "html5lib",
    "bleach",
    "argparse",
    "json",
)


def preload(extra_json=None):
    """Import readwell and its dependencies (and, when building the snapshot, the modules that a first
    extraction was seen to import). Returns the JSON list of modules imported."""
    import importlib

    loaded = []
    names = list(PRELOAD) + [n for n in json.loads(extra_json or "[]") if n not in PRELOAD]
    for name in names:
        try:
            importlib.import_module(name)
        except ImportError as exc:
            # readwell.cli may be absent in early builds; readwell itself must import.
            if name == "readwell":
                raise
            if name in PRELOAD:
                print(f"readwell_bridge: preload skipped {name}: {exc}", file=sys.stderr)
            continue
        loaded.append(name)
    return json.dumps(loaded)


def settle():
    """Freeze what is loaded (modules, readwell's tables and compiled patterns) out of the cycle collector's
    sight; the loader calls it once, after the imports or the memory snapshot.

    Why: Python 3.14's incremental collector walks part of the old generation at every young collection,
    and an extraction allocates enough for dozens of them; tens of thousands of long-lived module objects
    were walked over and over. Frozen, they are skipped: warm extractions in the engine take 12-20% less
    CPU (Node, the extension benchmark's pages; Pyodide 314.0.7 ships Python 3.14.2, and 3.14.0-3.14.4 have
    the incremental collector). No gc.collect() first: right after loading it frees about
    ten objects and costs 30-50 ms of the cold start; freezing alone takes ~5 ms."""
    gc.freeze()
    return gc.get_freeze_count()


def _options(options_json):
    opts = json.loads(options_json) if options_json else {}
    if not isinstance(opts, dict):
        raise TypeError("options must be an object")
    # JS callers may write frontMatter; Python takes front_matter.
    return {_CAMEL.sub(r"_\1", k).lower(): v for k, v in opts.items()}


def _html(html, utf8_text=False):
    # A JS Uint8Array arrives as a JsProxy: hand readwell real bytes (it sniffs the encoding itself), or,
    # with utf8_text, the str those bytes encode (see extract_json).
    if isinstance(html, str):
        return html
    to_bytes = getattr(html, "to_bytes", None)
    data = to_bytes() if to_bytes is not None else bytes(html)
    return data.decode("utf-8") if utf8_text else data


def extract_json(html, options_json=None, utf8_text=False):
    """``readwell.extract`` of a JS string, or of bytes (the encoding sniffed as CPython does for bytes).

    ``utf8_text``: ``html`` is the UTF-8 encoding of a JS string (``TextEncoder``), extracted as that str.
    Why: Pyodide copies a JS string into a Python str one UTF-16 unit at a time, 0.75-1.3 ms for a 90-180 KB
    page in Node, against 0.15-0.43 ms for ``TextEncoder`` plus one ``bytes.decode``; the str is the same
    except that a lone surrogate arrives as U+FFFD, which is what readwell's parse makes of it anyway
    (``parse.replace_surrogates``)."""
    import readwell

    html = _html(html, utf8_text)
    opts = _options(options_json)
    url = opts.pop("url", None)
    result = readwell.extract(html, url=url, **opts)
    return json.dumps(result.to_dict(), ensure_ascii=False)


def extract_snapshot_json(snapshot_json, options_json=None):
    """The extension's live-DOM snapshot (one JSON string from its content script, or that string's UTF-8
    bytes: cheaper to hand over, see extract_json) through readwell.adapters.from_snapshot (readwell.extract
    on a dict); the result as the CLI's JSON.

    The cyclic collector is paused for the whole call, as readwell.extract pauses it for its own run
    (readwell.gc_pause says why): decoding the snapshot makes a dict, a list and strings per element, all
    alive until the tree is built, and each 2,000 of them started a collection that found nothing
    (3-7% of a warm call on the extension benchmark's pages, Node, interleaved)."""
    import readwell
    from readwell import gc_pause

    opts = _options(options_json)
    url = opts.pop("url", None)
    if not isinstance(snapshot_json, str):  # UTF-8 bytes (a Uint8Array): see extract_json's utf8_text
        snapshot_json = snapshot_json.to_bytes()
    with gc_pause.paused():
        result = readwell.extract(json.loads(snapshot_json), url=url, **opts)
        return json.dumps(result.to_dict(), ensure_ascii=False)


def readerable_json(html, options_json=None, utf8_text=False):
    import readwell

    html = _html(html, utf8_text)
    opts = _options(options_json)
    return json.dumps(readwell.is_probably_readerable(html, **opts).to_dict(), ensure_ascii=False)


def stages_json():
    import readwell

    if hasattr(readwell, "stage_names"):
        names = list(readwell.stage_names())
    else:
        names = [s.name for s in readwell.STAGES]
    return json.dumps(names)


def options_json():
    """The keyword options (name, type, default, group, help) from readwell.options, the single source."""
    import readwell

    return json.dumps(readwell.options_schema() if hasattr(readwell, "options_schema") else [])


def versions_json():
    import importlib.metadata as md

    out = {"python": sys.version.split()[0]}
    for dist in ("readwell", "html5lib", "bleach", "six", "webencodings"):
        try:
            out[dist] = md.version(dist)
        except md.PackageNotFoundError:
            out[dist] = None
    return json.dumps(out)


def cli_main(argv_json, cwd=None):
    """Run readwell.cli.main(argv) as the `readwell` command would; return its exit code."""
    import os

    argv = json.loads(argv_json)
    if cwd:
        try:
            os.chdir(cwd)
        except OSError:
            pass
    try:
        from readwell.cli import main

        rc = main(argv)
    except SystemExit as exc:  # argparse: --help (0) and bad usage (2)
        code = exc.code
        if code is None:
            rc = 0
        elif isinstance(code, int):
            rc = code
        else:
            print(code, file=sys.stderr)
            rc = 1
    except KeyboardInterrupt:
        rc = 130
    except BaseException:  # noqa: BLE001 - report like CPython would, then exit 1
        import traceback

        traceback.print_exc()
        rc = 1
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except Exception:  # noqa: BLE001
            pass
    return int(rc or 0)
