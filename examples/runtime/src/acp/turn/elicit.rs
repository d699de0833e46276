//! The agent's questions to the user (`elicitation/create`): an `acp_elicitation` item in
//! the conversation (saved, streamed), the turn kept running until the user answers
//! (`threads.custom_action` `acp.elicitation_response`: accept with content, decline,
//! cancel), the agent answered, and the item resolved (`acp_elicitation.resolved`). Stop
//! answers every pending one `cancel`; `elicitation/complete` resolves a URL one
//! `complete`.

use super::out::Out;
use super::*;
use crate::acp::error_text;
use agent_client_protocol::v1::schema::{
    CreateElicitationRequest, CreateElicitationResponse, ElicitationAcceptAction,
    ElicitationAction, ElicitationContentValue,
};
use agent_client_protocol::v1::Responder;
use chat_shell_core::protocol::chatkit::{
    AcpElicitationItem, AcpElicitationResolved, ItemKind, ItemUpdate, ItemUpdatedEvent,
};
use chat_shell_core::protocol::decode::Decode;
use serde_json::Value;
use std::collections::BTreeMap;

/// A larger request (its schema, its message) is answered `cancel`, never shown.
pub const MAX_REQUEST_BYTES: usize = 64 * 1024;
/// The largest accepted content (serialized), and its most fields.
pub const MAX_CONTENT_BYTES: usize = 64 * 1024;
pub const MAX_CONTENT_FIELDS: usize = 256;
/// At most this many URL elicitations of a turn wait for `elicitation/complete`.
const MAX_URL_ITEMS: usize = 256;

pub(super) fn cancelled() -> acp::ElicitationOutcome {
    acp::ElicitationOutcome {
        action: "cancel".into(),
        content: None,
    }
}

fn respond_elicitation(
    responder: Responder<CreateElicitationResponse>,
    outcome: &acp::ElicitationOutcome,
) {
    let action = match outcome.action.as_str() {
        "accept" | "complete" => {
            let content = outcome.content.clone().and_then(|map| {
                serde_json::from_value::<BTreeMap<String, ElicitationContentValue>>(Value::Object(
                    map,
                ))
                .ok()
            });
            ElicitationAction::Accept(ElicitationAcceptAction::new().content(content))
        }
        "decline" => ElicitationAction::Decline,
        _ => ElicitationAction::Cancel,
    };
    if let Err(e) = responder.respond(CreateElicitationResponse::new(action)) {
        eprintln!(
            "chat-shell-runtime: cannot answer an elicitation: {}",
            error_text(&e)
        );
    }
}

fn inner<T>(held: std::sync::Mutex<T>) -> T {
    held.into_inner().unwrap_or_else(|e| e.into_inner())
}

impl Out {
    /// The agent asks: an item, waiting for the answer (or `cancel` at once when the
    /// turn is stopping, or the request is unreadable or too large).
    pub(super) async fn elicitation(
        &mut self,
        request: CreateElicitationRequest,
        responder: Responder<CreateElicitationResponse>,
        cancelling: bool,
    ) {
        let json = serde_json::to_value(&request).unwrap_or_default();
        let size = json.to_string().len();
        let decoded = if size <= MAX_REQUEST_BYTES {
            acp::ElicitationRequest::decode(&json).ok()
        } else {
            None
        };
        let Some(decoded) = decoded else {
            eprintln!(
                "chat-shell-runtime: an unreadable or too large elicitation ({size} bytes): cancelled"
            );
            return respond_elicitation(responder, &cancelled());
        };
        if cancelling {
            return respond_elicitation(responder, &cancelled());
        }
        self.close_text().await;
        let url_id = decoded.elicitation_id.clone();
        let item = self.new_item(
            "el",
            ItemKind::AcpElicitation(AcpElicitationItem {
                request: decoded,
                outcome: None,
            }),
        );
        let id = self.add(item).await;
        if let Some(url_id) = url_id {
            if self.url_items.len() < MAX_URL_ITEMS {
                self.url_items.insert(url_id, id.clone());
            }
        }
        self.elicitations
            .insert(id, std::sync::Mutex::new(responder));
    }

    /// Settles item `id` with `outcome`: saved, sent; returns the event.
    pub(super) async fn resolve_elicitation(
        &mut self,
        id: &ItemId,
        outcome: acp::ElicitationOutcome,
    ) -> StreamEvent {
        if let Some(ItemKind::AcpElicitation(e)) = self.items.get_mut(id).map(|i| &mut i.kind) {
            e.outcome = Some(outcome.clone());
        }
        self.save(id).await;
        let event = StreamEvent::ItemUpdated(ItemUpdatedEvent {
            item_id: id.clone(),
            update: ItemUpdate::AcpElicitationResolved(AcpElicitationResolved { outcome }),
        });
        self.emit(event.clone()).await;
        event
    }

    /// The user answered item `id`.
    pub(super) async fn answer_elicitation(
        &mut self,
        id: &ItemId,
        outcome: acp::ElicitationOutcome,
    ) -> Result<Vec<StreamEvent>, Refused> {
        let Some(responder) = self.elicitations.remove(id) else {
            return Err(Refused::NotPending(format!(
                "no elicitation is pending for item {id}"
            )));
        };
        respond_elicitation(inner(responder), &outcome);
        Ok(vec![self.resolve_elicitation(id, outcome).await])
    }

    /// Stop: every pending elicitation is answered `cancel`.
    pub(super) async fn cancel_elicitations(&mut self) {
        for (id, responder) in std::mem::take(&mut self.elicitations) {
            respond_elicitation(inner(responder), &cancelled());
            self.resolve_elicitation(&id, cancelled()).await;
        }
    }

    /// `elicitation/complete`: the URL elicitation `url_id` is done.
    pub(super) async fn elicitation_complete(&mut self, url_id: &str) {
        let Some(id) = self.url_items.remove(url_id) else {
            return;
        };
        let complete = acp::ElicitationOutcome {
            action: "complete".into(),
            content: None,
        };
        if let Some(responder) = self.elicitations.remove(&id) {
            // The agent says it is done: the question is moot.
            respond_elicitation(inner(responder), &complete);
        }
        self.resolve_elicitation(&id, complete).await;
    }
}

/// The answer's outcome, validated: an action the protocol knows, and for `accept` an
/// optional object of bounded size whose values are strings, numbers, booleans or lists
/// of strings.
pub(crate) fn outcome_of(payload: &Value) -> Result<acp::ElicitationOutcome, String> {
    let action = payload
        .get("action")
        .and_then(Value::as_str)
        .ok_or("acp.elicitation_response needs payload.action")?;
    if !matches!(action, "accept" | "decline" | "cancel") {
        return Err("payload.action must be accept, decline or cancel".into());
    }
    let content = match payload.get("content") {
        None | Some(Value::Null) => None,
        Some(Value::Object(_)) if action != "accept" => {
            return Err("only an accepted elicitation has content".into())
        }
        Some(Value::Object(map)) => {
            let size = serde_json::to_string(map).map_or(usize::MAX, |s| s.len());
            if size > MAX_CONTENT_BYTES || map.len() > MAX_CONTENT_FIELDS {
                return Err(format!(
                    "payload.content is over {MAX_CONTENT_BYTES} bytes or {MAX_CONTENT_FIELDS} fields"
                ));
            }
            serde_json::from_value::<BTreeMap<String, ElicitationContentValue>>(Value::Object(
                map.clone(),
            ))
            .map_err(|_| {
                "payload.content's values must be strings, numbers, booleans or lists of strings"
                    .to_owned()
            })?;
            Some(map.clone())
        }
        Some(_) => return Err("payload.content must be an object".into()),
    };
    Ok(acp::ElicitationOutcome {
        action: action.into(),
        content,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn answers_are_validated() {
        let ok = outcome_of(&json!({"action": "accept", "content": {"db": "pg", "n": 2, "ok": true, "tags": ["a"]}})).unwrap();
        assert_eq!(ok.content.unwrap()["db"], "pg");
        assert_eq!(
            outcome_of(&json!({"action": "decline"})).unwrap().action,
            "decline"
        );
        assert!(outcome_of(&json!({"action": "maybe"})).is_err());
        assert!(outcome_of(&json!({})).is_err());
        assert!(outcome_of(&json!({"action": "accept", "content": "x"})).is_err());
        assert!(outcome_of(&json!({"action": "decline", "content": {"a": 1}})).is_err());
        assert!(outcome_of(&json!({"action": "accept", "content": {"a": {"deep": 1}}})).is_err());
        let big = "x".repeat(MAX_CONTENT_BYTES);
        assert!(outcome_of(&json!({"action": "accept", "content": {"a": big}})).is_err());
    }
}
