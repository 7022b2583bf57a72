"""A small CSS selector engine over our tree.

Why our own: html5lib has none, and the same selectors must behave identically in every runtime. Supported:
type, ``*``, ``#id``, ``.class``, ``[attr]``, ``[attr=v]``, ``~=``, ``^=``, ``$=``, ``*=``, ``|=`` (``i``
flag accepted), ``:not(simple)``, ``:first-child``, ``:last-child``, ``:nth-of-type(n)``, descendant (space)
and child (``>``) combinators, and groups (``,``). Anything else raises ``InputError`` with the selector.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache, partial

from .dom import Element
from .errors import InputError

Pred = Callable[[Element], bool]

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


def _compile_compound(text: str, full: str) -> list[tuple[str, list[Pred]]]:
    """Parse one complex selector into [(combinator, [predicates])] from left to right."""
    parts: list[tuple[str, list[Pred]]] = []
    preds: list[Pred] = []
    comb = " "
    pos = 0
    text = text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise InputError(f"unsupported CSS selector: {full!r}")
        pos = m.end()
        g = m.groupdict()
        if g["ws"] is not None or g["comb"] is not None:
            if preds:
                parts.append((comb, preds))
                preds = []
                comb = " "
            if g["comb"]:
                comb = ">"
            continue
        if g["star"]:
            preds.append(lambda e: True)
        elif g["type"]:
            t = g["type"].lower()
            preds.append(partial(_tag_is, t))
        elif g["id"]:
            i = g["id"]
            preds.append(partial(_id_is, i))
        elif g["cls"]:
            c = g["cls"]
            preds.append(partial(_has_class, c))
        elif g["attr"]:
            val = g["dq"] if g["dq"] is not None else g["sq"] if g["sq"] is not None else g["bare"] or ""
            preds.append(_attr_pred(g["attr"].lower(), g["op"], val, bool(g["flag"])))
        elif g["not"] is not None:
            inner = _compile_compound(g["not"], full)
            if len(inner) != 1:
                raise InputError(f"only simple selectors inside :not(): {full!r}")
            ip = inner[0][1]
            preds.append(partial(_none_of, ip))
        elif g["pseudo"]:
            preds.append(_pseudo_pred(g["pseudo"].replace(" ", "")))
    if preds:
        parts.append((comb, preds))
    if not parts:
        raise InputError(f"empty CSS selector: {full!r}")
    return parts


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
