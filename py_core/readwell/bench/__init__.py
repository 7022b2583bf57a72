"""Benchmarks on real pages: figures identical to ``score.py`` per set, and loss accounting (``--blame``).

Run it as ``python -m readwell.bench``; see ``__main__.py`` for the options. The scorer's functions are
re-exported here for callers of the former single-module ``readwell.bench``.
"""

from .scoring import page_counts, page_f1, prf, score, shingles

__all__ = ["page_counts", "page_f1", "prf", "score", "shingles"]
