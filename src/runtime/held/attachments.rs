//! The tray's entries and signals, and what the runtime keeps for files (the local files,
//! uploads in flight, previews of sent ones). Taking and uploading them is in
//! `runtime::attachments`.

use chat_shell_core::protocol::chatkit::{Attachment, AttachmentId};
use leptos::prelude::*;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use wasm_bindgen::prelude::*;
use web_sys::{File, ProgressEvent, XmlHttpRequest};

/// One file in the tray (or in a draft put away with its thread).
#[derive(Clone, Debug, PartialEq)]
pub struct TrayEntry {
    /// Local id, unique within the runtime.
    pub local: u64,
    pub name: String,
    pub size: u64,
    pub mime_type: String,
    /// A `blob:` URL of the local bytes, for images: shown before any upload.
    pub preview: Option<String>,
    pub status: UploadStatus,
    /// The server's attachment, once `attachments.create` answered.
    pub attachment: Option<Attachment>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum UploadStatus {
    /// `attachments.create` is on its way.
    Creating,
    /// The bytes are on their way; percent when the browser knows it.
    Uploading(Option<u8>),
    /// Ready to be sent.
    Ready,
    /// Failed with this message; the user may retry or remove it.
    Failed(String),
}

/// What the tray view subscribes to.
#[derive(Clone, Copy)]
pub struct TraySignals {
    pub entries: RwSignal<Vec<TrayEntry>>,
    /// Why files offered were refused (shown as an alert in the tray).
    pub error: RwSignal<Option<String>>,
}

impl TraySignals {
    /// Call inside the runtime's owner.
    pub(crate) fn new() -> Self {
        TraySignals {
            entries: RwSignal::new(Vec::new()),
            error: RwSignal::new(None),
        }
    }
}

/// An upload in flight: the request, and the progress listener it calls.
pub(crate) struct InFlight {
    pub(crate) xhr: XmlHttpRequest,
    pub(crate) _progress: Closure<dyn FnMut(ProgressEvent)>,
}

/// The runtime's bookkeeping for files.
#[derive(Default)]
pub(crate) struct Uploads {
    pub(crate) next: Cell<u64>,
    /// The local files, kept for a retry until they are sent or removed.
    pub(crate) files: RefCell<HashMap<u64, File>>,
    pub(crate) in_flight: RefCell<HashMap<u64, InFlight>>,
    /// Local previews of sent attachments, by id: the sent message shows them until the
    /// conversation changes, sparing a download of what the browser already has.
    pub(crate) previews: RefCell<HashMap<AttachmentId, String>>,
}
