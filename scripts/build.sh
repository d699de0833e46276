#!/usr/bin/env bash
# The element's release build: `trunk build --release` into dist/, with the standard
# library rebuilt for size. Run by scripts/test.sh and scripts/demo.sh (after
# scripts/setup.sh, which installs `rust-src` and fetches the standard library's crates).
#
# Plain `trunk build --release` still works and gives the same element, bigger: the
# precompiled standard library carries unwinding-era panic formatting, `#[track_caller]`
# locations and `Debug` code that a wasm page never shows. Measured on 2026-11-24
# (docs/size-history.md, ninth round), component total 743,764 -> 695,979 bytes brotli,
# initial load 291,517 -> 269,678:
#   -Zbuild-std, panic=immediate-abort   -35.8 kB   (std, core and alloc built with the
#                                                    crate's own opt-level "z" and LTO)
#   std's optimize_for_size feature       -5.0 kB
#   -Zlocation-detail=none                -8.8 kB
#   -Zfmt-debug=none                      -3.1 kB   (nothing the element shows is `{:?}`)
# panic=immediate-abort is no longer used: it traps before any panic hook runs, so a panic
# left nothing but `RuntimeError: unreachable`. With plain panic=abort the element's hook
# (src/element/mod.rs) writes what failed to the console and emits `chat.error`; that
# keeps the panic messages: 8.2 kB brotli of the initial load (docs/size-history.md).
#
# These are unstable flags of the pinned stable toolchain (1.95.0, shared/toolchain.md),
# enabled for this one build with RUSTC_BOOTSTRAP; nothing else in the workspace uses them.
# A toolchain that drops one of them fails this build loudly rather than growing silently:
# the size gate in scripts/sizes.sh stands behind it.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

export RUSTC_BOOTSTRAP=1
export CARGO_UNSTABLE_BUILD_STD=std,panic_abort
export CARGO_UNSTABLE_BUILD_STD_FEATURES=optimize_for_size
# Added to .cargo/config.toml's rustflags for the target (cargo joins the two lists).
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="-Zlocation-detail=none -Zfmt-debug=none"

exec trunk build --release "$@"
