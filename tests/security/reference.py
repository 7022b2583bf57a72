"""Independent reference checks: what the design promises about URLs, elements and characters, spelled out
again without calling the code under test.

A scheme check that calls ``readwell.urls.is_safe_url`` would pass whatever that function gets wrong, so
``browser_scheme`` follows the WHATWG URL parser (strip leading/trailing C0 controls and spaces, remove tabs
and newlines anywhere, case-fold the scheme) and ``srcset_candidates`` the HTML spec's srcset parser.

Markers: every payload's executable part carries ``xss-<id>`` (``alert('xss-u-a-href-plain')``), and every
resource a payload would load points at ``trap.example``.
"""

from __future__ import annotations

import re

MARKER = "xss-"
TRAP_HOST = "trap.example"
NEVER_ELEMENTS = frozenset(
    "script style iframe object embed base meta form link frame frameset noscript template svg applet "
    "input button select textarea portal fencedframe audio video canvas dialog title xmp plaintext noembed "
    "noframes param".split()
)
# MathML is the one foreign content allowed, as presentation markup only. Never: annotations (annotation-xml
# is an HTML integration point), mglyph/malignmark (the parser's exceptions inside text integration points,
# the mutation-XSS vectors), maction (interactive). Never an HTML element inside <math> (a browser's parser
# breaks out of foreign content at one) and never an element inside a token element (mi mn mo ms mtext are
# text integration points: a start tag there is parsed as HTML). No link attributes on any MathML element.
MATHML_NEVER_ELEMENTS = frozenset({"annotation", "annotation-xml", "mglyph", "malignmark", "maction"})
MATHML_TEXT_ONLY = frozenset({"mi", "mn", "mo", "ms", "mtext"})
MATHML_NEVER_ATTRS = frozenset({"href", "src", "definitionurl", "xlink:href", "xmlns:xlink", "style"})
NEVER_ATTRS = frozenset(
    {
        "style",
        "srcdoc",
        "formaction",
        "action",
        "ping",
        "background",
        "poster",
        "data",
        "xlink:href",
        "target",
        "dynsrc",
        "lowsrc",
        "longdesc",
        "usemap",
        "is",
    }
)
URL_ATTRS = frozenset(
    {
        "href",
        "src",
        "cite",
        "poster",
        "action",
        "formaction",
        "xlink:href",
        "data",
        "background",
        "ping",
        "longdesc",
        "lowsrc",
        "dynsrc",
        "usemap",
        "icon",
        "manifest",
        "codebase",
    }
)
SAFE_SCHEMES = frozenset({"http", "https", "mailto"})
DATA_IMAGE = re.compile(r"^data:image/(png|gif|jpe?g|webp|avif|bmp)[;,]", re.I)
# Characters no output format should carry: C0 controls except tab and newline, DEL, C1 controls. In a
# terminal they are escape sequences (a ``readwell extract --format text`` of a hostile page could retitle the
# window, rewrite the screen or write the clipboard); YAML rejects them.
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def browser_scheme(url: str) -> str | None:
    """The scheme a WHATWG URL parser would see (lower case), None for a relative URL."""
    u = url.strip(
        "\x00\x01\x02\x03\x04\x05\x06\x07\x08\t\n\x0b\x0c\r\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17"
        "\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f "
    )
    u = re.sub(r"[\t\n\r]", "", u)
    m = re.match(r"^([A-Za-z][A-Za-z0-9+.-]*):", u)
    return m.group(1).lower() if m else None


def url_ok(url: str, image: bool) -> bool:
    s = browser_scheme(url)
    if s is None or s in SAFE_SCHEMES:
        return True
    return image and s == "data" and bool(DATA_IMAGE.match(re.sub(r"[\t\n\r ]", "", url)))


def srcset_candidates(value: str) -> list[tuple[str, list[str]]]:
    """(URL, descriptors) of a srcset as a browser's parser takes them (HTML spec, "parse a srcset
    attribute"): candidates are separated by commas, a URL is a run of non-ASCII-whitespace (trailing commas
    end it), descriptors follow up to the next comma outside parentheses."""
    out = []
    i, n = 0, len(value)
    ws = "\t\n\x0c\r "
    while i < n:
        while i < n and (value[i] in ws or value[i] == ","):
            i += 1
        j = i
        while j < n and value[j] not in ws:
            j += 1
        url = value[i:j]
        desc = ""
        if url.endswith(","):
            url = url.rstrip(",")
        else:
            k, depth = j, 0
            while k < n and (value[k] != "," or depth):
                depth += {"(": 1, ")": -1}.get(value[k], 0)
                k += 1
            desc, j = value[j:k], k
        if url:
            out.append((url, desc.split()))
        i = j + 1 if j < n and value[j] == "," else j
    return out


SRCSET_DESCRIPTOR = re.compile(r"^(\d+w|\d*\.?\d+(?:[eE][+-]?\d+)?x|\d+h)$")
