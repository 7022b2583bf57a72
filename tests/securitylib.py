"""Hostile-page test kit: the payload corpus, the article page it is embedded in, and the static checks every
security test runs on every output format.

Why the checks are written independently of the code under test: a scheme check that calls
``readwell.urls.is_safe_url`` would pass whatever that function gets wrong. ``browser_scheme`` below follows
the WHATWG URL parser (strip leading/trailing C0 controls and spaces, remove tabs and newlines anywhere,
case-fold the scheme); the Markdown check renders with a CommonMark implementation (markdown-it-py) whose
link validator is switched off, so we see what a permissive renderer would produce; the HTML check re-parses
our output with html5lib, the WHATWG parsing algorithm a browser runs.

Markers: every payload's executable part carries ``xss-<id>`` (``alert('xss-u-a-href-plain')``), and every
resource a payload would load points at ``trap.example``. A payload with ``visible=True`` carries its marker
in escaped page *text*, which must survive as text.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

from readwell import extract
from readwell.cli import render as cli_render
from readwell.dom import HTML_NS, Element, Text
from readwell.parse import parse_html
from readwell.render_html import escape_attr, escape_text, serialize
from readwell.sanitize import ALLOWED_TAGS, bleach_final, clean_attr

MARKER = "xss-"
TRAP_HOST = "trap.example"

# --- independent policy (what the design promises, spelled out again) ---------------------------------
NEVER_ELEMENTS = frozenset(
    "script style iframe object embed base meta form link frame frameset noscript template svg math applet "
    "input button select textarea portal fencedframe audio video canvas dialog title xmp plaintext noembed "
    "noframes param".split()
)
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
    """(URL, descriptors) of a srcset as a browser's parser takes them (HTML spec, "parse a srcset attribute"):
    candidates are separated by commas, a URL is a run of non-ASCII-whitespace (trailing commas end it),
    descriptors follow up to the next comma outside parentheses."""
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


# --- the corpus --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Payload:
    id: str
    cls: str
    html: str
    where: str = "body"  # or "head"
    visible: bool = False  # the marker is escaped text that must survive as text
    keep: bool = True  # the sentences around the payload must survive (False: the payload swallows them)


def js(pid: str) -> str:
    return f"alert('{MARKER}{pid}')"


URL_VARIANTS: dict[str, str] = {
    # javascript: however a browser would still read it
    "plain": "javascript:{js}",
    "case": "JaVaScRiPt:{js}",
    "lead-space": "   javascript:{js}",
    "raw-tab": "java\tscript:{js}",
    "raw-newline": "java\nscript:{js}",
    "tab-entity": "jav&#x09;ascript:{js}",
    "newline-entity": "java&#x0A;script:{js}",
    "cr-entity": "java&#13;script:{js}",
    "dec-entity": "&#106;avascript:{js}",
    "hex-entity-nosemi": "&#x6A&#x61&#x76&#x61&#x73&#x63&#x72&#x69&#x70&#x74&#x3A;{js}",
    "padded-entity": "&#0000106&#0000097vascript:{js}",
    "colon-named": "javascript&colon;{js}",
    "ctrl-lead": "&#x01;&#x1f;javascript:{js}",
    "raw-ctrl-lead": "\x0b\x01javascript:{js}",
    "nbsp-lead": "&nbsp;javascript:{js}",
    # other script and document schemes
    "vbscript": "vbscript:msgbox('xss-{id}')",
    "vbscript-case": "VbScRiPt:msgbox('xss-{id}')",
    "data-html": "data:text/html,<script>{js}</script>",
    "data-html-b64": "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==#xss-{id}",
    "data-svg": "data:image/svg+xml,<svg xmlns='http://www.w3.org/2000/svg' onload=\"{js}\"/>",
    "data-case": "DaTa:text/html,<script>{js}</script>",
    "file": "file:///etc/passwd#xss-{id}",
    # the page escaped its own entity: a literal "&#58;" a Markdown renderer would decode into a colon
    "double-entity": "javascript&amp;#58;{js}",
    "double-entity-named": "javascript&amp;colon;{js}",
}

# Attribute contexts: {url} is the payload URL, the label is visible text that must survive.
URL_CONTEXTS: dict[str, str] = {
    "a-href": '<a href="{url}">alpha label</a>',
    "a-href-upper": '<A HREF="{url}">alpha label</A>',
    "img-src": '<img src="{url}" alt="alpha label">',
    "img-srcset": '<img src="https://example.org/media/ok.png" srcset="{url} 2x" alt="alpha label">',
    "img-srcset-second": '<img src="https://example.org/media/ok.png" '
    'srcset="https://example.org/media/ok.png 1x, {url} 2x" alt="alpha label">',
    "picture-source": '<picture><source srcset="{url}"><img src="https://example.org/media/ok.png" '
    'alt="alpha label"></picture>',
    "video-poster": '<video poster="{url}" src="{url}" controls>alpha label</video>',
    "blockquote-cite": '<blockquote cite="{url}">alpha label</blockquote>',
    "q-cite": '<q cite="{url}">alpha label</q>',
    "del-cite": '<del cite="{url}">alpha label</del>',
    "form-action": '<form action="{url}"><button>alpha label</button></form>',
    "button-formaction": '<button formaction="{url}">alpha label</button>',
    "input-formaction": '<input type="submit" formaction="{url}" value="alpha label">',
    "svg-xlink-href": '<svg width="60" height="20"><a xlink:href="{url}"><text x="0" y="15">alpha label</text>'
    "</a></svg>",
    "svg-href": '<svg width="60" height="20"><a href="{url}"><text x="0" y="15">alpha label</text></a></svg>',
    "math-href": '<math href="{url}"><mtext>alpha label</mtext></math>',
    "html-xlink-href": '<a xlink:href="{url}">alpha label</a>',
    "object-data": '<object data="{url}">alpha label</object>',
    "table-background": '<table background="{url}"><tr><td>alpha label</td></tr></table>',
    "td-background": '<table><tr><td background="{url}">alpha label</td></tr></table>',
    "a-ping": '<a href="https://example.org/ok" ping="{url}">alpha label</a>',
    "iframe-src": '<iframe src="{url}"></iframe>',
    "embed-src": '<embed src="{url}">',
    "area-href": '<img src="https://example.org/media/map.png" usemap="#m" alt="alpha label"><map name="m">'
    '<area href="{url}" shape="rect" coords="0,0,10,10" alt="area"></map>',
    "img-legacy": '<img src="https://example.org/media/ok.png" lowsrc="{url}" dynsrc="{url}" longdesc="{url}" '
    'alt="alpha label">',
    "link-href": '<link rel="stylesheet" href="{url}">',
    "meta-refresh": '<meta http-equiv="refresh" content="0;url={url}">',
    "base-href": '<base href="{url}">',
}


def _url_payloads() -> list[Payload]:
    out = []
    for cname, ctx in URL_CONTEXTS.items():
        for vname, tmpl in URL_VARIANTS.items():
            pid = f"u-{cname}-{vname}"
            url = tmpl.replace("{js}", js(pid)).replace("{id}", pid)
            # the payload URL sits in a double-quoted attribute: a raw quote would end it early
            url = url.replace('"', "&quot;")
            out.append(Payload(pid, "url", ctx.replace("{url}", url)))
    return out


def _p(
    pid: str, cls: str, tmpl: str, where: str = "body", visible: bool = False, keep: bool = True
) -> Payload:
    return Payload(pid, cls, tmpl.replace("{js}", js(pid)).replace("{id}", pid), where, visible, keep)


TRAP = "https://" + TRAP_HOST + "/{id}"

HANDLER_PAYLOADS = [
    _p(
        "h-img-onerror", "handler", '<img src="https://example.org/none.png" onerror="{js}" alt="beta label">'
    ),
    _p("h-img-onerror-upper", "handler", '<IMG SRC=x ONERROR="{js}" ALT="beta label">'),
    _p("h-img-slash-sep", "handler", '<img/src="x"/onerror="{js}" alt="beta label">'),
    _p(
        "h-img-onload",
        "handler",
        '<img src="https://example.org/media/ok.png" onload="{js}" alt="beta label">',
    ),
    _p(
        "h-a-onclick",
        "handler",
        '<a href="https://example.org/ok" onclick="{js}" onmouseover="{js}" onauxclick="{js}">beta label</a>',
    ),
    _p(
        "h-details-ontoggle",
        "handler",
        '<details open ontoggle="{js}"><summary>beta label</summary>beta body</details>',
    ),
    _p(
        "h-summary-onclick",
        "handler",
        '<details><summary onclick="{js}">beta label</summary>beta body</details>',
    ),
    _p("h-p-onfocus", "handler", '<p tabindex="1" autofocus onfocus="{js}" onfocusin="{js}">beta label</p>'),
    _p(
        "h-div-onanimation",
        "handler",
        '<div style="animation:spin 1s" onanimationstart="{js}" onanimationend="{js}">beta label</div>',
    ),
    _p("h-span-pointer", "handler", '<span onpointerenter="{js}" onmouseenter="{js}">beta label</span>'),
    _p("h-body-onload", "handler", '<body onload="{js}" onpageshow="{js}">'),
    _p("h-input-autofocus", "handler", '<input autofocus onfocus="{js}" value="beta label">'),
    _p(
        "h-select-autofocus",
        "handler",
        '<select autofocus onfocus="{js}"><option>beta label</option></select>',
    ),
    _p("h-textarea-autofocus", "handler", '<textarea autofocus onfocus="{js}">beta label</textarea>'),
    _p("h-marquee-onstart", "handler", '<marquee onstart="{js}">beta label</marquee>'),
    _p("h-button-onclick", "handler", '<button onclick="{js}">beta label</button>'),
    _p("h-video-source-onerror", "handler", '<video><source src="x" onerror="{js}"></video>beta label'),
    _p("h-audio-onerror", "handler", '<audio src="x" onerror="{js}"></audio>beta label'),
    _p(
        "h-srcdoc", "handler", '<iframe srcdoc="&lt;script&gt;parent.{js}&lt;/script&gt;"></iframe>beta label'
    ),
    _p(
        "h-srcdoc-on-img",
        "handler",
        '<img src="https://example.org/media/ok.png" '
        'srcdoc="&lt;script&gt;{js}&lt;/script&gt;" alt="beta label">',
    ),
    _p("h-onerror-entity", "handler", '<img src=x o&#110;error="{js}" alt="beta label">'),
    _p(
        "h-onclick-spaces", "handler", '<a href="https://example.org/ok"\n\tonclick\n=\n"{js}">beta label</a>'
    ),
    _p("h-is-attr", "handler", '<p is="x-evil" onclick="{js}">beta label</p>'),
    _p(
        "h-target-blank",
        "handler",
        '<a href="https://example.org/ok" target="_blank" rel="opener">beta label</a>',
    ),
]

STYLE_PAYLOADS = [
    _p("s-url-js", "style", "<div style=\"background:url('javascript:{js}')\">gamma label</div>"),
    _p("s-url-trap", "style", '<div style="background-image:url(' + TRAP + ')">gamma label</div>'),
    _p("s-url-escaped", "style", '<div style="background:u\\72l(' + TRAP + ')">gamma label</div>'),
    _p("s-expression", "style", '<div style="width:expression({js})">gamma label</div>'),
    _p("s-expression-comment", "style", '<div style="width:ex/**/pression({js})">gamma label</div>'),
    _p(
        "s-behavior",
        "style",
        '<div style="behavior:url(' + TRAP + ".htc);-moz-binding:url(" + TRAP + '.xml)">gamma label</div>',
    ),
    _p(
        "s-overlay",
        "style",
        '<a href="https://example.org/ok" style="position:fixed;inset:0;z-index:99999;'
        'display:block">gamma label</a>',
    ),
    _p(
        "s-style-element",
        "style",
        "<style>@import url(" + TRAP + ");body{background:url(" + TRAP + ")}</style>gamma label",
    ),
    _p("s-style-in-p", "style", "<p>gamma label<style>p{background:url(" + TRAP + ")}</style></p>"),
    _p("s-link-stylesheet", "style", '<link rel="stylesheet" href="' + TRAP + '.css">gamma label'),
    _p("s-svg-style", "style", "<svg><style>@import url(" + TRAP + ");</style></svg>gamma label"),
]

ELEMENT_PAYLOADS = [
    _p("e-script", "element", "<script>{js}</script>delta label"),
    _p("e-script-upper", "element", "<SCRIPT>{js}</SCRIPT>delta label"),
    _p("e-script-src", "element", '<script src="' + TRAP + '.js"></script>delta label'),
    _p("e-script-module", "element", '<script type="module">{js}</script>delta label'),
    _p("e-script-in-p", "element", "<p>delta label<script>{js}</script> tail</p>"),
    _p("e-iframe", "element", '<iframe src="' + TRAP + '" width="300"></iframe>delta label'),
    _p("e-object", "element", '<object data="' + TRAP + '" type="text/html">delta label</object>'),
    _p("e-embed", "element", '<embed src="' + TRAP + '" type="image/svg+xml">delta label'),
    _p("e-base-body", "element", '<base href="' + TRAP + '/">delta label'),
    _p("e-meta-refresh", "element", '<meta http-equiv="refresh" content="0;url=' + TRAP + '">delta label'),
    _p(
        "e-meta-refresh-js",
        "element",
        '<meta http-equiv="refresh" content="0;url=javascript:{js}">delta label',
    ),
    # keep=False: remove_low_score drops the sample as a form-like block (a quality rule, not a security one)
    _p(
        "e-form",
        "element",
        '<form action="' + TRAP + '" method="post"><input name="q" value="delta label">'
        "<button>Send</button></form>",
        keep=False,
    ),
    _p("e-form-formaction", "element", '<form><button formaction="' + TRAP + '">delta label</button></form>'),
    _p(
        "e-link-import",
        "element",
        '<link rel="import" href="' + TRAP + '"><link rel="prefetch" href="' + TRAP + '">delta label',
    ),
    _p("e-frameset", "element", '<frameset><frame src="' + TRAP + '"></frameset>delta label'),
    _p("e-frame", "element", '<frame src="' + TRAP + '">delta label'),
    _p("e-applet", "element", '<applet code="x.class" codebase="' + TRAP + '">delta label</applet>'),
    _p("e-portal", "element", '<portal src="' + TRAP + '"></portal>delta label'),
    _p("e-input-image", "element", '<input type="image" src="' + TRAP + '" alt="delta label">'),
    _p(
        "e-dialog",
        "element",
        '<dialog open><form method="dialog"><button>delta label</button></form></dialog>',
    ),
    _p("e-title-body", "element", '<title><img src=x onerror="{js}"></title>delta label'),
    _p("e-canvas", "element", "<canvas>delta label</canvas>"),
    _p("e-isindex", "element", '<isindex action="' + TRAP + '">delta label'),
    _p("e-keygen", "element", '<keygen autofocus onfocus="{js}">delta label'),
    _p("e-image-alias", "element", '<image src="x" onerror="{js}" alt="delta label">'),
]

FOREIGN_PAYLOADS = [
    _p("f-svg-onload", "foreign", '<svg onload="{js}"><circle r="4"/></svg>epsilon label'),
    _p("f-svg-script", "foreign", "<svg><script>{js}</script></svg>epsilon label"),
    _p("f-svg-script-href", "foreign", '<svg><script href="data:,{js}"/></svg>epsilon label'),
    _p(
        "f-svg-animate-href",
        "foreign",
        '<svg><a><animate attributeName="href" to="javascript:{js}"/>'
        '<text x="0" y="15">epsilon label</text></a></svg>',
    ),
    _p(
        "f-svg-set-handler", "foreign", '<svg><set attributeName="onmouseover" to="{js}"/></svg>epsilon label'
    ),
    _p(
        "f-svg-foreignobject",
        "foreign",
        '<svg><foreignObject><iframe srcdoc="&lt;script&gt;parent.{js}'
        '&lt;/script&gt;"></iframe><p>epsilon label</p></foreignObject></svg>',
    ),
    _p(
        "f-svg-image",
        "foreign",
        '<svg><image href="javascript:{js}" xlink:href="' + TRAP + '"/></svg>epsilon label',
    ),
    _p(
        "f-svg-use",
        "foreign",
        "<svg><use href=\"data:image/svg+xml,&lt;svg id='x' "
        "xmlns='http://www.w3.org/2000/svg'&gt;&lt;image href='1' onerror='{js}'/&gt;"
        '&lt;/svg&gt;#x"/></svg>epsilon label',
    ),
    _p(
        "f-svg-title-breakout", "foreign", '<svg><title><img src=x onerror="{js}"></title></svg>epsilon label'
    ),
    _p(
        "f-svg-desc-breakout",
        "foreign",
        '<svg><desc><p>epsilon label</p><img src=x onerror="{js}"></desc></svg>',
    ),
    _p(
        "f-math-maction",
        "foreign",
        '<math><maction actiontype="statusline" xlink:href="javascript:{js}">'
        "<mtext>epsilon label</mtext></maction></math>",
    ),
    _p(
        "f-math-mi-href",
        "foreign",
        '<math><mi xlink:href="javascript:{js}" href="javascript:{js}">x</mi></math>epsilon label',
    ),
    _p(
        "f-math-annotation-html",
        "foreign",
        '<math><semantics><mi>x</mi><annotation-xml encoding="text/html">'
        '<img src=x onerror="{js}"></annotation-xml></semantics></math>'
        "epsilon label",
    ),
    _p("f-math-mtext-img", "foreign", '<math><mtext><img src=x onerror="{js}">epsilon label</mtext></math>'),
    _p(
        "f-svg-onbegin",
        "foreign",
        '<svg><animate onbegin="{js}" attributeName="x" dur="1s"/></svg>epsilon label',
    ),
    _p(
        "f-svg-a-in-p",
        "foreign",
        '<p>epsilon label <svg><a xlink:href="javascript:{js}"><text>go</text></a></svg> tail</p>',
    ),
]

MUTATION_PAYLOADS = [
    _p(
        "m-noscript-title",
        "mutation",
        "<noscript><p title=\"</noscript><img src=x onerror='{js}'>\">zeta label</p></noscript>zeta tail",
    ),
    _p(
        "m-noscript-img-alt",
        "mutation",
        '<noscript><img src="https://example.org/media/lazy.png" '
        "alt=\"</noscript><img src=x onerror='{js}'>\"></noscript>zeta label",
    ),
    _p(
        "m-noscript-style",
        "mutation",
        '<noscript><style></noscript><img src=x onerror="{js}"></style></noscript>zeta label',
    ),
    _p("m-template", "mutation", '<template><img src=x onerror="{js}"></template>zeta label'),
    _p(
        "m-template-shadow",
        "mutation",
        '<div><template shadowrootmode="open"><img src=x onerror="{js}">'
        "<slot></slot></template>zeta label</div>",
    ),
    _p(
        "m-svg-style-breakout",
        "mutation",
        "<svg></p><style><a id=\"</style><img src=1 onerror='{js}'>\"></a></style></svg>zeta label",
    ),
    _p(
        "m-math-mglyph-style",
        "mutation",
        '<math><mtext><table><mglyph><style><!--</style><img title="--&gt;'
        '&lt;/mglyph&gt;&lt;img&Tab;src=1&Tab;onerror=alert(1)&gt;">'
        "</style></mglyph></table></mtext></math>zeta label",
    ),
    _p(
        "m-form-math",
        "mutation",
        '<form><math><mtext></form><form><mglyph><style></math><img src onerror="{js}">'
        "</style></mglyph></form>zeta label",
        keep=False,
    ),  # the tail lands in the form
    _p("m-svg-style-img", "mutation", '<svg><style><img src=x onerror="{js}"></style></svg>zeta label'),
    _p("m-math-style-img", "mutation", '<math><style><img src=x onerror="{js}"></style></math>zeta label'),
    _p("m-comment-gt", "mutation", '<!--><img src=x onerror="{js}">-->zeta label'),
    _p("m-comment-bang", "mutation", '<!-- --!><img src=x onerror="{js}"> -->zeta label'),
    _p("m-comment-dash", "mutation", '<!--- <img src=x onerror="{js}"> --->zeta label'),
    _p("m-cdata", "mutation", '<![CDATA[<img src=x onerror="{js}">]]>zeta label'),
    _p("m-cdata-svg", "mutation", '<svg><![CDATA[<img src=x onerror="{js}">]]></svg>zeta label'),
    _p("m-conditional-comment", "mutation", "<!--[if IE]><script>{js}</script><![endif]-->zeta label"),
    _p("m-processing-instruction", "mutation", '<?xml-stylesheet href="' + TRAP + '"?>zeta label'),
    _p(
        "m-textarea-rcdata",
        "mutation",
        '<textarea></textarea><img src=x onerror="{js}"></textarea>zeta label',
    ),
    _p("m-xmp", "mutation", '<xmp><img src=x onerror="{js}"></xmp>zeta label'),
    _p("m-noembed", "mutation", '<noembed><img src=x onerror="{js}"></noembed>zeta label'),
    _p("m-noframes", "mutation", '<noframes><img src=x onerror="{js}"></noframes>zeta label'),
    _p("m-iframe-rawtext", "mutation", '<iframe><img src=x onerror="{js}"></iframe>zeta label'),
    _p("m-select", "mutation", '<select><img src=x onerror="{js}"><option>zeta label</option></select>'),
    _p(
        "m-nested-a",
        "mutation",
        '<a href="https://example.org/one">zeta label<a href="javascript:{js}">inner</a></a>',
    ),
    _p("m-p-table-quirks", "mutation", "<p>zeta label<table><tr><td>cell</td></tr></table>tail</p>"),
    _p("m-attr-no-quotes", "mutation", "<img src=x alt=zeta label onerror={js}>"),
    _p("m-attr-backtick", "mutation", '<img src=`x` alt="zeta label" onerror=`{js}`>'),
    _p(
        "m-react-boundary",
        "mutation",
        '<!--$?--><template id="B:0"></template><!--/$--><div hidden id="S:0">'
        '<img src=x onerror="{js}">zeta label</div>',
    ),
    _p(
        "m-escaped-text",
        "mutation",
        "<p>&lt;img src=x onerror=&quot;{js}&quot;&gt; zeta label</p>",
        visible=True,
    ),
    _p(
        "m-plaintext-escaped",
        "mutation",
        "<p>&lt;/p&gt;&lt;plaintext&gt;&lt;script&gt;{js}&lt;/script&gt; zeta label</p>",
        visible=True,
    ),
]

MARKDOWN_PAYLOADS = [
    _p(
        "md-link-text",
        "markdown",
        '<a href="https://example.org/ok">[eta label](javascript:{js})</a>',
        visible=True,
    ),
    _p(
        "md-link-text-close",
        "markdown",
        '<a href="https://example.org/ok">x](javascript:{js}) [y</a> eta label',
        visible=True,
    ),
    _p(
        "md-alt", "markdown", '<img src="https://example.org/media/ok.png" alt="](javascript:{js})">eta label'
    ),
    _p(
        "md-alt-image",
        "markdown",
        '<img src="https://example.org/media/ok.png" alt="x&quot;) ![y](javascript:{js}) (&quot;">eta label',
    ),
    _p(
        "md-alt-entity",
        "markdown",
        '<img src="https://example.org/media/ok.png" alt="x&amp;#93;(javascript:{js})">eta label',
    ),
    _p(
        "md-title",
        "markdown",
        '<a href="https://example.org/ok" title=\'t") [z](javascript:{js}) ("\'>eta label</a>',
    ),
    _p(
        "md-title-newline",
        "markdown",
        '<a href="https://example.org/ok" title="line one&#10;&#10;[r]: javascript:{js}">eta label</a> [r]',
    ),
    _p(
        "md-img-title",
        "markdown",
        '<img src="https://example.org/media/ok.png" alt="eta label" title=\'x" onerror="{js}\'>',
    ),
    _p("md-url-parens", "markdown", '<a href="https://example.org/wiki/Pond_(water)">eta label</a>'),
    _p("md-url-brackets", "markdown", '<a href="https://example.org/a]b)c(d[e">eta label</a>'),
    _p(
        "md-url-newline",
        "markdown",
        '<a href="https://example.org/a&#10;b)&#10;[x](javascript:{js})">eta label</a>',
    ),
    _p("md-url-angle", "markdown", '<a href="https://example.org/a>b<c">eta label</a>'),
    _p("md-url-space-quote", "markdown", "<a href='https://example.org/a \"t\" b'>eta label</a>"),
    _p("md-url-backslash", "markdown", '<a href="https://example.org/a\\)b">eta label</a>'),
    _p("md-url-entity-relative", "markdown", '<a href="javascript&amp;#58;{js}">eta label</a>'),
    _p("md-img-entity-relative", "markdown", '<img src="javascript&amp;colon;{js}" alt="eta label">'),
    _p(
        "md-text-html",
        "markdown",
        "<p>&lt;img src=x onerror={js}&gt; eta label &lt;script&gt;{js}&lt;/script&gt;</p>",
        visible=True,
    ),
    _p("md-text-autolink", "markdown", "<p>eta label &lt;javascript:{js}&gt;</p>", visible=True),
    _p(
        "md-text-link",
        "markdown",
        "<p>eta label [click](javascript:{js}) and ![i](javascript:{js})</p>",
        visible=True,
    ),
    _p("md-text-refdef", "markdown", "<p>[r]: javascript:{js}</p><p>eta label [r]</p>", visible=True),
    _p(
        "md-text-entity",
        "markdown",
        "<p>eta label &amp;#60;script&amp;#62;{js}&amp;lt;/script&amp;gt;</p>",
        visible=True,
    ),
    _p("md-heading", "markdown", "<h2>&lt;img src=x onerror={js}&gt; eta label</h2>", visible=True),
    _p(
        "md-table-cell",
        "markdown",
        "<table><tr><th>eta label</th><th>b</th></tr><tr><td>x | &lt;b "
        "onclick={js}&gt;</td><td>[y](javascript:{js})</td></tr></table>",
        visible=True,
    ),
    _p(
        "md-table-code-pipe",
        "markdown",
        "<table><tr><th>eta label</th><th>b</th></tr><tr><td><code>|&lt;img src=x "
        "onerror=&quot;{js}&quot;&gt;</code></td><td>c</td></tr></table>",
        visible=True,
    ),
    _p(
        "md-table-pre-pipe",
        "markdown",
        "<table><tr><th>eta label</th><th>b</th></tr><tr><td><pre>a|&lt;img src=x "
        "onerror=&quot;{js}&quot;&gt;</pre></td><td>c</td></tr></table>",
        visible=True,
    ),
    _p(
        "md-table-tex-pipe",
        "markdown",
        '<table><tr><th>eta label</th><th>b</th></tr><tr><td><span data-tex="a|'
        '&lt;img src=x onerror=&quot;{js}&quot;&gt;|">m</span></td><td>c</td></tr></table>',
        visible=True,
    ),
    _p(
        "md-adjacent-code",
        "markdown",
        "<p>eta label <code>a</code><code>`&lt;img src=x onerror=&quot;{js}&quot;&gt;</code> tail</p>",
        visible=True,
    ),
    _p(
        "md-adjacent-code-nested",
        "markdown",
        "<p>eta label <span><code>a</code></span><kbd>``&lt;img src=x "
        "onerror=&quot;{js}&quot;&gt;</kbd><code>`</code></p>",
        visible=True,
    ),
    _p(
        "md-code-fence",
        "markdown",
        "<pre><code>```\n&lt;script&gt;{js}&lt;/script&gt;\n```\n</code></pre><p>eta label</p>",
        visible=True,
    ),
    _p(
        "md-code-span",
        "markdown",
        "<p>eta label <code>`` &lt;img src=x onerror={js}&gt;</code></p>",
        visible=True,
    ),
    _p(
        "md-list-marker",
        "markdown",
        "<ul><li>eta label</li><li>&lt;/li&gt;&lt;script&gt;{js}&lt;/script&gt;</li></ul>",
        visible=True,
    ),
    _p(
        "md-footnote-label",
        "markdown",
        '<p>eta label<sup><a href="#fn](javascript:{js})" class="footnote-ref">1</a></sup></p>',
    ),
    _p(
        "md-mailto",
        "markdown",
        '<a href="mailto:a@example.org?subject=&lt;img src=x onerror={js}&gt;">eta label</a>',
    ),
    # our own data-* attributes: a page can write them too
    _p(
        "md-data-tex-html",
        "markdown",
        '<span data-tex="&lt;img src=x onerror=&quot;{js}&quot;&gt;">eta label</span>',
        visible=True,
    ),
    _p(
        "md-data-tex-link",
        "markdown",
        '<span data-tex="x [a](javascript:{js}) y">eta label</span>',
        visible=True,
    ),
    _p(
        "md-data-tex-block",
        "markdown",
        '<div data-tex="a\n\n[r]: javascript:{js}\n\n&lt;script&gt;{js}'
        '&lt;/script&gt;" data-display="block">eta label</div><p>[r]</p>',
        visible=True,
    ),
    _p(
        "md-katex-annotation",
        "markdown",
        '<span class="katex"><span class="katex-mathml"><math><semantics>'
        '<mrow><mi>x</mi></mrow><annotation encoding="application/x-tex">'
        "&lt;img src=x onerror=&quot;{js}&quot;&gt;</annotation></semantics>"
        '</math></span><span class="katex-html">x</span></span> eta label',
        visible=True,
    ),
    _p(
        "md-mathjax-script",
        "markdown",
        '<script type="math/tex">x<img src=x onerror="{js}"></script> eta label',
        visible=True,
    ),
    _p(
        "md-mathjax-display",
        "markdown",
        '<script type="math/tex; mode=display">\n\n[r]: javascript:{js}\n\n</script><p>eta label [r]</p>',
        visible=True,
    ),
    _p(
        "md-callout-kind",
        "markdown",
        '<blockquote data-callout="x](javascript:{js})"><p>eta label</p></blockquote>',
    ),
    _p(
        "md-callout-html",
        "markdown",
        '<blockquote data-callout="&lt;img src=x onerror={js}&gt;"><p>eta label</p></blockquote>',
    ),
    _p(
        "md-callout-obsidian",
        "markdown",
        '<div class="callout" data-callout="x](javascript:{js})">'
        '<div class="callout-title">Note</div><p>eta label</p></div>',
    ),
    _p(
        "md-footnote-attr", "markdown", '<p>eta label<sup data-footnote-ref="1](javascript:{js})">1</sup></p>'
    ),
]

CONTROL_PAYLOADS = [
    _p(
        "c-terminal-osc",
        "control",
        "<p>theta label \x1b]0;xss-{id}\x07 \x1b]52;c;eHNz\x07 tail</p>",
        visible=True,
    ),
    _p("c-terminal-csi", "control", "<p>theta label \x1b[2J\x1b[31m red \x9b31m tail</p>"),
    _p("c-terminal-entity", "control", "<p>theta label &#x1b;[2J &#x9b;1m &#x7f; tail</p>"),
    _p("c-nul", "control", "<p>theta label \x00 nul &#0; tail</p>"),
    _p(
        "c-alt-title",
        "control",
        '<img src="https://example.org/media/ok.png" alt="theta \x1b[2J label" title="\x1b]0;t\x07">',
    ),
]

METADATA_PAYLOADS = [
    _p(
        "meta-title",
        "metadata",
        "<title>Pond notes &lt;/title&gt;&lt;script&gt;{js}&lt;/script&gt; "
        "\"double\" 'single'\n---\nlayout: evil</title>",
        where="head",
        visible=True,
    ),
    _p(
        "meta-author",
        "metadata",
        '<meta name="author" content=\'A. Writer"&gt;&lt;img src=x onerror={js}&gt;\n---\'>',
        where="head",
        visible=True,
    ),
    _p(
        "meta-description",
        "metadata",
        '<meta name="description" content="Summary &lt;/textarea&gt;&lt;script&gt;'
        '{js}&lt;/script&gt; &quot;q&quot;\n---\nx: 1">',
        where="head",
        visible=True,
    ),
    _p("meta-og-image-js", "metadata", '<meta property="og:image" content="javascript:{js}">', where="head"),
    _p(
        "meta-og-image-quote",
        "metadata",
        '<meta property="og:image" content="https://example.org/a.png&quot; onerror=&quot;{js}">',
        where="head",
    ),
    _p(
        "meta-og-site",
        "metadata",
        '<meta property="og:site_name" content="&lt;b onclick={js}&gt;Site&lt;/b&gt;">',
        where="head",
        visible=True,
    ),
    _p("meta-canonical-js", "metadata", '<link rel="canonical" href="javascript:{js}">', where="head"),
    _p(
        "meta-favicon-data",
        "metadata",
        '<link rel="icon" href="data:image/svg+xml,&lt;svg onload=\'{js}\'&gt;">',
        where="head",
    ),
    _p(
        "meta-html-lang",
        "metadata",
        '<meta http-equiv="content-language" content=\'en" onmouseover="{js}\'>',
        where="head",
    ),
    _p(
        "meta-jsonld",
        "metadata",
        '<script type="application/ld+json">{"@context": "https://schema.org", '
        '"@type": "NewsArticle", "headline": "Headline \\u003c/script\\u003e\\u003cscript'
        '\\u003e{js}\\u003c/script\\u003e \\"q\\"\\n---\\nx: 1", "author": {"@type": '
        '"Person", "name": "\\u003cimg src=x onerror={js}\\u003e A. Writer"}, '
        '"description": "desc \\u003cb\\u003e---", "image": "javascript:{js}", '
        '"datePublished": "2024-03-05T10:00:00Z\\u003cscript\\u003e", '
        '"inLanguage": "en\\" onload=\\"{js}", "publisher": {"name": '
        '"Pub \\u003ci\\u003e\\n---"}}</script>',
        where="head",
        visible=True,
    ),
    _p(
        "meta-jsonld-broken",
        "metadata",
        '<script type="application/ld+json">{"@type": "Article", "headline": '
        '"</script><script>{js}</script>"}</script>',
        where="head",
    ),
    _p(
        "meta-control",
        "metadata",
        "<title>Pond \x1b]0;xss-{id}\x07 notes \x7f\x85\u2028\ufeff end</title>",
        where="head",
        visible=True,
    ),
]

PAYLOADS: list[Payload] = (
    _url_payloads()
    + HANDLER_PAYLOADS
    + STYLE_PAYLOADS
    + ELEMENT_PAYLOADS
    + FOREIGN_PAYLOADS
    + MUTATION_PAYLOADS
    + MARKDOWN_PAYLOADS
    + CONTROL_PAYLOADS
    + METADATA_PAYLOADS
)
assert len({p.id for p in PAYLOADS}) == len(PAYLOADS), "payload ids must be unique"

# Short fragments the fuzzer splices into random markup.
FUZZ_FRAGMENTS: list[str] = [p.html for p in PAYLOADS if p.where == "body" and not p.id.startswith("u-")] + [
    ctx.replace("{url}", URL_VARIANTS[v].replace("{js}", js("f")).replace("{id}", "f").replace('"', "&quot;"))
    for ctx in list(URL_CONTEXTS.values())[:8]
    for v in ("plain", "tab-entity", "double-entity", "data-svg")
]

# --- the article a payload is embedded in --------------------------------------------------------------
KEEP_LEAD = "The lead-in sentence before the sample stays in the article"
KEEP_TAIL = "The closing sentence after the sample stays in the article too"
PARAGRAPHS = [
    "A small garden pond attracts more wildlife than almost any other feature of the same size. Within a few "
    "weeks of filling, water beetles and pond skaters arrive on their own, and frogs often find a new pond in "
    "the first spring after it is dug, even in a town garden far from other water.",
    "The shape matters more than the size. A gently sloping edge on at least one side lets young frogs, "
    "hedgehogs and birds get in and out safely, while a deeper area in the middle stays cool in summer and "
    "does not freeze solid in winter, which gives the animals somewhere to shelter.",
    "Rainwater is better than tap water for filling and topping up, because it carries fewer nutrients. Tap "
    "water often feeds a bloom of green algae in the first months. Collecting water from a shed roof in a "
    "butt is a simple way to keep the level steady through a dry summer.",
    "Native plants give the best start. A mix of submerged oxygenating plants, floating leaves that shade "
    "part of the surface, and marginal plants around the edge provides food, shelter and places to lay eggs. "
    "Avoid fish if the aim is wildlife, because they eat tadpoles and insect larvae.",
]


def article_page(
    body: str = "", head: str = "", title: str | None = "Notes on Keeping a Small Garden Pond"
) -> str:
    """A realistic page: site chrome, an article of four long paragraphs, ``body`` inside the article between
    two sentences that must survive, and ``head`` inside ``<head>``."""
    p = PARAGRAPHS
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        + (f"<title>{escape_text(title)}</title>\n" if title is not None else "")
        + f"{head}\n</head>\n<body>\n"
        '<header class="site-header"><a href="/">Example Garden Notes</a>\n'
        '<nav><ul><li><a href="/">Home</a></li><li><a href="/ponds/">Ponds</a></li>'
        '<li><a href="/about/">About</a></li></ul></nav></header>\n'
        '<main><article class="post">\n<h1>Notes on Keeping a Small Garden Pond</h1>\n'
        f"<p>{p[0]}</p>\n<p>{p[1]}</p>\n"
        f'<div class="sample"><p>{KEEP_LEAD}, as ordinary prose would.</p>\n{body}\n'
        f"<p>{KEEP_TAIL}, as ordinary prose would.</p></div>\n"
        f"<p>{p[2]}</p>\n<p>{p[3]}</p>\n</article></main>\n"
        "<footer><p>Example Garden Notes is written by volunteers.</p></footer>\n</body>\n</html>\n"
    )


def payload_page(p: Payload) -> str:
    if p.where == "head":
        return article_page(
            head=p.html, title=None if "<title" in p.html else "Notes on Keeping a Small Garden Pond"
        )
    return article_page(body=p.html)


PAGE_URL = "https://example.org/garden/pond-notes"


# --- static checks -----------------------------------------------------------------------------------------
def reparse(html: str) -> Element:
    """``html`` as a browser would parse it inside ``<body>`` of a standards-mode page (html5lib)."""
    return parse_html("<!DOCTYPE html><html><head></head><body>" + html + "</body></html>").body


def _elements(root: Element) -> list[Element]:
    return list(root.iter(include_self=False))


def signature(el: Element) -> tuple[str, str, tuple[tuple[str, str], ...]]:
    return (el.ns, el.tag, tuple(sorted(el.attrs.items())))


def canon(root: Element) -> list[tuple[Any, ...]]:
    """A whitespace-insensitive token list of a tree: element starts/ends with attributes, collapsed text."""
    out: list[tuple[Any, ...]] = []
    stack: list[tuple[str, Any]] = [("node", c) for c in reversed(root.children)]
    while stack:
        kind, n = stack.pop()
        if kind == "end":
            out.append(("end", n))
            continue
        if isinstance(n, Text):
            t = " ".join(n.data.split())
            if t:
                if out and out[-1][0] == "text":
                    out[-1] = ("text", out[-1][1] + " " + t)
                else:
                    out.append(("text", t))
            continue
        assert isinstance(n, Element)
        out.append(("start", n.ns, n.tag, tuple(sorted(n.attrs.items()))))
        stack.append(("end", n.tag))
        stack.extend(("node", c) for c in reversed(n.children))
    return out


def check_element_policy(root: Element, where: str = "content_html") -> None:
    """Every element and attribute under ``root`` is on the sanitizer's allow-list with a value it would keep,
    and breaks none of the design's independent rules."""
    for el in _elements(root):
        assert el.ns == HTML_NS, f"{where}: foreign element {el.ns}:{el.tag}"
        assert el.tag in ALLOWED_TAGS, f"{where}: element <{el.tag}> is not on the allow-list"
        assert el.tag not in NEVER_ELEMENTS, f"{where}: <{el.tag}> must never reach the output"
        for name, value in el.attrs.items():
            assert not name.startswith("on"), f"{where}: event handler {name} on <{el.tag}>"
            assert name not in NEVER_ATTRS, f"{where}: attribute {name} on <{el.tag}>"
            assert clean_attr(el.tag, name, value) == value, (
                f"{where}: <{el.tag} {name}={value!r}> not allowed"
            )
            if name in URL_ATTRS:
                assert url_ok(value, image=(el.tag == "img" and name == "src")), (
                    f"{where}: unsafe URL in <{el.tag} {name}={value!r}>"
                )
            if name == "srcset":
                for u, descriptors in srcset_candidates(value):
                    assert url_ok(u, image=True), f"{where}: unsafe srcset URL {u!r}"
                    for d in descriptors:
                        assert SRCSET_DESCRIPTOR.match(d), f"{where}: srcset descriptor {d!r} is not a size"
            assert not CONTROL.search(value), f"{where}: control character in <{el.tag} {name}>"
    for n in root.iter_nodes():
        if isinstance(n, Text):
            assert not CONTROL.search(n.data), f"{where}: control character in text {n.data[:40]!r}"


def assert_reparse_stable(html: str, seen: Element | None = None) -> Element:
    """Serialize → re-parse with html5lib → the elements and attributes are what the sanitizer allowed, and a
    second round trip changes nothing (no mutation between our serializer and a browser's parser).

    ``seen``: the tree the sanitizer cleaned; every element of the re-parse must be one it saw (same tag and
    attributes), except attribute-less elements the parser implies (``<p>`` for a stray ``</p>``, ``<tbody>``).
    """
    first = reparse(html)
    check_element_policy(first)
    again = serialize(first, include_self=False)
    second = reparse(again)
    assert canon(first) == canon(second), "re-serialization changed the tree"
    # a fixed point up to whitespace (the newline we put after a block becomes a text node on re-parse)
    assert " ".join(serialize(second, include_self=False).split()) == " ".join(again.split()), (
        "serialization is not a fixed point"
    )
    if seen is not None:
        have = Counter(signature(e) for e in _elements(seen))
        for sig, n in Counter(signature(e) for e in _elements(first)).items():
            if n > have.get(sig, 0):
                assert not sig[2], f"element {sig} appeared after re-parse; the sanitizer never saw it"
    return first


def markdown_renderer() -> Any:
    """CommonMark (plus GFM tables and strikethrough) with raw HTML on and link validation off: the most
    permissive renderer our Markdown may meet."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
    md.validateLink = lambda url: True
    return md


_MD = None


def _walk_tokens(tokens: list[Any]) -> Any:
    for t in tokens:
        yield t
        if t.children:
            yield from _walk_tokens(t.children)


def _known(target: str, html_targets: set[str]) -> bool:
    """``target`` (from a Markdown token) is one of the HTML output's. A non-ASCII host is punycoded by the
    renderer from slightly different input (our ``%28`` versus the HTML's ``(``): compare what follows it."""
    t = unquote(target)
    if t in html_targets:
        return True
    if "xn--" in t:
        tail = t.split("/", 3)[3:]
        return any(h.split("/", 3)[3:] == tail for h in html_targets)
    return False


def check_markdown(markdown: str, content: Element | None) -> None:
    """No raw HTML, no unsafe link or image target, and no link or image the HTML output does not have."""
    global _MD
    if _MD is None:
        _MD = markdown_renderer()
    assert not CONTROL.search(markdown), "markdown: control character"
    html_hrefs = set()
    html_srcs = set()
    if content is not None:
        for el in _elements(content):
            if el.tag == "a" and el.get("href"):
                html_hrefs.add(unquote(_MD.normalizeLink(el.get("href").strip())))
            if el.tag == "img" and el.get("src"):
                html_srcs.add(unquote(_MD.normalizeLink(el.get("src").strip())))
    for t in _walk_tokens(_MD.parse(markdown)):
        assert t.type not in ("html_block", "html_inline"), f"markdown: raw HTML {t.content[:80]!r}"
        if t.type == "link_open":
            href = t.attrGet("href") or ""
            assert url_ok(unquote(href), image=False), f"markdown: unsafe link target {href!r}"
            if content is not None:
                assert _known(href, html_hrefs), f"markdown: link {href!r} that the HTML output does not have"
        if t.type == "image":
            src = t.attrGet("src") or ""
            assert url_ok(unquote(src), image=True), f"markdown: unsafe image source {src!r}"
            if content is not None:
                assert _known(src, html_srcs), f"markdown: image {src!r} that the HTML output does not have"


FRONT_MATTER_KEYS = ("title", "url", "author", "published", "site")


def check_front_matter(markdown_fm: str, markdown: str, result: Any, url: str | None) -> None:
    """The block is exactly ``---``, one ``key: "json string"`` line per field, ``---``; YAML reads back the
    same strings; the article after it is the Markdown without front matter."""
    yaml = __import__("pytest").importorskip("yaml")
    expected = {
        "title": result.title,
        "url": result.canonical_url or url,
        "author": result.byline,
        "published": result.published,
        "site": result.site_name,
    }
    expected = {k: v for k, v in expected.items() if v}
    lines = markdown_fm.split("\n")
    assert lines[0] == "---", "front matter must open with ---"
    end = lines.index("---", 1)
    assert end == len(expected) + 1, f"front matter has {end - 1} lines for {len(expected)} fields"
    for ln in lines[1:end]:
        assert re.match(r'^[a-z]+: ".*"$', ln), f"front matter line is not a quoted scalar: {ln!r}"
    loaded = yaml.safe_load("\n".join(lines[1:end])) or {}
    assert loaded == expected, f"front matter reads back as {loaded!r}"
    assert "\n".join(lines[end + 1 :]).lstrip("\n") == markdown, "article after front matter differs"


def check_text(text: str, allowed_markers: set[str] | None) -> None:
    """No control characters; no payload marker from content that is never rendered (None: skip that)."""
    bad = CONTROL.search(text)
    assert not bad, f"text: control character near {text[max(0, bad.start() - 20) :][:40]!r}"
    text.encode("utf-8")
    for m in re.findall(MARKER + r"[\w-]+", text) if allowed_markers is not None else ():
        assert m in allowed_markers, f"text: {m} came from content that is never rendered"


def check_json(d: dict[str, Any]) -> None:
    s = cli_render(d, "json")
    s.encode("utf-8")
    assert json.loads(s) == d


def check_metadata(result: Any) -> None:
    for k in ("title", "byline", "published", "modified", "site_name", "lang", "dir", "excerpt"):
        v = getattr(result, k)
        assert v is None or isinstance(v, str), f"{k} must be a plain string"
    for k in ("lead_image", "canonical_url", "favicon"):
        v = getattr(result, k)
        if v is not None:
            assert browser_scheme(v) in ("http", "https"), f"{k}: {v!r} is not an http(s) URL"


def saved_page(result: Any) -> str:
    """A saved-article page assembled the way the reader view and saved files must be: every page-derived value
    escaped for its context (text, double-quoted attribute), the article body from ``content_html``."""

    def attr(v: Any) -> str:
        return escape_attr(str(v or ""))

    def text(v: Any) -> str:
        return escape_text(str(v or ""))

    img = f'<img src="{attr(result.lead_image)}" alt="">' if result.lead_image else ""
    return (
        f'<!DOCTYPE html><html lang="{attr(result.lang)}" dir="{attr(result.dir)}"><head><meta charset="utf-8">'
        f"<title>{text(result.title)}</title>"
        f'<meta name="author" content="{attr(result.byline)}">'
        f'<meta name="description" content="{attr(result.excerpt)}">'
        f'<link rel="canonical" href="{attr(result.canonical_url)}">'
        f"</head><body><article><header><h1>{text(result.title)}</h1>"
        f"<p>{text(result.byline)}</p><p>{text(result.site_name)}</p>"
        + (f'<p><a href="{attr(result.url)}">{text(result.url)}</a></p>' if result.url else "<p></p>")
        + f"{img}</header>"
        f"<div>{result.content_html}</div></article></body></html>"
    )


def check_saved_page(result: Any) -> None:
    """Re-parse the saved page: metadata stays text and attribute values, nothing else appears."""
    doc = parse_html(saved_page(result))

    def plain(v: Any) -> str:  # escape_text/escape_attr drop control characters, as every renderer does
        t = str(v or "").replace("\r\n", "\n").replace("\r", "\n").replace("\x0c", " ")
        return re.sub("[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f\ud800-\udfff]", "", t)

    html_el = doc.html
    assert html_el.get("lang") == plain(result.lang) and html_el.get("dir") == plain(result.dir)
    head = [e for e in doc.head.iter(include_self=False)]
    assert [e.tag for e in head] == ["meta", "title", "meta", "meta", "link"], "head gained elements"
    assert head[1].text() == plain(result.title)
    assert head[2].get("content") == plain(result.byline)
    assert head[3].get("content") == plain(result.excerpt)
    article = doc.body.find("article")
    assert article is not None
    header = article.find("header")
    assert header is not None
    kids = header.element_children
    assert kids[0].tag == "h1" and kids[0].text() == plain(result.title)
    assert kids[1].text() == plain(result.byline) and kids[2].text() == plain(result.site_name)
    tags = [e.tag for e in header.iter(include_self=False)]
    want = ["h1", "p", "p", "p"] + (["a"] if result.url else []) + (["img"] if result.lead_image else [])
    assert tags == want, f"header: {tags}"
    body = article.element_children[1]
    # compare at the same depth: both trees go through readwell's parser, which caps nesting depth
    alone = parse_html(
        f"<!DOCTYPE html><html><head></head><body><article><header></header><div>"
        f"{result.content_html}</div></article></body></html>"
    ).body.find("article")
    assert alone is not None
    assert canon(body) == canon(alone.element_children[1]), "article body changed inside the saved page"


def sanitized_tree(
    page: str | bytes, url: str | None = PAGE_URL, **options: Any
) -> tuple[Element | None, str]:
    """The tree the sanitizer returned and our serializer's HTML (before bleach), for ``seen`` comparisons."""
    from readwell.extract import make_options, run_pipeline
    from readwell.sanitize import sanitize_tree

    opts = make_options(url, options)
    ctx = run_pipeline(parse_html(page), opts)
    root = ctx.root if "select_root" not in opts.disable else ctx.doc.body
    if root is None:
        return None, ""
    sanitize_tree(ctx, root)
    return root, serialize(root, include_self=False)


def check_all(
    page: str | bytes,
    url: str | None = PAGE_URL,
    allowed_markers: set[str] | None = frozenset(),
    options: dict[str, Any] | None = None,
    deep: bool = True,
    front_matter_check: bool = True,
) -> Any:
    """Every static check on every output format of one extraction; returns the Result."""
    options = dict(options or {})
    result = extract(page, url=url, **options)
    d = result.to_dict()
    check_json(d)
    check_metadata(result)
    content = assert_reparse_stable(result.content_html)
    if deep and result.found:
        seen, ours = sanitized_tree(page, url, **options)
        assert seen is not None
        # our serializer's output, before bleach, must already pass: bleach is the last defence, not the only
        assert_reparse_stable(ours, seen=seen)
        assert canon(reparse(bleach_final(ours))) == canon(reparse(ours)), "bleach had to change our output"
    check_markdown(result.markdown, content)
    check_text(result.text, None if allowed_markers is None else set(allowed_markers))
    check_saved_page(result)
    if front_matter_check and result.found and not options.get("front_matter"):
        fm = extract(page, url=url, front_matter=True, **options)
        check_front_matter(fm.markdown, result.markdown, fm, url)
    return result


def visible_markers(p: Payload) -> set[str]:
    return {MARKER + p.id} if p.visible else set()


# --- fuzzing: one generator for the hypothesis test and the benchmark ------------------------------------------
FUZZ_TOKENS: list[str] = [
    "<div>",
    "</div>",
    "<p>",
    "</p>",
    "<span>",
    "</span>",
    "<a href='",
    '<a href="',
    "'>",
    '">',
    '"',
    "'",
    ">",
    "<",
    "</",
    "/>",
    "<!--",
    "-->",
    "--!>",
    "<![CDATA[",
    "]]>",
    "<?",
    "<!DOCTYPE html>",
    "<svg>",
    "</svg>",
    "<math>",
    "</math>",
    "<mtext>",
    "<mglyph>",
    "<foreignObject>",
    "<desc>",
    "<table>",
    "<tr>",
    "<td>",
    "</table>",
    "<noscript>",
    "</noscript>",
    "<template>",
    "</template>",
    "<template shadowrootmode=open>",
    "<slot>",
    "<script>",
    "</script>",
    "<style>",
    "</style>",
    "<textarea>",
    "</textarea>",
    "<select>",
    "<option>",
    "<title>",
    "</title>",
    "<xmp>",
    "<iframe>",
    "</iframe>",
    "<noembed>",
    "<plaintext>",
    "<pre>",
    "</pre>",
    "<code>",
    "</code>",
    "<h1>",
    "<h2>",
    "<ul>",
    "<li>",
    "<ol start=",
    "<blockquote>",
    "<details open>",
    "<summary>",
    "<figure>",
    "<figcaption>",
    "<img src=",
    '<img srcset="',
    "<source srcset=",
    "<picture>",
    "<form>",
    "<frameset>",
    "<frame>",
    "<body>",
    "<html>",
    "<head>",
    "<base href=",
    "<meta http-equiv=refresh ",
    '<blockquote data-callout="',
    '<span data-tex="',
    '<div data-tex="',
    " data-display=block",
    "<sup ",
    ' data-footnote-ref="',
    "<article>",
    "<main>",
    "<nav>",
    "<header>",
    "<footer>",
    "<aside class=related>",
    "&#",
    "&#x",
    "&amp;",
    "&lt;",
    "&gt;",
    "&quot;",
    "&colon;",
    "&Tab;",
    "&NewLine;",
    "&",
    ";",
    "=",
    "`",
    "|",
    "[",
    "](",
    ")",
    "(",
    "*",
    "_",
    "#",
    "$",
    "\\",
    "javascript:",
    "JaVaScRiPt:",
    "vbscript:",
    "data:text/html,",
    "data:image/svg+xml,",
    " onerror=",
    " onclick=",
    " style=",
    " srcdoc=",
    " xlink:href=",
    "alert(1)",
    "\x00",
    "\x01",
    "\x0b",
    "\x1b[2J",
    "\x1f",
    "\x7f",
    "\x85",
    "\x9b",
    "\ud800",
    "\udfff",
    "\ufeff",
    "\ufffe",
    "\u2028",
    "\r",
    "\r\n",
    "\n",
    "\n\n",
    "\t",
    " ",
    "---",
    "```",
    "~~~",
    "<!--$?-->",
    "<!--/$-->",
]


def _fuzz_text(rng: Any, n: int) -> str:
    return " ".join(" ".join(rng.choice(PARAGRAPHS).split()[: rng.randint(1, 60)]) for _ in range(n))


def fuzz_case(rng: Any) -> tuple[str | bytes, str | None]:
    """One fuzz input from ``rng`` (a ``random.Random``): tag soup, or a real page with mutations, with payload
    fragments spliced in; sometimes bytes with invalid UTF-8; with or without a page URL."""
    kind = rng.random()
    if kind < 0.4:
        parts = []
        for _ in range(rng.randint(1, 80)):
            r = rng.random()
            if r < 0.55:
                parts.append(rng.choice(FUZZ_TOKENS))
            elif r < 0.75:
                parts.append(rng.choice(FUZZ_FRAGMENTS))
            elif r < 0.9:
                parts.append(_fuzz_text(rng, 1))
            else:
                parts.append("".join(chr(rng.randint(0, 0x2FFF)) for _ in range(rng.randint(1, 12))))
        page = "".join(parts)
        if rng.random() < 0.5:
            page = article_page(body=page)
    else:
        base = rng.choice(_FUZZ_BASES)
        page = base
        for _ in range(rng.randint(1, 8)):
            op = rng.random()
            i = rng.randint(0, len(page))
            j = min(len(page), i + rng.randint(0, 400))
            if op < 0.45:
                page = page[:i] + rng.choice(FUZZ_FRAGMENTS + FUZZ_TOKENS) + page[i:]
            elif op < 0.65:
                page = page[:i] + page[j:]
            elif op < 0.8:
                page = page[:j] + page[i:j] + page[j:]
            elif op < 0.9:
                page = page[:i] + rng.choice(FUZZ_TOKENS) * rng.randint(2, 200) + page[i:]
            else:
                page = page[:i]
    url = rng.choice([PAGE_URL, None, "https://example.org/", "https://example.org/a/b/c?q=1#f"])
    if rng.random() < 0.3:
        data = page.encode("utf-8", "surrogatepass")
        for _ in range(rng.randint(0, 6)):
            i = rng.randint(0, len(data))
            data = (
                data[:i]
                + rng.choice(
                    [
                        b"\xff",
                        b"\xfe\xff",
                        b"\xc3",
                        b"\xc3\x28",
                        b"\xe2\x82",
                        b"\x80",
                        b"\xed\xa0\x80",
                        b"\x00",
                    ]
                )
                + data[i:]
            )
        return data, url
    return page, url


def _fuzz_bases() -> list[str]:
    import fixturelib

    bases = [article_page()]
    for fx in fixturelib.all_fixtures("security"):
        bases.append(fx.data.decode("utf-8", "replace"))
    return bases


_FUZZ_BASES = _fuzz_bases()


def fuzz_strategy() -> Any:
    """A hypothesis strategy over ``fuzz_case``: hypothesis drives the random choices (so it can shrink)."""
    from hypothesis import strategies as st

    return st.randoms(use_true_random=False).map(fuzz_case)


def _deep(tag: str, n: int) -> str:
    return article_page(
        body=f"<{tag}>" * n + "Deep text at the bottom of the nesting. " * 5 + f"</{tag}>" * (n // 2)
    )


BIG_SIZE = 20 * 1024 * 1024


def _huge_page(scale: float) -> str:
    para = "<p>" + PARAGRAPHS[0] + ' <a href="https://example.org/x">link</a> <b>bold</b></p>\n'
    return article_page(body=para * max(1, int(BIG_SIZE * scale / len(para))))


# (name, make(scale) -> page); scale 1.0 is the size named in the issue
BIG_CASES: list[tuple[str, Any]] = [
    ("deep-div-nesting", lambda s: _deep("div", int(100_000 * s))),
    ("deep-inline-nesting", lambda s: _deep("b", int(100_000 * s))),
    (
        "deep-mixed-nesting",
        lambda s: article_page(body="<div><span><a><em>" * int(25_000 * s) + "Deep text."),
    ),
    ("huge-page", _huge_page),
    (
        "huge-attribute",
        lambda s: article_page(
            body='<p><a href="https://example.org/'
            + "a" * int(BIG_SIZE * s)
            + '" title="'
            + "t" * int(BIG_SIZE * s / 4)
            + '">x</a></p>'
        ),
    ),
    (
        "many-attributes",
        lambda s: article_page(
            body="<p " + " ".join(f'a{i}="{i}"' for i in range(int(20_000 * s))) + ">Many attributes.</p>"
        ),
    ),
    (
        "unclosed-paragraphs",
        lambda s: article_page(body="<p>Words in an unclosed paragraph" * int(100_000 * s)),
    ),
    ("nul-bytes", lambda s: article_page(body="<p>" + "\x00a" * int(BIG_SIZE * s / 2) + "</p>").encode()),
    (
        "invalid-utf8",
        lambda s: (
            article_page(body="<p>caf\u00e9</p>").encode()
            + b"\xff\xfe\xc3\x28\xe2\x82" * int(BIG_SIZE * s / 6)
        ),
    ),
    (
        "corpus-repeated",
        lambda s: article_page(
            body="\n".join(p.html for p in PAYLOADS if p.where == "body") * max(1, int(40 * s))
        ),
    ),
]
