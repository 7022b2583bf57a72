"""Render-mode configuration file (``readwell.toml``): the same fields as ``RenderOptions``, by section.

Read with the standard library's ``tomllib`` (no YAML: one format is enough, and TOML needs no dependency).
Where it comes from, first found: ``--config FILE``, ``$READWELL_CONFIG``, ``./readwell.toml``. Command-line
flags override it. Sections::

    [render]   any RenderOptions field: timeout_ms, settle_ms, viewport_width, max_scroll_steps,
               remove_selectors = ["..."], retries, retry_base_ms, cache_ttl_s, cache_path, ...
    [blocks]   segmentation thresholds (readwell.render.blocks.Thresholds)
    [weights]  importance weights (readwell.render.blocks.Weights)

Unknown sections or keys and values of the wrong type are clear errors: a typo must not be silently ignored.
"""

from __future__ import annotations

import json
import os
import tomllib
from dataclasses import fields, is_dataclass, replace
from pathlib import Path
from typing import Any

from ..errors import InputError
from .blocks import Thresholds, Weights
from .options import RenderOptions

DEFAULT_FILE = "readwell.toml"
ENV_VAR = "READWELL_CONFIG"
SECTIONS = {"render": RenderOptions, "blocks": Thresholds, "weights": Weights}
NESTED = {"blocks": "blocks", "weights": "weights"}  # section -> RenderOptions field holding it


def find_config(path: str | None) -> Path | None:
    """The file to read: the flag's, the environment's, or ./readwell.toml when present (else None)."""
    if path:
        return Path(path)
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env)
    local = Path(DEFAULT_FILE)
    return local if local.is_file() else None


def load_options(path: Path | None, base: RenderOptions | None = None) -> RenderOptions:
    """``base`` (default: the defaults) with the file's values; the file's errors as InputError."""
    opts = base or RenderOptions()
    if path is None:
        return opts
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"cannot read config {path}: {exc.strerror or exc}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"config {path} is not valid TOML: {exc}") from None
    unknown = set(data) - set(SECTIONS)
    if unknown:
        raise InputError(
            f"config {path}: unknown section(s) {', '.join(sorted(unknown))}; known: render, blocks, weights"
        )
    for section in SECTIONS:
        values = data.get(section)
        if values is None:
            continue
        if not isinstance(values, dict):
            raise InputError(f"config {path}: [{section}] must be a table")
        if section in NESTED:
            attr = NESTED[section]
            opts = replace(opts, **{attr: _apply(getattr(opts, attr), values, f"{path} [{section}]")})
        else:
            opts = _apply(opts, values, f"{path} [{section}]")
    return opts.validate()


def _apply(obj: Any, values: dict[str, Any], where: str) -> Any:
    """``obj`` (a dataclass) with ``values`` checked against its fields' default types."""
    known = {f.name: f for f in fields(obj) if not is_dataclass(getattr(obj, f.name))}
    out: dict[str, Any] = {}
    for key, v in values.items():
        if key not in known:
            raise InputError(f"config {where}: unknown key {key!r}; known: {', '.join(sorted(known))}")
        out[key] = _coerce(getattr(obj, key), v, f"{where} {key}")
    return replace(obj, **out)


def _coerce(default: Any, v: Any, where: str) -> Any:
    """The TOML value as the field's type (taken from its default): ints stay ints, floats accept ints."""
    if isinstance(default, bool):
        ok = isinstance(v, bool)
    elif isinstance(default, int):
        ok = isinstance(v, int) and not isinstance(v, bool)
    elif isinstance(default, float):
        ok = isinstance(v, int | float) and not isinstance(v, bool)
        v = float(v) if ok else v
    elif isinstance(default, tuple):
        ok = isinstance(v, list) and all(isinstance(x, str) for x in v)
        v = tuple(v) if ok else v
    else:  # str or None: strings
        ok = isinstance(v, str)
    if not ok:
        want = "a list of strings" if isinstance(default, tuple) else type(default).__name__
        raise InputError(f"config {where}: expected {want if default is not None else 'a string'}, got {v!r}")
    return v


def to_toml(opts: RenderOptions) -> str:
    """The effective configuration as a TOML file that ``load_options`` reads back to the same options."""
    lines = ["[render]"]
    for f in fields(opts):
        v = getattr(opts, f.name)
        if is_dataclass(v):
            continue
        if v is None:
            lines.append(f"# {f.name} = (unset)")
        else:
            lines.append(f"{f.name} = {_toml_value(v)}")
    for section, attr in NESTED.items():
        lines += ["", f"[{section}]"]
        sub = getattr(opts, attr)
        lines += [f"{f.name} = {_toml_value(getattr(sub, f.name))}" for f in fields(sub)]
    return "\n".join(lines) + "\n"


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v)
    if isinstance(v, tuple | list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    return json.dumps(str(v), ensure_ascii=False)  # a JSON string is a valid TOML basic string
