"""Hostile-page test kit, one concern per module:

- ``reference``: the design's promises spelled out again, independently of the code under test (URL schemes
  as a browser reads them, srcset parsing, element/attribute deny-lists, control characters);
- ``payloads``: the payload corpus (838 payloads in nine vector classes), each marked ``xss-<id>``;
- ``article``: the realistic article page a payload is embedded in;
- ``checks``: the static checks run on every output format of one extraction (``check_all``);
- ``fuzzer``: the random-input generator shared by ``test_fuzz.py`` and ``build_scripts/fuzz_bench.py``.

Modules import each other relatively, so the package works both as ``security`` (pytest puts ``tests/`` on
``sys.path`` through the ``pythonpath`` option in pyproject.toml) and as ``tests.security`` (the benchmark,
run as ``python3 -m build_scripts.fuzz_bench`` from the repository root). This file imports nothing, so that
``conftest.py`` can register the helper modules for assertion rewriting before they are imported.
"""
