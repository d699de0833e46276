//! One ACP turn: a user message becomes `session/prompt`, its `session/update`s become
//! ChatKit events (saved, then sent to the thread's channels and to the client that asked,
//! as they come), its permission requests become permission cards;
//! `threads.cancel_run`, a crash or the end of the turn close it. The turn is its thread's
//! run (`runs`): its client leaving does not stop it, unless another run of the thread was
//! under way when it started (it is then tied to its request, as every turn was before).
//!
//! `drive` runs the turn, `updates` turns what the agent says into items, `out` saves and
//! sends them.

mod drive;
mod elicit;
mod out;
mod updates;

use drive::*;
use out::*;

use super::files;
use super::{Bridge, Workspace};
use crate::auth::User;
use crate::errors;
use crate::handlers::items::user_message;
use crate::state::AppState;
use crate::store::{self, UserStore};
use agent_client_protocol::v1::schema::{
    ContentBlock as AcpBlock, PromptCapabilities, StopReason, TextContent,
};
use axum::body::{Body, Bytes};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use chat_shell_core::protocol::acp;
use chat_shell_core::protocol::chatkit::{
    ErrorEvent, ItemEvent, ItemId, ItemKind, Page, RequestBody, StreamEvent, Thread, ThreadEvent,
    ThreadId, ThreadItem, UserContent, UserMessageInput, ACP_ELICITATION_ACTION,
    ACP_PERMISSION_ACTION,
};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

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

/// Hands an answer (a permission's, an elicitation's) to the thread's running turn and
/// waits up to 10 s for what the turn emitted: the answer's stream, or the refusal of an
/// invalid one. `Err(why)`: no turn is waiting for it (the caller settles what still asks).
async fn answer_turn(
    bridge: &Bridge,
    thread_id: &str,
    command: impl FnOnce(oneshot::Sender<Result<Vec<StreamEvent>, Refused>>) -> Command,
    error: impl FnOnce(String) -> Response,
) -> Result<Response, String> {
    let mut why = "the agent's turn has ended".to_owned();
    if let Some(turn) = bridge.slot(thread_id, |s| s.turn.clone()) {
        let (reply_tx, reply_rx) = oneshot::channel();
        if turn.send(command(reply_tx)).is_ok() {
            match tokio::time::timeout(Duration::from_secs(10), reply_rx).await {
                Ok(Ok(Ok(events))) => return Ok(fixed_stream(&events)),
                Ok(Ok(Err(Refused::Invalid(e)))) => return Ok(error(e)),
                Ok(Ok(Err(Refused::NotPending(e)))) => why = e,
                _ => {}
            }
        }
    }
    Err(why)
}

/// A reply that is one error event: an answer the turn cannot take.
fn stream_error(message: String) -> Response {
    fixed_stream(&[StreamEvent::Error(ErrorEvent {
        code: "stream.error".into(),
        message: Some(message),
        allow_retry: false,
    })])
}

/// The user's thread and, when named, its item. `Err` is the reply to send: an empty
/// stream for a thread that is not theirs (the same as for one that does not exist), or
/// the store's failure.
async fn owned_item(
    state: &AppState,
    user: &User,
    thread_id: &ThreadId,
    item_id: Option<&ItemId>,
) -> Result<(Thread, Option<ThreadItem>), Response> {
    let (id, item) = (thread_id.clone(), item_id.cloned());
    let owned = state
        .db(user, move |db| {
            let thread = db.thread(&id)?;
            let item = match (&thread, &item) {
                (Some(_), Some(item)) => db.item(&id, item)?,
                _ => None,
            };
            Ok((thread, item))
        })
        .await?;
    match owned {
        (Some(thread), item) => Ok((thread, item)),
        (None, _) => Err(sse(Body::empty())),
    }
}

fn fixed_stream(events: &[StreamEvent]) -> Response {
    let body: Vec<u8> = events
        .iter()
        .filter_map(frame)
        .flat_map(|b| b.to_vec())
        .collect();
    sse(Body::from(body))
}

pub(crate) async fn stream(
    bridge: Arc<Bridge>,
    state: &Arc<AppState>,
    user: User,
    base: String,
    body: RequestBody,
    seat: &crate::runs::Seat,
) -> Result<Response, RequestBody> {
    let start = match body {
        RequestBody::ThreadsCreate { input } => Start::Message(None, input),
        RequestBody::AddUserMessage { thread_id, input } => Start::Message(Some(thread_id), input),
        RequestBody::RetryAfterItem { thread_id, item_id } => Start::Retry(thread_id, item_id),
        RequestBody::CustomAction {
            thread_id,
            item_id,
            action,
        } if action.kind == ACP_PERMISSION_ACTION => {
            return Ok(answer(bridge, state, user, thread_id, item_id, action).await);
        }
        RequestBody::CustomAction {
            thread_id,
            item_id,
            action,
        } if action.kind == ACP_ELICITATION_ACTION => {
            bridge.attach(state);
            return Ok(elicit::answer(bridge, state, user, thread_id, item_id, action).await);
        }
        other => return Err(other),
    };
    bridge.attach(state);
    let prepared = {
        let (store, user) = (state.store.clone(), user.clone());
        let workspace = bridge.config.workspace.clone();
        tokio::task::spawn_blocking(move || {
            prepare(&store.user(&user.0), &base, start, workspace.as_ref())
        })
        .await
    };
    let prepared = match prepared {
        Ok(Ok(Some(p))) => p,
        // An unknown thread (or someone else's): 200 and no event, like the scripted runtime.
        Ok(Ok(None)) => return Ok(sse(Body::empty())),
        Ok(Err(e)) => return Ok(errors::internal(e)),
        Err(e) => return Ok(errors::internal(e)),
    };
    let (tx, rx) = mpsc::channel::<Frame>(64);
    // Registered before the response goes out: a cancel sent right after it finds the run.
    let handle = state.runs.start(&user, &prepared.thread.id, &tx, seat);
    let changes = bridge.slot(prepared.thread.id.as_str(), |s| s.changes.clone());
    let out = Out::new(
        state.clone(),
        user,
        prepared.thread.clone(),
        tx,
        handle,
        changes,
    );
    tokio::spawn(run(state.clone(), bridge, out, prepared));
    Ok(sse(Body::from_stream(futures_util::stream::unfold(
        rx,
        |mut rx| async move { rx.recv().await.map(|frame| (frame, rx)) },
    ))))
}

enum Start {
    /// A new message, in a new thread (`None`) or an existing one.
    Message(Option<ThreadId>, UserMessageInput),
    /// Answer this user message again.
    Retry(ThreadId, ItemId),
}

struct Prepared {
    thread: Thread,
    /// Sent before the agent is asked anything.
    first: Vec<StreamEvent>,
    prompt: Prompt,
}

/// What a user message asks the agent: its text, the workspace files it mentions and its
/// attachments. Made into ACP content once the agent's prompt capabilities are known
/// ([`Prompt::blocks`]).
#[derive(Default)]
struct Prompt {
    text: String,
    mentions: Vec<files::Link>,
    files: Vec<PromptFile>,
}

/// An attachment of the message, with its bytes when they were uploaded.
struct PromptFile {
    name: String,
    mime_type: String,
    /// Where it can be fetched (its preview URL), or an `attachment:` id.
    uri: String,
    bytes: Option<Vec<u8>>,
}

/// The largest file given to the agent inline (as an image or an embedded resource);
/// a larger one goes as a link.
const INLINE_MAX: usize = 4 * 1024 * 1024;
/// At most this many mentioned files of a message are checked, and so linked (the rest
/// stay text).
const MAX_MENTION_LINKS: usize = 64;

impl Prompt {
    /// The ACP content of the prompt: the text, then each mentioned workspace file as a
    /// resource link, then each attachment as an image (when the agent takes images), as
    /// an embedded resource (when it takes embedded context: text as text, anything else
    /// as a blob), or as a resource link, which every agent takes.
    fn blocks(self, caps: &PromptCapabilities) -> Vec<AcpBlock> {
        let mut blocks = vec![AcpBlock::Text(TextContent::new(self.text))];
        for link in self.mentions {
            match serde_json::from_value(link.block()) {
                Ok(block) => blocks.push(block),
                Err(e) => eprintln!("chat-shell-runtime: a mention as ACP content: {e}"),
            }
        }
        for file in self.files {
            let inline = file.bytes.as_ref().filter(|b| b.len() <= INLINE_MAX);
            let block = match inline {
                Some(bytes) if caps.image && file.mime_type.starts_with("image/") => json!({
                    "type": "image", "data": BASE64.encode(bytes), "mimeType": file.mime_type,
                    "uri": file.uri,
                }),
                Some(bytes) if caps.embedded_context => match std::str::from_utf8(bytes) {
                    Ok(text) => json!({"type": "resource", "resource": {
                        "uri": file.uri, "mimeType": file.mime_type, "text": text,
                    }}),
                    Err(_) => json!({"type": "resource", "resource": {
                        "uri": file.uri, "mimeType": file.mime_type, "blob": BASE64.encode(bytes),
                    }}),
                },
                _ => json!({
                    "type": "resource_link", "uri": file.uri, "name": file.name,
                    "mimeType": file.mime_type,
                    "size": file.bytes.as_ref().map(Vec::len),
                }),
            };
            match serde_json::from_value(block) {
                Ok(block) => blocks.push(block),
                Err(e) => eprintln!("chat-shell-runtime: an attachment as ACP content: {e}"),
            }
        }
        blocks
    }
}

/// Saves the user message (or drops what followed the one retried). Blocking thread.
fn prepare(
    db: &UserStore<'_>,
    base: &str,
    start: Start,
    workspace: Option<&Workspace>,
) -> store::Result<Option<Prepared>> {
    let mut first = Vec::new();
    let (thread, message) = match start {
        Start::Message(thread_id, input) => {
            let thread = match thread_id {
                Some(id) => match db.thread(&id)? {
                    Some(thread) => thread,
                    None => return Ok(None),
                },
                None => {
                    let thread = db.create_thread()?;
                    let mut shown = thread.clone();
                    shown.items = Some(Page::default());
                    first.push(StreamEvent::ThreadCreated(ThreadEvent { thread: shown }));
                    thread
                }
            };
            let message = user_message(db, base, &thread.id, input)?;
            db.save_item(&message)?;
            first.push(StreamEvent::ItemDone(ItemEvent {
                item: message.clone(),
            }));
            (thread, message)
        }
        Start::Retry(thread_id, item_id) => {
            let Some(thread) = db.thread(&thread_id)? else {
                return Ok(None);
            };
            match db.item(&thread_id, &item_id)? {
                Some(item) if matches!(item.kind, ItemKind::UserMessage(_)) => {
                    db.delete_items_after(&thread_id, &item_id)?;
                    (thread, item)
                }
                _ => {
                    first.push(StreamEvent::Error(ErrorEvent {
                        code: "stream.error".into(),
                        message: Some(format!("{item_id} is not a user message")),
                        allow_retry: false,
                    }));
                    return Ok(Some(Prepared {
                        thread,
                        first,
                        prompt: Prompt::default(),
                    }));
                }
            }
        }
    };
    Ok(Some(Prepared {
        thread,
        first,
        prompt: prompt_of(db, &message, workspace)?,
    }))
}

/// What the user message asks: its text (with what it quotes, and its file mentions as
/// `@name`), the workspace files it mentions, checked now ([`mentions`]), and its
/// attachments, with their bytes (the user's own uploads only).
fn prompt_of(
    db: &UserStore<'_>,
    message: &ThreadItem,
    workspace: Option<&Workspace>,
) -> store::Result<Prompt> {
    let ItemKind::UserMessage(m) = &message.kind else {
        return Ok(Prompt::default());
    };
    let (mut text, mentions) = mentions(&m.content, workspace);
    if let Some(quoted) = m.quoted_text.as_deref().filter(|q| !q.is_empty()) {
        text = format!("> {}\n\n{text}", quoted.replace('\n', "\n> "));
    }
    let mut files = Vec::new();
    for a in &m.attachments {
        let upload = db.upload(&a.id.0)?;
        files.push(PromptFile {
            name: a.name.clone(),
            mime_type: upload
                .as_ref()
                .map_or_else(|| a.mime_type.clone(), |(mime, _)| mime.clone()),
            uri: a
                .preview_url
                .clone()
                .unwrap_or_else(|| format!("attachment:{}", a.id.0)),
            bytes: upload.map(|(_, bytes)| bytes),
        });
    }
    Ok(Prompt {
        text,
        mentions,
        files,
    })
}

/// The text of a message's content, a file mention (an `input_tag` whose `data` is
/// `{"type": "file", "path": …}`) written `@` and its text; and the links of the mentioned
/// files that pass the workspace's checks now (each once, of the first
/// [`MAX_MENTION_LINKS`] files mentioned).
/// A mention that does not (outside, gone, not a regular file, no workspace) is only text.
fn mentions(content: &[UserContent], workspace: Option<&Workspace>) -> (String, Vec<files::Link>) {
    let mut text = String::new();
    let mut links: Vec<files::Link> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for part in content {
        match part {
            UserContent::InputText(t) => text.push_str(&t.text),
            UserContent::InputTag(t)
                if t.data.get("type").and_then(Value::as_str) == Some("file") =>
            {
                if !t.text.starts_with('@') {
                    text.push('@');
                }
                text.push_str(&t.text);
                let path = t.data.get("path").and_then(Value::as_str);
                if let (Some(path), Some(workspace)) = (path, workspace) {
                    if seen.len() < MAX_MENTION_LINKS && seen.insert(path.to_owned()) {
                        links.extend(files::link(workspace, path));
                    }
                }
            }
            UserContent::InputTag(t) => text.push_str(&t.text),
            UserContent::Other(_) => {}
        }
    }
    (text, links)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prompt() -> Prompt {
        let file = |name: &str, mime: &str, bytes: Option<&[u8]>| PromptFile {
            name: name.into(),
            mime_type: mime.into(),
            uri: format!("attachment:{name}"),
            bytes: bytes.map(<[u8]>::to_vec),
        };
        Prompt {
            text: "look".into(),
            mentions: Vec::new(),
            files: vec![
                file("a.png", "image/png", Some(b"png")),
                file("b.txt", "text/plain", Some(b"text")),
                file("c.txt", "text/plain", None),
            ],
        }
    }

    fn kinds(blocks: &[AcpBlock]) -> Vec<String> {
        blocks
            .iter()
            .map(|b| {
                serde_json::to_value(b).unwrap()["type"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect()
    }

    #[test]
    fn attachments_go_as_the_agent_can_take_them() {
        // Every agent takes text and links.
        let none = prompt().blocks(&PromptCapabilities::new());
        assert_eq!(
            kinds(&none),
            ["text", "resource_link", "resource_link", "resource_link"]
        );
        let link = serde_json::to_value(&none[1]).unwrap();
        assert_eq!(
            (&link["name"], &link["mimeType"], &link["size"]),
            (&json!("a.png"), &json!("image/png"), &json!(3))
        );
        // Images inline; text embedded; a file whose bytes never came stays a link.
        let all = prompt().blocks(&PromptCapabilities::new().image(true).embedded_context(true));
        assert_eq!(kinds(&all), ["text", "image", "resource", "resource_link"]);
        let image = serde_json::to_value(&all[1]).unwrap();
        assert_eq!(image["data"], BASE64.encode(b"png"));
        let text = serde_json::to_value(&all[2]).unwrap();
        assert_eq!(text["resource"]["text"], "text");
    }

    fn tag(text: &str, data: serde_json::Value) -> UserContent {
        UserContent::InputTag(chat_shell_core::protocol::chatkit::InputTag {
            id: format!("file:{text}"),
            text: text.into(),
            data: serde_json::from_value(data).unwrap(),
            group: None,
            interactive: false,
        })
    }

    fn said(text: &str) -> UserContent {
        UserContent::InputText(chat_shell_core::protocol::chatkit::InputText { text: text.into() })
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn file_mentions_read_as_at_names_and_go_as_links_when_they_pass() {
        let dir = std::env::temp_dir().join(crate::store::new_id("chat-shell-mentions"));
        std::fs::create_dir_all(dir.join("src")).unwrap();
        std::fs::write(dir.join("src/main.rs"), "fn main() {}\n").unwrap();
        let workspace = Workspace::new(&dir).unwrap();
        let content = [
            said("look at "),
            tag("main.rs", json!({"type": "file", "path": "src/main.rs"})),
            said(", "),
            tag(
                "passwd",
                json!({"type": "file", "path": "../../etc/passwd"}),
            ),
            said(", "),
            tag("@main.rs", json!({"type": "file", "path": "src/main.rs"})),
            said(" and "),
            tag("Ada", json!({"type": "person"})),
        ];
        let (text, links) = mentions(&content, Some(&workspace));
        assert_eq!(text, "look at @main.rs, @passwd, @main.rs and Ada");
        // Once each, and only what passes the workspace's checks.
        assert_eq!(links.len(), 1, "{links:?}");
        assert_eq!(links[0].name, "main.rs");
        assert!(links[0].uri.ends_with("/src/main.rs"), "{}", links[0].uri);
        // Without a workspace, only the text.
        let (alone, none) = mentions(&content, None);
        assert_eq!((alone, none.len()), (text, 0));
        // The links come right after the text, before the attachments.
        let prompt = Prompt {
            text: "t".into(),
            mentions: links,
            files: prompt().files,
        };
        let blocks = prompt.blocks(&PromptCapabilities::new());
        assert_eq!(
            kinds(&blocks)[..3],
            ["text", "resource_link", "resource_link"]
        );
        assert_eq!(
            serde_json::to_value(&blocks[1]).unwrap()["mimeType"],
            "text/x-rust"
        );
        assert_eq!(serde_json::to_value(&blocks[2]).unwrap()["name"], "a.png");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
