//! AG-UI runs (`protocol="ag-ui"`): the conversation's own facts kept beside the state (its
//! thread id, the agent's shared state, what must go back unread, the interrupts waiting),
//! one `RunAgentInput` per run, a declared client tool answered by a new run, an interrupt
//! answered by a resumed run, and Retry running the same messages again. Stop aborts the
//! request: AG-UI has no cancel call.

use super::stream::Frames;
use super::Runtime;
use chat_shell_core::adapters::ag_ui::{branches, AgUiAdapter, Conversation, RunSetup, APPROVE};
use chat_shell_core::protocol::acp::{ElicitationOutcome, PermissionOutcome};
use chat_shell_core::protocol::ag_ui::{Resume, ResumeStatus, Tool};
use chat_shell_core::protocol::chatkit::{ItemId, Thread, ThreadId};
use chat_shell_core::reducer::{Input, Streamed};
use serde_json::{json, Value};
use std::rc::Rc;

/// A fresh id: the browser's random UUID where there is one.
fn fresh_id(prefix: &str) -> String {
    let crypto = web_sys::window().and_then(|w| w.crypto().ok());
    match crypto.map(|c| c.random_uuid()) {
        Some(uuid) => format!("{prefix}-{uuid}"),
        None => format!("{prefix}-{}", js_sys::Date::now() as u64),
    }
}

impl Runtime {
    /// Declare (or with `None` withdraw) a client tool to the agent.
    pub fn declare_client_tool(&self, name: &str, declaration: Option<Tool>) {
        let mut declared = self.ag_ui.declared.borrow_mut();
        declared.retain(|t| t.name != name);
        declared.extend(declaration);
    }

    pub(crate) fn set_host_threads(&self, threads: Option<wasm_bindgen::JsValue>) {
        *self.ag_ui.host_threads.borrow_mut() = threads;
    }

    /// The agent's shared state of the open conversation (`el.agentState`).
    pub fn agent_state(&self) -> Option<Value> {
        self.with_state(|s| s.agent_state.clone())
    }

    /// The open conversation's facts, made for a new conversation (and its thread shown)
    /// when there are none for the thread open now.
    fn ag_ui_conversation(&self) -> Conversation {
        let open = self.state.borrow().thread_id().map(|t| t.0.clone());
        let kept = self.ag_ui.conversation.borrow().clone();
        match (kept, open) {
            (Some(c), Some(open)) if c.thread_id == open => c,
            (_, Some(open)) => Conversation::new(open),
            (_, None) => {
                let id = fresh_id("thread");
                let title = self.with_state(|s| {
                    s.items().iter().find_map(|i| match &i.entry.kind {
                        chat_shell_core::model::EntryKind::UserMessage(m) => Some(m.text()),
                        _ => None,
                    })
                });
                // Made here, not decoded: the thread decoder lives in a chunk.
                // The client keeps this conversation's branches.
                let thread = Thread {
                    branching: true,
                    id: ThreadId(id.clone()),
                    title: title.map(|t| t.chars().take(80).collect()),
                    created_at: js_sys::Date::new_0().to_iso_string().into(),
                    status: Default::default(),
                    metadata: Default::default(),
                    items: None,
                };
                self.dispatch(Input::Stream(Streamed::ThreadCreated(thread)));
                Conversation::new(id)
            }
        }
    }

    /// Start a run for the conversation as it is now (right after `SendStarted`, a client
    /// tool's result or `RetryStarted`); `resume` answers interrupts. Its code comes with
    /// the adapters (`crate::chunks`).
    pub(crate) fn start_ag_ui(self: &Rc<Self>, resume: Vec<Resume>) {
        let this = Rc::clone(self);
        let generation = self.generation.get();
        wasm_bindgen_futures::spawn_local(async move {
            let started = crate::chunks::runtime::ag_ui_start(Rc::clone(&this), generation, resume);
            if started.await.is_err() && this.generation.get() == generation {
                this.dispatch(Input::StreamFailed {
                    message: this.text(chat_shell_core::strings::Text::AnswerFailed),
                    allow_retry: true,
                });
            }
        });
    }

    /// [`Runtime::start_ag_ui`], once the adapters are here: unless a Stop or a new chat
    /// came meanwhile (`generation`).
    pub(crate) fn run_ag_ui(self: &Rc<Self>, generation: u64, resume: Vec<Resume>) {
        if self.generation.get() != generation {
            return;
        }
        let conversation = self.ag_ui_conversation();
        *self.ag_ui.conversation.borrow_mut() = Some(conversation.clone());
        let declared: Vec<Tool> = self.ag_ui.declared.borrow().clone();
        let setup = RunSetup {
            run_id: fresh_id("run"),
            tools: declared.clone(),
            resume: resume.clone(),
            forwarded_props: self.options(|o| o.metadata.clone()).map(Value::Object),
            context: Vec::new(),
        };
        let names = declared.into_iter().map(|t| t.name).collect();
        let (request, adapter) = self.with_state(|state| {
            let ids = state.items().iter().map(|i| i.entry.id.0.clone()).collect();
            let request = chat_shell_core::adapters::ag_ui::request(state, &conversation, setup);
            (
                serde_json::to_value(request).unwrap_or_default(),
                AgUiAdapter::new(ids, names, resume).with_labels(
                    self.text(chat_shell_core::strings::Text::Approve),
                    self.text(chat_shell_core::strings::Text::Reject),
                ),
            )
        });
        let shared = Rc::clone(&self.ag_ui.conversation);
        self.start_post(request, Frames::AgUi(Box::new(adapter), shared));
    }

    /// Retry the failed run: the same messages again, up to the user message it answered.
    /// `user_message` answered again; its answer is kept as a branch if `keep` (a failed
    /// answer is not: it is replaced).
    pub(crate) fn retry_ag_ui(self: &Rc<Self>, user_message: ItemId, keep: bool) {
        let after = self.with_state(|s| {
            s.items()
                .iter()
                .position(|i| i.entry.id == user_message)
                .map(|at| at + 1)
                .filter(|_| keep)
        });
        let this = Rc::clone(self);
        wasm_bindgen_futures::spawn_local(async move {
            if let Some(at) = after {
                // Without the code to keep it, the answer is replaced as before.
                let _ = crate::chunks::runtime::ag_ui_fork(Rc::clone(&this), at).await;
            }
            this.dispatch(Input::RetryStarted { user_message });
            this.start_ag_ui(Vec::new());
        });
    }

    /// Keeps the branch shown from `items[at]` on (`adapters::ag_ui::branches::fork`).
    pub(crate) fn fork_ag_ui(&self, at: usize) {
        let mut conversation = self.ag_ui_conversation();
        self.with_state(|s| branches::fork(s, &mut conversation, at));
        *self.ag_ui.conversation.borrow_mut() = Some(conversation);
    }

    /// Shows the kept branch `target` in place of the one shown, which is kept in turn.
    pub(crate) fn switch_ag_ui(self: &Rc<Self>, target: &ItemId) {
        let mut conversation = self.ag_ui_conversation();
        let entries = self.with_state(|s| branches::switch(s, &mut conversation, target));
        *self.ag_ui.conversation.borrow_mut() = Some(conversation);
        if let Some(entries) = entries {
            self.dispatch(Input::ItemsReplaced(entries));
            self.mark_ag_ui_branches();
            self.save_local_thread();
        }
    }

    /// Marks the entries that start a branch with their branches (after a run, a switch,
    /// a thread opened).
    pub(crate) fn mark_ag_ui_branches(&self) {
        let Some(mut conversation) = self.ag_ui.conversation.borrow().clone() else {
            return;
        };
        let marks = self.with_state(|s| branches::settle(s, &mut conversation));
        *self.ag_ui.conversation.borrow_mut() = Some(conversation);
        if !marks.is_empty() {
            self.dispatch(Input::BranchesMarked(marks));
        }
    }

    /// Answer an interrupt's card (Approve or Reject) with a resumed run. An expired
    /// interrupt is not answered: it says so.
    pub(crate) fn answer_interrupt(self: &Rc<Self>, item_id: &ItemId, outcome: PermissionOutcome) {
        let payload = match &outcome {
            PermissionOutcome::Selected { option_id } => {
                Some(json!({ "approved": option_id.0 == APPROVE }))
            }
            _ => None,
        };
        let status = match outcome {
            PermissionOutcome::Selected { .. } => ResumeStatus::Resolved,
            _ => ResumeStatus::Cancelled,
        };
        self.resume_interrupt(item_id, status, payload);
    }

    /// Answer an interrupt's form: its values, or cancelled (Decline, Cancel).
    pub(crate) fn answer_interrupt_form(
        self: &Rc<Self>,
        item_id: &ItemId,
        outcome: &ElicitationOutcome,
    ) {
        let (status, payload) = match outcome.action.as_str() {
            "accept" => (
                ResumeStatus::Resolved,
                Some(Value::Object(outcome.content.clone().unwrap_or_default())),
            ),
            _ => (ResumeStatus::Cancelled, None),
        };
        self.resume_interrupt(item_id, status, payload);
    }

    fn resume_interrupt(
        self: &Rc<Self>,
        item_id: &ItemId,
        status: ResumeStatus,
        payload: Option<Value>,
    ) {
        let (this, item_id) = (Rc::clone(self), item_id.clone());
        wasm_bindgen_futures::spawn_local(async move {
            let answer = crate::chunks::runtime::ag_ui_answer(
                Rc::clone(&this),
                item_id.clone(),
                status,
                payload,
            );
            if answer.await.is_err() {
                this.dispatch(Input::PermissionNotSent {
                    item_id,
                    message: this.text(chat_shell_core::strings::Text::AnswerFailed),
                });
            }
        });
    }

    /// [`Runtime::resume_interrupt`], once the adapters are here. An expired interrupt is
    /// not answered: it says so.
    pub(crate) fn answer_ag_ui(
        self: &Rc<Self>,
        item_id: &ItemId,
        status: ResumeStatus,
        payload: Option<Value>,
    ) {
        let interrupt = self
            .ag_ui
            .conversation
            .borrow()
            .as_ref()
            .and_then(|c| c.interrupt_of(item_id).cloned());
        let Some(interrupt) = interrupt else {
            return self.dispatch(Input::PermissionNotSent {
                item_id: item_id.clone(),
                message: self.text(chat_shell_core::strings::Text::EventsMissing),
            });
        };
        let expired = interrupt.expires_at.as_deref().is_some_and(|at| {
            let at = js_sys::Date::parse(at);
            !at.is_nan() && at < js_sys::Date::now()
        });
        if expired {
            if let Some(c) = self.ag_ui.conversation.borrow_mut().as_mut() {
                c.interrupts.retain(|i| i.id != interrupt.id);
            }
            self.dispatch(Input::ActionResolved {
                action_id: interrupt.id.clone(),
                outcome: PermissionOutcome::Cancelled,
                answer: None,
                answers: None,
            });
            return self.dispatch(Input::RunError {
                message: self.text(chat_shell_core::strings::Text::InterruptExpired),
                code: Some("interrupt_expired".into()),
            });
        }
        if !self.is_streaming() {
            self.dispatch(Input::TurnStarted);
        }
        let resume = vec![Resume {
            interrupt_id: interrupt.id,
            status,
            payload,
        }];
        self.run_ag_ui(self.generation.get(), resume);
    }
}
