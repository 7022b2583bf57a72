"""The ``readwell`` command: extract, stages, why-missing, serve, render.

A contract other tools rely on: exit 0 when an article is found, 3 when not (JSON still printed with
``found: false``), 4 when ``--timeout`` passed (JSON printed with ``status: "timeout"``), 2 for bad usage or
unreadable input with one line on stderr and no traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import Any, NoReturn

from . import deadline, diagnose
from .batch import cli as batch_cli
from .dom import Document
from .errors import InputError
from .extract import extract_owned, make_options, timeout_result
from .fetch import fetch
from .options import cli_fields
from .parse import parse_html, read_file
from .pipeline import STAGE_NAMES
from .render import cli as render_cli

EXIT_FOUND, EXIT_ERROR, EXIT_USAGE, EXIT_NOT_FOUND, EXIT_TIMEOUT = 0, 1, 2, 3, 4


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, exit 2 (argparse would print usage too)
        raise InputError(message)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="readwell", description="Extract the main content of a web page.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    e = sub.add_parser("extract", help="extract the article from a file, URL or stdin")
    e.add_argument("source", nargs="?", default="-", help="path, http(s) URL, or - for stdin (default)")
    e.add_argument("--url", help="the page's URL (base for relative links when SOURCE is a file or stdin)")
    e.add_argument("--format", choices=("json", "markdown", "html", "text"), default="json")
    for f in cli_fields():  # one flag per option (readwell.options is the single source)
        e.add_argument("--" + f.name.replace("_", "-"), help=f.metadata["help"], **f.metadata["cli"])
    e.add_argument("-o", "--output", help="write to FILE instead of stdout")
    e.add_argument("--render", action="store_true", help="load SOURCE in headless Chromium first")
    e.add_argument("--screenshot", metavar="FILE", help="with --render: full-page PNG with the blocks drawn")
    render_cli.add_render_options(e)  # includes --timeout MS: the core deadline without --render (exit 4)
    sub.add_parser("stages", help="list the pipeline stages in order")
    w = sub.add_parser("why-missing", help="name the first stage and rule that removed a piece of text")
    w.add_argument("source", help="path, http(s) URL, or - for stdin")
    w.add_argument("--text", required=True, help="the sentence (or part of it) that is missing")
    w.add_argument("--url")
    w.add_argument("--selector")
    w.add_argument("--disable", action="append", default=[], metavar="STAGE")
    w.add_argument("--json", action="store_true", help="machine-readable answer")
    s = sub.add_parser("serve", help="HTTP JSON API (needs the serve extra)")
    from .serve import add_arguments  # no web framework is imported until `serve` runs

    add_arguments(s)
    render_cli.add_render_command(sub)
    batch_cli.add_parser(sub)
    return p


def read_source(source: str, url: str | None) -> tuple[Callable[[], Document], str | None]:
    """(a parse of the page, page URL) from a path, an http(s) URL or '-' (stdin), read once: each call of
    the parse decodes the same bytes again."""
    if source == "-":
        return partial(parse_html, sys.stdin.buffer.read()), url
    if source.lower().startswith(("http://", "https://")):
        body, enc, final = fetch(source, allow_private=True)  # the user named it
        return partial(parse_html, body, enc), url or final
    return partial(parse_html, read_file(source)), url


def load_source(source: str, url: str | None) -> tuple[Document, str | None]:
    """(Document, page URL) from a path, an http(s) URL or '-' (stdin)."""
    parse, url = read_source(source, url)
    return parse(), url


def render(result_dict: dict[str, Any], fmt: str) -> str:
    if fmt == "json":
        return json.dumps(result_dict, ensure_ascii=False, indent=2) + "\n"
    key = {"markdown": "markdown", "html": "content_html", "text": "text"}[fmt]
    out = result_dict[key] or ""
    return out if out.endswith("\n") or not out else out + "\n"


def cmd_extract(a: argparse.Namespace) -> int:
    xopts = {f.name: getattr(a, f.name) for f in cli_fields()}
    if a.render:
        return render_cli.cmd_extract_render(a, render, xopts)
    if a.timeout is not None:
        xopts["deadline_ms"] = a.timeout
    opts = make_options(a.url, xopts)
    with deadline.started(opts.deadline_ms):  # the parse counts too
        try:
            parse, url = read_source(a.source, a.url)
            doc = parse()
        except deadline.DeadlineExceeded as exc:
            result = timeout_result(opts, exc)
        else:
            result = extract_owned(doc, replace(opts, url=url), parse)  # ours: worked on in place
    text = render(result.to_dict(), a.format)
    if a.output:
        try:
            with open(a.output, "w", encoding="utf-8") as fh:
                fh.write(text)
        except OSError as exc:
            raise InputError(f"cannot write {a.output}: {exc.strerror or exc}") from None
    else:
        sys.stdout.write(text)
    if result.timeout:
        return EXIT_TIMEOUT
    return EXIT_FOUND if result.found else EXIT_NOT_FOUND


def cmd_why_missing(a: argparse.Namespace) -> int:
    opts = make_options(a.url, {"selector": a.selector, "disable": a.disable})
    doc, url = load_source(a.source, a.url)
    opts = replace(opts, url=url)
    answer = diagnose.why_missing(doc, opts, a.text)
    if a.json:
        sys.stdout.write(json.dumps(answer, ensure_ascii=False, indent=2) + "\n")
    else:
        sys.stdout.write(diagnose.describe(answer) + "\n")
    return EXIT_FOUND


def main(argv: list[str] | None = None) -> int:
    try:
        a = build_parser().parse_args(argv)
        if a.command == "stages":
            sys.stdout.write("\n".join(STAGE_NAMES) + "\n")
            return EXIT_FOUND
        if a.command == "extract":
            return cmd_extract(a)
        if a.command == "serve":
            from . import serve

            return serve.main(a)
        if a.command == "render":
            return render_cli.cmd_render(a)
        if a.command == "batch":
            return batch_cli.cmd_batch(a)
        if a.command == "config":
            return render_cli.cmd_config(a)
        return cmd_why_missing(a)
    except InputError as exc:
        sys.stderr.write(f"readwell: {exc}\n")
        return EXIT_USAGE
    except KeyboardInterrupt:
        sys.stderr.write("readwell: interrupted\n")
        return 130
    except (RecursionError, MemoryError) as exc:
        sys.stderr.write(f"readwell: input too complex to process ({type(exc).__name__})\n")
        return EXIT_USAGE
    except Exception as exc:  # a bug: still one line, never a traceback, but a distinct exit code
        sys.stderr.write(f"readwell: internal error: {type(exc).__name__}: {exc} (please report)\n")
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
