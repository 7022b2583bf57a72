"""GitHub-flavoured Markdown and plain text from the sanitized tree.

Plain text is the article's running prose (headings, paragraphs, lists, quotes, tables, code, math as TeX):
media and the captions bound to them (``<figcaption>``) appear only in Markdown and HTML, as in
trafilatura's text output and in human-annotated article bodies.

Every page-derived string is escaped for its Markdown context: text (``\\`` before ``*_[]<>`|~$`` and
entity-like ``&``), link and image targets (percent-encoded spaces, parentheses and angle brackets,
backslash before an entity-like ``&``: CommonMark decodes ``&#58;`` in a target into ``:``), image alt and
titles, TeX (``tex_for_markdown``), callout kinds, and ``|`` inside code and TeX in table cells (GFM splits
cells there, even inside a code span). No page value can open a link, an image or raw HTML, checked by
rendering with a CommonMark implementation in ``tests/test_security.py``. YAML front matter values are
JSON-quoted strings (valid YAML), so a newline or ``---`` in a title cannot end the block.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

from .dom import Element, Text
from .render_html import strip_controls

BLOCK = frozenset(
    "address article aside blockquote details dialog div dl dt dd fieldset figcaption figure footer h1 h2 h3 h4 "
    "h5 h6 header hgroup hr li main nav ol p pre section table ul summary tbody thead tfoot tr td th caption "
    "picture center".split()
)
_WS = re.compile(r"\s+")
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|~$])")
_ENTITY_LIKE = re.compile(r"&(?=#?[A-Za-z0-9]+;)")
_LINE_START = re.compile(r"^(\s*)([#>+=-]|\d+[.)])(?=\s|$)")


def esc(s: str) -> str:
    s = _MD_SPECIAL.sub(r"\\\1", s)
    return _ENTITY_LIKE.sub(r"\\&", s)


def esc_url(u: str) -> str:
    u = re.sub(r"[\x00-\x20\x7f]", lambda m: f"%{ord(m.group()):02X}", u.strip())
    for ch, rep in (
        ("(", "%28"),
        (")", "%29"),
        ("<", "%3C"),
        (">", "%3E"),
        ("\\", "%5C"),
        ('"', "%22"),
        ("[", "%5B"),
        ("]", "%5D"),
        ("`", "%60"),
    ):
        u = u.replace(ch, rep)
    # A literal "&#58;" in a relative target is harmless in HTML but CommonMark decodes it: "javascript&#58;x"
    # would become a javascript: link. A backslash keeps the "&" literal and the URL unchanged.
    return _ENTITY_LIKE.sub(r"\\&", u)


def esc_title(t: str) -> str:
    return _ENTITY_LIKE.sub(r"\\&", _WS.sub(" ", t).replace("\\", "\\\\").replace('"', '\\"').strip())


_TEX_LINK = re.compile(r"\](?=[(\[:])")


def tex_for_markdown(tex: str, display: bool = False) -> str:
    """TeX as it goes between ``$`` delimiters. A renderer without a math extension reads it as Markdown, and
    the TeX is page data (KaTeX annotations, MathJax scripts, ``data-tex``): ``<`` and ``>`` become ``\\lt`` and
    ``\\gt`` (the same symbols to KaTeX and MathJax), a space goes between ``]`` and a following ``(``, ``[`` or
    ``:`` (no link or link definition; spaces mean nothing in math mode), and whitespace runs collapse (one
    line inline, no blank line in display math, so the block cannot end early)."""
    tex = tex.replace("<", "\\lt ").replace(">", "\\gt ")
    tex = _TEX_LINK.sub("] ", tex)
    if display:
        return "\n".join(ln.strip() for ln in tex.split("\n") if ln.strip())
    return _WS.sub(" ", tex).strip()


_CALLOUT_KIND = re.compile(r"^[A-Za-z]{1,20}$")


def _has_block(el: Element) -> bool:
    return any(
        isinstance(c, Element) and (c.tag in BLOCK or c.get("data-display") == "block") for c in el.children
    )


class _MD:
    """One render: inline and block walkers (depth is capped by the tree builder)."""

    def __init__(self, plain: bool = False) -> None:
        self.plain = plain
        self.footnotes: list[str] = []
        self.in_table = False  # GFM splits table cells at "|" even inside code spans: escape it there

    # --- inline ---------------------------------------------------------------------------------------------
    def inline(self, node: Element | Text) -> str:
        if isinstance(node, Text):
            t = _WS.sub(" ", node.data)
            return t if self.plain else esc(t)
        el = node
        tag = el.tag
        if el.get("data-tex"):
            tex = el.get("data-tex")
            if self.plain:
                return tex
            tex = self._cell(tex_for_markdown(tex))
            return f"$${tex}$$" if el.get("data-display") == "block" else f"${tex}$"
        if el.get("data-footnote-ref"):
            label = re.sub(r"[^\w-]", "", el.get("data-footnote-ref")) or "1"
            return "" if self.plain else f"[^{label}]"
        inner = _join_inline(self.inline(c) for c in el.children if isinstance(c, Element | Text))
        if tag == "br":
            return "\n" if self.plain else "\\\n"
        if tag == "img":
            return "" if self.plain else self.image(el)
        if self.plain:
            return inner
        if tag == "a":
            href = el.get("href")
            label = inner.strip()
            if not href or href.startswith("#") and not label:
                return inner
            if not label:
                return ""
            title = f' "{esc_title(el.get("title"))}"' if el.get("title").strip() else ""
            return f"[{label}]({esc_url(href)}{title})"
        if tag in ("strong", "b"):
            return _wrap(inner, "**")
        if tag in ("em", "i", "cite", "dfn", "var"):
            return _wrap(inner, "*")
        if tag in ("del", "s"):
            return _wrap(inner, "~~")
        if tag in ("code", "kbd", "samp"):
            raw = _WS.sub(" ", el.text())
            if not raw.strip():
                return ""
            ticks = "`" * (max((len(m) for m in re.findall(r"`+", raw)), default=0) + 1)
            pad = " " if raw.startswith("`") or raw.endswith("`") else ""
            return f"{ticks}{pad}{self._cell(raw)}{pad}{ticks}"
        return inner

    def _cell(self, s: str) -> str:
        return s.replace("|", "\\|") if self.in_table else s

    def image(self, el: Element) -> str:
        src = el.get("src")
        if not src:
            return ""
        alt = _WS.sub(" ", el.get("alt")).strip()
        alt = _ENTITY_LIKE.sub(r"\\&", re.sub(r"([\\\[\]<>`*_|$])", r"\\\1", alt))
        title = f' "{esc_title(el.get("title"))}"' if el.get("title").strip() else ""
        return f"![{alt}]({esc_url(src)}{title})"

    # --- blocks ---------------------------------------------------------------------------------------------
    def blocks(self, el: Element) -> list[str]:
        """Render ``el``'s children as a list of Markdown blocks."""
        out: list[str] = []
        run: list[Element | Text] = []

        def flush() -> None:
            if run:
                text = _join_inline(self.inline(n) for n in run)
                text = _tidy_inline(text)
                if text:
                    out.append(text if self.plain else _escape_line_starts(text))
                run.clear()

        for c in el.children:
            if isinstance(c, Text) or (
                isinstance(c, Element)
                and c.tag not in BLOCK
                and c.get("data-display") != "block"
                and not _wraps_blocks(c)
            ):
                run.append(c)
                continue
            assert isinstance(c, Element)
            flush()
            out.extend(self.block(c))
        flush()
        return out

    def block(self, el: Element) -> list[str]:
        tag = el.tag
        if el.get("data-display") == "block" and el.get("data-tex"):
            if self.plain:
                return [el.get("data-tex")]
            return [f"$$\n{self._cell(tex_for_markdown(el.get('data-tex'), display=True))}\n$$"]
        if tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
            text = _tidy_inline(_join_inline(self.inline(c) for c in el.children))
            if not text:
                return []
            return (
                [text.replace("\n", " ")]
                if self.plain
                else ["#" * int(tag[1]) + " " + text.replace("\\\n", " ")]
            )
        if tag == "hr":
            return [] if self.plain else ["---"]
        if tag == "pre":
            code = el.text().strip("\n")
            if self.plain:
                return [code]
            lang = ""
            code_el = el.find("code")
            if code_el is not None:
                for c in code_el.classes:
                    if c.startswith("language-"):
                        lang = re.sub(r"[^\w+#.-]", "", c[9:])
            fence = "`" * max(3, max((len(m) for m in re.findall(r"`+", code)), default=0) + 1)
            return [f"{fence}{lang}\n{self._cell(code)}\n{fence}"]
        if tag in ("ul", "ol"):
            return self.list_block(el)
        if tag == "blockquote":
            inner = self.blocks(el)
            if self.plain:
                return inner
            kind = el.get("data-callout")
            kind = kind if _CALLOUT_KIND.match(kind) else ""  # page-written kinds too: "x](javascript:…)"
            body = "\n\n".join(inner)
            lines = ([f"[!{kind.upper()}]"] if kind else []) + body.split("\n")
            return ["\n".join(("> " + ln) if ln else ">" for ln in lines)]
        if tag == "table":
            return self.table(el)
        if el.get("data-footnotes") and tag in ("ol", "ul"):
            return self.footnote_list(el)
        if tag == "dl":
            out: list[str] = []
            for c in el.element_children:
                b = self.blocks(c)
                if c.tag == "dt" and b and not self.plain:
                    b = [f"**{x}**" for x in b]
                out.extend(b)
            return out
        if tag == "figcaption" and self.plain:
            return []  # plain text is the running prose: captions belong to their media (Markdown/HTML keep them)
        if tag == "figure":
            out = []
            for c in el.children:
                if isinstance(c, Element) and c.tag == "figcaption" and self.plain:
                    continue
                if isinstance(c, Element) and c.tag == "figcaption":
                    cap = _tidy_inline(_join_inline(self.inline(x) for x in c.children))
                    if cap:
                        out.append(cap if self.plain else f"*{cap}*" if not cap.startswith("*") else cap)
                elif isinstance(c, Element):
                    out.extend(
                        self.block(c)
                        if c.tag in BLOCK
                        else [_tidy_inline(self.inline(c))]
                        if self.inline(c).strip()
                        else []
                    )
                elif c.data.strip():
                    out.append(esc(c.data.strip()) if not self.plain else c.data.strip())
            return [b for b in out if b]
        return self.blocks(el)

    def list_block(self, el: Element) -> list[str]:
        if el.get("data-footnotes"):
            return self.footnote_list(el)
        ordered = el.tag == "ol"
        try:
            n = int(el.get("start") or 1)
        except ValueError:
            n = 1
        items: list[str] = []
        for li in el.element_children:
            if li.tag != "li":
                items.extend(self.block(li))
                continue
            content = self.blocks(li)
            text = "\n\n".join(content).strip()
            if not text:
                continue
            if self.plain:
                items.append(text)
                continue
            marker = f"{n}. " if ordered else "- "
            n += 1
            pad = " " * len(marker)
            lines = text.split("\n")
            items.append(marker + lines[0] + "".join("\n" + (pad + ln if ln else "") for ln in lines[1:]))
        if not items:
            return []
        return ["\n".join(items)]

    def footnote_list(self, el: Element) -> list[str]:
        out = []
        for i, li in enumerate(el.element_children, start=1):
            label = re.sub(r"[^\w-]", "", li.get("data-footnote")) or str(i)
            text = " ".join(self.blocks(li)).strip()
            if text:
                out.append(text if self.plain else f"[^{label}]: {text}")
        return ["\n".join(out)] if out else []

    def table(self, el: Element) -> list[str]:
        outer, self.in_table = self.in_table, not self.plain
        try:
            return self._table(el)
        finally:
            self.in_table = outer

    def _table(self, el: Element) -> list[str]:
        rows: list[list[str]] = []
        header_rows = 0
        for tr in el.iter(include_self=False):
            if tr.tag != "tr":
                continue
            cells = [c for c in tr.element_children if c.tag in ("td", "th")]
            if not cells:
                continue
            texts = []
            for c in cells:
                t = (
                    " ".join(self.blocks(c))
                    if _has_block(c)
                    else _tidy_inline(_join_inline(self.inline(x) for x in c.children))
                )
                t = t.replace("\n", " ").replace("\\\n", " ")
                texts.append(t.strip())
                span = c.get("colspan")
                if span.isdigit():
                    texts.extend([""] * min(int(span) - 1, 50))
            if all(c.tag == "th" for c in cells) and len(rows) == header_rows:
                header_rows += 1
            rows.append(texts)
        if not rows:
            return []
        caption = el.find("caption")
        cap = [_tidy_inline(self.inline(caption))] if caption is not None and caption.text().strip() else []
        if self.plain:
            return cap + ["\t".join(r) for r in rows]
        width = max(len(r) for r in rows)
        rows = [r + [""] * (width - len(r)) for r in rows]
        head = rows[0]
        body = rows[1:]
        lines = ["| " + " | ".join(head) + " |", "| " + " | ".join("---" for _ in head) + " |"]
        lines += ["| " + " | ".join(r) + " |" for r in body]
        return cap + ["\n".join(lines)]


def _join_inline(parts: Iterable[str]) -> str:
    """Concatenate rendered inline parts. Two code spans side by side (```a`` then ```b``) would merge their
    backtick runs, unpair both spans and let raw code text (``<img onerror=…>``) out as Markdown: a space
    goes between a part ending in a backtick and one starting with one."""
    out: list[str] = []
    for p in parts:
        if not p:
            continue
        if out and out[-1].endswith("`") and p.startswith("`"):
            out.append(" ")
        out.append(p)
    return "".join(out)


def _wrap(inner: str, mark: str) -> str:
    s = inner.strip()
    if not s:
        return inner
    lead = inner[: len(inner) - len(inner.lstrip())]
    trail = inner[len(inner.rstrip()) :]
    return f"{lead}{mark}{s}{mark}{trail}"


def _wraps_blocks(el: Element) -> bool:
    """An inline element around blocks (``<b><p>…</p><p>…</p></b>`` in misnested pages, card links): its
    blocks are rendered as blocks, or paragraphs would be glued together."""
    return any(e.tag in BLOCK for e in el.iter(include_self=False))


def _tidy_inline(text: str) -> str:
    """Collapse spaces per line; a run of hard breaks (``<br><br>``) becomes a paragraph break, and a hard
    break at the very end of the paragraph is dropped (a line never holds only a backslash)."""
    out: list[str] = []
    gap = False
    for ln in (_WS.sub(" ", ln).strip() for ln in text.split("\n")):
        if ln == "\\":  # a second <br> in a row: a paragraph break
            gap = True
            continue
        if not ln:
            continue
        if out and gap:
            out[-1] = _drop_hard_break(out[-1])
            out.append("")
        out.append(ln)
        gap = False
    if out:
        out[-1] = _drop_hard_break(out[-1])
    return "\n".join(out).strip()


def _drop_hard_break(line: str) -> str:
    """Remove a trailing hard break (a single ``\\``, not an escaped backslash ``\\\\``)."""
    if line.endswith("\\") and not line.endswith("\\\\"):
        return line[:-1].rstrip()
    return line


def _escape_line_starts(text: str) -> str:
    return "\n".join(_LINE_START.sub(lambda m: m.group(1) + "\\" + m.group(2), ln) for ln in text.split("\n"))


def to_markdown(root: Element) -> str:
    blocks = (
        _MD().blocks(root)
        if root.tag not in BLOCK or root.tag in ("div", "article", "section", "main", "body")
        else _MD().block(root)
    )
    # strip_controls: the sanitizer already did; this keeps terminal escapes out even of an unsanitized tree
    return strip_controls("\n\n".join(b for b in blocks if b.strip()).strip() + "\n") if blocks else ""


def to_text(root: Element) -> str:
    md = _MD(plain=True)
    blocks = (
        md.blocks(root)
        if root.tag in ("div", "article", "section", "main", "body") or root.tag not in BLOCK
        else md.block(root)
    )
    return strip_controls("\n\n".join(b.strip() for b in blocks if b.strip()))


# What JSON leaves raw but YAML must not see raw: line breaks (NEL, LS, PS), the BOM, and characters outside
# YAML's printable set (DEL, C1 controls, surrogates, U+FFFE/U+FFFF). A raw one makes the block unreadable.
_YAML_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029\ufeff\ud800-\udfff\ufffe\uffff]")


def front_matter(fields: dict[str, str | None]) -> str:
    """YAML front matter; each value a JSON string (a valid YAML double-quoted scalar, newlines escaped)."""
    lines = ["---"]
    for k, v in fields.items():
        if v is None or v == "":
            continue
        value = _YAML_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", json.dumps(str(v), ensure_ascii=False))
        lines.append(f"{k}: {value}")
    lines.append("---")
    return "\n".join(lines) + "\n\n"
