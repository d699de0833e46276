//! Citations: numbering an assistant text's annotations by source and placing their
//! inline markers. Pure; the views render the result.

use super::{scrub, TAG_BREAK, TRUSTED};
use crate::protocol::chatkit::{Annotation, Source, SourceKind};

/// One cited source with its number (1-based, in order of first citation).
#[derive(Clone, Debug, PartialEq)]
pub struct Citation {
    pub number: usize,
    pub source: Source,
}

/// Number the distinct sources of `annotations` in order of first appearance.
pub fn number_sources(annotations: &[Annotation]) -> Vec<Citation> {
    let mut out: Vec<Citation> = Vec::new();
    for a in annotations {
        if !out.iter().any(|c| same_source(&c.source, &a.source)) {
            out.push(Citation {
                number: out.len() + 1,
                source: a.source.clone(),
            });
        }
    }
    out
}

fn same_source(a: &Source, b: &Source) -> bool {
    match (&a.kind, &b.kind) {
        (SourceKind::Url(x), SourceKind::Url(y)) => x.url == y.url,
        (SourceKind::File(x), SourceKind::File(y)) => x.filename == y.filename,
        (SourceKind::Entity(x), SourceKind::Entity(y)) => x.id == y.id,
        _ => a == b,
    }
}

/// `text` with a numbered marker after each annotated position (`index` counts characters):
/// `<sup data-part="citation">[n]</sup>`; annotations without an index only appear in the
/// sources list. The result is a plain string, as untrusted as `text`: rendered, its
/// markers keep their number but lose the `data-part` hook (server HTML could write the
/// same). [`cited_text`] makes markers that keep it.
pub fn text_with_markers(text: &str, annotations: &[Annotation]) -> String {
    with_markers(text, annotations, |out, n| {
        out.push_str(&format!("<sup data-part=\"citation\">[{n}]</sup>"));
    })
}

/// An assistant text with its citation markers, for `markdown::render_cited` and
/// `MarkdownStream::reset_cited`: the markers are the renderer's own, so they keep their
/// `<sup data-part="citation">` hook, while whatever the text itself holds is treated as
/// the server's. Only [`cited_text`] makes one.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CitedText(String);

impl CitedText {
    /// The markdown with the markers in it (as `MarkdownStream::text` will hold it).
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// `text` with a numbered citation marker after each annotated position, as
/// [`text_with_markers`] places them, but markers the renderer keeps as its own.
pub fn cited_text(text: &str, annotations: &[Annotation]) -> CitedText {
    let text = scrub(text);
    CitedText(place_markers(&text, &Marks::of(annotations), |out, n| {
        // The break keeps the hook off any server tag left open where the index points.
        out.push_str(&format!(
            "{TAG_BREAK}<sup data-part=\"{TRUSTED}citation\">[{n}]</sup>"
        ));
    }))
}

/// Where the citation markers go: (character index, source number) pairs, sorted, each
/// once.
struct Marks(Vec<(usize, usize)>);

impl Marks {
    /// The markers of `annotations`, numbered as [`number_sources`] numbers them.
    fn of(annotations: &[Annotation]) -> Marks {
        let numbered = number_sources(annotations);
        let mut marks: Vec<(usize, usize)> = annotations
            .iter()
            .filter_map(|a| {
                let index = usize::try_from(a.index?).ok()?;
                let n = numbered
                    .iter()
                    .find(|c| same_source(&c.source, &a.source))?
                    .number;
                Some((index, n))
            })
            .collect();
        marks.sort_unstable();
        marks.dedup();
        Marks(marks)
    }
}

fn with_markers(
    text: &str,
    annotations: &[Annotation],
    push_marker: impl Fn(&mut String, usize),
) -> String {
    place_markers(text, &Marks::of(annotations), push_marker)
}

fn place_markers(text: &str, marks: &Marks, push_marker: impl Fn(&mut String, usize)) -> String {
    if marks.0.is_empty() {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + marks.0.len() * 48);
    let mut marks = marks.0.iter().copied().peekable();
    for (count, ch) in text.chars().enumerate() {
        while let Some((_, n)) = marks.next_if(|(i, _)| *i == count) {
            if !ends_with_literal_marker(&out) {
                push_marker(&mut out, n);
            }
        }
        out.push(ch);
    }
    for (_, n) in marks {
        if !ends_with_literal_marker(&out) {
            push_marker(&mut out, n);
        }
    }
    out
}

/// Some servers write `[1]` into the text themselves, right before the annotated index:
/// then the text already shows the marker.
fn ends_with_literal_marker(text: &str) -> bool {
    let Some(rest) = text.strip_suffix(']') else {
        return false;
    };
    let digits = rest.len() - rest.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    digits > 0 && rest[..rest.len() - digits].ends_with('[')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ann(json: &str) -> Annotation {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn sources_are_numbered_once_in_order_of_first_citation() {
        let a = ann(r#"{"source":{"type":"url","url":"https://a","title":"A"},"index":5}"#);
        let b = ann(r#"{"source":{"type":"file","filename":"b.pdf","title":"B"},"index":2}"#);
        let a2 = ann(r#"{"source":{"type":"url","url":"https://a","title":"A again"},"index":9}"#);
        let n = number_sources(&[a.clone(), b.clone(), a2.clone()]);
        assert_eq!(n.iter().map(|c| c.number).collect::<Vec<_>>(), [1, 2]);
        assert_eq!(n[1].source.title, "B");
        let text = text_with_markers("0123456789", &[a, b, a2]);
        assert_eq!(
            text,
            "01<sup data-part=\"citation\">[2]</sup>234<sup data-part=\"citation\">[1]</sup>5678<sup data-part=\"citation\">[1]</sup>9"
        );
    }

    #[test]
    fn indexes_count_characters_and_may_point_past_the_end() {
        let a = ann(r#"{"source":{"type":"url","url":"https://a","title":"A"},"index":2}"#);
        let z = ann(r#"{"source":{"type":"entity","id":"e","title":"E"},"index":99}"#);
        let none = ann(r#"{"source":{"type":"file","filename":"f","title":"F"}}"#);
        let text = text_with_markers("héllo", &[a, z, none.clone()]);
        assert!(text.starts_with("hé<sup"), "{text}");
        assert!(text.ends_with("[2]</sup>"), "{text}");
        assert_eq!(text_with_markers("plain", &[none]), "plain");
    }

    #[test]
    fn a_marker_the_server_wrote_itself_is_not_doubled() {
        let a = ann(r#"{"source":{"type":"url","url":"https://a","title":"A"},"index":10}"#);
        assert_eq!(
            text_with_markers("GitHub [1], more", &[a]),
            "GitHub [1], more"
        );
    }
}
