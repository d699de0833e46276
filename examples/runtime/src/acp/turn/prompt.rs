//! What a user message asks the agent: the message saved first (or what followed the one
//! retried dropped), then its text, its file mentions (checked against the workspace now)
//! and its attachments, made into ACP content as the agent's capabilities allow.

use crate::acp::files;
use crate::acp::Workspace;
use crate::handlers::items::user_message;
use crate::store::{self, UserStore};
use agent_client_protocol::v1::schema::{
    ContentBlock as AcpBlock, PromptCapabilities, TextContent,
};
use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use chat_shell_core::protocol::chatkit::{
    ErrorEvent, ItemEvent, ItemId, ItemKind, Page, StreamEvent, Thread, ThreadEvent, ThreadId,
    ThreadItem, UserContent, UserMessageInput,
};
use serde_json::{json, Value};

pub(super) enum Start {
    /// A new message, in a new thread (`None`) or an existing one.
    Message(Option<ThreadId>, UserMessageInput),
    /// Answer this user message again.
    Retry(ThreadId, ItemId),
}

pub(super) struct Prepared {
    pub(super) thread: Thread,
    /// Sent before the agent is asked anything.
    pub(super) first: Vec<StreamEvent>,
    pub(super) prompt: Prompt,
}

/// What a user message asks the agent: its text, the workspace files it mentions and its
/// attachments. Made into ACP content once the agent's prompt capabilities are known
/// ([`Prompt::blocks`]).
#[derive(Default)]
pub(super) struct Prompt {
    text: String,
    mentions: Vec<files::Link>,
    files: Vec<PromptFile>,
}

/// An attachment of the message, with its bytes when they were uploaded.
pub(super) struct PromptFile {
    name: String,
    mime_type: String,
    /// Where it can be fetched (its preview URL), or an `attachment:` id.
    uri: String,
    bytes: Option<Vec<u8>>,
}

/// The largest file given to the agent inline (as an image or an embedded resource);
/// a larger one goes as a link.
pub(super) const INLINE_MAX: usize = 4 * 1024 * 1024;
/// At most this many mentioned files of a message are checked, and so linked (the rest
/// stay text).
pub(super) const MAX_MENTION_LINKS: usize = 64;

impl Prompt {
    /// The ACP content of the prompt: the text, then each mentioned workspace file as a
    /// resource link, then each attachment as an image (when the agent takes images), as
    /// an embedded resource (when it takes embedded context: text as text, anything else
    /// as a blob), or as a resource link, which every agent takes.
    pub(super) fn blocks(self, caps: &PromptCapabilities) -> Vec<AcpBlock> {
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
pub(super) fn prepare(
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
pub(super) fn prompt_of(
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
pub(super) fn mentions(
    content: &[UserContent],
    workspace: Option<&Workspace>,
) -> (String, Vec<files::Link>) {
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
