"""GitHub-flavoured Markdown and plain text from the sanitized tree.

One renderer walks the tree: ``Markdown`` has one handler per tag in two tables (inline and block), and
``PlainText`` is the same walk with a few hooks overridden. Plain text is the article's running prose
(headings, paragraphs, lists, quotes, tables, code, math as TeX): media and the captions bound to them
(``<figcaption>``) appear only in Markdown and HTML, as in trafilatura's text output and in human-annotated
article bodies.

Every page-derived string goes through an escaping helper of ``md_escape`` for its Markdown context, so no
page value can open a link, an image or raw HTML (checked by rendering with a CommonMark implementation in
``tests/test_security.py``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from typing import ClassVar

from .dom import Element, Text, collapse_space
from .mathml_tex import mathml_to_tex
from .md_escape import (
    WS,
    esc,
    esc_alt,
    esc_cell,
    esc_title,
    esc_url,
    escape_line_starts,
    longest_backtick_run,
    tex_for_markdown,
    yaml_string,
)
from .render_html import strip_controls

BLOCK = frozenset(
    "address article aside blockquote details dialog div dl dt dd fieldset figcaption figure footer h1 h2 h3 "
    "h4 h5 h6 header hgroup hr li main nav ol p pre section table ul summary tbody thead tfoot tr td th "
    "caption picture center".split()
)
# Roots rendered as their children (a list of blocks); any other block root is rendered as that block.
CONTAINERS = frozenset({"div", "article", "section", "main", "body"})
_CALLOUT_KIND = re.compile(r"^[A-Za-z]{1,20}$")
_LABEL_JUNK = re.compile(r"[^\w-]")
_LANG_JUNK = re.compile(r"[^\w+#.-]")
MAX_COLSPAN = 50  # a cell's colspan adds at most this many empty cells: a page cannot blow a row up


class Markdown:
    """One Markdown render: inline and block walkers (depth is capped by the tree builder).

    ``INLINE`` and ``BLOCKS`` map a tag to the name of the method that renders it; a tag in neither renders
    as its children. Subclasses override methods (hooks), and the tables pick the override up.
    """

    INLINE: ClassVar[dict[str, str]] = {
        "a": "link",
        "br": "hard_break",
        "img": "image",
        "strong": "strong",
        "b": "strong",
        "em": "emphasis",
        "i": "emphasis",
        "cite": "emphasis",
        "dfn": "emphasis",
        "var": "emphasis",
        "del": "strike",
        "s": "strike",
        "code": "code_span",
        "kbd": "code_span",
        "samp": "code_span",
        "math": "mathml",
    }
    BLOCKS: ClassVar[dict[str, str]] = {
        **{f"h{n}": "heading" for n in range(1, 7)},
        "hr": "rule",
        "pre": "preformatted",
        "ul": "list_block",
        "ol": "list_block",
        "blockquote": "quote",
        "table": "table",
        "dl": "definitions",
        "figure": "figure",
        "figcaption": "caption",
    }

    def __init__(self) -> None:
        self.in_table = False  # GFM splits table cells at "|" even inside code spans: escape it there
        self._inline: dict[str, Callable[[Element], str]] = {
            tag: getattr(self, name) for tag, name in self.INLINE.items()
        }
        self._blocks: dict[str, Callable[[Element], list[str]]] = {
            tag: getattr(self, name) for tag, name in self.BLOCKS.items()
        }

    def render(self, root: Element) -> list[str]:
        """The blocks of ``root``: a container's children, or ``root`` itself when it is another block."""
        return self.blocks(root) if root.tag in CONTAINERS or root.tag not in BLOCK else self.block(root)

    # --- inline walker ----------------------------------------------------------------------------------
    def inline(self, node: Element | Text) -> str:
        if isinstance(node, Text):
            return self.escape(collapse_space(node.data))
        if node.attrs:  # (most sanitized elements have none: the three marks below are attributes)
            if node.get("data-tex"):
                return self.math(node.get("data-tex"), node.get("data-display") == "block")
            if node.get("data-embed") == "video":
                return self.video_link(node)
            if node.get("data-footnote-ref"):
                return self.footnote_ref(_LABEL_JUNK.sub("", node.get("data-footnote-ref")) or "1")
        handler = self._inline.get(node.tag)
        return handler(node) if handler is not None else self.inner(node)

    def inner(self, el: Element) -> str:
        """The children of ``el`` rendered inline and joined."""
        return _join_inline(self.inline(c) for c in el.children if isinstance(c, Element | Text))

    def inline_text(self, el: Element) -> str:
        """``el``'s children as one tidy inline run (headings, captions, table cells)."""
        return _tidy_inline(self.inner(el))

    def _cell(self, s: str) -> str:
        return esc_cell(s) if self.in_table else s

    # --- inline hooks -----------------------------------------------------------------------------------
    def escape(self, text: str) -> str:
        return esc(text)

    def math(self, tex: str, display: bool) -> str:
        tex = self._cell(tex_for_markdown(tex))
        return f"$${tex}$$" if display else f"${tex}$"

    def footnote_ref(self, label: str) -> str:
        return f"[^{label}]"

    def mathml(self, el: Element) -> str:
        """MathML the page gave no TeX for: TeX built from its layout elements, else its text."""
        tex = mathml_to_tex(el)
        return self.math(tex, el.get("display") == "block") if tex else self.inner(el)

    def hard_break(self, el: Element) -> str:
        return "\\\n"

    def image(self, el: Element) -> str:
        src = el.get("src")
        if not src:
            return ""
        return f"![{esc_alt(el.get('alt'))}]({esc_url(src)}{_title_of(el)})"

    def link(self, el: Element) -> str:
        inner = self.inner(el)
        href = el.get("href")
        label = inner.strip()
        if not href or href.startswith("#") and not label:
            return inner
        if not label:
            return ""
        return f"[{label}]({esc_url(href)}{_title_of(el)})"

    def video_link(self, el: Element) -> str:
        """A video paragraph (``<p data-embed="video"><a href>TITLE</a></p>``): ``[▶ TITLE](URL)``."""
        a = el.find("a")
        label = self.inline_text(a) if a is not None else ""
        if a is None or not a.get("href") or not label:
            return ""
        return f"[▶ {label}]({esc_url(a.get('href'))})"

    def strong(self, el: Element) -> str:
        return _wrap(self.inner(el), "**")

    def emphasis(self, el: Element) -> str:
        return _wrap(self.inner(el), "*")

    def strike(self, el: Element) -> str:
        return _wrap(self.inner(el), "~~")

    def code_span(self, el: Element) -> str:
        raw = WS.sub(" ", el.text())
        if not raw.strip():
            return ""
        ticks = "`" * (longest_backtick_run(raw) + 1)
        pad = " " if raw.startswith("`") or raw.endswith("`") else ""
        return f"{ticks}{pad}{self._cell(raw)}{pad}{ticks}"

    # --- block walker -----------------------------------------------------------------------------------
    def blocks(self, el: Element) -> list[str]:
        """Render ``el``'s children as a list of blocks: runs of inline children become paragraphs."""
        kids = el.children
        if len(kids) == 1 and kids[0].__class__ is Text:
            return self.inline_run(kids)  # type: ignore[arg-type]  # one text: the one run ``_runs`` gives
        out: list[str] = []
        for part in _runs(el):
            if isinstance(part, list):
                if len(part) == 1 and part[0].__class__ is Text and not part[0].data.strip():
                    continue  # white space between blocks: a blank run, which renders as nothing
                out.extend(self.inline_run(part))
            else:
                out.extend(self.block(part))
        return out

    def inline_run(self, run: list[Element | Text]) -> list[str]:
        """A run of inline children (text, links, emphasis ...) as one paragraph, or nothing if blank."""
        if len(run) == 1:  # (``_join_inline`` of one part is that part)
            text = _tidy_inline(self.inline(run[0]))
        else:
            text = _tidy_inline(_join_inline(self.inline(n) for n in run))
        return [self.paragraph(text)] if text else []

    def block(self, el: Element) -> list[str]:
        if el.attrs:  # (most sanitized elements have none: the two marks below are attributes)
            if el.get("data-display") == "block" and el.get("data-tex"):
                return [self.math_block(el.get("data-tex"))]
            if el.get("data-embed") == "video":
                text = self.video_link(el)
                return [text] if text else []
        handler = self._blocks.get(el.tag)
        return handler(el) if handler is not None else self.blocks(el)

    # --- block hooks ------------------------------------------------------------------------------------
    def paragraph(self, text: str) -> str:
        return escape_line_starts(text)

    def math_block(self, tex: str) -> str:
        return f"$$\n{self._cell(tex_for_markdown(tex, display=True))}\n$$"

    def heading(self, el: Element) -> list[str]:
        text = self.inline_text(el)
        return ["#" * int(el.tag[1]) + " " + text.replace("\\\n", " ")] if text else []

    def rule(self, el: Element) -> list[str]:
        return ["---"]

    def preformatted(self, el: Element) -> list[str]:
        code = el.text().strip("\n")
        lang = ""
        code_el = el.find("code")
        if code_el is not None:
            for c in code_el.classes:
                if c.startswith("language-"):
                    lang = _LANG_JUNK.sub("", c[9:])
        fence = "`" * max(3, longest_backtick_run(code) + 1)
        return [f"{fence}{lang}\n{self._cell(code)}\n{fence}"]

    def quote(self, el: Element) -> list[str]:
        kind = el.get("data-callout")
        kind = kind if _CALLOUT_KIND.match(kind) else ""  # page-written kinds too: "x](javascript:…)"
        lines = ([f"[!{kind.upper()}]"] if kind else []) + "\n\n".join(self.blocks(el)).split("\n")
        return ["\n".join(("> " + ln) if ln else ">" for ln in lines)]

    def caption(self, el: Element) -> list[str]:
        """A ``<figcaption>`` outside a ``<figure>``."""
        return self.blocks(el)

    def figure_caption(self, el: Element) -> list[str]:
        """The ``<figcaption>`` of a ``<figure>``, in italics."""
        cap = self.inline_text(el)
        return [cap if cap.startswith("*") else f"*{cap}*"] if cap else []

    def term(self, text: str) -> str:
        """A ``<dt>`` block."""
        return f"**{text}**"

    def list_item(self, marker: str, text: str) -> str:
        pad = " " * len(marker)
        first, *rest = text.split("\n")
        return marker + first + "".join("\n" + (pad + ln if ln else "") for ln in rest)

    def footnote_definition(self, label: str, text: str) -> str:
        return f"[^{label}]: {text}"

    def table_layout(self, rows: list[list[str]]) -> list[str]:
        """A GFM table: the first row is the header, short rows are padded."""
        width = max(len(r) for r in rows)
        head, *body = [r + [""] * (width - len(r)) for r in rows]
        lines = ["| " + " | ".join(head) + " |", "| " + " | ".join("---" for _ in head) + " |"]
        lines += ["| " + " | ".join(r) + " |" for r in body]
        return ["\n".join(lines)]

    def nested_table_layout(self, rows: list[list[str]]) -> list[str]:
        """A table inside a table cell: GFM cells hold no tables (their pipes would split the outer row), so
        its cells' text, row after row, separated by spaces."""
        return [" ".join(c for r in rows for c in r if c)]

    # --- structures shared by both formats --------------------------------------------------------------
    def definitions(self, el: Element) -> list[str]:
        out: list[str] = []
        for c in _runs(el):
            if isinstance(c, list):  # text straight inside the <dl> (no <dt>/<dd>): browsers show it
                out.extend(self.inline_run(c))
                continue
            b = self.blocks(c)
            out.extend([self.term(x) for x in b] if c.tag == "dt" else b)
        return out

    def figure(self, el: Element) -> list[str]:
        out: list[str] = []
        for c in el.children:
            if isinstance(c, Element) and c.tag == "figcaption":
                out.extend(self.figure_caption(c))
            elif isinstance(c, Element):
                if c.tag in BLOCK:
                    out.extend(self.block(c))
                elif self.inline(c).strip():
                    out.append(_tidy_inline(self.inline(c)))
            elif isinstance(c, Text) and c.data.strip():
                out.append(self.escape(c.data.strip()))
        return [b for b in out if b]

    def list_block(self, el: Element) -> list[str]:
        if el.get("data-footnotes"):
            return self.footnote_list(el)
        ordered = el.tag == "ol"
        try:
            n = int(el.get("start") or 1)
        except ValueError:
            n = 1
        out: list[str] = []
        items: list[str] = []
        for li in _runs(el):
            if isinstance(li, list):
                # Text straight inside the list, outside any <li> (old pages indent prose with a bare <ul>;
                # browsers show it): a paragraph of its own between the items before and after it, which
                # Markdown would otherwise read as a lazy continuation of the item above.
                para = self.inline_run(li)
                if para:
                    out.extend(["\n".join(items)] if items else [])
                    out.extend(para)
                    items = []
                continue
            if li.tag != "li":
                items.extend(self.block(li))
                continue
            text = "\n\n".join(self.blocks(li)).strip()
            if not text:
                continue
            items.append(self.list_item(f"{n}. " if ordered else "- ", text))
            n += 1
        return out + (["\n".join(items)] if items else [])

    def footnote_list(self, el: Element) -> list[str]:
        out = []
        for i, li in enumerate(el.element_children, start=1):
            label = _LABEL_JUNK.sub("", li.get("data-footnote")) or str(i)
            text = " ".join(self.blocks(li)).strip()
            if text:
                out.append(self.footnote_definition(label, text))
        return ["\n".join(out)] if out else []

    def table(self, el: Element) -> list[str]:
        outer, self.in_table = self.in_table, True
        try:
            rows = self._table_rows(el)
            caption = el.find("caption")
            has_cap = caption is not None and caption.text().strip()
            cap = [_tidy_inline(self.inline(caption))] if caption is not None and has_cap else []
        finally:
            self.in_table = outer
        if not rows:
            return []
        return cap + (self.nested_table_layout(rows) if outer else self.table_layout(rows))

    def _table_rows(self, el: Element) -> list[list[str]]:
        """The table's own rows (its ``<tr>``s and those of its row groups): a table nested in a cell is that
        cell's content, read once with it, not a second time as rows of the outer table."""
        rows: list[list[str]] = []
        for tr in _own_rows(el):
            cells = [c for c in tr.element_children if c.tag in ("td", "th")]
            if not cells:
                continue
            texts = []
            for c in cells:
                t = " ".join(self.blocks(c)) if _has_block(c) else self.inline_text(c)
                texts.append(t.replace("\n", " ").strip())
                span = c.get("colspan")
                if span.isdigit():
                    texts.extend([""] * min(int(span) - 1, MAX_COLSPAN))
            rows.append(texts)
        return rows


class PlainText(Markdown):
    """The running prose as plain text: no inline markup (links, emphasis and code are their text), no media
    (video links included), no captions, no rules; lists, quotes and footnotes are their text, a footnote
    reference is its bracketed label (``[1]``, as HTML shows it); tables are tab-separated rows."""

    INLINE: ClassVar[dict[str, str]] = {"br": "hard_break", "img": "image"}

    def escape(self, text: str) -> str:
        return text

    def math(self, tex: str, display: bool) -> str:
        return tex

    def footnote_ref(self, label: str) -> str:
        return f"[{label}]"  # the marker HTML shows (``<sup>[1]</sup>``), bracketed so it stays apart

    def hard_break(self, el: Element) -> str:
        return "\n"

    def image(self, el: Element) -> str:
        return ""

    def video_link(self, el: Element) -> str:
        return ""  # a player is media: its title is not the article's prose (Markdown and HTML keep the link)

    def paragraph(self, text: str) -> str:
        return text

    def math_block(self, tex: str) -> str:
        return tex

    def heading(self, el: Element) -> list[str]:
        text = self.inline_text(el)
        return [text.replace("\n", " ")] if text else []

    def rule(self, el: Element) -> list[str]:
        return []

    def preformatted(self, el: Element) -> list[str]:
        return [el.text().strip("\n")]

    def quote(self, el: Element) -> list[str]:
        return self.blocks(el)

    def caption(self, el: Element) -> list[str]:
        return []  # plain text is the running prose: captions belong to their media (Markdown/HTML keep them)

    def figure_caption(self, el: Element) -> list[str]:
        return []

    def term(self, text: str) -> str:
        return text

    def list_item(self, marker: str, text: str) -> str:
        return text

    def footnote_definition(self, label: str, text: str) -> str:
        return text

    def table_layout(self, rows: list[list[str]]) -> list[str]:
        return ["\t".join(r) for r in rows]

    def nested_table_layout(self, rows: list[list[str]]) -> list[str]:
        return self.table_layout(rows)


def _own_rows(table: Element) -> Iterator[Element]:
    """The ``<tr>`` children of a table and of its ``<thead>``/``<tbody>``/``<tfoot>``, in document order."""
    for child in table.element_children:
        if child.tag == "tr":
            yield child
        elif child.tag in ("thead", "tbody", "tfoot"):
            yield from (tr for tr in child.element_children if tr.tag == "tr")


def _title_of(el: Element) -> str:
    """The `` "title"`` part of a link or image, or nothing."""
    return f' "{esc_title(el.get("title"))}"' if el.get("title").strip() else ""


def _has_block(el: Element) -> bool:
    return any(
        isinstance(c, Element) and (c.tag in BLOCK or c.get("data-display") == "block") for c in el.children
    )


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


def _runs(el: Element) -> Iterator[list[Element | Text] | Element]:
    """``el``'s children in order: each run of inline children (text, inline elements that hold no block)
    as one list, each block child on its own."""
    run: list[Element | Text] = []
    for c in el.children:
        if isinstance(c, Text) or (
            isinstance(c, Element)
            and c.tag not in BLOCK
            and c.attrs.get("data-display") != "block"
            and not _wraps_blocks(c)
        ):
            run.append(c)
            continue
        if not isinstance(c, Element):
            continue
        if run:
            yield run
            run = []
        yield c
    if run:
        yield run


def _wraps_blocks(el: Element) -> bool:
    """An inline element around blocks (``<b><p>…</p><p>…</p></b>`` in misnested pages, card links): its
    blocks are rendered as blocks, or paragraphs would be glued together."""
    kids = el.children
    if len(kids) == 1 and kids[0].__class__ is Text:
        return False  # (a link or an emphasis of one text)
    return any(e.tag in BLOCK for e in el.iter(include_self=False))


def _tidy_inline(text: str) -> str:
    """Collapse spaces per line; a run of hard breaks (``<br><br>``) becomes a paragraph break, and a hard
    break at the very end of the paragraph is dropped (a line never holds only a backslash)."""
    if "\n" not in text:  # one line (most paragraphs): the loop below, unrolled
        line = collapse_space(text).strip()
        return "" if line == "\\" else _drop_hard_break(line).strip()
    out: list[str] = []
    gap = False
    for ln in (collapse_space(ln).strip() for ln in text.split("\n")):
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


def to_markdown(root: Element) -> str:
    blocks = Markdown().render(root)
    # strip_controls: the sanitizer already did; this keeps terminal escapes out even of an unsanitized tree
    return strip_controls("\n\n".join(b for b in blocks if b.strip()).strip() + "\n") if blocks else ""


def to_text(root: Element) -> str:
    blocks = PlainText().render(root)
    return strip_controls("\n\n".join(b.strip() for b in blocks if b.strip()))


def front_matter(fields: dict[str, str | None]) -> str:
    """YAML front matter; each value a JSON string (a valid YAML double-quoted scalar, newlines escaped)."""
    lines = ["---"]
    for k, v in fields.items():
        if v is None or v == "":
            continue
        lines.append(f"{k}: {yaml_string(str(v))}")
    lines.append("---")
    return "\n".join(lines) + "\n\n"
