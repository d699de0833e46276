#!/usr/bin/env bash
# THE demo command: builds the page and serves it with the reference runtime.
#   PORT=8080 (default)   CHAT_SHELL_SKIP_SETUP=1 skips scripts/setup.sh
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

# binaryen's wasm-opt (npm, version 132) must win over any other wasm-opt.
export PATH="$PWD/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
PORT="${PORT:-8080}"

if [ "${CHAT_SHELL_SKIP_SETUP:-0}" != "1" ]; then
  ./scripts/setup.sh
fi

echo "demo: trunk build --release"
trunk build --release

echo "open http://127.0.0.1:$PORT/"
exec cargo run --release -p chat-shell-runtime -- --dist dist --port "$PORT"
