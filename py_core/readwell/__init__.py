"""Readwell: main-content extraction from web pages, one pure-Python core for CPython, Pyodide and a
Chromium extension.

    >>> import readwell
    >>> r = readwell.extract(html, url="https://example.org/post")
    >>> r.title, r.markdown, r.to_dict()

See ``readwell.STAGES`` for the pipeline and README.md for the CLI.
"""

from __future__ import annotations

from .errors import InputError
from .extract import (
    Result,
    aextract,
    aextract_url,
    extract,
    extract_document,
    extract_url,
    is_probably_readerable,
    stages,
)
from .options import Options, option_names, options_schema
from .pipeline import STAGE_NAMES, STAGES, stage_names
from .readerable import Readerable

__version__ = "0.1.0"

__all__ = [
    "STAGES",
    "STAGE_NAMES",
    "InputError",
    "Options",
    "Readerable",
    "Result",
    "aextract",
    "aextract_url",
    "extract",
    "extract_document",
    "extract_url",
    "is_probably_readerable",
    "option_names",
    "options_schema",
    "stage_names",
    "stages",
]
