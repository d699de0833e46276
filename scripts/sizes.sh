#!/usr/bin/env bash
# Sizes of the release build in dist/ (run `trunk build --release` first):
# one line per wasm, js and css file, then a total, as
#   size: <kind> raw=<bytes> gzip9=<bytes> brotli=<bytes> file=<path>
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

dist="${1:-dist}"
if ! compgen -G "$dist/*.wasm" >/dev/null; then
  echo "sizes: no .wasm in $dist/; run 'trunk build --release' first" >&2
  exit 1
fi

total_raw=0 total_gz=0 total_br=0
report() {
  local kind="$1" file="$2" raw gz br
  raw=$(wc -c <"$file")
  gz=$(gzip -9 -c "$file" | wc -c)
  br=$(brotli -c -q 11 "$file" | wc -c)
  total_raw=$((total_raw + raw)) total_gz=$((total_gz + gz)) total_br=$((total_br + br))
  echo "size: $kind raw=$raw gzip9=$gz brotli=$br file=$file"
}

for kind in wasm js css; do
  # The main files first, then any wasm-bindgen snippets (inline_js) below dist/.
  while IFS= read -r file; do
    report "$kind" "$file"
  # The demo page's own files (page.css, the plain/ example) are not the component; the
  # component's CSS is compiled into the wasm.
  done < <(find "$dist" -type f -name "*.$kind" -not -path "$dist/plain/*" -not -path "$dist/widgets/*" -not -name 'page*.css' | awk -F/ '{ print NF "\t" $0 }' | sort -k1,1n -k2 | cut -f2-)
done
echo "size: total raw=$total_raw gzip9=$total_gz brotli=$total_br"
