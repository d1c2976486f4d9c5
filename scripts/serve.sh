#!/usr/bin/env bash
# Serves the playground: installs the web tools and the model if missing, then runs
# `trunk serve` (http://127.0.0.1:8080). Extra arguments go to trunk.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-web-tools.sh --no-browser
bash scripts/fetch-model.sh
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"
exec trunk serve "$@"
