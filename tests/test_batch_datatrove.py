"""The datatrove block: ``WarcReader → Readwell → JsonlWriter`` through datatrove's own executors.

The WARC is written in the test with warcio's writer; outputs are compared with ``readwell.extract`` on the
same pages. Ray runs only where ray is installed (see the report in README "Many pages").
"""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path
from typing import Any

import fixturelib
import pytest
import readwell

pytest.importorskip("datatrove")
pytest.importorskip("warcio")
pytest.importorskip("cchardet")  # datatrove's WarcReader imports it (and python-magic) per record
pytest.importorskip("magic")

from datatrove.executor import LocalPipelineExecutor  # noqa: E402
from datatrove.pipeline.readers import WarcReader  # noqa: E402
from datatrove.pipeline.writers import JsonlWriter  # noqa: E402
from readwell.batch.datatrove_step import Readwell  # noqa: E402

FX = fixturelib.FIXTURES
PAGES = sorted(FX.glob("quality--*.html"))[:5]
WIDE = "<html><body><article>" + "<span>word word</span>" * 10_000 + "</article></body></html>"


def write_warc(path: Path, responses: list[tuple[str, bytes]]) -> None:
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    with open(path, "wb") as fh:
        w = WARCWriter(fh, gzip=True)
        for url, body in responses:
            hh = StatusAndHeaders(
                "200 OK", [("Content-Type", "text/html; charset=utf-8")], protocol="HTTP/1.1"
            )
            rec = w.create_warc_record(
                url,
                "response",
                payload=io.BytesIO(body),
                http_headers=hh,
                warc_headers_dict={"WARC-Identified-Payload-Type": "text/html"},
            )
            w.write_record(rec)


def read_out(folder: Path) -> list[dict[str, Any]]:
    docs = []
    for f in sorted(folder.glob("*.jsonl.gz")):
        with gzip.open(f, "rt", encoding="utf-8") as fh:
            docs += [json.loads(line) for line in fh]
    return docs


def stats_of(logs: Path) -> dict[str, Any]:
    stats = json.loads((logs / "stats.json").read_text())
    return next(s for s in stats if s["name"].endswith("Readwell"))["stats"]


@pytest.fixture
def crawl(tmp_path: Path) -> Path:
    src = tmp_path / "warc"
    src.mkdir()
    pages = [(f"https://example.org/{p.stem}", p.read_bytes()) for p in PAGES]
    pages.insert(2, ("https://example.org/nav", b"<html><body><nav><a href='/'>Home</a></nav></body></html>"))
    write_warc(src / "crawl.warc.gz", pages)
    return src


def test_local_executor_markdown_metadata_stats_and_exclusions(crawl: Path, tmp_path: Path) -> None:
    out, dropped, logs = tmp_path / "out", tmp_path / "dropped", tmp_path / "logs"
    step = Readwell(output="markdown", timeout=60, exclusion_writer=JsonlWriter(str(dropped)))
    LocalPipelineExecutor(
        pipeline=[WarcReader(str(crawl), glob_pattern="*.warc.gz"), step, JsonlWriter(str(out))],
        tasks=1,
        workers=1,
        logging_dir=str(logs),
    ).run()
    docs = read_out(out)
    assert [d["metadata"]["url"] for d in docs] == [f"https://example.org/{p.stem}" for p in PAGES]
    for d, p in zip(docs, PAGES, strict=True):
        want = readwell.extract(p.read_bytes(), url=d["metadata"]["url"])
        assert d["text"] == want.markdown
        meta = d["metadata"]
        assert (meta["title"], meta["lang"], meta["word_count"]) == (want.title, want.lang, want.word_count)
        assert meta["readwell_status"] == "ok" and meta["readwell_version"] == readwell.__version__
    gone = read_out(dropped)
    assert [(d["metadata"]["url"], d["metadata"]["filter_reason"]) for d in gone] == [
        ("https://example.org/nav", "readwell_empty"),
    ]
    stats = stats_of(logs)
    assert stats["ok"] == len(PAGES) and stats["empty"] == 1
    assert stats["total"] == len(PAGES) + 1 and stats["forwarded"] == len(PAGES) and stats["dropped"] == 1


def test_timeout_is_counted_and_written_with_its_reason(tmp_path: Path) -> None:
    """deadline_ms=0: every page passes its deadline inside the sandbox's child (deterministic, no clock)."""
    from datatrove.data import Document

    dropped = tmp_path / "dropped"
    step = Readwell(timeout=60, deadline_ms=0, exclusion_writer=JsonlWriter(str(dropped)))
    docs = [Document(text=WIDE, id="w", metadata={"url": "https://example.org/wide"})]
    assert list(step.run(docs)) == []
    gone = read_out(dropped)
    assert [d["metadata"]["filter_reason"] for d in gone] == ["readwell_timeout"]
    assert "deadline of 0 ms" in gone[0]["metadata"]["readwell_error"]
    assert step.stats["timeout"].total == 1 and step.stats["dropped"].total == 1


def test_text_output_and_the_base_class_contract(crawl: Path, tmp_path: Path) -> None:
    step = Readwell(output="text")
    page = PAGES[0].read_bytes().decode("utf-8")
    assert (
        step.extract(page, "https://example.org/a")
        == readwell.extract(page, url="https://example.org/a").text
    )
    assert step.extract("<p>tiny</p>") == ""
    with pytest.raises(ValueError, match="output"):
        Readwell(output="html")  # type: ignore[arg-type]
    with pytest.raises(readwell.InputError):
        Readwell(disable=["no_such_stage"])


def test_ray_executor_on_two_cpus(crawl: Path, tmp_path: Path) -> None:
    ray = pytest.importorskip("ray")
    from datatrove.executor.ray import RayPipelineExecutor

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        out, logs = tmp_path / "out", tmp_path / "logs"
        RayPipelineExecutor(
            pipeline=[
                WarcReader(str(crawl), glob_pattern="*.warc.gz"),
                Readwell(timeout=60),
                JsonlWriter(str(out)),
            ],
            tasks=1,
            workers=2,
            logging_dir=str(logs),
        ).run()
    finally:
        ray.shutdown()
    docs = read_out(out)
    assert [d["metadata"]["url"] for d in docs] == [f"https://example.org/{p.stem}" for p in PAGES]
    assert [d["text"] for d in docs] == [
        readwell.extract(p.read_bytes(), url=f"https://example.org/{p.stem}").markdown for p in PAGES
    ]
