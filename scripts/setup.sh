#!/usr/bin/env bash
# Installs everything chat-shell needs to build and test, on a fresh Debian
# bookworm machine (root, rustup + cargo, node 20 + npm). Idempotent: each
# step checks cheaply first, so a second run takes a few seconds.
#
# Versions and the reasons for them: shared/toolchain.md.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

CARGO_BIN="${CARGO_HOME:-$HOME/.cargo}/bin"
export PATH="$PWD/node_modules/.bin:$CARGO_BIN:$PATH"

TRUNK_VERSION="0.21.14"
WASM_TARGET="wasm32-unknown-unknown"

say() { printf 'setup: %s\n' "$*"; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# 1. Rust wasm target.
installed_targets="$(rustup target list --installed)"
if printf '%s\n' "$installed_targets" | grep -qx "$WASM_TARGET"; then
  say "rust target $WASM_TARGET: present"
else
  say "rust target $WASM_TARGET: installing"
  rustup target add "$WASM_TARGET"
fi

# 2. trunk, exactly 0.21.14 (0.22 needs a newer rustc).
trunk_have="$( (trunk --version 2>/dev/null || true) | head -n1)"
if [ "$trunk_have" = "trunk $TRUNK_VERSION" ]; then
  say "trunk $TRUNK_VERSION: present"
else
  say "trunk $TRUNK_VERSION: installing (found '${trunk_have:-none}'; takes ~6 min)"
  cargo install trunk --locked --version "$TRUNK_VERSION"
fi

# 3. wasm-bindgen-cli, exactly the wasm-bindgen in Cargo.lock. No --locked: its
#    own lockfile pins a crate the registry does not serve.
wb_want="$(awk '$0 == "name = \"wasm-bindgen\"" { getline; gsub(/^version = "|"$/, ""); print; exit }' Cargo.lock)"
if [ -z "$wb_want" ]; then
  echo "setup: cannot read the wasm-bindgen version from Cargo.lock" >&2
  exit 1
fi
wb_have="$( (wasm-bindgen --version 2>/dev/null || true) | head -n1)"
if [ "$wb_have" = "wasm-bindgen $wb_want" ] && command -v wasm-bindgen-test-runner >/dev/null; then
  say "wasm-bindgen-cli $wb_want: present"
else
  say "wasm-bindgen-cli $wb_want: installing (found '${wb_have:-none}'; takes ~2 min)"
  cargo install wasm-bindgen-cli --version "$wb_want"
fi

# 4. Debian packages: the browser, its driver, brotli (sizes).
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ -x /usr/bin/chromedriver ] || missing+=(chromium-driver)
command -v brotli >/dev/null || missing+=(brotli)
command -v gzip >/dev/null || missing+=(gzip)
if [ "${#missing[@]}" -eq 0 ]; then
  say "apt chromium chromium-driver brotli: present"
else
  say "apt ${missing[*]}: installing"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
fi

# 5. npm dev dependencies (binaryen's wasm-opt, playwright-core, axe-core).
#    A stamp file records the last successful install.
stamp="node_modules/.chat-shell-setup-stamp"
if [ -f "$stamp" ] && [ -x node_modules/.bin/wasm-opt ] \
  && [ ! package.json -nt "$stamp" ] \
  && { [ ! -f package-lock.json ] || [ ! package-lock.json -nt "$stamp" ]; }; then
  say "npm node_modules: up to date"
else
  if [ -f package-lock.json ]; then
    say "npm ci"
    npm ci --no-audit --no-fund --loglevel=error >/dev/null
  else
    say "npm install (no package-lock.json yet)"
    npm install --no-audit --no-fund --loglevel=error >/dev/null
  fi
  touch "$stamp"
fi

# 6. Crates, so that trunk (offline = true) and the tests never need the network.
say "cargo fetch"
cargo fetch --quiet

say "done"
