//! Which files the composer takes: accepted types, the size and count limits, and the
//! messages that say why a file was refused. Pure: the browser half passes in what it
//! knows about each file (name, size, type); the messages are in the element's language.

use crate::strings::{Strings, Text};

/// The default `accept` list: images, PDF and text.
pub const DEFAULT_ACCEPT: &str = "image/*,application/pdf,text/*";
/// The default largest file (bytes): 10 MB.
pub const DEFAULT_MAX_SIZE: u64 = 10 * 1024 * 1024;
/// The default most files per message.
pub const DEFAULT_MAX_COUNT: usize = 10;

/// What the composer accepts, from the `accept`, `max-attachment-size` and
/// `max-attachments` attributes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AttachmentLimits {
    /// Patterns as in an `<input accept>`: `image/*`, `application/pdf`, `.md`.
    pub accept: Vec<String>,
    pub max_size: u64,
    pub max_count: usize,
}

impl Default for AttachmentLimits {
    fn default() -> Self {
        AttachmentLimits {
            accept: parse_accept(DEFAULT_ACCEPT),
            max_size: DEFAULT_MAX_SIZE,
            max_count: DEFAULT_MAX_COUNT,
        }
    }
}

/// What the browser says about a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileFacts {
    pub name: String,
    pub size: u64,
    /// `File.type`: may be empty when the browser does not know the extension.
    pub mime_type: String,
}

/// The outcome of offering files to the tray.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Checked {
    /// Indexes of the files taken, in the order offered.
    pub accepted: Vec<usize>,
    /// One readable message per refusal.
    pub refused: Vec<String>,
}

/// A comma-separated `accept` list, lower-cased; blanks dropped. An empty or blank
/// attribute means the default list.
pub fn parse_accept(value: &str) -> Vec<String> {
    let list: Vec<String> = value
        .split(',')
        .map(|p| p.trim().to_ascii_lowercase())
        .filter(|p| !p.is_empty())
        .collect();
    if list.is_empty() && value != DEFAULT_ACCEPT {
        return parse_accept(DEFAULT_ACCEPT);
    }
    list
}

/// A byte count from an attribute (`max-attachment-size`); `None` when unreadable or 0.
pub fn parse_size(value: &str) -> Option<u64> {
    value.trim().parse::<u64>().ok().filter(|n| *n > 0)
}

/// A count from an attribute (`max-attachments`); `None` when unreadable or 0.
pub fn parse_count(value: &str) -> Option<usize> {
    value.trim().parse::<usize>().ok().filter(|n| *n > 0)
}

impl AttachmentLimits {
    /// The value for `<input type=file accept>`.
    pub fn accept_attribute(&self) -> String {
        self.accept.join(",")
    }

    /// Whether a file of this name and type matches one of the accepted patterns. A file
    /// without a type is judged by the type its extension implies.
    pub fn accepts(&self, name: &str, mime_type: &str) -> bool {
        let mime = effective_mime(name, mime_type);
        let ext = extension(name).map(|e| format!(".{}", e.to_ascii_lowercase()));
        self.accept.iter().any(|pattern| {
            if pattern.starts_with('.') {
                ext.as_deref() == Some(pattern.as_str())
            } else if let Some(major) = pattern.strip_suffix("/*") {
                mime.split_once('/').is_some_and(|(m, _)| m == major)
            } else {
                *pattern == mime
            }
        })
    }

    /// Which of `files` may join a tray that already holds `already` files, and why the
    /// others may not. Files are taken in order until the count limit is reached.
    pub fn check(&self, already: usize, files: &[FileFacts], strings: &Strings) -> Checked {
        let mut out = Checked::default();
        let mut over_count = 0usize;
        for (i, file) in files.iter().enumerate() {
            if !self.accepts(&file.name, &file.mime_type) {
                out.refused.push(strings.format(
                    Text::FileTypeRefused,
                    &[("name", &display_name(&file.name))],
                ));
            } else if file.size > self.max_size {
                out.refused.push(strings.format(
                    Text::FileTooLarge,
                    &[
                        ("name", &display_name(&file.name)),
                        ("limit", &format_size(self.max_size, strings)),
                    ],
                ));
            } else if already + out.accepted.len() >= self.max_count {
                over_count += 1;
            } else {
                out.accepted.push(i);
            }
        }
        if over_count > 0 {
            let text = if self.max_count == 1 {
                Text::TooManyFilesOne
            } else {
                Text::TooManyFiles
            };
            out.refused.push(strings.format(
                text,
                &[
                    ("max", &self.max_count.to_string()),
                    ("count", &over_count.to_string()),
                ],
            ));
        }
        out
    }
}

/// A name short enough for a message.
fn display_name(name: &str) -> String {
    const MAX: usize = 60;
    match name.char_indices().nth(MAX) {
        Some((end, _)) => format!("{}…", &name[..end]),
        None => name.to_owned(),
    }
}

/// The extension of a file name, as written (`report.PDF` → `PDF`); none for dotfiles or
/// names without one.
pub fn extension(name: &str) -> Option<&str> {
    let (stem, ext) = name.rsplit_once('.')?;
    (!stem.is_empty() && !ext.is_empty() && ext.len() <= 10 && !ext.contains(['/', '\\']))
        .then_some(ext)
}

/// The file's type, or the type its extension implies when the browser gave none.
pub fn effective_mime(name: &str, mime_type: &str) -> String {
    let mime = mime_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    if !mime.is_empty() && mime != "application/octet-stream" {
        return mime;
    }
    let implied = match extension(name).map(str::to_ascii_lowercase).as_deref() {
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("gif") => "image/gif",
        Some("webp") => "image/webp",
        Some("pdf") => "application/pdf",
        Some("txt") => "text/plain",
        Some("md" | "markdown") => "text/markdown",
        Some("csv") => "text/csv",
        Some("json") => "application/json",
        _ => return mime,
    };
    implied.to_owned()
}

/// Whether the type is a raster image a browser shows in an `<img>` (SVG is not: it is
/// a document and can carry script).
pub fn is_previewable_image(mime_type: &str) -> bool {
    matches!(
        mime_type.to_ascii_lowercase().as_str(),
        "image/png" | "image/jpeg" | "image/gif" | "image/webp" | "image/avif" | "image/bmp"
    )
}

/// `10 MB`, `512 KB`, `3 bytes`: for limits and badges, in the words of `strings`.
pub fn format_size(bytes: u64, strings: &Strings) -> String {
    const KB: u64 = 1024;
    const MB: u64 = 1024 * KB;
    const GB: u64 = 1024 * MB;
    let scaled = |unit: u64, text: Text| {
        let value = bytes as f64 / unit as f64;
        let size = if (value - value.round()).abs() < 0.05 {
            (value.round() as u64).to_string()
        } else {
            format!("{value:.1}")
        };
        strings.format(text, &[("size", &size)])
    };
    match bytes {
        b if b >= GB => scaled(GB, Text::SizeGb),
        b if b >= MB => scaled(MB, Text::SizeMb),
        b if b >= KB => scaled(KB, Text::SizeKb),
        1 => strings.get(Text::SizeByte).to_owned(),
        b => strings.format(Text::SizeBytes, &[("count", &b.to_string())]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str, size: u64, mime: &str) -> FileFacts {
        FileFacts {
            name: name.into(),
            size,
            mime_type: mime.into(),
        }
    }

    #[test]
    fn defaults_take_images_pdf_and_text() {
        let limits = AttachmentLimits::default();
        assert_eq!(limits.accept_attribute(), DEFAULT_ACCEPT);
        assert!(limits.accepts("a.png", "image/png"));
        assert!(limits.accepts("a.webp", "image/webp"));
        assert!(limits.accepts("report.pdf", "application/pdf"));
        assert!(limits.accepts("notes.txt", "text/plain"));
        // Browsers give no type for .md: the extension decides.
        assert!(limits.accepts("notes.md", ""));
        assert!(limits.accepts("scan.PDF", "application/octet-stream"));
        assert!(!limits.accepts("tool.exe", "application/x-msdownload"));
        assert!(!limits.accepts("archive.zip", ""));
        assert!(!limits.accepts("noext", ""));
    }

    #[test]
    fn accept_lists_take_types_wildcards_and_extensions() {
        let limits = AttachmentLimits {
            accept: parse_accept(" Application/PDF , .CSV,image/*,, "),
            ..AttachmentLimits::default()
        };
        assert_eq!(limits.accept, ["application/pdf", ".csv", "image/*"]);
        assert!(limits.accepts("a.pdf", "application/pdf"));
        assert!(limits.accepts("data.csv", "text/csv"));
        assert!(limits.accepts("x.gif", "image/gif"));
        assert!(!limits.accepts("notes.txt", "text/plain"));
        assert_eq!(parse_accept(""), parse_accept(DEFAULT_ACCEPT));
        assert_eq!(parse_accept(" , "), parse_accept(DEFAULT_ACCEPT));
    }

    #[test]
    fn sizes_and_counts_parse_or_fall_back() {
        assert_eq!(parse_size("1048576"), Some(1_048_576));
        assert_eq!(parse_size(" 12 "), Some(12));
        for bad in ["", "0", "-1", "1e6", "ten"] {
            assert_eq!(parse_size(bad), None, "{bad}");
            assert_eq!(parse_count(bad), None, "{bad}");
        }
        assert_eq!(parse_count("3"), Some(3));
    }

    #[test]
    fn check_refuses_with_reasons_and_stops_at_the_count() {
        let limits = AttachmentLimits {
            max_size: 1000,
            max_count: 3,
            ..AttachmentLimits::default()
        };
        let files = [
            file("a.png", 10, "image/png"),
            file("virus.exe", 10, ""),
            file("big.pdf", 1001, "application/pdf"),
            file("b.txt", 1000, "text/plain"),
            file("c.png", 1, "image/png"),
            file("d.png", 1, "image/png"),
        ];
        let en = Strings::default();
        let checked = limits.check(1, &files, &en);
        assert_eq!(checked.accepted, [0, 3]);
        assert_eq!(
            checked.refused,
            [
                "“virus.exe” is not a supported file type.",
                "“big.pdf” is larger than the 1000 bytes limit.",
                "You can attach at most 3 files to a message; 2 not added.",
            ]
        );
        let full = limits.check(3, &files[..1], &en);
        assert!(full.accepted.is_empty());
        assert_eq!(full.refused.len(), 1);
        let one = AttachmentLimits {
            max_count: 1,
            ..AttachmentLimits::default()
        };
        assert_eq!(
            one.check(
                0,
                &[file("a.png", 1, "image/png"), file("b.png", 1, "image/png")],
                &en
            )
            .refused,
            ["You can attach at most 1 file to a message; 1 not added."]
        );
        assert_eq!(limits.check(0, &[], &en), Checked::default());
        let fr = Strings::new("fr");
        assert_eq!(
            limits.check(1, &files, &fr).refused,
            [
                "« virus.exe » n'est pas un type de fichier pris en charge.",
                "« big.pdf » dépasse la limite de 1000 octets.",
                "Vous pouvez joindre au plus 3 fichiers à un message ; 2 non ajouté(s).",
            ]
        );
    }

    #[test]
    fn extensions_types_and_sizes_for_display() {
        let en = Strings::default();
        assert_eq!(extension("report.final.PDF"), Some("PDF"));
        assert_eq!(extension(".bashrc"), None);
        assert_eq!(extension("README"), None);
        assert_eq!(extension("a."), None);
        assert_eq!(effective_mime("x.JPG", ""), "image/jpeg");
        assert_eq!(
            effective_mime("x.txt", "text/plain; charset=utf-8"),
            "text/plain"
        );
        assert_eq!(effective_mime("x.bin", ""), "");
        assert!(is_previewable_image("image/PNG"));
        assert!(!is_previewable_image("image/svg+xml"));
        assert!(!is_previewable_image("application/pdf"));
        assert_eq!(format_size(DEFAULT_MAX_SIZE, &en), "10 MB");
        assert_eq!(format_size(1536, &en), "1.5 KB");
        assert_eq!(format_size(1, &en), "1 byte");
        assert_eq!(format_size(999, &en), "999 bytes");
        assert_eq!(format_size(3 * 1024 * 1024 * 1024, &en), "3 GB");
        assert_eq!(format_size(1536, &Strings::new("fr")), "1.5 Ko");
    }
}
