"""The text measures' ASCII shortcuts (``str.count``, no CJK scan), the renderers' whitespace shortcuts and
the Markdown escapes' search-first give exactly what the patterns they stand in for give, on random strings
of the characters that matter."""

from __future__ import annotations

import random
import re

from readwell.dom import collapse_space, normalize_space
from readwell.textstats import _CJK, _CLAUSE, clause_marks, has_units, text_units, word_count

ALPHABET = list(",،、，;；:：.!?。！？ \t\n\r\x0b\x0c\x1cab1\u3000\u4e00\xa0") + ["  "]


def _random_strings(n: int) -> list[str]:
    rng = random.Random(11)
    return ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 12))) for _ in range(n)]


def test_clause_marks_and_text_units_match_their_patterns() -> None:
    for s in _random_strings(20_000):
        assert clause_marks(s) == len(_CLAUSE.findall(s)), repr(s)
        norm = " ".join(s.split())
        assert text_units(s) == len(norm) + 2 * len(_CJK.findall(norm)), repr(s)


def test_collapse_space_matches_the_whitespace_pattern() -> None:
    ws = re.compile(r"\s+")
    for s in _random_strings(20_000):
        assert collapse_space(s) == ws.sub(" ", s), repr(s)
    prose = "A sentence of single spaces, as most text nodes are."
    assert collapse_space(prose) is prose
    curly = "A quote’s curly apostrophe – and a dash: non-ASCII, still one space at a time."
    assert collapse_space(curly) is curly
    for s in ["", " ", "\n   ", "\u00a0", "a\u2028b", "  x  ", "x\u3000y", "a\u200bb"]:
        assert collapse_space(s) == ws.sub(" ", s), repr(s)


def test_normalize_space_is_split_and_join() -> None:
    for s in _random_strings(20_000):
        assert normalize_space(s) == " ".join(s.split()), repr(s)
    for s in ["", " ", "a ", " a", "a b", "a  b", "a\u00a0b", "a\u3000b", "a\x85b", "\u200b", "x\u2028"]:
        assert normalize_space(s) == " ".join(s.split()), repr(s)
    prose = "A sentence of single spaces, as most text nodes are."
    assert normalize_space(prose) is prose


def test_every_whitespace_character_but_the_space_is_unprintable() -> None:
    """``collapse_space`` trusts ``str.isprintable`` to reveal any whitespace but the space: true of every
    code point in this Python's Unicode database."""
    import sys

    printable_space = [c for c in range(sys.maxunicode + 1) if chr(c).isspace() and chr(c).isprintable()]
    assert printable_space == [0x20]


def test_word_count_and_has_units_match_their_definitions() -> None:
    word = re.compile(r"\w+")
    for s in _random_strings(20_000):
        if s.isascii():  # the ASCII shortcut: the same count as the pattern
            assert word_count(s) == len(word.findall(s)), repr(s)
    text = "Word, " * 5_000
    for least in (0, 1, 29_999, 30_000, 30_001):
        assert has_units(text, least) == (text_units(text) >= least)
    spaced = " " * 10_000 + "x" * 100  # the prefix is blank: the whole text decides
    assert has_units(spaced, 50) and not has_units(spaced, 101)


def test_strip_controls_changes_no_printable_text() -> None:
    """``strip_controls`` returns a printable text as it is: no character it drops or rewrites (C0/C1
    controls, DEL, surrogates, CR, form feed) is printable, on every code point."""
    import sys

    from readwell.render_html import _CONTROL, strip_controls

    touched = [c for c in range(sys.maxunicode + 1) if _CONTROL.match(chr(c)) or chr(c) in "\r\x0c"]
    assert not any(chr(c).isprintable() for c in touched)
    for s in ["plain", "tab\there", "a\x1b[2Jb", "cr\r\nlf", "ff\x0cx", "nbsp\u00a0x", "s\ud800"]:
        want = _CONTROL.sub("", s.replace("\r\n", "\n").replace("\r", "\n").replace("\x0c", " "))
        assert strip_controls(s) == want, repr(s)


def test_markdown_escapes_match_their_substitutions() -> None:
    """``esc`` and ``escape_line_starts`` search before substituting: the same strings as substituting
    always, on random strings of the characters they escape."""
    from readwell import md_escape as m

    rng = random.Random(3)
    chars = list("\\`*_[]<>|~$&#;a1 -+=.)>\n") + ["&amp;", "&#58;", "1.", "- ", "# "]
    for _ in range(20_000):
        s = "".join(rng.choice(chars) for _ in range(rng.randint(0, 10)))
        plain = m._MD_SPECIAL.sub(r"\\\1", s)
        assert m.esc(s) == (m._ENTITY_LIKE.sub(r"\\&", plain) if "&" in plain else plain), repr(s)
        lines = s.split("\n")
        assert m.escape_line_starts(s) == "\n".join(m._LINE_START.sub(m._escape_marker, ln) for ln in lines)
