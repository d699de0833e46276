//! `chat-shell-acp-agent`: a scripted, model-free ACP agent on stdio (see `lib.rs`).

use clap::Parser;
use std::process::ExitCode;

#[tokio::main]
async fn main() -> ExitCode {
    // `--help` and refusals print and exit here (0 and 2).
    let options = chat_shell_acp_agent::Options::parse();
    if let Some(path) = &options.replay {
        return match chat_shell_acp_agent::replay_stdio(path) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("chat-shell-acp-agent: replay: {e}");
                ExitCode::FAILURE
            }
        };
    }
    match chat_shell_acp_agent::serve_stdio(options).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("chat-shell-acp-agent: {e}");
            ExitCode::FAILURE
        }
    }
}
