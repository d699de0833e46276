//! The command line of the real binary: refusals exit 2 with a message naming the flag,
//! and `--help` lists every flag with its description.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs the runtime with `args` to its exit (killed after 10 s: a command line it accepts
/// would serve forever); returns (exit code, stdout, stderr).
fn run(args: &[&str]) -> (Option<i32>, String, String) {
    run_with_tokens(args, None)
}

/// `run`, with `CHAT_SHELL_RUNTIME_TOKENS` set to `tokens` (or unset).
fn run_with_tokens(args: &[&str], tokens: Option<&str>) -> (Option<i32>, String, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_chat-shell-runtime"));
    command
        .args(args)
        .env_remove("CHAT_SHELL_RUNTIME_TOKENS")
        .env_remove("CHAT_SHELL_CALLBACK_TOKEN");
    if let Some(tokens) = tokens {
        command.env("CHAT_SHELL_RUNTIME_TOKENS", tokens);
    }
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start chat-shell-runtime");
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("chat-shell-runtime {args:?} did not exit");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let (mut out, mut err) = (String::new(), String::new());
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    (status.code(), out, err)
}

#[test]
fn an_unknown_flag_or_a_bad_value_exits_2_naming_it() {
    for (args, says) in [
        (&["--verbose"][..], "unexpected argument '--verbose' found"),
        (
            &["--port", "http"],
            "invalid value 'http' for '--port <PORT>': not a port number",
        ),
        (
            &["--max-runs=0"],
            "invalid value '0' for '--max-runs <N>': not a number from 1 to 1000000",
        ),
        (&["--workspace", "/w"], "--acp"),
        (&["--csp", "frame-ancestors *"], "frame-ancestors"),
    ] {
        let (code, out, err) = run(args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?}: {out}");
        assert!(err.starts_with("error: "), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(err.contains("--help"), "{args:?}: {err}");
    }
}

#[test]
fn a_bad_token_in_the_environment_exits_2() {
    let (code, _, err) = run_with_tokens(&["--memory", "--port", "0"], Some("short"));
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("CHAT_SHELL_RUNTIME_TOKENS: a token has at least"),
        "{err}"
    );
}

#[test]
fn help_lists_every_flag_with_a_description() {
    let (code, out, err) = run(&["--help"]);
    assert_eq!(code, Some(0), "{err}");
    for flag in [
        "--host <HOST>",
        "--port <PORT>",
        "--pace-ms <MS>",
        "--dist <DIR>",
        "--db <PATH>",
        "--memory",
        "--seed-thread <N>",
        "--seed-mixed",
        "--allowed-host <H[:PORT]>",
        "--allow-origin <ORIGIN>",
        "--token <TOKEN>",
        "--max-upload-mb <N>",
        "--max-connections <N>",
        "--header-timeout-ms <MS>",
        "--body-timeout-ms <MS>",
        "--csp <POLICY>",
        "--frame-ancestors <SOURCES>",
        "--acp <",
        "--workspace <DIR>",
        "--allow-terminal",
        "--pass-env <NAME>",
        "--callback-token <TOKEN>",
        "--max-channels <N>",
        "--max-runs <N>",
        "--abandoned-run-secs <N>",
        "--max-connections-per-client <N>",
        "--max-channels-per-client <N>",
        "--max-runs-per-client <N>",
        "--max-drafts-per-client <N>",
        "--max-new-identities-per-minute <N>",
        "--max-runs-total <N>",
        "--channel-lifetime-secs <N>",
        "--trust-proxy <IP>",
        "-h, --help",
    ] {
        let lines: Vec<&str> = out.lines().collect();
        let at = lines
            .iter()
            .position(|l| l.trim_start().starts_with(flag))
            .unwrap_or_else(|| panic!("{flag} is not in --help:\n{out}"));
        let line = lines[at];
        // Beside the flag, or on the next line when the flags are too wide for one column.
        let beside = line.trim_start()[flag.len()..].trim_start_matches(|c| c != ' ');
        let below = lines
            .get(at + 1)
            .map(|l| l.trim())
            .filter(|l| !l.starts_with('-'))
            .unwrap_or("");
        assert!(
            beside.trim().len() >= 4 || below.len() >= 4,
            "{flag} has no description: {line}"
        );
    }
    assert!(out.contains("[default: 8080]"), "{out}");
    assert!(out.contains("POST /chatkit: a keyword"), "{out}");
}
