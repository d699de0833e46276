//! The command line (clap): every flag, its default, and the checks that need more than
//! one flag, made into a [`Config`]. The environment's tokens are read by `config`.

use crate::config::{check_database_url, check_token, Config};
use crate::handlers::{agent_ui, events, upload};
use crate::{channel, clients, connections, contain, guard, headers, runs, scripts, shared};
use clap::error::ErrorKind;
use clap::parser::ValueSource;
use clap::{CommandFactory, FromArgMatches, Parser};
use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

/// Reference ChatKit runtime for chat-shell: serves the page in --dist and a scripted,
/// model-free POST /chatkit (or an ACP agent with --acp).
// A flag given twice takes its last value (tests add to a base command line).
#[derive(Parser, Debug)]
#[command(name = "chat-shell-runtime", args_override_self = true)]
struct Cli {
    /// Address to bind
    #[arg(long, value_name = "HOST", default_value = "127.0.0.1")]
    host: String,
    /// Port to bind; 0 picks a free one
    #[arg(long, value_name = "PORT", default_value_t = 8080, value_parser = port)]
    port: u16,
    /// Delay between streamed deltas, in milliseconds
    #[arg(long, value_name = "MS", default_value_t = 20, value_parser = milliseconds)]
    pace_ms: u64,
    /// Static files served at /
    #[arg(long, value_name = "DIR", default_value = "dist")]
    dist: PathBuf,
    /// SQLite file keeping the history
    #[arg(
        long,
        value_name = "PATH",
        default_value = "chat-shell-demo.db",
        overrides_with = "memory"
    )]
    db: PathBuf,
    /// Keep everything in memory instead of --db (tests)
    #[arg(long, overrides_with = "db")]
    memory: bool,
    /// Keep the history in PostgreSQL instead (postgres://USER:PASS@HOST:PORT/DB; also DATABASE_URL); instances on one database share their conversations
    #[arg(long, value_name = "URL", value_parser = database_url)]
    database: Option<String>,
    /// With --database: an instance silent this long is taken for dead, its answers end as interrupted
    #[arg(long, value_name = "N", default_value_t = shared::DEFAULT_LEASE_SECS, value_parser = limit)]
    lease_secs: u64,
    /// Start with one more thread holding N items (benchmarks); the first user gets it
    #[arg(long = "seed-thread", value_name = "N", value_parser = items)]
    seed_items: Option<usize>,
    /// With --seed-thread: answers with code, tool calls with diffs and widgets among the items
    #[arg(long, requires = "seed_items")]
    seed_mixed: bool,
    /// Also answer requests whose Host is H (any port without :PORT); repeatable
    #[arg(long = "allowed-host", value_name = "H[:PORT]", value_parser = allowed_host)]
    allowed_hosts: Vec<String>,
    /// Let pages of ORIGIN (https://app.example.com) call the runtime with CORS; repeatable
    #[arg(long = "allow-origin", value_name = "ORIGIN", value_parser = allow_origin)]
    allow_origins: Vec<String>,
    /// Accept `Authorization: Bearer TOKEN` as one user (16+ characters; repeatable; also CHAT_SHELL_RUNTIME_TOKENS)
    #[arg(long = "token", value_name = "TOKEN", value_parser = token)]
    tokens: Vec<String>,
    /// Largest attachment, in MB (1 to 1024)
    #[arg(long, value_name = "N", default_value_t = upload::DEFAULT_MAX_UPLOAD_MB, value_parser = upload_mb)]
    max_upload_mb: usize,
    /// Open connections at most; more are closed at once
    #[arg(long, value_name = "N", default_value_t = connections::DEFAULT_MAX_CONNECTIONS, value_parser = connections_count)]
    max_connections: usize,
    /// Time to send a request head, and the longest a kept-alive connection idles (ms)
    #[arg(long, value_name = "MS", default_value_t = connections::DEFAULT_HEADER_TIMEOUT_MS, value_parser = positive_ms)]
    header_timeout_ms: u64,
    /// The longest a request body may pause (ms); answers are never cut
    #[arg(long, value_name = "MS", default_value_t = connections::DEFAULT_BODY_TIMEOUT_MS, value_parser = positive_ms)]
    body_timeout_ms: u64,
    /// The Content-Security-Policy of every answer ('' sends only frame-ancestors) [default: files of this origin, WebAssembly, no inline script]
    #[arg(long, value_name = "POLICY", default_value = headers::DEFAULT_CSP, hide_default_value = true)]
    csp: String,
    /// Who may frame the pages, like 'self' or https://app.example.com
    #[arg(long, value_name = "SOURCES", default_value = headers::DEFAULT_FRAME_ANCESTORS, value_parser = frame_ancestors)]
    frame_ancestors: String,
    /// Answer with this ACP agent, spawned on the first message, instead of the scripts
    #[arg(long, value_name = "'COMMAND [ARGS]'")]
    acp: Option<String>,
    /// The agent's working folder (sessions' cwd); its fs/* calls are confined to DIR
    #[arg(long, value_name = "DIR", requires = "acp")]
    workspace: Option<PathBuf>,
    /// Let the agent run commands (terminal/*) in the workspace, without a sandbox
    #[arg(long, requires = "acp")]
    allow_terminal: bool,
    /// List and open, for every user, the agent's sessions no user of this runtime made
    #[arg(long, requires = "acp")]
    share_agent_sessions: bool,
    /// Also give the agent this variable (NAME, or PREFIX*); repeatable; never the tokens
    #[arg(long, value_name = "NAME", requires = "acp", value_parser = pass_env)]
    pass_env: Vec<String>,
    /// Longest message the agent may send, in MB (1 to 1024); a longer one is refused
    #[arg(long, value_name = "N", default_value_t = crate::acp::DEFAULT_MAX_MESSAGE_MB, value_parser = message_mb)]
    max_agent_message_mb: usize,
    /// Turn on POST /callback for tools, with this bearer token (also CHAT_SHELL_CALLBACK_TOKEN)
    #[arg(long, value_name = "TOKEN", value_parser = callback_token)]
    callback_token: Option<String>,
    /// Idle time before a thread channel's keepalive (tests)
    #[arg(long, value_name = "MS", default_value_t = channel::DEFAULT_KEEPALIVE_MS, value_parser = positive_ms, hide = true)]
    channel_keepalive_ms: u64,
    /// Thread channels one identity may hold open; a newer one closes the oldest
    #[arg(long, value_name = "N", default_value_t = runs::DEFAULT_MAX_CHANNELS as u64, value_parser = limit)]
    max_channels: u64,
    /// Answers one identity may have under way; past it 429 (too_many_runs)
    #[arg(long, value_name = "N", default_value_t = runs::DEFAULT_MAX_RUNS as u64, value_parser = limit)]
    max_runs: u64,
    /// An answer nobody reads is stopped after N seconds
    #[arg(long, value_name = "N", default_value_t = runs::DEFAULT_ABANDONED_RUN.as_secs(), value_parser = limit)]
    abandoned_run_secs: u64,
    /// Connections one client address may hold open; more are closed at once
    #[arg(long, value_name = "N", default_value_t = clients::DEFAULT_CONNECTIONS as u64, value_parser = limit)]
    max_connections_per_client: u64,
    /// Thread channels one client address may hold open; past it 429
    #[arg(long, value_name = "N", default_value_t = clients::DEFAULT_CHANNELS as u64, value_parser = limit)]
    max_channels_per_client: u64,
    /// Answers one client address may have under way; past it 429
    #[arg(long, value_name = "N", default_value_t = clients::DEFAULT_RUNS as u64, value_parser = limit)]
    max_runs_per_client: u64,
    /// Draft agent sessions (a session before its thread) one client address may hold; past it 429
    #[arg(long, value_name = "N", default_value_t = clients::DEFAULT_DRAFTS as u64, value_parser = limit)]
    max_drafts_per_client: u64,
    /// New cookie identities one client address may get a minute (as many at once); past it 429
    #[arg(long, value_name = "N", default_value_t = clients::DEFAULT_IDENTITIES_PER_MINUTE as u64, value_parser = limit)]
    max_new_identities_per_minute: u64,
    /// Answers under way on this instance, for all clients together; past it 429
    #[arg(long, value_name = "N", default_value_t = clients::DEFAULT_RUNS_TOTAL as u64, value_parser = limit)]
    max_runs_total: u64,
    /// A thread channel is closed after N seconds (the element reconnects from its cursor)
    #[arg(long, value_name = "N", default_value_t = channel::DEFAULT_LIFETIME.as_secs(), value_parser = limit)]
    channel_lifetime_secs: u64,
    /// A reverse proxy's address: its requests count as the client X-Forwarded-For names; repeatable
    #[arg(long = "trust-proxy", value_name = "IP")]
    trust_proxy: Vec<std::net::IpAddr>,
}

/// The command, with the scripted scenarios' keywords after the flags.
pub fn command() -> clap::Command {
    Cli::command().after_help(scenarios())
}

/// Parses `args` (the program name first); `--help` and every refusal are errors that
/// `exit()` prints (help to stdout and 0, refusals to stderr and 2).
pub fn parse<I, T>(args: I) -> Result<Config, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let mut command = command();
    let matches = command.try_get_matches_from_mut(args)?;
    let cli = Cli::from_arg_matches(&matches)?;
    let database_from_env = cli.database.is_none()
        && !cli.memory
        && matches.value_source("db") != Some(ValueSource::CommandLine);
    // Checks that read two flags at once: refused like a bad value.
    headers::policy(&cli.csp, &cli.frame_ancestors)
        .map_err(|e| command.error(ErrorKind::ValueValidation, e))?;
    Ok(Config {
        host: cli.host,
        port: cli.port,
        pace_ms: cli.pace_ms,
        dist: cli.dist,
        db: (!cli.memory).then_some(cli.db),
        database: cli.database,
        database_from_env,
        lease_secs: cli.lease_secs,
        seed_items: cli.seed_items,
        seed_mixed: cli.seed_mixed,
        allowed_hosts: cli.allowed_hosts,
        allow_origins: cli.allow_origins,
        tokens: cli.tokens,
        max_upload_mb: cli.max_upload_mb,
        max_connections: cli.max_connections,
        header_timeout_ms: cli.header_timeout_ms,
        body_timeout_ms: cli.body_timeout_ms,
        csp: cli.csp,
        frame_ancestors: cli.frame_ancestors,
        acp: cli.acp,
        workspace: cli.workspace,
        allow_terminal: cli.allow_terminal,
        share_agent_sessions: cli.share_agent_sessions,
        pass_env: cli.pass_env,
        max_agent_message_mb: cli.max_agent_message_mb,
        callback_token: cli.callback_token,
        channel_keepalive_ms: cli.channel_keepalive_ms,
        limits: runs::Limits {
            channels: cli.max_channels as usize,
            runs: cli.max_runs as usize,
            abandoned_run: Duration::from_secs(cli.abandoned_run_secs),
        },
        clients: clients::Limits {
            connections: cli.max_connections_per_client as usize,
            channels: cli.max_channels_per_client as usize,
            runs: cli.max_runs_per_client as usize,
            drafts: cli.max_drafts_per_client as usize,
            identities_per_minute: u32::try_from(cli.max_new_identities_per_minute)
                .unwrap_or(u32::MAX),
            runs_total: cli.max_runs_total as usize,
        },
        channel_lifetime: Duration::from_secs(cli.channel_lifetime_secs),
        trusted_proxies: cli.trust_proxy,
    })
}

/// A refusal of the environment, printed like one of the command line.
pub fn env_error(message: String) -> clap::Error {
    command().error(ErrorKind::ValueValidation, message)
}

/// What `--help` says after the flags: the keywords that pick each scripted answer.
fn scenarios() -> String {
    let keywords: Vec<&str> = scripts::KEYWORDS.iter().map(|(k, _)| *k).collect();
    let events: Vec<&str> = events::KEYWORDS.iter().map(|(k, _)| *k).collect();
    let agent_ui: Vec<&str> = agent_ui::KEYWORDS.iter().map(|(k, _)| *k).collect();
    format!(
        "POST /chatkit: a keyword in a message picks the scripted answer:\n  {}\n  \
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
         or queues after / steers a live\n  run ({{\"queue\"|\"steer\": {{\"runId\"}}}})\n\n\
         Only requests whose Host is 127.0.0.1, localhost, [::1] or the bound address (on the \
         bound port) are\n  answered unless --allowed-host adds names: this defeats DNS \
         rebinding. Browsers without a\n  token get a signed, HttpOnly cookie identity. \
         The agent and its commands get only PATH, HOME,\n  USER, LOGNAME, SHELL, LANG, \
         LANGUAGE, LC_*, TERM, TMPDIR and TZ of the environment, and --pass-env.",
        keywords.join(", "),
        events.join(", "),
        agent_ui.join(", ")
    )
}

fn port(v: &str) -> Result<u16, String> {
    v.parse().map_err(|_| "not a port number".into())
}

fn database_url(v: &str) -> Result<String, String> {
    check_database_url(v).map(|()| v.to_owned())
}

fn milliseconds(v: &str) -> Result<u64, String> {
    v.parse().map_err(|_| "not a number of milliseconds".into())
}

fn positive_ms(v: &str) -> Result<u64, String> {
    v.parse()
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| "not a number of milliseconds".into())
}

fn items(v: &str) -> Result<usize, String> {
    v.parse().map_err(|_| "not a number of items".into())
}

fn allowed_host(v: &str) -> Result<String, String> {
    guard::policy::parse_host(v)
        .map(|_| v.to_owned())
        .ok_or_else(|| "not a host[:port]".into())
}

fn allow_origin(v: &str) -> Result<String, String> {
    guard::policy::normalize_origin(v)
        .map(|_| v.to_owned())
        .ok_or_else(|| "not an origin like https://app.example.com".into())
}

fn token(v: &str) -> Result<String, String> {
    check_token(v).map(|()| v.to_owned())
}

fn callback_token(v: &str) -> Result<String, String> {
    check_token(v).map(|()| v.trim().to_owned())
}

fn upload_mb(v: &str) -> Result<usize, String> {
    v.parse()
        .ok()
        .filter(|n| (1..=1024).contains(n))
        .ok_or_else(|| "not a number from 1 to 1024".into())
}

fn connections_count(v: &str) -> Result<usize, String> {
    v.parse()
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| "not a number of connections".into())
}

fn frame_ancestors(v: &str) -> Result<String, String> {
    headers::check_frame_ancestors(v).map(|()| v.to_owned())
}

fn message_mb(v: &str) -> Result<usize, String> {
    v.parse()
        .ok()
        .filter(|n| (1..=1024).contains(n))
        .ok_or_else(|| "not a number from 1 to 1024".into())
}

fn pass_env(v: &str) -> Result<String, String> {
    contain::check_pass_env(v).map(|()| v.to_owned())
}

fn limit(v: &str) -> Result<u64, String> {
    v.parse()
        .ok()
        .filter(|n| (1..=1_000_000).contains(n))
        .ok_or_else(|| "not a number from 1 to 1000000".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{CALLBACK_TOKEN_ENV, TOKENS_ENV};

    fn parse(args: &[&str]) -> Result<Config, clap::Error> {
        super::parse(std::iter::once("chat-shell-runtime").chain(args.iter().copied()))
    }

    #[test]
    fn defaults() {
        let Ok(c) = parse(&[]) else { panic!() };
        assert_eq!(
            c,
            Config {
                host: "127.0.0.1".into(),
                port: 8080,
                pace_ms: 20,
                dist: "dist".into(),
                db: Some("chat-shell-demo.db".into()),
                database: None,
                database_from_env: true,
                lease_secs: 10,
                seed_items: None,
                seed_mixed: false,
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
                share_agent_sessions: false,
                pass_env: Vec::new(),
                max_agent_message_mb: 4,
                callback_token: None,
                channel_keepalive_ms: 15_000,
                limits: runs::Limits {
                    channels: 16,
                    runs: 8,
                    abandoned_run: Duration::from_secs(60),
                },
                clients: clients::Limits {
                    connections: 64,
                    channels: 48,
                    runs: 16,
                    drafts: 8,
                    identities_per_minute: 120,
                    runs_total: 128,
                },
                channel_lifetime: Duration::from_secs(1800),
                trusted_proxies: Vec::new(),
            }
        );
    }

    #[test]
    fn the_database_is_a_postgres_url_and_the_command_line_wins_over_the_environment() {
        let Ok(c) = parse(&[
            "--database",
            "postgres://chat@db.internal:5432/chat",
            "--lease-secs",
            "3",
        ]) else {
            panic!()
        };
        assert_eq!(
            c.database.as_deref(),
            Some("postgres://chat@db.internal:5432/chat")
        );
        assert_eq!(c.lease_secs, 3);
        assert!(!c.database_from_env);
        assert!(!parse(&["--db", "x.db"]).unwrap().database_from_env);
        assert!(!parse(&["--memory"]).unwrap().database_from_env);
        assert!(parse(&["--database", "mysql://db/chat"]).is_err());
        assert!(parse(&["--database", "chat.db"]).is_err());
        assert!(parse(&["--lease-secs", "0"]).is_err());
    }

    #[test]
    fn access_flags_repeat_and_are_checked() {
        let Ok(c) = parse(&[
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
        let Ok(c) = parse(&[
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
        let Ok(c) = parse(&["--db", "h.db"]) else {
            panic!()
        };
        assert_eq!(c.db, Some("h.db".into()));
        assert_eq!(
            parse(&["--help"]).map_err(|e| e.kind()),
            Err(ErrorKind::DisplayHelp)
        );
        let Ok(c) = parse(&["--seed-thread", "1000"]) else {
            panic!()
        };
        assert_eq!((c.seed_items, c.seed_mixed), (Some(1000), false));
        let Ok(c) = parse(&["--seed-thread", "40", "--seed-mixed"]) else {
            panic!()
        };
        assert_eq!((c.seed_items, c.seed_mixed), (Some(40), true));
        assert!(parse(&["--seed-mixed"]).is_err());
    }

    #[test]
    fn acp_flags() {
        let Ok(c) = parse(&[
            "--acp",
            "my-agent --acp",
            "--workspace=/w",
            "--allow-terminal",
            "--share-agent-sessions",
            "--pass-env",
            "ANTHROPIC_API_KEY",
            "--pass-env=NPM_CONFIG_*",
        ]) else {
            panic!()
        };
        assert_eq!(c.acp.as_deref(), Some("my-agent --acp"));
        assert_eq!(c.workspace, Some(PathBuf::from("/w")));
        assert!(c.allow_terminal);
        assert!(c.share_agent_sessions);
        assert_eq!(c.pass_env, ["ANTHROPIC_API_KEY", "NPM_CONFIG_*"]);
        assert!(parse(&["--workspace", "/w"]).is_err());
        assert!(parse(&["--allow-terminal"]).is_err());
        assert!(parse(&["--share-agent-sessions"]).is_err());
        assert!(parse(&["--pass-env", "HOME"]).is_err());
        for bad in ["", "*", "A=B", "A*B", TOKENS_ENV, CALLBACK_TOKEN_ENV] {
            assert!(parse(&["--acp", "a", "--pass-env", bad]).is_err(), "{bad}");
        }
        assert!(parse(&["--acp"]).is_err());
    }

    #[test]
    fn callback_flags() {
        let Ok(c) = parse(&[
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
        let Ok(c) = parse(&[
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
    fn client_flags() {
        let Ok(c) = parse(&[
            "--max-connections-per-client=5",
            "--max-channels-per-client=4",
            "--max-runs-per-client=3",
            "--max-drafts-per-client=2",
            "--max-new-identities-per-minute=7",
            "--max-runs-total=9",
            "--channel-lifetime-secs=30",
            "--trust-proxy=10.0.0.9",
            "--trust-proxy=::1",
        ]) else {
            panic!()
        };
        assert_eq!(
            c.clients,
            clients::Limits {
                connections: 5,
                channels: 4,
                runs: 3,
                drafts: 2,
                identities_per_minute: 7,
                runs_total: 9,
            }
        );
        assert_eq!(c.channel_lifetime, Duration::from_secs(30));
        assert_eq!(
            c.trusted_proxies,
            vec![
                "10.0.0.9".parse::<std::net::IpAddr>().unwrap(),
                "::1".parse().unwrap()
            ]
        );
        assert!(parse(&["--trust-proxy", "proxy.internal"]).is_err());
        assert!(parse(&["--max-runs-total", "0"]).is_err());
    }

    #[test]
    fn connection_and_page_flags() {
        let Ok(c) = parse(&[
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

    /// Test harnesses add flags to a base command line: the last value of a flag wins, and
    /// of `--memory` and `--db` the last one given.
    #[test]
    fn later_flags_win() {
        let Ok(c) = parse(&["--port", "0", "--pace-ms", "0", "--port", "5"]) else {
            panic!()
        };
        assert_eq!((c.port, c.pace_ms), (5, 0));
        let Ok(c) = parse(&["--memory", "--db", "h.db"]) else {
            panic!()
        };
        assert_eq!(c.db, Some("h.db".into()));
        let Ok(c) = parse(&["--db", "h.db", "--memory"]) else {
            panic!()
        };
        assert_eq!(c.db, None);
    }
}
