#!/usr/bin/env bash
# Builds examples/fullstack as cargo-leptos would, with the tools the test command already
# has (cargo and the wasm-bindgen CLI): the server (feature `ssr`) and the browser build
# (feature `hydrate`, bound into target/fullstack-site/pkg/). Debug builds, for its e2e test.
#   target/debug/chat-shell-fullstack --site target/fullstack-site
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

site=target/fullstack-site
cargo build -p chat-shell-fullstack --bin chat-shell-fullstack --features ssr
cargo build -p chat-shell-fullstack --lib --target wasm32-unknown-unknown --features hydrate
rm -rf "$site/pkg"
wasm-bindgen --target web --out-dir "$site/pkg" --out-name chat_shell_fullstack \
  target/wasm32-unknown-unknown/debug/chat_shell_fullstack.wasm
ls -l "$site/pkg"
