//! What the scripted agent offers beside the turn: session modes and config options (a
//! refused model, an adjusted thought level, an option added and removed mid-session),
//! slash commands that change, usage that grows, a title, and the elicitation forms.
//! All deterministic, so the tests can say what each step shows.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// The context window the agent reports.
pub const CONTEXT_SIZE: u64 = 200_000;
/// The model the agent refuses to switch to.
pub const LOCKED_MODEL: &str = "scripted-locked";

/// The controls of one session, as the agent holds them (saved with the session).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Controls {
    pub mode: String,
    pub model: String,
    pub thought: String,
    /// The option `options+` adds and `options-` removes: its value while offered.
    pub verbosity: Option<String>,
    /// A boolean option, offered only to clients that take boolean options.
    pub auto_approve: bool,
    /// `commands-` withdrew `web` and added `review`.
    pub commands_changed: bool,
    pub turns: u32,
    pub title: Option<String>,
    pub updated_at: String,
}

impl Default for Controls {
    fn default() -> Self {
        Controls {
            mode: "ask".into(),
            model: "scripted-fast".into(),
            thought: "low".into(),
            verbosity: None,
            auto_approve: false,
            commands_changed: false,
            turns: 0,
            title: None,
            updated_at: now(),
        }
    }
}

const MODES: &[(&str, &str, &str)] = &[
    ("ask", "Ask", "Answers and reads, never writes"),
    ("code", "Code", "Writes files and runs commands"),
];
const MODELS: &[(&str, &str)] = &[
    ("scripted-fast", "Scripted fast"),
    ("scripted-deep", "Scripted deep"),
    (LOCKED_MODEL, "Scripted locked"),
];
const THOUGHT: &[(&str, &str)] = &[("low", "Low"), ("medium", "Medium"), ("high", "High")];
const VERBOSITY: &[(&str, &str)] = &[
    ("terse", "Terse"),
    ("normal", "Normal"),
    ("verbose", "Verbose"),
];

fn select(id: &str, name: &str, category: &str, value: &str, options: &[(&str, &str)]) -> Value {
    let options: Vec<Value> = options
        .iter()
        .map(|(value, name)| json!({"value": value, "name": name}))
        .collect();
    json!({"id": id, "name": name, "category": category, "type": "select",
           "currentValue": value, "options": options})
}

impl Controls {
    /// ACP `configOptions`, the whole set.
    pub fn config_options(&self, booleans: bool) -> Value {
        let modes: Vec<(&str, &str)> = MODES.iter().map(|(id, name, _)| (*id, *name)).collect();
        let mut all = vec![
            select("mode", "Session mode", "mode", &self.mode, &modes),
            select("model", "Model", "model", &self.model, MODELS),
            select(
                "thought_level",
                "Thinking",
                "thought_level",
                &self.thought,
                THOUGHT,
            ),
        ];
        if let Some(v) = &self.verbosity {
            all.push(select("verbosity", "Verbosity", "style", v, VERBOSITY));
        }
        if booleans {
            all.push(
                json!({"id": "auto_approve", "name": "Auto-approve", "type": "boolean",
                            "currentValue": self.auto_approve}),
            );
        }
        Value::Array(all)
    }

    /// ACP `modes` (the older way; the config options above win where a client knows both).
    pub fn modes(&self) -> Value {
        let available: Vec<Value> = MODES
            .iter()
            .map(|(id, name, description)| json!({"id": id, "name": name, "description": description}))
            .collect();
        json!({"currentModeId": self.mode, "availableModes": available})
    }

    /// The fields a `session/new`, `load` or `resume` answer carries besides the id.
    pub fn session_fields(&self, booleans: bool) -> Value {
        json!({"modes": self.modes(), "configOptions": self.config_options(booleans)})
    }

    /// `available_commands_update`: the whole list.
    pub fn commands_update(&self) -> Value {
        let mut commands = vec![];
        if !self.commands_changed {
            commands.push(
                json!({"name": "web", "description": "Search the web", "input": {"hint": "query"}}),
            );
        }
        commands.push(json!({"name": "test", "description": "Run the tests"}));
        commands
            .push(json!({"name": "plan", "description": "Make a plan", "input": {"hint": "goal"}}));
        if self.commands_changed {
            commands.push(json!({"name": "review", "description": "Review the changes"}));
        }
        json!({"sessionUpdate": "available_commands_update", "availableCommands": commands})
    }

    /// `usage_update` after `turns` turns: grows by a fixed step, never past the window.
    pub fn usage_update(&self) -> Value {
        let used = (1_000 + 2_500 * u64::from(self.turns)).min(CONTEXT_SIZE);
        let cost = f64::from(self.turns) / 100.0;
        json!({"sessionUpdate": "usage_update", "used": used, "size": CONTEXT_SIZE,
               "cost": {"amount": cost, "currency": "USD"}})
    }

    pub fn info_update(&self) -> Value {
        json!({"sessionUpdate": "session_info_update", "title": self.title, "updatedAt": self.updated_at})
    }

    /// `session/set_config_option` (and `session/set_mode` as the `mode` option). An
    /// unknown option or value is an error; the locked model is refused; a high thought
    /// level on the fast model is adjusted to medium.
    pub fn set(&mut self, id: &str, value: &Value, booleans: bool) -> Result<(), String> {
        let word = value.as_str();
        let one_of = |options: &[(&str, &str)]| {
            word.filter(|w| options.iter().any(|(v, _)| v == w))
                .map(str::to_owned)
                .ok_or_else(|| format!("`{value}` is not a choice of `{id}`"))
        };
        match id {
            "mode" => {
                let modes: Vec<(&str, &str)> = MODES.iter().map(|(i, n, _)| (*i, *n)).collect();
                self.mode = one_of(&modes)?;
            }
            "model" => {
                let model = one_of(MODELS)?;
                if model == LOCKED_MODEL {
                    return Err(format!("{LOCKED_MODEL} is not available on this plan"));
                }
                self.model = model;
                self.adjust();
            }
            "thought_level" => {
                self.thought = one_of(THOUGHT)?;
                self.adjust();
            }
            "verbosity" if self.verbosity.is_some() => self.verbosity = Some(one_of(VERBOSITY)?),
            "auto_approve" if booleans => {
                self.auto_approve = value
                    .as_bool()
                    .ok_or_else(|| "auto_approve takes true or false".to_owned())?;
            }
            other => return Err(format!("no option `{other}`")),
        }
        Ok(())
    }

    /// The fast model thinks at most at medium.
    fn adjust(&mut self) {
        if self.model == "scripted-fast" && self.thought == "high" {
            self.thought = "medium".into();
        }
    }

    /// A turn ended: counted, dated, and named after the first one.
    pub fn turn_ended(&mut self, prompt: &str) {
        self.turns += 1;
        self.updated_at = now();
        if self.title.is_none() {
            let words: Vec<&str> = prompt.split_whitespace().take(6).collect();
            self.title = Some(if words.is_empty() {
                "Untitled".to_owned()
            } else {
                words.join(" ")
            });
        }
    }
}

/// Now, as ISO 8601 (UTC, seconds), without a date crate.
pub fn now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rest) = (secs / 86_400, secs % 86_400);
    // Civil from days (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// The form `elicit` asks: one property of every kind ACP's schema has, and one it does
/// not (a client must show that one as unsupported).
pub fn project_form() -> Value {
    json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "title": "Project name", "minLength": 1, "maxLength": 40},
            "language": {"type": "string", "title": "Language", "enum": ["rust", "python", "go"]},
            "license": {"type": "string", "title": "License", "oneOf": [
                {"const": "mit", "title": "MIT"}, {"const": "apache-2.0", "title": "Apache 2.0"}]},
            "budget": {"type": "number", "title": "Budget (USD)", "minimum": 0},
            "workers": {"type": "integer", "title": "Workers", "minimum": 1, "maximum": 16},
            "tests": {"type": "boolean", "title": "Write tests", "default": true},
            "features": {"type": "array", "title": "Features",
                         "items": {"type": "string", "enum": ["cli", "web", "db"]}},
            "color": {"type": "color", "title": "Accent colour"}
        },
        "required": ["name", "language"]
    })
}

#[cfg(test)]
mod tests;
