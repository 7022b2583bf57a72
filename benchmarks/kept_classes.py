"""Kept boilerplate by class: the table of benchmarks/README.md's "Kept boilerplate by class, session 11".

Reads a ``readwell.bench --out DIR`` directory and each set's gold. Every output shingle (the scorer's 4-word
shingles over the whole page text) goes to the output line its first token is on; it is kept boilerplate when
it is in the output's surplus over the gold (the first occurrences of a shingle the gold has count as
matched), which reproduces ``--blame``'s kept-boilerplate total per set. A line with at least half of its
shingles surplus gets the first class below whose expression matches it (else "partial line"). Each class's
expression is also run over every gold line: a count there means a set keeps such lines (look before building
a rule). The classes are a reading aid, not rules.

    PYTHONPATH=py_core python3 benchmarks/kept_classes.py OUT_DIR [--aside SET/PAGE ...] [--lines CLASS [N]]

(the README's table: ``--aside dragnet-dev/T2``, a slideshow page counted as a row of its own)
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from readwell.bench.scoring import shingles
from readwell.bench.sets import benchmarks_dir, load_truth

SETS = ("scrapinghub", "l3s-gn1", "dragnet-dev", "readability-dev", "cleanportaleval")
WORD = re.compile(r"\w+")
IC = re.I  # the classes read case-insensitively (author bio: by its capitals)
CLASSES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("reporting credit", re.compile(r"contributed (to )?(this )?report|^\(?(additional )?reporting by|"
                                    r"^with reporting (from|by)|editing by|^compiled by|"
                                    r"^contributed by", IC)),
    ("originally appeared / print edition", re.compile(r"(originally|first) (appeared|published|posted)|"
                                                       r"a version of this (article|story)|appeared in print|"
                                                       r"^original post", IC)),
    ("copyright / legal / disclaimer", re.compile(
        r"copyright|©|\(c\) ?\d{4}|all rights reserved|may not be (published|copied|reproduced)|redistribut|"
        r"republication|disclaimer|not (be )?responsible for the content|opinions expressed|views expressed|"
        r"not necessarily those|affiliate|investment advice|terms (of use|and conditions)|"
        r"privacy policy", IC)),
    ("subscribe / newsletter / follow / support asks", re.compile(
        r"subscri|newsletter|sign ?up|follow (us|me|him|her|them|@)|on twitter|on facebook|@\w+ on|"
        r"support (us|our)|donat|members? get|join (us|our)|delivered (to|through)|inbox|rss|"
        r"register (now|by|for|here)|download (the|our) app|reserve (now|your)|order (or|now)", IC)),
    ("news-tip / contact asks", re.compile(
        r"news ?tips?|send (us|photos|in your)|tip-offs|contact (us|the reporter|the editor)|to contact|"
        r"can be reached|e-?mail (me|us|him|her)|write to (him|her|us)|mail me|submit (your|a)|"
        r"letters? to the editor|have your say|let us know", IC)),
    ("comment prompts / moderation / thread", re.compile(
        r"comment|moderat|feedback|discuss (this|the)|message board|forum|your (say|views|opinions)|"
        r"what do you think|tell us what", IC)),
    ("share / read-more / click-here prompts", re.compile(
        r"read more|click (here|for)|continue reading|share (this|on)|e-?mail (to a friend|article|this)|"
        r"print(er)?[- ]friendly|bookmark|permalink|see (more|also)|more (photos|stories|news)|^more\b|"
        r"learn more|find out more|check out|visit\b|watch\b|trackback|listed below are links", IC)),
    ("author bio", re.compile(r"^[A-Z][\w.'’-]+( [A-Z][\w.'’-]+){1,3} (is|was|covers|has been|writes|works|"
                              r"joined|serves)\b|^about the author|^(he|she) (is|was|has|lives|writes)\b")),
    ("byline / dateline / timestamp", re.compile(
        r"^(by|por|von|par|posted|published|updated|last updated|filed|written)\b|"
        r"\b(a\.m\.|p\.m\.|am|pm|GMT|EST|ET|PT)\b.{0,20}$|^\W*\d{1,2}[/.]\d{1,2}[/.]\d{2,4}|"
        r"\b(19|20)\d\d\b.{0,12}$|^(mon|tue|wed|thu|fri|sat|sun)\w*day\b|^\w+[- ]feira", IC)),
    ("photo caption / credit", re.compile(
        r"photo|getty|reuters/|/ ?ap\b|\bap photo|afp|epa|credit|courtesy|image|pictured|\(left\)|\(right\)|"
        r", left,|, right,|\bseen\b|file photo|fotos?:|фото", IC)),
    ("nav / link list (separators, previous/next)", re.compile(
        r"(\s[|•·»]\s.*){2,}|(;\s.*){4,}|^[«»<>]|»$|^previous|^next\b|^prev\b", IC)),
)  # fmt: skip


def classify(line: str, i: int, n: int) -> str:
    for name, rx in CLASSES:
        if rx.search(line):
            return name
    if i < 3 and len(line) < 160 and not line.rstrip().endswith((".", "!", "?", '"', "”")):
        return "top line: headline / dek / label"
    if len(WORD.findall(line)) <= 3:
        return "short label line (<= 3 words)"
    if i < 3:
        return "top line: summary / caption-like sentence"
    if i >= n - 4:
        return "trailing prose (last 4 lines)"
    return "body prose the gold leaves out"


def kept_lines(out: Path, name: str, truth: dict[str, str]) -> list[dict[str, Any]]:
    raw = json.loads((out / f"{name}.json").read_text(encoding="utf-8"))
    raw = raw.get("output", raw)
    rows = []
    for pid, gold in truth.items():
        v = raw.get(pid) or ""
        pred = v.get("articleBody", v.get("text")) if isinstance(v, dict) else v
        lines = [ln for ln in (pred or "").split("\n") if ln.strip()]
        toks: list[str] = []
        at: list[int] = []
        for i, ln in enumerate(lines):
            for m in WORD.finditer(ln):
                toks.append(m.group())
                at.append(i)
        occ = (
            [(tuple(toks), 0)]
            if len(toks) < 4
            else [(tuple(toks[k : k + 4]), at[k]) for k in range(len(toks) - 3)]
        )
        allow = Counter(shingles(gold))
        total: Counter[int] = Counter()
        surplus: Counter[int] = Counter()
        for s, i in occ:
            if not s:
                continue
            total[i] += 1
            if allow[s] > 0:
                allow[s] -= 1
            else:
                surplus[i] += 1
        for i, ln in enumerate(lines):
            if surplus[i]:
                rows.append({"set": name, "page": pid, "i": i, "n": len(lines), "line": ln,
                             "total": total[i], "out": surplus[i]})  # fmt: skip
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--aside", nargs="*", default=[], help="SET/PAGE ids counted as a row of their own")
    ap.add_argument("--lines", nargs="+", metavar=("CLASS", "N"), help="also list a class's largest lines")
    a = ap.parse_args()
    base = benchmarks_dir()
    assert base is not None, "no benchmarks directory"
    table: dict[str, Counter[str]] = defaultdict(Counter)
    pages: dict[str, set[tuple[str, str]]] = defaultdict(set)
    gold_hits: dict[str, Counter[str]] = defaultdict(Counter)
    members: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for name in SETS:
        truth, _ = load_truth(base / name)
        for r in kept_lines(Path(a.out), name, truth):
            if f"{name}/{r['page']}" in a.aside:
                c = f"set aside: {name}/{r['page']}"
            elif r["out"] < 0.5 * r["total"]:
                c = "partial line (mostly gold)"
            else:
                c = classify(r["line"], r["i"], r["n"])
            table[c][name] += r["out"]
            pages[c].add((name, r["page"]))
            members[c].append(r)
        for gold in truth.values():
            for ln in gold.split("\n"):
                hit = next((c for c, rx in CLASSES if rx.search(ln)), None)
                if hit:
                    gold_hits[hit][name] += 1
    print("| class | " + " | ".join(SETS) + " | all | pages | gold lines matching |")
    print("|---|" + "---|" * (len(SETS) + 3))
    total: Counter[str] = Counter()
    for c in sorted(table, key=lambda c: -sum(table[c].values())):
        total.update(table[c])
        g = "/".join(str(gold_hits[c][s]) for s in SETS) if c in gold_hits else "-"
        cells = " | ".join(f"{table[c][s]:,}" for s in SETS)
        print(f"| {c} | {cells} | {sum(table[c].values()):,} | {len(pages[c])} | {g} |")
    print("| total | " + " | ".join(f"{total[s]:,}" for s in SETS) + f" | {sum(total.values()):,} | | |")
    if a.lines:
        n = int(a.lines[1]) if len(a.lines) > 1 else 40
        for r in sorted(members.get(a.lines[0], []), key=lambda r: -r["out"])[:n]:
            where = f"{r['set'][:5]} {r['page'][:10]:10s} {r['i']:3d}/{r['n']:3d}"
            print(f"{where} {r['out']:4d} | {r['line'][:150]}")


if __name__ == "__main__":
    main()
