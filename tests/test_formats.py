"""``formats``: a caller renders only the outputs it shows (the extension's reader: HTML). A limited run must
give exactly the full run's values for everything it asked for, and leave the rest clearly absent (None on the
result, no key in the JSON), never an empty string that reads as "no article"."""

from __future__ import annotations

from typing import Any

import fixturelib
import pytest
import readwell
from readwell.errors import InputError
from readwell.extract import make_options
from readwell.options import FORMAT_KEYS, FORMATS

FIXTURES = fixturelib.all_fixtures()
LIMITED = [("html",), ("markdown",), ("text",), ()]


def _stable(d: dict[str, Any]) -> dict[str, Any]:
    return fixturelib.stable(d)


@pytest.mark.parametrize("fx", FIXTURES, ids=[fx.name for fx in FIXTURES])
def test_limited_formats_equal_the_full_result(fx: fixturelib.Fixture) -> None:
    full = _stable(readwell.extract(fx.data, url=fx.url, **fx.options).to_dict())
    for formats in LIMITED:
        got = readwell.extract(fx.data, url=fx.url, **{**fx.options, "formats": list(formats)})
        omitted = [FORMAT_KEYS[name] for name in FORMATS if name not in formats]
        want = {k: v for k, v in full.items() if k not in omitted}
        assert _stable(got.to_dict()) == want, formats
        for key in omitted:
            assert getattr(got, key) is None, (formats, key)


def test_all_formats_is_the_default() -> None:
    fx = FIXTURES[0]
    default = readwell.extract(fx.data, url=fx.url, **fx.options)
    every = readwell.extract(fx.data, url=fx.url, formats=list(FORMATS), **fx.options)
    assert _stable(default.to_dict()) == _stable(every.to_dict())
    assert all(getattr(default, key) is not None for key in FORMAT_KEYS.values())


def test_front_matter_needs_markdown() -> None:
    fx = next(f for f in FIXTURES if readwell.extract(f.data, url=f.url).found)
    r = readwell.extract(fx.data, url=fx.url, front_matter=True, formats=["html"])
    assert r.markdown is None and "markdown" not in r.to_dict() and r.content_html


def test_formats_are_checked() -> None:
    assert make_options(None, {"formats": "html"}).formats == ("html",)
    assert make_options(None, {"formats": ["text", "html", "html"]}).formats == ("html", "text")
    with pytest.raises(InputError, match="unknown format"):
        make_options(None, {"formats": ["html", "pdf"]})
    with pytest.raises(InputError, match="formats must be"):
        make_options(None, {"formats": 3})
