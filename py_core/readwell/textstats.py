"""Language-neutral text measures shared by scoring, readerable check and removal stages.

Why not word counts and commas: CJK text has no spaces and uses ，、。; Arabic uses ، and ؛. ``text_units``
counts characters with CJK characters weighted ×3 (one CJK character carries about as much as a short
Latin word), and ``clause_marks`` counts commas and clause/sentence punctuation of every script.
"""

from __future__ import annotations

import re

from .dom import Element, Text, normalize_space

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_CLAUSE = re.compile(r"[,،、，;；:：]|[.!?。！？](?=\s|$)|[。！？]")
_WORD = re.compile(r"\w+")

BLOCK_TAGS = frozenset(
    """address article aside blockquote dd details dialog div dl dt fieldset figcaption figure footer form h1
    h2 h3 h4 h5 h6 header hgroup hr li main nav ol p pre section table ul tr td th tbody thead tfoot caption
    summary menu center""".split()
)


def text_units(s: str) -> int:
    """Length of normalized text, CJK characters counted three times."""
    # A printable text without two spaces in a row normalizes to itself without its end spaces: every
    # white-space character but the space is unprintable (see ``dom.collapse_space``), so its words are
    # parted by single spaces; most texts are such, and stripping them makes no list of words.
    s = s.strip() if "  " not in s and s.isprintable() else normalize_space(s)
    return len(s) if s.isascii() else len(s) + 2 * len(_CJK.findall(s))


_SENTENCE_END = re.compile(r"[.!?](?=\s|$)")  # the ASCII part of ``_CLAUSE``


def has_units(s: str, least: int) -> bool:
    """``text_units(s) >= least``, deciding from a prefix when that suffices: a prefix never has more units
    than the whole (its normalized text is a prefix of the whole's), and an article's text is megabytes."""
    head = s[: 4 * least + 4096]
    return text_units(head) >= least or (len(head) < len(s) and text_units(s) >= least)


def clause_marks(s: str) -> int:
    """Commas and clause/sentence punctuation (``_CLAUSE``). ASCII text (most text nodes) is counted with
    ``str.count`` and one small pattern: the same count, about half the time of the three-way pattern."""
    if s.isascii():
        ends = len(_SENTENCE_END.findall(s)) if "." in s or "!" in s or "?" in s else 0
        return s.count(",") + s.count(";") + s.count(":") + ends
    return len(_CLAUSE.findall(s))


# Each ASCII byte as "a" when it is a word character (``\w``: letters, digits, "_"), else as a space.
_ASCII_WORD_MARKS = bytes(
    ord("a") if (chr(i).isalnum() or chr(i) == "_") else ord(" ") if i < 128 else i for i in range(256)
)


def word_count(s: str) -> int:
    """Words, with each CJK character counted as one word (for reading time)."""
    if s.isascii():
        # no CJK; the words are the \w+ runs, and each run starts at the text's start or after a non-word
        # character: counted on bytes ("a" for word characters, " " for the rest) without a list of words
        # (an article's text is megabytes)
        marks = s.encode("ascii").translate(_ASCII_WORD_MARKS)
        return marks.count(b" a") + marks.startswith(b"a")
    cjk = len(_CJK.findall(s))
    if not cjk:  # (most non-ASCII texts: curly quotes and dashes) nothing to blank out first
        return len(_WORD.findall(s))
    return len(_WORD.findall(_CJK.sub(" ", s))) + cjk


def led_by_link(el: Element) -> bool:
    """The block's first text or media sits inside a link to another page: a card or teaser, not a sentence
    that happens to contain a link."""
    for n in el.iter_nodes():
        if isinstance(n, Text) and n.data.strip() or isinstance(n, Element) and n.tag in ("img", "picture"):
            return any(
                a.tag == "a" and a.get("href") and not a.get("href").startswith("#")
                for a in ([n] if isinstance(n, Element) else []) + list(n.ancestors())
            )
    return False


HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
SUBHEADINGS = HEADINGS - {"h1"}  # the headings inside an article (its <h1> is the page's headline)


def headed_by_link(el: Element) -> bool:
    """The item's heading is a link to another page (a kicker word may stand beside it in the heading)."""
    head = next((h for h in el.iter(include_self=False) if h.tag in HEADINGS), None)
    if head is None:
        return False
    links = [a for a in head.iter() if a.tag == "a" and a.get("href") and not a.get("href").startswith("#")]
    units = text_units(head.text())
    return bool(links) and units > 0 and sum(text_units(a.text()) for a in links) * 2 > units
