"""Author names from byline text (pure functions)."""

from __future__ import annotations

import re

from ..dom import normalize_space
from ..rules import BYLINE_TEXT
from .dates import normalize_date

# "By: A. Writer": the prefix with a colon (BYLINE_TEXT, shared with the removal rules, wants a space).
_BY_COLON = re.compile(r"^\s*(by|von|par|por|door|di|av)\s*:\s*(.+)$", re.I)
_BY_ALONE = re.compile(r"^\s*(by|von|par|por|door|di|av)\s*:?\s*$", re.I)

# Where a byline line stops naming people: " | Staff", " • 5 min read", " on March 5, 2024", "updated ...".
_TAIL = re.compile(r"\s+[|•·]\s+|\s+(?:on|updated|published)\s+(?=\w+\s+\d)")
_DIGIT = re.compile(r"\d")
_EDGE = " ,;:-–—|"  # punctuation left at either end once the tail is gone


def _is_particle(prefix: str, rest: str) -> bool:
    """'Di Rossi', 'Von Trapp': the other languages' "by" words are also surname particles.

    Capitalised and followed by one word, such a word is part of the name; lower case ("di A. Scrittore") or
    before a full name it is the prefix. English "by" is never a particle.
    """
    return prefix.lower() != "by" and prefix[:1].isupper() and len(rest.split()) == 1


def clean_byline(text: str) -> str | None:
    """'By A. Writer, 5 March 2024 | Staff' → 'A. Writer': the prefix, dates and trailing roles go.

    Several authors stay one string (``A. Writer, B. Writer``); a trailing comma part with a date or any
    digit (``10:00``) is dropped. None when nothing is left.
    """
    t = normalize_space(text)
    m = _BY_COLON.match(t) or BYLINE_TEXT.match(t)
    if m and m.re is BYLINE_TEXT and _is_particle(m.group(1), m.group(2)):
        m = None  # "Di Rossi" is the whole name; with a colon ("Di: Rossi") the word is the prefix
    if m:
        t = m.group(2)
    elif _BY_ALONE.match(t):  # the prefix word alone ("By", "By:") names nobody
        return None
    t = _TAIL.split(t, maxsplit=1)[0]
    parts = [p.strip() for p in t.split(",")]
    while len(parts) > 1 and (
        normalize_date(parts[-1]) or normalize_date(", ".join(parts[-2:])) or _DIGIT.search(parts[-1])
    ):
        parts.pop()  # "…, 5 March 2024" / "…, March 5, 2024" / "…, 10:00"
    t = ", ".join(parts).strip(_EDGE)
    return t or None
