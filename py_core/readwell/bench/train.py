"""Train the learned root model (``readwell.root_model``) on the development sets, with honest figures.

One command: ``python -m readwell.bench.train`` (``make train-root``). Steps, each cached under ``--cache``
(default ``/tmp/readwell-train``) so a rerun only redoes what changed:

1. labels: every page is extracted once per root candidate (the real pipeline, the root forced to that
   candidate) and the output scored against the gold with ``score.py``'s metric: each candidate's label is
   its page's (tp, fp, fn). Expensive (about ten extractions per page); cached per page and candidate.
2. features: one pipeline run per page up to the root choice, recording every candidate's features.
3. cross-validation: 5 folds grouped by page, and leave-one-set-out (train on four sets, test on the fifth);
   each page is scored with the candidate chosen by a model that never saw it, and per-set F1 is printed
   beside the rules' root. Because labels are real pipeline outputs, these are the figures the bench would
   print for those choices.
4. fit on all pages and write ``py_core/readwell/root_model_data.py`` (with ``--write``).

Templates we never saw name their blocks with words our lists do not know. ``--probe PATTERN`` also collects
the pages with that name family masked (``masking``; the names-masked probe of ``benchmarks/names_masked.py``)
and reports both validations on them: the held-out proxy. ``--augment-masked`` trains on a masked copy of
each page too (off by default, see ``AUGMENT_MASKED``).

Training needs scikit-learn (the ``train`` extra); inference never does. Seeds are fixed: the same corpus and
code give the same model file.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from ..root_model import ALL_KINDS
from .masking import family_of, mask
from .scoring import Counts, page_counts, page_f1, prf
from .sets import SETS, benchmarks_dir, load_truth, read_page

FOLDS = 5
SEED = 0
# Tree ensemble size: small enough to read and to run per page in Pyodide (a few hundred comparisons).
# Depth 2 and 100 trees (session 5): in cross-validation depth 3 and 60 trees lost a readability-dev page
# at margins <= 0.08, and depth 2 stays non-negative on every set over a wider band of margins.
N_TREES = 100
MAX_DEPTH = 2
LEARNING_RATE = 0.1
MIN_LEAF = 20
# Predicted page-F1 gain an alternative needs to overrule the rules' root. Chosen on the cross-validated
# figures (sweep 0.06-0.15, benchmarks/README.md): 5-fold and leave-one-set-out are non-negative on every
# set from 0.08 to 0.15 (at 0.06 a readability-dev page is lost); 0.10 is inside that band, not at its edge.
MARGIN = 0.10
# (These settings make the retrained model of session 5, which is not shipped: ``--write`` replaces the
# model file, session 3's trees, only when the bench agrees on every set; benchmarks/README.md has why.)
# An empty output ("no article") is worse than its page F1 of 0 says: the user sees nothing, and score.py's
# precision leaves such a page out (an empty answer can raise a set's precision). Labels charge it this much.
EMPTY_PENALTY = 0.3
SET_WEIGHTS = False  # weighing each set the same overfits the two small sets (CV: l3s/dragnet gains vanish)
LOSS_WEIGHT = 1.5  # a predicted loss counts 1.5 times a gain of the same size (CV: 1 to 4 tried)
# Train also on a copy of each page with one name family masked (``masking``, ``--augment-masked``), so the
# model sees roots the rules chose without those names. Off: in session 12 it lost dragnet-dev F1 in 5-fold
# CV (-0.0006 against +0.0010 without), on the pages and on the pages with comment names masked alike, and
# the model trained without it splits on no name feature anyway (benchmarks/README.md, session 12).
AUGMENT_MASKED = False


# --- running the pipeline with a forced candidate (worker processes) -------------------------------------
def _install_hooks(force: list[int | None], record: list[Any]) -> None:
    """Make ``select_root`` offer the candidates, record their features, and take ``force[0]``."""
    from .. import root_model, root_model_data

    root_model_data.TREES = (((-1,), (0.0,), (-1,), (-1,), (0.0,)),)
    root_model.OFFERED = root_model.ALL_KINDS  # measure every kind; ``rows_of`` picks the offered ones

    def forced(
        cands: list[Any], facts: Any, trees: Any, base: float, margin: float
    ) -> tuple[int, list[float]]:
        rules = cands[0]
        record.append([(c.kind, _key(c), root_model.features(c, rules, facts)) for c in cands])
        i = force[0]
        return (i if i is not None and i < len(cands) else 0), [0.0] * len(cands)

    root_model.choose = forced


def _key(c: Any) -> str:
    return f"{c.top.nid}:{','.join(str(n) for n in sorted(c.joined))}"


_HOOK: tuple[list[int | None], list[Any]] | None = None


def _hook() -> tuple[list[int | None], list[Any]]:
    global _HOOK
    if _HOOK is None:
        _HOOK = ([None], [])
        _install_hooks(*_HOOK)
    return _HOOK


def _page_job(
    args: tuple[str, str | None, str, dict[str, list[float]] | None, str | None],
) -> dict[str, Any]:
    """Features of every candidate and, unless ``known`` covers them, each one's (tp, fp, fn); with
    ``pattern``, of the page with that name family masked (``masking.mask``)."""
    from ..extract import extract_document, load_document, make_options

    path, url, gold, known, pattern = args
    force, record = _hook()
    data = read_page(path)
    doc = load_document(mask(data, pattern) if pattern else data)
    opts = make_options(url, {})
    force[0] = 0
    record.clear()
    try:
        r = extract_document(doc, opts)
    except Exception as exc:  # a crash is a result (no article), as in the bench
        print(f"  {path}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return {"cands": [], "labels": {}}
    cands = record[-1] if record else []
    labels: dict[str, list[float]] = dict(known or {})
    if cands:
        labels.setdefault(cands[0][1], list(page_counts(gold, r.text if r.found else "")))
    for i, (_kind, key, _f) in enumerate(cands):
        if key in labels:
            continue
        force[0] = i
        try:
            ri = extract_document(doc, opts)
            text = ri.text if ri.found else ""
        except Exception:
            text = ""
        labels[key] = list(page_counts(gold, text))
    force[0] = 0
    if not cands:  # no candidate at all (no scored paragraph): the rules' answer is the only one
        labels["none"] = list(page_counts(gold, r.text if r.found else ""))
    return {"cands": [[k, key, f] for k, key, f in cands], "labels": labels}


def _source_hash(root: Path, files: list[Path]) -> str:
    h = hashlib.sha256()
    for f in sorted(files):
        h.update(f.relative_to(root).as_posix().encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()[:12]


def _code_hashes(pkg: Path | None = None) -> tuple[str, str]:
    """(labels, features) cache keys of the package in ``pkg`` (default: readwell's). A label is the page's
    score with the root forced to a candidate: it depends on every rule of the pipeline and on the scorer, so
    it is keyed by the whole package's source (all but the model file, which the training hooks replace, and
    the bench apart from its scorer): labels made by older rules are never reused. Features depend on that
    and on ``root_model.py`` (features and candidates); a change to the feature code alone recomputes the
    features and keeps the labels."""
    from .. import root_model

    pkg = pkg or Path(root_model.__file__).parent
    pipeline = [
        f
        for f in pkg.rglob("*.py")
        if f.relative_to(pkg).as_posix() not in ("root_model.py", "root_model_data.py")
        and (f.parent != pkg / "bench" or f.name == "scoring.py")
    ]
    return _source_hash(pkg, pipeline), _source_hash(pkg, [*pipeline, pkg / "root_model.py"])


def _gold_key(gold: str) -> str:
    return hashlib.sha256(gold.encode()).hexdigest()[:12]


Masks = Callable[[str, str], str | None]  # (set, page id) -> name family to mask in the page, or None


def _every_page(pattern: str) -> Masks:
    """The masks of a probe: ``pattern`` masked in every page."""
    return lambda _name, _pid: pattern


def _mask_tag(kind: str, detail: str) -> str:
    """Cache name of a masked collection: its kind and a hash of ``detail`` and of ``masking``'s source
    (the families and the mask itself), so a change there recollects."""
    from . import masking

    source = Path(masking.__file__).read_bytes()
    return f"{kind}-{hashlib.sha256(source + detail.encode()).hexdigest()[:8]}"


def collect(
    bench: Path,
    cache: Path,
    jobs: int,
    sets: tuple[str, ...],
    masks: Masks | None = None,
    tag: str = "",
    plain: dict[str, dict[str, Any]] | None = None,
) -> dict[str, dict[str, Any]]:
    """Per set, per page: candidates (kind, key, features) and labels; cached in ``cache``.

    With ``masks``, of the pages with a name family masked (``tag`` names the cache file); a page the mask
    leaves unchanged is not extracted again: its entry is ``plain``'s (the unmasked collection), marked
    ``unchanged``."""
    cache.mkdir(parents=True, exist_ok=True)
    label_code, feature_code = _code_hashes()
    out: dict[str, dict[str, Any]] = {}
    for name in sets:
        truth, pages = load_truth(bench / name)
        f = cache / (f"{name}.{tag}.json" if tag else f"{name}.json")
        old: dict[str, Any] = json.loads(f.read_text()) if f.is_file() else {}
        same_labels = old.get("labels_code") == label_code
        same = same_labels and old.get("code") == feature_code
        pattern = {p.id: masks(name, p.id) if masks else None for p in pages}
        unchanged = set()
        if masks is not None and plain is not None:
            for p in pages:
                pat = pattern[p.id]
                if not pat or (data := read_page(p.path)) == mask(data, pat):
                    unchanged.add(p.id)
        # a page's result is reused only when its gold and its mask are the same too (a corrected ground
        # truth relabels)
        old_pages = {
            pid: p
            for pid, p in old.get("pages", {}).items()
            if same_labels
            and p.get("gold") == _gold_key(truth.get(pid, ""))
            and p.get("mask") == pattern.get(pid)
        }
        old_labels = {pid: p.get("labels", {}) for pid, p in old_pages.items()}
        todo = [p for p in pages if p.id not in unchanged and (not same or p.id not in old_pages)]
        t0 = time.time()
        args = [(p.path, p.url, truth[p.id], old_labels.get(p.id), pattern[p.id]) for p in todo]
        done = _map(_page_job, args, jobs)
        merged = {
            p.id: old_pages[p.id] for p in pages if same and p.id in old_pages and p.id not in unchanged
        }
        for p, res in zip(todo, done, strict=True):
            res["gold"] = _gold_key(truth[p.id])
            if pattern[p.id]:
                res["mask"] = pattern[p.id]
            merged[p.id] = res
        f.write_text(json.dumps({"labels_code": label_code, "code": feature_code, "pages": merged}))
        if plain is not None:
            for pid in unchanged:
                merged[pid] = {**plain[name]["pages"][pid], "unchanged": True}
        merged = {p.id: merged[p.id] for p in pages}
        print(
            f"{name}{' ' + tag if tag else ''}: {len(todo)} pages extracted in {time.time() - t0:.0f} s",
            file=sys.stderr,
        )
        out[name] = {"truth": truth, "pages": merged}
    return out


def _map(fn: Callable[[Any], Any], items: list[Any], jobs: int) -> list[Any]:
    """``fn`` over ``items`` in worker processes, always: ``_page_job``'s hooks replace ``root_model.choose``
    and ``OFFERED`` in the process they run in (run here, with ``--jobs 1`` or one page to redo, ``rows_of``
    then offered every kind to the model and its validation)."""
    if not items:
        return []
    with ProcessPoolExecutor(max(1, jobs)) as pool:
        return list(pool.map(fn, items, chunksize=2))


# --- training and evaluation -------------------------------------------------------------------------------
Row = tuple[str, str, list[list[float]], list[Counts]]  # set, page id, features per candidate, counts
Preds = tuple[list[float], list[float]]  # a page's predicted gains per candidate: as measured, without names


def rows_of(
    data: dict[str, dict[str, Any]], kinds: tuple[str, ...] | None = None, changed_only: bool = False
) -> list[Row]:
    """Training rows: the rules' root and the candidates ``root_model.candidates`` offers with ``kinds``
    (default ``root_model.OFFERED``; the cache holds every kind, to measure another set of kinds before
    changing ``OFFERED``). ``changed_only``: leave out the pages a mask left unchanged (a masked training
    copy of those would only count the page twice)."""
    from ..root_model import OFFERED, offered

    want = OFFERED if kinds is None else kinds
    rows: list[Row] = []
    for name, d in data.items():
        for pid in sorted(d["pages"]):
            p = d["pages"][pid]
            if changed_only and p.get("unchanged"):
                continue
            cands = p["cands"]
            labels = p["labels"]
            if not cands:
                c = labels.get("none", [0.0, 0.0, 0.0])
                rows.append((name, pid, [], [(c[0], c[1], c[2])]))
                continue
            cands = [c for i, c in enumerate(cands) if i == 0 or offered(c[0], want)]
            feats = [f for _k, _key, f in cands]
            counts: list[Counts] = [
                (lab[0], lab[1], lab[2]) for lab in (labels[key] for _k, key, _f in cands)
            ]
            rows.append((name, pid, feats, counts))
    return rows


def fit(rows: list[Row]) -> Any:
    """A gradient-boosted regression of each candidate's page-F1 gain over the rules' root.

    Each set weighs the same (the targets are per set, and the small sets are the most varied), and a loss
    counts ``LOSS_WEIGHT`` times a gain of the same size (overruling the rules must be worth it)."""
    from sklearn.ensemble import GradientBoostingRegressor

    per_set: dict[str, int] = {}
    for r in rows:
        per_set[r[0]] = per_set.get(r[0], 0) + 1
    xs: list[list[float]] = []
    ys: list[float] = []
    ws: list[float] = []
    for name, _p, feats, counts in rows:
        if len(feats) < 2:
            continue
        base = page_f1(counts[0])
        w = len(rows) / (len(per_set) * per_set[name]) if SET_WEIGHTS else 1.0
        for f, c in zip(feats, counts, strict=True):
            gain = page_f1(c) - base - (EMPTY_PENALTY if _empty(c) and not _empty(counts[0]) else 0.0)
            xs.append(f)
            ys.append(gain * LOSS_WEIGHT if gain < 0 else gain)
            ws.append(w)
    model = GradientBoostingRegressor(
        n_estimators=N_TREES,
        max_depth=MAX_DEPTH,
        learning_rate=LEARNING_RATE,
        min_samples_leaf=MIN_LEAF,
        random_state=SEED,
    )
    model.fit(xs, ys, sample_weight=ws)
    return model


def _empty(c: Counts) -> bool:
    """Nothing extracted where the gold has text (tp = fp = 0, fn > 0)."""
    return c[0] == 0 and c[1] == 0 and c[2] > 0


def export(model: Any) -> tuple[float, list[Any]]:
    """(base, trees) in ``root_model.Tree`` form, learning rate folded into the leaf values."""
    base = float(model.init_.constant_[0][0]) if hasattr(model.init_, "constant_") else 0.0
    trees = []
    for est in model.estimators_[:, 0]:
        t = est.tree_
        feat = [int(x) if x >= 0 else -1 for x in t.feature]
        trees.append(
            (
                tuple(feat),
                tuple(float(x) for x in t.threshold),
                tuple(int(x) for x in t.children_left),
                tuple(int(x) for x in t.children_right),
                tuple(float(v[0][0]) * model.learning_rate for v in t.value),
            )
        )
    return base, trees


def predictor(model: Any) -> Callable[[list[list[float]]], Preds]:
    """Predicted gains of a page's candidates, with the name features and without them (``Preds``), computed
    as ``select_root`` will (``root_model.predict``, ``root_model.without_names``)."""
    from ..root_model import predict, without_names

    base, trees = export(model)
    return lambda feats: (
        [predict(trees, base, f) for f in feats],
        [predict(trees, base, without_names(f)) for f in feats],
    )


def pick(preds: Preds, margin: float) -> int:
    """``root_model.choose``'s rule (``root_model.decide``) on predicted gains."""
    from ..root_model import decide

    return decide(preds[0], lambda: preds[1], margin)


def folds_of(rows: list[Row]) -> dict[tuple[str, str], int]:
    """Fold of each page (set, page id) of ``rows``: pages shuffled with a fixed seed, then dealt
    round-robin. A page's masked copies go with it: the model that scores a page never saw any copy of it."""
    pages = list(dict.fromkeys((r[0], r[1]) for r in rows))
    order = list(range(len(pages)))
    random.Random(SEED).shuffle(order)
    return {pages[i]: rank % FOLDS for rank, i in enumerate(order)}


def per_set(rows: list[Row], picks: list[int]) -> dict[str, tuple[dict[str, float], dict[str, float], int]]:
    """Per set: rules' figures, chosen figures, pages where the choice differs."""
    out = {}
    for name in dict.fromkeys(r[0] for r in rows):
        idx = [i for i, r in enumerate(rows) if r[0] == name]
        rules = prf([rows[i][3][0] for i in idx])
        chosen = prf([rows[i][3][picks[i]] for i in idx])
        out[name] = (rules, chosen, sum(1 for i in idx if picks[i] != 0))
    return out


def report(title: str, rows: list[Row], picks: list[int]) -> None:
    print(f"== {title}")
    for name, (a, b, n) in per_set(rows, picks).items():
        print(
            f"  {name:<16} rules F1 {a['f1']:.4f} (P {a['precision']:.4f} R {a['recall']:.4f})  "
            f"model F1 {b['f1']:.4f} (P {b['precision']:.4f} R {b['recall']:.4f})  "
            f"delta {b['f1'] - a['f1']:+.4f}  pages changed {n}"
        )


def cross_validate(train: list[Row], evals: list[list[Row]]) -> list[list[Preds]]:
    """For each list of ``evals`` (the pages, or the pages with a name family masked), every candidate's
    predicted gain by the model of the fold that saw neither its page nor any copy of it. Folds are dealt
    over the pages of ``evals[0]``."""
    fold = folds_of(evals[0])
    out: list[list[Preds]] = [[([], []) for _ in rows] for rows in evals]
    for k in range(FOLDS):
        predict = predictor(fit([r for r in train if fold[r[0], r[1]] != k]))
        for rows, preds in zip(evals, out, strict=True):
            for i, r in enumerate(rows):
                if fold[r[0], r[1]] == k:
                    preds[i] = predict(r[2])
    return out


def leave_one_set_out(train: list[Row], evals: list[list[Row]]) -> list[list[Preds]]:
    """For each list of ``evals``, every candidate's predicted gain by a model trained on the other sets."""
    out: list[list[Preds]] = [[([], []) for _ in rows] for rows in evals]
    for name in dict.fromkeys(r[0] for r in evals[0]):
        predict = predictor(fit([r for r in train if r[0] != name]))
        for rows, preds in zip(evals, out, strict=True):
            for i, r in enumerate(rows):
                if r[0] == name:
                    preds[i] = predict(r[2])
    return out


def write_model(model: Any, margin: float, path: Path) -> None:
    from ..root_model import FEATURES

    base, trees = export(model)
    lines = [
        '"""The learned root model\'s trees, generated by ``python -m readwell.bench.train --write`` (do not',
        'edit by hand). ``readwell.root_model`` has the features; ``benchmarks/README.md`` the figures."""',
        "",
        "from __future__ import annotations",
        "",
        "from .root_model import Tree",
        "",
        "# fmt: off",
        f"FEATURES: tuple[str, ...] = {tuple(FEATURES)!r}",
        f"BASE: float = {base!r}",
        f"MARGIN: float = {margin!r}",
        "TREES: tuple[Tree, ...] = (",
    ]
    lines += [f"    {t!r}," for t in trees]
    lines += [")", "# fmt: on", ""]
    path.write_text("\n".join(lines), encoding="utf-8")
    print(f"wrote {path} ({path.stat().st_size} bytes, {len(trees)} trees)")


def main(argv: list[str] | None = None) -> int:
    global LOSS_WEIGHT, SET_WEIGHTS
    ap = argparse.ArgumentParser(prog="python -m readwell.bench.train", description=__doc__)
    ap.add_argument(
        "--benchmarks", type=Path, help="directory holding the sets (default ../shared/benchmarks)"
    )
    ap.add_argument("--cache", type=Path, default=Path("/tmp/readwell-train"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--set", action="append", choices=SETS, help="only these sets (repeatable)")
    ap.add_argument("--margin", type=float, default=MARGIN)
    ap.add_argument("--sweep", type=float, nargs="+", help="report these margins (models fitted once)")
    ap.add_argument(
        "--kinds",
        nargs="+",
        choices=ALL_KINDS,
        help="offer these kinds of candidate (root_model.ALL_KINDS; default OFFERED)",
    )
    ap.add_argument("--loss-weight", type=float, default=LOSS_WEIGHT)
    ap.add_argument("--set-weights", action="store_true", help="weigh every set the same (not kept)")
    ap.add_argument(
        "--augment-masked",
        action=argparse.BooleanOptionalAction,
        default=AUGMENT_MASKED,
        help="also train on a copy of each page with one name family masked (masking.FAMILIES)",
    )
    ap.add_argument(
        "--probe",
        action="append",
        default=[],
        metavar="PATTERN",
        help="also report the validations on the pages with this name family masked (repeatable)",
    )
    ap.add_argument("--write", action="store_true", help="fit on every page and write root_model_data.py")
    ap.add_argument(
        "--model-file",
        type=Path,
        help="where --write writes (default: the package's root_model_data.py; elsewhere to compare models)",
    )
    args = ap.parse_args(argv)
    bench = benchmarks_dir(args.benchmarks)
    if bench is None:
        print("no benchmark sets found (--benchmarks DIR)", file=sys.stderr)
        return 2
    sets = tuple(args.set or SETS)
    kinds = tuple(args.kinds) if args.kinds else None
    data = collect(bench, args.cache, args.jobs, sets)
    rows = rows_of(data, kinds)
    train = list(rows)
    if args.augment_masked:
        masked = collect(
            bench,
            args.cache,
            args.jobs,
            sets,
            lambda name, pid: family_of(SEED, name, pid),
            _mask_tag("augment", f"{SEED}"),
            data,
        )
        train += rows_of(masked, kinds, changed_only=True)
    evals = [rows]
    for pattern in args.probe:
        probe = collect(
            bench,
            args.cache,
            args.jobs,
            sets,
            _every_page(pattern),
            _mask_tag("probe", pattern),
            data,
        )
        evals.append(rows_of(probe, kinds))
    LOSS_WEIGHT, SET_WEIGHTS = args.loss_weight, args.set_weights
    print(f"{len(rows)} pages, {sum(len(r[2]) for r in rows)} candidates; {len(train)} training rows")
    cv = cross_validate(train, evals)
    loso = leave_one_set_out(train, evals) if len({r[0] for r in rows}) > 1 else None
    titles = ["", *(f"; names masked: {p}" for p in args.probe)]
    for e, (title, eval_rows) in enumerate(zip(titles, evals, strict=True)):
        for margin in args.sweep or [args.margin]:
            report(
                f"{FOLDS}-fold cross-validation, grouped by page (margin {margin}{title})",
                eval_rows,
                [pick(p, margin) for p in cv[e]],
            )
            if loso is not None:
                report(
                    f"leave one set out (train on the other sets; margin {margin}{title})",
                    eval_rows,
                    [pick(p, margin) for p in loso[e]],
                )
    oracle = [max(range(len(r[3])), key=lambda i: page_f1(r[3][i])) for r in rows]
    report("oracle (best candidate per page: the ceiling of this candidate set)", rows, oracle)
    if args.write:
        from .. import root_model_data

        write_model(fit(train), args.margin, args.model_file or Path(root_model_data.__file__))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
