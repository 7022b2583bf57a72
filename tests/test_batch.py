"""Many pages: the record API (``readwell.batch.extract_records``) and ``readwell batch`` end to end.

Inputs are made in the test: fixture pages copied into folders, WARC.gz files written with warcio's writer,
JSONL files. Subprocesses have a 60 s hang guard; nothing asserts wall-clock time.
"""

from __future__ import annotations

import ast
import gzip
import hashlib
import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import fixturelib
import pytest
import readwell
from readwell.batch import OUTPUT_KEYS, SPARK_SCHEMA, decode, extract_records, options_hash

FX = fixturelib.FIXTURES
PAGE = FX / "quality--comments-section.html"
PAGES = sorted(FX.glob("quality--*.html"))[:12]
WIDE = "<html><body><article>" + "<span>word word</span>" * 10_000 + "</article></body></html>"
GERMAN = (
    "<html><head>{meta}<title>Grüße</title></head><body><article><p>"
    + "Schöne Grüße aus der Stadt, sagte er, und die Straße war still. " * 8
    + "</p></article></body></html>"
)


def one(rec: dict[str, Any], **options: Any) -> dict[str, Any]:
    return next(extract_records([rec], **options))


# --- record API ------------------------------------------------------------------------------------------


def test_ok_record_has_every_documented_key_and_the_core_result() -> None:
    data = PAGE.read_bytes()
    out = one({"id": "p1", "url": "https://example.org/p", "html": data})
    assert tuple(out) == OUTPUT_KEYS
    core = readwell.extract(data, url="https://example.org/p")
    assert out["status"] == "ok" and out["error"] is None
    assert (out["title"], out["text"], out["markdown"], out["word_count"], out["lang"]) == (
        core.title,
        core.text,
        core.markdown,
        core.word_count,
        core.lang,
    )
    assert out["input_sha256"] == hashlib.sha256(data).hexdigest()
    assert out["readwell_version"] == readwell.__version__
    assert out["options_hash"] == options_hash({}) and out["elapsed_ms"] > 0


def test_records_skip_the_html_they_do_not_carry(monkeypatch: pytest.MonkeyPatch) -> None:
    """Records hold text and Markdown, never HTML: the HTML (and its final sanitizing pass, the dearest
    rendering step) is not made, and text and Markdown equal a full extraction's on every page tried."""
    full = {p: readwell.extract(p.read_bytes(), url="https://example.org/p") for p in PAGES}
    page_text = readwell.extract(PAGE.read_bytes()).text

    def no_html(*_: Any, **__: Any) -> str:
        raise AssertionError("batch rendered HTML it does not write")

    monkeypatch.setattr(sys.modules["readwell.extract"], "bleach_final", no_html)
    for p, core in full.items():
        out = one({"id": p.name, "url": "https://example.org/p", "html": p.read_bytes()})
        assert out["status"] == ("ok" if core.found else "empty"), (p.name, out["error"])
        assert (out["text"], out["markdown"], out["word_count"]) == (
            core.text,
            core.markdown,
            core.word_count,
        )
    # a caller who wants one output gets it alone; the other column is null, not ""
    only = one({"id": 1, "html": PAGE.read_bytes()}, formats=["text"])
    assert only["text"] == page_text
    assert only["markdown"] is None and only["options_hash"] != options_hash({})


def test_str_and_bytes_of_the_same_page_give_the_same_record() -> None:
    data = PAGE.read_bytes()
    a, b = extract_records([{"id": 1, "html": data}, {"id": 1, "html": data.decode("utf-8")}])
    a.pop("elapsed_ms"), b.pop("elapsed_ms")
    assert a == b


def test_options_hash_is_stable_and_follows_the_options() -> None:
    assert options_hash({}) == options_hash({"deadline_ms": 60_000, "max_work": 5_000, "disable": []})
    assert options_hash({}) != options_hash({"max_work": 4_999})
    assert options_hash({"disable": ["callouts", "resolve_urls"]}) == options_hash(
        {"disable": ["resolve_urls", "callouts"]}
    )
    assert options_hash({}) != options_hash({"max_bytes": 5})
    assert options_hash({}) != options_hash({"selector": "main"})


@pytest.mark.parametrize(
    ("rec", "status", "error_part"),
    [
        ({"html": "<p>four words only here</p>"}, "empty", None),
        ({"html": "<p>" + "x" * 2000 + "</p>"}, "too_large", "max_bytes"),
        ({"html": b"%PDF-1.7\n<<>>"}, "non_html", "PDF"),
        ({"html": b"\x89PNG\r\n\x1a\n<p>x</p>"}, "non_html", "PNG"),
        ({"html": "<p>x</p>", "content_type": "application/javascript"}, "non_html", "content type"),
        ({"html": "just words, no markup at all"}, "non_html", "no markup"),
        ({"html": b"\x01\x02\x03\x04\x05\x06" * 100 + b"<p>x</p>"}, "decode_error", "undecodable"),
        ({"html": None}, "error", "html is a NoneType"),
        ({"html": "<p>x</p>", "url": 7}, "error", "url is a int"),
    ],
)
def test_bad_records_get_a_status_not_an_exception(rec: dict[str, Any], status: str, error_part: str) -> None:
    out = one({"id": "r", **rec}, max_bytes=1000)
    assert out["status"] == status, out
    assert tuple(out) == OUTPUT_KEYS and out["id"] == "r"
    if error_part:
        assert error_part in out["error"]
        assert out["text"] is None and out["word_count"] == 0


def test_a_record_that_is_not_a_mapping_is_an_error_and_the_next_record_runs() -> None:
    outs = list(extract_records(["<p>a string</p>", {"id": 2, "html": PAGE.read_bytes()}]))  # type: ignore[list-item]
    assert [o["status"] for o in outs] == ["error", "ok"]
    assert "not a mapping" in outs[0]["error"]


def test_pathological_page_times_out_within_its_deadline() -> None:
    out = one({"id": "wide", "html": WIDE}, deadline_ms=20)
    assert out["status"] == "timeout" and "deadline of 20 ms" in out["error"]
    assert "wall-clock" in out["error"] and "backstop" in out["error"]  # not the reproducible kind: said so
    # (30 units pass before the first stage with either parser: measuring and reading the page's head)
    out = one({"id": "wide", "html": WIDE}, max_work=30, deadline_ms=None)
    assert (out["status"], out["error"]) == ("timeout", "work budget of 30 units passed during parse")


def least_budget(html: bytes, order: list[bytes]) -> int:
    """The smallest max_work under which ``html`` extracts (bisection), after extracting ``order`` first."""
    list(extract_records([{"html": h} for h in order], deadline_ms=None))
    lo, hi = 1, 1
    while one({"html": html}, max_work=hi, deadline_ms=None)["status"] == "timeout":
        lo, hi = hi + 1, hi * 2
    while lo < hi:
        mid = (lo + hi) // 2
        if one({"html": html}, max_work=mid, deadline_ms=None)["status"] == "timeout":
            lo = mid + 1
        else:
            hi = mid
    return hi


def test_work_budget_is_an_exact_threshold_whatever_the_process_or_history() -> None:
    """A page needs a fixed number of work units: one fewer times out, on every run, in any process, after
    any other pages (warm caches), whatever PYTHONHASHSEED: so a budget can never flip between two runs."""
    page = PAGE.read_bytes()
    need = least_budget(page, [])
    assert need > 3
    assert one({"html": page}, max_work=need - 1, deadline_ms=None)["status"] == "timeout"
    again = [one({"html": page}, max_work=need, deadline_ms=None) for _ in range(3)]
    assert {(r["status"], r["text"]) for r in again} == {("ok", readwell.extract(page).text)}
    script = (
        "import sys, json; sys.path.insert(0, 'tests'); from test_batch import least_budget, PAGES, PAGE; "
        "print(least_budget(PAGE.read_bytes(), [p.read_bytes() for p in reversed(PAGES)]))"
    )
    for seed in ("1", "4242"):
        proc = subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=Path(__file__).resolve().parents[1],
            env={**os.environ, "PYTHONHASHSEED": seed},
        )
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert int(proc.stdout.split()[-1]) == need


def readme_calls() -> dict[str, ast.Call]:
    """The Ray and Spark one-liners of README "Many pages", parsed: each must be a call chain of Python."""
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Many pages", 1)[1]
    lines = {k: next(ln for ln in section.splitlines() if ln.startswith(k)) for k in ("ds.", "df.rdd.")}
    return {k: ast.parse(v, mode="eval").body for k, v in lines.items()}  # type: ignore[misc]


def lambda_of(call: ast.Call, method: str) -> Any:
    """The lambda given to ``.method(...)`` in the chain ``call``, compiled against the record API."""
    node: Any = call
    while not (isinstance(node.func, ast.Attribute) and node.func.attr == method):
        node = node.func.value
    fn = ast.Expression(node.args[0])
    pa = pytest.importorskip("pyarrow")
    scope = {"extract_records": extract_records, "pa": pa, "Row": SparkRow}
    return eval(compile(fn, "README.md", "eval"), scope)  # noqa: S307 - our own README's code


class SparkRow(dict):  # type: ignore[type-arg]
    """pyspark.sql.Row's two faces the one-liner uses: ``Row(**d)`` and ``row.asDict()``."""

    def asDict(self) -> dict[str, Any]:  # noqa: N802 - Spark's name
        return dict(self)


def test_readme_ray_and_spark_one_liners_run_against_the_record_api() -> None:
    calls = readme_calls()
    pa = pytest.importorskip("pyarrow")
    pages = [
        {"id": str(i), "url": f"https://example.org/{i}", "html": p.read_bytes()}
        for i, p in enumerate(PAGES[:3])
    ]
    want = [{k: v for k, v in r.items() if k != "elapsed_ms"} for r in extract_records(pages)]

    ray_batch = lambda_of(calls["ds."], "map_batches")  # Ray Data hands it one Arrow table per batch
    assert [kw.arg for kw in calls["ds."].keywords] == ["batch_format"]
    table = ray_batch(pa.Table.from_pylist(pages))
    assert table.column_names == list(OUTPUT_KEYS)
    assert [{k: v for k, v in r.items() if k != "elapsed_ms"} for r in table.to_pylist()] == want

    partition = lambda_of(calls["df.rdd."], "mapPartitions")  # Spark hands it an iterator of Rows
    to_row = lambda_of(calls["df.rdd."], "map")
    rows = [to_row(d) for d in partition(iter(SparkRow(p) for p in pages))]
    assert [{k: v for k, v in r.asDict().items() if k != "elapsed_ms"} for r in rows] == want
    assert ast.unparse(calls["df.rdd."].args[0]) == "SPARK_SCHEMA"
    assert [c.split()[0] for c in SPARK_SCHEMA.split(", ")] == list(OUTPUT_KEYS)
    for r in rows:  # every value fits its declared Spark type
        for col in SPARK_SCHEMA.split(", "):
            name, kind = col.split()
            value = r[name]
            types = {"bigint": int, "double": float, "string": str}[kind]
            assert value is None or isinstance(value, types), (name, value)


def test_a_bug_in_the_core_is_this_records_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import readwell.batch as batch

    def boom(*a: Any, **k: Any) -> Any:
        raise ZeroDivisionError("bug")

    monkeypatch.setattr(batch, "extract", boom)
    outs = list(extract_records([{"id": 1, "html": "<p>x</p>"}, {"id": 2, "html": "<p>y</p>"}]))
    assert [(o["status"], o["error"]) for o in outs] == [("error", "ZeroDivisionError: bug")] * 2


def test_invalid_options_raise_before_any_record() -> None:
    with pytest.raises(readwell.InputError, match="unknown option"):
        list(extract_records([], colour="red"))
    with pytest.raises(readwell.InputError, match="unknown stage"):
        list(extract_records([], disable=["nope"]))
    with pytest.raises(readwell.InputError, match="max_bytes"):
        list(extract_records([], max_bytes=0))


# --- charset order: HTTP, then the page's declaration, then detection -------------------------------------


def test_http_charset_comes_first() -> None:
    data = GERMAN.format(meta='<meta charset="utf-8">').encode("cp1252")
    out = one({"html": data, "charset": "windows-1252"})
    assert out["title"] == "Grüße" and "Schöne Grüße" in out["text"]


def test_page_declaration_without_http_charset() -> None:
    data = GERMAN.format(meta='<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1">')
    out = one({"html": data.encode("cp1252")})
    assert out["title"] == "Grüße"


def test_wrong_http_charset_falls_through_to_the_next_candidate() -> None:
    data = GERMAN.format(meta='<meta charset="windows-1252">').encode("cp1252")
    assert one({"html": data, "charset": "utf-8"})["title"] == "Grüße"  # not valid UTF-8: the page decides


def test_detection_when_nothing_is_declared() -> None:
    assert decode.decode(GERMAN.format(meta="").encode("utf-8"))[1] == "utf-8"
    text, codec = decode.decode(GERMAN.format(meta="").encode("cp1252"))
    assert codec != "utf-8" and "Stra" in text
    assert decode.codec_name("latin1") == "cp1252"  # WHATWG: latin1 means windows-1252
    assert decode.codec_name("no-such-charset") is None


# --- readwell batch --------------------------------------------------------------------------------------


def batch(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "readwell.cli", "batch", "--no-progress", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def make_folder(root: Path, pages: list[Path] = PAGES) -> Path:
    folder = root / "pages"
    (folder / "sub").mkdir(parents=True)
    for i, p in enumerate(pages):
        target = folder / ("sub" if i % 3 == 0 else "") / p.name
        if i % 4 == 1:
            target.with_name(p.name + ".gz").write_bytes(gzip.compress(p.read_bytes()))
        else:
            target.write_bytes(p.read_bytes())
    (folder / "notes.txt").write_text("not a page")
    return folder


def write_warc(path: Path, responses: list[tuple[str, str, bytes]]) -> None:
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    with open(path, "wb") as fh:
        w = WARCWriter(fh, gzip=True)
        w.write_record(w.create_warcinfo_record(path.name, {"software": "readwell tests"}))
        for url, ctype, body in responses:
            hh = StatusAndHeaders("200 OK", [("Content-Type", ctype)], protocol="HTTP/1.1")
            w.write_record(w.create_warc_record(url, "response", payload=io.BytesIO(body), http_headers=hh))


def test_folder_of_pages(tmp_path: Path) -> None:
    folder = make_folder(tmp_path)
    out = tmp_path / "out.jsonl"
    p = batch(str(folder), "-o", str(out))
    assert p.returncode == 0, p.stderr
    recs = read_jsonl(out)
    ids = [r["id"] for r in recs]
    assert len(recs) == len(PAGES) and ids == sorted(ids)  # sorted by relative path, notes.txt ignored
    assert any(i.endswith(".html.gz") for i in ids) and any("/sub/" in i for i in ids)
    for r in recs:
        assert tuple(r) == OUTPUT_KEYS and r["status"] == "ok"
        name = r["id"].rsplit("/", 1)[1].removesuffix(".gz")
        assert r["text"] == readwell.extract(FX / name).text
    assert f"{len(PAGES)} records" in p.stderr and f"ok {len(PAGES)}" in p.stderr


def test_warc_gz_written_with_warcio(tmp_path: Path) -> None:
    german = GERMAN.format(meta="").encode("cp1252")
    warc = tmp_path / "crawl.warc.gz"
    write_warc(
        warc,
        [
            ("https://example.org/a", "text/html; charset=utf-8", PAGE.read_bytes()),
            ("https://example.org/logo.png", "image/png", b"\x89PNG\r\n\x1a\n"),
            ("https://example.org/de", "text/html; charset=windows-1252", german),
            ("https://example.org/short", "text/html", b"<p>tiny</p>"),
        ],
    )
    out = tmp_path / "out.jsonl"
    p = batch(str(warc), "-o", str(out))
    assert p.returncode == 0, p.stderr
    recs = read_jsonl(out)
    assert [(r["url"], r["status"]) for r in recs] == [
        ("https://example.org/a", "ok"),
        ("https://example.org/de", "ok"),
        ("https://example.org/short", "empty"),
    ]
    assert all(r["id"].startswith("<urn:uuid:") for r in recs)
    assert recs[0]["text"] == readwell.extract(PAGE.read_bytes(), url="https://example.org/a").text
    assert recs[1]["title"] == "Grüße" and recs[1]["input_sha256"] == hashlib.sha256(german).hexdigest()
    assert "1 non-HTML WARC responses skipped" in p.stderr


def test_warcio_fallback_reads_the_same_records(tmp_path: Path) -> None:
    from readwell.batch import readers

    warc = tmp_path / "crawl.warc.gz"
    write_warc(warc, [(f"https://example.org/{p.stem}", "text/html", p.read_bytes()) for p in PAGES[:4]])
    fast = [i.record for i in readers._read_warc_fastwarc(str(warc), readers.Tally())]
    slow = [i.record for i in readers._read_warc_warcio(str(warc), readers.Tally())]
    assert fast == slow and len(fast) == 4


def test_jsonl_input_and_parquet_output(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    lines = [
        json.dumps({"id": "a", "url": "https://example.org/a", "html": PAGE.read_text(encoding="utf-8")}),
        "{not json",
        json.dumps({"url": "https://example.org/b", "html": "<p>tiny</p>"}),
    ]
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    assert batch(str(src), "-o", str(out)).returncode == 0
    recs = read_jsonl(out)
    assert [(r["id"], r["status"]) for r in recs] == [
        ("a", "ok"),
        (f"{src}:2", "error"),
        (f"{src}:3", "empty"),
    ]
    pq = pytest.importorskip("pyarrow.parquet")
    pout = tmp_path / "out.parquet"
    assert batch(str(src), "-o", str(pout), "--no-timings").returncode == 0
    table = pq.read_table(pout).to_pylist()
    assert [(r["id"], r["status"], r["text"]) for r in table] == [
        (r["id"], r["status"], r["text"]) for r in recs
    ]


def test_timeout_record_in_a_run(tmp_path: Path) -> None:
    """A page past its deadline ends as ``timeout`` and the run goes on (the next record's status is decided
    before any extraction, so no wall-clock margin is involved: 20,000 spans cannot be done in 20 ms)."""
    folder = tmp_path / "pages"
    folder.mkdir()
    (folder / "a-wide.html").write_text(WIDE.replace("</span>", "</span><span>word</span>"))
    (folder / "b-big.html").write_text("<p>" + "x" * 1_200_000 + "</p>")
    out = tmp_path / "out.jsonl"
    p = batch(str(folder), "-o", str(out), "--timeout", "20", "--max-bytes", "1000000")
    assert p.returncode == 0, p.stderr
    recs = read_jsonl(out)
    assert [r["status"] for r in recs] == ["timeout", "too_large"]
    assert "deadline of 20 ms" in recs[0]["error"] and "timeout 1" in p.stderr


def test_j1_and_j2_outputs_are_byte_identical(tmp_path: Path) -> None:
    folder = make_folder(tmp_path)
    o1, o2 = tmp_path / "j1.jsonl", tmp_path / "j2.jsonl"
    assert batch(str(folder), "-o", str(o1), "-j", "1", "--no-timings").returncode == 0
    assert batch(str(folder), "-o", str(o2), "-j", "2", "--no-timings").returncode == 0
    assert o1.read_bytes() == o2.read_bytes() and len(read_jsonl(o1)) == len(PAGES)


def test_resume_after_a_partial_line_equals_an_uninterrupted_run(tmp_path: Path) -> None:
    folder = make_folder(tmp_path)
    full = tmp_path / "full.jsonl"
    assert batch(str(folder), "-o", str(full), "--no-timings").returncode == 0
    data = full.read_bytes()
    cut = data.index(b"\n", len(data) // 2) + 40  # five lines or so, then half a line
    part = tmp_path / "part.jsonl"
    part.write_bytes(data[:cut])
    p = batch(str(folder), "-o", str(part), "--no-timings", "--resume", "-j", "2")
    assert p.returncode == 0, p.stderr
    assert part.read_bytes() == data
    assert "already done (--resume)" in p.stderr


def _children(pid: int) -> list[int]:
    kids = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                kids.append(int(d.name))
    return kids


def _wait_for(cond: Any, what: str, limit: float = 60) -> None:
    end = time.monotonic() + limit  # hang guard only
    while not cond():
        assert time.monotonic() < end, f"gave up waiting for {what}"
        time.sleep(0.05)


needs_proc = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")


@needs_proc
def test_resume_after_a_killed_run_equals_an_uninterrupted_run(tmp_path: Path) -> None:
    pages = sorted(FX.glob("quality--*.html"))[:30]
    folder = make_folder(tmp_path, pages)
    full = tmp_path / "full.jsonl"
    assert batch(str(folder), "-o", str(full), "--no-timings").returncode == 0
    out = tmp_path / "out.jsonl"
    cmd = [sys.executable, "-m", "readwell.cli", "batch", str(folder), "-o", str(out), "--no-timings"]
    proc = subprocess.Popen([*cmd, "--no-progress"], stderr=subprocess.DEVNULL)
    try:
        _wait_for(lambda: out.exists() and out.read_bytes().count(b"\n") >= 3, "three lines")
        workers = _children(proc.pid)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
    finally:
        proc.kill()
    assert workers, "the run had worker processes"
    # a worker whose parent was killed (OOM killer, kill -9) exits instead of waiting forever
    _wait_for(lambda: not any(Path(f"/proc/{pid}").exists() for pid in workers), "orphaned workers to exit")
    lines = out.read_bytes().count(b"\n")
    assert 3 <= lines < len(pages), "the run must have been interrupted midway"
    p = batch(str(folder), "-o", str(out), "--no-timings", "--resume")
    assert p.returncode == 0, p.stderr
    assert out.read_bytes() == full.read_bytes()


@needs_proc
def test_killed_worker_loses_only_its_record(tmp_path: Path) -> None:
    folder = tmp_path / "pages"
    folder.mkdir()
    (folder / "a-slow.html").write_text(WIDE.replace("</span>", "</span><span>w</span>" * 4))
    for p in PAGES[:3]:
        (folder / ("b-" + p.name)).write_bytes(p.read_bytes())
    out = tmp_path / "out.jsonl"
    cmd = [sys.executable, "-m", "readwell.cli", "batch", str(folder), "-o", str(out)]
    proc = subprocess.Popen([*cmd, "-j", "1", "--timeout", "0", "--no-progress"], stderr=subprocess.PIPE)
    try:
        _wait_for(lambda: _children(proc.pid), "a worker process")
        time.sleep(0.2)  # the worker holds the slow page (50,000 spans, no deadline) from its first moment
        for kid in _children(proc.pid):
            os.kill(kid, signal.SIGKILL)
        _, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    recs = read_jsonl(out)
    assert [r["status"] for r in recs] == ["crashed", "ok", "ok", "ok"]
    assert recs[0]["id"].endswith("a-slow.html") and "SIGKILL" in recs[0]["error"]
    assert b"crashed 1" in err


def test_batch_usage_errors_are_one_line(tmp_path: Path) -> None:
    for args in (
        [str(tmp_path / "missing"), "-o", str(tmp_path / "o.jsonl")],
        [str(PAGE), "-o", str(tmp_path / "o.jsonl"), "--disable", "nope"],
        [str(PAGE), "-o", str(tmp_path / "o.parquet"), "--resume"],
        [str(tmp_path), "-o", str(tmp_path / "o.jsonl"), "-j", "0"],
    ):
        p = batch(*args)
        assert p.returncode == 2 and p.stderr.startswith("readwell:") and "Traceback" not in p.stderr, args
        assert len(p.stderr.splitlines()) == 1
