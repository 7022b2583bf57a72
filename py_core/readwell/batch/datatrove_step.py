"""A datatrove extractor step: ``Readwell`` goes wherever datatrove's ``Trafilatura`` step goes.

    from readwell.batch.datatrove_step import Readwell
    pipeline = [WarcReader("crawl/"), Readwell(output="markdown"), JsonlWriter("out/")]

Same base class (``BaseExtractor``) and the same sandbox (``ExtractorSandbox``: a forked child, killed past
``timeout`` seconds or when the OOM killer picks it). Differences, each for a reason:
- the page's URL goes in with the HTML (relative links and metadata need it); the structured fields
  (title, byline, published, lang, word_count, status, readwell_version, options_hash) go to ``doc.metadata``;
- Readwell keeps its own deadline at 80% of ``timeout``, so a slow page normally ends as ``timeout`` inside
  the child and the child lives on (a sandbox kill costs a fork and a warm-up);
- every record status is a datatrove stat (``ok``, ``empty``, ``timeout``, ``too_large``, ``decode_error``,
  ``non_html``, ``error``, ``crashed``) beside ``total``/``forwarded``/``dropped``;
- ``exclusion_writer`` (like datatrove's filters) saves each dropped document with
  ``metadata["filter_reason"] = "readwell_<status>"`` and the error text.
Needs ``pip install 'readwell[datatrove]'``.
"""

from __future__ import annotations

import contextlib
from typing import Any, Literal

from datatrove.data import DocumentsPipeline  # type: ignore[import-untyped]
from datatrove.pipeline.extractors.base import (  # type: ignore[import-untyped]
    BaseExtractor,
    ExtractorSandbox,
)
from datatrove.utils.typeshelper import StatHints  # type: ignore[import-untyped]

from . import empty_record, extract_record, normalize_options, options_hash

DEADLINE_SHARE = 0.8
METADATA_KEYS = ("title", "byline", "published", "lang", "word_count", "readwell_version", "options_hash")


class Readwell(BaseExtractor):
    """Readwell main-content extraction as a datatrove step (Markdown or plain text into ``doc.text``)."""

    name = "📖 Readwell"
    _requires_dependencies = ["readwell"]

    def __init__(
        self,
        output: Literal["markdown", "text"] = "markdown",
        timeout: float = 5.0,
        exclusion_writer: Any = None,
        **options: Any,
    ) -> None:
        super().__init__(timeout)
        if output not in ("markdown", "text"):
            raise ValueError(f"output must be 'markdown' or 'text', not {output!r}")
        self.output = output
        self.exclusion_writer = exclusion_writer
        options.setdefault("deadline_ms", timeout * 1000 * DEADLINE_SHARE)
        options.setdefault("formats", (output,))  # the one output a Document keeps is the one rendered
        self.options = normalize_options(options)
        self.digest = options_hash(self.options)

    def extract(self, text: str, url: str | None = None) -> str:
        """The base class's contract: HTML in, extracted text out ("" when there is no article)."""
        rec = self.extract_record(text, url)
        return rec[self.output] if rec["status"] == "ok" else ""

    def extract_record(self, text: str, url: str | None = None) -> dict[str, Any]:
        return extract_record({"html": text, "url": url}, self.options, self.digest)

    def run(self, data: DocumentsPipeline, rank: int = 0, world_size: int = 1) -> DocumentsPipeline:
        writer_cm = self.exclusion_writer if self.exclusion_writer else contextlib.nullcontext()
        with writer_cm as writer, ExtractorSandbox(self.timeout, warmup_text=("", None)) as sandbox:
            for doc in data:
                self.stat_update(StatHints.total)
                url = doc.metadata.get("url")
                with self.track_time():
                    try:
                        rec = sandbox.process_document((doc.text, url), self.extract_record)
                    except TimeoutError:
                        rec = empty_record(doc.id, url, "timeout", "killed by the sandbox", self.digest)
                    except EOFError:
                        rec = empty_record(doc.id, url, "crashed", "sandbox process died", self.digest)
                    except Exception as exc:
                        rec = empty_record(doc.id, url, "error", f"{type(exc).__name__}: {exc}", self.digest)
                status = rec["status"]
                self.stat_update(status)
                doc.metadata["readwell_status"] = status
                if status == "ok" and rec[self.output]:
                    doc.text = rec[self.output]
                    doc.metadata.update({k: rec[k] for k in METADATA_KEYS})
                    self.stat_update(StatHints.forwarded)
                    self.update_doc_stats(doc)
                    yield doc
                    continue
                self.stat_update(StatHints.dropped)
                if writer is not None:
                    doc.metadata["filter_reason"] = f"readwell_{status}"
                    if rec["error"]:
                        doc.metadata["readwell_error"] = rec["error"]
                    writer.write(doc, rank)
