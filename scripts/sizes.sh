#!/usr/bin/env bash
# Sizes of the release build in dist/ (run ./scripts/build.sh first; docs/packaging.md):
# one line per wasm, pack, js and css file, then a total, as
#   size: <kind> raw=<bytes> gzip9=<bytes> brotli=<bytes> file=<path>
#   size: total raw=<bytes> gzip9=<bytes> brotli=<bytes>
# then the initial load and the component total against the budget and the goals,
#   size: initial raw=… gzip9=… brotli=… files=<n> budget=<bytes> goal=<bytes>
#   size: component raw=… gzip9=… brotli=… goal=<bytes>
# and, when twiggy is installed (`cargo install twiggy`), the biggest functions of the
# first module before wasm-opt, which still has its names (`twiggy top`).
#
# The initial load is what a page fetches before the composer is usable: the loader
# chat-shell.js and everything it imports statically or names as its wasm
# (scripts/initial-load.mjs follows that graph: loader, glue, snippets, the pack's reader,
# and the first module, which comes as the first bytes of chat-shell.pack). The component
# total is every wasm, pack, js and css file of the component in dist/ (the demo pages'
# own files left out), the chunks loaded later included. chat-shell.pack (scripts/pack.mjs)
# counts once, compressed whole; the files it holds (kept beside it for a pack that breaks
# off) are listed as `packed`, outside the total.
#
# THE BUDGET GATE: the script fails (exit 2) when the initial load's brotli size is over
# CHAT_SHELL_SIZE_BUDGET (bytes; default: the goal, 300 kB brotli, kB = 1000 bytes). Never
# raise it to let a regression through without saying why in the commit; the gate's
# history is in docs/packaging.md.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

dist="${1:-dist}"
if ! compgen -G "$dist/*.wasm" >/dev/null; then
  echo "sizes: no .wasm in $dist/; run ./scripts/build.sh first" >&2
  exit 1
fi

BUDGET_DEFAULT=300000 # bytes of brotli, initial load: the goal
budget="${CHAT_SHELL_SIZE_BUDGET:-$BUDGET_DEFAULT}"
GOAL_INITIAL=300000 # the issue's goals, brotli bytes
GOAL_TOTAL=550000

sizes_of() { # file [bytes: its first bytes only] -> "raw gz br"
  if [ -n "${2:-}" ]; then
    echo "$2 $(head -c "$2" "$1" | gzip -9 -c | wc -c) $(head -c "$2" "$1" | brotli -c -q 11 | wc -c)"
  else
    echo "$(wc -c <"$1") $(gzip -9 -c "$1" | wc -c) $(brotli -c -q 11 "$1" | wc -c)"
  fi
}

# The files the pack holds (scripts/pack.mjs) come in it: each is listed as `packed` (its
# size alone, for comparison) and counted once, in the pack's own line.
packed_files=""
pack="$(find "$dist" -maxdepth 1 -name 'chat-shell*.pack' | head -n1)"
if [ -n "$pack" ]; then
  packed_files="$(node scripts/pack.mjs list "$pack" | cut -d' ' -f1)"
fi

total_raw=0 total_gz=0 total_br=0
report() {
  local kind="$1" file="$2" raw gz br
  read -r raw gz br < <(sizes_of "$file")
  # The pack's index names the files as they were before hashing (scripts/hash.mjs).
  if [ "$kind" = wasm ] && grep -qxF "$(basename "$file" | sed -E 's/-[0-9a-f]{16}(\.[^.]+)$/\1/')" <<<"$packed_files"; then
    kind=packed
  else
    total_raw=$((total_raw + raw)) total_gz=$((total_gz + gz)) total_br=$((total_br + br))
  fi
  echo "size: $kind raw=$raw gzip9=$gz brotli=$br file=$file"
}

for kind in wasm pack js css; do
  # The main files first, then any wasm-bindgen snippets (inline_js) below dist/.
  while IFS= read -r file; do
    report "$kind" "$file"
  # The demo page's own files (page.css, the plain/ example) are not the component; the
  # component's CSS is compiled into the wasm.
  done < <(find "$dist" -type f -name "*.$kind" -not -path "$dist/plain/*" -not -path "$dist/widgets/*" -not -name 'page*.css' | awk -F/ '{ print NF "\t" $0 }' | sort -k1,1n -k2 | cut -f2-)
done
echo "size: total raw=$total_raw gzip9=$total_gz brotli=$total_br"

# Initial load: the loader's static import graph (each file once). A graph that cannot be
# read, or names no wasm, fails the gate rather than measuring nothing.
initial_files="$(node scripts/initial-load.mjs "$dist")"
if ! grep -qE '\.wasm$|\.pack [0-9]+$' <<<"$initial_files"; then
  echo "sizes: the initial load names no wasm; is $dist/chat-shell.js the loader?" >&2
  exit 1
fi
init_raw=0 init_gz=0 init_br=0 init_n=0
while read -r file bytes; do
  read -r raw gz br < <(sizes_of "$file" "${bytes:-}")
  init_raw=$((init_raw + raw)) init_gz=$((init_gz + gz)) init_br=$((init_br + br)) init_n=$((init_n + 1))
done <<<"$initial_files"
echo "size: initial raw=$init_raw gzip9=$init_gz brotli=$init_br files=$init_n budget=$budget goal=$GOAL_INITIAL"
echo "size: component raw=$total_raw gzip9=$total_gz brotli=$total_br goal=$GOAL_TOTAL"

# Where the bytes go: the first module as scripts/build.sh leaves it before wasm-opt, with
# its names (docs/packaging.md, "Where the bytes go").
attr_wasm="target/wasm-split/release/bindgen/chat-shell_bg.wasm"
if ! command -v twiggy >/dev/null; then
  echo "attr: skipped (twiggy not installed: cargo install twiggy)"
elif [ -f "$attr_wasm" ]; then
  twiggy top -n 15 "$attr_wasm" | sed 's/^/attr: /'
else
  echo "attr: skipped ($attr_wasm missing: run ./scripts/build.sh)"
fi

if [ "$init_br" -gt "$budget" ]; then
  echo "sizes: FAIL initial load is $init_br bytes brotli, over the budget of $budget (CHAT_SHELL_SIZE_BUDGET; goal $GOAL_INITIAL)" >&2
  exit 2
fi
echo "sizes: initial load $init_br <= budget $budget bytes brotli ($((budget - init_br)) to spare; goal $GOAL_INITIAL, component goal $GOAL_TOTAL)"
