"""The pipeline as data: one ordered table of named stages, each switchable and timed.

The order is part of the algorithm (each stage's docstring says what it relies on from earlier ones):
shadow content and deferred content first (they hold the article), then the root, then structures that
removal rules would damage, then removals from the most visual (hidden) to the weakest evidence (text
patterns), then output normalization and URLs. ``sanitize`` and ``render`` always run after the table.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from .context import Context
from .stages import (
    callouts,
    flatten_shadow,
    normalize_output,
    normalize_structures,
    remove_by_pattern,
    remove_by_selector,
    remove_hidden_and_tiny_media,
    remove_low_score,
    resolve_deferred,
    resolve_urls,
    select_root,
)


@dataclass(frozen=True)
class Stage:
    name: str
    run: Callable[[Context], None]
    summary: str


STAGES: tuple[Stage, ...] = (
    Stage("flatten_shadow", flatten_shadow.run, "shadow roots and declarative shadow DOM become children"),
    Stage("resolve_deferred", resolve_deferred.run, "lazy media and streamed segments put in place"),
    Stage("select_root", select_root.run, "content root chosen by scoring or by --selector"),
    Stage("normalize_structures", normalize_structures.run, "code blocks, math, footnotes, figures"),
    Stage("callouts", callouts.run, "alerts and admonitions to one representation"),
    Stage("remove_hidden_and_tiny_media", remove_hidden_and_tiny_media.run, "hidden elements, pixels, icons"),
    Stage("remove_low_score", remove_low_score.run, "link lists, teasers, widgets inside the root"),
    Stage("remove_by_selector", remove_by_selector.run, "exact selectors and class/id token patterns"),
    Stage("remove_by_pattern", remove_by_pattern.run, "boilerplate text blocks"),
    Stage("normalize_output", normalize_output.run, "unwrap wrappers, drop empties, one title"),
    Stage("resolve_urls", resolve_urls.run, "absolute links and media URLs"),
)
STAGE_NAMES: tuple[str, ...] = tuple(s.name for s in STAGES)


def stage_names() -> list[str]:
    return list(STAGE_NAMES)


def run_stages(
    ctx: Context, stop_after: str | None = None, after_stage: Callable[[Context, str], None] | None = None
) -> None:
    """Run the enabled stages in order, timing each (ms).

    ``stop_after`` ends early; ``after_stage`` is called after each stage (why-missing checks the text there).
    """
    disabled = set(ctx.options.disable)
    for stage in STAGES:
        if stage.name in disabled:
            ctx.timings[stage.name] = 0.0
        else:
            ctx.stage = stage.name
            t0 = time.perf_counter()
            stage.run(ctx)
            ctx.timings[stage.name] = round((time.perf_counter() - t0) * 1000, 3)
        if after_stage is not None:
            after_stage(ctx, stage.name)
        if stage.name == stop_after:
            break
    ctx.stage = ""
