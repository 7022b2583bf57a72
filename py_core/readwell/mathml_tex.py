"""Presentation MathML to TeX, for Markdown when the page gave no TeX source.

Why: the sanitizer keeps MathML (a formula without TeX has no other faithful form in HTML), but Markdown has
no MathML; the text of ``<msup><mi>c</mi><mn>2</mn></msup>`` alone reads ``c2`` and a fraction ``12``. The
common layout elements map one-to-one to TeX (fractions, scripts, roots, over/under, matrices); anything
else gives None and the renderer falls back to the formula's text. The TeX is then escaped for Markdown by
``md_escape.tex_for_markdown`` like any page TeX.
"""

from __future__ import annotations

from .dom import Element, Text

# TeX's special characters inside a token: each becomes a command or an escaped character.
_TEX_ESCAPES = {
    "\\": "\\backslash ",
    "{": "\\{",
    "}": "\\}",
    "$": "\\$",
    "%": "\\%",
    "&": "\\&",
    "#": "\\#",
    "_": "\\_",
    "^": "\\hat{}",
    "~": "\\sim ",
}
_FENCES = {"(": "(", ")": ")", "[": "[", "]": "]", "{": "\\{", "}": "\\}", "|": "|", "": "."}
MAX_DEPTH = 60  # nesting deeper than any real formula: give up (the text fallback is used)


def _token(el: Element) -> str:
    return "".join(_TEX_ESCAPES.get(ch, ch) for ch in el.text().strip())


def _group(s: str) -> str:
    return s if len(s) == 1 else "{" + s + "}"


def _kids(el: Element) -> list[Element]:
    return [c for c in el.children if isinstance(c, Element)]


def _conv(el: Element, depth: int) -> str | None:
    if depth > MAX_DEPTH:
        return None
    t = el.tag
    if t in ("mi", "mn", "mo", "ms"):
        return _token(el)
    if t == "mtext":
        s = _token(el)
        return "\\text{" + s + "}" if s.strip() else " "
    if t == "mspace":
        return " "
    if any(isinstance(c, Text) and c.data.strip() for c in el.children) and t not in ("math", "mrow"):
        return None  # loose text where MathML expects elements: not a formula we can read
    parts = []
    for c in _kids(el):
        p = _conv(c, depth + 1)
        if p is None:
            return None
        parts.append(p)
    if t in ("math", "mrow", "mstyle", "mpadded", "semantics", "merror", "menclose", "none", "mprescripts"):
        return "".join(parts)
    if t == "mphantom":
        return ""
    n = len(parts)
    if t == "mfrac" and n == 2:
        return f"\\frac{{{parts[0]}}}{{{parts[1]}}}"
    if t == "msqrt":
        return "\\sqrt{" + "".join(parts) + "}"
    if t == "mroot" and n == 2:
        return f"\\sqrt[{parts[1]}]{{{parts[0]}}}"
    if t in ("msup", "mover") and n == 2:
        return f"{_group(parts[0])}^{{{parts[1]}}}"
    if t in ("msub", "munder") and n == 2:
        return f"{_group(parts[0])}_{{{parts[1]}}}"
    if t in ("msubsup", "munderover") and n == 3:
        return f"{_group(parts[0])}_{{{parts[1]}}}^{{{parts[2]}}}"
    if t == "mfenced":
        op, cl = el.get("open", "("), el.get("close", ")")
        if op not in _FENCES or cl not in _FENCES:
            return None
        sep = el.get("separators", ",")[:1] or ""
        return f"\\left{_FENCES[op]}{sep.join(parts)}\\right{_FENCES[cl]}"
    if t == "mtable":
        return "\\begin{matrix}" + " \\\\ ".join(parts) + "\\end{matrix}"
    if t in ("mtr", "mlabeledtr"):
        return " & ".join(parts)
    if t == "mtd":
        return "".join(parts)
    return None


def mathml_to_tex(math: Element) -> str | None:
    """TeX for a ``<math>`` element, or None when it uses an element this mapping does not know."""
    tex = _conv(math, 0)
    return tex.strip() if tex and tex.strip() else None
