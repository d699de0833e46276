//! The binary's life: the command line's [`Config`] made into a `Chat`, served on its own
//! listener (`connections`: limits and timeouts) with the pages of `--dist` and their
//! security headers, until `stop` comes (Ctrl-C or SIGTERM).

use crate::chat::ChatBuilder;
use crate::config::Config;
use crate::connections;
use crate::guard::policy::Policy;
use crate::headers;
use std::future::Future;
use std::io::Write;
use std::time::Duration;

/// A stop waits this long for the connections to finish.
const DRAIN_WAIT: Duration = Duration::from_secs(3);

/// Serves `config` until `stop` completes, then shuts down; `Err` says why it could not
/// start (or why serving failed).
pub async fn serve(config: Config, stop: impl Future<Output = ()>) -> Result<(), String> {
    let opened = ChatBuilder::from_config(&config)
        .open()
        .await
        .map_err(|e| e.to_string())?;
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
    let policy = Policy::new(
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

    let chat = opened
        .bound(policy, authority.clone())
        .finish()
        .await
        .map_err(|e| e.to_string())?;
    let page_policy = headers::policy(&config.csp, &config.frame_ancestors)?;
    let app = headers::apply(chat.router_with_pages(&config.dist), page_policy);
    let limits = connections::Limits {
        max_connections: config.max_connections,
        header_timeout: Duration::from_millis(config.header_timeout_ms),
        body_timeout: Duration::from_millis(config.body_timeout_ms),
    };

    println!("chat-shell-runtime listening on http://{authority}");
    if let (Some(id), Some(n)) = (chat.seeded(), config.seed_items) {
        println!("seeded thread {id} with {n} items");
    }
    let _ = std::io::stdout().flush();

    let mut serving = tokio::spawn(connections::serve(
        listener,
        app,
        limits,
        chat.clients(),
        config.trusted_proxies.clone(),
        chat.stopped(),
    ));
    tokio::select! {
        _ = stop => {}
        result = &mut serving => return result.map_err(|e| e.to_string()),
    }
    eprintln!("chat-shell-runtime: shutting down");
    // Open streams end when they see this; then graceful shutdown finishes the connections.
    chat.stop();
    // Never hang on a connection that will not finish.
    let _ = tokio::time::timeout(DRAIN_WAIT, serving).await;
    // What is left once the connections are done: the shared lease, the scratch folders.
    chat.shutdown().await;
    Ok(())
}
