//! Thread history: the list (`threads.list`, newest first, paged by `after`), opening a
//! thread with its newest items first and older ones on demand, renaming, deleting, and
//! one composer draft per thread.
//!
//! Loads are stale-safe: opening a thread or starting a new chat bumps `load_token`, and
//! every answer that arrives for an older token is dropped, so a slow answer for a thread
//! the user already left never replaces the one shown.

use super::held::threads::{Draft, ThreadList, ThreadRow};
use super::transport::{self, TransportError};
use super::Runtime;
use crate::chunks::runtime::{answer, Answer};
use chat_shell_core::history::{has_title, preview, preview_of, thread_label};
use chat_shell_core::host_events::{ChatError, ChatEvent, ErrorKind};
use chat_shell_core::model::EntryKind;
use chat_shell_core::options::Protocol;
use chat_shell_core::protocol::chatkit::{
    ListOrder, Page, RequestBody, Thread, ThreadId, ThreadItem,
};
use chat_shell_core::reducer::{Input, Streamed};
use chat_shell_core::strings::Text;
use leptos::prelude::*;
use serde_json::Value;
use std::rc::Rc;
use web_sys::AbortController;

/// Threads per `threads.list` page and items per `items.list` page.
pub const PAGE_SIZE: u32 = 20;
/// Older pages, fetched ahead of a reader scrolling back: twice the first page, so a long
/// thread's start comes sooner, and small enough that putting one in front fits in a frame
/// at 10,000 items (its cost grows with its size).
pub const OLDER_PAGE_SIZE: u32 = 40;
/// Items asked for to find an untitled thread's first user message.
const PREVIEW_ITEMS: u32 = 4;
impl Runtime {
    /// POST a JSON request to the endpoint with the configured metadata.
    pub(crate) async fn json_request<T: Answer>(
        &self,
        body: RequestBody,
    ) -> Result<T, TransportError> {
        let envelope = self.envelope(body);
        let http = self.http().await?;
        let abort = AbortController::new()
            .map_err(|_| TransportError::Network("this browser cannot send requests".into()))?;
        let value = transport::post_json(&http, &envelope, &abort.signal()).await?;
        answer(value).await
    }

    pub(crate) fn report(&self, kind: ErrorKind, error: &TransportError) {
        self.emit(&ChatEvent::Error(ChatError::new(
            kind,
            error.user_message(),
        )));
    }

    // ---- the history list -------------------------------------------------------------

    pub fn toggle_history(self: &Rc<Self>) {
        if self.signals.history.open.get_untracked() {
            self.close_history();
        } else {
            self.open_history();
        }
    }

    /// Show the history, loading its first page afresh.
    pub fn open_history(self: &Rc<Self>) {
        // The open thread's preview is known without asking the server.
        let shown = {
            let state = self.state.borrow();
            let messages = state.visible_items().filter_map(|i| match &i.entry.kind {
                EntryKind::UserMessage(m) => Some(m),
                _ => None,
            });
            let text = preview_of(messages);
            state.thread_id().cloned().map(|id| (id, text))
        };
        if let Some((id, Some(text))) = shown {
            self.threads.previews.borrow_mut().insert(id, Some(text));
        }
        self.signals.history.open.set(true);
        self.fetch_threads(None);
    }

    /// The preview of an untitled thread, when it is already known.
    fn known_preview(&self, thread: &Thread) -> Option<String> {
        if has_title(thread) {
            return None;
        }
        self.threads
            .previews
            .borrow()
            .get(&thread.id)
            .cloned()
            .flatten()
    }

    /// An untitled row came into view: fetch its first messages (once) so it reads as
    /// its first user message instead of one more "Untitled conversation".
    pub fn want_preview(self: &Rc<Self>, id: ThreadId) {
        if self.threads.previews.borrow().contains_key(&id) {
            return;
        }
        // Marked at once: a row scrolled in and out asks only once.
        self.threads.previews.borrow_mut().insert(id.clone(), None);
        let this = Rc::clone(self);
        wasm_bindgen_futures::spawn_local(async move {
            let page = this
                .json_request::<Page<ThreadItem>>(RequestBody::ListItems {
                    thread_id: id.clone(),
                    limit: Some(PREVIEW_ITEMS),
                    after: None,
                    order: Some(ListOrder::Asc),
                })
                .await;
            let Some(text) = page.ok().and_then(|p| preview(&p.data)) else {
                return;
            };
            this.threads
                .previews
                .borrow_mut()
                .insert(id.clone(), Some(text.clone()));
            this.signals.history.list.update(|l| {
                if let Some(row) = l.rows.iter_mut().find(|r| r.id == id && !r.titled) {
                    row.label = text;
                }
            });
        });
    }

    pub fn close_history(&self) {
        self.signals.history.open.set(false);
    }

    /// The next page of the list, if there is one and none is on its way.
    pub fn load_more_threads(self: &Rc<Self>) {
        let list = self.signals.history.list.get_untracked();
        if list.loading || !list.has_more || list.error.is_some() {
            return;
        }
        self.fetch_threads(list.after);
    }

    fn fetch_threads(self: &Rc<Self>, after: Option<String>) {
        let first = after.is_none();
        if first {
            self.threads
                .list_token
                .set(self.threads.list_token.get() + 1);
        }
        let token = self.threads.list_token.get();
        self.signals.history.list.update(|l| {
            if first {
                *l = ThreadList::default();
            }
            l.loading = true;
            l.error = None;
        });
        let this = Rc::clone(self);
        wasm_bindgen_futures::spawn_local(async move {
            // Its code comes with the history panel's (`crate::chunks`).
            match crate::chunks::runtime::list_threads(Rc::clone(&this), after, token).await {
                Ok(listing) => listing.await,
                Err(_) => this.threads_not_listed(
                    token,
                    TransportError::Network("the history's code could not be fetched".into()),
                ),
            }
        });
    }

    /// One page of the history's list, into `signals.history.list` (`fetch_threads`).
    pub(crate) async fn list_threads(self: Rc<Self>, after: Option<String>, token: u64) {
        // AG-UI keeps no threads: the ones kept in this browser.
        if self.options(|o| o.protocol) == Protocol::AgUi {
            return self.list_local_threads(token).await;
        }
        let result = self
            .json_request::<Page<Thread>>(RequestBody::ListThreads {
                limit: Some(PAGE_SIZE),
                after,
                order: Some(ListOrder::Desc),
            })
            .await;
        if self.threads.list_token.get() != token {
            return;
        }
        let page = match result {
            Ok(page) => page,
            Err(e) => return self.threads_not_listed(token, e),
        };
        let strings = self.signals.strings.get_untracked();
        self.signals.history.list.update(|l| {
            for thread in &page.data {
                if !l.rows.iter().any(|r| r.id == thread.id) {
                    l.rows.push(ThreadRow {
                        id: thread.id.clone(),
                        label: self
                            .known_preview(thread)
                            .unwrap_or_else(|| thread_label(thread, &strings)),
                        titled: has_title(thread),
                        created_at: thread.created_at.clone(),
                    });
                }
            }
            l.has_more = page.has_more && page.after.is_some();
            l.after = page.after;
            l.loading = false;
            l.loaded = true;
        });
    }

    /// The history's list could not be fetched: it says why, with its Try again.
    fn threads_not_listed(&self, token: u64, e: TransportError) {
        if self.threads.list_token.get() != token {
            return;
        }
        let strings = self.signals.strings.get_untracked();
        self.signals.history.list.update(|l| {
            l.loading = false;
            l.loaded = true;
            l.error = Some(e.message_in(&strings));
        });
        self.report(ErrorKind::History, &e);
    }

    /// Rename a thread (`threads.update`). Resolves to whether the server took it.
    pub async fn rename_thread(self: Rc<Self>, id: ThreadId, title: String) -> bool {
        let title = title.trim().to_owned();
        if title.is_empty() {
            return false;
        }
        if self.options(|o| o.protocol) == Protocol::AgUi {
            if !self.rename_local_thread(&id, &title).await {
                return false;
            }
            self.signals.history.list.update(|l| {
                if let Some(row) = l.rows.iter_mut().find(|r| r.id == id) {
                    row.label = title.clone();
                    row.titled = true;
                }
            });
            let open = self.state.borrow().thread.clone();
            if let Some(open) = open.filter(|t| t.id == id) {
                self.dispatch(Input::Stream(Streamed::ThreadUpdated(Thread {
                    branching: open.branching,
                    id,
                    title: Some(title),
                    created_at: open.created_at,
                    status: Default::default(),
                    metadata: Default::default(),
                    items: None,
                })));
            }
            return true;
        }
        let result = self
            .json_request::<Thread>(RequestBody::UpdateThread {
                thread_id: id.clone(),
                title: title.clone(),
            })
            .await;
        match result {
            Ok(thread) => {
                let label = self.with_strings(|s| thread_label(&thread, s));
                self.signals.history.list.update(|l| {
                    if let Some(row) = l.rows.iter_mut().find(|r| r.id == id) {
                        row.label = label;
                        row.titled = true;
                    }
                });
                // The header shows the open thread's title: tell the reducer, as the
                // server would with `thread.updated` (only for that thread: the reducer
                // takes an update for an unknown thread as the open one).
                if self.state.borrow().thread_id() == Some(&thread.id) {
                    self.dispatch(Input::Stream(Streamed::ThreadUpdated(thread)));
                }
                true
            }
            Err(e) => {
                self.report(ErrorKind::ThreadUpdate, &e);
                false
            }
        }
    }

    /// Delete a thread (`threads.delete`). Deleting the open thread leaves a new chat
    /// behind the history.
    pub async fn delete_thread(self: Rc<Self>, id: ThreadId) -> bool {
        let result = if self.options(|o| o.protocol) == Protocol::AgUi {
            match self.delete_local_thread(&id).await {
                true => Ok(Value::Null),
                false => Err(TransportError::Network(
                    "this browser did not forget it".into(),
                )),
            }
        } else {
            self.json_request::<Value>(RequestBody::DeleteThread {
                thread_id: id.clone(),
            })
            .await
        };
        match result {
            Ok(_) => {
                self.signals
                    .history
                    .list
                    .update(|l| l.rows.retain(|r| r.id != id));
                let key = Some(id.clone());
                let gone = self.threads.drafts.borrow_mut().remove(&key);
                if let Some(draft) = gone {
                    self.discard_tray(draft.tray);
                }
                let shown = self.state.borrow().thread_id() == Some(&id)
                    || self.signals.history.opening.get_untracked().as_ref() == Some(&id);
                if shown {
                    // Its draft goes with it.
                    let tray = self.signals.tray.entries.get_untracked();
                    self.signals.tray.entries.set(Vec::new());
                    self.discard_tray(tray);
                    self.signals.draft.set(String::new());
                    self.reset_conversation();
                }
                true
            }
            Err(e) => {
                self.report(ErrorKind::ThreadDelete, &e);
                false
            }
        }
    }

    // ---- opening a thread -------------------------------------------------------------

    /// Show a thread from the history: `threads.get_by_id` and, at the same time, its newest
    /// page, used when the thread has more items than `get_by_id`'s first (oldest) page, so
    /// the end of the conversation shows first. Whatever was streaming stops; late answers of earlier loads are dropped.
    pub fn select_thread(self: &Rc<Self>, id: ThreadId) {
        self.open_thread(id, false);
    }

    /// Load the open thread again from the server (new items from elsewhere).
    pub fn refresh_thread(self: &Rc<Self>) {
        if let Some(id) = self.state.borrow().thread_id().cloned() {
            self.open_thread(id, true);
        }
    }

    /// Whether a thread is being opened right now.
    pub fn is_loading_thread(&self) -> bool {
        self.signals.history.opening.get_untracked().is_some()
    }

    fn open_thread(self: &Rc<Self>, id: ThreadId, force: bool) {
        self.close_history();
        let opening = self.signals.history.opening.get_untracked();
        let shown = self.state.borrow().thread_id().cloned();
        if opening.as_ref() == Some(&id)
            || (!force && opening.is_none() && shown.as_ref() == Some(&id))
        {
            return;
        }
        self.switch_draft(self.draft_owner(), Some(id.clone()));
        let token = self.bump_load_token();
        if self.is_streaming() {
            self.abort_in_flight();
            self.dispatch(Input::Cancelled);
        } else {
            self.abort_in_flight();
        }
        self.release_sent_previews();
        self.signals.history.opening.set(Some(id.clone()));
        self.signals.history.open_error.set(None);
        let this = Rc::clone(self);
        if self.options(|o| o.protocol) == Protocol::AgUi {
            // Its code comes with the history's (`crate::chunks`); it says why it failed.
            return wasm_bindgen_futures::spawn_local(async move {
                let opening = crate::chunks::runtime::ag_ui_open(Rc::clone(&this), id, token);
                if opening.await.is_err() {
                    this.signals.history.opening.set(None);
                }
            });
        }
        wasm_bindgen_futures::spawn_local(async move {
            let loaded = this.fetch_thread(&id, token).await;
            if this.threads.load_token.get() != token {
                return;
            }
            match loaded {
                Ok(thread) => {
                    this.dispatch(chat_shell_core::adapters::chatkit::thread_loaded(thread));
                    this.signals.history.opening.set(None);
                }
                Err(e) => {
                    this.signals.history.opening.set(None);
                    let message = this.with_strings(|s| {
                        s.format(Text::ThreadOpenError, &[("error", &e.message_in(s))])
                    });
                    this.signals.history.open_error.set(Some(message));
                    // The thread shown did not change: neither does its draft.
                    let shown = this.state.borrow().thread_id().cloned();
                    this.switch_draft(Some(id), shown);
                    this.report(ErrorKind::ThreadLoad, &e);
                }
            }
        });
    }

    /// A kept AG-UI thread could not be opened (`why`): said as a ChatKit one's failure is.
    pub(crate) fn local_thread_not_opened(&self, id: ThreadId, token: u64, why: &str) {
        if self.threads.load_token.get() != token {
            return;
        }
        self.signals.history.opening.set(None);
        let message = self.with_strings(|s| s.format(Text::ThreadOpenError, &[("error", why)]));
        self.signals.history.open_error.set(Some(message));
        let shown = self.state.borrow().thread_id().cloned();
        self.switch_draft(Some(id), shown);
    }

    /// The thread with its newest page of items (oldest first), `has_more`/`after` of
    /// that page describing the older items. `Err(Aborted)` when the load went stale.
    ///
    /// `get_by_id` answers with the OLDEST items, ascending (as the SDK does): a thread that
    /// fits in it is complete, a longer one needs its newest page. Both are asked at once,
    /// so opening a long thread costs one round trip, not two; for a short thread the
    /// newest page is one small answer left unused.
    async fn fetch_thread(&self, id: &ThreadId, token: u64) -> Result<Thread, TransportError> {
        let (thread, newest) = futures::future::join(
            self.json_request::<Thread>(RequestBody::GetThread {
                thread_id: id.clone(),
            }),
            self.json_request::<Page<ThreadItem>>(RequestBody::ListItems {
                thread_id: id.clone(),
                limit: Some(PAGE_SIZE),
                after: None,
                order: Some(ListOrder::Desc),
            }),
        )
        .await;
        let mut thread = thread?;
        if self.threads.load_token.get() != token {
            return Err(TransportError::Aborted);
        }
        let first = thread.items.take().unwrap_or_default();
        let newest = if first.has_more {
            let page = newest?;
            let mut data = page.data;
            data.reverse();
            Page {
                data,
                has_more: page.has_more,
                after: page.after,
            }
        } else {
            Page {
                data: first.data,
                has_more: false,
                after: None,
            }
        };
        thread.items = Some(newest);
        Ok(thread)
    }

    /// The page of items before the first one shown (the reader scrolled up).
    pub fn load_older(self: &Rc<Self>) {
        if self.signals.history.opening.get_untracked().is_some() {
            return;
        }
        let (thread_id, cursor) = {
            let state = self.state.borrow();
            match (state.thread_id().cloned(), &state.older) {
                (Some(t), older) if !older.loading => match older.cursor.clone() {
                    Some(c) => (t, c),
                    None => return,
                },
                _ => return,
            }
        };
        let token = self.threads.load_token.get();
        self.dispatch(Input::OlderRequested);
        let this = Rc::clone(self);
        wasm_bindgen_futures::spawn_local(async move {
            let result = this
                .json_request::<Page<ThreadItem>>(RequestBody::ListItems {
                    thread_id: thread_id.clone(),
                    limit: Some(OLDER_PAGE_SIZE),
                    after: Some(cursor),
                    order: Some(ListOrder::Desc),
                })
                .await;
            let same_thread = this.state.borrow().thread_id() == Some(&thread_id);
            if !same_thread {
                // Another thread's state has its own pages.
                return;
            }
            if this.threads.load_token.get() != token {
                return this.dispatch(Input::OlderEnded);
            }
            match result {
                Ok(page) => this.dispatch(chat_shell_core::adapters::chatkit::older_items(page)),
                Err(e) => {
                    this.dispatch(Input::OlderEnded);
                    this.report(ErrorKind::ItemsList, &e);
                }
            }
        });
    }

    /// A new token: loads started before it are stale from now on.
    pub(crate) fn bump_load_token(&self) -> u64 {
        let token = self.threads.load_token.get() + 1;
        self.threads.load_token.set(token);
        token
    }

    // ---- drafts -----------------------------------------------------------------------

    /// The thread the composer's draft belongs to: the one being opened, else the one
    /// shown (`None`: the new chat).
    pub(crate) fn draft_owner(&self) -> Option<ThreadId> {
        self.signals
            .history
            .opening
            .get_untracked()
            .or_else(|| self.state.borrow().thread_id().cloned())
    }

    /// Put the composer's text and tray away for `from` and bring back those of `to`.
    pub(crate) fn switch_draft(&self, from: Option<ThreadId>, to: Option<ThreadId>) {
        if from == to {
            return;
        }
        let current = Draft {
            text: self.signals.draft.get_untracked(),
            tray: self.signals.tray.entries.get_untracked(),
        };
        let next = {
            let mut drafts = self.threads.drafts.borrow_mut();
            if current.is_empty() {
                drafts.remove(&from);
            } else {
                drafts.insert(from, current);
            }
            drafts.remove(&to).unwrap_or_default()
        };
        self.signals.draft.set(next.text);
        self.signals.tray.entries.set(next.tray);
        self.signals.tray.error.set(None);
    }

    /// A teammate's older messages (Agent UI `session.hydrated`, on demand): the page before
    /// its oldest loaded message, asked with `metadata.agentUi.history`. The reducer puts
    /// the page in front only if the transcript still starts there, so a slow answer for a
    /// conversation left, or a second click, changes nothing. `Err` says, in the reader's
    /// language, why it did not arrive (the view shows it and offers the load again).
    pub async fn load_earlier(self: &Rc<Self>, agent_id: &str) -> Result<(), String> {
        let anchor = self.with_state(|s| {
            let m = s.team.as_ref()?.member(agent_id)?;
            Some((m.session_id.clone()?, m.transcript.first()?.id.clone()))
        });
        let Some((session_id, before)) = anchor else {
            return Ok(());
        };
        let write = chat_shell_core::protocol::agent_ui::history_metadata(&session_id, &before);
        let request = self.agent_ui_request(None, Some(write));
        let page = async {
            let abort = AbortController::new()
                .map_err(|_| TransportError::Protocol("AbortController is unavailable".into()))?;
            let http = self.http().await?;
            let page = transport::post_text(&http, &request, &abort.signal()).await?;
            chat_shell_core::adapters::agent_ui::history_page(&page)
                .map_err(|e| TransportError::Protocol(e.message))
        }
        .await;
        match page {
            Ok(input) => {
                self.dispatch(input);
                Ok(())
            }
            Err(e) => Err(self.with_strings(|s| e.message_in(s))),
        }
    }
}
