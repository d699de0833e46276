#!/usr/bin/env bash
# Installs everything chat-shell needs to build and test, on a fresh Debian
# bookworm machine (root, rustup + cargo, node 20 + npm). Idempotent: each
# step checks cheaply first, so a second run takes a few seconds.
#
# Cold, the two tool builds dominate. They run side by side (a lone crate at
# the end of one build leaves a core idle that the other fills), with apt and
# npm overlapped, and they build at opt-level 1 without LTO: both tools only
# orchestrate files and processes, so they run as fast as a full release
# build while compiling in about half the time.
#
# Versions and the reasons for them: shared/toolchain.md.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

CARGO_BIN="${CARGO_HOME:-$HOME/.cargo}/bin"
export PATH="$PWD/node_modules/.bin:$CARGO_BIN:$PATH"

TRUNK_VERSION="0.21.14"
WASM_TARGET="wasm32-unknown-unknown"
LOGS="target/setup-logs"
mkdir -p "$LOGS"

started=$SECONDS
say() { printf 'setup [%3ss]: %s\n' "$((SECONDS - started))" "$*"; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# A quick tool build: see the header.
quick_install() {
  CARGO_PROFILE_RELEASE_OPT_LEVEL=1 CARGO_PROFILE_RELEASE_LTO=false \
    CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 CARGO_PROFILE_RELEASE_DEBUG=false \
    cargo install --quiet "$@"
}

pids=()
names=()
background() { # name, command...
  local name="$1"
  shift
  ("$@" >"$LOGS/$name.log" 2>&1) &
  pids+=("$!")
  names+=("$name")
}

# 1. Rust wasm target.
if rustup target list --installed | grep -qx "$WASM_TARGET"; then
  say "rust target $WASM_TARGET: present"
else
  say "rust target $WASM_TARGET: installing (~20 s)"
  rustup target add "$WASM_TARGET"
fi

# The standard library's source, which scripts/build.sh rebuilds for size.
STD_LIBRARY="$(rustc --print sysroot)/lib/rustlib/src/rust/library"
if [ -f "$STD_LIBRARY/Cargo.lock" ]; then
  say "rust-src: present"
else
  say "rust-src: installing (~15 s)"
  rustup component add rust-src
fi

# 2. trunk, exactly 0.21.14 (0.22 needs a newer rustc).
trunk_have="$( (trunk --version 2>/dev/null || true) | head -n1)"
if [ "$trunk_have" = "trunk $TRUNK_VERSION" ]; then
  say "trunk $TRUNK_VERSION: present"
else
  say "trunk $TRUNK_VERSION: building in the background (found '${trunk_have:-none}'; ~8 min beside wasm-bindgen-cli)"
  background trunk quick_install trunk --locked --version "$TRUNK_VERSION"
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
  say "wasm-bindgen-cli $wb_want: building in the background (found '${wb_have:-none}'; ~5 min beside trunk)"
  background wasm-bindgen-cli quick_install wasm-bindgen-cli --version "$wb_want"
fi

# 3b. wasm-split-cli, exactly the release of the wasm_split_helpers that leptos links
#     (scripts/build.sh cuts the element's wasm in parts with it; src/split.rs).
WASM_SPLIT_VERSION="0.2.3"
if cargo install --list 2>/dev/null | grep -qx "wasm_split_cli_support v$WASM_SPLIT_VERSION:" && command -v wasm-split-cli >/dev/null; then
  say "wasm-split-cli $WASM_SPLIT_VERSION: present"
else
  say "wasm-split-cli $WASM_SPLIT_VERSION: building in the background (~1 min)"
  background wasm-split-cli quick_install wasm_split_cli_support --locked --version "$WASM_SPLIT_VERSION" --features build-binary
fi

# 4. Debian packages: the browser, its driver, brotli and gzip (sizes, the build's
#    precompressed copies), PostgreSQL (the runtime's shared-database tests run a throwaway
#    server: scripts/postgres.sh).
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ -x /usr/bin/chromedriver ] || missing+=(chromium-driver)
command -v brotli >/dev/null || missing+=(brotli)
command -v gzip >/dev/null || missing+=(gzip)
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || missing+=(postgresql)
apt_install() {
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@"
}
if [ "${#missing[@]}" -eq 0 ]; then
  say "apt chromium chromium-driver brotli postgresql: present"
else
  say "apt ${missing[*]}: installing in the background (~30 s)"
  background apt apt_install "${missing[@]}"
fi

# 5. npm dev dependencies (binaryen's wasm-opt, esbuild, playwright-core, axe-core).
#    A stamp file records the last successful install.
stamp="node_modules/.chat-shell-setup-stamp"
npm_install() {
  if [ -f package-lock.json ]; then
    npm ci --no-audit --no-fund --loglevel=error
  else
    npm install --no-audit --no-fund --loglevel=error
  fi
  touch "$stamp"
}
if [ -f "$stamp" ] && [ -x node_modules/.bin/wasm-opt ] && [ -x node_modules/.bin/esbuild ] \
  && [ ! package.json -nt "$stamp" ] \
  && { [ ! -f package-lock.json ] || [ ! package-lock.json -nt "$stamp" ]; }; then
  say "npm node_modules: up to date"
else
  say "npm ci: in the background (~10 s)"
  background npm npm_install
fi

# 6. Crates, so that trunk (offline = true) and the tests never need the network.
say "cargo fetch (~20 s cold)"
cargo fetch --quiet
# The standard library's own crates, for scripts/build.sh (-Zbuild-std, offline like the rest).
RUSTC_BOOTSTRAP=1 cargo fetch --quiet --manifest-path "$STD_LIBRARY/Cargo.toml"

failed=0
for i in "${!pids[@]}"; do
  if wait "${pids[$i]}"; then
    say "${names[$i]}: done"
  else
    say "${names[$i]}: FAILED; its output:"
    tail -n 40 "$LOGS/${names[$i]}.log" >&2
    failed=1
  fi
done
[ "$failed" -eq 0 ] || exit 1

say "done"
