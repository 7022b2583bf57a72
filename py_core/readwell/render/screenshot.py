"""``--screenshot FILE``: the full page with every block outlined and labelled by its role.

The picture a user looks at to understand a result. The outlines are drawn into the page after the last
snapshot (so they never reach the extraction), from our isolated world, as one absolutely positioned layer on
the document element (page coordinates, the same as the blocks' boxes), and removed after the shot.
"""

from __future__ import annotations

import json
from typing import Any

from .page import World

# One colour per role; the main content stands out, boilerplate is muted.
ROLE_COLOURS = {
    "main_content": "#d62728",
    "navigation": "#1f77b4",
    "header": "#17becf",
    "footer": "#7f7f7f",
    "sidebar": "#9467bd",
    "related": "#ff7f0e",
    "comments": "#2ca02c",
    "comment_form": "#bcbd22",
    "search": "#8c564b",
    "ads": "#e377c2",
    "other": "#aaaaaa",
}
DRAW_JS = """((blocks, colours) => {
  const layer = document.createElement('div');
  layer.id = '__readwell_blocks';
  layer.style.cssText = 'position:absolute;left:0;top:0;width:0;height:0;z-index:2147483647;' +
    'pointer-events:none';
  for (const b of blocks) {
    const c = colours[b.role] || '#000';
    const box = document.createElement('div');
    box.style.cssText = `position:absolute;box-sizing:border-box;left:${b.box.x}px;top:${b.box.y}px;` +
      `width:${b.box.w}px;height:${b.box.h}px;border:3px solid ${c};background:${c}14`;
    const tag = document.createElement('span');
    tag.textContent = `${b.id} ${b.role} ${b.importance.toFixed(2)}`;
    tag.style.cssText = `position:absolute;left:0;top:0;background:${c};color:#fff;font:bold 12px/16px ` +
      'sans-serif;padding:0 4px;white-space:nowrap';
    box.append(tag);
    layer.append(box);
  }
  document.documentElement.append(layer);
  return blocks.length;
})"""
REMOVE_JS = "(document.getElementById('__readwell_blocks') || { remove() {} }).remove(), true"


async def shoot(page: Any, world: World, blocks: list[dict[str, Any]], path: str) -> None:
    """Draw ``blocks``, take a full-page PNG at ``path``, remove the drawing."""
    shown = [b for b in blocks if b["box"]["w"] > 0 and b["box"]["h"] > 0]
    await world.eval(f"{DRAW_JS}({json.dumps(shown)}, {json.dumps(ROLE_COLOURS)})")
    try:
        await page.screenshot(path=path, full_page=True, type="png")
    finally:
        await world.eval(REMOVE_JS)
