"""The hostile payload corpus: URL schemes in every URL-bearing attribute, event handlers, styles, dangerous
elements, SVG/MathML, mutation XSS, Markdown injection, control characters and hostile metadata.

A payload with ``visible=True`` carries its marker in escaped page *text*, which must survive as text
(``visible_markers``).
"""

from __future__ import annotations

from dataclasses import dataclass

from .reference import MARKER, TRAP_HOST


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
    "svg-xlink-href": '<svg width="60" height="20"><a xlink:href="{url}">'
    '<text x="0" y="15">alpha label</text></a></svg>',
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
    "img-legacy": '<img src="https://example.org/media/ok.png" lowsrc="{url}" dynsrc="{url}" '
    'longdesc="{url}" alt="alpha label">',
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


def visible_markers(p: Payload) -> set[str]:
    return {MARKER + p.id} if p.visible else set()
