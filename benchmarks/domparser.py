"""Three parsers on the same inputs: html5lib, the fast parser (lexbor) and Chromium's DOMParser (Debian's
/usr/bin/chromium through Playwright). Prints, for the fixtures and for the synthetic difference classes and
hostile cases in tests/, which parsers build the same <body> tree. Source of benchmarks/PARSERS.md.

    python benchmarks/domparser.py
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

# The same compact serialization as tests/test_parse_fast.py's tree(), computed in the page.
WALK = """(html) => {
  const doc = new DOMParser().parseFromString(html, "text/html");
  const NS = {"http://www.w3.org/2000/svg": "svg:", "http://www.w3.org/1998/Math/MathML": "math:"};
  const q = (s) => "'" + s.replace(/\\\\/g, "\\\\\\\\").replace(/'/g, "\\\\'").replace(/\\n/g, "\\\\n") + "'";
  function ser(node) {
    let out = "", text = null;
    const kids = node.localName === "template" && node.content ? node.content.childNodes : node.childNodes;
    for (const c of kids) {
      if (c.nodeType === 3) { text = (text || "") + c.data; continue; }
      if (c.nodeType !== 1) continue;
      if (text !== null) { out += q(text); text = null; }
      const attrs = [...c.attributes].map(a => " " + a.name + "=" + q(a.value)).join("");
      out += "<" + (NS[c.namespaceURI] || "") + c.localName + attrs + ">" + ser(c) + "</>";
    }
    if (text !== null) out += q(text);
    return out;
  }
  return ser(doc.body);
}"""


def main() -> int:
    import fixturelib
    import test_parse_fast as t
    from playwright.sync_api import sync_playwright
    from readwell.parse import parse_html

    cases = {k: (v[0], v[3]) for k, v in t.DIFFERENCES.items()}
    cases.update({k: (v, "") for k, v in t.SAME.items() if isinstance(v, str) and len(v) < 20_000})
    fixtures = fixturelib.all_fixtures()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        page = browser.new_page()
        print(f"{'case':<52} {'html5lib':>9} {'fast':>6}   (= same <body> tree as Chromium DOMParser)")
        for name, (html, _why) in cases.items():
            chrome = page.evaluate(WALK, html)
            slow = t.tree(parse_html(html, parser="html5lib").body)
            fast = t.tree(parse_html(html, parser="fast").body)
            marks = ["=" if tree == chrome else "differs" for tree in (slow, fast)]
            print(f"{name:<52} {marks[0]:>9} {marks[1]:>6}")
        same = {"html5lib": 0, "fast": 0}
        for fx in fixtures:
            text = fx.data.decode("utf-8", "replace")
            chrome = page.evaluate(WALK, text)
            for parser in same:
                same[parser] += t.tree(parse_html(fx.data, parser=parser).body) == chrome
        print(
            f"fixtures with the same <body> tree as DOMParser: html5lib {same['html5lib']}/{len(fixtures)}, "
            f"fast {same['fast']}/{len(fixtures)}"
        )
        browser.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
