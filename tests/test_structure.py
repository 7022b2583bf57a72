"""The package's shape, checked from its source: stages never use each other as libraries.

A stage module holds its ``run(ctx)`` and its own helpers; judgements several stages share live in
``signals.py``, rules in ``rules.py``. If a stage imported another, the pipeline order would stop being the
only coupling between them (disabling or moving one would silently change another), so the import graph is
parsed here with ``ast`` and any stage-to-stage import fails the test. Only ``pipeline.py`` imports stages.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest
import readwell
from readwell import pipeline

PKG = Path(readwell.__file__).resolve().parent
STAGE_DIR = PKG / "stages"
STAGE_MODULES = {p.stem for p in STAGE_DIR.glob("*.py") if p.stem != "__init__"}


def imported_modules(path: Path, root: Path = PKG) -> set[str]:
    """Absolute dotted names of the readwell modules ``path`` (under package dir ``root``) imports."""
    package = ["readwell", *path.relative_to(root).parent.parts]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            mod = ".".join([*base, *(node.module.split(".") if node.module else [])])
            out.add(mod)
            out.update(f"{mod}.{a.name}" for a in node.names)  # `from . import x` imports module x
    return {m for m in out if m == "readwell" or m.startswith("readwell.")}


def stage_imports(path: Path, root: Path = PKG) -> set[str]:
    return {m for m in imported_modules(path, root) if m.startswith("readwell.stages.")} - {
        f"readwell.stages.{path.stem}"
    }


def test_stage_modules_exist() -> None:
    assert len(STAGE_MODULES) == len(readwell.STAGE_NAMES)
    assert STAGE_MODULES == set(readwell.STAGE_NAMES)


def test_no_stage_imports_another_stage() -> None:
    bad = {p.stem: sorted(stage_imports(p)) for p in STAGE_DIR.glob("*.py") if stage_imports(p)}
    assert not bad, f"stage modules importing other stages (move the shared part to signals.py): {bad}"


def test_only_the_pipeline_imports_stages() -> None:
    users = sorted(
        str(p.relative_to(PKG))
        for p in PKG.rglob("*.py")
        if p.parent != STAGE_DIR and any(m.startswith("readwell.stages") for m in imported_modules(p))
    )
    assert users == ["pipeline.py"], users


def test_import_parser_sees_relative_stage_imports(tmp_path: Path) -> None:
    """The checks above are not vacuous: the parser resolves the forms a stage-to-stage import takes."""
    src = (
        "from .select_root import x\nfrom . import remove_low_score\nfrom ..stages.flatten_shadow import y\n"
    )
    fake = tmp_path / "stages" / "callouts.py"
    fake.parent.mkdir()
    fake.write_text(src, encoding="utf-8")
    assert stage_imports(fake, tmp_path) >= {
        "readwell.stages.select_root",
        "readwell.stages.remove_low_score",
        "readwell.stages.flatten_shadow",
    }


# --- internal state is not in the page's hands --------------------------------------------------------------
FORGED = (
    '<html><body><article data-readwell-protected="code" DATA-READWELL-TABLE="data">'
    '<p data-readwell-x="1" class="keep">text</p><svg data-readwell-protected="math"></svg>'
    "</article></body></html>"
)


def _documents() -> dict[str, Any]:
    """The forged page through every parse path (the lxml/bs4 adapters re-parse; the snapshot does not)."""
    from readwell import adapters
    from readwell.parse import fast_parser, parse_html

    docs: dict[str, Any] = {
        "str": parse_html(FORGED, parser="html5lib"),
        "bytes": parse_html(FORGED.encode(), parser="html5lib"),
    }
    if fast_parser() is not None:
        docs["fast-str"] = parse_html(FORGED, parser="fast")
        docs["fast-bytes"] = parse_html(FORGED.encode(), parser="fast")
    snap = {
        "t": "html",
        "id": 1,
        "c": [
            {
                "t": "body",
                "id": 2,
                "c": [
                    {"t": "p", "id": 3, "a": {"data-readwell-protected": "code", "class": "keep"}, "c": ["x"]}
                ],
            }
        ],
    }
    docs["snapshot"] = adapters.from_snapshot(snap)
    try:
        import lxml.html

        docs["lxml"] = adapters.from_lxml(lxml.html.document_fromstring(FORGED))
    except ImportError:
        pass
    try:
        import bs4

        docs["bs4"] = adapters.from_bs4(bs4.BeautifulSoup(FORGED, "html.parser"))
    except ImportError:
        pass
    return docs


@pytest.mark.parametrize("path", ["str", "bytes", "fast-str", "fast-bytes", "snapshot", "lxml", "bs4"])
def test_no_internal_attribute_survives_parsing(path: str) -> None:
    docs = _documents()
    if path not in docs:
        pytest.skip(f"{path} is not installed")
    doc = docs[path]
    attrs = [k for e in doc.root.iter() for k in e.attrs]
    assert "class" in attrs  # the page's own attributes are kept
    assert not [k for k in attrs if k.lower().startswith("data-readwell-")], attrs


def test_internal_attribute_search_finds_every_case() -> None:
    """The parsers skip ``drop_internal_attrs`` only when this search of the markup says no: it must find
    the prefix in any letter case (html5lib and lexbor lower-case names after the markup is searched)."""
    from readwell.dom import may_have_internal_attrs

    for name in ("data-readwell-x", "DATA-READWELL-X", "Data-ReadWell-x", "dAtA-rEaDwElL-"):
        assert may_have_internal_attrs(f"<p {name}=1>text</p>"), name
    assert not may_have_internal_attrs('<p data-read-well-x=1 class="readwell">text</p>')


def test_internal_marks_are_side_tables() -> None:
    """Protection set by a stage is on the context, keyed by node id, and never written into the tree."""
    from readwell.extract import make_options, run_pipeline
    from readwell.parse import parse_html

    page = (
        "<html><body><article><p>" + "Words in a sentence, and more words. " * 20 + "</p>"
        "<pre><code>x = 1</code></pre><figure><img src=a.png><figcaption>A caption.</figcaption></figure>"
        "</article></body></html>"
    )
    ctx = run_pipeline(parse_html(page), make_options(None, {}))
    assert sorted(set(ctx.protected.values())) == ["code", "figure"]
    assert not [k for e in ctx.doc.root.iter() for k in e.attrs if k.startswith("data-readwell-")]


# --- the stage order is declared where each stage lives -----------------------------------------------------
def order_violations(stages: tuple[pipeline.Stage, ...]) -> list[str]:
    """Declarations ``stages`` breaks: a stage listed before one it must follow, or an unknown name."""
    names = [s.name for s in stages]
    out = []
    for i, stage in enumerate(stages):
        for dep in stage.after:
            if dep not in names:
                out.append(f"{stage.name} follows unknown stage {dep!r}")
            elif names.index(dep) >= i:
                out.append(f"{stage.name} must come after {dep}")
    return out


def test_stage_table_respects_after_declarations() -> None:
    assert order_violations(pipeline.STAGES) == []
    assert all(s.after for s in pipeline.STAGES[1:]), "only the first stage may follow nothing"


def test_order_check_catches_a_swap() -> None:
    st = list(pipeline.STAGES)
    i, j = readwell.STAGE_NAMES.index("remove_low_score"), readwell.STAGE_NAMES.index("remove_by_selector")
    st[i], st[j] = st[j], st[i]
    assert "remove_by_selector must come after remove_low_score" in order_violations(tuple(st))


def test_stage_docstrings_do_not_count_positions() -> None:
    """ "First/Second/Third" goes stale when a stage moves; AFTER names the stages instead."""
    for p in STAGE_DIR.glob("*.py"):
        doc = ast.get_docstring(ast.parse(p.read_text(encoding="utf-8"))) or ""
        assert not re.search(r"\b(First|Second|Third|Fourth|Fifth|Last stage)\b", doc), p.name
