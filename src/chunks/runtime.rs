//! Runtime code a first screen does not run, fetched when it is needed (the runtime's side of
//! `chunks::views`):
//!  - the ChatKit decoders, which turn the stream's frames and the JSON answers (threads,
//!    items, attachments, synchronous actions) into typed values (`split_decoders.wasm`):
//!    the loader fetches them first of all, right after the first module; a frame or an
//!    answer that comes before them waits for them;
//!  - the adapters of the two other stream envelopes, `events` and `agent-ui`, which turn
//!    their frames into reducer inputs (`split_adapters.wasm`): a page set to one of those
//!    protocols fetches them as soon as it knows (`prefetch_adapters`); the first frame of
//!    an answer waits for them if they are not there yet, every later call is synchronous;
//!  - the thread channel's reader and Stop's word to the server (`split_channel.wasm`),
//!    fetched when the first thread is shown;
//!  - running client tools, with the widgets' views (`split_widgets.wasm`,
//!    `chunks::views`);
//!  - listing the history's threads and answering permission requests, with the views that
//!    ask for them (`split_on_demand.wasm`, `chunks::views`);
//!  - taking files and uploading them (`split_attachments.wasm`, with the tray's views),
//!    fetched when the first file is offered.
//!
//! Each is an entry point of a chunk (`crate::chunks`). If a chunk cannot be fetched, the
//! caller says so in its own way: an answer or a request fails with "connection lost" (a
//! message goes back to the composer), the channel retries after its backoff (Stop's word
//! to the server is logged as not sent), a permission card offers its options again, a client tool
//! answers the server that it could not run, the history's list says so with its Try
//! again, the tray says the files could not be taken, an upload fails with its Retry.

use super::{entry_points, LoadFailed};
use crate::runtime::transport::TransportError;
use crate::runtime::AgUiShared as Shared;
use crate::runtime::Runtime;
use chat_shell_core::adapters::ag_ui::AgUiAdapter;
use chat_shell_core::adapters::agent_ui::AgentUiAdapter;
use chat_shell_core::adapters::events::EventsAdapter;
use chat_shell_core::protocol::acp::{PermissionOutcome, ToolCallId};
use chat_shell_core::protocol::ag_ui::{Resume, ResumeStatus};
use chat_shell_core::protocol::chatkit::{
    Attachment, ItemId, Page, SessionRequest, SubscribeRequest, SyncCustomActionResponse, Thread,
    ThreadId, ThreadItem,
};
use chat_shell_core::protocol::decode::Decode;
use chat_shell_core::reducer::Input;
use chat_shell_core::sse::SseFrame;
use serde_json::Value;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use web_sys::{AbortSignal, File};

/// Work that runs on after the call that started it (the channel's reader, an upload).
pub(crate) type Task = Pin<Box<dyn Future<Output = ()>>>;

type Inputs = Result<Vec<Input>, LoadFailed>;

/// A client tool running: its result, or why there is none.
pub(crate) type ToolRun = Pin<Box<dyn Future<Output = Result<Value, String>>>>;

entry_points! {
    decoders preload preload_decoders:
        fn chatkit_frame(frame: SseFrame) -> Vec<Input> {
            chat_shell_core::adapters::chatkit::push(frame)
        }
    decoders:
        fn built_in_locale(locale: String) -> Option<&'static str> {
            chat_shell_core::strings::built_in_table(&locale)
        }
    decoders:
        fn thread(value: Value) -> Result<Thread, String> {
            decoded(value)
        }
    decoders:
        fn threads(value: Value) -> Result<Page<Thread>, String> {
            decoded(value)
        }
    decoders:
        fn items(value: Value) -> Result<Page<ThreadItem>, String> {
            decoded(value)
        }
    decoders:
        fn attachment(value: Value) -> Result<Attachment, String> {
            decoded(value)
        }
    decoders:
        fn sync_action(value: Value) -> Result<SyncCustomActionResponse, String> {
            decoded(value)
        }
    adapters preload preload_adapters:
        fn events(adapter: &mut EventsAdapter, frame: SseFrame) -> Vec<Input> {
            adapter.push(frame)
        }
    adapters:
        fn agent_ui(adapter: &mut AgentUiAdapter, frame: SseFrame) -> Vec<Input> {
            adapter.push(frame)
        }
    adapters:
        fn ag_ui(adapter: &mut AgUiAdapter, conversation: Shared, frame: SseFrame) -> Vec<Input> {
            match conversation.borrow_mut().as_mut() {
                Some(c) => adapter.push(frame, c),
                None => Vec::new(),
            }
        }
    adapters:
        fn ag_ui_end(adapter: &mut AgUiAdapter, conversation: Shared) -> Vec<Input> {
            match conversation.borrow_mut().as_mut() {
                Some(c) => adapter.end(c),
                None => Vec::new(),
            }
        }
    adapters:
        fn ag_ui_save(runtime: Rc<Runtime>) -> () {
            runtime.mark_ag_ui_branches();
            runtime.save_local_thread()
        }
    adapters:
        fn ag_ui_fork(runtime: Rc<Runtime>, at: usize) -> () {
            runtime.fork_ag_ui(at)
        }
    adapters:
        fn ag_ui_switch(runtime: Rc<Runtime>, target: ItemId) -> () {
            runtime.switch_ag_ui(&target)
        }
    adapters:
        fn ag_ui_start(runtime: Rc<Runtime>, generation: u64, resume: Vec<Resume>) -> () {
            runtime.run_ag_ui(generation, resume)
        }
    adapters:
        fn ag_ui_answer(
            runtime: Rc<Runtime>,
            item_id: ItemId,
            status: ResumeStatus,
            payload: Option<Value>
        ) -> () {
            runtime.answer_ag_ui(&item_id, status, payload)
        }
    widgets:
        fn client_tool(runtime: Rc<Runtime>, item_id: ItemId, name: String, arguments: Value) -> ToolRun {
            Box::pin(async move { runtime.call_client_tool(&item_id, &name, arguments).await })
        }
    on_demand:
        fn answer_permission(
            runtime: Rc<Runtime>,
            item_id: ItemId,
            tool_call_id: ToolCallId,
            outcome: PermissionOutcome
        ) -> () {
            runtime.answer_permission(item_id, tool_call_id, outcome)
        }
    on_demand:
        fn list_threads(runtime: Rc<Runtime>, after: Option<String>, token: u64) -> Task {
            Box::pin(runtime.list_threads(after, token))
        }
    // With the adapters: it turns messages into items as a snapshot does.
    adapters:
        fn ag_ui_open(runtime: Rc<Runtime>, id: ThreadId, token: u64) -> Task {
            Box::pin(async move {
                if let Err(why) = Rc::clone(&runtime).open_local_thread(id.clone(), token).await {
                    runtime.local_thread_not_opened(id, token, &why);
                }
            })
        }
    channel:
        fn cancel_run(runtime: Rc<Runtime>, thread_id: ThreadId) -> Task {
            Box::pin(runtime.send_cancel_run(thread_id))
        }
    channel:
        fn session(runtime: Rc<Runtime>, request: SessionRequest) -> Task {
            Box::pin(runtime.send_session(request))
        }
    channel:
        fn mention_search(runtime: Rc<Runtime>, query: String, done: MentionsFound) -> Task {
            Box::pin(async move { done(runtime.search_mentions(query).await) })
        }
    channel:
        fn channel(
            runtime: Rc<Runtime>,
            generation: u64,
            request: SubscribeRequest,
            signal: AbortSignal
        ) -> Task {
            Box::pin(runtime.follow_channel(generation, request, signal))
        }
    attachments:
        fn add_files(runtime: Rc<Runtime>, files: Vec<File>) -> () {
            runtime.offer_files(files)
        }
    attachments:
        fn upload(runtime: Rc<Runtime>, local: u64) -> Task {
            Box::pin(runtime.upload(local))
        }
}

/// Called only inside the `decoders` chunk, so each type's decoder stays there.
fn decoded<T: Decode>(value: Value) -> Result<T, String> {
    T::decode(&value).map_err(|e| e.to_string())
}

/// Fetches the decoders ahead of the first answer: the loader (`src/chat-shell.js`) starts
/// this first, as soon as the first module runs. Settles either way (a failure shows when a
/// frame or an answer needs them).
#[wasm_bindgen::prelude::wasm_bindgen(js_name = prefetchDecoders)]
pub async fn prefetch_decoders() {
    let _ = entry::preload_decoders().await;
}

/// The reducer inputs of one frame of a ChatKit stream.
pub(crate) async fn chatkit_frame(frame: SseFrame) -> Inputs {
    entry::chatkit_frame(frame).await
}

/// What a JSON request answers, decoded by code in the `decoders` chunk.
pub(crate) trait Answer: Sized {
    async fn decode(value: Value) -> Result<Result<Self, String>, LoadFailed>;
}

impl Answer for Value {
    async fn decode(value: Value) -> Result<Result<Self, String>, LoadFailed> {
        Ok(Ok(value))
    }
}

macro_rules! answers {
    ($($ty:ty => $entry:ident,)*) => {$(
        impl Answer for $ty {
            async fn decode(value: Value) -> Result<Result<Self, String>, LoadFailed> {
                entry::$entry(value).await
            }
        }
    )*};
}

answers! {
    Thread => thread,
    Page<Thread> => threads,
    Page<ThreadItem> => items,
    Attachment => attachment,
    SyncCustomActionResponse => sync_action,
}

/// A JSON answer as `T`; an answer `T` cannot read is a protocol error, decoders that cannot
/// be fetched are a lost connection (the request can be made again).
pub(crate) async fn answer<T: Answer>(value: Value) -> Result<T, TransportError> {
    match T::decode(value).await {
        Ok(decoded) => decoded.map_err(TransportError::Protocol),
        Err(LoadFailed) => Err(TransportError::Network(
            "the answer's decoder could not be fetched".into(),
        )),
    }
}

/// Fetches the adapters ahead of the first answer; settles either way (a failure shows when
/// an answer needs them).
pub(crate) async fn prefetch_adapters() {
    let _ = entry::preload_adapters().await;
}

/// The reducer inputs of one frame of the `events` envelope.
pub(crate) async fn events(adapter: &mut EventsAdapter, frame: SseFrame) -> Inputs {
    entry::events(adapter, frame).await
}

/// The reducer inputs of one frame of an AG-UI run.
pub(crate) async fn ag_ui(
    adapter: &mut AgUiAdapter,
    conversation: Shared,
    frame: SseFrame,
) -> Inputs {
    entry::ag_ui(adapter, conversation, frame).await
}

/// What an AG-UI run's stream says at its end (a run left unfinished).
pub(crate) async fn ag_ui_end(adapter: &mut AgUiAdapter, conversation: Shared) -> Inputs {
    entry::ag_ui_end(adapter, conversation).await
}

/// Keep the open AG-UI thread in this browser (`Runtime::save_local_thread`).
pub(crate) async fn ag_ui_save(runtime: Rc<Runtime>) -> Result<(), LoadFailed> {
    entry::ag_ui_save(runtime).await
}

/// Keep the AG-UI branch shown from `items[at]` on, before an edit or a regenerated answer
/// replaces it (`Runtime::fork_ag_ui`).
pub(crate) async fn ag_ui_fork(runtime: Rc<Runtime>, at: usize) -> Result<(), LoadFailed> {
    entry::ag_ui_fork(runtime, at).await
}

/// Show the AG-UI branch `target` (`Runtime::switch_ag_ui`).
pub(crate) async fn ag_ui_switch(runtime: Rc<Runtime>, target: ItemId) -> Result<(), LoadFailed> {
    entry::ag_ui_switch(runtime, target).await
}

/// Open an AG-UI thread kept in this browser (or the host's); it says itself why not.
pub(crate) async fn ag_ui_open(
    runtime: Rc<Runtime>,
    id: ThreadId,
    token: u64,
) -> Result<(), LoadFailed> {
    entry::ag_ui_open(runtime, id, token).await?.await;
    Ok(())
}

/// Start an AG-UI run (`Runtime::run_ag_ui`).
pub(crate) async fn ag_ui_start(
    runtime: Rc<Runtime>,
    generation: u64,
    resume: Vec<Resume>,
) -> Result<(), LoadFailed> {
    entry::ag_ui_start(runtime, generation, resume).await
}

/// Answer an AG-UI interrupt (`Runtime::answer_ag_ui`).
pub(crate) async fn ag_ui_answer(
    runtime: Rc<Runtime>,
    item_id: ItemId,
    status: ResumeStatus,
    payload: Option<Value>,
) -> Result<(), LoadFailed> {
    entry::ag_ui_answer(runtime, item_id, status, payload).await
}

/// The reducer inputs of one frame of the `agent-ui` envelope.
pub(crate) async fn agent_ui(adapter: &mut AgentUiAdapter, frame: SseFrame) -> Inputs {
    entry::agent_ui(adapter, frame).await
}

/// Run a client tool, to await (`Runtime::call_client_tool`).
pub(crate) async fn client_tool(
    runtime: Rc<Runtime>,
    item_id: ItemId,
    name: String,
    arguments: Value,
) -> Result<ToolRun, LoadFailed> {
    entry::client_tool(runtime, item_id, name, arguments).await
}

/// Answer a permission request (`Runtime::answer_permission`).
pub(crate) async fn answer_permission(
    runtime: Rc<Runtime>,
    item_id: ItemId,
    tool_call_id: ToolCallId,
    outcome: PermissionOutcome,
) -> Result<(), LoadFailed> {
    entry::answer_permission(runtime, item_id, tool_call_id, outcome).await
}

/// Tell the server to stop the thread's run, to await (`Runtime::send_cancel_run`).
pub(crate) async fn cancel_run(
    runtime: Rc<Runtime>,
    thread_id: ThreadId,
) -> Result<Task, LoadFailed> {
    entry::cancel_run(runtime, thread_id).await
}

/// A page of the history's list, to await (`Runtime::list_threads`).
pub(crate) async fn list_threads(
    runtime: Rc<Runtime>,
    after: Option<String>,
    token: u64,
) -> Result<Task, LoadFailed> {
    entry::list_threads(runtime, after, token).await
}

/// The built-in table of a locale's language (the first module carries none).
pub(crate) async fn locale_table(locale: String) -> Result<Option<&'static str>, LoadFailed> {
    entry::built_in_locale(locale).await
}

/// An agent session request and what its answer shows, to await (`Runtime::send_session`).
/// What receives a mention search's entities, or why there are none.
pub(crate) type MentionsFound =
    Box<dyn FnOnce(Result<Vec<chat_shell_core::mentions::Entity>, String>)>;

/// Searches what an `@` can mention (`Runtime::search_mentions`).
pub(crate) async fn mention_search(
    runtime: Rc<Runtime>,
    query: String,
    done: MentionsFound,
) -> Result<Task, LoadFailed> {
    entry::mention_search(runtime, query, done).await
}

pub(crate) async fn session(
    runtime: Rc<Runtime>,
    request: SessionRequest,
) -> Result<Task, LoadFailed> {
    entry::session(runtime, request).await
}

/// The thread channel's reader, to await (`Runtime::follow_channel`).
pub(crate) async fn channel(
    runtime: Rc<Runtime>,
    generation: u64,
    request: SubscribeRequest,
    signal: AbortSignal,
) -> Result<Task, LoadFailed> {
    entry::channel(runtime, generation, request, signal).await
}

/// Take offered files into the tray (`Runtime::offer_files`).
pub(crate) async fn add_files(runtime: Rc<Runtime>, files: Vec<File>) -> Result<(), LoadFailed> {
    entry::add_files(runtime, files).await
}

/// Create and upload a tray entry, to await (`Runtime::upload`).
pub(crate) async fn upload(runtime: Rc<Runtime>, local: u64) -> Result<Task, LoadFailed> {
    entry::upload(runtime, local).await
}
