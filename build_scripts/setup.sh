#!/usr/bin/env bash
# Install what Readwell needs to build and test, on a Debian machine (the lead's `make setup` and .ci/run
# call this). Idempotent and quick when everything is already there:
#   - Debian's chromium (/usr/bin/chromium) for the Playwright tests; Node.js/npm if missing
#   - the Python package in editable mode with its test extras, dependency versions pinned by
#     build_scripts/constraints.txt (the same versions the Pyodide engine ships)
#   - node_modules from package-lock.json (npm ci: pyodide pinned to an exact version)
# Never downloads a browser of its own (no `playwright install`).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
PY=${PYTHON:-python3}
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_ROOT_USER_ACTION=ignore DEBIAN_FRONTEND=noninteractive

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
APT_UPDATED=0
apt_install() {
  if [ "$APT_UPDATED" -eq 0 ]; then
    $SUDO apt-get update -qq
    APT_UPDATED=1
  fi
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}
say() { echo "setup: $*"; }
sha() { cat "$@" 2>/dev/null | sha256sum | cut -d' ' -f1; }

# 1. System packages.
if [ ! -x /usr/bin/chromium ]; then
  say "installing Debian chromium"
  apt_install chromium
fi
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  say "installing Node.js and npm"
  apt_install nodejs npm
fi

# 2. Python: readwell (editable) + test extras, pinned runtime deps, a setuptools that can build the wheel
#    without build isolation (build_engine.mjs does that).
mkdir -p "$ROOT/build"
PY_STAMP="$ROOT/build/.setup-python"
py_want=$(printf '%s\n%s\n%s\n' "$(sha pyproject.toml build_scripts/constraints.txt)" "$ROOT" "$("$PY" -c 'import sys; print(sys.executable, sys.version)')" | sha256sum | cut -d' ' -f1)
py_ok=0
if [ -f "$PY_STAMP" ] && [ "$(cat "$PY_STAMP")" = "$py_want" ] \
  && "$PY" -c 'import html5lib, bleach, pytest, playwright, setuptools, build' >/dev/null 2>&1; then
  py_ok=1
fi
if [ "$py_ok" -eq 0 ]; then
  say "pip install -e '.[test]' (constraints: build_scripts/constraints.txt)"
  "$PY" -m pip install -q -c build_scripts/constraints.txt 'setuptools>=68' wheel
  "$PY" -m pip install -q -c build_scripts/constraints.txt -e '.[test]'
  echo "$py_want" > "$PY_STAMP"
fi

# 3. Node packages (Pyodide), exactly as package-lock.json says.
NPM_STAMP="$ROOT/node_modules/.readwell-setup"
npm_want=$(sha package.json package-lock.json)
if [ ! -f "$NPM_STAMP" ] || [ "$(cat "$NPM_STAMP")" != "$npm_want" ] || [ ! -f node_modules/pyodide/package.json ]; then
  say "npm ci"
  npm ci --no-audit --no-fund --loglevel=error
  echo "$npm_want" > "$NPM_STAMP"
fi

say "ok (chromium: $(/usr/bin/chromium --version 2>/dev/null | head -1 || echo '?'); node $(node --version); $("$PY" --version))"
