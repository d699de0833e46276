//! Structured input: how a question is asked (one choice, several, free text), the
//! `answers` of `threads.add_structured_input`, and how an answered question reads.

use crate::protocol::chatkit::StructuredInputField;

use crate::protocol::JsonMap;
use crate::strings::{Strings, Text};
use serde_json::{json, Value};
use std::collections::HashMap;

/// How a question is answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ask {
    /// Radio buttons.
    One,
    /// Checkboxes.
    Many,
    /// A text area (freeform, and any kind this client does not know).
    Text,
}

pub fn ask(field: &StructuredInputField) -> Ask {
    match field.kind.as_str() {
        "multiple_choice" | "single_choice" if !field.options.is_empty() => {
            if field.multiple {
                Ask::Many
            } else {
                Ask::One
            }
        }
        _ => Ask::Text,
    }
}

/// The answers by question id, as the reference runtime and the SDK's `StructuredAnswer`
/// read them: `{"color": {"values": ["green"], "skipped": false}}`. A question left
/// without an answer (nothing chosen, blank text) is `skipped`; `skip_all` skips all.
pub fn answers(
    fields: &[StructuredInputField],
    chosen: &HashMap<String, Vec<String>>,
    skip_all: bool,
) -> JsonMap {
    fields
        .iter()
        .map(|field| {
            let values: Vec<String> = if skip_all {
                Vec::new()
            } else {
                chosen
                    .get(&field.id)
                    .map(|v| v.iter().filter(|s| !s.trim().is_empty()).cloned().collect())
                    .unwrap_or_default()
            };
            let skipped = values.is_empty();
            (
                field.id.clone(),
                json!({ "values": values, "skipped": skipped }),
            )
        })
        .collect()
}

/// An answered question as read-only text: the chosen options' labels, the text, or
/// "Skipped" (in the words of `strings`).
pub fn answer_text(field: &StructuredInputField, strings: &Strings) -> String {
    match &field.answer {
        Some(a) if !a.skipped && !a.values.is_empty() => a
            .values
            .iter()
            .map(|v| {
                field
                    .options
                    .iter()
                    .find(|o| &o.value == v)
                    .and_then(|o| o.label.clone())
                    .unwrap_or_else(|| v.clone())
            })
            .collect::<Vec<_>>()
            .join(", "),
        Some(_) => strings.get(Text::Skipped).to_owned(),
        None => strings.get(Text::NoAnswer).to_owned(),
    }
}

/// The `values` of an answers map entry (for tests and logs).
pub fn values_of(answers: &JsonMap, id: &str) -> Vec<String> {
    answers
        .get(id)
        .and_then(|a| a.get("values"))
        .and_then(Value::as_array)
        .map(|v| {
            v.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::chatkit::{ChoiceOption, StructuredAnswer};

    fn field(
        id: &str,
        kind: &str,
        multiple: bool,
        options: &[(&str, Option<&str>)],
    ) -> StructuredInputField {
        StructuredInputField {
            id: id.into(),
            question: format!("{id}?"),
            kind: kind.into(),
            description: None,
            options: options
                .iter()
                .map(|(v, l)| ChoiceOption {
                    value: (*v).into(),
                    label: l.map(str::to_owned),
                })
                .collect(),
            multiple,
            answer: None,
        }
    }

    fn fields() -> Vec<StructuredInputField> {
        vec![
            field(
                "color",
                "multiple_choice",
                false,
                &[("red", None), ("green", None)],
            ),
            field(
                "toppings",
                "multiple_choice",
                true,
                &[("cheese", Some("Cheese")), ("olives", None)],
            ),
            field("why", "freeform", false, &[]),
        ]
    }

    #[test]
    fn questions_are_asked_by_kind() {
        let f = fields();
        assert_eq!(ask(&f[0]), Ask::One);
        assert_eq!(ask(&f[1]), Ask::Many);
        assert_eq!(ask(&f[2]), Ask::Text);
        assert_eq!(ask(&field("x", "multiple_choice", false, &[])), Ask::Text);
        assert_eq!(ask(&field("x", "rating", false, &[("1", None)])), Ask::Text);
    }

    #[test]
    fn answers_match_what_the_runtime_reads() {
        let mut chosen = HashMap::new();
        chosen.insert("color".to_owned(), vec!["green".to_owned()]);
        chosen.insert(
            "toppings".to_owned(),
            vec!["cheese".into(), "olives".into()],
        );
        chosen.insert("why".to_owned(), vec!["  ".into()]);
        let a = answers(&fields(), &chosen, false);
        assert_eq!(
            Value::Object(a.clone()),
            json!({
                "color": {"values": ["green"], "skipped": false},
                "toppings": {"values": ["cheese", "olives"], "skipped": false},
                "why": {"values": [], "skipped": true}
            })
        );
        // The SDK's StructuredAnswer reads each entry.
        let parsed: StructuredAnswer = serde_json::from_value(a["color"].clone()).unwrap();
        assert_eq!(parsed.values, vec!["green"]);
        assert_eq!(values_of(&a, "toppings"), vec!["cheese", "olives"]);
        let skipped = answers(&fields(), &chosen, true);
        assert!(skipped.values().all(|v| v["skipped"] == true));
    }

    #[test]
    fn answered_questions_read_with_labels() {
        let mut f = fields();
        f[1].answer = Some(StructuredAnswer {
            values: vec!["cheese".into(), "olives".into()],
            skipped: false,
        });
        f[2].answer = Some(StructuredAnswer {
            values: vec![],
            skipped: true,
        });
        let en = Strings::default();
        assert_eq!(answer_text(&f[1], &en), "Cheese, olives");
        assert_eq!(answer_text(&f[2], &en), "Skipped");
        assert_eq!(answer_text(&f[0], &en), "No answer");
        assert_eq!(answer_text(&f[2], &Strings::new("de")), "Übersprungen");
    }
}
