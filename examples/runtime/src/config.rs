//! What a runtime serves with, whoever sets it (the command line, `cli`), and the
//! environment variables it reads: its tokens and its database. The agent and its commands
//! never see the tokens (`contain`).

use crate::{auth, clients, runs};
use std::path::PathBuf;
use std::time::Duration;

/// More bearer tokens, comma-separated (kept out of the process list).
pub const TOKENS_ENV: &str = "CHAT_SHELL_RUNTIME_TOKENS";
/// The PostgreSQL database, when neither `--database` nor `--db`/`--memory` is given.
pub const DATABASE_ENV: &str = "DATABASE_URL";

/// Where the callback token comes from when `--callback-token` is not given.
pub const CALLBACK_TOKEN_ENV: &str = "CHAT_SHELL_CALLBACK_TOKEN";

/// What a runtime serves with (the command line's flags; the environment's tokens are
/// added by [`Config::with_environment`]).
#[derive(Debug, PartialEq)]
pub struct Config {
    pub host: String,
    pub port: u16,
    pub pace_ms: u64,
    pub dist: PathBuf,
    /// `None`: in memory.
    pub db: Option<PathBuf>,
    /// `--database`: a PostgreSQL URL, used instead of `db`.
    pub database: Option<String>,
    /// Whether `DATABASE_URL` may choose the database (no `--db`, `--memory` or `--database`).
    pub database_from_env: bool,
    /// `--lease-secs`.
    pub lease_secs: u64,
    /// Items of a thread created at start (`--seed-thread`).
    pub seed_items: Option<usize>,
    /// `--seed-mixed`: the seeded thread mixes the kinds of an agent thread.
    pub seed_mixed: bool,
    /// More `Host` values to answer (`--allowed-host`).
    pub allowed_hosts: Vec<String>,
    /// Origins allowed cross-origin (`--allow-origin`).
    pub allow_origins: Vec<String>,
    /// Bearer tokens (`--token`; the environment's are added in `main`).
    pub tokens: Vec<String>,
    pub max_upload_mb: usize,
    /// `--max-connections`, `--header-timeout-ms`, `--body-timeout-ms`.
    pub max_connections: usize,
    pub header_timeout_ms: u64,
    pub body_timeout_ms: u64,
    /// `--csp`, `--frame-ancestors`.
    pub csp: String,
    pub frame_ancestors: String,
    /// `--acp`: the agent command.
    pub acp: Option<String>,
    /// `--workspace`.
    pub workspace: Option<PathBuf>,
    /// `--allow-terminal`.
    pub allow_terminal: bool,
    /// `--share-agent-sessions`.
    pub share_agent_sessions: bool,
    /// `--pass-env`: more variables the agent and its commands get.
    pub pass_env: Vec<String>,
    /// `--max-agent-message-mb`.
    pub max_agent_message_mb: usize,
    /// `--callback-token` (the environment's is used in `main` when absent).
    pub callback_token: Option<String>,
    /// Hidden `--channel-keepalive-ms` (tests): idle time before a channel's keepalive.
    pub channel_keepalive_ms: u64,
    /// `--max-channels`, `--max-runs`, `--abandoned-run-secs`.
    pub limits: runs::Limits,
    /// `--max-*-per-client`, `--max-new-identities-per-minute`, `--max-runs-total`.
    pub clients: clients::Limits,
    /// `--channel-lifetime-secs`.
    pub channel_lifetime: Duration,
    /// `--trust-proxy`.
    pub trusted_proxies: Vec<std::net::IpAddr>,
}

impl Config {
    /// The tokens of the environment: more bearer tokens, and the callback token when
    /// `--callback-token` is not given; the database when `DATABASE_URL` may choose it.
    pub fn with_environment(mut self) -> Result<Config, String> {
        self.tokens.extend(env_tokens()?);
        if self.callback_token.is_none() {
            self.callback_token = env_callback_token()?;
        }
        if self.database_from_env {
            self.database = env_database()?;
        }
        Ok(self)
    }
}

/// A PostgreSQL URL the driver reads (never repeated in the refusal: it may hold a password).
pub fn check_database_url(v: &str) -> Result<(), String> {
    let postgres = v.starts_with("postgres://") || v.starts_with("postgresql://");
    if !postgres || v.parse::<postgres::Config>().is_err() {
        return Err("not a postgres://USER:PASSWORD@HOST:PORT/DATABASE URL".into());
    }
    Ok(())
}

/// The URL in [`DATABASE_ENV`], if set and not blank.
pub fn env_database() -> Result<Option<String>, String> {
    let Some(url) = std::env::var(DATABASE_ENV)
        .ok()
        .filter(|u| !u.trim().is_empty())
    else {
        return Ok(None);
    };
    check_database_url(url.trim()).map_err(|e| format!("{DATABASE_ENV}: {e}"))?;
    Ok(Some(url.trim().to_owned()))
}

/// A bearer token: long enough, no spaces.
pub fn check_token(token: &str) -> Result<(), String> {
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
pub fn env_tokens() -> Result<Vec<String>, String> {
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

/// The token in [`CALLBACK_TOKEN_ENV`], if set and not blank.
pub fn env_callback_token() -> Result<Option<String>, String> {
    let Some(token) = std::env::var(CALLBACK_TOKEN_ENV)
        .ok()
        .filter(|t| !t.trim().is_empty())
    else {
        return Ok(None);
    };
    check_token(&token).map_err(|e| format!("{}: {e}", CALLBACK_TOKEN_ENV))?;
    Ok(Some(token.trim().to_owned()))
}
