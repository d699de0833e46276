//! The agent session's controls as the composer and the header show them
//! (`protocol::chatkit::session`): each control's accessible name, what a change came to,
//! the slash-command list for a draft, the usage meter's text. No DOM: the views only lay
//! these out.

use crate::protocol::chatkit::{Command, Control, ControlKind, SessionState, Usage};
use crate::strings::{Strings, Text};

/// The name a control is labelled (and found) by: "Mode" and "Model" for those
/// categories, whatever the agent calls them; any other by the agent's own name.
pub fn control_name(control: &Control, strings: &Strings) -> String {
    match control.category.as_deref() {
        Some("mode") => strings.get(Text::ControlMode).to_owned(),
        Some("model") => strings.get(Text::ControlModel).to_owned(),
        _ => control.name.clone(),
    }
}

/// A control's value as the state says it, in the form `acp.session.set` takes.
pub fn control_value(control: &Control) -> Option<serde_json::Value> {
    match &control.kind {
        ControlKind::Select(s) => Some(serde_json::Value::String(s.value.clone())),
        ControlKind::Boolean(b) => Some(serde_json::Value::Bool(b.value)),
        ControlKind::Other(_) => None,
    }
}

/// The text of a value of a control (a choice's name, or the value itself).
fn value_text(control: &Control, value: &serde_json::Value) -> String {
    match (&control.kind, value) {
        (ControlKind::Select(s), serde_json::Value::String(v)) => s
            .options
            .iter()
            .find(|c| &c.value == v)
            .map_or_else(|| v.clone(), |c| c.name.clone()),
        (_, v) => v.to_string(),
    }
}

/// What a change came to, to say beside the controls. `None`: it took as asked.
pub fn change_note(
    state: &SessionState,
    control_id: &str,
    asked: &serde_json::Value,
    refused: Option<&str>,
    strings: &Strings,
) -> Option<String> {
    let control = state.controls.iter().find(|c| c.id == control_id);
    let name = control.map_or_else(|| control_id.to_owned(), |c| control_name(c, strings));
    if let Some(reason) = refused {
        return Some(strings.format(Text::ControlRefused, &[("name", &name), ("reason", reason)]));
    }
    let control = control?;
    let now = control_value(control)?;
    (&now != asked).then(|| {
        strings.format(
            Text::ControlAdjusted,
            &[("name", &name), ("value", &value_text(control, &now))],
        )
    })
}

/// The commands to offer for `draft`: `Some` while the draft is a `/` at its start
/// followed by the start of a name (no space yet), the matches by prefix first, then by
/// substring, each as the agent listed them.
pub fn command_matches<'c>(commands: &'c [Command], draft: &str) -> Option<Vec<&'c Command>> {
    let typed = draft.strip_prefix('/')?;
    if typed.contains(char::is_whitespace) {
        return None;
    }
    let typed = typed.to_lowercase();
    let (mut first, mut then): (Vec<&Command>, Vec<&Command>) = (Vec::new(), Vec::new());
    for command in commands {
        let name = command.name.to_lowercase();
        if name.starts_with(&typed) {
            first.push(command);
        } else if name.contains(&typed) {
            then.push(command);
        }
    }
    first.extend(then);
    Some(first)
}

/// The draft once `command` is chosen: `/name ` with the caret after it.
pub fn command_draft(command: &Command) -> String {
    format!("/{} ", command.name)
}

/// A token count for people: 950, 12.5k, 200k, 1.2M.
pub fn tokens(n: u64) -> String {
    match n {
        0..=999 => n.to_string(),
        1_000..=999_999 => trim(format!("{:.1}", n as f64 / 1_000.0)) + "k",
        _ => trim(format!("{:.1}", n as f64 / 1_000_000.0)) + "M",
    }
}

fn trim(s: String) -> String {
    s.strip_suffix(".0").map(str::to_owned).unwrap_or(s)
}

/// The usage meter's text alternative: "12.5k of 200k tokens used (6%) · 0.03 USD".
pub fn usage_text(usage: &Usage, strings: &Strings) -> String {
    let percent = (usage.used.min(usage.size) * 100)
        .checked_div(usage.size)
        .unwrap_or(0);
    let mut text = strings.format(
        Text::UsageText,
        &[
            ("used", &tokens(usage.used)),
            ("size", &tokens(usage.size)),
            ("percent", &percent.to_string()),
        ],
    );
    if let Some(cost) = &usage.cost {
        if cost.amount.is_finite() {
            let amount = format!("{:.2}", cost.amount);
            text.push_str(" · ");
            text.push_str(&strings.format(
                Text::UsageCost,
                &[("amount", &amount), ("currency", &cost.currency)],
            ));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::chatkit::{BooleanControl, Choice, Cost, SelectControl};
    use serde_json::json;

    fn select(id: &str, category: Option<&str>, value: &str) -> Control {
        Control {
            id: id.into(),
            name: format!("Agent's {id}"),
            description: None,
            category: category.map(str::to_owned),
            kind: ControlKind::Select(SelectControl {
                value: value.into(),
                options: ["low", "medium", "high"]
                    .iter()
                    .map(|v| Choice {
                        value: (*v).into(),
                        name: v.to_uppercase(),
                        description: None,
                        group: None,
                    })
                    .collect(),
            }),
        }
    }

    #[test]
    fn mode_and_model_are_named_for_people_others_by_the_agent() {
        let en = Strings::new("en");
        assert_eq!(control_name(&select("m", Some("mode"), "low"), &en), "Mode");
        assert_eq!(
            control_name(&select("x", Some("model"), "low"), &en),
            "Model"
        );
        assert_eq!(
            control_name(&select("t", Some("thought_level"), "low"), &en),
            "Agent's t"
        );
        assert_eq!(
            control_name(&select("m", Some("mode"), "low"), &Strings::new("de")),
            "Modus"
        );
    }

    #[test]
    fn a_change_is_refused_adjusted_or_as_asked() {
        let en = Strings::new("en");
        let state = SessionState {
            controls: vec![
                select("thought", Some("thought_level"), "medium"),
                Control {
                    id: "fast".into(),
                    name: "Fast".into(),
                    description: None,
                    category: None,
                    kind: ControlKind::Boolean(BooleanControl { value: true }),
                },
            ],
            ..SessionState::default()
        };
        let refused = change_note(&state, "thought", &json!("high"), Some("no"), &en).unwrap();
        assert_eq!(refused, "Agent's thought not changed: no");
        let adjusted = change_note(&state, "thought", &json!("high"), None, &en).unwrap();
        assert_eq!(adjusted, "Agent's thought set to MEDIUM by the agent");
        assert_eq!(
            change_note(&state, "thought", &json!("medium"), None, &en),
            None
        );
        assert_eq!(change_note(&state, "fast", &json!(true), None, &en), None);
        assert!(change_note(&state, "fast", &json!(false), None, &en).is_some());
    }

    fn command(name: &str) -> Command {
        Command {
            name: name.into(),
            description: String::new(),
            hint: None,
        }
    }

    #[test]
    fn commands_are_offered_for_a_slash_at_the_start_only() {
        let all = [
            command("web"),
            command("preview"),
            command("test"),
            command("review"),
            command("plan"),
        ];
        let names = |draft: &str| {
            command_matches(&all, draft)
                .map(|m| m.iter().map(|c| c.name.as_str()).collect::<Vec<_>>())
        };
        assert_eq!(
            names("/"),
            Some(vec!["web", "preview", "test", "review", "plan"])
        );
        assert_eq!(names("/te"), Some(vec!["test"]));
        // Prefix matches before substring ones.
        assert_eq!(names("/re"), Some(vec!["review", "preview"]));
        assert_eq!(names("/P"), Some(vec!["preview", "plan"]));
        assert_eq!(names("/zz"), Some(vec![]));
        assert_eq!(names("/test args"), None);
        assert_eq!(names("say /test"), None);
        assert_eq!(names(""), None);
        assert_eq!(command_draft(&all[2]), "/test ");
    }

    #[test]
    fn usage_reads_as_people_say_it() {
        let en = Strings::new("en");
        let usage = Usage {
            used: 12_500,
            size: 200_000,
            cost: Some(Cost {
                amount: 0.031,
                currency: "USD".into(),
            }),
        };
        assert_eq!(
            usage_text(&usage, &en),
            "12.5k of 200k tokens used (6%) · 0.03 USD"
        );
        assert_eq!(tokens(999), "999");
        assert_eq!(tokens(1_000), "1k");
        assert_eq!(tokens(1_250_000), "1.2M");
        let empty = Usage {
            used: 5,
            size: 0,
            cost: None,
        };
        assert_eq!(usage_text(&empty, &en), "5 of 0 tokens used (0%)");
    }
}
