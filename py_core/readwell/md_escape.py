"""Escaping of page-derived strings for each Markdown context the renderer writes.

Every helper takes page data and returns a string that cannot open a link, an image, raw HTML, a code span
or a table cell where the renderer did not put one (checked by rendering with a CommonMark implementation in
``tests/test_security.py``):

- text: ``\\`` before ``*_[]<>`|~$`` and before an entity-like ``&`` (``esc``);
- link and image targets: percent-encoded spaces, controls, parentheses, angle brackets and quotes, and a
  backslash before an entity-like ``&``: CommonMark decodes ``&#58;`` in a target into ``:`` (``esc_url``);
- link and image titles, image alt text (``esc_title``, ``esc_alt``);
- TeX between ``$`` delimiters (``tex_for_markdown``);
- ``|`` inside code and TeX in table cells: GFM splits cells there even inside a code span (``esc_cell``);
- a line start that would read as a heading, quote, list item or setext underline (``escape_line_starts``);
- YAML front matter values: JSON-quoted strings, valid YAML (``yaml_string``).
"""

from __future__ import annotations

import json
import re

WS = re.compile(r"\s+")
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|~$])")
_ALT_SPECIAL = re.compile(r"([\\\[\]<>`*_|$])")
_ENTITY_LIKE = re.compile(r"&(?=#?[A-Za-z0-9]+;)")
_LINE_START = re.compile(r"^(\s*)([#>+=-]|\d+[.)])(?=\s|$)")
_URL_CONTROL = re.compile(r"[\x00-\x20\x7f]")
# Characters that end or bend a link target, each with its percent-encoding (the URL stays the same URL).
_URL_REPLACEMENTS = (
    ("(", "%28"),
    (")", "%29"),
    ("<", "%3C"),
    (">", "%3E"),
    ("\\", "%5C"),
    ('"', "%22"),
    ("[", "%5B"),
    ("]", "%5D"),
    ("`", "%60"),
)
_TEX_LINK = re.compile(r"\](?=[(\[:])")
_BACKTICKS = re.compile(r"`+")
# What JSON leaves raw but YAML must not see raw: line breaks (NEL, LS, PS), the BOM, and characters outside
# YAML's printable set (DEL, C1 controls, surrogates, U+FFFE/U+FFFF). A raw one makes the block unreadable.
_YAML_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029\ufeff\ud800-\udfff\ufffe\uffff]")


def esc(s: str) -> str:
    """Running text: no character of it can start emphasis, a link, a code span, HTML, a cell or math.

    (Searched before substituting: most text has none of these characters, and ``sub`` with a template
    costs a Python-level template call even when nothing matches, twice a plain search's time.)"""
    if _MD_SPECIAL.search(s) is not None:
        s = _MD_SPECIAL.sub(r"\\\1", s)
    return _ENTITY_LIKE.sub(r"\\&", s) if "&" in s else s


def esc_url(u: str) -> str:
    """A link or image target between ``(`` and ``)``."""
    u = _URL_CONTROL.sub(lambda m: f"%{ord(m.group()):02X}", u.strip())
    for ch, rep in _URL_REPLACEMENTS:
        u = u.replace(ch, rep)
    # A literal "&#58;" in a relative target is harmless in HTML but CommonMark decodes it: "javascript&#58;x"
    # would become a javascript: link. A backslash keeps the "&" literal and the URL unchanged.
    return _ENTITY_LIKE.sub(r"\\&", u)


def esc_title(t: str) -> str:
    """A link or image title between double quotes, on one line."""
    return _ENTITY_LIKE.sub(r"\\&", WS.sub(" ", t).replace("\\", "\\\\").replace('"', '\\"').strip())


def esc_alt(alt: str) -> str:
    """Image alt text between ``![`` and ``]``, on one line."""
    alt = WS.sub(" ", alt).strip()
    return _ENTITY_LIKE.sub(r"\\&", _ALT_SPECIAL.sub(r"\\\1", alt))


def esc_cell(s: str) -> str:
    """Code or TeX inside a table cell: GFM splits the row at any ``|``, even inside a code span."""
    return s.replace("|", "\\|")


def tex_for_markdown(tex: str, display: bool = False) -> str:
    """TeX as it goes between ``$`` delimiters. A renderer without a math extension reads it as Markdown,
    and the TeX is page data (KaTeX annotations, MathJax scripts, ``data-tex``): ``<`` and ``>`` become
    ``\\lt`` and ``\\gt`` (the same symbols to KaTeX and MathJax), a space goes between ``]`` and a following
    ``(``, ``[`` or ``:`` (no link or link definition; spaces mean nothing in math mode), and whitespace runs
    collapse (one line inline, no blank line in display math, so the block cannot end early)."""
    tex = tex.replace("<", "\\lt ").replace(">", "\\gt ")
    tex = _TEX_LINK.sub("] ", tex)
    if display:
        return "\n".join(ln.strip() for ln in tex.split("\n") if ln.strip())
    return WS.sub(" ", tex).strip()


def longest_backtick_run(code: str) -> int:
    """Length of the longest run of backticks in ``code``: a fence or code span needs a longer one."""
    return max((len(m) for m in _BACKTICKS.findall(code)), default=0)


def escape_line_starts(text: str) -> str:
    """A paragraph line that starts like a heading, quote, list item or setext underline stays text."""
    if "\n" not in text:  # (``^`` matches at the start only: no match there, nothing to replace)
        return text if _LINE_START.match(text) is None else _LINE_START.sub(_escape_marker, text)
    return "\n".join(_LINE_START.sub(_escape_marker, ln) for ln in text.split("\n"))


def _escape_marker(m: re.Match[str]) -> str:
    """``- x`` → ``\\- x``; ``1. x`` → ``1\\. x`` (CommonMark escapes punctuation only: a backslash before a
    digit would show up in the output)."""
    mark = m.group(2)
    if mark[0].isdigit():
        return m.group(1) + mark[:-1] + "\\" + mark[-1]
    return m.group(1) + "\\" + mark


def yaml_string(value: str) -> str:
    """A JSON string, a valid YAML double-quoted scalar: a newline or ``---`` in it cannot end the block."""
    return _YAML_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", json.dumps(value, ensure_ascii=False))
