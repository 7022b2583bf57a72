"""Dates as ISO 8601 strings from the formats pages write them in (pure functions)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

from ..dom import normalize_space

MAX_DATE_CHARS = 80  # a longer string is a sentence, not a date
YEARS = (1900, 2200)  # ISO-shaped values outside are ids or version numbers, not publication dates
_MONTHS = {m: i for i, m in enumerate("jan feb mar apr may jun jul aug sep oct nov dec".split(), start=1)}
_ISO = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?)?"
)
_UNIX = re.compile(r"^\d{10}(\d{3})?$")  # seconds or milliseconds since 1970
_MONTH_DAY_YEAR = re.compile(r"\b([A-Za-z]{3})[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b")
_DAY_MONTH_YEAR = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)?\s+([A-Za-z]{3})[a-z]*\.?,?\s+(\d{4})\b")
_YMD = re.compile(r"(\d{4})[/.年](\d{1,2})[/.月](\d{1,2})")  # 2024/03/05, 2024.3.5, 2024年3月5


def normalize_date(value: str) -> str | None:
    """ISO 8601 from the date formats pages use; None when not a date. Z becomes +00:00.

    Tried in order: ISO 8601 (date, or date and time with an optional zone), a unix timestamp, RFC 2822
    (``Tue, 05 Mar 2024 10:00:00 GMT``), ``March 5th, 2024``, ``5 March 2024``, ``2024/03/05``. Only the
    ISO and RFC forms keep a time and zone; the others give a date.
    """
    v = normalize_space(value)
    if not v or len(v) > MAX_DATE_CHARS:
        return None
    m = _ISO.match(v)
    if m:
        return _iso(m)
    if _UNIX.match(v):
        return datetime.fromtimestamp(int(v[:10]), tz=UTC).isoformat()
    try:
        return parsedate_to_datetime(v).isoformat()
    except (TypeError, ValueError, IndexError):
        pass
    m = _MONTH_DAY_YEAR.search(v)
    if m and m.group(1).lower() in _MONTHS:
        return _ymd(int(m.group(3)), _MONTHS[m.group(1).lower()], int(m.group(2)))
    m = _DAY_MONTH_YEAR.search(v)
    if m and m.group(2).lower() in _MONTHS:
        return _ymd(int(m.group(3)), _MONTHS[m.group(2).lower()], int(m.group(1)))
    m = _YMD.search(v)
    if m:
        return _ymd(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    return None


def _iso(m: re.Match[str]) -> str | None:
    y, mo, d = int(m.group(1)), int(m.group(2)), int(m.group(3))
    if not (YEARS[0] <= y <= YEARS[1]) or _ymd(y, mo, d) is None:  # the month's own length (no 02-30)
        return None
    if m.group(4) is None:
        return f"{y:04d}-{mo:02d}-{d:02d}"
    hh, mm, ss = int(m.group(4)), int(m.group(5)), int(m.group(6) or 0)
    if hh > 23 or mm > 59 or ss > 60:
        return None
    base = f"{y:04d}-{mo:02d}-{d:02d}T{hh:02d}:{mm:02d}:{min(ss, 59):02d}"  # a leap second becomes :59
    tz = m.group(7)
    if tz is None:
        return base
    if tz == "Z":
        return base + "+00:00"
    if len(tz) == 3:  # "+05": whole hours
        return base + tz + ":00"
    return base + (tz if ":" in tz else tz[:3] + ":" + tz[3:])


def _ymd(y: int, m: int, d: int) -> str | None:
    try:
        return datetime(y, m, d).date().isoformat()
    except ValueError:
        return None
