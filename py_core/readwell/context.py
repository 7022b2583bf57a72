"""The run context and the one function every removal goes through.

Why one function: "why is this sentence missing?" must always have an answer. ``Context.remove``,
``Context.unwrap`` and ``Context.replace`` are the only ways stages change the tree's membership, and each
records stage, action, rule kind, rule, reason, a text sample, the node id and a CSS path.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from . import deadline, dom
from .dom import Document, Element, Node, Text
from .measure import Stat, measure, remeasure
from .metadata import Metadata, RootFacts
from .options import Options
from .thresholds import DATA_TABLE_MIN_ROWS, DATA_TABLE_WORDED_CELLS

# Rule kinds used in log entries.
EXACT = "exact-selector"
PARTIAL = "partial-pattern"
SCORE = "score"
SELECTOR = "selector"  # outside the element the user chose with the ``selector`` option
HIDDEN = "hidden"
TINY = "tiny-media"
TEXT = "text-pattern"
STRUCTURE = "structure"
ALLOWLIST = "allow-list"

PROTECTED_TAGS = frozenset({"pre", "code", "math", "kbd", "samp"})

# How select_root picks the root (``Context.root_choice``): the rules (and the learned model), or, for the
# retries of a page the first run declined (``extract._may_retry``), scoring's best element as it is, then
# the runner-up holding an article's prose (``select_root.prose_runner_up``).
ROOT_RULES = "rules"
ROOT_BEST = "best"
ROOT_PROSE = "prose"
BEST_SCORE_NOTE = "best-score"  # the note select_root leaves on scoring's best element


@dataclass
class LogEntry:
    """One change to the working tree. ``text`` (the first 80 characters of what was taken) and ``path``
    (its CSS path in the input) are filled only when the run has ``debug`` on (``Context._entry``)."""

    stage: str
    action: str  # remove | unwrap | replace
    kind: str
    rule: str
    reason: str
    text: str
    node_id: int
    path: str
    tag: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "stage": self.stage,
            "action": self.action,
            "kind": self.kind,
            "rule": self.rule,
            "reason": self.reason,
            "text": self.text,
            "node_id": self.node_id,
            "path": self.path,
            "tag": self.tag,
        }


@dataclass
class Note:
    """A decision that removed nothing (a refinement of the root candidate), kept for diagnostics."""

    stage: str
    step: str
    node_id: int
    path: str
    detail: str


@dataclass
class PageMeta:
    """Facts about the page that stages share, as typed fields (a stage reads a field, not a dict key)."""

    title: str | None = None  # the page title from <head> (normalize_output drops a heading repeating it)
    byline: str | None = None  # the byline from <head> (remove_by_pattern drops a body line repeating it)
    head: Metadata = field(default_factory=Metadata)  # all <head> metadata (metadata.head_metadata)
    base_url: str | None = None  # the URL relative links resolve against (set by resolve_urls)


@dataclass
class Context:
    """State of one extraction run; stages read and change it only through its methods.

    Internal marks live here, keyed by node id, never in the DOM: an attribute could be forged by the page
    (``data-readwell-*`` is also dropped from input by every parser, see ``dom.drop_internal_attrs``).
    """

    doc: Document
    options: Options
    stage: str = ""
    root: Element | None = None
    root_path: str = ""
    log: list[LogEntry] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)  # decisions that removed nothing (see ``note``)
    timings: dict[str, float] = field(default_factory=dict)
    meta: PageMeta = field(default_factory=PageMeta)
    protected: dict[int, str] = field(default_factory=dict)  # node id → kind (code, math, figure, ...)
    table_kinds: dict[int, str] = field(default_factory=dict)  # node id → "data" | "layout", once judged
    # ids of the best-scoring candidate and its ancestors: where scoring found the article's paragraphs. A
    # removal stage never takes one of them by shape or by name (the root may be wider than this core).
    core: frozenset[int] = frozenset()
    root_choice: str = ROOT_RULES  # ROOT_RULES, ROOT_BEST or ROOT_PROSE (see there)
    # id of a lead player block select_root joined to the article: its text is the post's lead (the video's
    # description), so normalize_structures does not make it a photo caption (which plain text leaves out)
    lead: frozenset[int] = frozenset()
    # (candidate, wrapper) when select_root's sections climb took the root from the candidate up to a
    # wrapper holding more of the page's prose, and the root is that wrapper (or holds it): remove_low_score
    # trims the service boxes that follow the candidate inside the wrapper (``trim_after_climb``)
    sections_climb: tuple[Element, Element] | None = None
    origin: Document | None = None  # the untouched input: log paths point into it
    # A run without the copy (``extract.run_pipeline`` given ``reread``): ``doc`` is the input itself, and
    # ``origin`` stays None unless a rare reader needs the input after the tree changed (``input_doc``).
    in_place: bool = False
    reread: Callable[[], Document] | None = None  # the input decoded anew (the same page, the same ids)
    page: Stat | None = None  # the input's ``measure(body)`` of the body (``input_page``)
    facts: RootFacts | None = None  # what the result reads of the input around the root (``facts_for``)
    # In-place runs until select_root takes the facts (``take_facts``): the child lists, as the input had
    # them, of the elements whose children the stages before it changed (``keep_children``).
    _kept: dict[int, tuple[Element, list[Node]]] | None = None
    _input_ids: int = 0  # in-place runs: the input's last node id (``doc.next_id`` before the stages)
    # ``list(doc.root.iter())`` as copied (``Document.copy``), kept only while nothing has changed the tree:
    # the first stages find what they work on in it instead of walking the page (see ``pipeline.run_stages``)
    copy_order: list[Element] | None = None
    _origin_paths: dict[int, Element] | None = None
    _path_cache: dict[int, dict[int, tuple[int, int]]] = field(
        default_factory=dict
    )  # the origin never changes
    _origin_css_paths: dict[int, str] = field(default_factory=dict)  # id(element) → its path, ditto
    _pending_unwraps: list[Element] = field(default_factory=list)  # logged, spliced by ``flush_unwraps``
    _pending_ids: set[int] = field(default_factory=set)
    _stats: dict[int, Stat] | None = None  # ``measure(_stats_root)``, see ``Context.measure``
    _stats_root: Element | None = None
    _stats_changed: list[Element] = field(default_factory=list)  # parents of nodes removed since
    _dropped: list[Element] = field(default_factory=list)  # subtrees taken out of the tree (``release``)

    # --- shared measures -----------------------------------------------------------------------------------
    def measure(self, root: Element) -> dict[int, Stat]:
        """``measure.measure(root)``, shared by consecutive stages while it stays valid.

        Correctness first: ``remove`` keeps it (the parents of removed nodes and their ancestors are
        measured again on the next call, ``measure.remeasure``); every other change through the Context
        forgets it, and so does the end of each stage that may change the tree by other means
        (``pipeline.KEEPS_MEASURES`` lists the stages that do not).
        """
        if self._stats is not None and self._stats_root is root:
            if self._stats_changed:
                remeasure(self._stats, self._stats_changed, root)
                self._stats_changed = []
            return self._stats
        self._stats = measure(root)
        self._stats_root = root
        self._stats_changed = []
        return self._stats

    def share_measures(self, root: Element, stats: dict[int, Stat]) -> None:
        """Take ``stats`` as ``measure(root)`` (measured on an identical tree: the input before the copy)."""
        self._stats = stats
        self._stats_root = root
        self._stats_changed = []

    def forget_measures(self) -> None:
        """Drop the shared measures (the tree changed in a way ``remove`` does not track)."""
        self._stats = None
        self._stats_root = None
        self._stats_changed = []

    def share_origin_index(self, index: dict[int, Element]) -> None:
        """Take ``index`` as ``origin.by_id()`` (``Document.copy`` fills it while copying the origin)."""
        self._origin_paths = index

    def input_doc(self) -> Document:
        """The input as it was: ``origin``, or, in an in-place run, the input decoded anew (for the rare
        readers of the input that come after the tree has changed; released with the run)."""
        if self.origin is None:
            assert self.reread is not None, "an in-place run needs the input's reread"
            self.origin = self.reread()
            self._origin_paths = None
            self._dropped.append(self.origin.root)
        return self.origin

    def origin_element(self, nid: int) -> Element | None:
        """The element of the untouched input with node id ``nid`` (one id table per run)."""
        origin = self.input_doc()
        if self._origin_paths is None:
            self._origin_paths = origin.by_id()
        return self._origin_paths.get(nid)

    def input_page(self) -> Stat:
        """The input body's own measure (``extract`` sets it from the measure it takes before the stages)."""
        if self.page is None:
            body = self.input_doc().body
            self.page = measure(body)[body.nid]
        return self.page

    def facts_for(self, root: Element | None) -> RootFacts:
        """What the result reads of the input around ``root`` (the working root, or None), read once."""
        nid = root.nid if root is not None else None
        if self.facts is None or self.facts.nid != nid:
            original = self.origin_element(nid) if nid is not None else None
            self.facts = RootFacts(self.input_doc(), original, nid)
        return self.facts

    # --- in-place runs: the input seen through the changes made before select_root's first removal ---------
    def keep_children(self, el: Element | None) -> None:
        """Before a change to ``el``'s child list: keep the list the input had (in-place runs, until
        ``take_facts``; the first change of each element of the input only: a new element, such as the
        wrapper a noscript's content passes through, would claim the input's nodes as its children)."""
        kept = self._kept
        if kept is not None and el is not None and el.nid <= self._input_ids and id(el) not in kept:
            kept[id(el)] = (el, el.children[:])

    @contextmanager
    def original_view(self) -> Iterator[Callable[[Element], bool]]:
        """The tree as the input had it, for the time of the ``with``: the kept child lists (and their
        nodes' parents) put back, then the present ones. Yields a test: ``el`` is part of the input (new
        elements hang on to parents that no longer list them). Attributes the stages before select_root
        change (lazy image sources, ``loading``, a streamed segment's ``hidden``) stay changed: no reader
        of the input after the stages reads them."""
        kept = list(self._kept.values()) if self._kept else []
        present = [(el, el.children) for el, _ in kept]
        parents = [(n, n.parent) for _, saved in kept for n in saved]
        for el, saved in kept:
            el.children = saved
            for n in saved:
                n.parent = el
        try:
            yield self._in_input
        finally:
            for el, kids in present:
                el.children = kids
            for n, p in parents:
                n.parent = p

    def _in_input(self, el: Element) -> bool:
        cur: Node = el
        while cur.parent is not None:
            if not any(c is cur for c in cur.parent.children):
                return False
            cur = cur.parent
        return cur is self.doc.root

    def take_facts(self, root: Element | None) -> None:
        """In-place runs, called by select_root before its first removal: read now what the result reads
        of the input around ``root`` (``RootFacts.take``); from here on the tree is the run's alone."""
        if not self.in_place or self._kept is None:
            return
        nid = root.nid if root is not None else None
        with self.original_view() as in_input:
            facts = RootFacts(self.doc, root if root is not None and in_input(root) else None, nid)

            def again() -> tuple[Document, Element | None]:
                return self.input_doc(), self.origin_element(nid) if nid is not None else None

            facts.take(self.meta.head, again)
        self.facts = facts
        self._kept = None

    def path_of(self, el: Element) -> str:
        """CSS path of ``el`` in the *original* document (sibling positions change as stages remove)."""
        if self._kept is not None:  # in place, before the first removal: the input through the kept lists
            with self.original_view() as in_input:
                if in_input(el):
                    return dom.css_path(el)
        elif self.in_place:
            self.input_doc()  # (not asked after take_facts but with debug, which copies: a fallback)
        if self.origin is not None:
            if self._origin_paths is None:
                self._origin_paths = self.origin.by_id()
            orig = self._origin_paths.get(el.nid)
            if orig is not None:
                return dom.css_path(orig, self._path_cache, self._origin_css_paths)
        self.flush_unwraps()  # a path in the working tree must see every unwrap logged before it
        return dom.css_path(el)

    # --- the one way things disappear -----------------------------------------------------------------
    def _entry(self, node: Node, action: str, kind: str, rule: str, reason: str) -> None:
        """Log one change. The text sample and the CSS path are made only with ``debug`` (the option that
        puts the log into the result's JSON): nothing else reads them (render mode, the retry and
        why-missing read stage, node id, rule and tag; why-missing turns ``debug`` on), and on a median page
        they were ~0.4 ms of ~18 (a subtree read and a path per entry, ~54 entries)."""
        deadline.tick()
        if not self.options.debug:
            tag = node.tag if node.__class__ is Element else "#text"
            self.log.append(LogEntry(self.stage, action, kind, rule, reason, "", node.nid, "", tag))
            return
        if isinstance(node, Element):
            text = node.text_start(80)
            path = self.path_of(node)
            tag = node.tag
        else:
            assert isinstance(node, Text)
            text = dom.normalize_space(node.data)[:80]
            path = self.path_of(node.parent) if node.parent is not None else ""
            tag = "#text"
        self.log.append(LogEntry(self.stage, action, kind, rule, reason, text, node.nid, path, tag))

    def remove(self, node: Node, kind: str, rule: str, reason: str, at: int = -1) -> None:
        """Remove ``node`` (and its subtree) from the working tree, logging why (``at``: as in
        ``dom.detach``)."""
        self.flush_unwraps()
        if node.parent is None:
            return
        self._entry(node, "remove", kind, rule, reason)
        self.keep_children(node.parent)
        if self._stats is not None:
            self._stats_changed.append(node.parent)
        dom.detach(node, at)
        if node.__class__ is Element:
            self._dropped.append(node)

    def unwrap(self, el: Element, kind: str, rule: str, reason: str, keep_measures: bool = False) -> None:
        """Replace ``el`` by its children (content kept, wrapper dropped), logging it.

        ``keep_measures``: the caller vouches that the shared measures were valid for ``el``'s subtree and
        the rest of the tree just before (nothing moved by other means since): its children keep their
        measures, and its parent and their ancestors are measured again when next asked (as after
        ``remove``), instead of the whole page."""
        self.flush_unwraps()
        if el.parent is None:
            return
        self._entry(el, "unwrap", kind, rule, reason)
        self.keep_children(el.parent)
        self.keep_children(el)
        if keep_measures and self._stats is not None:
            self._stats_changed.append(el.parent)
        else:
            self.forget_measures()
        dom.unwrap(el)

    def unwrap_later(self, el: Element, kind: str, rule: str, reason: str) -> None:
        """``unwrap``, logged now and spliced at the next ``flush_unwraps`` (at the latest when the stage
        ends, or before any other change or working-tree path): a stage unwrapping thousands of siblings
        rebuilds each parent's child list once. Only for loops that do not read the children of the
        elements they unwrap (or of those elements' parents) before flushing."""
        if el.parent is None or id(el) in self._pending_ids:
            return
        self._entry(el, "unwrap", kind, rule, reason)
        self.keep_children(el.parent)
        self.keep_children(el)
        self.forget_measures()
        self._pending_unwraps.append(el)
        self._pending_ids.add(id(el))

    def flush_unwraps(self) -> None:
        """Apply the unwraps ``unwrap_later`` logged."""
        if self._pending_unwraps:
            pending, self._pending_unwraps = self._pending_unwraps, []
            self._pending_ids.clear()
            dom.unwrap_all(pending)

    def replace(
        self,
        old: Node,
        new: Node,
        kind: str,
        rule: str,
        reason: str,
        at: int = -1,
        keep_measures: bool = False,
    ) -> None:
        """Put ``new`` where ``old`` was (e.g. a normalized code block), logging it (``at``: as in
        ``dom.replace``).

        ``keep_measures``: the caller vouches that every node under ``new`` is new or was under ``old``
        (nothing else in the tree moved): ``new`` is measured and the parent's chain measured again when
        next asked (as after ``remove``), instead of forgetting the whole page's measures."""
        self.flush_unwraps()
        if old.parent is None:
            return
        self._entry(old, "replace", kind, rule, reason)
        parent = old.parent
        self.keep_children(parent)
        self.keep_children(new.parent)
        if keep_measures and self._stats is not None and new.__class__ is Element:
            self._stats.update(measure(new))
            self._stats_changed.append(parent)
        else:
            self.forget_measures()
        dom.replace(old, new, at)
        if old.__class__ is Element:
            self._dropped.append(old)

    def release(self) -> None:
        """Free the working tree and every subtree taken out of it (``dom.release``); the run is over and
        nothing may read them again."""
        for el in self._dropped:
            dom.release(el)
        self._dropped = []
        self.doc.release()
        self.facts = None  # (taken facts may read the input again through this context: a cycle)

    def note(self, step: str, el: Element, detail: str) -> None:
        """Record a decision that changes no membership (e.g. the root candidate moved to an ancestor)."""
        path = self.path_of(el) if self.options.debug else ""  # read by nothing else (see ``_entry``)
        self.notes.append(Note(self.stage, step, el.nid, path, detail))

    def new_element(self, tag: str, attrs: dict[str, str] | None = None) -> Element:
        el = Element(tag, attrs)
        el.nid = self.doc.new_id()
        return el

    def new_text(self, data: str) -> Text:
        t = Text(data)
        t.nid = self.doc.new_id()
        return t

    # --- internal marks ---------------------------------------------------------------------------------
    def protect(self, el: Element, kind: str) -> None:
        """Mark a normalized structure (``code``, ``math``, ``footnote(s)``, ``figure``, ``callout``) as
        exempt from generic removal stages."""
        self.protected[el.nid] = kind

    def protected_kind(self, el: Element) -> str | None:
        """The kind ``el`` itself was protected as, or None."""
        return self.protected.get(el.nid)

    def table_kind(self, table: Element) -> str:
        """``data`` or ``layout`` (Readability's heuristics, simplified), judged once per table and kept."""
        kind = self.table_kinds.get(table.nid)
        if kind is None:
            kind = "data" if _data_table(table) else "layout"
            self.table_kinds[table.nid] = kind
        return kind

    def judged_table_kind(self, table: Element) -> str | None:
        """The verdict if an earlier stage already judged ``table`` (protection checks judge lazily)."""
        return self.table_kinds.get(table.nid)

    # --- shared predicates ------------------------------------------------------------------------------
    def is_protected(self, el: Element, except_kinds: frozenset[str] = frozenset()) -> bool:
        """Protected regions (code, math, data tables) are exempt from generic removal stages.

        ``except_kinds`` lifts protection of some normalized kinds (text patterns may remove a credit line
        or a gallery counter inside a figure, never inside code or math).
        """
        deadline.tick()  # asked by remove_low_score of every candidate (~40 calls a median page)
        e: Element | None = el
        while e is not None:  # el and its ancestors
            if self._protects_itself(e, except_kinds):
                return True
            e = e.parent
        return False

    def _protects_itself(self, el: Element, except_kinds: frozenset[str]) -> bool:
        """``el`` alone (not its ancestors) is a protected region: code, math, a data table, or a region
        ``protected`` marks with a kind not in ``except_kinds``. Shared by ``is_protected`` (el and its
        ancestors) and ``protected_in_walk`` (each element of a walk, its line checked once)."""
        tag = el.tag
        if tag in PROTECTED_TAGS or el.ns == "math":
            return True
        if tag == "table" and self.table_kind(el) == "data":
            return True
        if self.protected:
            kind = self.protected.get(el.nid)
            if kind is not None and kind not in except_kinds:
                return True
        return False

    def protected_in_walk(
        self, root: Element, except_kinds: frozenset[str] = frozenset()
    ) -> Callable[[Element], bool]:
        """``is_protected`` for a walk down from ``root`` that descends only into elements it found
        unprotected (the removal stages' walks): every ancestor of an element it reaches is ``root``, one
        of ``root``'s ancestors or an element it found unprotected, so only the element itself and, once,
        ``root`` with its ancestors need checking, instead of every ancestor for every element of the
        article. Each verdict equals ``is_protected``'s, and the same tables are judged (``root``'s line
        is checked when ``is_protected`` would first have climbed there: for an element not protected
        itself). The tree and the marks must not change during the walk."""
        above: list[bool] = []

        def check(el: Element) -> bool:
            deadline.tick()
            if self._protects_itself(el, except_kinds):
                return True
            if not above:
                above.append(self.is_protected(root, except_kinds))
            return above[0]

        return check


def _data_table(table: Element) -> bool:
    if table.get("role") == "presentation":
        return False
    if table.get("datatable") == "0":
        return False
    if table.get("summary"):
        return True
    kids = table.iter(include_self=False)
    rows = 0
    cols = 0
    for e in kids:
        if e.tag in ("caption", "thead", "tfoot", "colgroup", "col", "th"):
            return True
        if e.tag == "table":  # nested tables mean layout
            return False
        if e.tag == "tr":
            rows += 1
            cols = max(cols, sum(1 for c in e.element_children if c.tag in ("td", "th")))
    if not (rows >= 10 or cols > 4 or rows * cols > 10):
        return False
    return rows >= DATA_TABLE_MIN_ROWS and _cells_hold_data(table)


def _cells_hold_data(table: Element) -> bool:
    """Enough of the non-empty cells have words outside links (``DATA_TABLE_WORDED_CELLS``): a grid of
    teaser, archive or glossary links is navigation drawn as a table, not data, and gets no protection."""
    filled = with_words = 0
    for cell in table.iter(include_self=False):
        if cell.tag not in ("td", "th"):
            continue
        words = cell.text().split()
        if not words:
            continue
        filled += 1
        linked = sum(len(a.text().split()) for a in cell.iter(include_self=False) if a.tag == "a")
        if len(words) > linked:
            with_words += 1
    return filled > 0 and with_words >= DATA_TABLE_WORDED_CELLS * filled
