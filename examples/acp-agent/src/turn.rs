//! One turn's context ([`Turn`]) and what every script builds on: streaming text and
//! thoughts, pauses that a cancel cuts short, and tool call updates.

use crate::session::{Cancel, State};
use crate::wire::notify;
use agent_client_protocol::v1::schema::{ClientCapabilities, StopReason};
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::{Client, Error};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::Arc;

/// One turn's context.
pub(crate) struct Turn<'a> {
    pub(crate) state: &'a State,
    pub(crate) cx: &'a ConnectionTo<Client>,
    pub(crate) session: String,
    pub(crate) cwd: PathBuf,
    pub(crate) cancel: Arc<Cancel>,
    pub(crate) client: ClientCapabilities,
    pub(crate) said: String,
    pub(crate) calls: u32,
}

impl Turn<'_> {
    pub(crate) fn update(&self, update: Value) -> Result<(), Error> {
        notify(self.cx, &self.session, update)
    }

    /// Streams `text` word by word; false when cancelled.
    pub(crate) async fn say(&mut self, text: &str) -> Result<bool, Error> {
        for word in text.split_inclusive(' ') {
            if !self.cancel.sleep(self.state.options.pace).await {
                return Ok(false);
            }
            self.said.push_str(word);
            self.update(json!({
                "sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": word}
            }))?;
        }
        Ok(true)
    }

    pub(crate) async fn think(&mut self, text: &str) -> Result<bool, Error> {
        for word in text.split_inclusive(' ') {
            if !self.cancel.sleep(self.state.options.pace).await {
                return Ok(false);
            }
            self.update(json!({
                "sessionUpdate": "agent_thought_chunk",
                "content": {"type": "text", "text": word}
            }))?;
        }
        Ok(true)
    }

    pub(crate) async fn pause(&self) -> bool {
        self.cancel.sleep(self.state.options.pace * 3).await
    }

    pub(crate) fn new_call(&mut self) -> String {
        self.calls += 1;
        format!("call_{}", self.calls)
    }

    /// Announces a tool call (pending); returns its id.
    pub(crate) fn start(&mut self, title: &str, kind: &str, extra: Value) -> Result<String, Error> {
        let id = self.new_call();
        let mut call = json!({
            "sessionUpdate": "tool_call",
            "toolCallId": id,
            "title": title,
            "kind": kind,
            "status": "pending",
        });
        if let (Some(call), Some(extra)) = (call.as_object_mut(), extra.as_object()) {
            call.extend(extra.clone());
        }
        self.update(call)?;
        Ok(id)
    }

    pub(crate) fn set(&self, id: &str, fields: Value) -> Result<(), Error> {
        let mut update = json!({"sessionUpdate": "tool_call_update", "toolCallId": id});
        if let (Some(update), Some(fields)) = (update.as_object_mut(), fields.as_object()) {
            update.extend(fields.clone());
        }
        self.update(update)
    }

    /// A whole tool call: pending, in progress, then `status` with `fields`.
    pub(crate) async fn call(
        &mut self,
        title: &str,
        kind: &str,
        start: Value,
        status: &str,
        end: Value,
    ) -> Result<bool, Error> {
        let id = self.start(title, kind, start)?;
        if !self.pause().await {
            return Ok(false);
        }
        self.set(&id, json!({"status": "in_progress"}))?;
        if !self.pause().await {
            return Ok(false);
        }
        let mut end = end;
        if let Some(end) = end.as_object_mut() {
            end.insert("status".into(), json!(status));
        }
        self.set(&id, end)?;
        Ok(true)
    }

    pub(crate) fn path(&self, relative: &str) -> String {
        self.cwd.join(relative).display().to_string()
    }
}

pub(crate) fn text(s: impl Into<String>) -> Value {
    json!([{"type": "content", "content": {"type": "text", "text": s.into()}}])
}

/// `EndTurn` if the script ran to its end; `Cancelled` if a cancel stopped it.
pub(crate) fn ended(done: bool) -> StopReason {
    if done {
        StopReason::EndTurn
    } else {
        StopReason::Cancelled
    }
}
