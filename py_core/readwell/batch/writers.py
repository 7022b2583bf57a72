"""Output of ``readwell batch``: JSONL (one record per line, flushed as written) or Parquet (pyarrow).

JSONL keys are always in the record API's order and non-ASCII is written as is, so two runs over the same
input write the same bytes. ``done_ids`` reads an interrupted output for ``--resume``: complete lines count,
a partial last line (the run died while writing it) is cut off so the resumed run starts on a clean line.
"""

from __future__ import annotations

import json
import os
from typing import Any, Protocol

from ..errors import InputError
from . import OUTPUT_KEYS

PARQUET_BATCH = 1000


class Writer(Protocol):
    def write(self, rec: dict[str, Any]) -> None: ...

    def close(self) -> None: ...


def dumps(rec: dict[str, Any]) -> str:
    return json.dumps({k: rec.get(k) for k in OUTPUT_KEYS}, ensure_ascii=False) + "\n"


class JsonlWriter:
    def __init__(self, path: str, append: bool = False) -> None:
        try:
            self.fh = open(path, "a" if append else "w", encoding="utf-8", newline="\n")  # noqa: SIM115
        except OSError as exc:
            raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None

    def write(self, rec: dict[str, Any]) -> None:
        self.fh.write(dumps(rec))
        self.fh.flush()

    def close(self) -> None:
        self.fh.close()


def done_ids(path: str) -> set[str]:
    """Ids (as canonical JSON) of the complete lines of ``path``; truncates a partial last line."""
    if not os.path.exists(path):
        return set()
    with open(path, "rb+") as fh:
        data = fh.read()
        end = data.rfind(b"\n") + 1
        if end < len(data):  # the interrupted run was writing this line
            fh.truncate(end)
    ids: set[str] = set()
    for lineno, line in enumerate(data[:end].splitlines(), 1):
        try:
            ids.add(json.dumps(json.loads(line)["id"], sort_keys=True))
        except (ValueError, KeyError, TypeError):
            raise InputError(f"--resume: {path} line {lineno} is not a readwell batch record") from None
    return ids


class ParquetWriter:
    """Row groups of ``PARQUET_BATCH`` records; ids are written as strings (JSON ids may mix types)."""

    def __init__(self, path: str) -> None:
        try:
            import pyarrow as pa  # type: ignore[import-untyped]
            import pyarrow.parquet as pq  # type: ignore[import-untyped]
        except ImportError:
            raise InputError("Parquet output needs pyarrow: pip install pyarrow") from None
        self.pa = pa
        types = {"word_count": pa.int64(), "elapsed_ms": pa.float64()}
        self.schema = pa.schema([(k, types.get(k, pa.string())) for k in OUTPUT_KEYS])
        try:
            self.out = pq.ParquetWriter(path, self.schema)
        except OSError as exc:
            raise InputError(f"cannot write {path}: {exc}") from None
        self.rows: list[dict[str, Any]] = []

    def write(self, rec: dict[str, Any]) -> None:
        row = {k: rec.get(k) for k in OUTPUT_KEYS}
        row["id"] = None if row["id"] is None else str(row["id"])
        self.rows.append(row)
        if len(self.rows) >= PARQUET_BATCH:
            self._flush()

    def _flush(self) -> None:
        if self.rows:
            self.out.write_table(self.pa.Table.from_pylist(self.rows, schema=self.schema))
            self.rows = []

    def close(self) -> None:
        self._flush()
        self.out.close()
