//! The host's options as one typed value, whichever way they arrive: attributes (text,
//! parsed leniently: a broken value falls back to the default and says why), `setOptions`
//! and the `options` property (JSON values, checked strictly: a wrong type is an error that
//! names the key, and a rejected call changes nothing), or the Leptos component's props.
//! Each arrives as a [`Setting`]; [`Options::set`] is the only way one takes effect.
//! Options that are functions (headers, fetch, the registries) live in the browser half.

use crate::attachments::{parse_accept, parse_count, parse_size, AttachmentLimits};
use crate::composer_choice::{parse_models, parse_tools, ModelOption, ToolOption};
use crate::protocol::decode::Decode;
use crate::protocol::JsonMap;
use crate::sse::DEFAULT_MAX_EVENT_BYTES;
use serde::Serialize;
use serde_json::{json, Value};

/// One suggestion on the start screen: clicking it sends `prompt` as the first message.
#[derive(Clone, Debug, PartialEq, Eq, Decode, Serialize)]
pub struct StarterPrompt {
    /// What the button shows (falls back to the prompt).
    #[serde(default)]
    pub title: String,
    pub prompt: String,
    /// An emoji or short symbol shown before the title, or an image URL.
    #[serde(default)]
    pub icon: Option<String>,
}

/// Seconds a stream may stay silent before it is aborted, when the host sets nothing.
pub const DEFAULT_STREAM_TIMEOUT_SECS: f64 = 60.0;

/// Every plain (non-function) option of one chat, as the runtime applies it.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    pub endpoint: String,
    /// The wire format the endpoint speaks.
    pub protocol: Protocol,
    /// Seconds a stream (or a response that has not started) may stay silent.
    pub stream_timeout_secs: f64,
    /// The largest SSE line or event accepted; past it the answer ends with an error.
    pub max_event_bytes: usize,
    /// The start screen's greeting; `None`: the strings table's.
    pub greeting: Option<String>,
    /// The composer's placeholder; `None`: the strings table's.
    pub placeholder: Option<String>,
    pub starter_prompts: Vec<StarterPrompt>,
    pub locale: String,
    /// Per-string overrides (`{"send": "Go", "fr": {…}}`), `Null` for none.
    pub strings: Value,
    /// Sent as `metadata` with every request.
    pub metadata: Option<JsonMap>,
    pub attachments_enabled: bool,
    pub attachment_limits: AttachmentLimits,
    pub resizable: bool,
    /// Ask the server for the agent session's controls before a new chat's first message
    /// (`acp.session.get` with no thread). Without it, they show once a thread's channel
    /// brings them.
    pub session_controls: bool,
    /// `localStorage` key for the size the user gave; empty: not remembered.
    pub persist_size: String,
    /// As the host gave it (`"dark"` or `{colorScheme, accent, variables}`); `Null`: none.
    pub theme: Value,
    /// ChatKit's model picker (`composer.models`); empty: none shown.
    pub composer_models: Vec<ModelOption>,
    /// ChatKit's tool menu (`composer.tools`); empty: none shown.
    pub composer_tools: Vec<ToolOption>,
    /// The composer's microphone (`composer.dictation.enabled`): recorded audio goes to
    /// `input.transcribe` and its text into the draft.
    pub composer_dictation: bool,
    /// The longest message the server takes, in characters (`composer.maxLength`): a
    /// longer draft says so and is not sent. `None`: no limit known.
    pub composer_max_length: Option<usize>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            endpoint: String::new(),
            protocol: Protocol::default(),
            stream_timeout_secs: DEFAULT_STREAM_TIMEOUT_SECS,
            max_event_bytes: DEFAULT_MAX_EVENT_BYTES,
            greeting: None,
            placeholder: None,
            starter_prompts: Vec::new(),
            locale: "en".to_owned(),
            strings: Value::Null,
            metadata: None,
            attachments_enabled: true,
            attachment_limits: AttachmentLimits::default(),
            resizable: false,
            session_controls: false,
            persist_size: String::new(),
            theme: Value::Null,
            composer_models: Vec::new(),
            composer_tools: Vec::new(),
            composer_dictation: false,
            composer_max_length: None,
        }
    }
}

/// The wire format of the endpoint (attribute and option `protocol`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Protocol {
    /// ChatKit requests and stream events (`protocol::chatkit`), with chat-shell's
    /// documented extension items.
    #[default]
    ChatKit,
    /// The SSE event envelope (`protocol::events`): `EventsRequest` bodies, envelopes
    /// mapped by `EventsAdapter`. No server threads: history, retry and attachments are
    /// ChatKit's.
    Events,
    /// The Agent UI event envelope (`protocol::agent_ui`): `EventsRequest` bodies,
    /// envelopes ordered and mapped by `AgentUiAdapter`; controlled writes go in
    /// `metadata.agentUi`.
    AgentUi,
    /// AG-UI (`protocol::ag_ui`): a `RunAgentInput` per run holding the whole
    /// conversation, events mapped by `AgUiAdapter`. No server threads: the conversation
    /// is kept in the browser (or by the host's `threads` option).
    AgUi,
}

impl Protocol {
    /// `chatkit`, `events`, `agent-ui` or `ag-ui`; anything else is `None`.
    pub fn parse(name: &str) -> Option<Self> {
        match name.trim().to_ascii_lowercase().as_str() {
            "chatkit" => Some(Protocol::ChatKit),
            "events" => Some(Protocol::Events),
            "agent-ui" => Some(Protocol::AgentUi),
            "ag-ui" => Some(Protocol::AgUi),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Protocol::ChatKit => "chatkit",
            Protocol::Events => "events",
            Protocol::AgentUi => "agent-ui",
            Protocol::AgUi => "ag-ui",
        }
    }
}

/// One change to [`Options`]. `None` restores that option's default.
#[derive(Clone, Debug, PartialEq)]
pub enum Setting {
    Endpoint(Option<String>),
    Protocol(Option<Protocol>),
    StreamTimeout(Option<f64>),
    MaxEventBytes(Option<usize>),
    Greeting(Option<String>),
    Placeholder(Option<String>),
    StarterPrompts(Vec<StarterPrompt>),
    Locale(Option<String>),
    Strings(Value),
    Metadata(Option<JsonMap>),
    AttachmentsEnabled(Option<bool>),
    Accept(Option<Vec<String>>),
    MaxAttachmentSize(Option<u64>),
    MaxAttachments(Option<usize>),
    Resizable(Option<bool>),
    SessionControls(Option<bool>),
    PersistSize(Option<String>),
    Theme(Value),
    ComposerModels(Vec<ModelOption>),
    ComposerTools(Vec<ToolOption>),
    ComposerDictation(Option<bool>),
    ComposerMaxLength(Option<usize>),
}

/// The attributes `<chat-shell>` reads, each mapped onto a [`Setting`]. (`theme` is not
/// among them: the stylesheet reads that attribute itself.)
pub const ATTRIBUTES: &[&str] = &[
    "endpoint",
    "protocol",
    "stream-timeout",
    "greeting",
    "placeholder",
    "starter-prompts",
    "locale",
    "metadata",
    "allow-attachments",
    "accept",
    "max-attachment-size",
    "max-attachments",
    "resizable",
    "session-controls",
    "persist-size",
    "max-length",
];

/// A `setOptions` value of the wrong type: the message names the key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionError(pub String);

impl Options {
    /// Take `setting` (an absent value restores its default).
    pub fn set(&mut self, setting: Setting) {
        let defaults = AttachmentLimits::default();
        match setting {
            Setting::Endpoint(v) => self.endpoint = v.unwrap_or_default(),
            Setting::Protocol(v) => self.protocol = v.unwrap_or_default(),
            Setting::StreamTimeout(v) => {
                self.stream_timeout_secs = v.unwrap_or(DEFAULT_STREAM_TIMEOUT_SECS)
            }
            Setting::MaxEventBytes(v) => {
                self.max_event_bytes = v.unwrap_or(DEFAULT_MAX_EVENT_BYTES)
            }
            Setting::Greeting(v) => self.greeting = v.filter(|t| !t.trim().is_empty()),
            Setting::Placeholder(v) => self.placeholder = v,
            Setting::StarterPrompts(v) => self.starter_prompts = v,
            Setting::Locale(v) => self.locale = v.unwrap_or_else(|| "en".to_owned()),
            Setting::Strings(v) => self.strings = v,
            Setting::Metadata(v) => self.metadata = v,
            Setting::AttachmentsEnabled(v) => self.attachments_enabled = v.unwrap_or(true),
            Setting::Accept(v) => {
                self.attachment_limits.accept = v.unwrap_or(defaults.accept);
            }
            Setting::MaxAttachmentSize(v) => {
                self.attachment_limits.max_size = v.unwrap_or(defaults.max_size);
            }
            Setting::MaxAttachments(v) => {
                self.attachment_limits.max_count = v.unwrap_or(defaults.max_count);
            }
            Setting::Resizable(v) => self.resizable = v.unwrap_or(false),
            Setting::SessionControls(v) => self.session_controls = v.unwrap_or(false),
            Setting::PersistSize(v) => self.persist_size = v.unwrap_or_default(),
            Setting::Theme(v) => self.theme = v,
            Setting::ComposerModels(v) => self.composer_models = v,
            Setting::ComposerTools(v) => self.composer_tools = v,
            Setting::ComposerDictation(v) => self.composer_dictation = v.unwrap_or(false),
            Setting::ComposerMaxLength(v) => self.composer_max_length = v,
        }
    }

    /// The stall timeout in milliseconds.
    pub fn stream_timeout_ms(&self) -> u32 {
        (self.stream_timeout_secs * 1000.0).clamp(1.0, u32::MAX as f64) as u32
    }

    /// What the `options` property reads back: the plain options under their option names.
    pub fn to_json(&self) -> Value {
        let limits = &self.attachment_limits;
        json!({
            "endpoint": self.endpoint,
            "protocol": self.protocol.name(),
            "streamTimeout": self.stream_timeout_secs,
            "maxEventBytes": self.max_event_bytes,
            "greeting": self.greeting,
            "placeholder": self.placeholder,
            "starterPrompts": self.starter_prompts,
            "locale": self.locale,
            "strings": self.strings,
            "metadata": self.metadata,
            "attachments": {
                "enabled": self.attachments_enabled,
                "accept": limits.accept,
                "maxSize": limits.max_size,
                "maxCount": limits.max_count,
            },
            "resizable": self.resizable,
            "sessionControls": self.session_controls,
            "persistSize": self.persist_size,
            "theme": self.theme,
            "composer": {
                "models": self.composer_models,
                "tools": self.composer_tools,
                "dictation": {"enabled": self.composer_dictation},
                "maxLength": self.composer_max_length,
            },
        })
    }
}

impl Setting {
    /// An attribute's text (`None`: removed) as a setting, with a warning when the text
    /// could not be read and the default is used instead. `None` for other attributes.
    pub fn from_attribute(name: &str, value: Option<&str>) -> Option<(Setting, Option<String>)> {
        let text = value.map(str::trim);
        let mut warning = None;
        // A value that is there but unreadable falls back to the default, with a warning.
        let mut lenient = |parsed: Option<f64>, what: &str| {
            if parsed.is_none() && text.is_some_and(|t| !t.is_empty()) {
                warning = Some(format!("{name} must be {what}; using the default"));
            }
            parsed
        };
        let number = |min: f64| {
            text.and_then(crate::number::parse)
                .filter(|n| n.is_finite() && *n >= min)
        };
        let setting = match name {
            "endpoint" => Setting::Endpoint(value.map(str::to_owned)),
            "protocol" => Setting::Protocol(text.and_then(|t| {
                let parsed = Protocol::parse(t);
                if parsed.is_none() && !t.is_empty() {
                    warning =
                        Some("protocol must be `chatkit` or `events`; using `chatkit`".into());
                }
                parsed
            })),
            "stream-timeout" => Setting::StreamTimeout(lenient(
                number(f64::MIN_POSITIVE),
                "a number of seconds above 0",
            )),
            "greeting" => Setting::Greeting(value.map(str::to_owned)),
            "placeholder" => Setting::Placeholder(value.map(str::to_owned)),
            "starter-prompts" => Setting::StarterPrompts(
                parse_starter_prompts(value.unwrap_or("")).unwrap_or_else(|e| {
                    warning = Some(e);
                    Vec::new()
                }),
            ),
            "locale" => Setting::Locale(text.filter(|t| !t.is_empty()).map(str::to_owned)),
            "metadata" => {
                Setting::Metadata(parse_metadata(value.unwrap_or("")).unwrap_or_else(|e| {
                    warning = Some(e);
                    None
                }))
            }
            // `false` turns attachments off; present or absent otherwise means on.
            "allow-attachments" => Setting::AttachmentsEnabled(text.map(|t| t != "false")),
            "accept" => Setting::Accept(text.map(parse_accept)),
            "max-attachment-size" => Setting::MaxAttachmentSize(
                lenient(text.and_then(parse_size).map(|n| n as f64), "a byte count")
                    .map(|n| n as u64),
            ),
            "max-attachments" => Setting::MaxAttachments(
                lenient(text.and_then(parse_count).map(|n| n as f64), "a count")
                    .map(|n| n as usize),
            ),
            // A boolean attribute: present (any value but "false") means on.
            "resizable" => Setting::Resizable(text.map(|t| t != "false")),
            "session-controls" => Setting::SessionControls(text.map(|t| t != "false")),
            "persist-size" => Setting::PersistSize(value.map(str::to_owned)),
            "max-length" => Setting::ComposerMaxLength(
                lenient(text.and_then(parse_count).map(|n| n as f64), "a count")
                    .map(|n| n as usize),
            ),
            _ => return None,
        };
        Some((setting, warning))
    }

    /// One `setOptions` key and its JSON value as settings; `null` restores the default.
    /// `Ok(vec![])` for keys that are not plain options (functions, unknown keys).
    pub fn from_option(key: &str, value: &Value) -> Result<Vec<Setting>, OptionError> {
        let wrong = |what: &str| OptionError(format!("option `{key}` must be {what}"));
        let string = || match value {
            Value::Null => Ok(None),
            Value::String(s) => Ok(Some(s.clone())),
            _ => Err(wrong("a string")),
        };
        let boolean = || match value {
            Value::Null => Ok(None),
            Value::Bool(b) => Ok(Some(*b)),
            _ => Err(wrong("a boolean")),
        };
        let one = |s: Setting| Ok(vec![s]);
        match key {
            "endpoint" => one(Setting::Endpoint(string()?)),
            "protocol" => match string()? {
                None => one(Setting::Protocol(None)),
                Some(name) => match Protocol::parse(&name) {
                    Some(p) => one(Setting::Protocol(Some(p))),
                    None => Err(wrong("`chatkit` or `events`")),
                },
            },
            "streamTimeout" => match value {
                Value::Null => one(Setting::StreamTimeout(None)),
                Value::Number(n) if n.as_f64().is_some_and(|s| s > 0.0) => {
                    one(Setting::StreamTimeout(n.as_f64()))
                }
                _ => Err(wrong("a number of seconds above 0")),
            },
            "maxEventBytes" => match value {
                Value::Null => one(Setting::MaxEventBytes(None)),
                Value::Number(n) if n.as_u64().is_some_and(|n| n >= 1024) => {
                    one(Setting::MaxEventBytes(n.as_u64().map(|n| n as usize)))
                }
                _ => Err(wrong("a byte count of at least 1024")),
            },
            "greeting" => one(Setting::Greeting(string()?)),
            "placeholder" => one(Setting::Placeholder(string()?)),
            "starterPrompts" => match value {
                Value::Null => one(Setting::StarterPrompts(Vec::new())),
                Value::Array(_) => one(Setting::StarterPrompts(
                    parse_starter_prompts(&value.to_string()).map_err(|e| wrong(&e))?,
                )),
                _ => Err(wrong("an array of {title, prompt, icon}")),
            },
            "locale" => one(Setting::Locale(string()?)),
            "strings" => match value {
                Value::Null | Value::Object(_) => one(Setting::Strings(value.clone())),
                _ => Err(wrong("an object")),
            },
            "metadata" => match value {
                Value::Null => one(Setting::Metadata(None)),
                Value::Object(map) => one(Setting::Metadata(Some(map.clone()))),
                _ => Err(wrong("an object")),
            },
            "attachments" => attachment_settings(value).map_err(|e| wrong(&e)),
            "composer" => composer_settings(value).map_err(|e| wrong(&e)),
            "resizable" => one(Setting::Resizable(boolean()?)),
            "sessionControls" => one(Setting::SessionControls(boolean()?)),
            "persistSize" => one(Setting::PersistSize(string()?)),
            "theme" => match value {
                Value::Null | Value::String(_) | Value::Object(_) => {
                    one(Setting::Theme(value.clone()))
                }
                _ => Err(wrong("a string or an object")),
            },
            _ => Ok(Vec::new()),
        }
    }
}

/// `attachments: {enabled, accept, maxSize, maxCount}`; `null` resets all four.
fn attachment_settings(value: &Value) -> Result<Vec<Setting>, String> {
    let all_defaults = || {
        vec![
            Setting::AttachmentsEnabled(None),
            Setting::Accept(None),
            Setting::MaxAttachmentSize(None),
            Setting::MaxAttachments(None),
        ]
    };
    let map = match value {
        Value::Null => return Ok(all_defaults()),
        Value::Object(map) => map,
        _ => return Err("an object {enabled, accept, maxSize, maxCount}".into()),
    };
    let mut out = Vec::new();
    for (key, v) in map {
        let setting = match (key.as_str(), v) {
            ("enabled", Value::Null) => Setting::AttachmentsEnabled(None),
            ("enabled", Value::Bool(b)) => Setting::AttachmentsEnabled(Some(*b)),
            ("accept", Value::Null) => Setting::Accept(None),
            ("accept", Value::String(s)) => Setting::Accept(Some(parse_accept(s))),
            ("accept", Value::Array(list)) if list.iter().all(Value::is_string) => {
                let joined: Vec<&str> = list.iter().filter_map(Value::as_str).collect();
                Setting::Accept(Some(parse_accept(&joined.join(","))))
            }
            ("maxSize", Value::Null) => Setting::MaxAttachmentSize(None),
            ("maxSize", Value::Number(n)) if n.as_f64().is_some_and(|n| n >= 1.0) => {
                Setting::MaxAttachmentSize(n.as_f64().map(|n| n as u64))
            }
            ("maxCount", Value::Null) => Setting::MaxAttachments(None),
            ("maxCount", Value::Number(n)) if n.as_u64().is_some_and(|n| n >= 1) => {
                Setting::MaxAttachments(n.as_u64().map(|n| n as usize))
            }
            ("enabled", _) => return Err("`enabled` must be a boolean".into()),
            ("accept", _) => return Err("`accept` must be a string or strings".into()),
            ("maxSize", _) => return Err("`maxSize` must be a byte count".into()),
            ("maxCount", _) => return Err("`maxCount` must be a whole number above 0".into()),
            _ => continue,
        };
        out.push(setting);
    }
    Ok(out)
}

/// `composer: {models, tools, dictation: {enabled}}` (chatkit-js's names; its other keys
/// are options of their own here and ignored); `null` removes all three.
fn composer_settings(value: &Value) -> Result<Vec<Setting>, String> {
    let map = match value {
        Value::Null => {
            return Ok(vec![
                Setting::ComposerModels(Vec::new()),
                Setting::ComposerTools(Vec::new()),
                Setting::ComposerDictation(None),
                Setting::ComposerMaxLength(None),
            ])
        }
        Value::Object(map) => map,
        _ => return Err("an object {models, tools, dictation}".into()),
    };
    let mut out = Vec::new();
    if let Some(models) = map.get("models") {
        out.push(Setting::ComposerModels(parse_models(models)?));
    }
    if let Some(tools) = map.get("tools") {
        out.push(Setting::ComposerTools(parse_tools(tools)?));
    }
    if let Some(dictation) = map.get("dictation") {
        out.push(Setting::ComposerDictation(parse_dictation(dictation)?));
    }
    match map.get("maxLength") {
        None => {}
        Some(Value::Null) => out.push(Setting::ComposerMaxLength(None)),
        Some(n) => match n.as_u64().filter(|n| *n >= 1) {
            Some(n) => out.push(Setting::ComposerMaxLength(Some(n as usize))),
            None => return Err("`maxLength` must be a whole number above 0".into()),
        },
    }
    Ok(out)
}

/// `dictation: {enabled}`; `null` (or no `enabled`) turns the microphone off.
fn parse_dictation(value: &Value) -> Result<Option<bool>, String> {
    let enabled = match value {
        Value::Null => return Ok(None),
        Value::Object(map) => map.get("enabled").unwrap_or(&Value::Null),
        _ => return Err("`dictation` must be an object {enabled}".into()),
    };
    match enabled {
        Value::Null => Ok(None),
        Value::Bool(b) => Ok(Some(*b)),
        _ => Err("`dictation.enabled` must be a boolean".into()),
    }
}

/// The starter prompts from JSON: `[{"title": …, "prompt": …, "icon": …}]`. Entries
/// without a prompt are skipped; a value that is not such a list is an error (the caller
/// shows none and logs it).
pub fn parse_starter_prompts(json: &str) -> Result<Vec<StarterPrompt>, String> {
    if json.trim().is_empty() {
        return Ok(Vec::new());
    }
    let value: Value =
        serde_json::from_str(json).map_err(|e| format!("starter-prompts is not JSON: {e}"))?;
    let Value::Array(entries) = value else {
        return Err("starter-prompts must be a JSON array of {title, prompt, icon}".into());
    };
    Ok(entries
        .iter()
        .filter_map(|entry| StarterPrompt::decode(entry).ok())
        .filter(|p| !p.prompt.trim().is_empty())
        .map(|mut p| {
            if p.title.trim().is_empty() {
                p.title = p.prompt.clone();
            }
            p.icon = p.icon.filter(|i| !i.trim().is_empty());
            p
        })
        .collect())
}

/// The metadata object from JSON; blank means none. Anything but an object is an error.
pub fn parse_metadata(json: &str) -> Result<Option<JsonMap>, String> {
    if json.trim().is_empty() {
        return Ok(None);
    }
    match serde_json::from_str::<Value>(json) {
        Ok(Value::Object(map)) => Ok(Some(map)),
        Ok(_) => Err("metadata must be a JSON object".into()),
        Err(e) => Err(format!("metadata is not JSON: {e}")),
    }
}

/// The configured metadata with a message's own on top (its keys win).
pub fn merge_metadata(base: Option<&JsonMap>, message: Option<&JsonMap>) -> Option<JsonMap> {
    match (base, message) {
        (None, None) => None,
        (Some(b), None) => Some(b.clone()),
        (None, Some(m)) => Some(m.clone()),
        (Some(b), Some(m)) => {
            let mut merged = b.clone();
            merged.extend(m.iter().map(|(k, v)| (k.clone(), v.clone())));
            Some(merged)
        }
    }
}

#[cfg(test)]
mod tests;
