"""The extraction run: load → copy → stages → sanitize → render → result.

A document the caller holds is never mutated: stages work on a private copy, metadata and the readerable
verdict read the original. A document decoded for this call (HTML text, bytes, a file, a snapshot) is worked
on in place when the input can be decoded again (``run_pipeline``'s ``reread``). The result's attributes are
exactly the CLI's JSON keys.
"""

from __future__ import annotations

import asyncio
import math
import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields
from functools import partial
from typing import Any

from . import adapters, deadline, gc_pause, metadata
from .context import BEST_SCORE_NOTE, ROOT_BEST, ROOT_PROSE, ROOT_RULES, Context, LogEntry, PageMeta
from .dom import Document, Element, Text, normalize_space
from .errors import InputError
from .fetch import fetch
from .measure import Stat, measure
from .options import FORMAT_KEYS, FORMATS, OPTION_NAMES, Options
from .parse import parse_html, read_file
from .pipeline import STAGE_NAMES, run_stages, stage_names
from .readerable import Readerable, readerable_of
from .render_html import events_of, serialize
from .render_markdown import front_matter, to_markdown, to_text
from .rules import TITLE_SEPARATORS
from .sanitize import bleach_final, sanitize_tree
from .textstats import has_units, text_units, word_count
from .thresholds import (
    POST_MAX_LINK_DENSITY,
    POST_MIN_UNITS,
    POST_OPENING_MAX_LINK_DENSITY,
    POST_TITLE_MIN_WORDS,
    RETRY_MIN_CHARS_FACTOR,
    WHOLE_PAGE_MAX_LINK_DENSITY,
    WHOLE_PAGE_MIN_SHARE,
    WHOLE_PAGE_MIN_UNITS,
)

WORDS_PER_MINUTE = 230
LIST_ROOT_TAGS = frozenset({"ul", "ol", "dl"})

JSON_KEYS = (
    "found",
    "readerable",
    "title",
    "byline",
    "published",
    "modified",
    "site_name",
    "lang",
    "dir",
    "excerpt",
    "lead_image",
    "url",
    "canonical_url",
    "favicon",
    "word_count",
    "reading_minutes",
    "content_html",
    "markdown",
    "text",
    "root",
)


@dataclass
class Result:
    """What ``extract`` returns; ``to_dict()`` is the CLI's JSON."""

    found: bool
    readerable: Readerable
    title: str | None = None
    byline: str | None = None
    published: str | None = None
    modified: str | None = None
    site_name: str | None = None
    lang: str | None = None
    dir: str | None = None
    excerpt: str | None = None
    lead_image: str | None = None
    url: str | None = None
    canonical_url: str | None = None
    favicon: str | None = None
    word_count: int = 0
    reading_minutes: int = 0
    # None: a format the caller left out of ``formats`` (not rendered; not in ``to_dict()``)
    content_html: str | None = ""
    markdown: str | None = ""
    text: str | None = ""
    root: str | None = None
    removals: list[LogEntry] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    debug: bool = False
    timeout: dict[str, Any] | None = None  # set when the deadline passed: stage, elapsed_ms, limit_ms

    @property
    def status(self) -> str:
        """The outcome: ok, empty (no article) or timeout; only a timeout puts ``status`` into the JSON."""
        return "timeout" if self.timeout else ("ok" if self.found else "empty")

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {k: getattr(self, k) for k in JSON_KEYS}
        for key in FORMAT_KEYS.values():
            if d[key] is None:
                del d[key]
        d["readerable"] = self.readerable.to_dict()
        if self.timeout:
            d["status"] = "timeout"
            d["timeout"] = dict(self.timeout)
        if self.debug:
            d["removals"] = [e.to_dict() for e in self.removals]
            d["timings"] = dict(self.timings)
        return d


# How a keyword option's value is coerced, by the field's declared type (None always means "the default").
_COERCE: dict[str, Callable[[Any], Any]] = {"bool": bool, "int": int}


def make_options(url: str | None, options: dict[str, Any]) -> Options:
    """Check keyword options against ``Options``' fields and the stage list, and build the Options."""
    unknown = set(options) - OPTION_NAMES
    if unknown:
        raise InputError(f"unknown option(s): {', '.join(sorted(unknown))}")
    values: dict[str, Any] = {}
    for f in fields(Options):
        value = options.get(f.name)
        if f.name not in OPTION_NAMES or value is None:
            continue
        try:
            values[f.name] = _COERCE.get(str(f.type), lambda v: v)(value)
        except (TypeError, ValueError):
            raise InputError(f"option {f.name} must be {f.type}, got {value!r}") from None
    if "formats" in values:
        values["formats"] = _formats(values["formats"])
    if "deadline_ms" in values:
        values["deadline_ms"] = _deadline_ms(values["deadline_ms"])
    opts = Options(url=url, **values)
    bad = [d for d in opts.disable if d not in STAGE_NAMES]
    if bad:
        raise InputError(f"unknown stage(s): {', '.join(bad)}; stages are: {', '.join(STAGE_NAMES)}")
    return opts


def _formats(value: Any) -> tuple[str, ...]:
    """The ``formats`` option as a tuple of known names (one name may be given as a string)."""
    names = (value,) if isinstance(value, str) else value
    if not isinstance(names, list | tuple | set | frozenset) or not all(isinstance(n, str) for n in names):
        raise InputError(f"formats must be a list of format names, not {value!r}")
    bad = [n for n in names if n not in FORMAT_KEYS]
    if bad:
        raise InputError(f"unknown format(s): {', '.join(bad)}; formats are: {', '.join(FORMATS)}")
    return tuple(n for n in FORMATS if n in names)


def _deadline_ms(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0:
        raise InputError(f"deadline_ms must be a number of milliseconds >= 0, not {value!r}")
    return float(value)


def timeout_result(opts: Options, exc: deadline.DeadlineExceeded) -> Result:
    """The result of a run stopped by its deadline: no content, the log so far (debug), where it stopped."""
    info = {"stage": exc.stage, "elapsed_ms": round(exc.elapsed_ms, 3), "limit_ms": exc.limit_ms}
    return Result(
        found=False,
        readerable=Readerable(False, 0.0),
        url=opts.url,
        removals=list(exc.log),
        timings={"total": round(exc.elapsed_ms, 3)},
        debug=opts.debug,
        timeout=info,
    )


def load_document(source: Any) -> Document:
    """Any accepted source → Document. ``str`` is HTML text; ``os.PathLike`` is a file; bytes are sniffed."""
    if isinstance(source, Document):
        return source
    if isinstance(source, str):
        return parse_html(source)
    if isinstance(source, bytes | bytearray | memoryview):
        return parse_html(bytes(source))
    if isinstance(source, os.PathLike):
        return parse_html(read_file(source))
    if isinstance(source, dict):
        return adapters.from_snapshot(source)
    if adapters.is_lxml(source):
        return adapters.from_lxml(source)
    if adapters.is_bs4(source):
        return adapters.from_bs4(source)
    raise InputError(
        f"cannot extract from a {type(source).__name__}: pass HTML text, bytes, a path or a parsed document"
    )


def extract(source: Any, url: str | None = None, **options: Any) -> Result:
    """Extract the main content of ``source`` (HTML str/bytes, ``pathlib.Path``, lxml/bs4 tree, snapshot)."""
    opts = make_options(url, options)
    with gc_pause.paused(), deadline.started(opts.deadline_ms):
        t0 = time.perf_counter()
        try:
            if isinstance(source, os.PathLike):
                source = read_file(source)  # read once: a second decoding must see the same bytes
            elif isinstance(source, bytearray | memoryview):
                source = bytes(source)  # (and a buffer the caller may change is copied once)
            doc = load_document(source)
        except deadline.DeadlineExceeded as exc:
            return timeout_result(opts, exc)
        parse_ms = (time.perf_counter() - t0) * 1000
        if doc is source:
            result = extract_document(doc, opts)
        else:
            result = extract_owned(doc, opts, partial(load_document, source))
    if opts.debug:
        result.timings = {"parse": round(parse_ms, 3), **result.timings}
    return result


def extract_url(url: str, *, allow_private: bool = True, **options: Any) -> Result:
    """Fetch ``url`` (readwell.fetch: redirects, size and time capped) and extract it. Private and loopback
    addresses are allowed by default (the caller chose the URL); pass ``allow_private=False`` for URLs that
    come from someone else (a server)."""
    body, encoding, final = fetch(url, allow_private=allow_private)
    opts = make_options(final, options)
    return extract_owned(parse_html(body, encoding), opts, partial(parse_html, body, encoding))


async def aextract(source: Any, url: str | None = None, **options: Any) -> Result:
    """``extract`` for servers: the parse and pipeline run in a worker thread, never on the event loop."""
    return await asyncio.to_thread(extract, source, url, **options)


async def aextract_url(url: str, *, allow_private: bool = True, **options: Any) -> Result:
    """``extract_url`` for servers: the fetch and the extraction run in worker threads."""
    body, encoding, final = await asyncio.to_thread(fetch, url, allow_private=allow_private)
    opts = make_options(final, options)
    doc = await asyncio.to_thread(parse_html, body, encoding)
    return await asyncio.to_thread(extract_owned, doc, opts, partial(parse_html, body, encoding))


def run_pipeline(
    doc: Document,
    opts: Options,
    stop_after: str | None = None,
    after_stage: Callable[[Context, str], None] | None = None,
    measures: dict[int, Stat] | None = None,
    root_choice: str = ROOT_RULES,
    reread: Callable[[], Document] | None = None,
) -> Context:
    """Copy the document, seed shared facts, run the stages; the original is untouched.

    ``measures`` is ``measure(doc.body)`` when the caller has it: the copy has the same node ids, so the
    stages share it (``Context.measure``) until the tree changes in a way it does not follow (it is updated
    in place: a second run needs a fresh one). ``root_choice`` is ``Context.root_choice``.

    ``reread``: ``doc`` is the caller's to give away (nobody reads it after the run but ``Context.release``)
    and ``reread()`` decodes the same input again (same tree, same ids). The stages then work on ``doc``
    itself (``Context.in_place``; the copy was ~8% of an extraction): what the run reads of the input after
    the stages have changed the tree is read before select_root's first removal (``Context.take_facts``), or,
    in rare branches, of ``reread()``. Runs whose every step reads the input (``debug``: log paths), and
    those with a ``selector`` or a disabled stage, still copy, as does a document whose ids repeat."""
    if reread is not None and not (opts.debug or opts.selector or opts.disable):
        order = doc.take_built_order()
        if order is None:
            order = list(doc.root.iter())
        else:
            deadline.tick(len(order))  # (as the walk would have)
        if len({e.nid for e in order}) == len(order):
            ctx = Context(doc, opts, root_choice=root_choice, in_place=True, reread=reread)
            ctx._kept, ctx._input_ids = {}, doc.next_id
            return _run(ctx, doc, order, measures, stop_after, after_stage)
    origin_index: dict[int, Element] = {}
    order = []
    origin_order: list[Element] = []
    ctx = Context(doc.copy(origin_index, order, origin_order), opts, origin=doc, root_choice=root_choice)
    ctx.share_origin_index(origin_index)
    return _run(ctx, doc, order, measures, stop_after, after_stage, origin_order)


def _run(
    ctx: Context,
    doc: Document,
    order: list[Element],
    measures: dict[int, Stat] | None,
    stop_after: str | None,
    after_stage: Callable[[Context, str], None] | None,
    origin_order: list[Element] | None = None,
) -> Context:
    """``run_pipeline``'s common part: ``order`` is ``list(ctx.doc.root.iter())``, ``origin_order`` the
    same of ``doc`` (when it is another tree)."""
    opts = ctx.options
    ctx.copy_order = order
    if measures is not None:
        ctx.share_measures(ctx.doc.body, measures)
    head = metadata.head_metadata(doc, opts.url, order if origin_order is None else origin_order)
    ctx.meta = PageMeta(title=head.title, byline=head.byline, head=head)
    run_stages(ctx, stop_after=stop_after, after_stage=after_stage)
    return ctx


def extract_document(doc: Document, opts: Options) -> Result:
    """Run the pipeline on a parsed document under ``opts.deadline_ms`` (kept from ``extract`` if running).
    ``doc`` is left as it was (the stages work on a copy)."""
    return _guarded(doc, opts, None)


def extract_owned(doc: Document, opts: Options, reread: Callable[[], Document] | None = None) -> Result:
    """``extract_document`` on a document nobody else holds (parsed for this call): released afterwards.
    With ``reread`` (the same input decoded again) the stages may work on ``doc`` itself
    (``run_pipeline``)."""
    try:
        return _guarded(doc, opts, reread)
    finally:
        doc.release()  # (once: an in-place run has released it already)


def _guarded(doc: Document, opts: Options, reread: Callable[[], Document] | None) -> Result:
    with gc_pause.paused(), deadline.started(opts.deadline_ms):
        try:
            return _extract_document(doc, opts, reread)
        except deadline.DeadlineExceeded as exc:
            return timeout_result(opts, exc)


@dataclass
class _Article:
    """One pipeline run's article: the rendered outputs, or ``found`` False. The text is always rendered (the
    verdict and the word count read it); HTML and Markdown only when ``opts.formats`` asks for them."""

    found: bool
    work_root: Element | None
    html: str = ""
    text: str = ""
    md: str = ""
    words: int = 0
    sanitize_ms: float = 0.0
    render_ms: float = 0.0


def _article_of(ctx: Context, opts: Options) -> _Article:
    """Decide whether the run's root holds an article; if so sanitize it and render the three outputs."""
    work_root: Element | None = ctx.root if "select_root" not in opts.disable else ctx.doc.body
    if work_root is None:
        return _Article(False, work_root)
    st = measure(work_root)[work_root.nid]  # one measure for both verdicts
    least = min_article_units(ctx, work_root, st)
    if not _has_article(work_root, opts, least, st):
        return _Article(False, work_root)
    deadline.check()  # as between stages (the clock is otherwise read every ``deadline.STRIDE`` ticks)
    t0 = time.perf_counter()
    sanitize_tree(ctx, work_root)
    t1 = time.perf_counter()
    # A list's items need their list: a root that is a list is rendered with its own tag (an ordered list
    # keeps its numbers in HTML as it does in Markdown), and so does a table's rows (a browser drops a row
    # outside its table: ``sanitize.parse_stable``); any other root's tag is a wrapper.
    wanted = opts.formats
    whole = work_root.tag in LIST_ROOT_TAGS or work_root.tag == "table"
    # bleach is given our tree's walk with the text: it proves html5lib's re-parse of the text from it
    html = ""
    if "html" in wanted:
        ours = serialize(work_root, include_self=whole)
        html = bleach_final(ours, events_of(ours, work_root, include_self=whole))
    text = to_text(work_root)
    md = to_markdown(work_root) if "markdown" in wanted else ""
    words = word_count(text)
    found = has_units(text, least) or (words > 0 and opts.selector is not None)
    return _Article(found, work_root, html, text, md, words, _ms(t0, t1), _ms(t1, time.perf_counter()))


# The roots a declined page is retried with, in order (``_may_retry``); the bench's loss accounting and the
# log tests replay the same runs.
RETRY_CHOICES = (ROOT_BEST, ROOT_PROSE)


def _may_retry(ctx: Context, opts: Options, choice: str) -> bool:
    """A declined page is worth another run with another root (``choice``, see ``Context.root_choice``).

    ``ROOT_BEST``: scoring's best element, when the rules (or the learned model) chose something else: the
    refinements can climb from a real article block into a wrapper that a removal rule then takes whole, or
    prefer a block that is not one. ``ROOT_PROSE`` (after that): a runner-up close to the best that holds an
    article's worth of prose (``select_root.prose_runner_up``), when the best element is a short block that
    outscored the story on its name or a notice line (a footer cell named "text"). The near-empty and
    nav-only verdicts still apply to the retry's root, and it must hold ``RETRY_MIN_CHARS_FACTOR`` times the
    usual minimum of text (the first verdict was "no article": a widget's blurb must not overrule it). ``ctx``
    is the first run's."""
    if opts.selector or "select_root" in opts.disable:
        return False
    best = next((n.node_id for n in ctx.notes if n.step == BEST_SCORE_NOTE), None)
    if best is None:
        return False
    return choice != ROOT_BEST or ctx.root is None or ctx.root.nid != best


def _extract_document(doc: Document, opts: Options, reread: Callable[[], Document] | None) -> Result:
    t0 = time.perf_counter()
    body_stats = measure(doc.body)
    page = body_stats[doc.body.nid]  # the input's measure (the stages put new Stats in body_stats)
    ready = readerable_of(doc, stats=body_stats)
    t_read = time.perf_counter()
    ctx = run_pipeline(doc, opts, measures=body_stats, reread=reread)
    ctx.page = page
    pipeline_ms = _ms(t_read, time.perf_counter())
    art = _article_of(ctx, opts)
    for choice in RETRY_CHOICES:
        if art.found or not _may_retry(ctx, opts, choice):
            continue
        t_retry = time.perf_counter()
        if ctx.in_place:  # the first run changed ``doc``: the retry works on the input decoded anew
            assert reread is not None
            retry = run_pipeline(reread(), opts, root_choice=choice, reread=reread)
        else:
            retry = run_pipeline(doc, opts, root_choice=choice)
        retry.page = page
        pipeline_ms += _ms(t_retry, time.perf_counter())
        again = _article_of(retry, opts)
        if again.found and text_units(again.text) >= RETRY_MIN_CHARS_FACTOR * opts.min_article_chars:
            ctx.release()
            ctx, art = retry, again
        else:
            retry.release()
    t_render = time.perf_counter()
    found = art.found
    head: metadata.Metadata = ctx.meta.head
    facts = ctx.facts_for(art.work_root)  # (remove_by_pattern may have read its byline already)
    md_full = metadata.complete_metadata(
        head, facts, art.work_root if found else None, ctx.meta.base_url or opts.url
    )
    html, md, text, words = (art.html, art.md, art.text, art.words) if found else ("", "", "", 0)
    if found and opts.front_matter and "markdown" in opts.formats:
        md = (
            front_matter(
                {
                    "title": md_full.title,
                    "url": md_full.canonical_url or opts.url,
                    "author": md_full.byline,
                    "published": md_full.published,
                    "site": md_full.site_name,
                }
            )
            + md
        )
    t_end = time.perf_counter()
    timings = dict(ctx.timings)
    timings.update(
        {
            "readerable": _ms(t0, t_read),
            "pipeline": pipeline_ms,
            "sanitize": art.sanitize_ms,
            "render": round(art.render_ms + (t_end - t_render) * 1000, 3),
            "total": _ms(t0, t_end),
        }
    )
    result = Result(
        found=found,
        readerable=ready,
        **asdict(md_full),
        url=opts.url,
        word_count=words,
        reading_minutes=math.ceil(words / WORDS_PER_MINUTE) if words else 0,
        content_html=html if "html" in opts.formats else None,
        markdown=md if "markdown" in opts.formats else None,
        text=text if "text" in opts.formats else None,
        root=facts.path() if found else None,
        removals=list(ctx.log),
        timings=timings,
        debug=opts.debug,
    )
    ctx.release()  # the working copy is ours alone (see ``dom.release``)
    return result


def _ms(a: float, b: float) -> float:
    return round((b - a) * 1000, 3)


def _has_article(root: Element, opts: Options, least: int, st: Stat | None = None) -> bool:
    """Enough text that is not links (``least`` units: ``min_article_units``): a page of navigation and a
    few words has no article. ``st``: the root's measure, if already taken."""
    if st is None:
        st = measure(root)[root.nid]
    if opts.selector:
        return st.units > 0 or st.images > 0
    return st.units >= least and st.link_density < 0.6


_TITLE_HEADINGS = ("h1", "h2", "h3")


def _opens_post(root: Element, work: Element, headline: Callable[[Element], bool], st: Stat) -> bool:
    """The root (``root`` in the input, ``work`` its working copy, ``st`` the working measure) opens with the
    page's own headline, no text before it, and all of the root's remaining text sits in the headline's own
    block: the root is (or wraps) the post, whose body is a short sentence, perhaps ending in a link to what
    it announces. It must hold ``POST_MIN_UNITS`` of its own words outside links (a row of links under a
    headline has none). A wrapper whose post lost its text and that keeps a sidebar line elsewhere fails:
    that line is outside the headline's block."""
    head = None
    for node in root.iter_nodes():
        if isinstance(node, Text):
            if node.data.strip():
                return False  # text before any heading
        elif isinstance(node, Element) and node.tag in _TITLE_HEADINGS:
            head = node
            break
    if head is None or not headline(head) or head.parent is None:
        return False
    if st.units * (1 - st.link_density) < POST_MIN_UNITS:
        return False
    block = head.parent
    if block is root:
        return True
    own = block.text()  # the working tree may have unwrapped the block: compare the text it keeps
    return all(n.data.strip() in own for n in work.iter_nodes() if isinstance(n, Text) and n.data.strip())


def _titled_post(
    original: Callable[[], Element | None], title: str | None, st: Stat, work: Element | None = None
) -> bool:
    """A short root right after the page's own headline (an ``<h1>``-``<h3>`` whose text is the page's
    title or its part before or after a separator, among the two elements before the root, its parent or
    its grandparent; a section page's "All crafts" under "Example Crafts: all crafts" is not) is the post,
    below ``min_article_chars``: a photo or craft post with one or two lines of text. A line inside a
    root that merely *contains* the headline is not enough: a wrapper whose post text was removed
    leaves a sidebar line ("you can also like my page") there, unless the root opens with the headline and
    keeps its text inside the headline's own block (``_opens_post``, ``work``: the working root). ``st`` is
    the root's (working) measure: a sentence of prose, few links. ``original()`` gives the root's element in
    the input page (asked last: an in-place run decodes the input again for it)."""
    if not title or not st.marks or st.link_density > POST_OPENING_MAX_LINK_DENSITY:
        return False
    root = original()
    if root is None:
        return False
    title = normalize_space(title).lower()
    names = {title, *(p.strip() for p in TITLE_SEPARATORS.split(title))}

    def headline(el: Element) -> bool:
        if el.tag not in _TITLE_HEADINGS:
            return False
        text = normalize_space(el.text()).lower()
        return text in names and len(text.split()) >= POST_TITLE_MIN_WORDS

    if work is not None and _opens_post(root, work, headline, st):
        return True
    if st.link_density > POST_MAX_LINK_DENSITY:
        return False
    cur = root
    for _ in range(3):  # or right before the root, or before the root's parent or grandparent
        if cur.parent is None:
            return False
        sibs = cur.parent.element_children
        i = sibs.index(cur)
        if any(headline(h) for prev in sibs[max(0, i - 2) : i] for h in prev.iter()):
            return True
        cur = cur.parent
    return False


# The short-post route lowers the default floor (or a caller's lower one), never a floor the caller raised:
# ``min_article_chars`` above the default means "nothing shorter is an article", headline or not.
_DEFAULT_FLOOR: int = Options().min_article_chars


def min_article_units(ctx: Context, root: Element, st: Stat | None = None) -> int:
    """The text units the article needs: ``min_article_chars``, or a sentence's worth when the root (of
    ``ctx``'s tree) holds the whole page's text and that text is a sentence of prose, or ``POST_MIN_UNITS``
    when the root is a short post right after the page's own headline (``_titled_post``) and the floor is
    not above the default (``_DEFAULT_FLOOR``).

    The floor is there so that navigation and a few words ("Welcome to our site.") are not an article; a
    page whose only content is one short paragraph (a note, a stub, a test page) has nothing else to show,
    and a reader shows that paragraph (Readability.js does too). Pages with form controls (a cookie wall
    or a sign-in box around a sentence) and text that is mostly links keep the floor. ``st``: the root's
    measure, if already taken."""
    opts = ctx.options
    least = opts.min_article_chars
    if opts.selector:
        return least
    if st is None:
        st = measure(root)[root.nid]
    if POST_MIN_UNITS <= st.units < least <= _DEFAULT_FLOOR and _titled_post(
        lambda: ctx.origin_element(root.nid), ctx.meta.title, st, root
    ):
        return POST_MIN_UNITS
    if not WHOLE_PAGE_MIN_UNITS <= st.units < least or not st.marks:
        return least
    if st.link_density > WHOLE_PAGE_MAX_LINK_DENSITY:
        return least
    page = ctx.input_page()
    if page.inputs or st.units < WHOLE_PAGE_MIN_SHARE * page.units:
        return least
    return WHOLE_PAGE_MIN_UNITS


stages = stage_names  # the public name (readwell.stages()); one implementation, in pipeline.py


def is_probably_readerable(source: Any) -> Readerable:
    """Cheap verdict without the full extraction (no copy, no stages, no rendering)."""
    return readerable_of(load_document(source))
