//! Entry point: reads the command line, opens the store and serves until Ctrl-C or SIGTERM.

mod scripts;
mod server;
mod store;
mod upload;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;

const USAGE: &str = "\
usage: chat-shell-runtime [options]

  --host HOST      address to bind (default 127.0.0.1)
  --port PORT      port to bind; 0 picks a free one (default 8080)
  --pace-ms MS     delay between streamed deltas (default 20)
  --dist DIR       static files served at / (default dist)
  --db PATH        SQLite file keeping the history (default chat-shell-demo.db)
  --memory         keep everything in memory instead (tests)
  --seed-thread N  start with one more thread holding N items (benchmarks); its id is
                   printed after the listening line
  -h, --help       this help";

#[derive(Debug, PartialEq)]
struct Config {
    host: String,
    port: u16,
    pace_ms: u64,
    dist: PathBuf,
    /// `None`: in memory.
    db: Option<PathBuf>,
    /// Items of a thread created at start (`--seed-thread`).
    seed_items: Option<usize>,
}

#[derive(Debug, PartialEq)]
enum Args {
    Run(Config),
    Help,
}

fn parse_args(args: impl IntoIterator<Item = String>) -> Result<Args, String> {
    let mut config = Config {
        host: "127.0.0.1".into(),
        port: 8080,
        pace_ms: 20,
        dist: PathBuf::from("dist"),
        db: Some(PathBuf::from("chat-shell-demo.db")),
        seed_items: None,
    };
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        // Both `--port 8080` and `--port=8080`.
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_owned(), Some(v.to_owned())),
            _ => (arg.clone(), None),
        };
        let mut value = |name: &str| {
            inline
                .clone()
                .or_else(|| args.next())
                .ok_or_else(|| format!("{name} needs a value"))
        };
        match flag.as_str() {
            "-h" | "--help" => return Ok(Args::Help),
            "--host" => config.host = value("--host")?,
            "--port" => {
                let v = value("--port")?;
                config.port = v
                    .parse()
                    .map_err(|_| format!("--port: not a port number: {v}"))?;
            }
            "--pace-ms" => {
                let v = value("--pace-ms")?;
                config.pace_ms = v
                    .parse()
                    .map_err(|_| format!("--pace-ms: not a number of milliseconds: {v}"))?;
            }
            "--dist" => config.dist = PathBuf::from(value("--dist")?),
            "--db" => config.db = Some(PathBuf::from(value("--db")?)),
            "--memory" => config.db = None,
            "--seed-thread" => {
                let v = value("--seed-thread")?;
                config.seed_items = Some(
                    v.parse()
                        .map_err(|_| format!("--seed-thread: not a number of items: {v}"))?,
                );
            }
            other => return Err(format!("unknown argument: {other}")),
        }
    }
    Ok(Args::Run(config))
}

#[tokio::main]
async fn main() -> ExitCode {
    let config = match parse_args(std::env::args().skip(1)) {
        Ok(Args::Run(config)) => config,
        Ok(Args::Help) => {
            let keywords: Vec<&str> = scripts::KEYWORDS.iter().map(|(k, _)| *k).collect();
            println!(
                "{USAGE}\n\nA keyword in a message picks the scripted answer:\n  {}",
                keywords.join(", ")
            );
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("chat-shell-runtime: {e}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(config).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("chat-shell-runtime: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn run(config: Config) -> Result<(), String> {
    let store = match &config.db {
        Some(path) => {
            store::Store::open(path).map_err(|e| format!("cannot open {}: {e}", path.display()))?
        }
        None => store::Store::open_in_memory().map_err(|e| e.to_string())?,
    };
    let seeded = match config.seed_items {
        Some(n) => Some(
            store
                .seed_thread(n)
                .map_err(|e| format!("cannot seed a thread: {e}"))?,
        ),
        None => None,
    };
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
    if !config.dist.join("index.html").is_file() {
        eprintln!(
            "chat-shell-runtime: warning: {} has no index.html; only the API is served",
            config.dist.display()
        );
    }

    let (stop_tx, stop_rx) = watch::channel(false);
    let state = Arc::new(server::AppState::new(
        store,
        Duration::from_millis(config.pace_ms),
        authority.clone(),
        stop_rx.clone(),
    ));
    let app = server::router(state, &config.dist);

    println!("chat-shell-runtime listening on http://{authority}");
    if let (Some(id), Some(n)) = (&seeded, config.seed_items) {
        println!("seeded thread {id} with {n} items");
    }
    let _ = std::io::stdout().flush();

    let mut stopped = stop_rx;
    let mut serving = tokio::spawn(async move {
        axum::serve(listener, app)
            .with_graceful_shutdown(async move {
                let _ = stopped.wait_for(|stop| *stop).await;
            })
            .await
    });
    tokio::select! {
        _ = shutdown_signal() => {}
        result = &mut serving => {
            return match result {
                Ok(Ok(())) => Ok(()),
                Ok(Err(e)) => Err(e.to_string()),
                Err(e) => Err(e.to_string()),
            };
        }
    }
    eprintln!("chat-shell-runtime: shutting down");
    // Open streams end when they see this; then graceful shutdown finishes the connections.
    let _ = stop_tx.send(true);
    // Never hang on a connection that will not finish.
    let _ = tokio::time::timeout(Duration::from_secs(3), serving).await;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Args, String> {
        parse_args(args.iter().map(|s| s.to_string()))
    }

    #[test]
    fn defaults() {
        let Ok(Args::Run(c)) = parse(&[]) else {
            panic!()
        };
        assert_eq!(
            c,
            Config {
                host: "127.0.0.1".into(),
                port: 8080,
                pace_ms: 20,
                dist: "dist".into(),
                db: Some("chat-shell-demo.db".into()),
                seed_items: None,
            }
        );
    }

    #[test]
    fn flags_with_separate_or_inline_values() {
        let Ok(Args::Run(c)) = parse(&[
            "--port",
            "0",
            "--memory",
            "--pace-ms=0",
            "--dist=/x",
            "--host",
            "0.0.0.0",
        ]) else {
            panic!()
        };
        assert_eq!(
            (c.port, c.pace_ms, c.db, c.host.as_str()),
            (0, 0, None, "0.0.0.0")
        );
        assert_eq!(c.dist, PathBuf::from("/x"));
        let Ok(Args::Run(c)) = parse(&["--db", "h.db"]) else {
            panic!()
        };
        assert_eq!(c.db, Some("h.db".into()));
        assert_eq!(parse(&["--help"]), Ok(Args::Help));
        let Ok(Args::Run(c)) = parse(&["--seed-thread", "1000"]) else {
            panic!()
        };
        assert_eq!(c.seed_items, Some(1000));
    }

    #[test]
    fn bad_arguments_are_errors() {
        assert!(parse(&["--port"]).is_err());
        assert!(parse(&["--port", "http"]).is_err());
        assert!(parse(&["--pace-ms", "-1"]).is_err());
        assert!(parse(&["--verbose"]).is_err());
        assert!(parse(&["--seed-thread", "many"]).is_err());
    }
}
