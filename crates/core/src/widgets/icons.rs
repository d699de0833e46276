//! The built-in icons: the 63 names of the openai-chatkit 1.6.5 catalog (plus `clock`),
//! drawn as simple 24×24 outline paths. Names without a drawing (`vendor:*`, `lucide:*`,
//! the rare ones) get a neutral glyph; the view keeps the name in `data-icon`.

/// How a path is painted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Paint {
    /// Outlined in the current color.
    Line,
    /// Filled with the current color.
    Fill,
    /// Outlined in the background color, on top of a filled shape.
    Cut,
}

type Drawing = &'static [(Paint, &'static str)];

/// The icon names of the catalog (`IconName` in the SDK).
pub const CATALOG: &[&str] = &[
    "agent",
    "analytics",
    "atom",
    "batch",
    "bolt",
    "book-open",
    "book-closed",
    "book-clock",
    "bug",
    "calendar",
    "chart",
    "check",
    "check-circle",
    "check-circle-filled",
    "chevron-left",
    "chevron-right",
    "circle-question",
    "compass",
    "confetti",
    "cube",
    "desktop",
    "document",
    "dot",
    "dots-horizontal",
    "dots-vertical",
    "empty-circle",
    "external-link",
    "globe",
    "keys",
    "lab",
    "images",
    "info",
    "lifesaver",
    "lightbulb",
    "mail",
    "map-pin",
    "maps",
    "mobile",
    "name",
    "notebook",
    "notebook-pencil",
    "page-blank",
    "phone",
    "play",
    "plus",
    "profile",
    "profile-card",
    "reload",
    "star",
    "star-filled",
    "search",
    "sparkle",
    "sparkle-double",
    "square-code",
    "square-image",
    "square-text",
    "suitcase",
    "settings-slider",
    "user",
    "wreath",
    "write",
    "write-alt",
    "write-alt2",
];

const CIRCLE: &str = "M12 3a9 9 0 1 0 0 18a9 9 0 1 0 0-18z";
const BOOK: Drawing = &[
    (Paint::Line, "M5 4h12a2 2 0 0 1 2 2v14H7a2 2 0 0 1-2-2z"),
    (Paint::Line, "M5 18a2 2 0 0 1 2-2h12"),
];
const PENCIL: Drawing = &[
    (Paint::Line, "M4 20h4L19 9l-4-4L4 16z"),
    (Paint::Line, "M13 7l4 4"),
];
const USER: Drawing = &[
    (Paint::Line, "M12 4a4 4 0 1 0 0 8a4 4 0 1 0 0-8z"),
    (Paint::Line, "M4 21a8 8 0 0 1 16 0"),
];
const BARS: Drawing = &[
    (Paint::Line, "M4 20h16"),
    (Paint::Line, "M7 16v-5M12 16V6M17 16v-8"),
];
const PICTURE: Drawing = &[
    (Paint::Line, "M4 4h16v16H4z"),
    (Paint::Line, "M4 16l5-5 4 4 3-3 4 4"),
    (Paint::Line, "M15.5 8.5v.01"),
];
const STAR: &str = "M12 3l2.7 5.6 6.1.9-4.4 4.3 1 6.1L12 17l-5.4 2.9 1-6.1-4.4-4.3 6.1-.9z";

/// The drawing of a built-in icon, if it has one.
pub fn drawing(name: &str) -> Option<Drawing> {
    Some(match name {
        "check" => &[(Paint::Line, "M5 12l5 5L20 7")],
        "check-circle" => &[(Paint::Line, CIRCLE), (Paint::Line, "M8 12l3 3 5-6")],
        "check-circle-filled" => &[(Paint::Fill, CIRCLE), (Paint::Cut, "M8 12l3 3 5-6")],
        "chevron-left" => &[(Paint::Line, "M15 6l-6 6 6 6")],
        "chevron-right" => &[(Paint::Line, "M9 6l6 6-6 6")],
        "plus" => &[(Paint::Line, "M12 5v14M5 12h14")],
        "info" => &[(Paint::Line, CIRCLE), (Paint::Line, "M12 11v6M12 7.5v.01")],
        "circle-question" => &[
            (Paint::Line, CIRCLE),
            (
                Paint::Line,
                "M9.5 9.5a2.5 2.5 0 1 1 3.5 2.3c-.6.3-1 .9-1 1.6V14M12 17.5v.01",
            ),
        ],
        "empty-circle" => &[(Paint::Line, CIRCLE)],
        "dot" => &[(Paint::Fill, "M12 9a3 3 0 1 0 0 6a3 3 0 1 0 0-6z")],
        "dots-horizontal" => &[(Paint::Line, "M5 12v.01M12 12v.01M19 12v.01")],
        "dots-vertical" => &[(Paint::Line, "M12 5v.01M12 12v.01M12 19v.01")],
        "search" => &[
            (Paint::Line, "M11 4a7 7 0 1 0 0 14a7 7 0 1 0 0-14z"),
            (Paint::Line, "M16.5 16.5L21 21"),
        ],
        "sparkle" => &[(Paint::Line, "M12 3l2 7 7 2-7 2-2 7-2-7-7-2 7-2z")],
        "sparkle-double" => &[
            (Paint::Line, "M10 5l1.6 5.4L17 12l-5.4 1.6L10 19l-1.6-5.4L3 12l5.4-1.6z"),
            (Paint::Line, "M18 2l.8 2.2L21 5l-2.2.8L18 8l-.8-2.2L15 5l2.2-.8z"),
        ],
        "star" => &[(Paint::Line, STAR)],
        "star-filled" => &[(Paint::Fill, STAR)],
        "document" => &[
            (Paint::Line, "M6 3h8l4 4v14H6z"),
            (Paint::Line, "M14 3v4h4M9 12h6M9 16h6"),
        ],
        "page-blank" => &[(Paint::Line, "M6 3h8l4 4v14H6z"), (Paint::Line, "M14 3v4h4")],
        "calendar" => &[
            (Paint::Line, "M4 6h16v14H4z"),
            (Paint::Line, "M4 10h16M8 3v5M16 3v5"),
        ],
        "clock" => &[(Paint::Line, CIRCLE), (Paint::Line, "M12 7v5l3 2")],
        "mail" => &[(Paint::Line, "M3 6h18v12H3z"), (Paint::Line, "M3 7l9 6 9-6")],
        "phone" => &[(
            Paint::Line,
            "M6 3h3l2 5-2.5 1.5a11 11 0 0 0 6 6L16 13l5 2v3a2 2 0 0 1-2 2A16 16 0 0 1 4 5a2 2 0 0 1 2-2z",
        )],
        "user" | "profile" => USER,
        "globe" => &[
            (Paint::Line, CIRCLE),
            (Paint::Line, "M3 12h18"),
            (Paint::Line, "M12 3a14 14 0 0 1 0 18a14 14 0 0 1 0-18z"),
        ],
        "external-link" => &[(Paint::Line, "M14 4h6v6M20 4l-9 9M18 14v6H4V6h6")],
        "bolt" => &[(Paint::Line, "M13 2L4 14h7l-1 8 9-12h-7z")],
        "lightbulb" => &[
            (Paint::Line, "M9 18h6M10 21h4"),
            (
                Paint::Line,
                "M12 3a6 6 0 0 0-4 10.5c.7.7 1 1.5 1 2.5h6c0-1 .3-1.8 1-2.5A6 6 0 0 0 12 3z",
            ),
        ],
        "reload" => &[(Paint::Line, "M20 12a8 8 0 1 1-2.3-5.7M20 4v5h-5")],
        "play" => &[(Paint::Line, "M7 4l13 8-13 8z")],
        "map-pin" => &[
            (Paint::Line, "M12 21s-7-6.2-7-11a7 7 0 0 1 14 0c0 4.8-7 11-7 11z"),
            (Paint::Line, "M12 7.5a2.5 2.5 0 1 0 0 5a2.5 2.5 0 1 0 0-5z"),
        ],
        "maps" => &[
            (Paint::Line, "M3 6l6-2 6 2 6-2v14l-6 2-6-2-6 2z"),
            (Paint::Line, "M9 4v14M15 6v14"),
        ],
        "chart" | "analytics" => BARS,
        "settings-slider" => &[
            (Paint::Line, "M4 7h10M18 7h2M4 17h2M10 17h10"),
            (Paint::Line, "M16 5a2 2 0 1 0 0 4a2 2 0 1 0 0-4z"),
            (Paint::Line, "M8 15a2 2 0 1 0 0 4a2 2 0 1 0 0-4z"),
        ],
        "write" | "write-alt" | "write-alt2" | "notebook-pencil" => PENCIL,
        "book-open" => &[
            (Paint::Line, "M3 5h6a3 3 0 0 1 3 3v12a3 3 0 0 0-3-3H3z"),
            (Paint::Line, "M21 5h-6a3 3 0 0 0-3 3v12a3 3 0 0 1 3-3h6z"),
        ],
        "book-closed" | "notebook" | "book-clock" => BOOK,
        "atom" => &[
            (
                Paint::Line,
                "M12 3c2.5 0 4.5 4 4.5 9s-2 9-4.5 9-4.5-4-4.5-9 2-9 4.5-9z",
            ),
            (
                Paint::Line,
                "M3 12c0-2.5 4-4.5 9-4.5s9 2 9 4.5-4 4.5-9 4.5-9-2-9-4.5z",
            ),
            (Paint::Fill, "M12 10.5a1.5 1.5 0 1 0 0 3a1.5 1.5 0 1 0 0-3z"),
        ],
        "agent" => &[
            (Paint::Line, "M6 8h12v11H6z"),
            (Paint::Line, "M12 4v4M9.5 13v.01M14.5 13v.01M10 16h4"),
        ],
        "cube" => &[
            (Paint::Line, "M12 3l8 4.5v9L12 21l-8-4.5v-9z"),
            (Paint::Line, "M4 7.5l8 4.5 8-4.5M12 12v9"),
        ],
        "desktop" => &[(Paint::Line, "M3 4h18v12H3z"), (Paint::Line, "M8 20h8M12 16v4")],
        "mobile" => &[(Paint::Line, "M7 3h10v18H7z"), (Paint::Line, "M11 18h2")],
        "images" | "square-image" => PICTURE,
        "square-text" => &[
            (Paint::Line, "M4 4h16v16H4z"),
            (Paint::Line, "M8 9h8M8 13h8M8 17h5"),
        ],
        "square-code" => &[
            (Paint::Line, "M4 4h16v16H4z"),
            (Paint::Line, "M10 9l-3 3 3 3M14 9l3 3-3 3"),
        ],
        "suitcase" => &[(Paint::Line, "M3 8h18v12H3z"), (Paint::Line, "M9 8V5h6v3M3 13h18")],
        "compass" => &[(Paint::Line, CIRCLE), (Paint::Line, "M15.5 8.5l-2 5-5 2 2-5z")],
        "keys" => &[
            (Paint::Line, "M8 11a4 4 0 1 0 0 8a4 4 0 1 0 0-8z"),
            (Paint::Line, "M11 12l9-9M17 6l3 3M15 8l2 2"),
        ],
        "bug" => &[
            (Paint::Line, "M8 9h8v7a4 4 0 0 1-8 0z"),
            (
                Paint::Line,
                "M9 9a3 3 0 0 1 6 0M4 12h4M16 12h4M5 18l3-2M19 18l-3-2M5 6l3 2M19 6l-3 2",
            ),
        ],
        "lab" => &[
            (
                Paint::Line,
                "M9 3h6M10 3v6l-6 10a1.5 1.5 0 0 0 1.3 2h13.4a1.5 1.5 0 0 0 1.3-2L14 9V3",
            ),
            (Paint::Line, "M7 15h10"),
        ],
        "confetti" => &[
            (Paint::Line, "M4 20l4-12 8 8z"),
            (Paint::Line, "M14 4v2M18 8h2M16 6l2-2M12 3v.01M20 12v.01"),
        ],
        "lifesaver" => &[
            (Paint::Line, CIRCLE),
            (Paint::Line, "M12 8a4 4 0 1 0 0 8a4 4 0 1 0 0-8z"),
            (
                Paint::Line,
                "M5.6 5.6l3.6 3.6M14.8 14.8l3.6 3.6M18.4 5.6l-3.6 3.6M9.2 14.8l-3.6 3.6",
            ),
        ],
        "name" | "profile-card" => &[
            (Paint::Line, "M3 5h18v14H3z"),
            (Paint::Line, "M9 9a2 2 0 1 0 0 4a2 2 0 1 0 0-4z"),
            (Paint::Line, "M6 17a3 3 0 0 1 6 0M14 10h4M14 14h3"),
        ],
        "batch" => &[(Paint::Line, "M4 8h12v12H4z"), (Paint::Line, "M8 4h12v12")],
        _ => return None,
    })
}

/// The neutral glyph for names without a drawing: a small dotted square.
pub const GENERIC: Drawing = &[
    (Paint::Line, "M6 6h12v12H6z"),
    (Paint::Fill, "M12 10.5a1.5 1.5 0 1 0 0 3a1.5 1.5 0 1 0 0-3z"),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalog_has_its_63_names_and_nearly_all_are_drawn() {
        assert_eq!(CATALOG.len(), 63);
        let missing: Vec<&str> = CATALOG
            .iter()
            .copied()
            .filter(|n| drawing(n).is_none())
            .collect();
        assert_eq!(
            missing,
            vec!["wreath"],
            "only the wreath uses the generic glyph"
        );
        assert!(drawing("vendor:acme").is_none());
        assert!(drawing("lucide:x").is_none());
    }

    #[test]
    fn paths_are_plain_path_data() {
        let all = CATALOG
            .iter()
            .filter_map(|n| drawing(n))
            .chain([GENERIC, drawing("clock").unwrap()]);
        for d in all {
            for (_, path) in d {
                assert!(
                    path.bytes()
                        .all(|b| b.is_ascii_digit() || b" .-MmLlHhVvCcSsAaZz".contains(&b)),
                    "{path}"
                );
                assert!(path.starts_with('M'), "{path}");
            }
        }
    }
}
