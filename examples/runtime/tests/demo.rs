//! `scripts/demo.sh` with the runtime already built (`CHAT_SHELL_SKIP_BUILD=1`): it says
//! "open http://…" only once the runtime answers, keeps the callback token to itself
//! unless asked, and stops the runtime when it is stopped.

use std::io::{BufRead, BufReader};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const TOKEN: &str = "demo-test-token-0123456789abcdef";

struct Demo {
    child: Child,
    port: u16,
    /// stdout and stderr, line by line.
    lines: Arc<Mutex<Vec<String>>>,
}

impl Demo {
    fn start(show_token: bool) -> Demo {
        // A port free a moment ago: the script refuses one that is taken.
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/demo.sh");
        let mut command = Command::new("bash");
        command
            .arg(script)
            .arg("--memory")
            .env("CHAT_SHELL_SKIP_BUILD", "1")
            .env(
                "CHAT_SHELL_RUNTIME_BIN",
                env!("CARGO_BIN_EXE_chat-shell-runtime"),
            )
            .env("PORT", port.to_string())
            .env("CHAT_SHELL_CALLBACK_TOKEN", TOKEN)
            .env_remove("CHAT_SHELL_RUNTIME_TOKENS")
            .env_remove("ACP")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if show_token {
            command.env("SHOW_TOKEN", "1");
        } else {
            command.env_remove("SHOW_TOKEN");
        }
        let mut child = command.spawn().expect("bash runs scripts/demo.sh");
        let lines = Arc::new(Mutex::new(Vec::new()));
        let stdout = child.stdout.take().unwrap();
        let stderr = child.stderr.take().unwrap();
        for (out, sink) in [
            (
                Box::new(stdout) as Box<dyn std::io::Read + Send>,
                lines.clone(),
            ),
            (Box::new(stderr), lines.clone()),
        ] {
            std::thread::spawn(move || {
                for line in BufReader::new(out).lines().map_while(Result::ok) {
                    // Checked the moment it is printed: was the runtime answering then?
                    let answering = line.starts_with("open http://")
                        && TcpStream::connect(("127.0.0.1", port)).is_ok();
                    let mut lines = sink.lock().unwrap();
                    lines.push(line);
                    if answering {
                        lines.push("(answering)".into());
                    }
                }
            });
        }
        Demo { child, port, lines }
    }

    fn lines(&self) -> Vec<String> {
        self.lines.lock().unwrap().clone()
    }

    /// Waits up to 30 s for a line starting with `prefix`; its index.
    fn wait_for(&self, prefix: &str) -> usize {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(i) = self.lines().iter().position(|l| l.starts_with(prefix)) {
                return i;
            }
            assert!(
                Instant::now() < deadline,
                "no `{prefix}` line in {:#?}",
                self.lines()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Stops the script as Ctrl-C or `kill` would; it must take the runtime with it.
    fn stop(mut self) {
        let pid = self.child.id().to_string();
        let killed = Command::new("kill").args(["-TERM", &pid]).status().unwrap();
        assert!(killed.success());
        let deadline = Instant::now() + Duration::from_secs(10);
        while self.child.try_wait().unwrap().is_none() {
            assert!(Instant::now() < deadline, "the script did not stop");
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(
            TcpStream::connect(("127.0.0.1", self.port)).is_err(),
            "the runtime still answers after the script stopped"
        );
    }
}

impl Drop for Demo {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn the_demo_says_open_once_the_runtime_answers_and_keeps_the_token_to_itself() {
    let demo = Demo::start(false);
    let listening = demo.wait_for("chat-shell-runtime listening on http://127.0.0.1:");
    let open = demo.wait_for(&format!("open http://127.0.0.1:{}/", demo.port));
    assert!(listening < open, "{:#?}", demo.lines());
    assert_eq!(
        demo.lines().get(open + 1).map(String::as_str),
        Some("(answering)"),
        "the runtime answered when the demo said open: {:#?}",
        demo.lines()
    );
    let lines = demo.lines();
    assert!(
        lines.iter().all(|l| !l.contains(TOKEN)),
        "the token is printed: {lines:#?}"
    );
    assert!(
        lines.iter().any(|l| l.contains("SHOW_TOKEN=1 prints it")),
        "{lines:#?}"
    );
    demo.stop();

    // Asked for, it is shown.
    let demo = Demo::start(true);
    demo.wait_for(&format!("open http://127.0.0.1:{}/", demo.port));
    assert!(
        demo.lines()
            .iter()
            .any(|l| l.contains(&format!("Authorization: Bearer {TOKEN}"))),
        "{:#?}",
        demo.lines()
    );
    demo.stop();
}
