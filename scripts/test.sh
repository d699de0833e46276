#!/usr/bin/env bash
# THE test command (CI runs it through .ci/run). Fails fast.
#   CHAT_SHELL_SKIP_SETUP=1  skip scripts/setup.sh (fast local loops)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

# binaryen's wasm-opt (npm, version 132) must win over any other wasm-opt.
export PATH="$PWD/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
# A clean clone builds everything once: incremental caches would only double the disk the
# target dir takes (a full CI target was ~30 GB with them) and slow the first build.
export CARGO_INCREMENTAL=0

started=$SECONDS
step() { printf '\n== %s (at %ss)\n' "$*" "$((SECONDS - started))"; }

if [ "${CHAT_SHELL_SKIP_SETUP:-0}" = "1" ]; then
  step "setup (skipped: CHAT_SHELL_SKIP_SETUP=1)"
else
  step "setup"
  ./scripts/setup.sh
fi

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy (native, workspace)"
cargo clippy --workspace --all-targets -- -D warnings

step "cargo clippy (wasm32, chat-shell)"
cargo clippy -p chat-shell -p chat-shell-leptos-app --target wasm32-unknown-unknown --lib --bins --tests -- -D warnings
# The element's own build (the markdown renderer as a chunk: chat-shell without
# `inline-render`, which the leptos-app turns on above; its on-demand chunks split off, as
# index.html builds it).
cargo clippy -p chat-shell --features chat-shell/split --target wasm32-unknown-unknown --lib --tests -- -D warnings

step "cargo clippy (a server-rendered app: chat-shell with ssr, with hydrate; examples/fullstack)"
# The crate's Leptos features one at a time, as a server-rendered app builds it: `ssr` for
# its server (natively), `hydrate` for its browser build.
cargo clippy -p chat-shell --no-default-features --features ssr --lib -- -D warnings
cargo clippy -p chat-shell --no-default-features --features hydrate --target wasm32-unknown-unknown --lib -- -D warnings
cargo clippy -p chat-shell-fullstack --features ssr --all-targets -- -D warnings
cargo clippy -p chat-shell-fullstack --features hydrate --target wasm32-unknown-unknown --lib -- -D warnings

step "postgres (a throwaway server for the runtime's store and instance tests)"
eval "$(./scripts/postgres.sh start)"
trap './scripts/postgres.sh stop' EXIT
echo "PostgreSQL at $CHAT_SHELL_TEST_DATABASE_URL"

step "cargo test (native, workspace)"
cargo test --workspace

step "the Agent UI checklist table (docs/agent-ui.md against the tests)"
node scripts/checklist.mjs --check

step "cargo test (wasm32, headless chromium)"
CHROMEDRIVER=/usr/bin/chromedriver WASM_BINDGEN_TEST_TIMEOUT=120 \
  cargo test -p chat-shell --target wasm32-unknown-unknown --test browser

step "trunk build --release (scripts/build.sh)"
./scripts/build.sh

step "sizes"
./scripts/sizes.sh

step "trunk build (examples/leptos-app, for its e2e test)"
trunk build --config examples/leptos-app/Trunk.toml

step "cargo build -p chat-shell-runtime -p chat-shell-acp-agent"
cargo build -p chat-shell-runtime -p chat-shell-acp-agent

step "build examples/fullstack (scripts/fullstack.sh: its server and browser builds, for its e2e test)"
./scripts/fullstack.sh
# ChatShell in its server's HTML (the dev profile: the build above already holds its crates).
cargo test -p chat-shell-fullstack --features ssr --profile dev --test server_render

step "e2e (node --test tests/e2e/)"
node --test tests/e2e/*.test.mjs

step "figures (benchmarks: measured and printed, never asserted)"
cargo bench -p chat-shell-core --bench reducer_delta
cargo bench -p chat-shell-core --bench highlight
for bench in tests/e2e/bench-*.mjs; do
  # A benchmark that stalls fails the command in 15 minutes instead of holding CI.
  [ -e "$bench" ] && timeout --kill-after=10 900 node "$bench"
done

echo
echo "test.sh: all steps passed in $((SECONDS - started))s"
