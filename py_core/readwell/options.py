"""Extraction options: one frozen dataclass, the single source of their names, defaults, groups and reasons.

Why one source: the names used to be written four times (the class, ``extract``'s defaults, ``OPTION_NAMES``
and the extension's list) and drifted (an option read by nothing stayed documented). Now ``extract``'s
keyword check, the CLI's flags and the engine's ``options_schema()`` (which the extension asks for) all read
``dataclasses.fields(Options)``.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field, fields
from typing import Any

# The outputs ``extract`` can render, by name, and the result attribute (JSON key) each one fills.
FORMAT_KEYS: dict[str, str] = {"html": "content_html", "markdown": "markdown", "text": "text"}
FORMATS: tuple[str, ...] = tuple(FORMAT_KEYS)

# Field metadata keys: "group" (what the option is about), "help" (one line, also the CLI help), "cli"
# (argparse keyword arguments for ``readwell extract``; absent: not a flag of its own).


@dataclass(frozen=True)
class Options:
    """Extraction options (grouped by purpose; each field's metadata says what it is for)."""

    # input
    url: str | None = field(
        default=None,
        metadata={"group": "input", "help": "the page's URL (base for relative links); not a keyword option"},
    )
    # what to extract
    selector: str | None = field(
        default=None,
        metadata={
            "group": "what to extract",
            "help": "CSS selector of the content root (bypasses detection)",
            "cli": {},
        },
    )
    disable: tuple[str, ...] = field(
        default=(),
        metadata={
            "group": "what to extract",
            "help": "skip a stage (repeatable)",
            "cli": {"action": "append", "default": [], "metavar": "STAGE"},
        },
    )
    root_model: bool = field(
        default=True,
        metadata={
            "group": "what to extract",
            "help": "let the learned model (readwell.root_model) overrule the hand rules' content root; "
            "off: the rules' root, to compare",
            "cli": {"action": argparse.BooleanOptionalAction, "default": True},
        },
    )
    # outputs
    front_matter: bool = field(
        default=False,
        metadata={
            "group": "outputs",
            "help": "YAML front matter before the Markdown",
            "cli": {"action": "store_true"},
        },
    )
    formats: tuple[str, ...] = field(
        default=FORMATS,
        metadata={
            "group": "outputs",
            "help": "the outputs to render (html, markdown, text; default all): a caller that shows one "
            "skips the others' rendering; the others are absent from the result (None, not in the JSON)",
        },
    )
    debug: bool = field(
        default=False,
        metadata={
            "group": "outputs",
            "help": "include the removal log and per-stage timings",
            "cli": {"action": "store_true"},
        },
    )
    # thresholds (tuned on the fixtures and the benchmark)
    min_article_chars: int = field(
        default=120,
        metadata={
            "group": "thresholds",
            "help": "below this many characters of text the page has no article (navigation and a few "
            "words), unless that text is all the page has and is a sentence or more of prose",
        },
    )

    # limits
    deadline_ms: float | None = field(
        default=None,
        metadata={
            "group": "limits",
            "help": "milliseconds for parse, pipeline and render, checked inside their loops (works in "
            "Pyodide); past it the result has status 'timeout' (CLI: --timeout SECONDS)",
        },
    )

    def __post_init__(self) -> None:
        # One normal form whatever the caller passed: no empty selector, the disabled stages as a tuple.
        object.__setattr__(self, "selector", self.selector or None)
        disable = self.disable
        object.__setattr__(self, "disable", (disable,) if isinstance(disable, str) else tuple(disable or ()))
        formats = self.formats
        object.__setattr__(
            self,
            "formats",
            (formats,) if isinstance(formats, str) else tuple(FORMATS if formats is None else formats),
        )


# Options given as keywords (``extract(html, url=..., **options)``): every field but the URL.
OPTION_NAMES: frozenset[str] = frozenset(f.name for f in fields(Options) if f.name != "url")


def option_names() -> list[str]:
    """The keyword option names, in declaration order (the extension forwards exactly these)."""
    return [f.name for f in fields(Options) if f.name in OPTION_NAMES]


def options_schema() -> list[dict[str, Any]]:
    """Each keyword option's name, type, default, group and help, for other runtimes (JSON-ready)."""
    out = []
    for f in fields(Options):
        if f.name not in OPTION_NAMES:
            continue
        default = f.default
        out.append(
            {
                "name": f.name,
                "type": str(f.type),
                "default": list(default) if isinstance(default, tuple) else default,
                "group": f.metadata["group"],
                "help": f.metadata["help"],
            }
        )
    return out


def cli_fields() -> list[Any]:
    """The fields that are flags of ``readwell extract`` (with their argparse keyword arguments)."""
    return [f for f in fields(Options) if "cli" in f.metadata]
