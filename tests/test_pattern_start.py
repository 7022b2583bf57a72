"""pattern_start: the start test of an anchored pattern never rules out a text the pattern matches."""

from __future__ import annotations

import random
import re
from re import _parser  # type: ignore[attr-defined]
from typing import Any

import pytest
from readwell.pattern_start import START_CHARS, may_match, start_test
from readwell.rules import TEASER_HEADING, TEXT_RULES, THREAD_HEADING
from readwell.stages import remove_by_pattern as rbp

_POOL = "aAbBcCeEtThHsS0123456789 \t\xa0:-.,()!?'\"»›©«éÀчK\u212a\u017f"


def _sample(items: Any, rng: random.Random, out: list[str], depth: int = 0) -> None:
    """A random string the parsed pattern ``items`` can match (lookarounds ignored: some samples fail)."""
    p = _parser
    for op, av in items:
        if op is p.LITERAL:
            ch = chr(av)
            out.append(rng.choice([ch, ch.upper(), ch.lower()]))
        elif op is p.IN:
            choices = []
            for iop, iav in av:
                if iop is p.LITERAL:
                    choices.append(chr(iav))
                elif iop is p.RANGE:
                    choices.append(chr(rng.randint(iav[0], iav[1])))
                elif iop is p.CATEGORY:
                    choices.extend(
                        {"CATEGORY_DIGIT": "7", "CATEGORY_SPACE": " \xa0", "CATEGORY_WORD": "w_9"}.get(
                            iav.name, "x"
                        )
                    )
                else:
                    choices.append(rng.choice(_POOL))
            out.append(rng.choice(choices))
        elif op is p.ANY or op is p.NOT_LITERAL:
            out.append(rng.choice(_POOL))
        elif op is p.BRANCH:
            _sample(rng.choice(av[1]), rng, out, depth + 1)
        elif op is p.SUBPATTERN:
            _sample(av[3], rng, out, depth + 1)
        elif op in (p.MAX_REPEAT, p.MIN_REPEAT):
            most = min(av[1], av[0] + 3)
            for _ in range(rng.randint(av[0], most)):
                _sample(av[2], rng, out, depth + 1)


PATTERNS = [(f"rule {r.id}", r.match, True) for r in TEXT_RULES] + [
    ("THREAD_HEADING", THREAD_HEADING, False),
    ("TEASER_HEADING", TEASER_HEADING, False),
]


@pytest.mark.parametrize(("name", "pattern", "search"), PATTERNS, ids=[p[0] for p in PATTERNS])
def test_start_test_accepts_every_match(name: str, pattern: re.Pattern[str], search: bool) -> None:
    """Strings sampled from each pattern (and their case variants, prefixed and suffixed variants): every
    one the pattern matches passes its start test."""
    test = start_test(pattern, search=search)
    rng = random.Random(name)
    parsed = _parser.parse(pattern.pattern, pattern.flags)
    matched = 0
    for _ in range(3000):
        out: list[str] = []
        _sample(parsed, rng, out)
        text = "".join(out)
        for t in (text, text.upper(), text.lower(), text.title(), rng.choice(_POOL) + text, text + "\n"):
            hit = pattern.search(t) if search else pattern.match(t)
            if hit:
                matched += 1
                assert may_match(test, t[:START_CHARS]), (name, t)
    assert matched > 100  # the sampler reaches the pattern


def test_start_test_rules_out_prose() -> None:
    """What the test is for: prose starts are ruled out by most rules, boilerplate starts are not. A rule
    that can start anywhere has its words (``TEXT_RULE_WORDS``), which rule out prose without them."""
    prose = "The river survey counted insects in every riffle along the valley."
    low = prose.lower()
    kept = [
        r.id
        for r, _, _, test, words in rbp._BOUNDED_RULES
        if may_match(test, prose[:START_CHARS]) and (not words or any(w in low for w in words))
    ]
    assert len(kept) <= 4 and "share-prompt" not in kept
    assert not may_match(start_test(THREAD_HEADING), "The ")
    assert may_match(start_test(THREAD_HEADING), "12 c")
    assert may_match(start_test(THREAD_HEADING), "Comm")
    assert may_match(start_test(TEASER_HEADING), "Rela")
    assert not may_match(start_test(TEASER_HEADING), "")


def test_start_test_shapes() -> None:
    assert start_test(re.compile("a|b"), search=True) is None  # not anchored: a search matches anywhere
    assert start_test(re.compile("^a|b"), search=True) is None
    assert start_test(re.compile("^a", re.M), search=True) is None
    assert start_test(re.compile("^a*$")) is None  # matches the empty text
    assert start_test(re.compile(".b")) is None  # any first character
    t = start_test(re.compile(r"(?i)^k\d"))
    assert t is not None and may_match(t, "K7") and may_match(t, "k1") and not may_match(t, "x1")
    assert may_match(t, "\u212a1")  # the Kelvin sign folds to k: a non-ASCII start is never ruled out
    t = start_test(re.compile(r"^ab$"))
    assert t is not None and may_match(t, "ab") and not may_match(t, "ba")


def test_match_boilerplate_cache_gives_the_same_rule() -> None:
    """The rules kept per start give the rule the full loop gives (on texts sampled from every rule)."""
    rng = random.Random(7)
    for r in TEXT_RULES:
        parsed = _parser.parse(r.match.pattern, r.match.flags)
        for _ in range(200):
            out: list[str] = []
            _sample(parsed, rng, out)
            text = "".join(out)
            want = next((x for x in TEXT_RULES if text and len(text) <= 420 and x.match.search(text)), None)
            assert rbp.match_boilerplate(text) is want, text
