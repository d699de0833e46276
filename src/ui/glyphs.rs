//! The chrome's icons: one drawn set (24-unit strokes in `currentColor`, one weight, sized
//! by `.cs-glyph`), so every control looks the same in every font. Decorative: the
//! control carries the name.

use leptos::prelude::*;

/// Which icon. (Natively only the server-rendered frame's are drawn.)
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Glyph {
    Search,
    Plus,
    History,
    Close,
    ArrowUp,
    ArrowDown,
    Check,
    /// Allowed always.
    CheckDouble,
    /// Rejected always.
    Block,
    Resize,
    Copy,
    Retry,
    Download,
    /// Three dots: more actions.
    More,
    /// A pencil: edit.
    Edit,
    /// Back and forth (mirrored right to left by the stylesheet).
    ChevronStart,
    ChevronEnd,
}

impl Glyph {
    /// Its strokes (SVG path data on a 24×24 grid).
    fn path(self) -> &'static str {
        match self {
            Glyph::Search => "M10.5 4a6.5 6.5 0 1 0 0 13a6.5 6.5 0 1 0 0-13zM15.5 15.5L20 20",
            Glyph::Plus => "M12 5v14M5 12h14",
            Glyph::History => "M4 12a8 8 0 1 0 2.4-5.7M4 4v4h4M12 8v4l3 2",
            Glyph::Close => "M6 6l12 12M18 6L6 18",
            Glyph::ArrowUp => "M12 19V5M6 11l6-6l6 6",
            Glyph::ArrowDown => "M12 5v14M6 13l6 6l6-6",
            Glyph::Check => "M5 12.5l4.5 4.5L19 7",
            Glyph::CheckDouble => "M2 12.5l4.5 4.5L16 7M11 15.5l1.5 1.5L22 7",
            Glyph::Block => "M12 3a9 9 0 1 0 0 18a9 9 0 1 0 0-18zM5.6 5.6l12.8 12.8",
            Glyph::Resize => "M14 4h6v6M10 20H4v-6M20 4l-7 7M4 20l7-7",
            Glyph::Copy => "M9 9h10v11H9zM5 15V4h10",
            Glyph::Retry => "M20 12a8 8 0 1 1-2.4-5.7M20 4v4h-4",
            Glyph::Download => "M12 4v11M7 10l5 5l5-5M5 20h14",
            Glyph::More => "M5 11a1 1 0 1 0 0 2a1 1 0 1 0 0-2zM12 11a1 1 0 1 0 0 2a1 1 0 1 0 0-2zM19 11a1 1 0 1 0 0 2a1 1 0 1 0 0-2z",
            Glyph::Edit => "M4 20h4L19 9l-4-4L4 16zM13 7l4 4",
            Glyph::ChevronStart => "M15 6l-6 6l6 6",
            Glyph::ChevronEnd => "M9 6l6 6l-6 6",
        }
    }
}

/// `glyph` as an inline SVG.
pub fn glyph(glyph: Glyph) -> impl IntoView {
    // The path is built on its own (a path written inline in `view!` gets wrapped in a
    // `<g>`), so every icon is the same plain svg + path.
    let path = view! { <path d=glyph.path()></path> };
    view! {
        <svg class="cs-glyph" viewBox="0 0 24 24" aria-hidden="true" focusable="false">
            {path}
        </svg>
    }
}
