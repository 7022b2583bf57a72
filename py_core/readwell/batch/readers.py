"""Inputs of ``readwell batch``: folders of pages, WARC files, JSONL; each yields records in a fixed order.

A record is the record API's input (``id, url, html, charset, date, content_type``). Readers never decode
HTML (``readwell.batch.decode`` does, with the HTTP charset they pass on) and never raise for one bad entry:
an unreadable file or a broken JSON line becomes a record with ``read_error``, which the runner writes as an
``error`` record. Order is the input order (folders sorted by path), so output order is the same whatever
the number of workers.

WARC: fastwarc (Rust, several times faster than warcio on Common Crawl files) when installed, else warcio;
both from the ``batch`` extra. Only ``response`` records whose HTTP content type may be HTML are read; the
others are counted as skipped, not written.
"""

from __future__ import annotations

import gzip
import json
import os
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from ..errors import InputError
from . import decode

PAGE_SUFFIXES = (".html", ".htm", ".html.gz", ".htm.gz", ".xhtml")
WARC_SUFFIXES = (".warc", ".warc.gz")
JSONL_SUFFIXES = (".jsonl", ".jsonl.gz", ".ndjson")


@dataclass
class Item:
    """One input record and how many input bytes reading it consumed (for the progress bar's ETA)."""

    record: dict[str, Any]
    nbytes: int = 0


@dataclass
class Tally:
    """What readers passed over without a record: non-HTML WARC responses."""

    skipped_non_html: int = 0
    by_type: dict[str, int] = field(default_factory=dict)

    def skip(self, content_type: str | None) -> None:
        self.skipped_non_html += 1
        key = (content_type or "?").split(";")[0].strip().lower()
        self.by_type[key] = self.by_type.get(key, 0) + 1


def kind_of(path: str) -> str:
    low = path.lower()
    if os.path.isdir(path):
        return "folder"
    for kind, suffixes in (("warc", WARC_SUFFIXES), ("jsonl", JSONL_SUFFIXES), ("page", PAGE_SUFFIXES)):
        if low.endswith(suffixes):
            return kind
    raise InputError(f"{path}: not a folder, .html/.htm(.gz), .warc(.gz) or .jsonl file")


def total_bytes(paths: list[str]) -> int:
    """Input size for the ETA (folders: the pages they hold)."""
    total = 0
    for p in paths:
        if kind_of(p) == "folder":
            total += sum(f.stat().st_size for f in _pages_in(Path(p)))
        else:
            total += os.path.getsize(p)
    return total


def read_inputs(paths: list[str], tally: Tally | None = None) -> Iterator[Item]:
    """Records of every input in the order given; checks that each input exists first."""
    for p in paths:
        if not os.path.exists(p):
            raise InputError(f"cannot read {p}: no such file or folder")
        kind_of(p)
    tally = tally or Tally()
    for p in paths:
        kind = kind_of(p)
        if kind == "folder":
            yield from read_folder(p)
        elif kind == "page":
            yield _page(Path(p), p)
        elif kind == "warc":
            yield from read_warc(p, tally)
        else:
            yield from read_jsonl(p)


def _pages_in(folder: Path) -> list[Path]:
    found = [f for f in folder.rglob("*") if f.name.lower().endswith(PAGE_SUFFIXES) and f.is_file()]
    return sorted(found, key=lambda f: f.relative_to(folder).as_posix())


def read_folder(folder: str) -> Iterator[Item]:
    """Pages under ``folder`` sorted by relative path; the id is the path as given plus that relative path."""
    base = Path(folder)
    for f in _pages_in(base):
        yield _page(f, (Path(folder) / f.relative_to(base)).as_posix())


def _page(f: Path, rec_id: str) -> Item:
    rec: dict[str, Any] = {"id": rec_id, "url": None}
    try:
        data = f.read_bytes()
        size = len(data)
        if f.name.lower().endswith(".gz"):
            data = gzip.decompress(data)
        rec["html"] = data
    except (OSError, EOFError, zlib.error) as exc:
        rec["read_error"] = f"cannot read {rec_id}: {exc}"
        size = 0
    return Item(rec, size)


def read_jsonl(path: str) -> Iterator[Item]:
    """One record per line: ``html`` and ``url`` (and optional ``id``, ``charset``, ``date``)."""
    opener = gzip.open if path.lower().endswith(".gz") else open
    with opener(path, "rb") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            fallback = f"{path}:{lineno}"
            try:
                obj = json.loads(line)
                if not isinstance(obj, dict):
                    raise ValueError(f"a JSON {type(obj).__name__}, not an object")
            except ValueError as exc:
                yield Item({"id": fallback, "url": None, "read_error": f"bad JSON line: {exc}"}, len(line))
                continue
            rec = {k: obj.get(k) for k in ("url", "html", "charset", "date", "content_type")}
            rec["id"] = obj.get("id", fallback)
            yield Item(rec, len(line))


def read_warc(path: str, tally: Tally) -> Iterator[Item]:
    try:
        import fastwarc  # noqa: F401
    except ImportError:
        yield from _read_warc_warcio(path, tally)
    else:
        yield from _read_warc_fastwarc(path, tally)


def _warc_record(
    rec_id: str | None, url: str | None, date: str | None, content_type: str | None, body: bytes, enc: str
) -> dict[str, Any]:
    body = _content_decoded(body, enc)
    charset = _http_charset(content_type)
    return {
        "id": rec_id,
        "url": url,
        "html": body,
        "charset": charset,
        "date": date,
        "content_type": content_type,
    }


def _http_charset(content_type: str | None) -> str | None:
    if not content_type:
        return None
    for part in content_type.split(";")[1:]:
        key, _, value = part.partition("=")
        if key.strip().lower() == "charset" and value.strip():
            return value.strip().strip("\"'")
    return None


def _content_decoded(body: bytes, content_encoding: str) -> bytes:
    """Undo an HTTP Content-Encoding the crawler stored as sent (gzip/deflate); anything else as is."""
    enc = content_encoding.strip().lower()
    if enc in ("gzip", "x-gzip", "deflate") and body:
        try:
            return zlib.decompress(body, 47 if enc != "deflate" else zlib.MAX_WBITS)
        except zlib.error:
            try:
                return zlib.decompress(body, -zlib.MAX_WBITS)
            except zlib.error:
                return body
    return body


def _read_warc_fastwarc(path: str, tally: Tally) -> Iterator[Item]:
    from fastwarc.warc import ArchiveIterator, WarcRecordType

    with open(path, "rb") as fh:
        last = 0
        try:
            for r in ArchiveIterator(fh, record_types=WarcRecordType.response, parse_http=True):
                ctype = r.http_headers.get("Content-Type") if r.http_headers is not None else None
                pos = fh.tell()
                nbytes, last = max(0, pos - last), pos
                if not decode.is_html_type(ctype):
                    tally.skip(ctype)
                    r.reader.consume()
                    continue
                enc = (r.http_headers.get("Content-Encoding") or "") if r.http_headers is not None else ""
                body = r.reader.read()
                rec = _warc_record(
                    r.record_id,
                    r.headers.get("WARC-Target-URI"),
                    r.headers.get("WARC-Date"),
                    ctype,
                    body,
                    enc,
                )
                yield Item(rec, nbytes)
        except Exception as exc:  # a truncated or corrupt file: what was read stands
            yield Item({"id": f"{path}#read-error", "url": None, "read_error": f"WARC read failed: {exc}"})


def _read_warc_warcio(path: str, tally: Tally) -> Iterator[Item]:
    try:
        from warcio.archiveiterator import ArchiveIterator  # type: ignore[import-untyped]
    except ImportError:
        raise InputError(
            "reading WARC files needs fastwarc or warcio: pip install 'readwell[batch]'"
        ) from None
    fh: BinaryIO
    with open(path, "rb") as fh:
        last = 0
        try:
            for r in ArchiveIterator(fh):
                if r.rec_type != "response":
                    continue
                ctype = r.http_headers.get_header("Content-Type") if r.http_headers else None
                pos = fh.tell()
                nbytes, last = max(0, pos - last), pos
                if not decode.is_html_type(ctype):
                    tally.skip(ctype)
                    continue
                rec = _warc_record(
                    r.rec_headers.get_header("WARC-Record-ID"),
                    r.rec_headers.get_header("WARC-Target-URI"),
                    r.rec_headers.get_header("WARC-Date"),
                    ctype,
                    r.content_stream().read(),
                    "",  # content_stream() has already undone chunking and Content-Encoding
                )
                yield Item(rec, nbytes)
        except Exception as exc:
            yield Item({"id": f"{path}#read-error", "url": None, "read_error": f"WARC read failed: {exc}"})
