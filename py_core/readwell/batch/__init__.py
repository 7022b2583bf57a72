"""Many pages: the engine-agnostic record API that ``readwell batch``, datatrove, Ray and Spark all call.

``extract_records(records, **options)`` yields one flat dict per input record and never raises for a record:
whatever goes wrong with one page (too big, not HTML, undecodable, past its deadline, a bug) becomes its
``status`` and ``error``, and the next record runs. Each output names the code and options that made it
(``readwell_version``, ``options_hash``) and the exact input (``input_sha256``), so corpus builders can
deduplicate, rerun and audit. Pure Python like the core: it runs in Pyodide too; the process pool, the
readers and the progress bar live in ``readwell.batch.runner`` (CPython).

Two runs over the same input write the same records (``elapsed_ms`` aside, the one field that measures the
machine): the per-page limit is a **work budget** (``max_work``), not a time. The core's deadline checks
(one every ``deadline.STRIDE`` node operations of the tree builder and the walks, one between stages) are
counted instead of timed, so a page either always or never exceeds its budget, whatever the machine's load
or ``-j``. The wall-clock ``deadline_ms`` stays as a backstop for work the checks do not see (a slow C
parser, a regex); it is set far above any real page's time, and a record it stops says so in its ``error``
(``wall-clock backstop``): that one outcome depends on the machine, by nature.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import fields
from typing import Any

from .. import __version__, deadline
from ..errors import InputError
from ..extract import extract, make_options
from ..options import OPTION_NAMES, Options
from . import decode

# One page above this many bytes is refused (``too_large``) before parsing: memory, not time, is the limit
# here (the deadline bounds time); trafilatura's own cap is 20 MB.
DEFAULT_MAX_BYTES = 10_000_000
# Per-page work budget, in units of the core's deadline checks (about STRIDE=256 node operations each).
# Measured on the 1,560 development pages (2026-11-30): the most any page needs is 1,165 units (median 60),
# so 5,000 leaves 4x headroom; at the corpus's median 0.29 units/ms on a 2-core machine that is ~17 s.
DEFAULT_MAX_WORK = 5_000
# Wall-clock backstop per page, for work the checks cannot count; 6x what the work budget costs at the
# corpus's median rate, so only a stuck page (or a machine in trouble) meets it. datatrove gives its
# Trafilatura step 1 s with an lxml parser.
DEFAULT_DEADLINE_MS = 60_000.0

STATUSES = ("ok", "empty", "timeout", "too_large", "decode_error", "non_html", "error", "crashed")
OUTPUT_KEYS = (
    "id",
    "url",
    "status",
    "error",
    "title",
    "byline",
    "published",
    "lang",
    "text",
    "markdown",
    "word_count",
    "elapsed_ms",
    "readwell_version",
    "options_hash",
    "input_sha256",
)
# Spark's DDL for the records (``rdd.toDF(SPARK_SCHEMA)``): Spark cannot infer a column that is null in every
# sampled row (``error`` usually is); ids are strings (JSON ids may mix types).
_SQL_TYPES = {"word_count": "bigint", "elapsed_ms": "double"}
SPARK_SCHEMA = ", ".join(f"{k} {_SQL_TYPES.get(k, 'string')}" for k in OUTPUT_KEYS)
BATCH_OPTIONS = frozenset({"max_bytes", "max_work"})
# What a record carries: text and Markdown, never HTML, so HTML is not rendered by default (its final
# sanitizing pass is about a sixth of a page's time); a caller may ask for one of the two alone.
BATCH_FORMATS = ("markdown", "text")
_IGNORED = frozenset({"debug"})  # no removal log in records


def normalize_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """Every option with its default filled in, validated once (a bad option raises; a bad record never)."""
    allowed = (OPTION_NAMES - _IGNORED) | BATCH_OPTIONS
    unknown = set(options) - allowed
    if unknown:
        raise InputError(f"unknown option(s): {', '.join(sorted(unknown))}")
    given = {k: v for k, v in options.items() if k in OPTION_NAMES}
    given.setdefault("deadline_ms", DEFAULT_DEADLINE_MS)  # None given: explicitly no deadline
    given.setdefault("formats", BATCH_FORMATS)
    opts = make_options(None, given)  # the core validates and coerces (stage names, deadline, numbers)
    # Every core option (defaults from Options, the single source) in one normal form: one setting, one hash.
    out: dict[str, Any] = {f.name: getattr(opts, f.name) for f in fields(Options) if f.name in allowed}
    out["disable"] = sorted(opts.disable)
    max_bytes = options.get("max_bytes", DEFAULT_MAX_BYTES)
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes <= 0:
        raise InputError(f"max_bytes must be a positive integer, not {max_bytes!r}")
    out["max_bytes"] = max_bytes
    max_work = options.get("max_work", DEFAULT_MAX_WORK)  # None: no work budget, the wall clock alone
    if max_work is not None and (
        isinstance(max_work, bool) or not isinstance(max_work, int) or max_work <= 0
    ):
        raise InputError(f"max_work must be a positive integer or None, not {max_work!r}")
    out["max_work"] = max_work
    return out


class WorkBudget:
    """The clock a record's ``deadline.Deadline`` reads: work counted, with the wall clock as a backstop.

    Each read is one of the core's deadline checks, and returns the number of checks so far in
    "milliseconds" (so a Deadline of ``limit_ms = max_work`` expires on check number ``max_work + 1`` after
    the first). Past the wall-clock ``backstop_ms`` it returns infinity and remembers it did (the record's
    error names which limit stopped it).
    """

    __slots__ = ("reads", "wall_expires", "wall_passed")

    def __init__(self, backstop_ms: float | None) -> None:
        self.reads = 0
        self.wall_expires = None if backstop_ms is None else time.perf_counter() + backstop_ms / 1000.0
        self.wall_passed = False

    def __call__(self) -> float:
        self.reads += 1
        if self.wall_expires is not None and time.perf_counter() >= self.wall_expires:
            self.wall_passed = True
            return math.inf
        return self.reads / 1000.0


def options_hash(options: Mapping[str, Any]) -> str:
    """Short stable hash of the normalized options: records made with the same settings share it."""
    canon = json.dumps(normalize_options(options), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canon.encode("utf-8")).hexdigest()[:16]


def _extract_options(opts: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in opts.items() if k not in BATCH_OPTIONS}


def empty_record(rec_id: Any, url: Any, status: str, error: str | None, opts_hash: str) -> dict[str, Any]:
    """A record with no extraction: every key present, content keys null (``crashed`` records use this)."""
    out: dict[str, Any] = dict.fromkeys(OUTPUT_KEYS)
    out.update(
        id=rec_id,
        url=url,
        status=status,
        error=error,
        word_count=0,
        readwell_version=__version__,
        options_hash=opts_hash,
    )
    return out


def extract_records(records: Iterable[Mapping[str, Any]], **options: Any) -> Iterator[dict[str, Any]]:
    """One output dict per input ``{id, url, html (str|bytes), charset?, date?, content_type?}``, in order.

    Options are those of ``readwell.extract`` (``deadline_ms``, the wall-clock backstop, defaults to 60 s
    here, None for none) plus ``max_bytes`` and ``max_work`` (the work budget, see the module doc; None for
    none). Invalid options raise ``InputError`` before the first record.
    """
    opts = normalize_options(options)
    digest = options_hash(opts)
    for rec in records:
        yield extract_record(rec, opts, digest)


def extract_record(rec: Mapping[str, Any], opts: Mapping[str, Any], digest: str) -> dict[str, Any]:
    """One record with already normalized options; never raises (see ``extract_records``)."""
    t0 = time.perf_counter()
    rec_id = url = None
    try:
        if not isinstance(rec, Mapping):
            raise TypeError(f"record is a {type(rec).__name__}, not a mapping")
        rec_id, url = rec.get("id"), rec.get("url")
        out = _extract(rec, opts, digest)
    except (RecursionError, MemoryError) as exc:
        out = empty_record(rec_id, url, "error", f"input too complex ({type(exc).__name__})", digest)
    except Exception as exc:  # a bug in the core: this record's error, never the run's
        out = empty_record(rec_id, url, "error", f"{type(exc).__name__}: {exc}", digest)
    out["elapsed_ms"] = round((time.perf_counter() - t0) * 1000, 3)
    return out


def _extract(rec: Mapping[str, Any], opts: Mapping[str, Any], digest: str) -> dict[str, Any]:
    rec_id, url, html = rec.get("id"), rec.get("url"), rec.get("html")
    if url is not None and not isinstance(url, str):
        return empty_record(rec_id, None, "error", f"url is a {type(url).__name__}, not a string", digest)
    if isinstance(html, str):
        raw = html.encode("utf-8", "surrogatepass")
    elif isinstance(html, bytes | bytearray | memoryview):
        raw = bytes(html)
    else:
        return empty_record(rec_id, url, "error", f"html is a {type(html).__name__}, not str/bytes", digest)
    base = empty_record(rec_id, url, "ok", None, digest)
    base["input_sha256"] = hashlib.sha256(raw).hexdigest()

    def fail(status: str, error: str) -> dict[str, Any]:
        base.update(status=status, error=error)
        return base

    if len(raw) > opts["max_bytes"]:
        return fail("too_large", f"{len(raw)} bytes > max_bytes {opts['max_bytes']}")
    content_type = rec.get("content_type")
    if not decode.is_html_type(content_type):
        return fail("non_html", f"content type {content_type}")
    kind = decode.binary_kind(raw)
    if kind:
        return fail("non_html", f"{kind} (by its first bytes)")
    if isinstance(html, str):
        text = html
    else:
        text, codec = decode.decode(raw, rec.get("charset"))
        share = decode.bad_share(text)
        if share > decode.MAX_BAD_SHARE:
            return fail("decode_error", f"{share:.0%} undecodable characters as {codec}")
    if "<" not in text[:65536]:
        return fail("non_html", "no markup in the first 64 KiB")
    budget = WorkBudget(opts["deadline_ms"]) if opts["max_work"] is not None else None
    with deadline.started(opts["max_work"] if budget else None, clock=budget):  # extract keeps it running
        result = extract(text, url=url, **_extract_options(opts))
    if result.status == "timeout":
        stage = result.timeout["stage"] if result.timeout else "?"
        if budget is not None and not budget.wall_passed:
            return fail("timeout", f"work budget of {opts['max_work']} units passed during {stage}")
        backstop = " (the backstop: depends on the machine's load)" if budget else ""
        return fail(
            "timeout", f"wall-clock deadline of {opts['deadline_ms']:g} ms{backstop} passed during {stage}"
        )
    base.update(
        status=result.status,
        title=result.title,
        byline=result.byline,
        published=result.published,
        lang=result.lang,
        text=result.text,
        markdown=result.markdown,
        word_count=result.word_count,
    )
    return base


__all__ = [
    "DEFAULT_DEADLINE_MS",
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_WORK",
    "SPARK_SCHEMA",
    "STATUSES",
    "extract_records",
    "options_hash",
]
