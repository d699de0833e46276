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
#     (scripts/build.sh cuts the element's wasm into chunks with it; src/chunks/).
WASM_SPLIT_VERSION="0.2.3"
if cargo install --list 2>/dev/null | grep -qx "wasm_split_cli_support v$WASM_SPLIT_VERSION:" && command -v wasm-split-cli >/dev/null; then
  say "wasm-split-cli $WASM_SPLIT_VERSION: present"
else
  say "wasm-split-cli $WASM_SPLIT_VERSION: building in the background (~1 min)"
  background wasm-split-cli quick_install wasm_split_cli_support --locked --version "$WASM_SPLIT_VERSION" --features build-binary
fi

# The AG-UI framework test server's Python packages (tests/e2e/agui/framework/requirements.txt) go
# in a venv of Debian's python3 (step 5b); a stamp records the last successful install.
AGUI_VENV="target/agui-venv"
AGUI_REQUIREMENTS="tests/e2e/agui/framework/requirements.txt"
agui_stamp="$AGUI_VENV/.chat-shell-setup-stamp"
agui_venv_fresh=0
if [ -f "$agui_stamp" ] && [ -x "$AGUI_VENV/bin/python" ] && [ ! "$AGUI_REQUIREMENTS" -nt "$agui_stamp" ]; then
  agui_venv_fresh=1
fi
agui_venv() {
  /usr/bin/python3 -m venv --clear "$AGUI_VENV"
  "$AGUI_VENV/bin/pip" install --quiet --disable-pip-version-check --no-input -r "$AGUI_REQUIREMENTS"
  touch "$agui_stamp"
}

# 4. Debian packages: the browser, its driver, brotli and gzip (sizes, the build's
#    precompressed copies), PostgreSQL (the runtime's shared-database tests run a throwaway
#    server: scripts/postgres.sh), and python3-venv when the AG-UI venv is to be made (Debian
#    ships venv's ensurepip apart from python3).
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ -x /usr/bin/chromedriver ] || missing+=(chromium-driver)
command -v brotli >/dev/null || missing+=(brotli)
command -v gzip >/dev/null || missing+=(gzip)
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || missing+=(postgresql)
agui_venv_after_apt=0
if [ "$agui_venv_fresh" -eq 0 ] && ! /usr/bin/python3 -c 'import ensurepip' 2>/dev/null; then
  missing+=(python3-venv)
  agui_venv_after_apt=1
fi
apt_install() {
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@"
}
# The venv needs python3-venv first: the same background job makes it.
apt_install_then_agui_venv() {
  apt_install "$@"
  agui_venv
}
if [ "${#missing[@]}" -eq 0 ]; then
  say "apt chromium chromium-driver brotli postgresql: present"
elif [ "$agui_venv_after_apt" -eq 1 ]; then
  say "apt ${missing[*]}, then the AG-UI venv: installing in the background (~40 s)"
  background apt apt_install_then_agui_venv "${missing[@]}"
else
  say "apt ${missing[*]}: installing in the background (~30 s)"
  background apt apt_install "${missing[@]}"
fi

# 5. npm dev dependencies (binaryen's wasm-opt, esbuild, playwright-core, axe-core, the
#    AG-UI SDK the AG-UI test server is built on).
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

# 5b. The AG-UI framework test server's venv (see above step 4): Pydantic AI and uvicorn, pinned.
if [ "$agui_venv_fresh" -eq 1 ]; then
  say "python venv $AGUI_VENV: up to date"
elif [ "$agui_venv_after_apt" -eq 1 ]; then
  say "python venv $AGUI_VENV: made after apt (above)"
else
  say "python venv $AGUI_VENV: pip install in the background (~10 s)"
  background agui-venv agui_venv
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
