"""The pipeline as data: one ordered table of named stages, each switchable and timed.

The order is part of the algorithm. Each stage module declares ``AFTER``, the stages it must follow (its
docstring says why), and ``tests/test_structure.py`` checks this table against those declarations, so the
order is explained where each stage lives and cannot drift silently. In short: shadow content and deferred
content first (they hold the article), then the root, then structures that removal rules would damage, then
removals from the most visual (hidden) to the weakest evidence (text patterns), then output normalization
and URLs. ``sanitize`` and ``render`` always run after the table.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType

from . import deadline
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
    after: tuple[str, ...] = ()  # the stages this one must follow (declared by its module as AFTER)


def _stage(module: ModuleType, summary: str) -> Stage:
    """A stage from its module: the name is the module's, ``run`` and ``AFTER`` are its own."""
    return Stage(module.__name__.rsplit(".", 1)[-1], module.run, summary, module.AFTER)


STAGES: tuple[Stage, ...] = (
    _stage(flatten_shadow, "shadow roots and declarative shadow DOM become children"),
    _stage(resolve_deferred, "lazy media and streamed segments put in place"),
    _stage(select_root, "content root chosen by scoring or by --selector"),
    _stage(normalize_structures, "code blocks, math, footnotes, figures"),
    _stage(callouts, "alerts and admonitions to one representation"),
    _stage(remove_hidden_and_tiny_media, "hidden elements, pixels, icons"),
    _stage(remove_low_score, "link lists, teasers, widgets inside the root"),
    _stage(remove_by_selector, "exact selectors and class/id token patterns"),
    _stage(remove_by_pattern, "boilerplate text blocks"),
    _stage(normalize_output, "unwrap wrappers, drop empties, one title"),
    _stage(resolve_urls, "absolute links and media URLs"),
)
STAGE_NAMES: tuple[str, ...] = tuple(s.name for s in STAGES)

# Stages after which the measures stages share (``Context.measure``) stay valid; after any other stage they
# are forgotten. These change the tree only through ``Context.remove`` (which keeps the measures up to date),
# through ``Context.unwrap``/``replace`` (which forget them; the direct moves flatten_shadow and
# resolve_deferred make come right before one of those) or in attributes measures do not read (lazy image
# sources). tests/test_scaling.py checks the shared measures against fresh ones on every fixture.
KEEPS_MEASURES = frozenset({"flatten_shadow", "resolve_deferred", "remove_low_score", "remove_by_selector"})

# Stages after which ``Context.copy_order`` (the working copy's elements as copied) may still be valid:
# flatten_shadow changes the tree only when the page has a <template>, and then drops it itself. After any
# other stage it is dropped, so a stage never reads a list of elements the tree no longer holds.
KEEPS_COPY_ORDER = frozenset({"flatten_shadow"})


def stage_names() -> list[str]:
    return list(STAGE_NAMES)


def run_stages(
    ctx: Context, stop_after: str | None = None, after_stage: Callable[[Context, str], None] | None = None
) -> None:
    """Run the enabled stages in order, timing each (ms).

    ``stop_after`` ends early; ``after_stage`` is called after each stage (why-missing checks the text there).
    """
    disabled = set(ctx.options.disable)
    deadline.watch(ctx)
    for stage in STAGES:
        if stage.name in disabled:
            ctx.timings[stage.name] = 0.0
        else:
            ctx.stage = stage.name
            deadline.check()
            t0 = time.perf_counter()
            stage.run(ctx)
            ctx.flush_unwraps()  # no unwrap is left pending past its stage
            if stage.name not in KEEPS_MEASURES:
                ctx.forget_measures()
            if stage.name not in KEEPS_COPY_ORDER:
                ctx.copy_order = None
            ctx.timings[stage.name] = round((time.perf_counter() - t0) * 1000, 3)
        if after_stage is not None:
            after_stage(ctx, stage.name)
        if stage.name == stop_after:
            break
    ctx.stage = ""
