#!/usr/bin/env bash
# THE demo command: builds the page and serves it with the reference runtime.
#   PORT=8080 (default)   CHAT_SHELL_SKIP_SETUP=1 skips scripts/setup.sh
#   ACP=1   answer with the scripted ACP agent (examples/acp-agent) instead of the scripts,
#           with target/acp-demo-workspace as its workspace and terminals allowed
#   CHAT_SHELL_CALLBACK_TOKEN  the token tools push views with (POST /callback); a random
#           one is made and printed when unset, so the "edit" answer and curl can push
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

# binaryen's wasm-opt (npm, version 132) must win over any other wasm-opt.
export PATH="$PWD/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
PORT="${PORT:-8080}"

if [ "${CHAT_SHELL_SKIP_SETUP:-0}" != "1" ]; then
  ./scripts/setup.sh
fi

echo "demo: trunk build --release (scripts/build.sh)"
./scripts/build.sh

if [ -z "${CHAT_SHELL_CALLBACK_TOKEN:-}" ]; then
  CHAT_SHELL_CALLBACK_TOKEN="demo-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
fi
export CHAT_SHELL_CALLBACK_TOKEN
echo "views: push with Authorization: Bearer $CHAT_SHELL_CALLBACK_TOKEN (POST /callback)"
echo "open http://127.0.0.1:$PORT/"
if [ "${ACP:-0}" = "1" ]; then
  cargo build --release -p chat-shell-acp-agent
  mkdir -p target/acp-demo-workspace
  exec cargo run --release -p chat-shell-runtime -- --dist dist --port "$PORT" \
    --acp "$PWD/target/release/chat-shell-acp-agent --state-dir $PWD/target/acp-demo-state" \
    --workspace target/acp-demo-workspace --allow-terminal
fi
exec cargo run --release -p chat-shell-runtime -- --dist dist --port "$PORT"
