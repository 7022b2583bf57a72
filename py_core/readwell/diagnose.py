"""why-missing: rerun the pipeline stage by stage and name the first stage, rule and log entry that removed a
piece of text (or say it was never in the parsed page, or that it is in the output).

After each stage the working tree is checked for the text; before each stage the chain of elements holding
it is remembered, so the culprit is the log entry of that stage whose node is on that chain. Sanitizing and
rendering are checked last the same way.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from .context import Context, Options
from .dom import Document, Element, normalize_space
from .extract import extract_document, run_pipeline
from .sanitize import sanitize_tree


def _norm(s: str) -> str:
    return normalize_space(s).casefold()


def _holder_chain(root: Element, needle: str) -> list[int]:
    """Node ids from the deepest element whose text contains ``needle`` up to ``root``."""
    if needle not in _norm(root.text()):
        return []
    cur = root
    while True:
        nxt = next((c for c in cur.element_children if needle in _norm(c.text())), None)
        if nxt is None:
            break
        cur = nxt
    return [cur.nid, *(a.nid for a in cur.ancestors())]


def why_missing(doc: Document, opts: Options, text: str) -> dict[str, Any]:
    needle = _norm(text)
    if not needle:
        return {"status": "empty-query", "text": text}
    if needle not in _norm(doc.root.text()):
        return {
            "status": "not-in-page",
            "text": text,
            "message": "the text is not in the parsed page (it may be added by scripts, or spelled differently)",
        }
    opts = dataclasses.replace(opts, debug=True)  # the blamed entry shows its text and path (``_entry``)
    result = extract_document(doc, opts)
    if needle in _norm(result.text or ""):
        return {"status": "present", "text": text, "message": "the text is in the extracted article"}

    state: dict[str, Any] = {"chain": _holder_chain(doc.root, needle), "answer": None}

    def after(ctx: Context, stage: str) -> None:
        if state["answer"] is not None:
            return
        if needle in _norm(ctx.doc.root.text()):
            state["chain"] = _holder_chain(ctx.doc.root, needle)
            return
        state["answer"] = _blame(ctx, stage, state["chain"])

    ctx = run_pipeline(doc, opts, after_stage=after)
    if state["answer"] is None and ctx is not None:
        root = ctx.root or ctx.doc.body
        if needle not in _norm(root.text()):
            state["answer"] = {
                "status": "removed",
                "stage": "select_root",
                "entry": None,
                "message": "not inside the chosen content root",
            }
        else:
            chain = _holder_chain(root, needle)
            sanitize_tree(ctx, root)
            if needle not in _norm(root.text()):
                state["answer"] = _blame(ctx, "sanitize", chain)
            else:
                state["answer"] = {
                    "status": "removed",
                    "stage": "render",
                    "entry": None,
                    "message": "present after sanitizing but not in the rendered text "
                    "(no article was found, or it was below the minimum length)",
                }
    answer = state["answer"]
    answer["text"] = text
    answer["found"] = result.found
    return answer


def _blame(ctx: Context, stage: str, chain: list[int]) -> dict[str, Any]:
    entries = [e for e in ctx.log if e.stage == stage and e.node_id in set(chain)]
    if entries:
        # the outermost removal on the chain is what took the text away
        order = {nid: i for i, nid in enumerate(chain)}
        e = max(entries, key=lambda x: order.get(x.node_id, -1))
        return {
            "status": "removed",
            "stage": stage,
            "entry": e.to_dict(),
            "message": f"removed by stage {stage}: {e.kind} rule {e.rule!r} ({e.reason})",
        }
    return {
        "status": "removed",
        "stage": stage,
        "entry": None,
        "message": f"lost during stage {stage} (no single log entry on the text's element chain)",
    }


def describe(answer: dict[str, Any]) -> str:
    lines = [answer.get("message", answer["status"])]
    e = answer.get("entry")
    if e:
        lines.append(f"  stage:  {e['stage']}")
        lines.append(f"  action: {e['action']}")
        lines.append(f"  kind:   {e['kind']}")
        lines.append(f"  rule:   {e['rule']}")
        lines.append(f"  reason: {e['reason']}")
        lines.append(f"  node:   {e['node_id']} {e['path']}")
        lines.append(f"  text:   {e['text']}")
    return "\n".join(lines)
