//! Entry point: reads the command line (`cli`), opens the store and serves until Ctrl-C or
//! SIGTERM.
//!
//! Where each behaviour lives:
//! - `routes`: the routes and the layers every request passes (`guard`: Host, Origin and
//!   identity, `auth`; `headers`: the pages' security headers; `connections`: limits and
//!   timeouts; `clients`: the share of each client address; `static_files`: `--dist`,
//!   precompressed and cacheable); `errors`: the JSON error answers; `state`: what handlers
//!   share.
//! - `handlers/`: one module per resource or endpoint: `chatkit` (POST /chatkit, dispatching
//!   to `threads`, `items`, `attachments`, streamed answers in `stream`), `upload`,
//!   `callback` (views pushed by tools), `events` and `agent_ui` (the other wire formats).
//! - `sse/`: the SSE writer (`writer`) of a streamed answer and its `saver` to the store.
//! - `runs`: answers living on their own task, their limits and cancel.
//! - `channel/`: the live channel of a thread (`threads.subscribe`) and its `outbox`.
//! - `store/`: SQLite (or PostgreSQL, `pg`) persistence, behind `Store` and `UserStore`.
//! - `shared`: several instances on one PostgreSQL database: runs, Stop, permission
//!   answers and views shared through the store and LISTEN/NOTIFY; leases.
//! - `scripts/`: the scripted ChatKit scenarios by family; `agent`: the scripted ACP tool
//!   calls over ChatKit; `sandbox`: the `edit` scenario's scratch folder.
//! - `acp/`: the ACP bridge (`--acp`): the agent process (`stdio`: its bounded reads),
//!   `sessions` and their owners, `held` (session state, bounded per owner), `fs`,
//!   `terminal`, and `turn/`.
//! - `contain`: how agents and their commands are started and stopped; `labels`: text
//!   checks shared by handlers.

mod acp;
mod agent;
mod auth;
mod channel;
mod cli;
mod clients;
mod connections;
mod contain;
mod errors;
mod guard;
mod handlers;
mod headers;
mod labels;
mod routes;
mod runs;
mod sandbox;
mod scripts;
mod shared;
mod sse;
mod state;
mod static_files;
mod store;

use cli::Config;
use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;

fn main() -> ExitCode {
    // The runtime re-executes itself to start agents and contain terminals (`contain`).
    if let Some(code) = contain::hidden_mode() {
        return code;
    }
    serve()
}

#[tokio::main]
async fn serve() -> ExitCode {
    let config = match cli::parse(std::env::args_os()).map(with_environment) {
        Ok(Ok(config)) => config,
        Ok(Err(e)) => cli::env_error(e).exit(),
        // `--help` too: printed on stdout, and the exit code is 0.
        Err(e) => e.exit(),
    };
    match run(config).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("chat-shell-runtime: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The tokens of the environment: more bearer tokens, and the callback token when
/// `--callback-token` is not given.
fn with_environment(mut config: Config) -> Result<Config, String> {
    config.tokens.extend(cli::env_tokens()?);
    if config.callback_token.is_none() {
        config.callback_token = cli::env_callback_token()?;
    }
    if config.database_from_env {
        config.database = cli::env_database()?;
    }
    Ok(config)
}

/// Opens the store, seeds it if asked; also says whether some thread has no owner yet.
fn open_store(config: &Config) -> Result<(store::Store, Option<String>, bool), String> {
    let store = match (&config.database, &config.db) {
        // The URL is not repeated: it may hold a password.
        (Some(url), _) => store::Store::open_postgres(url)
            .map_err(|e| format!("cannot open the PostgreSQL database: {e}"))?,
        (None, Some(path)) => {
            store::Store::open(path).map_err(|e| format!("cannot open {}: {e}", path.display()))?
        }
        (None, None) => store::Store::open_in_memory().map_err(|e| e.to_string())?,
    };
    // An agent keeps the conversation itself and cannot go back to an earlier point.
    let store = if config.acp.is_some() {
        store.without_branches()
    } else {
        store
    };
    let seeded = match config.seed_items {
        Some(n) => Some(
            store
                .seed_thread(n, config.seed_mixed)
                .map_err(|e| format!("cannot seed a thread: {e}"))?
                .to_string(),
        ),
        None => None,
    };
    let unowned = store.has_unowned().map_err(|e| e.to_string())?;
    Ok((store, seeded, unowned))
}

async fn run(config: Config) -> Result<(), String> {
    let config = Arc::new(config);
    let opening = config.clone();
    let (store, seeded, unowned) = tokio::task::spawn_blocking(move || open_store(&opening))
        .await
        .map_err(|e| e.to_string())??;
    let store = Arc::new(store);
    let listener = tokio::net::TcpListener::bind((config.host.as_str(), config.port))
        .await
        .map_err(|e| format!("cannot listen on {}:{}: {e}", config.host, config.port))?;
    let port = listener.local_addr().map_err(|e| e.to_string())?.port();
    let host = if config.host.contains(':') {
        format!("[{}]", config.host)
    } else {
        config.host.clone()
    };
    let authority = format!("{host}:{port}");
    let policy = guard::Policy::new(
        port,
        &config.host,
        &config.allowed_hosts,
        &config.allow_origins,
    )?;
    if config
        .host
        .parse::<std::net::IpAddr>()
        .is_ok_and(|ip| !ip.is_loopback())
        && config.allowed_hosts.is_empty()
    {
        eprintln!(
            "chat-shell-runtime: warning: listening on {} but answering only requests whose \
             Host is a loopback name or the bound address; add --allowed-host NAME for the \
             names clients use",
            config.host
        );
    }
    if !config.dist.join("index.html").is_file() {
        eprintln!(
            "chat-shell-runtime: warning: {} has no index.html; only the API is served",
            config.dist.display()
        );
    }

    let (stop_tx, stop_rx) = watch::channel(false);
    // The `edit` scenario's scratch folders; removed on the way out.
    let scratch_root =
        std::env::temp_dir().join(format!("chat-shell-runtime-{}-scratch", std::process::id()));
    let mut bridge = None;
    if let Some(command) = &config.acp {
        let mut acp =
            acp::Config::new(command, config.workspace.as_deref(), config.allow_terminal)?;
        acp.env.pass = config.pass_env.clone();
        acp.share_sessions = config.share_agent_sessions;
        acp.max_message = config.max_agent_message_mb << 20;
        let settling = store.clone();
        match tokio::task::spawn_blocking(move || settling.settle_orphaned_permissions()).await {
            Ok(Ok(0)) => {}
            Ok(Ok(n)) => {
                println!("ACP: {n} permission request(s) left by the last run settled as cancelled")
            }
            Ok(Err(e)) => {
                eprintln!("chat-shell-runtime: cannot settle old permission requests: {e}")
            }
            Err(e) => eprintln!("chat-shell-runtime: cannot settle old permission requests: {e}"),
        }
        bridge = Some(acp::Bridge::new(acp, stop_rx.clone()));
    }
    let shared = shared::Shared::new(&store, Duration::from_secs(config.lease_secs));
    let clients = clients::Clients::new(config.clients);
    let state = Arc::new(state::AppState::new(
        store,
        state::Settings {
            pace: Duration::from_millis(config.pace_ms),
            authority: authority.clone(),
            policy,
            tokens: config.tokens.clone(),
            max_upload: config.max_upload_mb * 1024 * 1024,
            callback_token: config.callback_token.clone(),
            channel_keepalive: Duration::from_millis(config.channel_keepalive_ms),
            scratch_root: scratch_root.clone(),
            limits: config.limits,
            shared: shared.clone(),
            clients: clients.clone(),
            channel_lifetime: config.channel_lifetime,
            trusted_proxies: config.trusted_proxies.clone(),
            acp: bridge,
        },
        unowned,
        stop_rx.clone(),
    ));
    if let Some(shared) = &shared {
        shared.start(Arc::downgrade(&state), stop_rx.clone());
        println!("sharing the database as instance {}", shared.instance);
    }
    let page_policy = headers::policy(&config.csp, &config.frame_ancestors)?;
    let app = headers::apply(routes::router(state, &config.dist), page_policy);
    let limits = connections::Limits {
        max_connections: config.max_connections,
        header_timeout: Duration::from_millis(config.header_timeout_ms),
        body_timeout: Duration::from_millis(config.body_timeout_ms),
    };

    println!("chat-shell-runtime listening on http://{authority}");
    if let (Some(id), Some(n)) = (&seeded, config.seed_items) {
        println!("seeded thread {id} with {n} items");
    }
    let _ = std::io::stdout().flush();

    let mut serving = tokio::spawn(connections::serve(
        listener,
        app,
        limits,
        clients,
        config.trusted_proxies.clone(),
        stop_rx,
    ));
    tokio::select! {
        _ = shutdown_signal() => {}
        result = &mut serving => return result.map_err(|e| e.to_string()),
    }
    eprintln!("chat-shell-runtime: shutting down");
    // Open streams end when they see this; then graceful shutdown finishes the connections.
    let _ = stop_tx.send(true);
    // Never hang on a connection that will not finish.
    let _ = tokio::time::timeout(Duration::from_secs(3), serving).await;
    if let Some(shared) = &shared {
        // The runs have ended (the stop ends them): their last events and outcome are
        // written, and the other instances told, before the lease is given up.
        shared.leave(Duration::from_secs(3)).await;
    }
    let _ = std::fs::remove_dir_all(&scratch_root);
    Ok(())
}

async fn shutdown_signal() {
    #[cfg(unix)]
    {
        let mut term =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(s) => s,
                Err(_) => {
                    let _ = tokio::signal::ctrl_c().await;
                    return;
                }
            };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
