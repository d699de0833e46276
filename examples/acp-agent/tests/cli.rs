//! The agent's command line, on the real binary: refusals exit 2 naming the flag, and
//! `--help` lists every flag with its description.

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs the agent with `args` and a closed stdin to its exit (killed after 10 s); returns
/// (exit code, stdout, stderr).
fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_chat-shell-acp-agent"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start chat-shell-acp-agent");
    // No client: an agent that accepted its command line ends at the end of its input.
    let _ = child.stdin.take().unwrap().flush();
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("chat-shell-acp-agent {args:?} did not exit");
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
            &["--pace-ms", "soon"],
            "invalid value 'soon' for '--pace-ms <MS>': not a number of milliseconds",
        ),
        (
            &["--state-dir"],
            "a value is required for '--state-dir <DIR>'",
        ),
    ] {
        let (code, out, err) = run(args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?}: {out}");
        assert!(
            err.starts_with("error: ") && err.contains(says),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn help_lists_every_flag_with_a_description() {
    let (code, out, err) = run(&["--help"]);
    assert_eq!(code, Some(0), "{err}");
    for (flag, words) in [
        (
            "--pace-ms <MS>",
            "Delay between streamed chunks [default: 30]",
        ),
        ("--state-dir <DIR>", "Keep each session's history"),
        ("--replay <FILE>", "replay ACP traffic"),
        ("-h, --help", "Print help"),
    ] {
        let line = out
            .lines()
            .find(|l| l.trim_start().starts_with(flag))
            .unwrap_or_else(|| panic!("{flag} is not in --help:\n{out}"));
        assert!(line.contains(words), "{flag}: {line}");
    }
    assert!(out.contains("Keywords: tools, terminal"), "{out}");
}
