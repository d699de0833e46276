//! A scripted, model-free ACP agent, built with the official `agent-client-protocol`
//! crate, for chat-shell's reference runtime (`chat-shell-runtime --acp`). A keyword in the
//! prompt picks what it does (see [`KEYWORDS`]): every tool call kind, diffs (a new file, a
//! change, a deletion), a terminal through the client's terminal capability, file access
//! through the client's `fs/*`, a failing tool, permission requests with all four option
//! kinds ("always" is remembered for the session), a plan that updates, thoughts, a long
//! run to Stop, each honest stop reason, and an agent that exits mid-turn.
//!
//! It offers the session controls too (`controls`): modes `ask`/`code` and config
//! options `mode`, `model` (`scripted-locked` is refused, with the reason in the error's
//! `data`), `thought_level` (`high` on `scripted-fast` is adjusted to `medium`) and, for a
//! client that takes booleans, `auto_approve`; the prompt words `options+`/`options-` add and
//! remove a `verbosity` option; slash commands `web`, `test`, `plan` (`commands-` withdraws
//! `web` and adds `review`, `commands+` restores them; a prompt `/name args` says what ran);
//! a `usage_update` after each turn; a title after the first; `elicit` (a form) and
//! `elicit-url` (a link, then `elicitation/complete`) for clients that advertise them.
//!
//! Sessions support `session/list` (paged by `--page-size`), `session/load` (replays the
//! transcript), `session/resume` (no replay) and `session/close` (cancels its turn and
//! forgets it in memory): with `--sessions DIR` (alias of `--state-dir`) their history is
//! kept in `DIR/<sessionId>.json`, so a new agent process (after a runtime restart), or
//! this one after a close, lists and loads them; without it they live in memory.
//!
//! The modules, by concern: `options` (the command line), `session` (what the agent
//! remembers, and `--state-dir`), `serve` (the stdio main loop), `prompt` (a turn: the
//! keyword that picks its script), `turn` (what every script builds on), `tool_calls`,
//! `client_requests` (files and terminals the client serves), `control_scripts`,
//! `scenarios` (the tour, plans, stop reasons, limits), `replay` (`--replay`) and `wire` (a
//! typed ACP message, a session update sent: the leaf they all use).

mod client_requests;
mod control_scripts;
mod controls;
mod options;
mod prompt;
mod replay;
mod scenarios;
mod serve;
mod session;
mod tool_calls;
mod turn;
mod wire;

pub use options::Options;
pub use prompt::KEYWORDS;
pub use replay::replay_stdio;
pub use serve::serve_stdio;
pub use session::state_file;
