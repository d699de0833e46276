//! The browser crate's chunk-only modules, shared by the seam and layering tests.

/// Modules of this crate whose code only chunks run, as paths from the crate root.
pub const CHUNK_ONLY: &[&str] = &[
    "ui::widgets",
    "ui::tools",
    "ui::history",
    "ui::find",
    "ui::team",
    "ui::resize",
    "ui::diff",
    "ui::menu",
    "ui::composer::controls",
    "ui::composer::dictation",
    "ui::composer::pickers",
    "ui::composer::tray",
    "ui::usage",
    "ui::conversation::elicitation",
    "ui::conversation::image",
    "ui::conversation::plan",
    "ui::conversation::tasks",
    "ui::conversation::sources",
    "ui::conversation::message_actions",
];
