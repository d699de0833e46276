//! What the reducer gives back besides the new state: the effects the browser runtime
//! carries out, and warnings.

use crate::host_events::ChatEvent;
use crate::protocol::acp::{PermissionOutcome, ToolCallId};
use crate::protocol::chatkit::{Attachment, ItemId};
use crate::protocol::JsonMap;
use serde_json::Value;

/// A side effect for the runtime to carry out.
#[derive(Clone, Debug, PartialEq)]
pub enum Effect {
    /// Dispatch a `chat.*` event (a DOM `CustomEvent`, and the Leptos callback).
    Emit(ChatEvent),
    /// Run the client tool registered under `name` and send its result back. Comes with
    /// the end of a stream (`StreamEnded`), at most one per stream: the pending calls of a
    /// turn are asked for one after another, in the order they arrived, each by the end of
    /// the stream that answered the previous one's output.
    InvokeClientTool {
        item_id: ItemId,
        call_id: String,
        name: String,
        arguments: Value,
    },
    /// Hand a `client_effect` to the registered handlers; never stored.
    ClientEffect { name: String, data: JsonMap },
    /// Announce a finished answer in the polite live region: its markdown, which the live
    /// region reads as `markdown::announcement` (the plain text of its start). The renderer
    /// makes that text, so the element's first module need not link a markdown parser.
    Announce(String),
    /// The message never reached the server: put its text and attachments back in the
    /// composer so nothing typed is lost.
    RestoreDraft {
        text: String,
        attachments: Vec<Attachment>,
    },
    /// Answer the permission request of this ACP tool call item. For ChatKit, send
    /// `threads.custom_action` with `protocol::chatkit::acp_permission_action` and the
    /// item id (its answer is a stream, like any action). Comes when the user picks an
    /// option, and on Stop with `Cancelled` for every request still asking. The card
    /// shows a `Selected` decision only once the server confirms it.
    AnswerPermission {
        item_id: ItemId,
        tool_call_id: ToolCallId,
        outcome: PermissionOutcome,
    },
}

/// Something surprising that did not stop the stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Warning {
    pub message: String,
    /// The raw payload, when there was one.
    pub raw: Option<String>,
}

/// What one input produced besides the new state.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outcome {
    pub effects: Vec<Effect>,
    pub warnings: Vec<Warning>,
}

impl Outcome {
    pub(crate) fn emit(&mut self, event: ChatEvent) {
        self.effects.push(Effect::Emit(event));
    }

    pub(crate) fn warn(&mut self, message: impl Into<String>, raw: Option<String>) {
        self.warnings.push(Warning {
            message: message.into(),
            raw,
        });
    }
}
