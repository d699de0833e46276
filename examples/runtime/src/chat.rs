//! The runtime as a library: [`Chat::builder`] makes the chat-shell endpoint an axum app
//! nests under its own router, in its own process, with its own login
//! ([`ChatBuilder::identity`]). The binary is built the same way (`server`).
//!
//! What the binary's flags set, the builder sets: the store, scripted answers or an ACP
//! agent, the limits, the tokens. The routes are the binary's, without its pages: every
//! request passes the same guard (Host, Origin, identity), limits and scoping by user.

use crate::acp;
use crate::acp::bridge::Bridge;
use crate::auth::Identify;
use crate::channel::hub::Hub;
use crate::clients::{self, Clients};
use crate::config::{self, check_database_url, check_token};
use crate::guard::policy::Policy;
use crate::routes;
use crate::runs;
use crate::shared::{self, Shared};
use crate::state::{AppState, Settings};
use crate::store::Store;
use axum::http::request::Parts;
use axum::Router;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;

/// The default `--pace-ms`: the pause between streamed deltas of a scripted answer.
const DEFAULT_PACE: Duration = Duration::from_millis(20);
/// The default `--max-upload-mb`.
const DEFAULT_MAX_UPLOAD_MB: usize = crate::handlers::upload::DEFAULT_MAX_UPLOAD_MB;
/// A stop waits this long for the journals of shared runs.
const LEAVE_WAIT: Duration = Duration::from_secs(3);

/// A chat-shell endpoint running in this process: its routes ([`Chat::router`]) and its
/// life ([`Chat::shutdown`]).
pub struct Chat {
    state: Arc<AppState>,
    /// The thread `--seed-thread` made.
    seeded: Option<String>,
    scratch_root: PathBuf,
    shared: Option<Arc<Shared>>,
}

/// Where the history is kept.
#[derive(Clone, Debug)]
enum Keep {
    Memory,
    Sqlite(PathBuf),
    Postgres(String),
    /// The app's own pool, and the same database's settings for the listener.
    PostgresPool(PgPool, Box<tokio_postgres::Config>),
}

/// A pool of PostgreSQL connections, as an app that has one gives it ([`ChatBuilder::postgres_pool`]).
pub type PgPool = r2d2::Pool<r2d2_postgres::PostgresConnectionManager<postgres::NoTls>>;

/// The ACP agent that answers, and what it may touch.
#[derive(Clone, Debug, Default)]
struct Agent {
    command: String,
    workspace: Option<PathBuf>,
    allow_terminal: bool,
    share_sessions: bool,
    pass_env: Vec<String>,
    max_message_mb: usize,
}

/// How a [`Chat`] is made: each setting has the binary's default.
#[must_use]
pub struct ChatBuilder {
    keep: Keep,
    /// `--seed-thread N`, `--seed-mixed`.
    seed: Option<(usize, bool)>,
    agent: Option<Agent>,
    limits: runs::Limits,
    client_limits: clients::Limits,
    tokens: Vec<String>,
    callback_token: Option<String>,
    prefix: String,
    identify: Option<Arc<Identify>>,
    allowed_hosts: Vec<String>,
    allow_origins: Vec<String>,
    /// The binary's, made with the port it bound; else [`Policy::embedded`].
    policy: Option<Policy>,
    authority: String,
    pace: Duration,
    max_upload_mb: usize,
    channel_keepalive: Duration,
    channel_lifetime: Duration,
    trusted_proxies: Vec<IpAddr>,
    lease: Duration,
}

/// Why a [`Chat`] could not be made: a setting it refuses, or a store it cannot open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error(String);

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl From<String> for Error {
    fn from(message: String) -> Self {
        Error(message)
    }
}

impl Default for ChatBuilder {
    fn default() -> Self {
        ChatBuilder {
            keep: Keep::Memory,
            seed: None,
            agent: None,
            limits: runs::Limits::default(),
            client_limits: clients::Limits::default(),
            tokens: Vec::new(),
            callback_token: None,
            prefix: String::new(),
            identify: None,
            allowed_hosts: Vec::new(),
            allow_origins: Vec::new(),
            policy: None,
            authority: "localhost".into(),
            pace: DEFAULT_PACE,
            max_upload_mb: DEFAULT_MAX_UPLOAD_MB,
            channel_keepalive: Duration::from_millis(crate::channel::DEFAULT_KEEPALIVE_MS),
            channel_lifetime: crate::channel::DEFAULT_LIFETIME,
            trusted_proxies: Vec::new(),
            lease: Duration::from_secs(shared::DEFAULT_LEASE_SECS),
        }
    }
}

impl ChatBuilder {
    /// Keeps the history in memory, gone when the process ends (the default).
    pub fn memory(mut self) -> Self {
        self.keep = Keep::Memory;
        self
    }

    /// Keeps the history in the SQLite file `path` (made if missing).
    pub fn sqlite(mut self, path: impl Into<PathBuf>) -> Self {
        self.keep = Keep::Sqlite(path.into());
        self
    }

    /// Keeps the history in PostgreSQL (`postgres://USER:PASSWORD@HOST:PORT/DATABASE`);
    /// instances on one database share their conversations.
    pub fn postgres(mut self, url: impl Into<String>) -> Self {
        self.keep = Keep::Postgres(url.into());
        self
    }

    /// Keeps the history in PostgreSQL through the app's own pool (no TLS, as
    /// [`postgres`](Self::postgres)); `config` is the same database's settings, for the one
    /// connection of its own that listens to other instances. The schema is brought up to
    /// date on [`build`](Self::build).
    pub fn postgres_pool(mut self, pool: PgPool, config: tokio_postgres::Config) -> Self {
        self.keep = Keep::PostgresPool(pool, Box::new(config));
        self
    }

    /// Answers with the scripted, model-free scenarios (the default).
    pub fn scripted(mut self) -> Self {
        self.agent = None;
        self
    }

    /// Answers with this ACP agent (`'COMMAND [ARGS]'`), spawned on the first message. The
    /// agent is started through this process's own binary: its `main` calls
    /// [`hidden_mode`](crate::hidden_mode) first.
    pub fn acp_agent(mut self, command: impl Into<String>) -> Self {
        self.agent = Some(Agent {
            command: command.into(),
            max_message_mb: acp::DEFAULT_MAX_MESSAGE_MB,
            ..Agent::default()
        });
        self
    }

    /// The agent's working folder, where its `fs/*` calls are confined (with
    /// [`acp_agent`](Self::acp_agent)).
    pub fn workspace(mut self, dir: impl Into<PathBuf>) -> Self {
        if let Some(agent) = &mut self.agent {
            agent.workspace = Some(dir.into());
        }
        self
    }

    /// Lets the agent run commands (`terminal/*`) in its workspace, without a sandbox.
    pub fn allow_terminal(mut self) -> Self {
        if let Some(agent) = &mut self.agent {
            agent.allow_terminal = true;
        }
        self
    }

    /// What one identity may hold open (channels, runs) and how long a run nobody reads
    /// lives.
    pub fn limits(mut self, limits: runs::Limits) -> Self {
        self.limits = limits;
        self
    }

    /// What one client address may hold, and everyone's runs together.
    pub fn client_limits(mut self, limits: clients::Limits) -> Self {
        self.client_limits = limits;
        self
    }

    /// Turns on `POST {prefix}/callback` for tools pushing views, with this bearer token.
    pub fn callback_token(mut self, token: impl Into<String>) -> Self {
        self.callback_token = Some(token.into());
        self
    }

    /// Accepts `Authorization: Bearer TOKEN` as one user (without an identity hook).
    pub fn token(mut self, token: impl Into<String>) -> Self {
        self.tokens.push(token.into());
        self
    }

    /// Where the app nests the routes (`/chat`: the element's `endpoint` is
    /// `/chat/chatkit`): the URLs the runtime makes (uploads, previews) start with it.
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// Who is asking, as the app's own session says: `Some(user id)`, or `None` to refuse
    /// the request (401). Threads are the user's as they would be a cookie's; neither
    /// bearer tokens nor cookies are read.
    pub fn identity<F>(mut self, identify: F) -> Self
    where
        F: Fn(&Parts) -> Option<String> + Send + Sync + 'static,
    {
        self.identify = Some(Arc::new(identify));
        self
    }

    /// Also answers requests whose `Host` is this (`name` or `name:port`); the loopback
    /// names always pass.
    pub fn allowed_host(mut self, host: impl Into<String>) -> Self {
        self.allowed_hosts.push(host.into());
        self
    }

    /// Lets pages of this origin (`https://app.example.com`) call the routes with CORS.
    pub fn allow_origin(mut self, origin: impl Into<String>) -> Self {
        self.allow_origins.push(origin.into());
        self
    }

    /// The `host:port` the app serves on: for URLs when a request has no `Host`, and where
    /// the `edit` scenario pushes its diff (`POST {prefix}/callback`).
    pub fn authority(mut self, authority: impl Into<String>) -> Self {
        self.authority = authority.into();
        self
    }

    /// The pause between the streamed deltas of a scripted answer.
    pub fn pace(mut self, pace: Duration) -> Self {
        self.pace = pace;
        self
    }

    /// The largest attachment, in MB (1 to 1024).
    pub fn max_upload_mb(mut self, mb: usize) -> Self {
        self.max_upload_mb = mb;
        self
    }

    /// A reverse proxy whose `X-Forwarded-For` names the client.
    pub fn trust_proxy(mut self, proxy: IpAddr) -> Self {
        self.trusted_proxies.push(proxy);
        self
    }

    /// The binary's settings: what `config` says (its hosts and origins come with the port
    /// it binds, [`Opened::bound`]).
    pub(crate) fn from_config(config: &config::Config) -> Self {
        let keep = match (&config.database, &config.db) {
            (Some(url), _) => Keep::Postgres(url.clone()),
            (None, Some(path)) => Keep::Sqlite(path.clone()),
            (None, None) => Keep::Memory,
        };
        let agent = config.acp.as_ref().map(|command| Agent {
            command: command.clone(),
            workspace: config.workspace.clone(),
            allow_terminal: config.allow_terminal,
            share_sessions: config.share_agent_sessions,
            pass_env: config.pass_env.clone(),
            max_message_mb: config.max_agent_message_mb,
        });
        ChatBuilder {
            keep,
            seed: config.seed_items.map(|n| (n, config.seed_mixed)),
            agent,
            limits: config.limits,
            client_limits: config.clients,
            tokens: config.tokens.clone(),
            callback_token: config.callback_token.clone(),
            prefix: String::new(),
            identify: None,
            allowed_hosts: Vec::new(),
            allow_origins: Vec::new(),
            policy: None,
            authority: String::new(),
            pace: Duration::from_millis(config.pace_ms),
            max_upload_mb: config.max_upload_mb,
            channel_keepalive: Duration::from_millis(config.channel_keepalive_ms),
            channel_lifetime: config.channel_lifetime,
            trusted_proxies: config.trusted_proxies.clone(),
            lease: Duration::from_secs(config.lease_secs),
        }
    }

    /// Checks the settings, opens the store (seeded if asked) and starts what runs beside
    /// the routes (the lease and listener of a shared database).
    pub async fn build(self) -> Result<Chat, Error> {
        self.open().await?.finish().await
    }

    /// The settings checked and the store open (the binary binds its port between this
    /// and [`Opened::finish`], as it always has).
    pub(crate) async fn open(self) -> Result<Opened, Error> {
        for token in self.tokens.iter().chain(&self.callback_token) {
            check_token(token)?;
        }
        if let Keep::Postgres(url) = &self.keep {
            check_database_url(url)?;
        }
        if !(1..=1024).contains(&self.max_upload_mb) {
            return Err(Error("the largest upload is 1 to 1024 MB".into()));
        }
        let prefix_ok = self.prefix.is_empty()
            || (self.prefix.starts_with('/')
                && !self.prefix.ends_with('/')
                && !self.prefix.contains(['?', '#', ' ']));
        if !prefix_ok {
            return Err(Error(format!(
                "the prefix is a path like /chat: {}",
                self.prefix
            )));
        }
        let (keep, seed, branching) = (self.keep.clone(), self.seed, self.agent.is_none());
        let (store, seeded, unowned) =
            tokio::task::spawn_blocking(move || open_store(&keep, seed, branching))
                .await
                .map_err(|e| e.to_string())??;
        Ok(Opened {
            builder: self,
            store: Arc::new(store),
            seeded,
            unowned,
        })
    }
}

/// A chat whose store is open: the rest is made by [`Opened::finish`].
pub(crate) struct Opened {
    builder: ChatBuilder,
    store: Arc<Store>,
    seeded: Option<String>,
    unowned: bool,
}

impl Opened {
    /// The binary's hosts and origins, checked against the port it bound, and its address.
    pub(crate) fn bound(mut self, policy: Policy, authority: String) -> Self {
        self.builder.policy = Some(policy);
        self.builder.authority = authority;
        self
    }

    /// The agent's bridge, the shared database's part, the app state: the chat.
    pub(crate) async fn finish(self) -> Result<Chat, Error> {
        let Opened {
            builder,
            store,
            seeded,
            unowned,
        } = self;
        let policy = match builder.policy {
            Some(policy) => policy,
            None => Policy::embedded(&builder.allowed_hosts, &builder.allow_origins)?,
        };
        let (stop, stopped) = watch::channel(false);
        let scratch_root = scratch_root();
        let channels = Arc::new(Hub::default());
        let bridge = match &builder.agent {
            Some(agent) => {
                let mut acp = acp::Config::new(
                    &agent.command,
                    agent.workspace.as_deref(),
                    agent.allow_terminal,
                )?;
                acp.env.pass = agent.pass_env.clone();
                acp.share_sessions = agent.share_sessions;
                acp.max_message = agent.max_message_mb << 20;
                settle_permissions(&store).await;
                Some(Bridge::new(acp, store.clone(), channels.clone(), stopped))
            }
            None => None,
        };
        let shared = Shared::new(&store, builder.lease);
        let clients = Clients::new(builder.client_limits);
        let state = Arc::new(AppState::new(
            store,
            Settings {
                pace: builder.pace,
                authority: builder.authority,
                prefix: builder.prefix,
                identify: builder.identify,
                policy,
                tokens: builder.tokens,
                max_upload: builder.max_upload_mb * 1024 * 1024,
                callback_token: builder.callback_token,
                channel_keepalive: builder.channel_keepalive,
                scratch_root: scratch_root.clone(),
                limits: builder.limits,
                shared: shared.clone(),
                clients,
                channel_lifetime: builder.channel_lifetime,
                trusted_proxies: builder.trusted_proxies,
                channels,
                acp: bridge,
            },
            unowned,
            stop,
        ));
        if let Some(shared) = &shared {
            shared.start(Arc::downgrade(&state), state.shutdown.clone());
            println!("sharing the database as instance {}", shared.instance);
        }
        Ok(Chat {
            state,
            seeded,
            scratch_root,
            shared,
        })
    }
}

impl Chat {
    /// A chat with the binary's defaults: history in memory, scripted answers, cookie
    /// identities; each setting is changed on the builder.
    pub fn builder() -> ChatBuilder {
        ChatBuilder::default()
    }

    /// The routes (`/chatkit`, `/upload/{id}`, `/preview/{id}`, `/callback`, `/events`,
    /// `/agent-ui`, `/ag-ui`, `/healthz`, `/readyz`) for the app to nest at its
    /// [`prefix`](ChatBuilder::prefix): `Router::new().nest("/chat", chat.router())`.
    pub fn router(&self) -> Router {
        routes::router(self.state.clone(), None)
    }

    /// Stops: open answers and channels end, a shared database's lease is given up, the
    /// scratch folders go. The routes answer on, with nothing streaming.
    pub async fn shutdown(&self) {
        self.stop();
        if let Some(shared) = &self.shared {
            // The runs have ended (the stop ends them): their last events and outcome are
            // written, and the other instances told, before the lease is given up.
            shared.leave(LEAVE_WAIT).await;
        }
        let _ = std::fs::remove_dir_all(&self.scratch_root);
    }

    /// The binary's routes: these, with the pages of `dist` for every other path.
    pub(crate) fn router_with_pages(&self, dist: &Path) -> Router {
        routes::router(self.state.clone(), Some(dist))
    }

    /// Open answers and channels end (the rest of [`Chat::shutdown`] follows).
    pub(crate) fn stop(&self) {
        self.state.stop();
    }

    /// Turns true when the chat stops.
    pub(crate) fn stopped(&self) -> watch::Receiver<bool> {
        self.state.shutdown.clone()
    }

    pub(crate) fn clients(&self) -> Arc<Clients> {
        self.state.clients.clone()
    }

    /// The thread `--seed-thread` made, if any.
    pub(crate) fn seeded(&self) -> Option<&str> {
        self.seeded.as_deref()
    }
}

/// Opens the store, seeds it if asked; also says whether some thread has no owner yet.
/// `branching`: threads offer branches (not where an agent keeps the conversation).
fn open_store(
    keep: &Keep,
    seed: Option<(usize, bool)>,
    branching: bool,
) -> Result<(Store, Option<String>, bool), String> {
    let store = match keep {
        // The URL is not repeated: it may hold a password.
        Keep::Postgres(url) => Store::open_postgres(url)
            .map_err(|e| format!("cannot open the PostgreSQL database: {e}"))?,
        Keep::PostgresPool(pool, config) => {
            Store::from_postgres_pool(pool.clone(), (**config).clone())
                .map_err(|e| format!("cannot use the PostgreSQL pool: {e}"))?
        }
        Keep::Sqlite(path) => {
            Store::open(path).map_err(|e| format!("cannot open {}: {e}", path.display()))?
        }
        Keep::Memory => Store::open_in_memory().map_err(|e| e.to_string())?,
    };
    // An agent keeps the conversation itself and cannot go back to an earlier point.
    let store = if branching {
        store
    } else {
        store.without_branches()
    };
    let seeded = match seed {
        Some((n, mixed)) => Some(
            store
                .seed_thread(n, mixed)
                .map_err(|e| format!("cannot seed a thread: {e}"))?
                .to_string(),
        ),
        None => None,
    };
    let unowned = store.has_unowned().map_err(|e| e.to_string())?;
    Ok((store, seeded, unowned))
}

/// No agent waits for an answer the last run asked (it ran as that process's child): the
/// permission cards still asking are settled as cancelled.
async fn settle_permissions(store: &Arc<Store>) {
    let settling = store.clone();
    match tokio::task::spawn_blocking(move || settling.settle_orphaned_permissions()).await {
        Ok(Ok(0)) => {}
        Ok(Ok(n)) => {
            println!("ACP: {n} permission request(s) left by the last run settled as cancelled")
        }
        Ok(Err(e)) => eprintln!("chat-shell-runtime: cannot settle old permission requests: {e}"),
        Err(e) => eprintln!("chat-shell-runtime: cannot settle old permission requests: {e}"),
    }
}

/// The `edit` scenario's scratch folders: one root per chat of this process, removed on
/// the way out.
fn scratch_root() -> PathBuf {
    static MADE: AtomicUsize = AtomicUsize::new(0);
    let pid = std::process::id();
    let name = match MADE.fetch_add(1, Ordering::Relaxed) {
        0 => format!("chat-shell-runtime-{pid}-scratch"),
        n => format!("chat-shell-runtime-{pid}-{n}-scratch"),
    };
    std::env::temp_dir().join(name)
}
