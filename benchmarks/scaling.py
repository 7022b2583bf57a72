"""Scaling: time each hostile shape at n and 2n and print the ratio (linear ≈ 2.0; issue 11 wants ≤ 2.3).

    python benchmarks/scaling.py [--only SHAPE ...] [--scale F] [--parser auto|fast|html5lib] [--clock cpu]
    python benchmarks/scaling.py --profile SHAPE [--top N]       # cProfile of the 2n run, by own time
    python benchmarks/scaling.py --article [--paragraphs N] [--runs R] [--parser fast]
                                          # the 20 MB article (issue 11: <= 5 s, fast parser): CPU per stage
    python benchmarks/scaling.py --article --profile-article [--top N]     # cProfile of one article run

Measurement only (no assertions): ``total`` is ``readwell.extract`` on the string, ``parse`` the parser
alone, ``rest`` the difference (pipeline + rendering). Each time is the best of ``--runs`` runs, which
filters out load from other jobs on a shared machine; a ratio well above 2.3 at both scales is
superlinear code, not noise.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import time
from collections.abc import Callable

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


def deep_nesting(n: int) -> str:
    return _page("<div>" * n + f"<p>{PROSE}</p>" + "</div>" * n)


def many_attributes(n: int) -> str:
    attrs = " ".join(f'data-a{i}="v{i}"' for i in range(n))
    return _page(f"<p>{PROSE}</p>" + "".join(f"<p {attrs}>{PROSE}</p>" for _ in range(20)))


def huge_text_node(n: int) -> str:
    return _page("<p>" + " ".join(f"word{i % 97}" for i in range(n)) + "</p>")


def many_links(n: int) -> str:
    return _page(
        f"<p>{PROSE}</p><ul>" + "".join(f'<li><a href="/p/{i}">link {i}</a></li>' for i in range(n)) + "</ul>"
    )


def small_tables(n: int) -> str:
    table = "<table><tr><td>cell a {i}</td><td>cell b</td></tr><tr><td>1</td><td>2</td></tr></table>"
    return _page(f"<p>{PROSE}</p>" + "".join(table.format(i=i) for i in range(n)))


def big_pre(n: int) -> str:
    return _page(
        f"<p>{PROSE}</p><pre><code>"
        + "".join(f"line {i} = compute({i});\n" for i in range(n))
        + "</code></pre>"
    )


def shadow_roots(n: int) -> str:
    host = (
        '<div class="card"><template shadowrootmode="open"><p>shadow text {i} '
        + PROSE[:60]
        + "</p></template></div>"
    )
    return _page(f"<p>{PROSE}</p>" + "".join(host.format(i=i) for i in range(n)))


def empty_siblings(n: int) -> str:
    """Words parted by empty elements (an empty block, a styling span around a line break, a span of one
    space), each left for the pipeline to drop or to replace by a break or a space."""
    units = "".join(f"w{i}<div></div>x{i}<span><br></span>y{i}<b> </b>" for i in range(n // 3))
    return _page(f"<p>{PROSE}</p><div>{units}z</div>")


def big_article(n: int, inline: bool = False) -> str:
    """``n`` distinct paragraphs of ~270 characters of prose: 70,000 make the 20 MB article of issue 11
    (every paragraph different, as in a real article, so no per-text memo answers twice). ``inline``: each
    paragraph also holds a link and an emphasis (three elements a paragraph instead of one)."""
    if inline:
        tail = 'Note {i} follows the <a href="/notes/{i}">survey</a> of the <em>lower</em> valley.'
    else:
        tail = "Note {i} follows the survey of the lower valley and the older notes."
    return _page("<h1>Shape</h1>\n" + "".join(f"<p>{PROSE} {tail.format(i=i)}</p>\n" for i in range(n)))


# shape -> (builder, n). 2n of the megabyte <pre> is ~1 MB; 2n of the links is 50k.
SHAPES: dict[str, tuple[Callable[[int], str], int]] = {
    "wide-siblings": (wide_siblings, 2500),
    "deep-nesting": (deep_nesting, 2000),
    "many-attributes": (many_attributes, 500),
    "huge-text-node": (huge_text_node, 100_000),
    "links-50k": (many_links, 25_000),
    "small-tables-5k": (small_tables, 2500),
    "megabyte-pre": (big_pre, 20_000),
    "shadow-roots": (shadow_roots, 1000),
    "empty-siblings": (empty_siblings, 7500),
}


CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.process_time}
clock = time.perf_counter


def best_of(fn: Callable[[], object], runs: int) -> float:
    best = float("inf")
    for _ in range(runs):
        t0 = clock()
        fn()
        best = min(best, clock() - t0)
    return best


def measure(html: str, runs: int) -> tuple[float, float]:
    import readwell
    from readwell.parse import parse_html

    parse = best_of(lambda: parse_html(html), runs)
    total = best_of(lambda: readwell.extract(html), runs)
    return total, parse


# The pieces of one extraction timed by --article: (module, attribute, label). Wrapping the names extract.py
# calls (and each stage's ``run``) times them without touching the code. Pieces nest: "stages (all)" holds
# the stages and head_metadata is outside it (run_pipeline); measure (extract) is the body measure and the
# root's verdict measure, not the stages' own.
ARTICLE_PIECES: tuple[tuple[str, str, str], ...] = (
    ("readwell.extract", "parse_html", "parse"),
    ("readwell.extract", "measure", "measure (extract)"),
    ("readwell.extract", "readerable_of", "readerable"),
    ("readwell.extract", "run_stages", "stages (all)"),
    ("readwell.extract", "sanitize_tree", "sanitize_tree"),
    ("readwell.extract", "serialize", "serialize"),
    ("readwell.extract", "bleach_final", "bleach"),
    ("readwell.extract", "to_text", "to_text"),
    ("readwell.extract", "to_markdown", "to_markdown"),
    ("readwell.extract", "word_count", "word_count"),
    ("readwell.extract", "has_units", "has_units"),
    ("readwell.extract", "min_article_units", "min_article_units"),
    ("readwell.metadata", "head_metadata", "head_metadata"),
    ("readwell.metadata", "complete_metadata", "complete_metadata"),
    ("readwell.extract", "release", "release (page)"),
)


def _timed(fn: Callable[..., object], label: str, spent: dict[str, float]) -> Callable[..., object]:
    def wrapper(*args: object, **kwargs: object) -> object:
        t0 = clock()
        try:
            return fn(*args, **kwargs)
        finally:
            spent[label] = spent.get(label, 0.0) + clock() - t0

    return wrapper


def article_stages(html: str, runs: int) -> tuple[float, dict[str, float], str]:
    """Best-of-``runs`` total of ``readwell.extract(html)`` (parse included) and, from that run, the time of
    each stage and rendering piece, with a hash of the outputs (to compare two versions)."""
    import dataclasses
    import hashlib
    import importlib

    import readwell
    from readwell import pipeline

    spent: dict[str, float] = {}
    saved: list[tuple[object, str, object]] = []
    for mod_name, attr, label in ARTICLE_PIECES:
        mod = importlib.import_module(mod_name)
        saved.append((mod, attr, getattr(mod, attr)))
        setattr(mod, attr, _timed(getattr(mod, attr), label, spent))
    stages = pipeline.STAGES
    pipeline.STAGES = tuple(dataclasses.replace(s, run=_timed(s.run, s.name, spent)) for s in stages)
    best: tuple[float, dict[str, float], str] = (float("inf"), {}, "")
    try:
        for _ in range(runs):
            spent.clear()
            t0 = clock()
            r = readwell.extract(html, formats=("html", "markdown", "text"))
            total = clock() - t0
            digest = hashlib.sha256(
                "\0".join((r.content_html or "", r.markdown or "", r.text or "")).encode()
            ).hexdigest()[:12]
            if total < best[0]:
                best = (total, dict(spent), digest)
    finally:
        pipeline.STAGES = stages
        for mod, attr, fn in saved:
            setattr(mod, attr, fn)
    return best


def article_main(a: argparse.Namespace, used: str) -> int:
    html = big_article(a.paragraphs, a.inline)
    if a.profile_article:
        import readwell

        prof = cProfile.Profile()
        prof.runcall(readwell.extract, html, formats=("html", "markdown", "text"))
        print(f"article of {a.paragraphs} paragraphs ({len(html) / 1e6:.1f} MB), parser {used}")
        pstats.Stats(prof, stream=sys.stdout).sort_stats("tottime").print_stats(a.top)
        return 0
    total, spent, digest = article_stages(html, a.runs)
    print(
        f"article: {a.paragraphs} paragraphs{' with inline elements' if a.inline else ''}, "
        f"{len(html) / 1e6:.1f} MB; parser {used}; {a.clock} clock, "
        f"best of {a.runs}; output {digest}"
    )
    print(f"{'total':<22} {total:7.2f} s")
    for label, t in sorted(spent.items(), key=lambda kv: -kv[1]):
        print(f"  {label:<20} {t:7.2f} s")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", nargs="*", choices=sorted(SHAPES), help="these shapes only")
    ap.add_argument("--scale", type=float, default=1.0, help="multiply every n (smaller: quicker, noisier)")
    ap.add_argument("--runs", type=int, default=1, help="best of N runs per size")
    ap.add_argument("--parser", choices=("auto", "fast", "html5lib"), default="auto")
    ap.add_argument(
        "--clock",
        choices=sorted(CLOCKS),
        default="wall",
        help="cpu: this process's CPU time, which other jobs on a loaded machine disturb far less",
    )
    ap.add_argument("--profile", choices=sorted(SHAPES), help="profile the 2n run of one shape")
    ap.add_argument("--top", type=int, default=25, help="functions listed by --profile")
    ap.add_argument("--article", action="store_true", help="the 20 MB article: total and CPU/wall per stage")
    ap.add_argument("--paragraphs", type=int, default=70_000, help="paragraphs of --article (70,000: 20 MB)")
    ap.add_argument("--inline", action="store_true", help="--article with a link and an emphasis a paragraph")
    ap.add_argument("--profile-article", action="store_true", help="cProfile one --article run instead")
    a = ap.parse_args(argv)
    os.environ["READWELL_PARSER"] = a.parser
    global clock
    clock = CLOCKS[a.clock]
    from readwell.parse import fast_parser

    used = "fast (lexbor)" if a.parser != "html5lib" and fast_parser() is not None else "html5lib"
    if a.article or a.profile_article:
        return article_main(a, used)
    if a.profile:
        build, n = SHAPES[a.profile]
        html = build(2 * int(n * a.scale))
        import readwell

        prof = cProfile.Profile()
        prof.runcall(readwell.extract, html)
        print(f"{a.profile} at 2n={2 * int(n * a.scale)} ({len(html) / 1e6:.2f} MB), parser {used}")
        pstats.Stats(prof, stream=sys.stdout).sort_stats("tottime").print_stats(a.top)
        return 0
    import readwell

    readwell.extract(_page(f"<p>{PROSE}</p>"))  # warm-up: imports and first-call costs
    print(f"parser: {used}; {a.clock} clock, best of {a.runs}; ratio = time(2n) / time(n), linear ≈ 2.0")
    head = f"{'shape':<17} {'n':>7} {'MB(2n)':>7} {'total n':>9} {'total 2n':>9} {'ratio':>6}"
    print(head + f" {'parse 2n':>9} {'ratio':>6} {'rest 2n':>8} {'ratio':>6}")
    for name in a.only or SHAPES:
        build, n0 = SHAPES[name]
        n = max(1, int(n0 * a.scale))
        small, large = build(n), build(2 * n)
        t1, p1 = measure(small, a.runs)
        t2, p2 = measure(large, a.runs)
        r1, r2 = max(t1 - p1, 1e-9), max(t2 - p2, 1e-9)
        print(
            f"{name:<17} {n:>7} {len(large) / 1e6:>7.2f} {t1:>8.2f}s {t2:>8.2f}s {t2 / t1:>6.2f}"
            f" {p2:>8.2f}s {p2 / p1:>6.2f} {r2:>7.2f}s {r2 / r1:>6.2f}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
