//! The `image` scenario's picture: a 48×32 gradient with rings, stored in `images/` as it
//! looks pixelated in blocks of 8 and 4 pixels (the early, blurry stages of a generated
//! image) and sharp. The files were written once, pixel for pixel what the hand-written
//! PNG encoder they replace drew.

/// The stored stages, the blurriest first: the block size and the file.
const STAGES: [(usize, &[u8]); 3] = [
    (8, include_bytes!("images/sample-8.png")),
    (4, include_bytes!("images/sample-4.png")),
    (1, include_bytes!("images/sample-1.png")),
];

/// The picture as a `data:` URL, pixelated in blocks of `block` pixels: 8, 4 or 1 (any
/// other size takes the next smaller of these).
pub fn sample_png(block: usize) -> String {
    use base64::Engine as _;
    let (_, png) = STAGES
        .into_iter()
        .find(|&(size, _)| size <= block)
        .unwrap_or(STAGES[2]);
    let base64 = base64::engine::general_purpose::STANDARD.encode(png);
    format!("data:image/png;base64,{base64}")
}
