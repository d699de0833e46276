#!/usr/bin/env bash
# THE demo command: builds the page and serves it with the reference runtime.
#   PORT=8080 (default)   CHAT_SHELL_SKIP_SETUP=1 skips scripts/setup.sh
#   ACP=1   answer with the scripted ACP agent (examples/acp-agent) instead of the scripts,
#           with target/acp-demo-workspace as its workspace and terminals allowed
#   CHAT_SHELL_CALLBACK_TOKEN  the token tools push views with (POST /callback); a random
#           one is made when unset, so the "edit" answer can push. It is a secret: it is
#           printed only with SHOW_TOKEN=1 (or set it yourself to push with curl)
#   CHAT_SHELL_SKIP_BUILD=1  serves dist/ and the runtime as they are (no builds);
#           CHAT_SHELL_RUNTIME_BIN=path runs that runtime binary
# Arguments go to the runtime (./scripts/demo.sh --memory keeps nothing). "open http://…"
# is printed once the runtime answers on PORT, not before.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

# binaryen's wasm-opt (npm, version 132) must win over any other wasm-opt.
export PATH="$PWD/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
PORT="${PORT:-8080}"
RUNTIME_BIN="${CHAT_SHELL_RUNTIME_BIN:-target/release/chat-shell-runtime}"

# Whether something accepts connections on 127.0.0.1:PORT.
listening() {
  (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null
}

if listening; then
  echo "demo: something already listens on port $PORT; PORT=... picks another" >&2
  exit 1
fi

if [ "${CHAT_SHELL_SKIP_BUILD:-0}" != "1" ]; then
  if [ "${CHAT_SHELL_SKIP_SETUP:-0}" != "1" ]; then
    ./scripts/setup.sh
  fi
  echo "demo: trunk build --release (scripts/build.sh)"
  ./scripts/build.sh
  echo "demo: cargo build --release -p chat-shell-runtime"
  cargo build --release -p chat-shell-runtime
  if [ "${ACP:-0}" = "1" ]; then
    cargo build --release -p chat-shell-acp-agent
  fi
fi

if [ -z "${CHAT_SHELL_CALLBACK_TOKEN:-}" ]; then
  CHAT_SHELL_CALLBACK_TOKEN="demo-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
  made="made at random for this run"
else
  made="yours"
fi
export CHAT_SHELL_CALLBACK_TOKEN
if [ "${SHOW_TOKEN:-0}" = "1" ]; then
  echo "views: push with Authorization: Bearer $CHAT_SHELL_CALLBACK_TOKEN (POST /callback)"
else
  echo "views: POST /callback takes the token in CHAT_SHELL_CALLBACK_TOKEN ($made;" \
    "SHOW_TOKEN=1 prints it)"
fi

args=(--dist dist --port "$PORT" "$@")
if [ "${ACP:-0}" = "1" ]; then
  mkdir -p target/acp-demo-workspace
  # A small project to work on, and to mention with @, the first time.
  if [ -z "$(ls -A target/acp-demo-workspace)" ]; then
    mkdir -p target/acp-demo-workspace/src
    printf '# demo\n\nA tiny project the scripted agent works in.\n' >target/acp-demo-workspace/README.md
    printf 'fn main() {\n    println!("hello");\n}\n' >target/acp-demo-workspace/src/main.rs
    printf '[package]\nname = "demo"\nversion = "0.1.0"\nedition = "2021"\n' >target/acp-demo-workspace/Cargo.toml
  fi
  args+=(--acp "$PWD/target/release/chat-shell-acp-agent --state-dir $PWD/target/acp-demo-state"
    --workspace target/acp-demo-workspace --allow-terminal)
fi
"$RUNTIME_BIN" "${args[@]}" &
server=$!
# Ctrl-C and kill reach the runtime, which shuts down cleanly (a background job of a
# script ignores SIGINT by itself).
trap 'kill -TERM "$server" 2>/dev/null || true' INT TERM

# At most 30 s (the binary is built): say where to go once it answers, or why not.
for _ in $(seq 1 300); do
  if ! kill -0 "$server" 2>/dev/null; then
    break
  fi
  if listening; then
    echo "open http://127.0.0.1:$PORT/"
    if [ "${ACP:-0}" = "1" ]; then
      echo "the agent's controls before the first message: http://127.0.0.1:$PORT/agent/"
    fi
    break
  fi
  sleep 0.1
done
if kill -0 "$server" 2>/dev/null && ! listening; then
  echo "demo: the runtime does not answer on port $PORT after 30 s" >&2
fi

status=0
wait "$server" || status=$?
# A trapped signal ends `wait` early: wait for the runtime's own shutdown.
if kill -0 "$server" 2>/dev/null; then
  status=0
  wait "$server" || status=$?
fi
exit "$status"
