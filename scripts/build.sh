#!/usr/bin/env bash
# The element's build and packaging, in one place (docs/packaging.md says what each step
# gains and how to measure it):
#
#   scripts/build.sh [trunk args]   the release build into dist/: `trunk build --release`
#                                   with the standard library rebuilt for size. Run by
#                                   scripts/test.sh and scripts/demo.sh (after
#                                   scripts/setup.sh, which installs `rust-src` and fetches
#                                   the standard library's crates).
#   scripts/build.sh package        trunk's post_build hook (Trunk.toml), in every trunk
#                                   build of the element, release or not: puts the element's
#                                   files in trunk's staging dir (below).
#
# Plain `trunk build --release` also works and gives the same element, bigger: the
# precompiled standard library carries panic formatting, `#[track_caller]` locations and
# `Debug` code that a wasm page never shows. The flags are unstable flags of the pinned
# stable toolchain (shared/toolchain.md), enabled for this one build with RUSTC_BOOTSTRAP;
# nothing else in the workspace uses them. A toolchain that drops one of them fails this
# build loudly rather than growing silently: the size gate in scripts/sizes.sh stands
# behind it. panic=abort, not immediate-abort: the element's panic hook
# (src/element/mod.rs) then still reports what failed.
#
# The packaging steps (`package`), from the wasm cargo linked:
#  1. The loader: trunk's glue `chat-shell.js` moves aside to `chat-shell-core.js`, and
#     src/chat-shell.js takes its name; src/chat-shell-pack.js goes beside it, and
#     style/chat-shell.css, minified, as the module `chat-shell-style.js`: the entry draws
#     the element's frame with it before the wasm arrives, and the element adopts the same
#     sheet (the packaged wasm does not carry it).
#  2. The split, when the wasm has split points (feature `split`, which index.html turns
#     on; src/split.rs):
#       wasm-split-cli  cargo's wasm (linked with --emit-relocs, .cargo/config.toml) ->
#                       main.wasm, one split_<chunk>.wasm per chunk (+ chunk_N.wasm for
#                       code some of them share) and __wasm_split.js, the chunks' loader;
#       wasm-bindgen    main.wasm -> chat-shell-core.js + chat-shell_bg.wasm, as trunk
#                       would, keeping the exports the chunks link against;
#       wasm-opt -O1    every chunk, in release builds (-O1 and
#                       --duplicate-function-elimination chosen by brotli size), without
#                       the `producers` and `target_features` sections nothing reads.
#     Trunk's own wasm-opt is off for this module (data-wasm-opt="0"): its output would be
#     replaced. `__wasm_split.js` reaches the glue through the glue's own import of it.
#  3. The pack (scripts/pack.mjs): the first module and the chunks the loader fetches anyway,
#     in order of need, in one file, chat-shell.pack, read by src/chat-shell-pack.js as it
#     arrives. Every file stays beside it, fetched by itself if the pack breaks off.
#  4. The scripts minified (esbuild), then the names (scripts/hash.mjs): every file but the entry chat-shell.js and the pages
#     gets a content hash in its name, and the references to it follow, so a server can let
#     browsers keep those files for good.
#  5. Precompressed copies, release builds only: `<file>.br` and `<file>.gz` beside every
#     file worth it, for servers that pick one by Accept-Encoding (the reference runtime
#     does) instead of compressing per request.
# Every URL between these files is relative to the file that names it, so dist/ can be
# served as it is, under any path.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

if [ "${1:-}" != package ]; then
  export RUSTC_BOOTSTRAP=1
  export CARGO_UNSTABLE_BUILD_STD=std,panic_abort
  export CARGO_UNSTABLE_BUILD_STD_FEATURES=optimize_for_size
  # Added to .cargo/config.toml's rustflags for the target (cargo joins the two lists).
  export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="-Zlocation-detail=none -Zfmt-debug=none"
  # One build at a time: two would write the same split chunks and dist/.
  mkdir -p "${CARGO_TARGET_DIR:-target}"
  exec 9>"${CARGO_TARGET_DIR:-target}/.build.lock"
  flock 9
  exec trunk build --release "$@"
fi

# ---- package: run by trunk (Trunk.toml's hook) ----
stage="${TRUNK_STAGING_DIR:?scripts/build.sh package is run by trunk}"
profile="${TRUNK_PROFILE:-debug}"
target="${CARGO_TARGET_DIR:-target}"

mv "$stage/chat-shell.js" "$stage/chat-shell-core.js"
cp src/chat-shell.js "$stage/chat-shell.js"
cp src/chat-shell-pack.js "$stage/chat-shell-pack.js"
esbuild=node_modules/.bin/esbuild
"$esbuild" style/chat-shell.css --minify --log-level=warning --outfile="$stage/chat-shell-style.css"
node -e '
  const fs = require("fs");
  const [css, js] = process.argv.slice(1);
  fs.writeFileSync(js, `export default ${JSON.stringify(fs.readFileSync(css, "utf8").trim())};\n`);
  fs.rmSync(css);' "$stage/chat-shell-style.css" "$stage/chat-shell-style.js"

# Steps 4 and 5, after the split and the pack (or without them).
finish() {
  for js in "$stage"/chat-shell*.js "$stage"/__wasm_split.js "$stage"/snippets/*/*.js; do
    [ -f "$js" ] || continue
    "$esbuild" "$js" --minify --format=esm --target=es2022 --log-level=warning \
      --allow-overwrite --outfile="$js"
  done
  node scripts/hash.mjs "$stage"
  if [ "$profile" = release ]; then
    compress
  fi
}

# Beside every file worth it, its brotli and gzip copies (quality 11 and -9, as
# scripts/sizes.sh counts), kept only where smaller. Not in debug builds: their wasm is
# tens of megabytes, minutes at quality 11.
compress() {
  find "$stage" -type f \( -name '*.js' -o -name '*.wasm' -o -name '*.pack' -o -name '*.html' \
    -o -name '*.css' -o -name '*.svg' -o -name '*.json' \) -print0 |
    xargs -0 -n 1 -P "$(nproc)" sh -c '
      brotli -q 11 -f -k -o "$1.br" "$1" && gzip -9 -n -c "$1" >"$1.gz" || exit 255
      for c in "$1.br" "$1.gz"; do
        [ "$(wc -c <"$c")" -lt "$(wc -c <"$1")" ] || rm "$c"
      done' sh
}

input="$target/wasm32-unknown-unknown/$profile/chat_shell.wasm"
if ! grep -q "__wasm_split_00" "$input"; then
  finish # no split points: trunk's module stands, and the loader finds no pack
  exit 0
fi

out="$target/wasm-split/$profile"
rm -rf "$out"
mkdir -p "$out/chunks" "$out/bindgen"
wasm-split-cli "$input" "$out/chunks"
wasm-bindgen --target=web --no-typescript --keep-lld-exports \
  --out-dir="$out/bindgen" --out-name=chat-shell "$out/chunks/main.wasm"

rm -rf "$stage/snippets/chat-shell-"*
cp -r "$out/bindgen/snippets/." "$stage/snippets/" 2>/dev/null || true
cp "$out/bindgen/chat-shell.js" "$stage/chat-shell-core.js"
# The chunks' loader imports `initSync` from the glue, which the tool calls main.js.
sed 's#from "./main.js"#from "./chat-shell-core.js"#' "$out/chunks/__wasm_split.js" >"$stage/__wasm_split.js"
grep -q 'from "./chat-shell-core.js"' "$stage/__wasm_split.js" || {
  echo "build: __wasm_split.js does not import the glue as expected" >&2
  exit 1
}

opt() { # in out
  if [ "$profile" = release ]; then
    wasm-opt -O1 --duplicate-function-elimination --strip-producers --strip-target-features --output="$2" "$1"
  else
    cp "$1" "$2"
  fi
}
opt "$out/bindgen/chat-shell_bg.wasm" "$stage/chat-shell_bg.wasm"
for chunk in "$out/chunks/"*.wasm; do
  name="$(basename "$chunk")"
  [ "$name" = main.wasm ] || opt "$chunk" "$stage/$name"
done
node scripts/pack.mjs build "$stage"
finish
