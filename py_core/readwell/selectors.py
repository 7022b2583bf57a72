"""A small CSS selector engine over our tree.

Why our own: html5lib has none, and the same selectors must behave identically in every runtime. Supported:
type, ``*``, ``#id``, ``.class``, ``[attr]``, ``[attr=v]``, ``~=``, ``^=``, ``$=``, ``*=``, ``|=`` (``i``
flag accepted), ``:not(simple)``, ``:first-child``, ``:last-child``, ``:nth-of-type(n)``, descendant (space)
and child (``>``) combinators, and groups (``,``). Anything else raises ``InputError`` with the selector.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import lru_cache, partial
from typing import Generic, TypeVar

from .dom import Element
from .errors import InputError

Pred = Callable[[Element], bool]
T = TypeVar("T")

_TOKEN = re.compile(
    r"""\s*(?:
      (?P<comb>>)
    | (?P<star>\*)
    | (?P<type>[a-zA-Z][\w-]*)
    | \#(?P<id>[\w-]+)
    | \.(?P<cls>[\w-]+)
    | \[\s*(?P<attr>[\w:-]+)\s*
      (?:(?P<op>[~^$*|]?=)\s*(?:"(?P<dq>[^"]*)"|'(?P<sq>[^']*)'|(?P<bare>[^\]\s]+))\s*(?P<flag>[iI])?\s*)?\]
    | :not\((?P<not>[^()]*)\)
    | :(?P<pseudo>first-child|last-child|nth-of-type\(\s*\d+\s*\))
    | (?P<ws>\s+)
    )""",
    re.X,
)


def _attr_pred(name: str, op: str | None, val: str, flag: bool) -> Pred:
    def get(e: Element) -> str | None:
        v = e.attrs.get(name)
        return v.lower() if (v is not None and flag) else v

    if flag:
        val = val.lower()
    if op is None:
        return lambda e: name in e.attrs
    if op == "=":
        return lambda e: get(e) == val
    if op == "~=":
        return lambda e: val in (get(e) or "").split()
    if op == "^=":
        return lambda e: bool(val) and (get(e) or "").startswith(val)
    if op == "$=":
        return lambda e: bool(val) and (get(e) or "").endswith(val)
    if op == "*=":
        return lambda e: bool(val) and val in (get(e) or "")
    if op == "|=":
        return lambda e: (get(e) or "") == val or (get(e) or "").startswith(val + "-")
    raise InputError(f"unsupported attribute operator {op!r}")


def _pseudo_pred(p: str) -> Pred:
    if p == "first-child":
        return lambda e: e.parent is not None and e.parent.element_children[:1] == [e]
    if p == "last-child":
        return lambda e: e.parent is not None and e.parent.element_children[-1:] == [e]
    n = int(p[p.index("(") + 1 : -1])

    def nth(e: Element) -> bool:
        if e.parent is None:
            return n == 1
        same = [c for c in e.parent.element_children if c.tag == e.tag]
        return len(same) >= n and same[n - 1] is e

    return nth


def _tag_is(tag: str, e: Element) -> bool:
    return e.tag.lower() == tag


def _id_is(value: str, e: Element) -> bool:
    return e.attrs.get("id") == value


def _has_class(cls: str, e: Element) -> bool:
    return cls in e.attrs.get("class", "").split()


def _none_of(preds: list[Pred], e: Element) -> bool:
    """``:not(...)``: true unless every predicate of the inner compound holds."""
    return not all(p(e) for p in preds)


Token = dict[str, str | None]


def _compounds(text: str, full: str) -> list[tuple[str, list[Token]]]:
    """Split one complex selector into [(combinator, [token groups])] from left to right.

    The one tokenizer behind matching (``_compile_compound``) and bucketing (``bucket_key``), so both read
    the same compounds (a descendant space once split them differently).
    """
    parts: list[tuple[str, list[Token]]] = []
    toks: list[Token] = []
    comb = " "
    pos = 0
    text = text.strip()
    while pos < len(text):
        if text[pos].isspace():  # a descendant combinator (``_TOKEN``'s leading \s* would swallow it)
            while pos < len(text) and text[pos].isspace():
                pos += 1
            if toks:
                parts.append((comb, toks))
                toks = []
                comb = " "
            continue
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise InputError(f"unsupported CSS selector: {full!r}")
        pos = m.end()
        g = m.groupdict()
        if g["comb"] is not None:
            if toks:
                parts.append((comb, toks))
                toks = []
            elif not parts:
                raise InputError(f"CSS selector starts with a combinator: {full!r}")
            comb = ">"
            continue
        toks.append(g)
    if toks:
        parts.append((comb, toks))
    elif parts and comb == ">":
        raise InputError(f"CSS selector ends with a combinator: {full!r}")
    if not parts:
        raise InputError(f"empty CSS selector: {full!r}")
    return parts


def _compile_compound(text: str, full: str) -> list[tuple[str, list[Pred]]]:
    """Parse one complex selector into [(combinator, [predicates])] from left to right."""
    return [(comb, [_predicate(g, full) for g in toks]) for comb, toks in _compounds(text, full)]


def _predicate(g: Token, full: str) -> Pred:
    """The test one simple selector (a token group of ``_TOKEN``) makes of an element."""
    if g["star"]:
        return lambda e: True
    if g["type"]:
        return partial(_tag_is, g["type"].lower())
    if g["id"]:
        return partial(_id_is, g["id"])
    if g["cls"]:
        return partial(_has_class, g["cls"])
    if g["attr"]:
        val = g["dq"] if g["dq"] is not None else g["sq"] if g["sq"] is not None else g["bare"] or ""
        return _attr_pred(g["attr"].lower(), g["op"], val, bool(g["flag"]))
    if g["not"] is not None:
        inner = _compile_compound(g["not"], full)
        if len(inner) != 1:
            raise InputError(f"only simple selectors inside :not(): {full!r}")
        return partial(_none_of, inner[0][1])
    pseudo = g["pseudo"] or ""
    return _pseudo_pred(pseudo.replace(" ", ""))


def _matches_chain(e: Element, chain: list[tuple[str, list[Pred]]], idx: int) -> bool:
    comb, preds = chain[idx]
    if not all(p(e) for p in preds):
        return False
    if idx == 0:
        return True
    if comb == ">":
        par = e.parent
        return par is not None and _matches_chain(par, chain, idx - 1)
    anc = e.parent
    while anc is not None:
        if _matches_chain(anc, chain, idx - 1):
            return True
        anc = anc.parent
    return False


@lru_cache(maxsize=512)
def compile_selector(selector: str) -> Pred:
    """Compile a selector group into a predicate ``f(element) -> bool``."""
    groups = [g for g in _split_groups(selector)]
    if not groups:
        raise InputError(f"empty CSS selector: {selector!r}")
    chains = [_compile_compound(g, selector) for g in groups]

    def match(e: Element) -> bool:
        return any(_matches_chain(e, ch, len(ch) - 1) for ch in chains)

    return match


def _split_groups(selector: str) -> list[str]:
    out, depth, cur, quote = [], 0, "", ""
    for ch in selector:
        if quote:
            cur += ch
            if ch == quote:
                quote = ""
            continue
        if ch in "\"'":
            quote = ch
        elif ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def select(root: Element, selector: str) -> list[Element]:
    """All descendants of ``root`` (and root itself) matching ``selector``, in document order."""
    pred = compile_selector(selector)
    return [e for e in root.iter() if pred(e)]


def select_one(root: Element, selector: str) -> Element | None:
    pred = compile_selector(selector)
    for e in root.iter():
        if pred(e):
            return e
    return None


# --- rule buckets -----------------------------------------------------------------------------------------
# A bucket key names one condition an element must meet to match a selector: ("id", v), ("class", token),
# ("attr", name) or ("tag", name). Checked in this order of selectivity when a selector offers several.
BucketKey = tuple[str, str]
_PRESENCE_OPS = (None, "=", "~=", "^=", "$=", "*=")  # ``[a|=""]`` also matches elements without ``a``


def bucket_key(group: str) -> BucketKey | None:
    """The most selective condition of the rightmost compound of one complex selector, or None when it has
    none (``*``, ``:first-child``...): the selector then goes to the bucket every element is tested against.
    """
    try:
        rightmost = _compounds(group, group)[-1][1]
    except InputError:
        return None
    keys: list[BucketKey] = []
    for g in rightmost:
        if g["id"]:
            keys.append(("id", g["id"]))
        elif g["cls"]:
            keys.append(("class", g["cls"]))
        elif g["attr"] and g["op"] in _PRESENCE_OPS:
            keys.append(("attr", g["attr"].lower()))
        elif g["type"]:
            keys.append(("tag", g["type"].lower()))
    rank = {"id": 0, "class": 1, "attr": 2, "tag": 3}
    return min(keys, key=lambda k: rank[k[0]]) if keys else None


def element_keys(el: Element) -> list[BucketKey]:
    """Every bucket key ``el`` meets (the lookup side of ``bucket_key``)."""
    attrs = el.attrs
    keys: list[BucketKey] = [("tag", el.tag.lower())]
    keys.extend(("attr", name) for name in attrs)
    ident = attrs.get("id")
    if ident is not None:
        keys.append(("id", ident))
    cls = attrs.get("class")
    if cls:
        keys.extend(("class", c) for c in cls.split())
    return keys


class SelectorIndex(Generic[T]):
    """Selectors bucketed by a condition of their rightmost compound, the way browsers bucket CSS rules:
    an element is tested only against the selectors whose bucket it can be in, instead of against all of
    them (16 exact rules on 10,000 spans were 160,000 matches; now each span meets no bucket).

    ``items`` are (selector text, predicate, payload); ``first`` returns the payload of the first item (in
    the given order) whose predicate holds, exactly as a scan of the whole list would. An item whose
    selector text cannot be bucketed is tested against every element.
    """

    def __init__(self, items: Sequence[tuple[str, Pred, T]]) -> None:
        self._items = list(items)
        self._buckets: dict[BucketKey, list[int]] = {}
        self._always: list[int] = []
        for i, (selector, _, _) in enumerate(self._items):
            groups = _split_groups(selector)
            keys = [bucket_key(g) for g in groups]
            if not groups or any(k is None for k in keys):
                self._always.append(i)
                continue
            for k in dict.fromkeys(keys):
                assert k is not None
                self._buckets.setdefault(k, []).append(i)

    def candidates(self, el: Element) -> list[int]:
        """Indices of the items ``el`` could match, in item order."""
        found: set[int] = set(self._always)
        buckets = self._buckets
        for k in element_keys(el):
            hit = buckets.get(k)
            if hit:
                found.update(hit)
        return sorted(found)

    def first(self, el: Element) -> T | None:
        """The payload of the first item matching ``el``, or None."""
        items = self._items
        if not el.attrs and not self._always:
            # (most elements: only their tag's bucket, whose items are in item order, each once)
            candidates: Sequence[int] = self._buckets.get(("tag", el.tag.lower()), ())
        else:
            candidates = self.candidates(el)
        for i in candidates:
            if items[i][1](el):
                return items[i][2]
        return None
