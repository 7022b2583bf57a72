"""Options have one source (``readwell.options.Options``): keyword checks, CLI flags and the schema other
runtimes ask for are derived from its fields, and every option is read by the code (none documented for
nothing)."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
import readwell
from readwell.cli import build_parser
from readwell.errors import InputError
from readwell.extract import make_options
from readwell.options import OPTION_NAMES, Options, cli_fields

PKG = Path(readwell.__file__).resolve().parent


def test_options_are_frozen_and_normalized() -> None:
    o = Options(selector="", disable=["callouts"])  # type: ignore[arg-type]
    assert o.selector is None and o.disable == ("callouts",)
    with pytest.raises(dataclasses.FrozenInstanceError):
        o.debug = True  # type: ignore[misc]


def test_names_and_schema_come_from_the_fields() -> None:
    names = [f.name for f in dataclasses.fields(Options) if f.name != "url"]
    assert readwell.option_names() == names and set(names) == OPTION_NAMES
    schema = readwell.options_schema()
    assert [s["name"] for s in schema] == names
    defaults = Options()
    for s in schema:
        want = getattr(defaults, s["name"])
        assert s["default"] == (list(want) if isinstance(want, tuple) else want)
        assert s["group"] and s["help"]


def test_make_options_checks_and_coerces() -> None:
    o = make_options("https://example.org/", {"debug": 1, "min_article_chars": "50", "disable": "callouts"})
    assert (o.debug, o.min_article_chars, o.disable) == (True, 50, ("callouts",))
    assert make_options(None, {"min_article_chars": None}).min_article_chars == Options().min_article_chars
    with pytest.raises(InputError, match="unknown option"):
        make_options(None, {"char_threshold": 500})
    with pytest.raises(InputError, match="unknown stage"):
        make_options(None, {"disable": ["nope"]})
    with pytest.raises(InputError, match="min_article_chars"):
        make_options(None, {"min_article_chars": "many"})


def test_cli_flags_are_the_cli_fields() -> None:
    extract = build_parser()._subparsers._group_actions[0].choices["extract"]  # type: ignore[union-attr]
    flags = {s for a in extract._actions for s in a.option_strings}
    for f in cli_fields():
        assert "--" + f.name.replace("_", "-") in flags
    a = extract.parse_args(["x.html", "--front-matter", "--disable", "callouts"])
    assert a.front_matter is True and a.disable == ["callouts"]


def test_every_option_is_read_by_the_code() -> None:
    """An option nothing reads is a documented lie (char_threshold was one): each field is read somewhere."""
    source = "\n".join(p.read_text(encoding="utf-8") for p in PKG.rglob("*.py") if p.name != "options.py")
    for f in dataclasses.fields(Options):
        assert re.search(rf"\.{f.name}\b", source), f"option {f.name} is read by nothing"
