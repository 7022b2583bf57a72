"""normalize_structures: code blocks, math, footnotes and figures get one stable form and protection.

After ``select_root`` (it normalizes inside the root only) and before every removal stage, because the parts
of these structures look like boilerplate to generic rules: line-number gutters are tiny link-free number
columns, KaTeX's MathML copy is visually hidden, footnote lists are link-dense, figure captions are short.
Normalized, they are marked protected (``Context.protect``: exempt from generic removal) and render as fenced
code with a language, ``$…$`` math, ``[^n]`` footnotes and captioned images.
"""

from __future__ import annotations

import re
from collections import Counter

from ..context import STRUCTURE, Context
from ..dom import Element, Text, detach, normalize_space, set_attr
from ..rules import INLINE_TAGS, tokens_of
from ..urls import base_url
from ..video import PLAYER_TAGS, VIDEO_MARK, video_link, video_title

# Stages this one must follow (the docstring says why); a test checks the pipeline table against them.
AFTER: tuple[str, ...] = ("select_root",)

_LANG_CLASS = re.compile(r"^(?:language|lang|highlight|brush|hljs|sourceCode)-?[:]?([\w+#.-]+)$", re.I)
GUTTER_TOKENS = frozenset(
    {
        "gutter",
        "linenos",
        "lineno",
        "linenumber",
        "linenumbers",
        "ln",
        "lnt",
        "numbers",
        "rouge-gutter",
        "line-numbers-rows",
        "linenodiv",
    }
)
NOT_LANG = frozenset(
    {
        "code",
        "highlight",
        "source",
        "pre",
        "sourcecode",
        "hljs",
        "block",
        "numbers",
        "linenos",
        "line",
        "nums",
        "wrap",
        "text",
        "plain",
        "none",
        "default",
        "js-file-line",
        "notranslate",
    }
)


def code_language(el: Element) -> str:
    """Language from classes/data attributes on the block or its ancestors up to 3 levels."""
    for e in (el, *list(el.iter(include_self=False))[:3], *list(el.ancestors())[:3]):
        lang = e.get("data-lang") or e.get("data-language")
        if lang:
            return _clean_lang(lang)
        for c in e.classes:
            m = _LANG_CLASS.match(c)
            if m and m.group(1).lower() not in NOT_LANG:
                return _clean_lang(m.group(1))
    return ""


def _clean_lang(s: str) -> str:
    s = s.strip().lower()
    return s if re.fullmatch(r"[a-z0-9+#.-]{1,30}", s) else ""


_LINE_START = object()  # sentinel: the next line must start on a new line


def _code_text(el: Element) -> str:
    """Text of a code block, kept verbatim: ``<br>`` as newlines, line elements (``div``/``.line``) each on
    their own line (a line element followed by ``<br>`` is one line, not two), gutters skipped."""
    out: list[str] = []
    stack: list[object] = [el]
    while stack:
        n = stack.pop()
        if n is _LINE_START:
            if out and not out[-1].endswith("\n"):
                out.append("\n")
            continue
        if isinstance(n, Text):
            out.append(n.data)
            continue
        assert isinstance(n, Element)
        if n is not el and tokens_of(n.get("class")) & GUTTER_TOKENS:
            continue
        if n.tag == "br":
            out.append("\n")
            continue
        kids = list(n.children)
        block_line = n is not el and (
            n.tag in ("div", "p", "li", "tr") or "line" in tokens_of(n.get("class"))
        )
        stack += reversed(kids)
        if block_line:
            stack.append(_LINE_START)
    return "".join(out).strip("\n")


def _make_pre(ctx: Context, text: str, lang: str) -> Element:
    pre = ctx.new_element("pre")
    ctx.protect(pre, "code")
    code = ctx.new_element("code", {"class": f"language-{lang}"} if lang else {})
    code.append(ctx.new_text(text))
    pre.append(code)
    return pre


def _is_gutter_table(t: Element) -> bool:
    cells = [e for e in t.iter(include_self=False) if e.tag == "td"]
    return any(tokens_of(c.get("class")) & GUTTER_TOKENS for c in cells) and any(
        e.tag == "pre" or "code" in tokens_of(e.get("class")) for e in t.iter(include_self=False)
    )


def normalize_code(ctx: Context, root: Element) -> None:
    for t in [e for e in root.iter() if e.tag == "table" and _is_gutter_table(e)]:
        if t.parent is None:
            continue
        code_cell = next(
            (c for c in t.iter() if c.tag == "td" and not tokens_of(c.get("class")) & GUTTER_TOKENS), None
        )
        if code_cell is None:
            continue
        # the language sits on the <code> inside the cell (the most specific) or on the table's wrapper
        inner = (code_language(e) for e in code_cell.iter() if e.tag in ("pre", "code"))
        lang = next((x for x in inner if x), "") or code_language(t)
        pre = _make_pre(ctx, _code_text(code_cell), lang)
        ctx.replace(
            t, pre, STRUCTURE, "code-gutter-table", "line-number gutter dropped; code kept as one block"
        )
    for pre in [e for e in root.iter() if e.tag == "pre"]:
        if pre.parent is None or ctx.protected_kind(pre) == "code":
            continue
        if any(a.tag == "pre" for a in pre.ancestors()):
            continue
        lang = code_language(pre)
        text = _code_text(pre)
        new = _make_pre(ctx, text, lang)
        ctx.replace(pre, new, STRUCTURE, "code-block", "highlighter markup flattened to plain code")


def _tex_of(el: Element) -> str:
    for a in el.iter():
        if a.tag == "annotation" and "tex" in a.get("encoding").lower():
            return a.text().strip()
    return ""


# MathJax 2 typesets each ``<script type="math/tex" id="MathJax-Element-N">`` into a sibling rendering
# (``#MathJax-Element-N-Frame``, glyphs as spans, plus a hidden MathML copy) and shows a ``.MathJax_Preview``
# before it: three copies of one formula. The script is the source; the other two go.
_MJ2_FRAME_SUFFIX = "-Frame"
_MJ2_PREVIEW = "MathJax_Preview"
_WIKI_DISPLAYSTYLE = re.compile(r"^\{\\displaystyle\s*(.*)\}$", re.S)


def _alttext_tex(alt: str) -> str:
    """TeX from a ``<math alttext>``: MediaWiki wraps it in ``{\\displaystyle …}``."""
    alt = alt.strip()
    m = _WIKI_DISPLAYSTYLE.match(alt)
    return (m.group(1) if m else alt).strip()


def _drop_mathjax2_copies(ctx: Context, root: Element) -> None:
    scripts = {
        s.id for s in root.iter() if s.tag == "script" and s.get("type").startswith("math/tex") and s.id
    }
    if not scripts:
        return
    for el in [e for e in root.iter(include_self=False) if e.tag != "script"]:
        if el.parent is None:
            continue
        frame = el.id.endswith(_MJ2_FRAME_SUFFIX) and el.id[: -len(_MJ2_FRAME_SUFFIX)] in scripts
        if frame or _MJ2_PREVIEW in el.classes:
            ctx.remove(el, STRUCTURE, "mathjax2-copy", "MathJax 2 rendering or preview of a TeX script")


def normalize_math(ctx: Context, root: Element) -> None:
    _drop_mathjax2_copies(ctx, root)
    for k in [e for e in root.iter() if "katex" in e.classes or "katex-display" in e.classes]:
        if k.parent is None or "katex-display" in k.classes and k.find("span") is None:
            continue
        if any("katex" in a.classes for a in k.ancestors()):
            continue
        tex = _tex_of(k)
        if not tex:
            continue
        display = "katex-display" in k.classes or any("katex-display" in a.classes for a in k.ancestors())
        ctx.replace(
            k, _math(ctx, tex, display), STRUCTURE, ".katex", "KaTeX rendering replaced by its TeX source"
        )
    for m in [e for e in root.iter() if e.tag.startswith("mjx-container") or "MathJax" in e.classes]:
        if m.parent is None:
            continue
        tex = _tex_of(m) or m.get("data-tex")
        inner = m.find("math")
        if not tex and inner is not None:
            tex = _tex_of(inner)
        if tex:
            ctx.replace(
                m,
                _math(ctx, tex, m.get("display") == "true"),
                STRUCTURE,
                "mjx-container",
                "MathJax rendering replaced by its TeX source",
            )
        elif inner is not None and m.tag.startswith("mjx-container"):
            # no TeX: the assistive MathML copy is the formula; the glyph spans beside it would repeat it
            ctx.replace(m, inner, STRUCTURE, "mjx-container", "MathJax rendering replaced by its MathML")
    for s in [e for e in root.iter() if e.tag == "script" and e.get("type").startswith("math/tex")]:
        if s.parent is not None:
            ctx.replace(
                s,
                _math(ctx, s.text().strip(), "mode=display" in s.get("type")),
                STRUCTURE,
                "script[type^=math/tex]",
                "MathJax 2 TeX source kept as math",
            )
    for m in [e for e in root.iter() if e.tag == "math" and e.ns == "math"]:
        tex = _tex_of(m)
        if not tex and m.get("alttext").strip() and "data-tex" not in m.attrs:
            # TeX given as alttext only: the MathML stays (HTML shows it), Markdown and text use the TeX
            set_attr(m, "data-tex", _alttext_tex(m.get("alttext")))
            set_attr(m, "data-display", "block" if m.get("display") == "block" else "inline")
            ctx.protect(m, "math")
            continue
        if tex and m.parent is not None and ctx.protected_kind(m.parent) != "math":
            ctx.replace(
                m,
                _math(ctx, tex, m.get("display") == "block"),
                STRUCTURE,
                "math",
                "MathML with TeX annotation",
            )


def _math(ctx: Context, tex: str, display: bool) -> Element:
    el = ctx.new_element("span", {"data-tex": tex, "data-display": "block" if display else "inline"})
    ctx.protect(el, "math")
    el.append(ctx.new_text(tex))
    return el


_FN_LIST_TOKENS = frozenset({"footnotes", "footnote", "endnotes", "notes", "references", "footnotelist"})


def _note_target(href: str, ids: set[str]) -> str | None:
    """The id a footnote link points to in this document: ``#n``, or ``https://…/page#n`` when an element
    here has id ``n`` (pages saved to disk or archived by crawlers carry absolute same-page links, and their
    saved URL is often not the page's own, so the URL part cannot be compared)."""
    if "#" not in href:
        return None
    head, _, target = href.partition("#")
    if not target or (head and target not in ids):
        return None
    return target


def _list_wrappers(lst: Element, root: Element) -> list[Element]:
    """The blocks around a footnote list that are only its wrapper: a parent named for notes
    (``div.footnotes``, ``role=doc-endnotes``), and any chain of parents holding nothing but the list
    (``div.reflist > ol``): a score-based removal of the wrapper would take the protected list with it."""
    out: list[Element] = []
    inner, outer = lst, lst.parent
    while outer is not None and outer is not root:
        named = (
            tokens_of(outer.get("class") + " " + outer.id) & _FN_LIST_TOKENS
            or outer.get("role") == "doc-endnotes"
        )
        only = outer.element_children == [inner] and not any(
            isinstance(t, Text) and t.data.strip() for t in outer.children
        )
        if not (named or only):
            break
        out.append(outer)
        inner, outer = outer, outer.parent
    return out


def normalize_footnotes(ctx: Context, root: Element) -> None:
    refs: dict[str, str] = {}
    links = [e for e in root.iter() if e.tag == "a" and "#" in e.get("href")]
    ids = {e.id for e in root.iter() if e.id} if links else set()
    found: list[tuple[Element, Element, str]] = []  # (link, the element marking it, the note it points to)
    for a in links:
        sup = a.parent if a.parent is not None and a.parent.tag == "sup" else None
        target = _note_target(a.get("href"), ids)
        if not target:
            continue
        if sup is None and not (
            a.find("sup") is not None or a.get("role") == "doc-noteref" or "footnote-ref" in a.classes
        ):
            continue
        found.append((a, sup if sup is not None else a, target))
    # Links side by side back to reference markers met before them are a note's ways back to the text,
    # one per citation, not references: Wikipedia's "Jump up to: <sup>a</sup> <sup>b</sup>" for a source
    # cited twice (their text stays, as in Readability's output). A lone link back is the note's own
    # number ("<sup><a href=#marker>22</a></sup>Note text") and stays its label, "[22]" in text.
    markers: set[str] = set()
    backs: list[Element] = []  # links back to a marker met before them
    for a, holder, target in found:
        if target in markers:
            backs.append(holder)
        markers.update(i for i in (a.id, holder.id) if i)
    per_parent = Counter(id(h.parent) for h in backs)
    side_by_side = {id(h) for h in backs if per_parent[id(h.parent)] > 1}
    for a, holder, target in found:
        if id(holder) in side_by_side:
            continue
        label = re.sub(r"\W", "", a.text()) or str(len(refs) + 1)
        refs[target] = label
        set_attr(holder, "data-footnote-ref", label)
        ctx.protect(holder, "footnote")
    if not refs:
        return
    for el in root.iter():
        if el.id in refs:
            li = el if el.tag == "li" else next((a for a in el.ancestors() if a.tag == "li"), el)
            set_attr(li, "data-footnote", refs[el.id])
            lst = li.parent
            if lst is not None:
                set_attr(lst, "data-footnotes", "1")
                ctx.protect(lst, "footnotes")
                for outer in _list_wrappers(lst, root):
                    ctx.protect(outer, "footnotes")
    for a in [e for e in root.iter() if e.tag == "a"]:
        if a.parent is None:
            continue
        if any("data-footnote" in x.attrs for x in a.ancestors()) and (
            a.get("role") == "doc-backlink"
            or "footnote-back" in " ".join(a.classes)
            or a.text().strip() in ("↩", "↩︎", "^", "↑")
        ):
            ctx.remove(a, STRUCTURE, "footnote-backlink", "footnote back-link")


CAPTION_TOKENS = frozenset(
    {
        "caption",
        "captions",
        "wpcaptiontext",
        "imagecaption",
        "photocaption",
        "figcaption",
        "mediacaption",
        "imgcaption",
        "credit",
        "credits",
        "imagecredit",
        "photocredit",
        "figurecaption",
        "captiontext",
        "inlinecaption",
    }
)


def _near_media(el: Element) -> bool:
    """The element sits with an image: inside a figure, or its parent or previous sibling holds media."""
    for a in list(el.ancestors())[:3]:
        if a.tag == "figure":
            return True
    par = el.parent
    if par is None:
        return False
    sibs = [c for c in par.children if isinstance(c, Element)]
    i = sibs.index(el)
    prev = sibs[i - 1] if i > 0 else None
    media = ("img", "picture", "video", "figure")
    if prev is not None and (prev.tag in media or any(e.tag in media for e in prev.iter(include_self=False))):
        return True
    return any(e.tag in media for e in par.iter(include_self=False)) and len(sibs) <= 4


CAPTION_WRAPPER_MEDIA = frozenset({"img", "picture", "video", "svg"})


def _wraps_picture_and_caption(el: Element) -> bool:
    inner = list(el.iter(include_self=False))
    return any(e.tag in CAPTION_WRAPPER_MEDIA for e in inner) and any(
        tokens_of(e.get("class")) & CAPTION_TOKENS for e in inner
    )


def normalize_figures(ctx: Context, root: Element) -> None:
    # Captions written as <div class="caption"> / <p class="wp-caption-text"> next to an image become
    # <figcaption>: one form for renderers (plain text leaves captions to Markdown and HTML).
    # A lead player block's text is the video's description, the post's lead (``Context.lead``): not one.
    # A "caption" box that holds the picture and a caption of its own (WordPress's div.wp-caption around the
    # img and its p.wp-caption-text) is the figure's wrapper: the inner caption is the figcaption, which must
    # not sit in another holding the image. (A box holding the picture and bare caption text stays one.)
    for el in [e for e in root.iter() if e.tag in ("div", "p", "span", "small", "cite")]:
        toks = tokens_of(el.get("class"))
        if (
            toks & CAPTION_TOKENS
            and len(normalize_space(el.text())) < 600
            and _near_media(el)
            and not _wraps_picture_and_caption(el)
            and not any(a.tag == "figcaption" for a in el.ancestors())  # a part of a caption
        ):
            if ctx.lead and any(a.nid in ctx.lead for a in el.ancestors()):
                continue
            el.tag = "figcaption"
    for fig in [e for e in root.iter() if e.tag == "figure"]:
        has_media = any(
            e.tag in ("img", "picture", "video", "svg", "table", "pre") for e in fig.iter(include_self=False)
        )
        if has_media:
            ctx.protect(fig, "figure")


# Elements a paragraph cannot sit in (a browser's parser splits a <p> in a <p> or a heading, and closes a link
# in a link early): the video paragraph goes after the outermost of them instead. Other inline elements
# (<font>, <span>) may hold a paragraph: moving it out of them would move it away from its place in the text.
_NO_BLOCK_INSIDE = frozenset({"p", "a", "h1", "h2", "h3", "h4", "h5", "h6", "label", "button"})
_INLINE_CLIMB = INLINE_TAGS | _NO_BLOCK_INSIDE | {"big", "tt"}
_DECORATIVE_VIDEO = ("autoplay", "loop", "muted")
MIN_PLAYER_PX = 50  # a player this small in either direction shows nothing a reader could watch


def _tiny(el: Element) -> bool:
    for attr in ("width", "height"):
        v = el.get(attr).strip().removesuffix("px")
        if v.isdigit() and int(v) < MIN_PLAYER_PX:
            return True
    return False


def _figure_caption(el: Element) -> tuple[Element | None, Element | None]:
    """The figure around ``el`` (up to three levels) and its caption, when the player is its only media."""
    for a in list(el.ancestors())[:3]:
        if a.tag == "figure":
            media = [
                e for e in a.iter(include_self=False) if e.tag in ("img", "picture", "svg", *PLAYER_TAGS)
            ]
            media = [e for e in media if e is not el and not any(x is el for x in e.ancestors())]
            cap = next((e for e in a.iter(include_self=False) if e.tag == "figcaption"), None)
            return (a if not media else None), cap
    return None, None


def normalize_embeds(ctx: Context, root: Element) -> None:
    """Video players become ``<p data-embed="video"><a href=WATCH_URL>TITLE</a></p>`` (see ``video``).

    Skipped: players inside players (the outer one stands for both), tiny ones, decorative background
    ``<video>`` (autoplaying, muted or looping, without controls) and anything with no safe http(s) link.
    """
    base = base_url(ctx.doc, ctx.options.url)
    players = [e for e in root.iter(include_self=False) if e.tag in PLAYER_TAGS]
    for el in players:
        if el.parent is None or any(a.tag in PLAYER_TAGS for a in el.ancestors()) or _tiny(el):
            continue
        if el.tag == "video" and "controls" not in el.attrs and any(k in el.attrs for k in _DECORATIVE_VIDEO):
            continue
        href = video_link(el, base)
        if href is None:
            continue
        figure, caption = _figure_caption(el)
        own = video_title(el, None)
        title = own if own != "Video" else video_title(el, caption)
        para = ctx.new_element("p", {VIDEO_MARK: "video"})
        link = ctx.new_element("a", {"href": href})
        link.append(ctx.new_text(title))
        para.append(link)
        ctx.protect(para, "video")
        whole = figure is not None and own == "Video" and caption is not None
        old = figure if whole and figure is not None else el
        ctx.replace(old, para, STRUCTURE, f"{el.tag}:video", f"video player kept as a link to {href}")
        outer = None
        for a in para.ancestors():
            if a is root or a.tag not in _INLINE_CLIMB:
                break
            if a.tag in _NO_BLOCK_INSIDE:
                outer = a
        if outer is not None and outer.parent is not None:
            detach(para)
            outer.parent.insert(outer.index_in_parent() + 1, para)


def _kinds_present(root: Element) -> tuple[bool, bool]:
    """(code, math): whether ``normalize_code`` and ``normalize_math`` can find anything under ``root``.

    Why: each of them walks the root several times (six walks for math) and most articles hold neither.
    One walk answers conservatively: code needs a ``<table>`` (gutter) or a ``<pre>``; math needs a
    ``<script>``, a ``<math>``, an ``mjx-container`` or a class containing "katex" or "MathJax". The steps
    before them (embeds, and code before math) create only ``p``, ``a``, ``pre`` and ``code`` elements, none
    of which the later step looks for."""
    code = math = False
    for e in root.iter():
        tag = e.tag
        if tag == "pre" or tag == "table":
            code = True
        elif tag == "script" or tag == "math" or tag.startswith("mjx-container"):
            math = True
        cls = e.attrs.get("class")
        if cls and ("katex" in cls or "MathJax" in cls):
            math = True
        if code and math:
            break
    return code, math


def run(ctx: Context) -> None:
    root = ctx.root or ctx.doc.body
    code, math = _kinds_present(root)
    normalize_embeds(ctx, root)
    if code:
        normalize_code(ctx, root)
    if math:
        normalize_math(ctx, root)
    normalize_footnotes(ctx, root)
    normalize_figures(ctx, root)
