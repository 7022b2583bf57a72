"""Linear on every shape, checked by counting work, not by the clock.

Wall-clock limits fail at random on shared machines (see COMMON rules), so these tests count operations
in-process: how many selector matches, subtree walks or child-list scans a page of n items costs against a
page of 4n items. Linear work grows 4x; the bounds allow a little more (constant per-page work makes small
pages relatively dearer, never cheaper). ``benchmarks/scaling.py`` prints the timings.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import fixturelib
import pytest
import readwell
from readwell import dom, selectors
from readwell.context import Context
from readwell.dom import Element, Text
from readwell.measure import Stat, measure
from readwell.parse import parse_html
from readwell.selectors import SelectorIndex, compile_selector

PROSE = (
    "The river survey counted insects in every riffle along the valley and compared them with the older "
    "records kept by the school, finding more mayflies where the banks had been replanted with willows."
)


def _page(body: str) -> str:
    return (
        f"<!DOCTYPE html><html><head><title>Shape</title></head><body><article>{body}</article></body></html>"
    )


def wide_siblings(n: int) -> str:
    return _page(f"<p>{PROSE}</p><div>" + "".join(f"<span>word{i}</span> " for i in range(n)) + "</div>")


@contextmanager
def counting(module: object, name: str) -> Iterator[list[int]]:
    """Count calls of ``module.name`` (looked up as a global at call time) while the block runs."""
    original: Callable[..., object] = getattr(module, name)
    calls = [0]

    def counted(*args: object, **kwargs: object) -> object:
        calls[0] += 1
        return original(*args, **kwargs)

    setattr(module, name, counted)
    try:
        yield calls
    finally:
        setattr(module, name, original)


def _selector_matches(html: str) -> int:
    with counting(selectors, "_matches_chain") as calls:
        readwell.extract(html)
    return calls[0]


def test_plain_siblings_are_never_tested_against_exact_selectors() -> None:
    """Exact rules are bucketed by tag/id/class/attribute: a plain <span> meets no bucket, so 4x the spans
    cost no selector match at all (the full scan was 16 matches per element, 160,000 at 10,000 spans)."""
    small, large = _selector_matches(wide_siblings(250)), _selector_matches(wide_siblings(1000))
    assert large == small


def test_selector_index_agrees_with_a_full_scan() -> None:
    """The index returns exactly what testing every selector in order returns, on elements that hit one,
    several or no buckets, including selectors with combinators, groups and unbucketable parts."""
    sels = [
        "nav",
        "[role=navigation]",
        "ins.adsbygoogle",
        "div > p.note",
        "#main, .side",
        "*",
        ":first-child",
        '[lang|=""]',
        "section [data-x]",
        "A",
    ]
    index = SelectorIndex([(s, compile_selector(s), s) for s in sels])
    root = Element("section")
    kids = [
        Element("nav"),
        Element("div", {"role": "navigation", "class": "x"}),
        Element("ins", {"class": "ads adsbygoogle"}),
        Element("p", {"class": "note"}),
        Element("span", {"id": "main"}),
        Element("span", {"class": "side", "data-x": "1"}),
        Element("a"),
        Element("b", {"lang": "en"}),
    ]
    div = Element("div")
    root.append(div)
    for k in kids:
        div.append(k)
    for el in root.iter():
        full = [s for s in sels if compile_selector(s)(el)]
        assert index.first(el) == (full[0] if full else None), el
        without_catch_all = SelectorIndex([(s, compile_selector(s), s) for s in sels if s != "*"])
        rest = [s for s in full if s != "*"]
        assert without_catch_all.first(el) == (rest[0] if rest else None), el


@pytest.mark.parametrize("selector", ["div p", "p.a.b", "[href^=x]", "#a:not(.b)"])
def test_bucketed_selector_keeps_its_matches(selector: str) -> None:
    pred = compile_selector(selector)
    index = SelectorIndex([(selector, pred, selector)])
    root = Element("div")
    for attrs in ({"class": "a b"}, {"id": "a", "class": "c"}, {"href": "xy"}, {}):
        root.append(Element("p", dict(attrs)))
    for el in root.iter():
        assert (index.first(el) == selector) == pred(el)


def test_wrappers_are_unwrapped_in_one_splice_per_parent() -> None:
    """normalize_output unwraps thousands of presentational spans without one ``list.index`` scan and
    splice each (``dom.unwrap``): single unwraps do not grow with the number of siblings."""
    counts = []
    for n in (250, 1000):
        with counting(dom, "unwrap") as calls, counting(dom, "unwrap_all") as batches:
            result = readwell.extract(wide_siblings(n))
        assert f"word{n - 1}" in result.text
        counts.append((calls[0], batches[0]))
    assert counts[0] == counts[1]


def empty_siblings(n: int) -> str:
    """Words parted by n empty elements: an empty block, a styling span around a line break, a span of one
    space (``benchmarks/scaling.py``'s shape of the same name)."""
    units = "".join(f"w{i}<div></div>x{i}<span><br></span>y{i}<b> </b>" for i in range(n // 3))
    return _page(f"<p>{PROSE}</p><div>{units}z</div>")


def test_empty_siblings_are_dropped_or_replaced_without_searching_the_child_list() -> None:
    """Thousands of empty elements among words are removed, or replaced by a break or a space, by
    position (``dom.SiblingIndex``): neither the verdicts (what is beside each one) nor the removals
    search the child list, so a page of 4x as many searches no more (each search was a scan of every
    sibling: 10,000 of them took seconds)."""
    counts = []
    for n in (300, 1200):
        searches = [0]
        original = dom._at

        def counted(
            kids: list[dom.Node],
            node: dom.Node,
            at: int,
            original: Any = original,
            searches: list[int] = searches,
        ) -> int:
            if not (0 <= at < len(kids) and kids[at] is node):
                searches[0] += 1
            return int(original(kids, node, at))

        dom._at = counted
        try:
            result = readwell.extract(empty_siblings(n))
        finally:
            dom._at = original
        last = n // 3 - 1
        assert f"x{last}\ny{last}" in result.text  # the span's line break kept
        assert f"y{last - 1} w{last}" in result.text  # the span of one space kept as a space
        counts.append(searches[0])
    assert counts[0] == counts[1]


@pytest.mark.parametrize("seed", range(5))
def test_sibling_index_answers_as_a_search_does_while_the_tree_changes(seed: int) -> None:
    """``SiblingIndex`` answers from tables made once, checked: after removals, replacements and
    insertions anywhere its answer is still the child's real position."""
    rng = random.Random(seed)
    root, _ = _nested(seed)
    index = dom.SiblingIndex()
    for step in range(200):
        nodes = [n for n in root.iter_nodes() if n is not root]
        if len(nodes) < 10:
            root.append(Element("span"))
            continue
        node = rng.choice(nodes)
        assert node.parent is not None
        assert index(node) == node.parent.children.index(node)
        change = rng.random()
        if change < 0.3:
            dom.detach(node, index(node))
        elif change < 0.5:
            dom.replace(node, Text(f"r{step}"), index(node))
        elif change < 0.6 and isinstance(node, Element):
            node.insert(0, Text(f"i{step}"))


def _nested(seed: int) -> tuple[Element, list[Element]]:
    """A small tree of nested wrappers with text between them, and every element in document order."""
    rng = random.Random(seed)
    root = Element("div")
    root.nid = 0
    elements = [root]
    for i in range(1, 60):
        parent = rng.choice(elements)
        el = Element(rng.choice(["span", "div", "p"]))
        el.nid = i
        parent.append(el)
        parent.append(Text(f"t{i}"))
        elements.append(el)
    return root, list(root.iter())


def _shape(el: Element) -> list[object]:
    return [(c.tag, c.nid, _shape(c)) if isinstance(c, Element) else c.data for c in el.children]


@pytest.mark.parametrize("seed", range(5))
def test_unwrap_all_equals_unwrapping_one_by_one(seed: int) -> None:
    one_by_one, els_a = _nested(seed)
    batched, els_b = _nested(seed)
    chosen = [i for i in range(1, len(els_a)) if random.Random(seed + 100).random() < 0.5 or i % 3 == 0]
    for i in reversed(chosen):
        dom.unwrap(els_a[i])
    dom.unwrap_all([els_b[i] for i in chosen])
    assert _shape(batched) == _shape(one_by_one)
    for el in batched.iter(include_self=False):
        assert el.parent is not None and any(c is el for c in el.parent.children)
    for i in chosen:
        assert els_b[i].parent is None and els_b[i].children == []


def test_shared_measures_equal_fresh_ones_on_every_fixture(monkeypatch: pytest.MonkeyPatch) -> None:
    """``Context.measure`` hands measures on instead of measuring again, brought up to date after removals:
    the readerable check's to root selection (through flatten_shadow and resolve_deferred),
    remove_low_score's to remove_by_selector. On every fixture they equal a fresh ``measure``."""
    original = Context.measure
    reused: Counter[str] = Counter()

    def checked(self: Context, root: Element) -> dict[int, Stat]:
        if self._stats is not None and self._stats_root is root:
            reused[self.stage] += 1
        shared = original(self, root)
        fresh = measure(root)
        assert {nid: shared[nid] for nid in fresh} == fresh
        return shared

    monkeypatch.setattr(Context, "measure", checked)
    for fx in fixturelib.all_fixtures():
        readwell.extract(fx.data, url=fx.url, **fx.options)
    assert reused["select_root"] > 100 and reused["remove_by_selector"] > 50


@pytest.mark.parametrize("parser", ["html5lib", "fast"])
def test_noscript_media_keep_the_shared_measures(monkeypatch: pytest.MonkeyPatch, parser: str) -> None:
    """resolve_deferred puts a noscript's image in its place without forgetting the page's measures
    (``keep_measures``): select_root reuses them, brought up to date, and they equal a fresh ``measure``
    (the image now counts; a forgotten measure would have been taken again)."""
    if parser == "fast":
        pytest.importorskip("selectolax")
    monkeypatch.setenv("READWELL_PARSER", parser)
    original = Context.measure
    seen: list[tuple[str, bool]] = []

    def checked(self: Context, root: Element) -> dict[int, Stat]:
        reused = self._stats is not None and self._stats_root is root
        shared = original(self, root)
        fresh = measure(root)
        assert {nid: shared[nid] for nid in fresh} == fresh
        seen.append((self.stage, reused))
        return shared

    monkeypatch.setattr(Context, "measure", checked)
    para = "<p>" + "A sentence about the allotment, its beds and its paths, goes on here. " * 6 + "</p>"
    html = (
        f"<html><body><article><h1>Plots</h1>{para}"
        '<p><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw="><noscript><img src="/a.jpg" alt="a">'
        f"</noscript></p>{para}<div><noscript><figure><img src='/b.jpg'></figure></noscript></div>"
        f"{para}</article></body></html>"
    )
    result = readwell.extract(html, url="https://example.org/", debug=True, formats=["markdown"])
    assert "/a.jpg" in (result.markdown or "") and "/b.jpg" in (result.markdown or "")
    assert [e.rule for e in result.removals].count("noscript") >= 2
    assert ("select_root", True) in seen


def test_copy_order_is_the_tree_whenever_a_stage_reads_it() -> None:
    """``Context.copy_order`` (the working copy's elements as copied) stands in for a walk of the tree in
    flatten_shadow and resolve_deferred: after every stage of every fixture it is either gone or exactly
    ``list(ctx.doc.root.iter())``, and it survives flatten_shadow on pages without a <template>."""
    from readwell.extract import make_options, run_pipeline

    kept = 0

    def check(ctx: Context, stage: str) -> None:
        nonlocal kept
        if ctx.copy_order is not None:
            assert stage == "flatten_shadow"
            current = list(ctx.doc.root.iter())
            assert len(ctx.copy_order) == len(current)
            assert all(a is b for a, b in zip(ctx.copy_order, current, strict=True))
            kept += 1

    with_templates = 0
    for fx in fixturelib.all_fixtures():
        doc = parse_html(fx.data)
        with_templates += any(e.tag == "template" for e in doc.root.iter())
        run_pipeline(doc, make_options(fx.url, dict(fx.options)), after_stage=check)
    assert kept > 100 and with_templates > 0


def test_measure_equals_stat_of_on_every_element_of_every_fixture() -> None:
    """``measure`` (one flat loop, the hot path) and ``stat_of`` (what ``remeasure`` uses) agree on every
    element, floats to the last bit: shared measures brought up to date equal fresh ones only if they do."""
    from readwell.measure import stat_of

    for fx in fixturelib.all_fixtures():
        doc = parse_html(fx.data)
        reference: dict[int, Stat] = {}
        for el in reversed(list(doc.root.iter())):
            reference[el.nid] = stat_of(el, reference)
        fast = measure(doc.root)
        assert fast == reference
        assert [repr(fast[n]) for n in reference] == [repr(v) for v in reference.values()]


def test_custom_elements_are_unwrapped_by_the_sanitizer_in_one_splice() -> None:
    """Elements off the output allow-list are unwrapped in one splice per parent, whatever their number."""
    counts = []
    for n in (250, 1000):
        html = _page(f"<p>{PROSE}</p><div>" + "".join(f"<x-w>word{i} </x-w>" for i in range(n)) + "</div>")
        with counting(dom, "unwrap") as calls:
            result = readwell.extract(html)
        assert f"word{n - 1}" in result.text and "x-w" not in result.content_html
        counts.append(calls[0])
    assert counts[0] == counts[1]


def _cyclic_garbage_nodes(run: Callable[[], object]) -> int:
    """readwell.dom nodes the cyclic collector finds after ``run`` (what reference counting missed)."""
    import gc

    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        run()
        gc.collect()
        return sum(1 for o in gc.garbage if isinstance(o, dom.Node))
    finally:
        gc.set_debug(0)
        gc.garbage.clear()


def test_extraction_leaves_no_tree_to_the_cyclic_collector() -> None:
    """Parent links make every tree a reference cycle; ``extract`` releases the trees it made (the parsed
    page, the working copy, every removed subtree) so they are freed at once instead of being walked again
    by each full collection. A Document the caller passed stays whole."""
    html = _page(f"<p>{PROSE}</p><nav><a href='/a'>Home</a></nav><div class='share'>Share</div>" * 20)
    assert _cyclic_garbage_nodes(lambda: readwell.extract(html)) == 0
    doc = parse_html(html)
    readwell.extract(doc)
    assert all(c.parent is doc.root for c in doc.root.children) and len(list(doc.root.iter())) > 40
    assert _cyclic_garbage_nodes(lambda: readwell.extract(parse_html(html))) > 0


@pytest.mark.parametrize("seed", range(5))
def test_text_start_equals_the_start_of_the_normalized_text(seed: int) -> None:
    """The removal log reads only the start of a removed subtree's text; it must be the same start."""
    rng = random.Random(seed)
    pieces = [" ", "\n\t", "ab", " cd ", "x" * 45, "  y  z ", "\u00a0w", "", " " * 40, "a " * 30 + "\n" * 50]
    for _ in range(300):
        root = Element("div")
        elements = [root]
        for _ in range(rng.randint(0, 30)):
            parent = rng.choice(elements)
            if rng.random() < 0.4:
                el = Element(rng.choice(["span", "p", "script", "style"]))
                parent.append(el)
                elements.append(el)
            else:
                parent.append(Text(rng.choice(pieces)))
        for el in elements:
            for limit in (0, 1, 7, 80):
                assert el.text_start(limit) == dom.normalize_space(el.text())[:limit]


def test_removal_log_reads_a_bounded_part_of_a_huge_removed_block(monkeypatch: pytest.MonkeyPatch) -> None:
    """A removed block's log sample costs the same whatever the block's size (linear removal logs).

    Only what the log entries read is counted (other readers, such as the byline search, look at each
    span on their own and grow with the page, as they should)."""
    original = dom.normalize_space
    original_entry = Context._entry
    read = [0]
    in_log = [False]

    def counted(s: str) -> str:
        if in_log[0]:
            read[0] += len(s)
        return original(s)

    def entry(self: Context, node: dom.Node, action: str, kind: str, rule: str, reason: str) -> None:
        in_log[0] = True
        try:
            original_entry(self, node, action, kind, rule, reason)
        finally:
            in_log[0] = False

    monkeypatch.setattr(dom, "normalize_space", counted)
    monkeypatch.setattr(Context, "_entry", entry)
    reads = []
    for n in (500, 2000):
        read[0] = 0
        footer = "<footer>" + "<span>link text</span>" * n + "</footer>"
        html = _page(f"<p>{PROSE}</p><p>{PROSE}</p>") + footer
        result = readwell.extract(html, debug=True)
        assert any(e.tag == "footer" for e in result.removals)
        reads.append(read[0])
    assert reads[0] == reads[1]


class _ReadKeys(dict[str, str]):
    """Attributes that remember which names were asked for."""

    def __init__(self, *args: object) -> None:
        super().__init__(*args)  # type: ignore[arg-type]
        self.read: set[str] = set()

    def get(self, key: str, default: object = None) -> object:  # type: ignore[override]
        self.read.add(key)
        return super().get(key, default)

    def __contains__(self, key: object) -> bool:
        self.read.add(str(key))
        return super().__contains__(key)

    def __getitem__(self, key: str) -> str:
        self.read.add(key)
        return super().__getitem__(key)


def test_hidden_rules_read_only_the_attributes_the_prefilter_knows() -> None:
    """``signals.hidden_rule`` skips elements without layout and without ``HIDDEN_ATTRS`` (scoring asks it
    of every element): no hidden rule may read another attribute, or the prefilter would hide a match."""
    from readwell import rules, signals

    samples = [
        {},
        {"hidden": ""},
        {"hidden": "until-found"},
        {"style": "display: none"},
        {"style": "visibility:collapse"},
        {"aria-hidden": "true"},
        {"aria-hidden": "true", "class": "x", "id": "y", "role": "dialog"},
    ]
    for tag in ("div", "span", "section"):
        for attrs in samples:
            el = Element(tag, _ReadKeys(attrs))
            el.append(Text(PROSE))
            for rule in rules.HIDDEN_RULES:
                rule.match(el)
            assert el.attrs.read <= signals.HIDDEN_ATTRS, (tag, attrs)  # type: ignore[attr-defined]
            if not signals.HIDDEN_ATTRS & set(attrs):
                assert not any(r.match(el) for r in rules.HIDDEN_RULES)


def test_the_cyclic_collector_is_paused_during_a_run_and_restored_after() -> None:
    """No collection runs while a page is parsed and extracted (they walked live trees to find nothing,
    see gc_pause); the collector's state is restored after a run, an error, or when it was off already."""
    import gc

    passes = [0]
    running = [False]

    def count(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and running[0]:
            passes[0] += 1

    html = wide_siblings(20_000)
    gc.callbacks.append(count)
    try:
        gc.collect()  # counts start at zero: the few allocations before the pause trigger nothing
        running[0] = True
        readwell.extract(html)
        running[0] = False
        assert passes[0] == 0
        assert gc.isenabled()
        with pytest.raises(readwell.InputError):
            readwell.extract(html, disable=["no-such-stage"])
        with pytest.raises(readwell.InputError):
            readwell.extract(object())
        assert gc.isenabled()
        gc.disable()
        readwell.extract("<p>x</p>")
        assert not gc.isenabled()
    finally:
        gc.enable()
        gc.callbacks.remove(count)


def _limit_markup_full_pass(data: str | bytes) -> str | bytes:
    from readwell import parse

    quick, parse._QUICK_CHECK_MAX = parse._QUICK_CHECK_MAX, -1
    try:
        return parse.limit_markup(data)
    finally:
        parse._QUICK_CHECK_MAX = quick


def _within_limits_reference(data: str | bytes) -> bool:
    """``parse._within_limits`` as first written (a lower-cased name and a stripped attribute text per tag):
    the faster loop must answer the same both ways."""
    from readwell import parse

    is_bytes = isinstance(data, bytes)
    tags: list[Any] = (parse._TAG_B if is_bytes else parse._TAG_S).findall(data)  # type: ignore[arg-type]
    flat: Any = parse._FLAT_TAGS_B if is_bytes else parse._FLAT_TAGS
    attr_re: Any = parse._ATTR_B if is_bytes else parse._ATTR_S
    depth = 0
    for closing, name, attrs in tags:
        if (
            len(attrs) > 4 * parse.MAX_TAG_ATTRS
            and not closing
            and len(attr_re.findall(attrs)) > parse.MAX_TAG_ATTRS
        ):
            return False
        if name.lower() in flat or attrs.rstrip().endswith(b"/" if is_bytes else "/"):
            continue
        if closing:
            depth = max(0, depth - 1)
        elif depth >= parse.MAX_PARSE_DEPTH:
            return False
        else:
            depth += 1
    return True


@pytest.mark.parametrize("seed", range(4))
def test_limit_markup_quick_check_agrees_with_the_full_pass(seed: int) -> None:
    """Most pages skip limit_markup's tag-by-tag pass after a quick check (same tags, same counting); on
    pages at and past both limits, as text and as bytes, the result is the full pass's."""
    from readwell.parse import MAX_PARSE_DEPTH, MAX_TAG_ATTRS, _within_limits, limit_markup

    rng = random.Random(seed)
    many = " ".join(f"a{i}=1" for i in range(MAX_TAG_ATTRS + 1))
    pieces = "<div> </div> <p> <br/> <span/> </SPAN> <DIV> text <b> </b > <i / > <img>".split(" ")
    pieces += ["<div /\u00a0>", "<Span/>", "<Li>", "<BR>", "<hr/ >", "<DIV\t/>"]  # case, space after "/"
    pieces += [f"<a {'x' * 1100}>", f"</p {many}>"] + [f"<p {many}>"] * (seed % 2)
    pages = ["".join(rng.choice(pieces) for _ in range(rng.randint(700, 2000))) for _ in range(6)]
    pages += [
        "<div>" * MAX_PARSE_DEPTH + "x",
        "<div>" * (MAX_PARSE_DEPTH - 1) + "<Span/><div /\u00a0><Li><BR>" * 3 + "x",  # self-closing, flat
        "<div>" * (MAX_PARSE_DEPTH - 1) + "<Span>" + "x",
        "<div>" * (MAX_PARSE_DEPTH + 1) + "x" + "</div>" * 3,
        "<div>" * MAX_PARSE_DEPTH + "</div>" * 5 + "<div>" * 6,
        f"<p {many}>x</p>" + "<br>" * 1000,
        "<p " + " ".join(f"a{i}=1" for i in range(MAX_TAG_ATTRS)) + ">x" + "<br>" * 1000,
    ]
    for page in pages:
        for data in (page, page.encode()):
            full = _limit_markup_full_pass(data)
            assert limit_markup(data) == full
            assert _within_limits(data) == _within_limits_reference(data)
    changed = [p for p in pages if _limit_markup_full_pass(p) != p]
    assert len(changed) >= 3  # the limits were reached


def test_fast_parser_numbers_nodes_as_number_nodes_does() -> None:
    """The lexbor tree builder numbers nodes as it attaches them (one walk less per page); the ids must be
    ``number_nodes``' document-order ids, on every fixture and past the depth cap."""
    pytest.importorskip("selectolax")
    pages = [fx.data for fx in fixturelib.all_fixtures()]
    pages += [b"<div>" * 300 + b"<p>deep</p><b>x</b>tail" + b"</div>" * 300, b"a<!--$?-->b<p>c</p>d"]
    for data in pages:
        doc = parse_html(data, parser="fast")
        built = [(n.nid, n) for n in doc.root.iter_nodes()]
        last = dom.number_nodes(doc.root)
        assert [(n.nid, n) for _, n in built] == built and doc.next_id == last


def test_protected_in_walk_equals_is_protected_on_every_fixture(monkeypatch: pytest.MonkeyPatch) -> None:
    """The removal walks ask ``protected_in_walk`` instead of ``is_protected`` (which climbs every
    ancestor of every element): on every fixture each verdict is ``is_protected``'s, for both walks."""
    original = Context.protected_in_walk
    asked: Counter[str] = Counter()

    def checked(
        self: Context, root: Element, except_kinds: frozenset[str] = frozenset()
    ) -> Callable[..., bool]:
        check = original(self, root, except_kinds)

        def both(el: Element) -> bool:
            verdict = check(el)
            assert verdict == self.is_protected(el, except_kinds), (self.stage, el)
            asked[self.stage] += 1
            return verdict

        return both

    monkeypatch.setattr(Context, "protected_in_walk", checked)
    for fx in fixturelib.all_fixtures():
        readwell.extract(fx.data, url=fx.url, **fx.options)
    assert asked["remove_by_pattern"] > 1000 and asked["remove_by_selector"] > 1000
