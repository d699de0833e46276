//! Agent Client Protocol (ACP, schema v1) tool calls, plans and permission requests: serde
//! types that mirror ACP's JSON (camelCase), with ACP's own leniency.
//!
//! ACP asks clients to be lenient: an unknown `kind`, `status` or option kind is kept (as
//! `Unknown`, with the server's word) rather than failing the message, invalid list items
//! are skipped, and a missing optional field takes its default. A known tagged type with a
//! broken body (a `diff` without `path`) is still an error on its own; inside a list it is
//! the skipped item, never mistaken for an unknown one.

use super::decode::{self, Decode};
use super::tagged::tolerant_tagged;
use super::Unknown;
use serde::{Serialize, Serializer};
use serde_json::Value;
use std::fmt;

/// A tool call's id, unique within its session (`toolCallId`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Decode)]
#[serde(transparent)]
pub struct ToolCallId(pub String);

/// A permission option's id (`optionId`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Decode)]
#[serde(transparent)]
pub struct PermissionOptionId(pub String);

impl fmt::Display for ToolCallId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for ToolCallId {
    fn from(s: &str) -> Self {
        Self(s.to_owned())
    }
}

impl From<&str> for PermissionOptionId {
    fn from(s: &str) -> Self {
        Self(s.to_owned())
    }
}

/// A string enum whose unknown values are kept (`Unknown(word)`), never an error. A value
/// that is not a string at all is kept as its JSON text.
macro_rules! lenient_enum {
    ($(#[$doc:meta])* $name:ident $(default $default:ident)? { $($(#[$vdoc:meta])* $word:literal => $variant:ident),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vdoc])* $variant,)+
            /// A value this client does not know, as the server sent it.
            Unknown(String),
        }

        impl $name {
            /// The wire word.
            pub fn as_str(&self) -> &str {
                match self {
                    $($name::$variant => $word,)+
                    $name::Unknown(word) => word,
                }
            }
        }

        $(impl Default for $name {
            fn default() -> Self {
                $name::$default
            }
        })?

        impl From<&str> for $name {
            fn from(word: &str) -> Self {
                match word {
                    $($word => $name::$variant,)+
                    other => $name::Unknown(other.to_owned()),
                }
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl Decode for $name {
            fn decode(value: &Value) -> Result<Self, decode::Error> {
                Ok(match value {
                    Value::String(word) => $name::from(word.as_str()),
                    other => $name::Unknown(other.to_string()),
                })
            }
        }

        decode::deserialize_by_decode!($name);
    };
}

lenient_enum!(
    /// What a tool does, for its icon (`kind`; absent means `other`).
    ToolKind default Other {
        "read" => Read,
        "edit" => Edit,
        "delete" => Delete,
        "move" => Move,
        "search" => Search,
        "execute" => Execute,
        "think" => Think,
        "fetch" => Fetch,
        "switch_mode" => SwitchMode,
        "other" => Other,
    }
);

impl ToolKind {
    /// The `data-kind` a view puts on the tool call: the ACP kind, or `other` for a kind
    /// this client does not know.
    pub fn data_kind(&self) -> &str {
        match self {
            ToolKind::Unknown(_) => "other",
            known => known.as_str(),
        }
    }
}

lenient_enum!(
    /// Where a tool call is in its life, as the agent says (`status`; absent means
    /// `pending`). What the client adds (awaiting permission, interrupted, …) is
    /// `reducer::ToolCallState`.
    ToolCallStatus default Pending {
        /// Not started: input still streaming, or awaiting approval.
        "pending" => Pending,
        "in_progress" => InProgress,
        "completed" => Completed,
        "failed" => Failed,
    }
);

impl ToolCallStatus {
    /// Still running as far as the agent said: pending or in progress.
    pub fn is_unfinished(&self) -> bool {
        matches!(self, ToolCallStatus::Pending | ToolCallStatus::InProgress)
    }
}

lenient_enum!(
    /// What choosing a permission option does (`kind`). Only the two `allow_*` kinds are
    /// allows: an unknown kind is neither allow nor reject.
    PermissionOptionKind {
        "allow_once" => AllowOnce,
        "allow_always" => AllowAlways,
        "reject_once" => RejectOnce,
        "reject_always" => RejectAlways,
    }
);

impl PermissionOptionKind {
    pub fn is_allow(&self) -> bool {
        matches!(
            self,
            PermissionOptionKind::AllowOnce | PermissionOptionKind::AllowAlways
        )
    }

    pub fn is_reject(&self) -> bool {
        matches!(
            self,
            PermissionOptionKind::RejectOnce | PermissionOptionKind::RejectAlways
        )
    }

    /// Whether the choice is remembered (`*_always`).
    pub fn is_always(&self) -> bool {
        matches!(
            self,
            PermissionOptionKind::AllowAlways | PermissionOptionKind::RejectAlways
        )
    }

    /// The `data-kind` of an option button: its kind, or `unknown` (styled neutral, never
    /// as an allow).
    pub fn data_kind(&self) -> &str {
        match self {
            PermissionOptionKind::Unknown(_) => "unknown",
            known => known.as_str(),
        }
    }
}

lenient_enum!(
    /// A plan entry's importance.
    PlanEntryPriority default Medium {
        "high" => High,
        "medium" => Medium,
        "low" => Low,
    }
);

lenient_enum!(
    /// Where a plan entry is.
    PlanEntryStatus default Pending {
        "pending" => Pending,
        "in_progress" => InProgress,
        "completed" => Completed,
    }
);

/// A tool call as ACP's `tool_call` session update carries it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct ToolCall {
    pub tool_call_id: ToolCallId,
    #[serde(default, deserialize_with = "lenient_string")]
    pub title: String,
    #[serde(default)]
    pub kind: ToolKind,
    #[serde(default)]
    pub status: ToolCallStatus,
    #[serde(default, deserialize_with = "valid_items")]
    pub content: Vec<ToolCallContent>,
    #[serde(default, deserialize_with = "valid_items")]
    pub locations: Vec<ToolCallLocation>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_input: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_output: Option<Value>,
}

/// ACP's `tool_call_update`: the id plus only the fields that changed. A list replaces the
/// whole list; `null` or absent means "unchanged".
#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallUpdate {
    pub tool_call_id: ToolCallId,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<ToolKind>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<ToolCallStatus>,
    #[serde(
        default,
        deserialize_with = "valid_items_if_any",
        skip_serializing_if = "Option::is_none"
    )]
    pub content: Option<Vec<ToolCallContent>>,
    #[serde(
        default,
        deserialize_with = "valid_items_if_any",
        skip_serializing_if = "Option::is_none"
    )]
    pub locations: Option<Vec<ToolCallLocation>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_input: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_output: Option<Value>,
}

impl ToolCall {
    /// Apply a partial update: each field it carries replaces this one's, lists whole.
    pub fn apply(&mut self, update: ToolCallUpdate) {
        let ToolCallUpdate {
            tool_call_id: _,
            title,
            kind,
            status,
            content,
            locations,
            raw_input,
            raw_output,
        } = update;
        if let Some(title) = title {
            self.title = title;
        }
        if let Some(kind) = kind {
            self.kind = kind;
        }
        if let Some(status) = status {
            self.status = status;
        }
        if let Some(content) = content {
            self.content = content;
        }
        if let Some(locations) = locations {
            self.locations = locations;
        }
        if raw_input.is_some() {
            self.raw_input = raw_input;
        }
        if raw_output.is_some() {
            self.raw_output = raw_output;
        }
    }

    /// A call first seen as an update (an update or a permission request for a call never
    /// announced): the update's fields over ACP's defaults.
    pub fn from_update(update: ToolCallUpdate) -> Self {
        let mut call = ToolCall {
            tool_call_id: update.tool_call_id.clone(),
            ..ToolCall::default()
        };
        call.apply(update);
        call
    }
}

/// What a tool call produced.
#[derive(Clone, Debug, PartialEq)]
pub enum ToolCallContent {
    /// A regular content block (text, image, resource…).
    Content(ContentItem),
    Diff(Diff),
    /// Live output of a client-side terminal.
    Terminal(Terminal),
    Other(Unknown),
}

tolerant_tagged!(ToolCallContent {
    "content" => Content,
    "diff" => Diff,
    "terminal" => Terminal,
});

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct ContentItem {
    pub content: ContentBlock,
}

/// A file change. `old_text: None` (`"oldText": null`, or absent) is a new file: shown as
/// created, not as every line added to an existing one.
#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct Diff {
    pub path: String,
    #[serde(default)]
    pub old_text: Option<String>,
    pub new_text: String,
}

impl Diff {
    pub fn is_new_file(&self) -> bool {
        self.old_text.is_none()
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct Terminal {
    pub terminal_id: String,
}

/// An MCP-style content block, as in ACP messages and tool call content.
#[derive(Clone, Debug, PartialEq)]
pub enum ContentBlock {
    Text(TextBlock),
    Image(ImageBlock),
    Audio(AudioBlock),
    ResourceLink(ResourceLink),
    Resource(EmbeddedResource),
    Other(Unknown),
}

tolerant_tagged!(ContentBlock {
    "text" => Text,
    "image" => Image,
    "audio" => Audio,
    "resource_link" => ResourceLink,
    "resource" => Resource,
});

impl ContentBlock {
    /// The text of a text block (markdown), if it is one.
    pub fn text(&self) -> Option<&str> {
        match self {
            ContentBlock::Text(t) => Some(&t.text),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct TextBlock {
    /// Markdown.
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Value>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct ImageBlock {
    /// Base64.
    pub data: String,
    pub mime_type: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uri: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct AudioBlock {
    pub data: String,
    pub mime_type: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct ResourceLink {
    pub uri: String,
    #[serde(default, deserialize_with = "lenient_string")]
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct EmbeddedResource {
    pub resource: ResourceContents,
}

/// A resource's contents: `text` or base64 `blob`.
#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct ResourceContents {
    pub uri: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blob: Option<String>,
}

/// A file a tool call reads or changes, for follow-along.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Decode)]
pub struct ToolCallLocation {
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
}

impl ToolCallLocation {
    /// `path:line`, or the path alone.
    pub fn label(&self) -> String {
        match self.line {
            Some(line) => format!("{}:{line}", self.path),
            None => self.path.clone(),
        }
    }
}

/// One step of an agent's plan. A `plan` update replaces the whole list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Decode)]
pub struct PlanEntry {
    pub content: String,
    #[serde(default)]
    pub priority: PlanEntryPriority,
    #[serde(default)]
    pub status: PlanEntryStatus,
}

/// ACP's `plan` session update.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Decode)]
pub struct Plan {
    #[serde(default, deserialize_with = "valid_items")]
    pub entries: Vec<PlanEntry>,
}

/// One answer a permission request offers: `name` is the label to show.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct PermissionOption {
    pub option_id: PermissionOptionId,
    pub name: String,
    pub kind: PermissionOptionKind,
}

/// `session/request_permission` params: the call it is about (what it would run or
/// change) and the answers offered. `sessionId` is kept when sent, not required.
#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct RequestPermission {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    pub tool_call: ToolCallUpdate,
    #[serde(default, deserialize_with = "valid_items")]
    pub options: Vec<PermissionOption>,
}

/// The answer to a permission request: `{"outcome": "selected", "optionId": …}` or
/// `{"outcome": "cancelled"}` (what every pending request gets when the turn is stopped).
#[derive(Clone, Debug, PartialEq)]
pub enum PermissionOutcome {
    Selected {
        option_id: PermissionOptionId,
    },
    Cancelled,
    /// An outcome this client does not know: decided, but not as anything it can show.
    Other(Unknown),
}

impl Serialize for PermissionOutcome {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            PermissionOutcome::Selected { option_id } => {
                serde_json::json!({"outcome": "selected", "optionId": option_id}).serialize(s)
            }
            PermissionOutcome::Cancelled => {
                serde_json::json!({"outcome": "cancelled"}).serialize(s)
            }
            PermissionOutcome::Other(u) => u.0.serialize(s),
        }
    }
}

impl Decode for PermissionOutcome {
    fn decode(value: &Value) -> Result<Self, decode::Error> {
        match value.get("outcome").and_then(Value::as_str) {
            Some("cancelled") => Ok(PermissionOutcome::Cancelled),
            Some("selected") => match value.get("optionId").and_then(Value::as_str) {
                Some(id) => Ok(PermissionOutcome::Selected {
                    option_id: PermissionOptionId(id.to_owned()),
                }),
                None => Err(decode::Error::new("`selected` outcome without `optionId`")),
            },
            _ => Ok(PermissionOutcome::Other(Unknown(value.clone()))),
        }
    }
}

decode::deserialize_by_decode!(PermissionOutcome);

/// ACP's `RequestPermissionResponse`: `{"outcome": {…}}`.
#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct PermissionResponse {
    pub outcome: PermissionOutcome,
}

/// A string field that defaults when it is anything but a string (ACP leniency).
fn lenient_string(value: &Value) -> Result<String, decode::Error> {
    Ok(value.as_str().unwrap_or_default().to_owned())
}

/// A list of objects whose invalid items (a non-object included) are skipped; `null` or
/// a non-list is empty.
pub(crate) fn valid_items<T: Decode>(value: &Value) -> Result<Vec<T>, decode::Error> {
    Ok(valid_items_if_any(value)?.unwrap_or_default())
}

/// Like [`valid_items`], but `null` (or a non-list) is `None`: "unchanged" in an update.
fn valid_items_if_any<T: Decode>(value: &Value) -> Result<Option<Vec<T>>, decode::Error> {
    Ok(value.as_array().map(|items| {
        items
            .iter()
            .filter(|item| item.is_object())
            .filter_map(|item| T::decode(item).ok())
            .collect()
    }))
}

/// ACP's `elicitation/create` params. The schema is kept as sent: the core reads it into
/// form fields (`model::form`), an unknown property type shown as unsupported.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct ElicitationRequest {
    #[serde(default, deserialize_with = "lenient_string")]
    pub message: String,
    /// `form` or `url` (another word is kept and shown as unsupported).
    #[serde(default, deserialize_with = "lenient_string")]
    pub mode: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requested_schema: Option<Value>,
    /// `mode: "url"`: the page to open.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation_id: Option<String>,
}

/// How an elicitation ended: ACP's `action` (`accept`, `decline`, `cancel`), the
/// accepted `content`; `complete` when the agent said a URL elicitation is done.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
pub struct ElicitationOutcome {
    pub action: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<crate::JsonMap>,
}

#[cfg(test)]
mod tests;
