//! The two other stream envelopes, `events` and `agent-ui`: their adapters turn frames into
//! reducer inputs. A ChatKit page never uses them, so in the `<chat-shell>` element's build
//! (feature `split`) they are cut out of the first wasm module into a chunk of their own
//! (`split_adapters.wasm`; see `views::on_demand`), which a page set to one of those
//! protocols fetches as soon as it knows (`prefetch`). The first frame of an answer waits
//! for it if it is not there yet; every later call is synchronous. Without the feature the
//! adapters are ordinary calls.

use chat_shell_core::protocol::agent_ui::AgentUiAdapter;
use chat_shell_core::protocol::events::EventsAdapter;
use chat_shell_core::reducer::Input;
use chat_shell_core::sse::SseFrame;

/// The adapters' code could not be fetched: the answer cannot be read.
#[derive(Clone, Copy, Debug)]
pub struct LoadFailed;

#[cfg(feature = "split")]
impl From<leptos::wasm_split::SplitLoaderError> for LoadFailed {
    fn from(_: leptos::wasm_split::SplitLoaderError) -> Self {
        LoadFailed
    }
}

#[cfg(feature = "split")]
mod entry {
    use super::*;

    #[leptos::wasm_split::wasm_split(
        adapters,
        wasm_split_path = ::leptos::wasm_split,
        fallible,
        preload(preload)
    )]
    pub(super) fn events(
        adapter: &mut EventsAdapter,
        frame: SseFrame,
    ) -> Result<Vec<Input>, LoadFailed> {
        Ok(adapter.frame(frame))
    }

    #[leptos::wasm_split::wasm_split(adapters, wasm_split_path = ::leptos::wasm_split, fallible)]
    pub(super) fn agent_ui(
        adapter: &mut AgentUiAdapter,
        frame: SseFrame,
    ) -> Result<Vec<Input>, LoadFailed> {
        Ok(adapter.frame(frame))
    }
}

#[cfg(not(feature = "split"))]
mod entry {
    use super::*;

    pub(super) async fn preload() -> Result<(), LoadFailed> {
        Ok(())
    }
    pub(super) async fn events(
        adapter: &mut EventsAdapter,
        frame: SseFrame,
    ) -> Result<Vec<Input>, LoadFailed> {
        Ok(adapter.frame(frame))
    }
    pub(super) async fn agent_ui(
        adapter: &mut AgentUiAdapter,
        frame: SseFrame,
    ) -> Result<Vec<Input>, LoadFailed> {
        Ok(adapter.frame(frame))
    }
}

/// Fetches the adapters ahead of the first answer; settles either way (a failure shows when
/// an answer needs them).
pub(crate) async fn prefetch() {
    let _ = entry::preload().await;
}

/// The reducer inputs of one frame of the `events` envelope.
pub(crate) async fn events(
    adapter: &mut EventsAdapter,
    frame: SseFrame,
) -> Result<Vec<Input>, LoadFailed> {
    entry::events(adapter, frame).await
}

/// The reducer inputs of one frame of the `agent-ui` envelope.
pub(crate) async fn agent_ui(
    adapter: &mut AgentUiAdapter,
    frame: SseFrame,
) -> Result<Vec<Input>, LoadFailed> {
    entry::agent_ui(adapter, frame).await
}
