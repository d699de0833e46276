//! What every handler shares: the store, the settings the command line chose, the run and
//! channel hubs, the ACP bridge, and the permission requests runs are waiting for.

use crate::acp::bridge::Bridge;
use crate::auth::{Auth, Identify, User};
use crate::channel::hub::Hub;
use crate::clients::Clients;
use crate::errors::internal;
use crate::guard::policy::Policy;
use crate::handlers::agent_ui::live_runs::LiveRuns;
use crate::runs::{self, Run};
use crate::sandbox::Scratch;
use crate::shared::Shared;
use crate::store::{self, Store, UserStore};
use axum::response::Response;
use chat_shell_core::protocol::chatkit::{ItemId, ItemKind, ThreadItem};
use std::collections::HashMap;
use std::net::IpAddr;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;
use tokio::sync::{oneshot, watch};

/// What the command line (or a host app, through `Chat::builder`) decides about serving.
pub struct Settings {
    pub pace: Duration,
    /// `host:port` actually bound, for URLs when a request has no `Host` header.
    pub authority: String,
    /// Where the host app nests the runtime's routes (`/chat`; empty for the binary): the
    /// URLs the runtime makes start with it.
    pub prefix: String,
    /// Who is asking, as the host app says; `None`: bearer tokens and cookies.
    pub identify: Option<Arc<Identify>>,
    /// Hosts and origins requests may come from.
    pub policy: Policy,
    /// Bearer tokens accepted as identities (`--token`, `CHAT_SHELL_RUNTIME_TOKENS`).
    pub tokens: Vec<String>,
    /// The largest attachment, in bytes (`--max-upload-mb`).
    pub max_upload: usize,
    /// The token tools send to `POST /callback` (`--callback-token`); `None`: it is off.
    pub callback_token: Option<String>,
    /// How long a thread channel stays silent before a `: keepalive` comment.
    pub channel_keepalive: Duration,
    /// Where the `edit` scenario keeps its scratch folders (one per thread).
    pub scratch_root: PathBuf,
    /// What one identity may hold open: channels, runs, an abandoned run's life.
    pub limits: runs::Limits,
    /// The PostgreSQL database shared with other instances, if the store is one.
    pub shared: Option<Arc<Shared>>,
    /// What one client address may hold (shared with `connections`).
    pub clients: Arc<Clients>,
    /// How long a thread channel lives before it is closed (the element reconnects).
    pub channel_lifetime: Duration,
    /// Proxies whose `X-Forwarded-For` names the client (`--trust-proxy`).
    pub trusted_proxies: Vec<IpAddr>,
    /// The open thread channels (shared with the ACP bridge, which tells them of sessions).
    pub channels: Arc<Hub>,
    /// The ACP bridge, with `--acp`.
    pub acp: Option<Arc<Bridge>>,
}

/// What every handler shares.
pub struct AppState {
    pub store: Arc<Store>,
    pub pace: Duration,
    /// `host:port` actually bound, for URLs when a request has no `Host` header.
    pub authority: String,
    /// Where the host app nests the runtime's routes (empty for the binary).
    pub prefix: String,
    pub policy: Policy,
    /// Who is asking, as the host app says; `None`: bearer tokens and cookies (`auth`).
    pub(crate) identify: Option<Arc<Identify>>,
    pub auth: Auth,
    pub max_upload: usize,
    /// The token tools send to `POST /callback`; `None`: it is off.
    pub callback_token: Option<String>,
    /// How long a thread channel stays silent before a `: keepalive` comment.
    pub channel_keepalive: Duration,
    /// Where the `edit` scenario keeps its scratch folders (one per thread).
    pub scratch_root: PathBuf,
    /// The open thread channels (`threads.subscribe`).
    pub(crate) channels: Arc<Hub>,
    /// The answers under way, by thread (see `runs`).
    pub(crate) runs: runs::Runs,
    /// The live `/agent-ui` runs, which take queued and steering turns.
    pub(crate) live: LiveRuns,
    /// Some threads have no owner yet: the first identity to make a request gets them.
    pub unclaimed: AtomicBool,
    /// How many times each user message has been answered (the `error` scenario fails
    /// the first time only).
    attempts: Mutex<HashMap<String, u32>>,
    /// Runs waiting for the answer to a permission request, by (user, tool call item).
    permission_waits: Mutex<HashMap<(String, ItemId), Waiter>>,
    /// Turns true when the runtime stops: open streams end (`stop` says it).
    pub(crate) shutdown: watch::Receiver<bool>,
    stop: watch::Sender<bool>,
    /// The database shared with other instances (`--database postgres://…`).
    pub(crate) shared: Option<Arc<Shared>>,
    /// What one client address may hold, and how fast it may mint identities.
    pub(crate) clients: Arc<Clients>,
    /// How long a thread channel lives before it is closed (the element reconnects).
    pub(crate) channel_lifetime: Duration,
    /// Proxies whose `X-Forwarded-For` names the client (`--trust-proxy`).
    pub(crate) trusted_proxies: Vec<IpAddr>,
    /// The ACP bridge, with `--acp`: every ACP request goes through it.
    pub(crate) acp: Option<Arc<Bridge>>,
}

/// A run waiting for a permission decision (see `Step::AwaitPermission`).
pub(crate) struct Waiter {
    /// Takes the decided item.
    pub(crate) decided: oneshot::Sender<Box<ThreadItem>>,
    /// The waiting run, to tell whether it will use the answer (weak: the registry must
    /// not keep it).
    pub(crate) run: Weak<Run>,
}

impl AppState {
    /// `unclaimed`: whether the store holds threads without an owner; `stop` ends the open
    /// streams when it turns true (the state holds it, so they never end for want of it).
    pub fn new(
        store: Arc<Store>,
        settings: Settings,
        unclaimed: bool,
        stop: watch::Sender<bool>,
    ) -> Self {
        AppState {
            auth: Auth::new(*store.secret(), &settings.tokens),
            store,
            pace: settings.pace,
            authority: settings.authority,
            prefix: settings.prefix,
            policy: settings.policy,
            identify: settings.identify,
            max_upload: settings.max_upload,
            callback_token: settings.callback_token,
            channel_keepalive: settings.channel_keepalive,
            scratch_root: settings.scratch_root,
            channels: settings.channels,
            runs: runs::Runs::new(settings.limits, settings.clients.clone())
                .with_shared(settings.shared.clone()),
            clients: settings.clients,
            channel_lifetime: settings.channel_lifetime,
            trusted_proxies: settings.trusted_proxies,
            acp: settings.acp,
            live: LiveRuns::default(),
            unclaimed: AtomicBool::new(unclaimed),
            attempts: Mutex::new(HashMap::new()),
            permission_waits: Mutex::new(HashMap::new()),
            shutdown: stop.subscribe(),
            stop,
            shared: settings.shared,
        }
    }

    /// Runs `f` on `user`'s view of the store on a blocking thread (SQLite never holds up
    /// the async workers). A failure is logged and answered with a bare 500.
    pub async fn db<T: Send + 'static>(
        &self,
        user: &User,
        f: impl FnOnce(&UserStore<'_>) -> store::Result<T> + Send + 'static,
    ) -> Result<T, Response> {
        store::blocking(self.store.clone(), user.0.clone(), f)
            .await
            .map_err(internal)
    }

    /// Ends the open streams and channels (the runtime is stopping).
    pub(crate) fn stop(&self) {
        self.stop.send_replace(true);
    }

    /// Where the `edit` scenario works and pushes its diffs.
    pub(crate) fn scratch(&self) -> Scratch<'_> {
        Scratch {
            root: &self.scratch_root,
            authority: &self.authority,
            prefix: &self.prefix,
            callback_token: self.callback_token.as_deref(),
        }
    }

    pub(crate) fn waits(&self) -> std::sync::MutexGuard<'_, HashMap<(String, ItemId), Waiter>> {
        self.permission_waits
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    /// Hands `decided` to the run of `user` waiting for it, if there is one and it is
    /// neither stopping nor over; else gives it back.
    pub(crate) fn hand_to_waiter(
        &self,
        user: &User,
        decided: Box<ThreadItem>,
    ) -> Result<(), Box<ThreadItem>> {
        let key = (user.0.clone(), decided.id.clone());
        let Some(waiter) = self.waits().remove(&key) else {
            return Err(decided);
        };
        let listening = waiter.run.upgrade().is_some_and(|run| run.is_live());
        if !listening {
            return Err(decided);
        }
        waiter.decided.send(decided)
    }

    /// Another instance saved the answer to the permission request of `item`: the run
    /// here that waits for it (if any) goes on with it (blocking).
    pub(crate) fn permission_decided(&self, thread: &str, item: &ItemId) -> store::Result<()> {
        let waiting = self
            .waits()
            .keys()
            .find(|(_, id)| id == item)
            .map(|(user, _)| User(user.clone()));
        let Some(user) = waiting else {
            return Ok(());
        };
        let Some(decided) = self.store.user(&user.0).item(&thread.into(), item)? else {
            return Ok(());
        };
        // A notification alone is not trusted (anyone who can reach the database can send
        // one): the stored item must hold the answer, or the waiter stays for the real one.
        let answered = matches!(&decided.kind, ItemKind::AcpToolCall(call)
            if call.permission.as_ref().is_some_and(|p| p.outcome.is_some()));
        if answered && self.hand_to_waiter(&user, Box::new(decided)).is_ok() {
            println!("permission answered on another instance: thread={thread} item={item}");
        }
        Ok(())
    }

    pub(crate) fn next_attempt(&self, user_message: &ItemId) -> u32 {
        let mut attempts = self.attempts.lock().unwrap_or_else(|e| e.into_inner());
        let n = attempts.entry(user_message.0.clone()).or_insert(0);
        *n += 1;
        *n
    }
}
