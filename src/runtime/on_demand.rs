//! Runtime code a first screen does not run, fetched when it is needed (the runtime's side of
//! `views::on_demand`):
//!  - the adapters of the two other stream envelopes, `events` and `agent-ui`, which turn
//!    their frames into reducer inputs (`split_adapters.wasm`): a page set to one of those
//!    protocols fetches them as soon as it knows (`prefetch_adapters`); the first frame of
//!    an answer waits for them if they are not there yet, every later call is synchronous;
//!  - the thread channel's reader (`split_channel.wasm`), fetched when the first thread is
//!    shown;
//!  - taking files and uploading them (`split_attachments.wasm`, with the tray's views),
//!    fetched when the first file is offered.
//!
//! Each is an entry point of its own chunk (`crate::split`). If a chunk
//! cannot be fetched, the caller says so in its own way: an answer fails with "connection
//! lost" (its message goes back to the composer), the channel retries after its backoff,
//! the tray says the files could not be taken, an upload fails with its Retry.

use super::Runtime;
use crate::split::{entry_points, LoadFailed};
use chat_shell_core::protocol::agent_ui::AgentUiAdapter;
use chat_shell_core::protocol::chatkit::SubscribeRequest;
use chat_shell_core::protocol::events::EventsAdapter;
use chat_shell_core::reducer::Input;
use chat_shell_core::sse::SseFrame;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use web_sys::{AbortSignal, File};

/// Work that runs on after the call that started it (the channel's reader, an upload).
pub(super) type Task = Pin<Box<dyn Future<Output = ()>>>;

type Inputs = Result<Vec<Input>, LoadFailed>;

entry_points! {
    adapters preload preload_adapters:
        fn events(adapter: &mut EventsAdapter, frame: SseFrame) -> Vec<Input> {
            adapter.frame(frame)
        }
    adapters:
        fn agent_ui(adapter: &mut AgentUiAdapter, frame: SseFrame) -> Vec<Input> {
            adapter.frame(frame)
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

/// Fetches the adapters ahead of the first answer; settles either way (a failure shows when
/// an answer needs them).
pub(super) async fn prefetch_adapters() {
    let _ = entry::preload_adapters().await;
}

/// The reducer inputs of one frame of the `events` envelope.
pub(super) async fn events(adapter: &mut EventsAdapter, frame: SseFrame) -> Inputs {
    entry::events(adapter, frame).await
}

/// The reducer inputs of one frame of the `agent-ui` envelope.
pub(super) async fn agent_ui(adapter: &mut AgentUiAdapter, frame: SseFrame) -> Inputs {
    entry::agent_ui(adapter, frame).await
}

/// The thread channel's reader, to await (`Runtime::follow_channel`).
pub(super) async fn channel(
    runtime: Rc<Runtime>,
    generation: u64,
    request: SubscribeRequest,
    signal: AbortSignal,
) -> Result<Task, LoadFailed> {
    entry::channel(runtime, generation, request, signal).await
}

/// Take offered files into the tray (`Runtime::offer_files`).
pub(super) async fn add_files(runtime: Rc<Runtime>, files: Vec<File>) -> Result<(), LoadFailed> {
    entry::add_files(runtime, files).await
}

/// Create and upload a tray entry, to await (`Runtime::upload`).
pub(super) async fn upload(runtime: Rc<Runtime>, local: u64) -> Result<Task, LoadFailed> {
    entry::upload(runtime, local).await
}
