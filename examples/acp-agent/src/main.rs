//! `chat-shell-acp-agent`: a scripted, model-free ACP agent on stdio (see `lib.rs`).

use std::process::ExitCode;

#[tokio::main]
async fn main() -> ExitCode {
    let options = match chat_shell_acp_agent::Options::parse(std::env::args().skip(1)) {
        Ok(Some(options)) => options,
        Ok(None) => {
            println!("{}", chat_shell_acp_agent::USAGE);
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!(
                "chat-shell-acp-agent: {e}\n\n{}",
                chat_shell_acp_agent::USAGE
            );
            return ExitCode::from(2);
        }
    };
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
