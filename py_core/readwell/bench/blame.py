"""Loss accounting: which stage and rule cost which gold text, and which boilerplate is still kept.

Per page the pipeline is replayed with an ``after_stage`` hook (the one ``why-missing`` uses), so no stage
needs to know about it. After each stage the text nodes still attached are compared with those attached
before it; each text node that disappeared is charged to the log entry of that stage whose node is on the
text node's ancestor chain at removal time (detached subtrees keep their parent links, so the chain ends at
the removed node), or to ``<stage>:unlogged``. Text left outside the chosen root is charged to
``select_root``; sanitizing is the last stage (run when ``extract`` runs it: the root has enough text); what
is left inside the root of a page declared article-less is charged to ``extract:no-article``.

The page's text nodes, in document order, give a token stream in which every token has a fate: kept or the
label that removed it. The scorer's own multisets then decide what counts: lost gold = gold shingles minus
output shingles (the scorer's fn), kept boilerplate = output minus gold (its fp). A lost gold shingle is
charged to the most common removal label among the four tokens of one of its occurrences in the page. A
shingle found nowhere in the page text is ``unmatched`` (the gold has words the parsed page does not have as
such: scripted content, words split or joined differently, alt text), or
``unmatched:gold-joins-separate-text`` when every one of its words is on the page (it spans two passages the
page keeps apart). One whose every kept occurrence is in the output already is
``unmatched:gold-repeats-page-text`` (the gold has it more often than the page). What is left was kept in the
tree and is missing from the text: ``render:caption-left-out-of-text`` when one of its kept occurrences
touches a ``<figcaption>`` (plain text leaves captions out by design), else
``render:kept-text-not-in-output``. Removed boilerplate = removed page shingles that are not in the gold.
Units are shingles, i.e. about one per word.

The replay renders the text and decides "no article" as ``extract_document`` does, including its second run
with scoring's best element on a declined page; ``--verify`` also runs the real ``extract`` and counts pages
where the texts differ.
"""

from __future__ import annotations

import bisect
import json
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..context import ROOT_RULES, Context, Options
from ..dom import NON_TEXT, Document, Element, Node, Text
from ..extract import (
    RETRY_CHOICES,
    _has_article,
    _may_retry,
    extract_document,
    min_article_units,
    run_pipeline,
)
from ..parse import parse_html
from ..render_markdown import to_text
from ..sanitize import sanitize_tree
from ..textstats import text_units
from ..thresholds import RETRY_MIN_CHARS_FACTOR
from .run import map_pages
from .scoring import WORD, shingles
from .sets import REAL_ARTICLE_WORDS, Page, load_truth, read_page

KEPT = "kept"
NO_ROOT = "select_root:no-root"
OUTSIDE = "select_root:outside-root-unlogged"
NO_ARTICLE = "extract:no-article"
UNMATCHED = "unmatched"  # gold shingle found nowhere in the page's text: a word the page's text never has
# ... though each of its words is in the page: the gold joins two passages the page keeps apart (headline and
# first paragraph without the byline between, a paragraph end and the next one across a caption or an ad);
# the output has the same junction only when it keeps and drops just what the gold did between them.
JUNCTION = "unmatched:gold-joins-separate-text"
TEXT_CHANGED = "render:kept-text-not-in-output"  # its page text was kept, the shingle is not in the output
# ... because a kept occurrence touches a figure caption: plain text leaves captions to Markdown and HTML by
# design (render_markdown.PlainText; the sets disagree on captions, see benchmarks/README.md)
CAPTION = "render:caption-left-out-of-text"
# The gold holds a passage more often than the page keeps it (a gold that repeats the article, or a page
# quote it copied twice): every kept occurrence is in the output already, no extraction can win the rest.
GOLD_REPEATS = "unmatched:gold-repeats-page-text"

# Elements that do not break words: text on both sides of their edges runs together, as in the output.
INLINE = frozenset(
    "a abbr b bdi bdo big cite code data del dfn em font i ins kbd mark nobr q s samp small span strike "
    "strong sub sup time tt u var".split()
)
# The container label of kept boilerplate: innermost of these (any <a> ancestor wins: link text).
CONTAINERS = frozenset(
    "li h1 h2 h3 h4 h5 h6 p td th figcaption blockquote pre dd dt caption label button option nav header "
    "footer aside".split()
)


_DETAIL = re.compile(r"\s*\([^)]*\)")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def rule_label(stage: str, rule: str, reason: str) -> str:
    """``stage:rule``, plus the reason's wording for rules whose one name covers several tests (the low-score
    rule says which: link density, image grid, form-like block ...); numbers and paths are dropped."""
    if stage != "remove_low_score":
        return f"{stage}:{rule}"
    why = _NUMBER.sub("#", _DETAIL.sub("", reason)).strip()
    return f"{stage}:{rule} / {why}"


def _text_nodes(scope: Element) -> Iterator[Text]:
    for n in scope.iter_nodes():
        if isinstance(n, Text):
            yield n


@dataclass
class Stream:
    """The page's body text as tokens, each with the text node it starts in and that node's container."""

    tokens: list[str]
    nids: list[int]
    containers: dict[int, str]


def page_stream(body: Element) -> Stream:
    parts: list[str] = []
    starts: list[int] = []
    seg_nids: list[int] = []
    containers: dict[int, str] = {}
    pos = 0
    labels: list[str] = []
    links = 0
    stack: list[tuple[Node, bool]] = [(body, False)]
    while stack:
        node, leaving = stack.pop()
        if isinstance(node, Text):
            starts.append(pos)
            seg_nids.append(node.nid)
            parts.append(node.data)
            pos += len(node.data)
            containers[node.nid] = "a" if links else (labels[-1] if labels else "other")
            continue
        assert isinstance(node, Element)
        breaks = node.tag not in INLINE
        if leaving:
            if node.tag == "a":
                links -= 1
            elif node.tag in CONTAINERS:
                labels.pop()
        else:
            if node.tag in NON_TEXT and node is not body:
                continue
            if node.tag == "a":
                links += 1
            elif node.tag in CONTAINERS:
                labels.append(node.tag)
            stack.append((node, True))
            stack.extend((c, False) for c in reversed(node.children))
        if breaks:
            parts.append(" ")
            pos += 1
    buf = "".join(parts)
    tokens: list[str] = []
    nids: list[int] = []
    for m in WORD.finditer(buf):
        i = bisect.bisect_right(starts, m.start()) - 1
        tokens.append(m.group())
        nids.append(seg_nids[i] if i >= 0 else -1)
    return Stream(tokens, nids, containers)


class Tracker:
    """Charges every text node that leaves the working tree to the stage and rule that removed it."""

    def __init__(self, origin_body: Element) -> None:
        # Before the first stage the working tree is a copy of the origin: same ids, same ancestor chains.
        self.prev: dict[int, Node] = {t.nid: t for t in _text_nodes(origin_body)}
        self.fate: dict[int, str] = {}
        self.mark = 0
        self.scope_root: Element | None = None
        self.finished = False  # no root: nothing is left to track

    def after(self, ctx: Context, stage: str) -> None:
        if self.finished:
            return
        scope = self.scope_root if self.scope_root is not None else ctx.doc.body
        cur: dict[int, Node] = {t.nid: t for t in _text_nodes(scope)}
        self.settle(ctx, stage, cur)
        if stage == "select_root":
            if ctx.root is None:
                for nid in cur:
                    self.fate[nid] = NO_ROOT
                cur = {}
                self.finished = True
            else:
                inside: dict[int, Node] = {t.nid: t for t in _text_nodes(ctx.root)}
                for nid in cur.keys() - inside.keys():
                    self.fate[nid] = OUTSIDE
                cur = inside
                self.scope_root = ctx.root
        self.prev = cur

    def settle(self, ctx: Context, stage: str, cur: dict[int, Node]) -> None:
        entries = {e.node_id: e for e in ctx.log[self.mark :] if e.action != "unwrap"}
        self.mark = len(ctx.log)
        for nid in self.prev.keys() - cur.keys():
            n: Node | None = self.prev[nid]
            label = f"{stage}:unlogged"
            while n is not None:
                e = entries.get(n.nid)
                if e is not None:
                    label = rule_label(e.stage, e.rule, e.reason)
                    break
                n = n.parent
            self.fate[nid] = label

    def end(self, label: str) -> None:
        """Everything still tracked leaves with ``label`` (the page was declared article-less)."""
        for nid in self.prev:
            self.fate[nid] = label
        self.prev = {}


@dataclass
class PageBlame:
    id: str
    gold: int  # gold shingles
    lost: int  # the scorer's fn, in shingles
    kept_boiler: int  # the scorer's fp, in shingles
    found: bool
    gold_words: int
    replay_ok: bool
    gold_lost: dict[str, int] = field(default_factory=dict)
    boiler_removed: dict[str, int] = field(default_factory=dict)
    kept_by_container: dict[str, int] = field(default_factory=dict)


def _caption_nids(root: Element | None) -> set[int]:
    """Ids of the text nodes inside a ``<figcaption>`` of the final tree (left out of plain text)."""
    if root is None:
        return set()
    return {t.nid for cap in root.iter() if cap.tag == "figcaption" for t in _text_nodes(cap)}


def _replay(doc: Document, opts: Options, root_choice: str) -> tuple[Tracker, Context, str]:
    """One pipeline run tracked stage by stage, with the article decision and text as ``extract`` makes them
    (``extract._article_of``): the tracker, the run's context and the text ("" for no article)."""
    tracker = Tracker(doc.body)
    ctx = run_pipeline(doc, opts, after_stage=tracker.after, root_choice=root_choice)
    text = ""
    if ctx.root is not None and tracker.scope_root is not None:
        least = min_article_units(ctx, ctx.root)
        if _has_article(ctx.root, opts, least):
            sanitize_tree(ctx, ctx.root)
            tracker.after(ctx, "sanitize")
            text = to_text(ctx.root)
            if text_units(text) < least:
                text = ""
        if not text:
            tracker.end(NO_ARTICLE)
    return tracker, ctx, text


def blame_page(page: Page, gold: str, verify: bool = False) -> PageBlame:
    """Replay one page and account for its lost gold and its removed and kept boilerplate.

    The replay decides "article found" and renders the text as ``extract_document`` does; ``verify`` also
    runs the real ``extract`` and records whether the texts agree (tests check it on every fixture).
    """
    doc = parse_html(read_page(page.path))
    opts = Options(url=page.url)
    stream = page_stream(doc.body)
    tracker, ctx, text = _replay(doc, opts, ROOT_RULES)
    first = ctx
    for choice in RETRY_CHOICES:  # extract's retries of a declined page, in its order
        if text or not _may_retry(first, opts, choice):
            continue
        retry, retry_ctx, again = _replay(doc, opts, choice)
        if text_units(again) >= RETRY_MIN_CHARS_FACTOR * opts.min_article_chars:
            tracker, ctx, text = retry, retry_ctx, again
    captions = _caption_nids(ctx.root) if text else set()
    replay_ok = extract_document(doc, opts).text == text if verify else True
    kept = set(tracker.prev)
    fates = [KEPT if n in kept else tracker.fate.get(n, "untracked") for n in stream.nids]

    g, o = shingles(gold), shingles(text)
    lost, fp = g - o, o - g
    fp_left = Counter(fp)
    occ: dict[tuple[str, ...], list[str]] = defaultdict(list)
    page_shingles: set[tuple[str, ...]] = set()
    removed: Counter[str] = Counter()
    kept_by: Counter[str] = Counter()
    kept_occ: Counter[tuple[str, ...]] = Counter()  # occurrences whose four tokens were all kept
    in_caption: set[tuple[str, ...]] = set()  # lost shingles with a kept occurrence touching a caption
    toks = stream.tokens
    page_words = set(toks)
    for i in range(len(toks) - 3):
        s = tuple(toks[i : i + 4])
        page_shingles.add(s)
        gone = [f for f in fates[i : i + 4] if f != KEPT]
        if gone:
            label = Counter(gone).most_common(1)[0][0]
            if s in lost:
                occ[s].append(label)
            elif s not in g:
                removed[label] += 1
            continue
        kept_occ[s] += 1
        if s in lost and captions and any(n in captions for n in stream.nids[i : i + 4]):
            in_caption.add(s)
        if fp_left[s] > 0:
            fp_left[s] -= 1
            kept_by[stream.containers.get(stream.nids[i], "other")] += 1
    gold_lost: Counter[str] = Counter()
    for s, c in lost.items():
        labels = occ.get(s, [])[:c]
        gold_lost.update(labels)
        if c > len(labels):
            if s not in page_shingles:
                rest = JUNCTION if page_words.issuperset(s) else UNMATCHED
            else:
                rest = GOLD_REPEATS if o[s] >= kept_occ[s] else CAPTION if s in in_caption else TEXT_CHANGED
            gold_lost[rest] += c - len(labels)
    unplaced = sum(fp_left.values())  # output text not from the page's text nodes (alt text, new nodes)
    if unplaced:
        kept_by["(not from page text)"] += unplaced
    return PageBlame(
        page.id,
        gold=sum(g.values()),
        lost=sum(lost.values()),
        kept_boiler=sum(fp.values()),
        found=bool(text),
        gold_words=len(gold.split()),
        replay_ok=replay_ok,
        gold_lost=dict(gold_lost),
        boiler_removed=dict(removed),
        kept_by_container=dict(kept_by),
    )


def _blame_job(job: tuple[Page, str, bool]) -> PageBlame:
    page, gold, verify = job
    try:
        return blame_page(page, gold, verify)
    except Exception as exc:  # one bad page must not end a corpus run
        print(f"  {page.id}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return PageBlame(page.id, 0, 0, 0, False, len(gold.split()), False)


@dataclass
class Row:
    label: str
    gold: int = 0
    boiler: int = 0
    pages_gold: int = 0
    pages: int = 0
    worst: list[tuple[int, str]] = field(default_factory=list)
    by_set: dict[str, list[int]] = field(default_factory=dict)  # set -> [gold lost, boilerplate removed]


def table(results: dict[str, list[PageBlame]]) -> list[Row]:
    """Rule rows over all pages of all sets, most gold lost first."""
    rows: dict[str, Row] = {}
    for name, pages in results.items():
        for p in pages:
            for label in set(p.gold_lost) | set(p.boiler_removed):
                r = rows.setdefault(label, Row(label))
                gl = p.gold_lost.get(label, 0)
                bl = p.boiler_removed.get(label, 0)
                r.gold += gl
                r.boiler += bl
                per = r.by_set.setdefault(name, [0, 0])
                per[0] += gl
                per[1] += bl
                r.pages += 1
                if gl:
                    r.pages_gold += 1
                    r.worst.append((gl, f"{name}/{p.id}"))
    for r in rows.values():
        r.worst = sorted(r.worst, key=lambda x: (-x[0], x[1]))[:3]
    return sorted(rows.values(), key=lambda r: (-r.gold, -r.boiler, r.label))


def print_report(results: dict[str, list[PageBlame]], top: int, verified: bool = True) -> None:
    allp = [p for ps in results.values() for p in ps]
    gold = sum(p.gold for p in allp)
    lost = sum(p.lost for p in allp)
    kept = sum(p.kept_boiler for p in allp)
    bad = sum(1 for p in allp if not p.replay_ok)
    print(
        f"== blame: {len(allp)} pages in {len(results)} set(s); "
        "units are 4-word shingles (about one per word)\n"
        f"gold {gold}, lost {lost} ({100 * lost / max(gold, 1):.1f}%), kept boilerplate {kept}; "
        f"replay differs from extract on {bad} pages" + ("" if verified else " (not checked: --verify)")
    )
    print(
        f"{'set':<18} {'pages':>5} {'gold':>8} {'lost':>7} {'lost%':>6} {'kept-bp':>7}  "
        "no article (gold>=50w)"
    )
    for name, ps in results.items():
        g = sum(p.gold for p in ps)
        lo = sum(p.lost for p in ps)
        nf = [p for p in ps if not p.found]
        nfr = sum(1 for p in nf if p.gold_words >= REAL_ARTICLE_WORDS)
        kb = sum(p.kept_boiler for p in ps)
        print(
            f"{name:<18} {len(ps):>5} {g:>8} {lo:>7} {100 * lo / max(g, 1):>5.1f}% {kb:>7}  {len(nf)} ({nfr})"
        )
    print()
    print("lost gold and removed boilerplate by stage:rule ('!' = removes more gold than boilerplate)")
    print(f"   {'stage:rule':<64} {'gold':>7} {'boiler':>8} {'pages':>11}  worst pages (gold lost)")
    for r in table(results)[:top]:
        flag = "!" if r.gold > r.boiler else " "
        worst = ", ".join(f"{pid[:34]} {n}" for n, pid in r.worst)
        pages = f"{r.pages_gold}/{r.pages}"
        print(f" {flag} {r.label[:64]:<64} {r.gold:>7} {r.boiler:>8} {pages:>11}  {worst}")
        if flag == "!" and r.boiler and len(r.by_set) > 1:
            # a rule the sets judge differently (a convention their golds disagree on) shows it here
            split = ", ".join(f"{n} {g}/{b}" for n, (g, b) in r.by_set.items())
            print(f"     per set (gold/boiler): {split}")
    print("   (pages = pages where it lost gold / pages where it removed anything)")
    print()
    by: Counter[str] = Counter()
    for p in allp:
        by.update(p.kept_by_container)
    print(f"kept boilerplate {kept} by innermost container ('a' = link text):")
    print("   " + ", ".join(f"{k} {v}" for k, v in by.most_common(12)))
    most = sorted(((p.kept_boiler, f"{n}/{p.id}") for n, ps in results.items() for p in ps), reverse=True)
    print("   most kept boilerplate: " + ", ".join(f"{pid[:34]} {k}" for k, pid in most[:8]))


def to_json(results: dict[str, list[PageBlame]]) -> dict[str, Any]:
    rows = table(results)
    return {
        "units": "4-word shingles of the score.py metric",
        "rules": [
            {
                "rule": r.label,
                "gold_lost": r.gold,
                "boilerplate_removed": r.boiler,
                "pages_gold": r.pages_gold,
                "pages": r.pages,
                "worst": [{"page": pid, "gold_lost": n} for n, pid in r.worst],
                "by_set": {n: {"gold_lost": g, "boilerplate_removed": b} for n, (g, b) in r.by_set.items()},
            }
            for r in rows
        ],
        "sets": {name: [p.__dict__ for p in ps] for name, ps in results.items()},
    }


def run_blame(
    targets: list[tuple[str, Path]],
    jobs: int,
    only: list[str] | None,
    top: int,
    out: Path | None,
    verify: bool = False,
) -> int:
    results: dict[str, list[PageBlame]] = {}
    for name, d in targets:
        truth, pages = load_truth(d)
        if only:
            pages = [p for p in pages if any(p.id.startswith(o) for o in only)]
        results[name] = map_pages(_blame_job, [(p, truth[p.id], verify) for p in pages], jobs)
    print_report(results, top, verify)
    if out is not None:
        out.write_text(json.dumps(to_json(results), ensure_ascii=False, indent=1), encoding="utf-8")
    return 0
