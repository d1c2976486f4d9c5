#!/usr/bin/env bash
# pyflakes, pinned, from PyPI, in a virtual environment under target/: the oracle of the
# names checker's corpus test (crates/names/tests/pyflakes_corpus.rs). Idempotent (does
# nothing when the pinned version is there); scripts/setup.sh runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=target/pyflakes-venv
WANT=3.2.0
have=$("$VENV/bin/python" -c 'import pyflakes; print(pyflakes.__version__)' 2>/dev/null || true)
if [ "$have" != "$WANT" ]; then
  echo "installing pyflakes $WANT into $VENV" >&2
  python3.11 -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check "pyflakes==$WANT"
fi
