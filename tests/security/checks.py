"""Static checks every security test runs on every output format of one extraction.

The HTML check re-parses our output with html5lib (the WHATWG parsing algorithm a browser runs) and compares
it with the allow-list and with ``reference``'s independent rules; the Markdown check renders with a
CommonMark implementation (markdown-it-py) whose link validator is switched off, so we see what a permissive
renderer would produce; text, JSON, front matter and a saved page assembled from the metadata are checked too.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any
from urllib.parse import unquote

from readwell import extract
from readwell.cli import render as cli_render
from readwell.dom import HTML_NS, MATH_NS, Element, Text
from readwell.parse import parse_html
from readwell.render_html import escape_attr, escape_text, serialize
from readwell.sanitize import ALLOWED_TAGS, MATHML_TAGS, bleach_final, clean_attr

from .article import PAGE_URL
from .reference import (
    CONTROL,
    MARKER,
    MATHML_NEVER_ATTRS,
    MATHML_NEVER_ELEMENTS,
    MATHML_TEXT_ONLY,
    NEVER_ATTRS,
    NEVER_ELEMENTS,
    SRCSET_DESCRIPTOR,
    URL_ATTRS,
    browser_scheme,
    srcset_candidates,
    url_ok,
)


def reparse(html: str) -> Element:
    """``html`` as a browser would parse it inside ``<body>`` of a standards-mode page (html5lib)."""
    return parse_html("<!DOCTYPE html><html><head></head><body>" + html + "</body></html>").body


def _elements(root: Element) -> list[Element]:
    return list(root.iter(include_self=False))


def signature(el: Element) -> tuple[str, str, tuple[tuple[str, str], ...]]:
    return (el.ns, el.tag, tuple(sorted(el.attrs.items())))


def canon(root: Element) -> list[tuple[Any, ...]]:
    """A whitespace-insensitive token list of a tree: element starts/ends with attributes, collapsed text."""
    out: list[tuple[Any, ...]] = []
    stack: list[tuple[str, Any]] = [("node", c) for c in reversed(root.children)]
    while stack:
        kind, n = stack.pop()
        if kind == "end":
            out.append(("end", n))
            continue
        if isinstance(n, Text):
            t = " ".join(n.data.split())
            if t:
                if out and out[-1][0] == "text":
                    out[-1] = ("text", out[-1][1] + " " + t)
                else:
                    out.append(("text", t))
            continue
        assert isinstance(n, Element)
        out.append(("start", n.ns, n.tag, tuple(sorted(n.attrs.items()))))
        stack.append(("end", n.tag))
        stack.extend(("node", c) for c in reversed(n.children))
    return out


def check_element_policy(root: Element, where: str = "content_html") -> None:
    """Every element and attribute under ``root`` is on the sanitizer's allow-list with a value it would keep,
    and breaks none of the design's independent rules."""
    for el in _elements(root):
        if el.ns == MATH_NS:
            check_mathml(el, where)
        else:
            assert el.ns == HTML_NS, f"{where}: foreign element {el.ns}:{el.tag}"
            assert el.tag in ALLOWED_TAGS, f"{where}: element <{el.tag}> is not on the allow-list"
            assert el.tag not in NEVER_ELEMENTS, f"{where}: <{el.tag}> must never reach the output"
            assert not any(a.ns == MATH_NS for a in el.ancestors()), f"{where}: HTML <{el.tag}> inside <math>"
        for name, value in el.attrs.items():
            assert not name.startswith("on"), f"{where}: event handler {name} on <{el.tag}>"
            assert name not in NEVER_ATTRS, f"{where}: attribute {name} on <{el.tag}>"
            assert clean_attr(el.tag, name, value) == value, (
                f"{where}: <{el.tag} {name}={value!r}> not allowed"
            )
            if name in URL_ATTRS:
                assert url_ok(value, image=(el.tag == "img" and name == "src")), (
                    f"{where}: unsafe URL in <{el.tag} {name}={value!r}>"
                )
            if name == "srcset":
                for u, descriptors in srcset_candidates(value):
                    assert url_ok(u, image=True), f"{where}: unsafe srcset URL {u!r}"
                    for d in descriptors:
                        assert SRCSET_DESCRIPTOR.match(d), f"{where}: srcset descriptor {d!r} is not a size"
            assert not CONTROL.search(value), f"{where}: control character in <{el.tag} {name}>"
    for n in root.iter_nodes():
        if isinstance(n, Text):
            assert not CONTROL.search(n.data), f"{where}: control character in text {n.data[:40]!r}"


def check_mathml(el: Element, where: str) -> None:
    """A MathML element: presentation markup on the allow-list, none of the reference's never-elements, no
    element inside a token element, no link attribute, and a <math> root only directly in HTML."""
    assert el.tag in MATHML_TAGS, f"{where}: MathML <{el.tag}> is not on the allow-list"
    assert el.tag not in MATHML_NEVER_ELEMENTS, f"{where}: MathML <{el.tag}> must never reach the output"
    parent = el.parent
    if el.tag == "math":
        assert parent is None or parent.ns == HTML_NS, f"{where}: <math> nested in foreign content"
    else:
        assert parent is not None and parent.ns == MATH_NS, f"{where}: MathML <{el.tag}> outside <math>"
        assert parent.tag not in MATHML_TEXT_ONLY, f"{where}: <{el.tag}> inside token <{parent.tag}>"
    for name in el.attrs:
        assert name.lower() not in MATHML_NEVER_ATTRS, f"{where}: {name} on MathML <{el.tag}>"


def assert_reparse_stable(html: str, seen: Element | None = None) -> Element:
    """Serialize → re-parse with html5lib → the elements and attributes are what the sanitizer allowed, and a
    second round trip changes nothing (no mutation between our serializer and a browser's parser).

    ``seen``: the tree the sanitizer cleaned; every element of the re-parse must be one it saw (same tag and
    attributes), except attribute-less elements the parser implies (``<p>`` for a stray ``</p>``,
    ``<tbody>``).
    """
    first = reparse(html)
    check_element_policy(first)
    again = serialize(first, include_self=False)
    second = reparse(again)
    assert canon(first) == canon(second), "re-serialization changed the tree"
    # a fixed point up to whitespace (the newline we put after a block becomes a text node on re-parse)
    assert " ".join(serialize(second, include_self=False).split()) == " ".join(again.split()), (
        "serialization is not a fixed point"
    )
    if seen is not None:
        have = Counter(signature(e) for e in _elements(seen))
        for sig, n in Counter(signature(e) for e in _elements(first)).items():
            if n > have.get(sig, 0):
                assert not sig[2], f"element {sig} appeared after re-parse; the sanitizer never saw it"
    return first


def markdown_renderer() -> Any:
    """CommonMark (plus GFM tables and strikethrough) with raw HTML on and link validation off: the most
    permissive renderer our Markdown may meet."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
    md.validateLink = lambda url: True
    return md


_MD = None


def _walk_tokens(tokens: list[Any]) -> Any:
    for t in tokens:
        yield t
        if t.children:
            yield from _walk_tokens(t.children)


def _known(target: str, html_targets: set[str]) -> bool:
    """``target`` (from a Markdown token) is one of the HTML output's. A non-ASCII host is punycoded by the
    renderer from slightly different input (our ``%28`` versus the HTML's ``(``): compare what follows it."""
    t = unquote(target)
    if t in html_targets:
        return True
    if "xn--" in t:
        tail = t.split("/", 3)[3:]
        return any(h.split("/", 3)[3:] == tail for h in html_targets)
    return False


def check_markdown(markdown: str, content: Element | None) -> None:
    """No raw HTML, no unsafe link or image target, and no link or image the HTML output does not have."""
    global _MD
    if _MD is None:
        _MD = markdown_renderer()
    assert not CONTROL.search(markdown), "markdown: control character"
    html_hrefs = set()
    html_srcs = set()
    if content is not None:
        for el in _elements(content):
            if el.tag == "a" and el.get("href"):
                html_hrefs.add(unquote(_MD.normalizeLink(el.get("href").strip())))
            if el.tag == "img" and el.get("src"):
                html_srcs.add(unquote(_MD.normalizeLink(el.get("src").strip())))
    for t in _walk_tokens(_MD.parse(markdown)):
        assert t.type not in ("html_block", "html_inline"), f"markdown: raw HTML {t.content[:80]!r}"
        if t.type == "link_open":
            href = t.attrGet("href") or ""
            assert url_ok(unquote(href), image=False), f"markdown: unsafe link target {href!r}"
            if content is not None:
                assert _known(href, html_hrefs), f"markdown: link {href!r} that the HTML output does not have"
        if t.type == "image":
            src = t.attrGet("src") or ""
            assert url_ok(unquote(src), image=True), f"markdown: unsafe image source {src!r}"
            if content is not None:
                assert _known(src, html_srcs), f"markdown: image {src!r} that the HTML output does not have"


FRONT_MATTER_KEYS = ("title", "url", "author", "published", "site")


def check_front_matter(markdown_fm: str, markdown: str, result: Any, url: str | None) -> None:
    """The block is exactly ``---``, one ``key: "json string"`` line per field, ``---``; YAML reads back the
    same strings; the article after it is the Markdown without front matter."""
    yaml = __import__("pytest").importorskip("yaml")
    expected = {
        "title": result.title,
        "url": result.canonical_url or url,
        "author": result.byline,
        "published": result.published,
        "site": result.site_name,
    }
    expected = {k: v for k, v in expected.items() if v}
    lines = markdown_fm.split("\n")
    assert lines[0] == "---", "front matter must open with ---"
    end = lines.index("---", 1)
    assert end == len(expected) + 1, f"front matter has {end - 1} lines for {len(expected)} fields"
    for ln in lines[1:end]:
        assert re.match(r'^[a-z]+: ".*"$', ln), f"front matter line is not a quoted scalar: {ln!r}"
    loaded = yaml.safe_load("\n".join(lines[1:end])) or {}
    assert loaded == expected, f"front matter reads back as {loaded!r}"
    assert "\n".join(lines[end + 1 :]).lstrip("\n") == markdown, "article after front matter differs"


def check_text(text: str, allowed_markers: set[str] | None) -> None:
    """No control characters; no payload marker from content that is never rendered (None: skip that)."""
    bad = CONTROL.search(text)
    assert not bad, f"text: control character near {text[max(0, bad.start() - 20) :][:40]!r}"
    text.encode("utf-8")
    for m in re.findall(MARKER + r"[\w-]+", text) if allowed_markers is not None else ():
        assert m in allowed_markers, f"text: {m} came from content that is never rendered"


def check_json(d: dict[str, Any]) -> None:
    s = cli_render(d, "json")
    s.encode("utf-8")
    assert json.loads(s) == d


def check_metadata(result: Any) -> None:
    for k in ("title", "byline", "published", "modified", "site_name", "lang", "dir", "excerpt"):
        v = getattr(result, k)
        assert v is None or isinstance(v, str), f"{k} must be a plain string"
    for k in ("lead_image", "canonical_url", "favicon"):
        v = getattr(result, k)
        if v is not None:
            assert browser_scheme(v) in ("http", "https"), f"{k}: {v!r} is not an http(s) URL"


def saved_page(result: Any) -> str:
    """A saved-article page assembled the way the reader view and saved files must be: every page-derived
    value escaped for its context (text, double-quoted attribute), the article body from ``content_html``."""

    def attr(v: Any) -> str:
        return escape_attr(str(v or ""))

    def text(v: Any) -> str:
        return escape_text(str(v or ""))

    img = f'<img src="{attr(result.lead_image)}" alt="">' if result.lead_image else ""
    return (
        f'<!DOCTYPE html><html lang="{attr(result.lang)}" dir="{attr(result.dir)}">'
        '<head><meta charset="utf-8">'
        f"<title>{text(result.title)}</title>"
        f'<meta name="author" content="{attr(result.byline)}">'
        f'<meta name="description" content="{attr(result.excerpt)}">'
        f'<link rel="canonical" href="{attr(result.canonical_url)}">'
        f"</head><body><article><header><h1>{text(result.title)}</h1>"
        f"<p>{text(result.byline)}</p><p>{text(result.site_name)}</p>"
        + (f'<p><a href="{attr(result.url)}">{text(result.url)}</a></p>' if result.url else "<p></p>")
        + f"{img}</header>"
        f"<div>{result.content_html}</div></article></body></html>"
    )


def check_saved_page(result: Any) -> None:
    """Re-parse the saved page: metadata stays text and attribute values, nothing else appears."""
    doc = parse_html(saved_page(result))

    def plain(v: Any) -> str:  # escape_text/escape_attr drop control characters, as every renderer does
        t = str(v or "").replace("\r\n", "\n").replace("\r", "\n").replace("\x0c", " ")
        return re.sub("[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f\ud800-\udfff]", "", t)

    html_el = doc.html
    assert html_el.get("lang") == plain(result.lang) and html_el.get("dir") == plain(result.dir)
    head = [e for e in doc.head.iter(include_self=False)]
    assert [e.tag for e in head] == ["meta", "title", "meta", "meta", "link"], "head gained elements"
    assert head[1].text() == plain(result.title)
    assert head[2].get("content") == plain(result.byline)
    assert head[3].get("content") == plain(result.excerpt)
    article = doc.body.find("article")
    assert article is not None
    header = article.find("header")
    assert header is not None
    kids = header.element_children
    assert kids[0].tag == "h1" and kids[0].text() == plain(result.title)
    assert kids[1].text() == plain(result.byline) and kids[2].text() == plain(result.site_name)
    tags = [e.tag for e in header.iter(include_self=False)]
    want = ["h1", "p", "p", "p"] + (["a"] if result.url else []) + (["img"] if result.lead_image else [])
    assert tags == want, f"header: {tags}"
    body = article.element_children[1]
    # compare at the same depth: both trees go through readwell's parser, which caps nesting depth
    alone = parse_html(
        f"<!DOCTYPE html><html><head></head><body><article><header></header><div>"
        f"{result.content_html}</div></article></body></html>"
    ).body.find("article")
    assert alone is not None
    assert canon(body) == canon(alone.element_children[1]), "article body changed inside the saved page"


def sanitized_tree(
    page: str | bytes, url: str | None = PAGE_URL, **options: Any
) -> tuple[Element | None, str]:
    """The tree the sanitizer returned and our serializer's HTML (before bleach), for ``seen`` comparisons."""
    from readwell.extract import make_options, run_pipeline
    from readwell.sanitize import sanitize_tree

    opts = make_options(url, options)
    ctx = run_pipeline(parse_html(page), opts)
    root = ctx.root if "select_root" not in opts.disable else ctx.doc.body
    if root is None:
        return None, ""
    sanitize_tree(ctx, root)
    return root, serialize(root, include_self=False)


def check_all(
    page: str | bytes,
    url: str | None = PAGE_URL,
    allowed_markers: set[str] | None = frozenset(),
    options: dict[str, Any] | None = None,
    deep: bool = True,
    front_matter_check: bool = True,
) -> Any:
    """Every static check on every output format of one extraction; returns the Result."""
    options = dict(options or {})
    result = extract(page, url=url, **options)
    d = result.to_dict()
    check_json(d)
    check_metadata(result)
    content = assert_reparse_stable(result.content_html)
    if deep and result.found:
        seen, ours = sanitized_tree(page, url, **options)
        assert seen is not None
        # our serializer's output, before bleach, must already pass: bleach is the last defence, not the only
        assert_reparse_stable(ours, seen=seen)
        assert canon(reparse(bleach_final(ours))) == canon(reparse(ours)), "bleach had to change our output"
    check_markdown(result.markdown, content)
    check_text(result.text, None if allowed_markers is None else set(allowed_markers))
    check_saved_page(result)
    if front_matter_check and result.found and not options.get("front_matter"):
        fm = extract(page, url=url, front_matter=True, **options)
        check_front_matter(fm.markdown, result.markdown, fm, url)
    return result
