//! One ACP turn: a user message becomes `session/prompt`, its `session/update`s become
//! ChatKit events (saved, then sent to the thread's channels and to the client that asked,
//! as they come), its permission requests become permission cards;
//! `threads.cancel_run`, a crash or the end of the turn close it. The turn is its thread's
//! run (`runs`): its client leaving does not stop it, unless another run of the thread was
//! under way when it started (it is then tied to its request, as every turn was before).
//!
//! `start` takes the request that begins a turn; `prompt` makes the user message what the
//! agent is asked; `drive` runs the turn, `updates` turns what the agent says into items,
//! `elicit` its questions, `out` saves and sends them; `answer` hands the user's answers to
//! the running turn. This file is what they all share: the pace, the frames, the commands.

mod answer;
mod drive;
mod elicit;
mod out;
mod prompt;
mod start;
mod updates;

pub(crate) use start::stream;

use agent_client_protocol::v1::schema::StopReason;
use axum::body::{Body, Bytes};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use chat_shell_core::protocol::acp;
use chat_shell_core::protocol::chatkit::{ErrorEvent, ItemId, StreamEvent};
use std::time::Duration;
use tokio::sync::oneshot;

/// A silent stream gets a keepalive comment this often (a permission may wait for long).
const KEEPALIVE: Duration = Duration::from_secs(10);
/// Text and thought deltas are saved at most this often.
const FLUSH_EVERY: Duration = Duration::from_millis(250);
/// A running command's output is put into its tool call at most this often.
const TERMINAL_EVERY: Duration = Duration::from_millis(250);
/// After `session/cancel`, the agent has this long to end its turn.
const CANCEL_GRACE: Duration = Duration::from_secs(10);
/// The thread metadata key holding the ACP session id.
pub const SESSION_KEY: &str = "acp_session_id";

type Frame = Result<Bytes, std::io::Error>;

/// What the HTTP side asks of a running turn.
pub(crate) enum Command {
    /// The user's answer to a permission request: the events that confirm it, or why not.
    Answer {
        tool_call_id: String,
        outcome: acp::PermissionOutcome,
        reply: oneshot::Sender<Result<Vec<StreamEvent>, Refused>>,
    },
    /// The user's answer to an elicitation (item `item`).
    Elicit {
        item: ItemId,
        outcome: acp::ElicitationOutcome,
        reply: oneshot::Sender<Result<Vec<StreamEvent>, Refused>>,
    },
}

/// Why an answer was not passed on.
pub(crate) enum Refused {
    /// Nothing asks for it (any more).
    NotPending(String),
    /// Not an answer to what is asked.
    Invalid(String),
}

/// How a turn ended.
enum Ended {
    Stop(StopReason),
    Failed { code: &'static str, message: String },
}

fn sse(body: Body) -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

fn frame(event: &StreamEvent) -> Option<Bytes> {
    match serde_json::to_string(event) {
        Ok(json) => Some(Bytes::from(format!("data: {json}\n\n"))),
        Err(e) => {
            eprintln!("chat-shell-runtime: cannot serialize an event: {e}");
            None
        }
    }
}

/// A reply that is one error event: an answer the turn cannot take.
fn stream_error(message: String) -> Response {
    fixed_stream(&[StreamEvent::Error(ErrorEvent {
        code: "stream.error".into(),
        message: Some(message),
        allow_retry: false,
    })])
}

fn fixed_stream(events: &[StreamEvent]) -> Response {
    let body: Vec<u8> = events
        .iter()
        .filter_map(frame)
        .flat_map(|b| b.to_vec())
        .collect();
    sse(Body::from(body))
}
