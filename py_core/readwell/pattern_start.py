"""How a text must start for an anchored pattern to match it: a quick test on its first few characters.

Why: a few stages ask of every block of the article whether its whole text is boilerplate (``^…$`` patterns:
"Share this", "12 Comments", "Related stories"). Nearly every block is prose, and prose starts with words
no such pattern starts with; the first ``START_CHARS`` characters tell, which spares joining the block's
text and running a dozen patterns on it (70,000 paragraphs of a 20 MB article, several stages each).

The test is built from the standard library's own parser (``re._parser``): every path through the pattern
gives the character classes of its first ``START_CHARS`` characters (fewer where the path ends, or reaches
an item not handled here), and the test is the alternation of those sequences, compiled with the pattern's
flags, so the engine's own case folding applies. Any text the pattern matches starts with one of the
sequences; the test is a superset and only ever rules a text out when the pattern cannot match it. Where
the parser is missing or a pattern has a shape not handled here, there is no test: every text is tried.
"""

from __future__ import annotations

import re
from typing import Any

START_CHARS = 4  # "The " is not "the …" nor "this …": three letters are not enough to tell prose apart
_MAX_SEQUENCES = 2000  # more paths than this: no test (the alternation would cost what it saves)


class _Unknown(Exception):
    """A pattern shape not handled here."""


def start_test(pattern: re.Pattern[str], search: bool = False) -> re.Pattern[str] | None:
    """A pattern whose ``match`` succeeds on every text ``pattern.match`` matches (with ``search``: every
    text ``pattern.search`` matches, for a pattern anchored by ``^`` in every alternative, not MULTILINE);
    None when no such test is known or it would accept every text."""
    try:
        from re import _parser  # type: ignore[attr-defined]

        items = list(_parser.parse(pattern.pattern, pattern.flags))
        if search and not _anchored(items, _parser, pattern.flags):
            return None
        seqs: set[tuple[str, ...]] = set()
        _walk(items, (), seqs, _parser)
        if not seqs or () in seqs:
            return None  # a path that starts with no known character: any text may match
        alts = sorted("".join(f"[{c}]" for c in seq) for seq in seqs)
        return re.compile("(?:" + "|".join(alts) + ")", pattern.flags & ~re.VERBOSE)
    except Exception:  # noqa: BLE001 - an optimisation only: no test, every text is tried
        return None


def may_match(test: re.Pattern[str] | None, start: str) -> bool:
    """False only when a text starting with ``start`` (its first ``START_CHARS`` characters, or all of it
    when shorter) cannot be matched by the pattern ``test`` was made for. Only an ASCII start is ruled out
    (Unicode case folding and digits stay the pattern's own to judge)."""
    return test is None or test.match(start) is not None or not start.isascii()


def _anchored(items: list[Any], p: Any, flags: int) -> bool:
    """Every alternative at the top starts with ``^`` (not MULTILINE): a search can match only at 0."""
    if flags & re.MULTILINE or not items:
        return False
    if items[0] == (p.AT, p.AT_BEGINNING):
        return True
    if len(items) == 1 and items[0][0] is p.BRANCH:
        return all(list(alt)[:1] == [(p.AT, p.AT_BEGINNING)] for alt in items[0][1][1])
    return False


_CATEGORIES = {"CATEGORY_DIGIT": r"\d", "CATEGORY_SPACE": r"\s", "CATEGORY_WORD": r"\w"}


def _walk(items: list[Any], seq: tuple[str, ...], out: set[tuple[str, ...]], p: Any) -> None:
    """Add to ``out`` the class sequences of every path through ``items`` after ``seq``, each cut at
    ``START_CHARS`` classes, at the path's end, or before an item not handled here."""
    if len(out) > _MAX_SEQUENCES:
        raise _Unknown("too many paths")
    for i, (op, av) in enumerate(items):
        if len(seq) >= START_CHARS:
            break
        rest = items[i + 1 :]
        if op is p.AT or op is p.ASSERT or op is p.ASSERT_NOT:
            continue  # zero width: what follows gives the characters (a superset)
        if op is p.LITERAL:
            seq = (*seq, _esc(av))
            continue
        if op is p.IN:
            try:
                seq = (*seq, _class(av, p))
            except _Unknown:
                break  # a negated class, another category: the sequence stops here
            continue
        if op is p.BRANCH:
            for alt in av[1]:
                _walk(list(alt) + rest, seq, out, p)
            return
        if op is p.SUBPATTERN:
            if av[1] or av[2]:
                break  # scoped flags ((?-i:…)): the sequence stops before it
            _walk(list(av[3]) + rest, seq, out, p)
            return
        if op in (p.MAX_REPEAT, p.MIN_REPEAT) or op is getattr(p, "POSSESSIVE_REPEAT", None):
            least, most, sub = av[0], av[1], list(av[2])
            for n in range(least, min(most, least + START_CHARS) + 1):
                _walk(sub * n + rest, seq, out, p)
            return
        break  # ANY, NOT_LITERAL, group references, atomic groups ...: the sequence stops here
    out.add(seq)


def _class(av: list[Any], p: Any) -> str:
    """The inside of a character class for an IN item (no negation, no other categories)."""
    parts = []
    for op, v in av:
        if op is p.LITERAL:
            parts.append(_esc(v))
        elif op is p.RANGE:
            parts.append(_esc(v[0]) + "-" + _esc(v[1]))
        elif op is p.CATEGORY and getattr(v, "name", "") in _CATEGORIES:
            parts.append(_CATEGORIES[v.name])
        else:
            raise _Unknown(op)  # a negated class, another category
    return "".join(parts)


def _esc(code: int) -> str:
    """One character for a character class: ASCII letters and digits as they are, any other by its code."""
    ch = chr(code)
    if ch.isascii() and ch.isalnum():
        return ch
    return f"\\x{code:02x}" if code < 256 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"
