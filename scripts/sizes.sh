#!/usr/bin/env bash
# Sizes of the release build in dist/ (run ./scripts/build.sh, trunk build --release, first):
# one line per wasm, js and css file, then a total, as
#   size: <kind> raw=<bytes> gzip9=<bytes> brotli=<bytes> file=<path>
#   size: total raw=<bytes> gzip9=<bytes> brotli=<bytes>
# then the initial load and the component total against the budget and the goals,
#   size: initial raw=… gzip9=… brotli=… files=<n> budget=<bytes> goal=<bytes>
#   size: component raw=… gzip9=… brotli=… goal=<bytes>
# and where the wasm bytes go (scripts/wasm-attribution.mjs: the top crates and functions
# of the wasm trunk handed to wasm-opt, which still has its names), as `attr: …` lines.
#
# The initial load is what a page fetches before the composer is usable: the loader
# chat-shell.js and everything it imports statically or names as its wasm
# (scripts/initial-load.mjs follows that graph: loader, glue, snippets, the pack's reader,
# and the first module, which comes as the first bytes of chat-shell.pack). The component
# total is every wasm, pack, js and css file of the component in dist/ (the demo page's
# own files left out), lazily loaded parts included: the parts cut from the first module
# (split_*.wasm, with chunk_N.wasm for code some of them share; src/views/on_demand.rs,
# src/runtime/on_demand.rs, src/renderer.rs). The first module, the decoders, the thread
# channel, the widgets, the renderer and the other views come in one file, chat-shell.pack
# (scripts/pack.mjs): it counts once, compressed whole, and the files it holds (kept beside
# it for a pack that breaks off) are listed as `packed`, outside the total; attachments and
# the other envelopes' adapters are files fetched when first needed.
#
# THE BUDGET GATE: the script fails (exit 2) when the initial load's brotli size is over
# CHAT_SHELL_SIZE_BUDGET (bytes; default below). The default is the issue's goal for the
# initial load, 300 kB brotli, which it meets since 2026-11-24; until then it was the size
# last measured plus about 3%, so the gate caught regressions without failing the build
# of the day (history below). The goals (initial ≤ 300 kB brotli, component total ≤ 550 kB
# brotli; kB = 1000 bytes) are printed next to the measured figures. Never raise the
# budget to let a regression through without saying why in the commit.
#   Budget set 2026-11-23 on 5b5fda1 (opt-level "z", data-wasm-opt="1"): initial load
#   783,536 bytes brotli, + 3% = 807,100. See docs/size-history.md for the flag measurements.
#   Raised 2026-11-23 for issue 13 (the thread channel, the view tabs, the Diff view and
#   its patch parser, diffy): 843,600 measured, + 3% = 868,900.
#   Lowered 2026-11-23 for issue 16 (the markdown renderer and sanitizer in a second module
#   loaded after first paint, similar replaced by a small Myers diff, no Debug format in
#   the message view): 642,767 measured, + 3% = 662,100.
#   Raised 2026-11-23 when that work was merged after issue 15 (the Agent UI adapter, the
#   Team roster and notes, queue and steer, the artifact tab): 676,229 measured, + 3% =
#   696,500.
#   Lowered 2026-11-23 (issue 16: the first module no longer links `url`/`idna`; safe_url
#   reads the scheme itself): 627,536 measured, + 3% = 646,400.
#   Lowered 2026-11-23 (issue 16: pulldown-cmark left the first module; the live region's
#   plain text comes from the renderer module): 575,064 measured, + 3% = 592,300.
#   Lowered 2026-11-23 (issue 16: Leptos's erase_components cfg in .cargo/config.toml):
#   512,715 measured, + 3% = 528,100.
#   Lowered 2026-11-24 (issue 16: the views a first screen does not need cut into a part
#   fetched after first paint, src/views/on_demand.rs): 414,737 measured, + 3% = 427,200.
#   Lowered 2026-11-24 (the history panel and the view panels join that part): 400,474
#   measured, + 3% = 412,500.
#   Lowered 2026-11-24 (the events/agent-ui adapters, the thread channel's reader and the
#   attachments code in parts of their own, src/runtime/on_demand.rs): 367,241 measured,
#   + 3% = 378,300.
#   Lowered 2026-11-24 to the goal itself, 300,000, once the initial load met it (the
#   ChatKit decoders in a part, no float parser or case tables, minified stylesheet and
#   JavaScript; the view tabs with the view panels): 294,887 measured. From here the gate
#   is the issue's figure: a change that takes the initial load over 300 kB fails the
#   test command.
#   Kept at 300,000 on 2026-11-24 when scripts/build.sh rebuilt the standard library for
#   size (269,431 measured): the gate is the goal, not the last figure.
#   Kept at 300,000 on 2026-11-24 when crates/web-atoms replaced html5ever's entity map
#   (268,910 measured; the component total went 696,172 -> 635,762).
#   Kept at 300,000 when scripts/short-imports.mjs renamed the first module's imports
#   (262,009 measured; component total 628,891).
#   Kept at 300,000 when wasm-opt got --duplicate-function-elimination (261,701 measured;
#   component total 627,638).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

dist="${1:-dist}"
if ! compgen -G "$dist/*.wasm" >/dev/null; then
  echo "sizes: no .wasm in $dist/; run ./scripts/build.sh first" >&2
  exit 1
fi

BUDGET_DEFAULT=300000 # bytes of brotli, initial load: the goal (294,887 measured; see above)
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
if [ -f "$dist/chat-shell.pack" ]; then
  packed_files="$(node scripts/pack.mjs list "$dist/chat-shell.pack" | cut -d' ' -f1)"
fi

total_raw=0 total_gz=0 total_br=0
report() {
  local kind="$1" file="$2" raw gz br
  read -r raw gz br < <(sizes_of "$file")
  if [ "$kind" = wasm ] && grep -qxF "$(basename "$file")" <<<"$packed_files"; then
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

# Where the bytes go. The first module as the page gets it (scripts/split.sh leaves it,
# names kept, before wasm-opt, in target/wasm-split/release/bindgen/), then the part it
# fetches on demand (target/wasm-split/release/parts/split_*.wasm); without a split build, trunk's
# wasm-bindgen output (target/wasm-bindgen/release/). Skipped quietly when not there (a
# dist built elsewhere).
split_dir="target/wasm-split/release"
if [ -n "${CHAT_SHELL_ATTR_WASM:-}" ]; then
  attr_wasm="$CHAT_SHELL_ATTR_WASM"
elif [ -f "$split_dir/bindgen/chat-shell_bg.wasm" ]; then
  attr_wasm="$split_dir/bindgen/chat-shell_bg.wasm"
else
  attr_wasm="target/wasm-bindgen/release/chat-shell_bg.wasm"
fi
if [ -f "$attr_wasm" ]; then
  node scripts/wasm-attribution.mjs "$attr_wasm" --top 15
  if [ -z "${CHAT_SHELL_ATTR_WASM:-}" ]; then
    for part in "$split_dir/parts/"split_*.wasm; do
      [ -f "$part" ] && node scripts/wasm-attribution.mjs "$part" --top 8
    done
  fi
else
  echo "attr: skipped ($attr_wasm missing: run ./scripts/build.sh)"
fi

if [ "$init_br" -gt "$budget" ]; then
  echo "sizes: FAIL initial load is $init_br bytes brotli, over the budget of $budget (CHAT_SHELL_SIZE_BUDGET; goal $GOAL_INITIAL)" >&2
  exit 2
fi
echo "sizes: initial load $init_br <= budget $budget bytes brotli ($((budget - init_br)) to spare; goal $GOAL_INITIAL, component goal $GOAL_TOTAL)"
