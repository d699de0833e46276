//! chat-shell-runtime: the reference ChatKit server for chat-shell, as a library an axum app
//! nests under its own router ([`Chat::builder`]) and as the `chat-shell-runtime` binary
//! (`main.rs`, over [`cli`] and [`serve`]).
//!
//! ```no_run
//! # async fn app() -> Result<(), chat_shell_runtime::Error> {
//! use chat_shell_runtime::Chat;
//! let chat = Chat::builder()
//!     .sqlite("chat.db")
//!     .prefix("/chat")
//!     .identity(|parts| {
//!         let user = parts.headers.get("x-user")?;
//!         user.to_str().ok().map(str::to_owned)
//!     })
//!     .build()
//!     .await?;
//! let app: axum::Router = axum::Router::new().nest("/chat", chat.router());
//! # Ok(())
//! # }
//! ```
//!
//! Where each behaviour lives:
//! - `chat`: the builder and the routes it hands out; `server`: the binary's listener and
//!   pages; `config`, `cli`: the binary's settings and its command line.
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
//! - `channel/`: the live channel of a thread (`threads.subscribe`), its `hub` and `outbox`.
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
mod chat;
pub mod cli;
mod clients;
mod config;
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
mod server;
mod shared;
mod sse;
mod state;
mod static_files;
mod store;

pub use chat::{Chat, ChatBuilder, Error, PgPool};
pub use clients::Limits as ClientLimits;
pub use config::Config;
pub use contain::hidden_mode;
pub use runs::Limits;
pub use server::serve;
