//! The wire helpers every layer uses: a typed ACP message from the JSON the scripts write
//! ([`typed`]) and a session update sent to the client ([`notify`]). A leaf: it names no
//! other module of the crate, so the main loop (`serve`), the turn (`turn`) and the scripts
//! all use it without coming back to one another.

use agent_client_protocol::v1::schema::{SessionNotification, SessionUpdate};
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::{Client, Error};
use serde_json::Value;

/// A typed ACP message from its JSON (the scripts write the wire as ACP documents it).
pub(crate) fn typed<T: serde::de::DeserializeOwned>(value: Value) -> Result<T, Error> {
    serde_json::from_value(value).map_err(|e| Error::internal_error().data(e.to_string()))
}

/// Sends `update` (a `SessionUpdate` as JSON) to the client for `session`.
pub(crate) fn notify(cx: &ConnectionTo<Client>, session: &str, update: Value) -> Result<(), Error> {
    let update: SessionUpdate = serde_json::from_value(update)?;
    cx.send_notification(SessionNotification::new(session.to_owned(), update))
}
