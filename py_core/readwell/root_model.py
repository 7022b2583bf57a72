"""A learned second opinion on the content root: candidates, their features, and a small tree ensemble.

Why: hand rules for "how wide is the article" plateaued (issue 10): the root is often too narrow on ordinary
div pages (the lead or headline block in a sibling wrapper, an article split in sibling blocks) and now and
then the wrong block altogether. Instead of one more climbing rule, the rules' root and a few alternatives
(its ancestors, the runners-up of scoring) are described by the measures scoring already has, and a gradient
boosted tree ensemble trained on the development corpus predicts which alternative extracts better
(``readwell.bench.train`` makes ``root_model_data.py`` with one command; ``benchmarks/README.md`` has its
cross-validated figures).

Inference is pure Python: features use only integer counts, + - * / and comparisons (IEEE arithmetic, so
CPython and Pyodide agree to the bit), and the ensemble is a sum of leaf values walked in a fixed order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from .dom import Element, normalize_space
from .measure import Stat
from .rules import COMMENT_TOKENS, tokens_of
from .signals import class_weight, is_title_heading

# How far above the rules' root the ancestors are measured (body is measured too).
MAX_LEVELS_UP = 5
# Runners-up of scoring outside the rules' root that are measured (the "wrong block" case).
MAX_OTHERS = 2
# Every kind of alternative ``candidates`` can make, by the first word of ``Candidate.kind``; training
# (``readwell.bench.train``) measures them all.
ALL_KINDS: tuple[str, ...] = ("top", "up", "best", "rank", "body")
# The kinds offered to the model at run time: the rules' root without its joined siblings, and scoring's best
# element before the refinements climbed. Retrained in session 5 on the rules of then, a model offered every
# kind lost F1 on scrapinghub and dragnet-dev in cross-validation (ancestors, body and runners-up win small
# gains on many pages that no model variant picked reliably); these two kinds are non-negative on every set in
# 5-fold and leave-one-set-out validation (benchmarks/README.md, "Learned root model").
OFFERED: tuple[str, ...] = ("top", "best")
# (An alternative replaces the rules' root only when its predicted gain clears the margin stored with the
# model, ``root_model_data.MARGIN``: the model must be confident to overrule the rules.)
TAG_GROUPS: tuple[tuple[str, frozenset[str]], ...] = (
    ("article", frozenset({"article"})),
    ("main", frozenset({"main"})),
    ("section", frozenset({"section"})),
    ("div", frozenset({"div"})),
    ("table", frozenset({"td", "tr", "tbody", "table", "th"})),
    ("body", frozenset({"body"})),
    ("list", frozenset({"ul", "ol", "li", "dl", "dd"})),
    ("form", frozenset({"form"})),
)


@dataclass(frozen=True)
class Candidate:
    """A root choice as ``select_root.find_root`` returns it: ``top`` and the ids of its siblings to join
    (the root is then the parent, holding ``top`` and those siblings only)."""

    top: Element
    joined: frozenset[int]
    kind: str  # "rules", "up N", "best", "rank N", "body": where it came from (debug notes)

    def parts(self) -> list[Element]:
        if not self.joined or self.top.parent is None:
            return [self.top]
        return [self.top, *(c for c in self.top.parent.element_children if c.nid in self.joined)]

    def key(self) -> tuple[int, frozenset[int]]:
        return (self.top.nid, self.joined)


def candidates(
    body: Element,
    ranked: Sequence[Element],
    top: Element,
    joined: set[int] | frozenset[int],
    kinds: Sequence[str] | None = None,
) -> list[Candidate]:
    """The rules' root first, then the alternatives of ``kinds`` (default ``OFFERED``; see ``ALL_KINDS``)
    in a fixed order: the root without its joined siblings, its ancestors, scoring's best element, runners-up
    elsewhere, body."""
    want = frozenset(OFFERED if kinds is None else kinds)
    out: list[Candidate] = [Candidate(top, frozenset(joined), "rules")]
    if joined and "top" in want:
        out.append(Candidate(top, frozenset(), "top alone"))
    level = 0
    for anc in top.ancestors() if "up" in want else ():
        if anc is body or anc.tag in ("html", "#document"):
            break
        level += 1
        if level > MAX_LEVELS_UP:
            break
        out.append(Candidate(anc, frozenset(), f"up {level}"))
    if ranked:
        best = ranked[0]
        if best is not top and "best" in want:
            out.append(Candidate(best, frozenset(), "best"))
        chain = {top.nid, *(a.nid for a in top.ancestors())}
        n = 0
        for i, el in enumerate(ranked[1:12] if "rank" in want else (), 2):
            if el.nid in chain or top in set(el.ancestors()):
                continue
            out.append(Candidate(el, frozenset(), f"rank {i}"))
            n += 1
            if n >= MAX_OTHERS:
                break
    if "body" in want:
        out.append(Candidate(body, frozenset(), "body"))
    # one candidate per root; a root that two kinds reach is named by both ("best = up 2"): training, which
    # measures every kind, can then tell which candidates a smaller set of kinds offers (``offered``)
    at: dict[tuple[int, frozenset[int]], int] = {}
    unique: list[Candidate] = []
    for c in out:
        j = at.get(c.key())
        if j is None:
            at[c.key()] = len(unique)
            unique.append(c)
        else:
            unique[j] = Candidate(c.top, c.joined, f"{unique[j].kind} = {c.kind}")
    return unique


def offered(kind: str, kinds: Sequence[str]) -> bool:
    """Whether a candidate named ``kind`` by ``candidates`` is among those ``kinds`` make."""
    return any(k.split()[0] in kinds for k in kind.split(" = "))


@dataclass
class PageFacts:
    """What every candidate's features are measured against (computed once per page)."""

    body: Element
    stats: dict[int, Stat]
    scores: dict[int, float]
    prose: dict[int, float]
    ranked_pos: dict[int, int]
    best: Element | None
    title_headings: list[Element]  # h1-h3 whose text is (in) the page title
    markers: list[Element]  # itemprop=articleBody / Article microdata / <article> / <main>
    commentish: list[Element]  # elements named as comments
    # id(element) → ids of it and its ancestors, for the elements above (``_chain``): every candidate asks
    # whether the same few elements are inside it
    chains: dict[int, frozenset[int]] = field(default_factory=dict)


def page_facts(
    body: Element,
    stats: dict[int, Stat],
    scores: dict[int, float],
    prose: dict[int, float],
    ranked: Sequence[Element],
    title: str | None,
    elements: list[Element] | None = None,
    title_heads: list[Element] | None = None,
) -> PageFacts:
    """The facts of the page below ``body``; ``elements`` is ``list(body.iter())`` when the caller has it,
    ``title_heads`` the title headings among them (``is_title_heading`` of ``title``, space-normalized and
    lower case) when the caller has those (select_root's ``Scoring.title_headings``)."""
    t = normalize_space(title or "").lower()
    heads: list[Element] = [] if title_heads is None else list(title_heads)
    find_heads = bool(t) and title_heads is None
    markers: list[Element] = []
    commentish: list[Element] = []
    for e in body.iter() if elements is None else elements:
        tag = e.tag
        if find_heads and is_title_heading(e, t):
            heads.append(e)
        attrs = e.attrs
        if not attrs:  # most elements: only the tag can make them a marker
            if tag in ("article", "main"):
                markers.append(e)
            continue
        itemtype = attrs.get("itemtype", "")
        if (
            tag in ("article", "main")
            or attrs.get("itemprop") == "articleBody"
            or "Article" in itemtype
            or "BlogPosting" in itemtype
        ):
            markers.append(e)
        cls = attrs.get("class", "")
        ident = attrs.get("id", "")
        if (cls or ident) and tokens_of(cls + " " + ident) & COMMENT_TOKENS:
            commentish.append(e)
    return PageFacts(
        body,
        stats,
        scores,
        prose,
        {e.nid: i for i, e in enumerate(ranked)},
        ranked[0] if ranked else None,
        heads,
        markers,
        commentish,
    )


FEATURES: tuple[str, ...] = (
    "units_share",
    "prose_share",
    "link_density",
    "paragraphs",
    "paragraph_share",
    "marks_per_100",
    "score_rel",
    "rank",
    "levels_up",
    "is_rules",
    "is_body",
    "related",
    "holds_best",
    *(f"tag_{name}" for name, _ in TAG_GROUPS),
    "class_weight",
    "headings",
    "title_heading",
    "rules_title_heading",
    "markers",
    "rules_markers",
    "comment_named",
    "comment_inside",
    "units_ratio",
    "extra_units_share",
    "extra_prose_rate",
    "extra_link_density",
    "extra_paragraphs",
    "extra_headings",
    "rules_units_share",
    "rules_prose_share",
    "rules_link_density",
    "children",
    "joined",
    "prose_ratio",
    "removed_share",
    "removed_prose_rate",
    "removed_link_density",
    "removed_units_per_paragraph",
    "units_per_paragraph",
    "rules_units_per_paragraph",
    "levels_down",
    "twins",
    "twin_share",
)


def _chain(f: PageFacts, node: Element) -> frozenset[int]:
    """Ids of ``node`` and its ancestors, remembered for the page: ``node`` is inside a candidate made of
    ``parts`` when this meets ``{id(p) for p in parts}`` (one set test per candidate, no walk up)."""
    found = f.chains.get(id(node))
    if found is None:
        found = f.chains[id(node)] = frozenset([id(node), *map(id, node.ancestors())])
    return found


def _levels_above(top: Element, other: Element) -> int:
    """How many levels ``top`` is above ``other`` (0 = the same), or -1 when it does not contain it."""
    n = 0
    cur: Element | None = other
    while cur is not None:
        if cur is top:
            return n
        cur = cur.parent
        n += 1
    return -1


def _sum(parts: list[Element], stats: dict[int, Stat]) -> tuple[float, float, float, float, float, float]:
    units = links = marks = paragraphs = headings = 0.0
    for p in parts:
        st = stats.get(p.nid)
        if st is None:
            continue
        units += st.units
        links += st.link_units
        marks += st.marks
        paragraphs += st.paragraphs
        headings += st.headings
    return units, links, marks, paragraphs, headings, float(len(parts))


def features(c: Candidate, rules: Candidate, f: PageFacts) -> list[float]:
    """The feature vector of ``c`` (order: ``FEATURES``), measured against the page and the rules' root."""
    parts = c.parts()
    rparts = rules.parts()
    ids = {id(p) for p in parts}
    rids = {id(p) for p in rparts}
    units, links, marks, paragraphs, headings, _ = _sum(parts, f.stats)
    r_units, r_links, _, r_paragraphs, r_headings, _ = _sum(rparts, f.stats)
    b = f.stats[f.body.nid]
    body_units = float(b.units) or 1.0
    body_paragraphs = float(b.paragraphs) or 1.0
    body_prose = f.prose.get(f.body.nid, 0.0) or 1.0
    prose = sum(f.prose.get(p.nid, 0.0) for p in parts)
    r_prose = sum(f.prose.get(p.nid, 0.0) for p in rparts)
    top = c.top
    best_score = f.scores.get(f.best.nid, 0.0) if f.best is not None else 0.0
    score = f.scores.get(top.nid)
    extra = units - r_units
    tag_flags = [1.0 if top.tag in tags else 0.0 for _, tags in TAG_GROUPS]
    up = _levels_above(top, rules.top)
    related = 1.0 if up >= 0 else (-1.0 if _levels_above(rules.top, top) >= 0 else 0.0)
    return [
        units / body_units,
        prose / body_prose,
        links / units if units else 0.0,
        paragraphs,
        paragraphs / body_paragraphs,
        100 * marks / units if units else 0.0,
        score / best_score if score is not None and best_score > 0 else -1.0,
        float(min(f.ranked_pos.get(top.nid, 50), 50)),
        float(up),
        1.0 if c.key() == rules.key() else 0.0,
        1.0 if top is f.body else 0.0,
        related,
        1.0 if f.best is not None and not _chain(f, f.best).isdisjoint(ids) else 0.0,
        *tag_flags,
        float(class_weight(top)),
        headings,
        float(sum(1 for h in f.title_headings if not _chain(f, h).isdisjoint(ids))),
        float(sum(1 for h in f.title_headings if not _chain(f, h).isdisjoint(rids))),
        float(sum(1 for m in f.markers if not _chain(f, m).isdisjoint(ids))),
        float(sum(1 for m in f.markers if not _chain(f, m).isdisjoint(rids))),
        1.0 if tokens_of(top.get("class") + " " + top.get("id")) & COMMENT_TOKENS else 0.0,
        float(sum(1 for m in f.commentish if not _chain(f, m).isdisjoint(ids))),
        units / r_units if r_units else 0.0,
        extra / body_units,
        (prose - r_prose) / extra if extra > 0 else 0.0,
        (links - r_links) / extra if extra > 0 else 0.0,
        paragraphs - r_paragraphs,
        headings - r_headings,
        r_units / body_units,
        r_prose / body_prose,
        r_links / r_units if r_units else 0.0,
        float(len(top.element_children)),
        float(len(c.joined)),
        prose / r_prose if r_prose else 0.0,
        -extra / body_units if extra < 0 else 0.0,
        (r_prose - prose) / -extra if extra < 0 else 0.0,
        (r_links - links) / -extra if extra < 0 else 0.0,
        -extra / (r_paragraphs - paragraphs) if extra < 0 and r_paragraphs > paragraphs else 0.0,
        units / paragraphs if paragraphs else 0.0,
        r_units / r_paragraphs if r_paragraphs else 0.0,
        float(_levels_above(rules.top, top)),
        *_twins(top, rules.top, f.stats, units),
    ]


def _twins(el: Element, stop: Element, stats: dict[int, Stat], units: float) -> tuple[float, float]:
    """For a candidate inside the rules' root: how many blocks beside it, or beside an ancestor of it below
    that root, repeat its tag and class (an article split in like blocks, a listicle's items), and their
    text as a share of the candidate's. A narrower root that drops its twins drops part of the article."""
    if _levels_above(stop, el) <= 0:
        return 0.0, 0.0
    n = 0
    twin_units = 0
    cur = el
    while cur is not stop and cur.parent is not None:
        sig = (cur.tag, cur.get("class"))
        for sib in cur.parent.element_children:
            if sib is not cur and (sib.tag, sib.get("class")) == sig:
                st = stats.get(sib.nid)
                if st is not None and st.units > 0:
                    n += 1
                    twin_units += st.units
        cur = cur.parent
    return float(n), twin_units / units if units else 0.0


# The features that read class/id names (the lists of ``signals.class_weight`` and ``rules.COMMENT_TOKENS``).
# Templates we never saw name their blocks with words those lists do not know (the held-out sets), so the
# model overrules the rules only when it makes the same choice with these read as 0, the value of an element
# with no known name: a choice that rests on names is not trusted (issue 10; benchmarks/README.md, session 13,
# "The learned root model's choices do not rest on names").
NAME_FEATURES: tuple[str, ...] = ("class_weight", "comment_named", "comment_inside")
_NAME_INDEX = frozenset(FEATURES.index(n) for n in NAME_FEATURES)

# --- the ensemble ------------------------------------------------------------------------------------------
# A tree is (feature index per node, threshold per node, left child, right child, leaf value per node); a leaf
# has feature index -1. Prediction = base + sum over trees of the leaf reached (x[f] <= threshold goes left).
Tree = tuple[tuple[int, ...], tuple[float, ...], tuple[int, ...], tuple[int, ...], tuple[float, ...]]


def predict(trees: Sequence[Tree], base: float, x: Sequence[float]) -> float:
    total = base
    for feat, thr, left, right, value in trees:
        node = 0
        while feat[node] >= 0:
            node = left[node] if x[feat[node]] <= thr[node] else right[node]
        total += value[node]
    return total


def choose(
    cands: list[Candidate], facts: PageFacts, trees: Sequence[Tree], base: float, margin: float
) -> tuple[int, list[float]]:
    """Index of the chosen candidate (0, the rules' root, unless another is predicted better by more than
    ``margin``, with the name features as they are and read as 0 alike) and every candidate's predicted gain
    over the rules' root."""
    rules = cands[0]
    xs = [features(c, rules, facts) for c in cands]
    preds = [predict(trees, base, x) for x in xs]
    return decide(preds, lambda: [predict(trees, base, without_names(x)) for x in xs], margin), preds


def without_names(x: Sequence[float]) -> list[float]:
    """Feature vector ``x`` with the name features (``NAME_FEATURES``) read as 0: no known name."""
    return [0.0 if j in _NAME_INDEX else v for j, v in enumerate(x)]


def decide(preds: Sequence[float], blind: Callable[[], Sequence[float]], margin: float) -> int:
    """The candidate ``choose`` takes from the predicted gains ``preds`` and, asked only when some
    candidate clears the margin, ``blind()``, the gains predicted without names (``without_names``): the best
    must clear ``margin`` over the rules' root (0) and be the same choice without names, or the rules' root
    stays (a choice that rests on names is not trusted). ``readwell.bench.train`` validates with this rule."""
    if len(preds) < 2:
        return 0
    best = max(range(len(preds)), key=lambda i: (preds[i], -i))
    if preds[best] - preds[0] <= margin:
        return 0
    b = blind()
    if max(range(len(b)), key=lambda i: (b[i], -i)) != best or b[best] - b[0] <= margin:
        return 0
    return best
