//! The agent session's controls as the composer and the header show them
//! (`protocol::chatkit::session`): each control's accessible name, what a change came to,
//! the slash-command list for a draft, the usage meter's text. No DOM: the views only lay
//! these out.

use crate::protocol::chatkit::{Command, Control, ControlKind, Cost, SessionState, Usage};
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

/// `state` with every label the agent wrote (names, descriptions, groups, hints, the
/// title, the currency) stripped of controls and bidi formatting ([`crate::labels`]).
pub fn clean_labels(mut state: SessionState) -> SessionState {
    let clean = |s: &mut String| {
        if s.chars().any(crate::labels::forbidden) {
            *s = crate::labels::strip(s);
        }
    };
    for control in &mut state.controls {
        clean(&mut control.name);
        control.description.as_mut().map(clean);
        if let ControlKind::Select(select) = &mut control.kind {
            for choice in &mut select.options {
                clean(&mut choice.name);
                choice.description.as_mut().map(clean);
                choice.group.as_mut().map(clean);
            }
        }
    }
    for command in &mut state.commands {
        clean(&mut command.description);
        command.hint.as_mut().map(clean);
    }
    state.title.as_mut().map(clean);
    if let Some(cost) = state.usage.as_mut().and_then(|u| u.cost.as_mut()) {
        clean(&mut cost.currency);
    }
    state
}

/// The most tokens a usage may count (used or size): past it, it is not a usage.
pub const MAX_TOKENS: u64 = 1_000_000_000;
/// The highest cost shown, in any currency: past it (or below zero), the cost is unknown.
pub const MAX_COST: f64 = 1e9;
/// The longest currency shown, in characters.
const MAX_CURRENCY_CHARS: usize = 16;

/// `usage` as it may be shown: `None` (unknown) when a count is past [`MAX_TOKENS`]; its
/// cost dropped when not a number from 0 to [`MAX_COST`] with a currency; the currency
/// without controls or bidi formatting.
pub fn checked_usage(usage: &Usage) -> Option<Usage> {
    if usage.used > MAX_TOKENS || usage.size > MAX_TOKENS {
        return None;
    }
    let cost = usage.cost.as_ref().and_then(|c| {
        let currency: String = crate::labels::strip(&c.currency)
            .trim()
            .chars()
            .take(MAX_CURRENCY_CHARS)
            .collect();
        ((0.0..=MAX_COST).contains(&c.amount) && !currency.is_empty()).then_some(Cost {
            amount: c.amount,
            currency,
        })
    });
    Some(Usage {
        used: usage.used,
        size: usage.size,
        cost,
    })
}

/// How a language writes a compact number.
struct Compact {
    decimal: char,
    /// Thousands under a million: their suffix, or `None` for the number in full with this
    /// grouping separator (German writes 12.500, not 12,5 Tsd.).
    thousands: Result<&'static str, char>,
    millions: &'static str,
}

fn compact_rules(strings: &Strings) -> Compact {
    let language = strings
        .locale()
        .split(['-', '_'])
        .next()
        .unwrap_or_default();
    match language.to_ascii_lowercase().as_str() {
        "fr" => Compact {
            decimal: ',',
            thousands: Ok("\u{a0}k"),
            millions: "\u{a0}M",
        },
        "de" => Compact {
            decimal: ',',
            thousands: Err('.'),
            millions: "\u{a0}Mio.",
        },
        "ar" => Compact {
            decimal: '\u{66b}',
            thousands: Ok("\u{a0}ألف"),
            millions: "\u{a0}مليون",
        },
        _ => Compact {
            decimal: '.',
            thousands: Ok("k"),
            millions: "M",
        },
    }
}

/// `n` with one decimal at most, written with `decimal`.
fn one_decimal(n: f64, decimal: char) -> String {
    let text = format!("{n:.1}");
    let text = text.strip_suffix(".0").unwrap_or(&text);
    text.replace('.', &decimal.to_string())
}

/// A token count for people, as their language writes it compactly: 950, 12.5k, 200k,
/// 1.2M (12,5 k in French; 12.500 in German).
pub fn tokens(n: u64, strings: &Strings) -> String {
    compact(n as f64, &compact_rules(strings))
}

fn compact(n: f64, rules: &Compact) -> String {
    if n < 1_000.0 {
        return one_decimal(n, rules.decimal);
    }
    if n < 999_950.0 {
        return match rules.thousands {
            Ok(suffix) => one_decimal(n / 1_000.0, rules.decimal) + suffix,
            Err(group) => {
                let whole = n.round() as u64;
                format!("{}{group}{:03}", whole / 1_000, whole % 1_000)
            }
        };
    }
    one_decimal(n / 1_000_000.0, rules.decimal) + rules.millions
}

/// A cost for people: two decimals under a thousand (0,03 in French), compact past it.
pub fn amount(n: f64, strings: &Strings) -> String {
    let rules = compact_rules(strings);
    if n < 1_000.0 {
        format!("{n:.2}").replace('.', &rules.decimal.to_string())
    } else {
        compact(n, &rules)
    }
}

/// The usage meter's short text: "12.5k / 200k", and the cost where there is one:
/// "12.5k / 200k · 0.03 USD". Nothing for a usage [`checked_usage`] refuses.
pub fn usage_short(usage: &Usage, strings: &Strings) -> Option<String> {
    let usage = checked_usage(usage)?;
    let mut short = format!(
        "{} / {}",
        tokens(usage.used, strings),
        tokens(usage.size, strings)
    );
    if let Some(cost) = cost_text(&usage, strings) {
        short.push_str(" · ");
        short.push_str(&cost);
    }
    Some(short)
}

fn cost_text(usage: &Usage, strings: &Strings) -> Option<String> {
    let cost = usage.cost.as_ref()?;
    Some(strings.format(
        Text::UsageCost,
        &[
            ("amount", &amount(cost.amount, strings)),
            ("currency", &cost.currency),
        ],
    ))
}

/// The usage meter's text alternative: "12.5k of 200k tokens used (6%) · 0.03 USD".
/// Nothing for a usage [`checked_usage`] refuses.
pub fn usage_text(usage: &Usage, strings: &Strings) -> Option<String> {
    let usage = checked_usage(usage)?;
    let percent = (usage.used.min(usage.size) * 100)
        .checked_div(usage.size)
        .unwrap_or(0);
    let mut text = strings.format(
        Text::UsageText,
        &[
            ("used", &tokens(usage.used, strings)),
            ("size", &tokens(usage.size, strings)),
            ("percent", &percent.to_string()),
        ],
    );
    if let Some(cost) = cost_text(&usage, strings) {
        text.push_str(" · ");
        text.push_str(&cost);
    }
    Some(text)
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
            usage_text(&usage, &en).unwrap(),
            "12.5k of 200k tokens used (6%) · 0.03 USD"
        );
        assert_eq!(usage_short(&usage, &en).unwrap(), "12.5k / 200k · 0.03 USD");
        assert_eq!(tokens(999, &en), "999");
        assert_eq!(tokens(1_000, &en), "1k");
        assert_eq!(tokens(999_999, &en), "1M");
        assert_eq!(tokens(1_250_000, &en), "1.2M");
        let empty = Usage {
            used: 5,
            size: 0,
            cost: None,
        };
        assert_eq!(usage_text(&empty, &en).unwrap(), "5 of 0 tokens used (0%)");
    }

    #[test]
    fn numbers_are_compact_as_each_language_writes_them() {
        let fr = Strings::new("fr-FR");
        assert_eq!(tokens(12_500, &fr), "12,5\u{a0}k");
        assert_eq!(tokens(1_250_000, &fr), "1,2\u{a0}M");
        assert_eq!(amount(0.031, &fr), "0,03");
        let de = Strings::new("de");
        assert_eq!(tokens(12_500, &de), "12.500");
        assert_eq!(tokens(1_250_000, &de), "1,2\u{a0}Mio.");
        let ar = Strings::new("ar");
        assert_eq!(tokens(12_500, &ar), "12\u{66b}5\u{a0}ألف");
        let en = Strings::new("en");
        assert_eq!(amount(1_234_567.0, &en), "1.2M");
    }

    #[test]
    fn every_label_of_a_state_loses_its_bidi_controls() {
        let rlo = "\u{202e}";
        let mut control = select("m", None, "a");
        control.name = format!("{rlo}eman");
        control.description = Some(format!("a\u{1b}b{rlo}"));
        if let ControlKind::Select(s) = &mut control.kind {
            s.options[0].name = format!("{rlo}A");
            s.options[0].group = Some(format!("{rlo}G"));
        }
        let state = SessionState {
            controls: vec![control],
            commands: vec![Command {
                name: "web".into(),
                description: format!("{rlo}txet"),
                hint: Some("\u{2066}h\u{2069}".to_owned()),
            }],
            title: Some(format!("{rlo}eltit")),
            usage: Some(Usage {
                used: 1,
                size: 2,
                cost: Some(Cost {
                    amount: 1.0,
                    currency: format!("{rlo}DSU"),
                }),
            }),
            ..SessionState::default()
        };
        let clean = clean_labels(state);
        let text = serde_json::to_string(&clean).unwrap();
        assert!(!text.contains(rlo) && !text.contains('\u{2066}'), "{text}");
        assert!(!text.contains('\u{1b}'), "{text}");
        assert_eq!(clean.controls[0].name, "eman");
        assert_eq!(clean.title.as_deref(), Some("eltit"));
        assert_eq!(clean.usage.unwrap().cost.unwrap().currency, "DSU");
    }

    #[test]
    fn usage_out_of_range_is_unknown_and_a_bad_cost_is_dropped() {
        let en = Strings::new("en");
        let usage = |used, size, amount: f64, currency: &str| Usage {
            used,
            size,
            cost: Some(Cost {
                amount,
                currency: currency.into(),
            }),
        };
        // 2^64 − 1 tokens used: not a usage (it read "18446744073709.6M / 1").
        let huge = usage(u64::MAX, 1, 1.0, "USD");
        assert_eq!(checked_usage(&huge), None);
        assert_eq!(usage_text(&huge, &en), None);
        assert_eq!(usage_short(&huge, &en), None);
        // A cost of −1e308, NaN, infinite or past the bound: no cost (it read as 309 digits).
        for amount in [
            -1e308,
            -0.01,
            f64::NAN,
            f64::INFINITY,
            1e308,
            MAX_COST * 2.0,
        ] {
            let odd = usage(1_000, 200_000, amount, "USD");
            assert_eq!(checked_usage(&odd).unwrap().cost, None, "{amount}");
            let short = usage_short(&odd, &en).unwrap();
            assert_eq!(short, "1k / 200k", "{amount}");
            assert!(usage_text(&odd, &en).unwrap().len() < 64);
        }
        // The currency loses its bidi override: it does not read as another one.
        let rlo = usage(1_000, 200_000, 0.5, "\u{202e}DSU");
        assert_eq!(usage_short(&rlo, &en).unwrap(), "1k / 200k · 0.50 DSU");
        // Nothing but controls: no currency, no cost.
        let blank = usage(1_000, 200_000, 0.5, "\u{202e}\u{202c}");
        assert_eq!(checked_usage(&blank).unwrap().cost, None);
        // The largest sane usage stays short.
        let top = usage(MAX_TOKENS, MAX_TOKENS, MAX_COST, "USD");
        let short = usage_short(&top, &en).unwrap();
        assert!(short.len() < 40, "{short}");
    }
}
