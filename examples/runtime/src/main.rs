//! The `chat-shell-runtime` binary: reads the command line (`cli`), then serves the
//! library's chat with its pages until Ctrl-C or SIGTERM.

use chat_shell_runtime::{cli, Config};
use std::process::ExitCode;

fn main() -> ExitCode {
    // The runtime re-executes itself to start agents and contain terminals (`contain`).
    if let Some(code) = chat_shell_runtime::hidden_mode() {
        return code;
    }
    serve()
}

#[tokio::main]
async fn serve() -> ExitCode {
    let config = match cli::parse(std::env::args_os()).map(Config::with_environment) {
        Ok(Ok(config)) => config,
        Ok(Err(e)) => cli::env_error(e).exit(),
        // `--help` too: printed on stdout, and the exit code is 0.
        Err(e) => e.exit(),
    };
    match chat_shell_runtime::serve(config, shutdown_signal()).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("chat-shell-runtime: {e}");
            ExitCode::FAILURE
        }
    }
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
