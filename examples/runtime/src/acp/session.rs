//! What an ACP session offers beside the conversation, kept by the bridge whether or not a
//! turn runs: the modes and config options of the `session/new` (`load`, `resume`) answer
//! and of every later update (`current_mode_update`, `config_option_update`), the slash
//! commands (`available_commands_update`), the context usage (`usage_update`) and the title
//! (`session_info_update`), made into the page's one neutral shape, `SessionState`
//! (`chat_shell_core::protocol::chatkit::session`).
//!
//! The config options win over the modes: when an option has the category `mode` (or the
//! id `mode`), the modes are not listed as a control of their own; otherwise the modes are
//! the control `mode` (category `mode`, named "Mode"), first. Grouped select options are
//! flattened, each choice carrying its group's name. Boolean options are kept (the runtime
//! advertises them).
//!
//! Everything kept is bounded ([`MAX_CONTROLS`], [`MAX_CHOICES`], [`MAX_COMMANDS`], the
//! string lengths): an agent cannot grow the runtime's memory by what it reports. An id or
//! value over its bound is dropped (a shortened id would name something else); labels and
//! descriptions are shortened.

use chat_shell_core::protocol::chatkit::{
    BooleanControl, Choice, Command, Control, ControlKind, Cost, SelectControl, SessionState, Usage,
};
use serde_json::Value;

/// At most this many controls (config options, and the modes).
pub const MAX_CONTROLS: usize = 32;
/// At most this many choices in one select control.
pub const MAX_CHOICES: usize = 256;
/// At most this many slash commands.
pub const MAX_COMMANDS: usize = 128;
/// The longest id, value or command name kept, in characters (a longer one is dropped).
pub const MAX_ID_CHARS: usize = 256;
/// Names, titles, hints and currencies are cut to this many characters.
pub const MAX_LABEL_CHARS: usize = 256;
/// Descriptions are cut to this many characters.
pub const MAX_TEXT_CHARS: usize = 1024;
/// One session's state, serialized, stays under this many bytes: past it, commands, then
/// choices, then options are dropped from the end until it fits.
pub const MAX_STATE_BYTES: usize = 128 * 1024;
/// The name of the control made of the session modes.
pub const MODE_NAME: &str = "Mode";
/// The id of that control.
pub const MODE_ID: &str = "mode";

/// One session's offer, as the agent last reported it, and whose it is.
#[derive(Clone, Debug, Default)]
pub(crate) struct Held {
    /// `session/set_mode`'s world: the current mode and the modes offered.
    modes: Option<(String, Vec<Choice>)>,
    /// The config options, already made into controls.
    options: Vec<Control>,
    commands: Vec<Command>,
    usage: Option<Usage>,
    title: Option<String>,
    /// The thread holding the session, once one does (`None`: a user's draft).
    pub thread: Option<String>,
}

/// How `acp.session.set` reaches a control.
#[derive(Debug, PartialEq)]
pub(crate) enum Target {
    /// `session/set_mode`.
    Mode,
    /// `session/set_config_option` with a value id.
    Select,
    /// `session/set_config_option` with a boolean.
    Boolean,
}

impl Held {
    /// From a `session/new`, `load` or `resume` answer (as JSON: `modes`, `configOptions`).
    pub fn from_answer(answer: &Value, thread: Option<String>) -> Held {
        let mut held = Held {
            thread,
            ..Held::default()
        };
        held.modes = answer.get("modes").and_then(modes);
        if let Some(options) = answer.get("configOptions") {
            held.options = config_options(options);
        }
        held.fit();
        held
    }

    /// The page's view of it.
    pub fn state(&self, lists_sessions: bool) -> SessionState {
        let mut controls = Vec::new();
        let options_have_mode = self
            .options
            .iter()
            .any(|c| c.category.as_deref() == Some("mode") || c.id == MODE_ID);
        if let (Some((current, choices)), false) = (&self.modes, options_have_mode) {
            controls.push(Control {
                id: MODE_ID.into(),
                name: MODE_NAME.into(),
                description: None,
                category: Some("mode".into()),
                kind: ControlKind::Select(SelectControl {
                    value: current.clone(),
                    options: choices.clone(),
                }),
            });
        }
        controls.extend(self.options.iter().cloned());
        controls.truncate(MAX_CONTROLS);
        SessionState {
            controls,
            commands: self.commands.clone(),
            usage: self.usage.clone(),
            title: self.title.clone(),
            lists_sessions,
            // The bridge's to say (`Bridge::state_of`): it is not the agent's.
            file_mentions: false,
            cwd: None,
        }
    }

    /// How to set `control` with `value`, if it is a control offered now and `value` one
    /// it takes; else why not.
    pub fn target(&self, control: &str, value: &Value) -> Result<Target, String> {
        let state = self.state(false);
        let Some(found) = state.controls.iter().find(|c| c.id == control) else {
            return Err(format!("the session offers no control {control:?}"));
        };
        let from_modes = control == MODE_ID && !self.options.iter().any(|c| c.id == MODE_ID);
        match (&found.kind, value) {
            (ControlKind::Select(select), Value::String(v)) => {
                if !select.options.iter().any(|c| &c.value == v) {
                    return Err(format!("{v:?} is not one of the choices of {control:?}"));
                }
                Ok(if from_modes {
                    Target::Mode
                } else {
                    Target::Select
                })
            }
            (ControlKind::Boolean(_), Value::Bool(_)) => Ok(Target::Boolean),
            (ControlKind::Select(_), _) => {
                Err(format!("{control:?} takes a string (one of its choices)"))
            }
            (ControlKind::Boolean(_), _) => Err(format!("{control:?} takes a boolean")),
            (ControlKind::Other(_), _) => Err(format!("{control:?} cannot be set here")),
        }
    }

    /// The agent confirmed the mode `id`.
    pub fn set_mode(&mut self, id: &str) -> bool {
        match &mut self.modes {
            Some((current, _)) if current != id && id.chars().count() <= MAX_ID_CHARS => {
                *current = id.to_owned();
                true
            }
            _ => false,
        }
    }

    /// The whole set of config options, as `session/set_config_option` answers it.
    pub fn set_options(&mut self, options: &Value) -> bool {
        let before = std::mem::replace(&mut self.options, config_options(options));
        self.fit();
        before != self.options
    }

    /// A `session/update` (as JSON); whether it changed what the page shows.
    pub fn apply(&mut self, update: &Value) -> bool {
        match update.get("sessionUpdate").and_then(Value::as_str) {
            Some("current_mode_update") => match update.get("currentModeId") {
                Some(Value::String(id)) => self.set_mode(id),
                _ => false,
            },
            Some("config_option_update") => match update.get("configOptions") {
                Some(options) => self.set_options(options),
                None => false,
            },
            Some("available_commands_update") => {
                let before = std::mem::replace(
                    &mut self.commands,
                    commands(update.get("availableCommands")),
                );
                self.fit();
                before != self.commands
            }
            Some("usage_update") => {
                let usage = usage(update);
                let changed = usage.is_some() && usage != self.usage;
                if usage.is_some() {
                    self.usage = usage;
                }
                changed
            }
            Some("session_info_update") => match update.get("title") {
                None => false,
                Some(title) => {
                    let title = title
                        .as_str()
                        .map(|t| clip(t, MAX_LABEL_CHARS))
                        .filter(|t| !t.trim().is_empty());
                    let changed = title != self.title;
                    self.title = title;
                    changed
                }
            },
            _ => false,
        }
    }

    /// Reopened: what `old` reported (title, commands, usage) stays until the agent
    /// reports otherwise.
    pub fn keep_reported(&mut self, old: &Held) {
        if self.title.is_none() {
            self.title = old.title.clone();
        }
        if self.commands.is_empty() {
            self.commands = old.commands.clone();
        }
        if self.usage.is_none() {
            self.usage = old.usage.clone();
        }
    }

    /// What `newer` (updates that came before this state was held) reported wins.
    pub fn overlay(&mut self, newer: &Held) {
        if newer.title.is_some() {
            self.title = newer.title.clone();
        }
        if !newer.commands.is_empty() {
            self.commands = newer.commands.clone();
        }
        if newer.usage.is_some() {
            self.usage = newer.usage.clone();
        }
        self.fit();
    }

    /// Drops what is over [`MAX_STATE_BYTES`], from the end: commands, then choices,
    /// then whole options.
    fn fit(&mut self) {
        loop {
            let bytes = serde_json::to_vec(&self.state(true)).map_or(0, |v| v.len());
            if bytes <= MAX_STATE_BYTES {
                return;
            }
            if !self.commands.is_empty() {
                self.commands.truncate(self.commands.len() / 2);
                continue;
            }
            let widest = self.options.iter_mut().filter_map(|c| match &mut c.kind {
                ControlKind::Select(s) if s.options.len() > 1 => Some(&mut s.options),
                _ => None,
            });
            if let Some(choices) = widest.max_by_key(|o| o.len()) {
                choices.truncate(choices.len() / 2);
                continue;
            }
            if self.options.pop().is_some() {
                continue;
            }
            match &mut self.modes {
                Some((_, choices)) if choices.len() > 1 => choices.truncate(choices.len() / 2),
                _ => return,
            }
        }
    }

    pub fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }
}

/// `s` without controls and bidi formatting (the agent's labels must read as they are,
/// `crate::labels`), cut to `max` characters.
pub(crate) fn clip(s: &str, max: usize) -> String {
    let s = crate::labels::strip(s);
    match s.char_indices().nth(max) {
        Some((end, _)) => s[..end].to_owned(),
        None => s,
    }
}

/// An id or value: kept whole, or not at all.
fn id(value: Option<&Value>) -> Option<String> {
    value
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty() && s.chars().count() <= MAX_ID_CHARS)
        .map(str::to_owned)
}

fn label(value: Option<&Value>) -> Option<String> {
    value
        .and_then(Value::as_str)
        .map(|s| clip(s, MAX_LABEL_CHARS))
}

fn text(value: Option<&Value>) -> Option<String> {
    value
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(|s| clip(s, MAX_TEXT_CHARS))
}

/// ACP's `SessionModeState` (`currentModeId`, `availableModes: [{id, name, description}]`).
fn modes(modes: &Value) -> Option<(String, Vec<Choice>)> {
    let current = id(modes.get("currentModeId"))?;
    let choices: Vec<Choice> = modes
        .get("availableModes")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|m| {
            Some(Choice {
                value: id(m.get("id"))?,
                name: label(m.get("name"))?,
                description: text(m.get("description")),
                group: None,
            })
        })
        .take(MAX_CHOICES)
        .collect();
    Some((current, choices))
}

/// ACP's `configOptions`, as controls.
fn config_options(options: &Value) -> Vec<Control> {
    options
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(config_option)
        .take(MAX_CONTROLS)
        .collect()
}

fn config_option(option: &Value) -> Option<Control> {
    let kind = match option.get("type").and_then(Value::as_str)? {
        "select" => {
            let mut choices = Vec::new();
            for entry in option.get("options")?.as_array()? {
                if let Some(group) = entry.get("options").and_then(Value::as_array) {
                    let group_name = label(entry.get("name")).or_else(|| label(entry.get("group")));
                    for o in group {
                        choices.extend(choice(o, group_name.clone()));
                    }
                } else {
                    choices.extend(choice(entry, None));
                }
            }
            choices.truncate(MAX_CHOICES);
            ControlKind::Select(SelectControl {
                value: id(option.get("currentValue"))?,
                options: choices,
            })
        }
        "boolean" => ControlKind::Boolean(BooleanControl {
            value: option.get("currentValue")?.as_bool()?,
        }),
        // A kind the runtime did not advertise: not offered.
        _ => return None,
    };
    Some(Control {
        id: id(option.get("id"))?,
        name: label(option.get("name"))?,
        description: text(option.get("description")),
        category: option
            .get("category")
            .and_then(Value::as_str)
            .filter(|c| c.chars().count() <= 64)
            .map(str::to_owned),
        kind,
    })
}

fn choice(option: &Value, group: Option<String>) -> Option<Choice> {
    Some(Choice {
        value: id(option.get("value"))?,
        name: label(option.get("name"))?,
        description: label(option.get("description")).filter(|d| !d.is_empty()),
        group,
    })
}

fn commands(list: Option<&Value>) -> Vec<Command> {
    list.and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|c| {
            let name = id(c.get("name")).filter(|n| n.chars().count() <= 64)?;
            Some(Command {
                name,
                description: text(c.get("description")).unwrap_or_default(),
                hint: c
                    .get("input")
                    .and_then(|i| i.get("hint"))
                    .and_then(Value::as_str)
                    .map(|h| clip(h, MAX_LABEL_CHARS)),
            })
        })
        .take(MAX_COMMANDS)
        .collect()
}

fn usage(update: &Value) -> Option<Usage> {
    let cost = update.get("cost").and_then(|c| {
        Some(Cost {
            amount: c.get("amount")?.as_f64()?,
            currency: clip(c.get("currency")?.as_str()?, 16),
        })
    });
    // Out of range: unknown, as the page would show it.
    chat_shell_core::session::checked_usage(&Usage {
        used: update.get("used")?.as_u64()?,
        size: update.get("size")?.as_u64()?,
        cost,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn select(state: &SessionState, id: &str) -> SelectControl {
        match &state.controls.iter().find(|c| c.id == id).unwrap().kind {
            ControlKind::Select(s) => s.clone(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn modes_alone_are_the_mode_control() {
        let held = Held::from_answer(
            &json!({"modes": {"currentModeId": "ask", "availableModes": [
                {"id": "ask", "name": "Ask"}, {"id": "code", "name": "Code", "description": "Edits"}
            ]}}),
            None,
        );
        let state = held.state(true);
        assert_eq!(state.controls.len(), 1);
        assert_eq!(state.controls[0].name, "Mode");
        assert_eq!(state.controls[0].category.as_deref(), Some("mode"));
        assert_eq!(select(&state, "mode").value, "ask");
        assert!(state.lists_sessions);
        assert_eq!(held.target("mode", &json!("code")), Ok(Target::Mode));
        assert!(held.target("mode", &json!("plan")).is_err());
        assert!(held.target("mode", &json!(true)).is_err());
        assert!(held.target("model", &json!("x")).is_err());
    }

    #[test]
    fn config_options_win_over_modes_and_groups_flatten() {
        let mut held = Held::from_answer(
            &json!({
                "modes": {"currentModeId": "ask", "availableModes": [{"id": "ask", "name": "Ask"}]},
                "configOptions": [
                    {"id": "mode", "name": "Mode", "category": "mode", "type": "select",
                     "currentValue": "ask", "options": [{"value": "ask", "name": "Ask"}, {"value": "code", "name": "Code"}]},
                    {"id": "model", "name": "Model", "category": "model", "type": "select",
                     "currentValue": "fast", "options": [
                        {"group": "g1", "name": "Small", "options": [{"value": "fast", "name": "Fast"}]},
                        {"group": "g2", "name": "Large", "options": [{"value": "deep", "name": "Deep"}]}
                     ]},
                    {"id": "brief", "name": "Brief", "type": "boolean", "currentValue": true},
                    {"id": "odd", "name": "Odd", "type": "slider", "currentValue": 1}
                ]
            }),
            Some("thr_1".into()),
        );
        let state = held.state(false);
        let ids: Vec<_> = state.controls.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["mode", "model", "brief"]);
        let model = select(&state, "model");
        assert_eq!(model.options[1].group.as_deref(), Some("Large"));
        assert_eq!(held.target("mode", &json!("code")), Ok(Target::Select));
        assert_eq!(held.target("brief", &json!(false)), Ok(Target::Boolean));
        assert!(held.target("brief", &json!("no")).is_err());
        // Updates.
        assert!(held.apply(&json!({"sessionUpdate": "usage_update", "used": 5, "size": 10})));
        assert!(!held.apply(&json!({"sessionUpdate": "usage_update", "used": 5, "size": 10})));
        assert!(held.apply(&json!({"sessionUpdate": "session_info_update", "title": "Hello"})));
        assert!(held.apply(&json!({"sessionUpdate": "available_commands_update",
            "availableCommands": [{"name": "web", "description": "Search", "input": {"hint": "query"}}]})));
        assert!(held.apply(&json!({"sessionUpdate": "config_option_update", "configOptions": []})));
        let state = held.state(false);
        // Without options, the modes are the Mode control again.
        assert_eq!(select(&state, "mode").value, "ask");
        assert_eq!(state.usage.unwrap().size, 10);
        assert_eq!(state.title.as_deref(), Some("Hello"));
        assert_eq!(state.commands[0].hint.as_deref(), Some("query"));
        assert!(held.apply(&json!({"sessionUpdate": "current_mode_update", "currentModeId": "x"})));
    }

    #[test]
    fn what_an_agent_reports_is_bounded() {
        let huge = "x".repeat(2_000);
        let commands: Vec<Value> = (0..2_000)
            .map(|i| json!({"name": format!("c{i}"), "description": huge, "input": {"hint": huge}}))
            .collect();
        let choices: Vec<Value> = (0..300)
            .map(|i| json!({"value": format!("v{i}"), "name": huge, "description": huge}))
            .collect();
        let options: Vec<Value> = (0..40)
            .map(|i| {
                json!({"id": format!("o{i}"), "name": huge, "description": huge, "type": "select",
                       "currentValue": "v0", "options": choices})
            })
            .collect();
        let mut held = Held::default();
        held.apply(
            &json!({"sessionUpdate": "available_commands_update", "availableCommands": commands}),
        );
        held.apply(&json!({"sessionUpdate": "config_option_update", "configOptions": options}));
        held.apply(&json!({"sessionUpdate": "session_info_update", "title": huge}));
        // An id over its bound is dropped, not cut.
        let long_id = "i".repeat(MAX_ID_CHARS + 1);
        held.apply(
            &json!({"sessionUpdate": "config_option_update", "configOptions": [
                {"id": long_id, "name": "n", "type": "boolean", "currentValue": true}
            ]}),
        );
        assert!(held.options.is_empty());
        held.apply(&json!({"sessionUpdate": "config_option_update", "configOptions": options}));
        let state = held.state(true);
        assert!(state.commands.len() <= MAX_COMMANDS);
        assert!(!state.controls.is_empty() && state.controls.len() <= MAX_CONTROLS);
        assert!(select(&state, "o0").options.len() <= MAX_CHOICES);
        let bytes = serde_json::to_string(&state).unwrap().len();
        assert!(bytes <= MAX_STATE_BYTES, "{bytes} > {MAX_STATE_BYTES}");
        assert_eq!(state.title.unwrap().chars().count(), MAX_LABEL_CHARS);
        // A few commands of ordinary size are all kept.
        let few: Vec<Value> = (0..20)
            .map(|i| json!({"name": format!("c{i}"), "description": "d".repeat(200)}))
            .collect();
        held.apply(&json!({"sessionUpdate": "config_option_update", "configOptions": []}));
        held.apply(
            &json!({"sessionUpdate": "available_commands_update", "availableCommands": few}),
        );
        assert_eq!(held.state(true).commands.len(), 20);
    }
}
