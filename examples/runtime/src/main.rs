//! Entry point: reads the command line, opens the store and serves until Ctrl-C or SIGTERM.

mod acp;
mod agent;
mod auth;
mod channel;
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
mod sse;
mod state;
mod store;

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
                   printed after the listening line, and the first user to connect gets it
  --allowed-host H[:PORT]
                   also answer requests whose Host is H (with PORT, or any port);
                   repeatable. By default only 127.0.0.1, localhost and [::1] on the
                   bound port (and the bound address itself) are answered: this is what
                   defeats DNS rebinding
  --allow-origin ORIGIN
                   let pages of ORIGIN (like https://app.example.com) call the runtime
                   cross-origin, with CORS; repeatable. Default: same-origin only
  --token TOKEN    accept `Authorization: Bearer TOKEN` as one user's identity (at least
                   16 characters); repeatable. CHAT_SHELL_RUNTIME_TOKENS (comma-separated)
                   adds more without showing them in the process list. Browsers without a
                   token get a signed, HttpOnly cookie identity instead
  --max-upload-mb N
                   largest attachment in MB (default 10)
  --max-connections N
                   open connections at most (default 512); more are closed at once
  --header-timeout-ms MS
                   time to send a request head, and the longest a kept-alive connection
                   idles (default 10000)
  --body-timeout-ms MS
                   the longest a request body may pause (default 30000); answers (SSE
                   streams, thread channels) are never cut
  --csp POLICY     the Content-Security-Policy of every answer (default: scripts and
                   styles only from files of this origin, WebAssembly allowed, no inline
                   script); '' sends only frame-ancestors
  --frame-ancestors SOURCES
                   who may frame the pages, like 'self' or https://app.example.com
                   (default 'none')
  --acp 'COMMAND [ARGS]'
                   answer with an ACP (Agent Client Protocol) agent instead of the
                   scripts: the command is spawned on the first message and spoken to
                   over its stdio; each thread is an ACP session
  --workspace DIR  the agent's working folder (the sessions' cwd); enables the agent's
                   fs/read_text_file and fs/write_text_file, confined to DIR
  --allow-terminal let the agent run commands (terminal/*) in the workspace, as the
                   runtime's user, without a sandbox
  --pass-env NAME  also give the agent and its commands this variable of the runtime's
                   environment (NAME, or PREFIX* for every name so starting); repeatable.
                   They get only PATH, HOME, USER, LOGNAME, SHELL, LANG, LANGUAGE, LC_*,
                   TERM, TMPDIR and TZ otherwise, never the runtime's tokens
  --callback-token TOKEN
                   turn on POST /callback, where tools push views into threads
                   (view_update) with `Authorization: Bearer TOKEN` (at least 16
                   characters); CHAT_SHELL_CALLBACK_TOKEN sets it without showing it in
                   the process list. Off by default
  --max-channels N thread channels one identity may hold open (default 16); a newer
                   one closes the oldest, which reconnects if it is still wanted
  --max-runs N     answers one identity may have under way (default 8); past it a
                   streamed request is refused with 429 (too_many_runs)
  --abandoned-run-secs N
                   an answer nobody reads (its client left or stopped reading, no
                   channel open) is stopped after N seconds (default 900)
  -h, --help       this help";

/// More bearer tokens, comma-separated (kept out of the process list).
const TOKENS_ENV: &str = "CHAT_SHELL_RUNTIME_TOKENS";

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
    /// More `Host` values to answer (`--allowed-host`).
    allowed_hosts: Vec<String>,
    /// Origins allowed cross-origin (`--allow-origin`).
    allow_origins: Vec<String>,
    /// Bearer tokens (`--token`; the environment's are added in `main`).
    tokens: Vec<String>,
    max_upload_mb: usize,
    /// `--max-connections`, `--header-timeout-ms`, `--body-timeout-ms`.
    max_connections: usize,
    header_timeout_ms: u64,
    body_timeout_ms: u64,
    /// `--csp`, `--frame-ancestors`.
    csp: String,
    frame_ancestors: String,
    /// `--acp`: the agent command.
    acp: Option<String>,
    /// `--workspace`.
    workspace: Option<PathBuf>,
    /// `--allow-terminal`.
    allow_terminal: bool,
    /// `--pass-env`: more variables the agent and its commands get.
    pass_env: Vec<String>,
    /// `--callback-token` (the environment's is used in `main` when absent).
    callback_token: Option<String>,
    /// Hidden `--channel-keepalive-ms` (tests): idle time before a channel's keepalive.
    channel_keepalive_ms: u64,
    /// `--max-channels`, `--max-runs`, `--abandoned-run-secs`.
    limits: runs::Limits,
}

#[derive(Debug, PartialEq)]
#[allow(clippy::large_enum_variant)] // parsed once
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
        allowed_hosts: Vec::new(),
        allow_origins: Vec::new(),
        tokens: Vec::new(),
        max_upload_mb: handlers::upload::DEFAULT_MAX_UPLOAD_MB,
        max_connections: connections::DEFAULT_MAX_CONNECTIONS,
        header_timeout_ms: connections::DEFAULT_HEADER_TIMEOUT_MS,
        body_timeout_ms: connections::DEFAULT_BODY_TIMEOUT_MS,
        csp: headers::DEFAULT_CSP.into(),
        frame_ancestors: headers::DEFAULT_FRAME_ANCESTORS.into(),
        acp: None,
        workspace: None,
        allow_terminal: false,
        pass_env: Vec::new(),
        callback_token: None,
        channel_keepalive_ms: channel::DEFAULT_KEEPALIVE_MS,
        limits: runs::Limits::default(),
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
            "--allowed-host" => {
                let v = value("--allowed-host")?;
                guard::parse_host(&v)
                    .ok_or_else(|| format!("--allowed-host: not a host[:port]: {v}"))?;
                config.allowed_hosts.push(v);
            }
            "--allow-origin" => {
                let v = value("--allow-origin")?;
                guard::normalize_origin(&v).ok_or_else(|| {
                    format!("--allow-origin: not an origin like https://app.example.com: {v}")
                })?;
                config.allow_origins.push(v);
            }
            "--token" => {
                let v = value("--token")?;
                check_token(&v)?;
                config.tokens.push(v);
            }
            "--max-upload-mb" => {
                let v = value("--max-upload-mb")?;
                config.max_upload_mb = v
                    .parse()
                    .ok()
                    .filter(|n| (1..=1024).contains(n))
                    .ok_or_else(|| format!("--max-upload-mb: not a number from 1 to 1024: {v}"))?;
            }
            "--max-connections" => {
                let v = value("--max-connections")?;
                config.max_connections = v.parse().ok().filter(|n| *n > 0).ok_or_else(|| {
                    format!("--max-connections: not a number of connections: {v}")
                })?;
            }
            "--header-timeout-ms" | "--body-timeout-ms" => {
                let v = value(&flag)?;
                let ms = v
                    .parse()
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or_else(|| format!("{flag}: not a number of milliseconds: {v}"))?;
                if flag == "--header-timeout-ms" {
                    config.header_timeout_ms = ms;
                } else {
                    config.body_timeout_ms = ms;
                }
            }
            "--csp" => config.csp = value("--csp")?,
            "--frame-ancestors" => {
                let v = value("--frame-ancestors")?;
                headers::check_frame_ancestors(&v)?;
                config.frame_ancestors = v;
            }
            "--acp" => config.acp = Some(value("--acp")?),
            "--workspace" => config.workspace = Some(PathBuf::from(value("--workspace")?)),
            "--allow-terminal" => config.allow_terminal = true,
            "--pass-env" => {
                let v = value("--pass-env")?;
                contain::check_pass_env(&v)?;
                config.pass_env.push(v);
            }
            "--callback-token" => {
                let v = value("--callback-token")?;
                check_token(&v).map_err(|e| format!("--callback-token: {e}"))?;
                config.callback_token = Some(v.trim().to_owned());
            }
            "--channel-keepalive-ms" => {
                let v = value("--channel-keepalive-ms")?;
                config.channel_keepalive_ms =
                    v.parse().ok().filter(|n| *n > 0).ok_or_else(|| {
                        format!("--channel-keepalive-ms: not a number of milliseconds: {v}")
                    })?;
            }
            "--max-channels" | "--max-runs" | "--abandoned-run-secs" => {
                let v = value(&flag)?;
                let n: u64 = v
                    .parse()
                    .ok()
                    .filter(|n| (1..=1_000_000).contains(n))
                    .ok_or_else(|| format!("{flag}: not a number from 1 to 1000000: {v}"))?;
                match flag.as_str() {
                    "--max-channels" => config.limits.channels = n as usize,
                    "--max-runs" => config.limits.runs = n as usize,
                    _ => config.limits.abandoned_run = Duration::from_secs(n),
                }
            }
            other => return Err(format!("unknown argument: {other}")),
        }
    }
    if config.acp.is_none()
        && (config.workspace.is_some() || config.allow_terminal || !config.pass_env.is_empty())
    {
        return Err("--workspace, --allow-terminal and --pass-env go with --acp".into());
    }
    headers::policy(&config.csp, &config.frame_ancestors)?;
    Ok(Args::Run(config))
}

fn check_token(token: &str) -> Result<(), String> {
    let token = token.trim();
    if token.chars().count() < auth::MIN_TOKEN_CHARS || token.contains(char::is_whitespace) {
        return Err(format!(
            "a token has at least {} characters and no spaces",
            auth::MIN_TOKEN_CHARS
        ));
    }
    Ok(())
}

/// The tokens in [`TOKENS_ENV`], if set.
fn env_tokens() -> Result<Vec<String>, String> {
    let Ok(value) = std::env::var(TOKENS_ENV) else {
        return Ok(Vec::new());
    };
    let tokens: Vec<String> = value
        .split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
        .collect();
    for token in &tokens {
        check_token(token).map_err(|e| format!("{TOKENS_ENV}: {e}"))?;
    }
    Ok(tokens)
}

fn main() -> ExitCode {
    // The runtime re-executes itself to start agents and contain terminals (`contain`).
    if let Some(code) = contain::hidden_mode() {
        return code;
    }
    serve()
}

#[tokio::main]
async fn serve() -> ExitCode {
    let parsed = parse_args(std::env::args().skip(1)).and_then(|args| match args {
        Args::Run(mut config) => {
            config.tokens.extend(env_tokens()?);
            if config.callback_token.is_none() {
                if let Some(token) = std::env::var(handlers::callback::CALLBACK_TOKEN_ENV)
                    .ok()
                    .filter(|t| !t.trim().is_empty())
                {
                    check_token(&token)
                        .map_err(|e| format!("{}: {e}", handlers::callback::CALLBACK_TOKEN_ENV))?;
                    config.callback_token = Some(token.trim().to_owned());
                }
            }
            Ok(Args::Run(config))
        }
        help => Ok(help),
    });
    let config = match parsed {
        Ok(Args::Run(config)) => config,
        Ok(Args::Help) => {
            let keywords: Vec<&str> = scripts::KEYWORDS.iter().map(|(k, _)| *k).collect();
            let events: Vec<&str> = handlers::events::KEYWORDS.iter().map(|(k, _)| *k).collect();
            let agent_ui: Vec<&str> = handlers::agent_ui::KEYWORDS
                .iter()
                .map(|(k, _)| *k)
                .collect();
            println!(
                "{USAGE}\n\nPOST /chatkit: a keyword in a message picks the scripted answer:\n  {}\n  \
                 (agent, permission and agentcut stream ACP tool calls; a permission request \
                 waits for\n  its threads.custom_action answer; edit edits files in a scratch folder and \
                 pushes\n  their diff as the thread's diff view through POST /callback, see \
                 --callback-token)\n\n\
                 POST /events (protocol=\"events\", the SSE event envelope): a keyword in the \
                 last user\n  message picks the run: {}\n\n\
                 POST /agent-ui (protocol=\"agent-ui\", the Agent UI event envelope): a keyword \
                 in the last\n  user message picks the golden log of tests/fixtures/agent-ui \
                 (otherwise status;\n  `long` is a live run): {}; metadata.agentUi answers \
                 the approval\n  ({{\"respond\": {{\"actionId\", \"optionId\"}}}}), asks again \
                 for a run's events after a\n  sequence ({{\"resume\": {{\"runId\", \"after\"}}}}), \
                 or queues after / steers a live\n  run ({{\"queue\"|\"steer\": {{\"runId\"}}}})",
                keywords.join(", "),
                events.join(", "),
                agent_ui.join(", ")
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

/// Opens the store, seeds it if asked; also says whether some thread has no owner yet.
fn open_store(config: &Config) -> Result<(store::Store, Option<String>, bool), String> {
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
    if let Some(command) = &config.acp {
        let mut acp =
            acp::Config::new(command, config.workspace.as_deref(), config.allow_terminal)?;
        acp.env.pass = config.pass_env.clone();
        match store.settle_orphaned_permissions() {
            Ok(0) => {}
            Ok(n) => {
                println!("ACP: {n} permission request(s) left by the last run settled as cancelled")
            }
            Err(e) => eprintln!("chat-shell-runtime: cannot settle old permission requests: {e}"),
        }
        acp::install(acp, stop_rx.clone());
    }
    let state = Arc::new(state::AppState::new(
        Arc::new(store),
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
        },
        unowned,
        stop_rx.clone(),
    ));
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

    let mut serving = tokio::spawn(connections::serve(listener, app, limits, stop_rx));
    tokio::select! {
        _ = shutdown_signal() => {}
        result = &mut serving => return result.map_err(|e| e.to_string()),
    }
    eprintln!("chat-shell-runtime: shutting down");
    // Open streams end when they see this; then graceful shutdown finishes the connections.
    let _ = stop_tx.send(true);
    // Never hang on a connection that will not finish.
    let _ = tokio::time::timeout(Duration::from_secs(3), serving).await;
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
                allowed_hosts: Vec::new(),
                allow_origins: Vec::new(),
                tokens: Vec::new(),
                max_upload_mb: 10,
                max_connections: 512,
                header_timeout_ms: 10_000,
                body_timeout_ms: 30_000,
                csp: headers::DEFAULT_CSP.into(),
                frame_ancestors: "'none'".into(),
                acp: None,
                workspace: None,
                allow_terminal: false,
                pass_env: Vec::new(),
                callback_token: None,
                channel_keepalive_ms: 15_000,
                limits: runs::Limits {
                    channels: 16,
                    runs: 8,
                    abandoned_run: Duration::from_secs(900),
                },
            }
        );
    }

    #[test]
    fn access_flags_repeat_and_are_checked() {
        let Ok(Args::Run(c)) = parse(&[
            "--allowed-host",
            "chat.example.com",
            "--allowed-host=lan-box:9000",
            "--allow-origin",
            "https://app.example.com",
            "--token",
            "0123456789abcdef-token",
            "--max-upload-mb",
            "25",
        ]) else {
            panic!()
        };
        assert_eq!(c.allowed_hosts, ["chat.example.com", "lan-box:9000"]);
        assert_eq!(c.allow_origins, ["https://app.example.com"]);
        assert_eq!(c.tokens, ["0123456789abcdef-token"]);
        assert_eq!(c.max_upload_mb, 25);
        assert!(parse(&["--allowed-host", "bad host"]).is_err());
        assert!(parse(&["--allow-origin", "*"]).is_err());
        assert!(parse(&["--allow-origin", "https://app.example.com/path"]).is_err());
        assert!(parse(&["--token", "short"]).is_err());
        assert!(parse(&["--max-upload-mb", "0"]).is_err());
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
    fn acp_flags() {
        let Ok(Args::Run(c)) = parse(&[
            "--acp",
            "my-agent --acp",
            "--workspace=/w",
            "--allow-terminal",
            "--pass-env",
            "ANTHROPIC_API_KEY",
            "--pass-env=NPM_CONFIG_*",
        ]) else {
            panic!()
        };
        assert_eq!(c.acp.as_deref(), Some("my-agent --acp"));
        assert_eq!(c.workspace, Some(PathBuf::from("/w")));
        assert!(c.allow_terminal);
        assert_eq!(c.pass_env, ["ANTHROPIC_API_KEY", "NPM_CONFIG_*"]);
        assert!(parse(&["--workspace", "/w"]).is_err());
        assert!(parse(&["--allow-terminal"]).is_err());
        assert!(parse(&["--pass-env", "HOME"]).is_err());
        for bad in [
            "",
            "*",
            "A=B",
            "A*B",
            TOKENS_ENV,
            handlers::callback::CALLBACK_TOKEN_ENV,
        ] {
            assert!(parse(&["--acp", "a", "--pass-env", bad]).is_err(), "{bad}");
        }
        assert!(parse(&["--acp"]).is_err());
    }

    #[test]
    fn callback_flags() {
        let Ok(Args::Run(c)) = parse(&[
            "--callback-token",
            "0123456789abcdef-tool",
            "--channel-keepalive-ms=50",
        ]) else {
            panic!()
        };
        assert_eq!(c.callback_token.as_deref(), Some("0123456789abcdef-tool"));
        assert_eq!(c.channel_keepalive_ms, 50);
        assert!(parse(&["--callback-token", "short"]).is_err());
        assert!(parse(&["--callback-token"]).is_err());
        assert!(parse(&["--channel-keepalive-ms", "0"]).is_err());
    }

    #[test]
    fn limit_flags() {
        let Ok(Args::Run(c)) = parse(&[
            "--max-channels",
            "2",
            "--max-runs=3",
            "--abandoned-run-secs",
            "60",
        ]) else {
            panic!()
        };
        assert_eq!(
            c.limits,
            runs::Limits {
                channels: 2,
                runs: 3,
                abandoned_run: Duration::from_secs(60)
            }
        );
        for bad in ["0", "-1", "many", "1000001"] {
            assert!(parse(&["--max-runs", bad]).is_err(), "{bad}");
        }
        assert!(parse(&["--max-channels"]).is_err());
    }

    #[test]
    fn connection_and_page_flags() {
        let Ok(Args::Run(c)) = parse(&[
            "--max-connections=8",
            "--header-timeout-ms",
            "250",
            "--body-timeout-ms=400",
            "--frame-ancestors",
            "'self' https://app.example.com",
            "--csp",
            "default-src 'self'",
        ]) else {
            panic!()
        };
        assert_eq!(
            (c.max_connections, c.header_timeout_ms, c.body_timeout_ms),
            (8, 250, 400)
        );
        assert_eq!(c.frame_ancestors, "'self' https://app.example.com");
        assert_eq!(c.csp, "default-src 'self'");
        for bad in [
            &["--max-connections", "0"][..],
            &["--header-timeout-ms", "0"],
            &["--body-timeout-ms", "soon"],
            &["--frame-ancestors", "*; script-src *"],
            &["--csp", "frame-ancestors *"],
        ] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
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
