#!/usr/bin/env bash
# Trunk's post_build hook (Trunk.toml): puts the element's files in the staging dir.
#
# 1. The page-facing loader: trunk's glue `chat-shell.js` moves aside to
#    `chat-shell-core.js`, and src/chat-shell.js takes its name.
# 2. When the wasm has split points (feature `split`, src/views/on_demand.rs), the module
#    trunk built is cut in parts, and the first part replaces trunk's:
#      wasm-split-cli    cargo's wasm (linked with --emit-relocs, .cargo/config.toml) ->
#                        main.wasm, one split_<chunk>.wasm per chunk named in
#                        src/views/on_demand.rs, src/runtime/on_demand.rs and
#                        src/renderer.rs (the read-only data each part alone reads
#                        goes with it: src/split.rs, SPLIT_SLACK) (+
#                        chunk_N.wasm for code some of them share) and __wasm_split.js,
#                        the loader of the parts;
#      wasm-bindgen      main.wasm -> chat-shell-core.js + chat-shell_bg.wasm, as trunk
#                        would, keeping the exports the parts link against;
#      wasm-opt -O1      every part (chosen by brotli size, docs/size-history.md), with
#                        --duplicate-function-elimination (one body for identical
#                        functions: 1.2 kB brotli less on the pack; every other pass tried
#                        on top of -O1 made it bigger), without the `producers` and
#                        `target_features` sections nothing reads.
#    Trunk's own wasm-opt is off for this module (data-wasm-opt="0"): its output would be
#    replaced. `__wasm_split.js` reaches the glue through the glue's own import of it.
# 3. The pack (scripts/pack.mjs): the first module, the decoders, the thread channel, the
#    widgets, the renderer and the other views, with the shared chunks they need, in one file
#    in that order, read by src/chat-shell-pack.js as it arrives; __wasm_split.js takes
#    those parts from it. Every file stays beside it, fetched by itself if the pack breaks
#    off.
# 4. In release builds, the first module's imports from its glue get short names, in the
#    wasm and the glue together (scripts/short-imports.mjs): wasm-bindgen's hashed names
#    do not compress.
# 5. In release builds, the component's JavaScript (the loader, the glue, the pack's reader, its
#    snippets and the parts' loader) is minified with terser (npm, package.json): 2.4 kB
#    less brotli before the composer is usable. Names other files import or the wasm
#    links against are exports and object keys, which terser keeps.
set -euo pipefail

stage="${TRUNK_STAGING_DIR:?run by trunk}"
profile="${TRUNK_PROFILE:-debug}"
target="${CARGO_TARGET_DIR:-target}"

mv "$stage/chat-shell.js" "$stage/chat-shell-core.js"
cp src/chat-shell.js "$stage/chat-shell.js"
cp src/chat-shell-pack.js "$stage/chat-shell-pack.js"

minify() {
  [ "$profile" = release ] || return 0
  local file
  for file in "$stage"/chat-shell*.js "$stage/__wasm_split.js" "$stage"/snippets/chat-shell*/*.js; do
    [ -f "$file" ] || continue
    terser "$file" --module --compress --mangle --output "$file.min"
    mv "$file.min" "$file"
  done
}

input="$target/wasm32-unknown-unknown/$profile/chat_shell.wasm"
if ! grep -q "__wasm_split_00" "$input"; then
  minify
  exit 0 # no split points: trunk's module stands
fi

out="$target/wasm-split/$profile"
rm -rf "$out"
mkdir -p "$out/parts" "$out/bindgen"
wasm-split-cli "$input" "$out/parts"
wasm-bindgen --target=web --no-typescript --keep-lld-exports \
  --out-dir="$out/bindgen" --out-name=chat-shell "$out/parts/main.wasm"

rm -rf "$stage/snippets/chat-shell-"*
cp -r "$out/bindgen/snippets/." "$stage/snippets/" 2>/dev/null || true
cp "$out/bindgen/chat-shell.js" "$stage/chat-shell-core.js"
# The parts' loader imports `initSync` from the glue, which the tool calls main.js.
sed 's#from "./main.js"#from "./chat-shell-core.js"#' "$out/parts/__wasm_split.js" >"$stage/__wasm_split.js"
grep -q 'from "./chat-shell-core.js"' "$stage/__wasm_split.js" || {
  echo "split: __wasm_split.js does not import the glue as expected" >&2
  exit 1
}

opt() { # in out
  if [ "$profile" = release ]; then wasm-opt -O1 --duplicate-function-elimination --strip-producers --strip-target-features --output="$2" "$1"; else cp "$1" "$2"; fi
}
main_wasm="$out/bindgen/chat-shell_bg.wasm"
if [ "$profile" = release ]; then
  # Short import names in the first module and its glue (scripts/short-imports.mjs); the
  # named original stays for scripts/wasm-attribution.mjs.
  node scripts/short-imports.mjs "$stage/chat-shell-core.js" "$main_wasm" "$out/chat-shell_bg.short.wasm"
  main_wasm="$out/chat-shell_bg.short.wasm"
fi
opt "$main_wasm" "$stage/chat-shell_bg.wasm"
for part in "$out/parts/"*.wasm; do
  name="$(basename "$part")"
  [ "$name" = main.wasm ] || opt "$part" "$stage/$name"
done
node scripts/pack.mjs build "$stage"
minify
