"""Extension adapter glue inside Pyodide: the live-DOM snapshot (one JSON string from the content script)
goes through readwell.adapters.from_snapshot (via readwell.extract on a dict); results go back as the CLI's
JSON. Written into site-packages next to readwell_bridge by extension/engine.mjs."""

import json

import readwell
from readwell_bridge import _options


def extract_snapshot_json(snapshot_json, options_json=None):
    opts = _options(options_json)
    url = opts.pop("url", None)
    result = readwell.extract(json.loads(snapshot_json), url=url, **opts)
    return json.dumps(result.to_dict(), ensure_ascii=False)
