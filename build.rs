//! The split build (feature `split`) keeps the linker's relocations in the wasm:
//! wasm-split-cli needs them to cut the module (scripts/build.sh). Only this crate's cdylib
//! gets them; every other build (the renderer module, tests, apps) stays as it was.

fn main() {
    println!("cargo:rerun-if-env-changed=CARGO_FEATURE_SPLIT");
    let wasm = std::env::var("CARGO_CFG_TARGET_ARCH").is_ok_and(|a| a == "wasm32");
    if wasm && std::env::var_os("CARGO_FEATURE_SPLIT").is_some() {
        println!("cargo:rustc-link-arg-cdylib=--emit-relocs");
    }
}
