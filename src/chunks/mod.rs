//! The chunks: code the first screen does not run, cut out of the first wasm module, and
//! how it is loaded. This is the one seam between the app and its packaging; nothing else
//! knows which code is in which chunk.
//!  - `runtime`: the runtime's code in chunks (the decoders, the other envelopes' adapters,
//!    the thread channel, client tools, permission answers, the history's list, files);
//!  - `views`: the views in chunks (widgets, the other item views, the team roster, the
//!    view tabs and panels, the history, the tray's list), shown in place once loaded;
//!  - `renderer`: the markdown renderer and sanitizer, linked in (`inline-render`) or a
//!    chunk of its own;
//!  - `highlight`: the syntax highlighter, a chunk of its own fetched with the first code
//!    block to highlight.
//!
//! In the `<chat-shell>` element's build (feature `split`) each entry point is a split
//! function of a named chunk (`wasm-split-cli`, run by `scripts/build.sh package` after trunk's
//! cargo build): everything only the chunk's entry points reach moves to
//! `split_<chunk>.wasm`, which `__wasm_split.js` fetches on the first call. Without the
//! feature (a Rust app's own build, the wasm tests) each is an ordinary `async fn`.
//!
//! Code the first module calls directly once it is there (the renderer, the highlighter,
//! the hooks) is held in one kind of slot, [`ChunkCode`].
//!
//! The entry points reach into `ui` and `runtime`. On the views' side the seam makes no
//! cycle: the views an entry point builds never ask for a chunk themselves; only the views
//! that place a chunk's view (`Item`, the header's tab strip, the roster's slot, the tray, the
//! history and the view panel) call `chunks::views`.

pub(crate) mod highlight;
pub(crate) mod renderer;
pub(crate) mod runtime;
pub(crate) mod views;

/// A chunk's code could not be fetched (the call can be tried again).
#[derive(Clone, Copy, Debug)]
pub struct LoadFailed;

#[cfg(feature = "split")]
impl From<leptos::wasm_split::SplitLoaderError> for LoadFailed {
    fn from(_: leptos::wasm_split::SplitLoaderError) -> Self {
        LoadFailed
    }
}

/// Chunk code the first module calls directly, behind a trait object: the renderer, the
/// highlighter, the mention and window hooks. It is the one way first-module code holds
/// code of a chunk; views of a chunk come through [`views`] instead.
///
/// Kept in a `thread_local!` (the element runs on one thread); [`load`] and [`fetch`]
/// bring the code in once, whoever asks first.
pub(crate) struct ChunkCode<T: ?Sized + 'static> {
    code: std::cell::Cell<Option<&'static T>>,
    loading: std::cell::Cell<bool>,
    arrived: leptos::prelude::ArcTrigger,
}

impl<T: ?Sized + 'static> ChunkCode<T> {
    pub(crate) fn new() -> Self {
        Self {
            code: std::cell::Cell::new(None),
            loading: std::cell::Cell::new(false),
            arrived: leptos::prelude::ArcTrigger::new(),
        }
    }

    /// The code, if it is there.
    pub(crate) fn get(&self) -> Option<&'static T> {
        self.code.get()
    }

    /// The code, if it is there; a reactive read, so the caller runs again when it comes.
    pub(crate) fn track(&self) -> Option<&'static T> {
        leptos::prelude::Track::track(&self.arrived);
        self.code.get()
    }
}

type Slot<T> = std::thread::LocalKey<ChunkCode<T>>;

/// Brings `slot`'s code in with `link` (a chunk's entry point), unless it is there or on
/// its way; `done` gets the outcome of the fetch this call started. A failed fetch can be
/// tried again by the next call.
pub(crate) fn load<T, F>(
    slot: &'static Slot<T>,
    link: impl FnOnce() -> F + 'static,
    done: impl FnOnce(Result<&'static T, LoadFailed>) + 'static,
) where
    T: ?Sized + 'static,
    F: std::future::Future<Output = Result<&'static T, LoadFailed>> + 'static,
{
    if slot.with(|s| s.code.get().is_some() || s.loading.replace(true)) {
        return;
    }
    leptos::task::spawn_local(async move {
        let linked = link().await;
        slot.with(|s| {
            s.loading.set(false);
            if let Ok(code) = linked {
                s.code.set(Some(code));
                leptos::prelude::Notify::notify(&s.arrived);
            }
        });
        done(linked);
    });
}

/// `slot`'s code, fetched with `link` if it is not there yet.
#[cfg_attr(feature = "inline-render", allow(dead_code))] // only the renderer awaits its code
pub(crate) async fn fetch<T, F>(
    slot: &'static Slot<T>,
    link: impl FnOnce() -> F,
) -> Result<&'static T, LoadFailed>
where
    T: ?Sized + 'static,
    F: std::future::Future<Output = Result<&'static T, LoadFailed>>,
{
    if let Some(code) = slot.with(ChunkCode::get) {
        return Ok(code);
    }
    let code = link().await?;
    slot.with(|s| {
        s.code.set(Some(code));
        leptos::prelude::Notify::notify(&s.arrived);
    });
    Ok(code)
}

/// Declares entry points, in a module `entry`, for both builds:
/// `chunk [preload name]: fn name(args) -> Out { body }` becomes an async function returning
/// `Result<Out, LoadFailed>`. An entry naming a preload function also defines it
/// (`async fn() -> Result<(), LoadFailed>`), which fetches that chunk without calling
/// anything.
macro_rules! entry_points {
    ($(
        $chunk:ident $(preload $preload:ident)?:
            fn $name:ident($($arg:ident: $ty:ty),*) -> $out:ty $body:block
    )*) => {
        #[cfg(feature = "split")]
        mod entry {
            use super::*;
            $(
                #[leptos::wasm_split::wasm_split(
                    $chunk,
                    wasm_split_path = ::leptos::wasm_split,
                    fallible
                    $(, preload($preload))?
                )]
                pub(super) fn $name($($arg: $ty),*) -> Result<$out, $crate::chunks::LoadFailed> {
                    Ok($body)
                }
            )*
        }

        #[cfg(not(feature = "split"))]
        mod entry {
            use super::*;
            $(
                $(
                    pub(super) async fn $preload() -> Result<(), $crate::chunks::LoadFailed> {
                        Ok(())
                    }
                )?
                pub(super) async fn $name($($arg: $ty),*) -> Result<$out, $crate::chunks::LoadFailed> {
                    Ok($body)
                }
            )*
        }
    };
}
pub(crate) use entry_points;

/// Room for `wasm-split-cli` to move read-only data out of the first module.
///
/// The splitter lays each output's share of a data segment out again, the first module's
/// first, each share aligned, and if the result is longer than the segment it keeps the
/// whole segment in the first module: every chunk's tables and strings (the renderer's
/// entity table among them) would load before the composer. Nothing
/// reads these bytes, so no output includes them, and the re-laid segment has this much
/// to spare for the alignment padding it adds (a few hundred bytes with today's chunks).
#[cfg(feature = "split")]
#[used]
static SPLIT_SLACK: [u8; 8192] = [0x5a; 8192];
