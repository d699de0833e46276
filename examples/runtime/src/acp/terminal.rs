//! `terminal/*` (with `--allow-terminal`): commands run in the workspace, their output kept
//! up to the agent's `outputByteLimit` (the oldest bytes go first). A command starts with an
//! allowlisted environment and dies as a whole, whatever it started, on kill, release,
//! Stop and when the runtime exits (`crate::contain`). A terminal id is random and belongs
//! to its session: another session's calls are told it does not exist.

use super::fs::Workspace;
use crate::contain::{self, EnvPolicy, Stopper};
use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::AsyncReadExt;
use tokio::sync::watch;

/// Output kept when the agent gives no `outputByteLimit`.
pub const DEFAULT_OUTPUT_LIMIT: usize = 1024 * 1024;
/// Never more than this, whatever the agent asks.
pub const MAX_OUTPUT_LIMIT: usize = 16 * 1024 * 1024;

/// How a command ended: ACP's `TerminalExitStatus`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Exit {
    pub code: Option<u32>,
    pub signal: Option<String>,
}

/// What `terminal/create` asks for.
#[derive(Clone, Debug, Default)]
pub struct Spec {
    pub command: String,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
    pub cwd: Option<PathBuf>,
    pub output_byte_limit: Option<u64>,
}

struct Output {
    bytes: Vec<u8>,
    truncated: bool,
    limit: usize,
}

impl Output {
    fn push(&mut self, chunk: &[u8]) {
        self.bytes.extend_from_slice(chunk);
        if self.bytes.len() > self.limit {
            let cut = self.bytes.len() - self.limit;
            self.bytes.drain(..cut);
            self.truncated = true;
        }
    }

    /// The kept output as text, starting at a character boundary.
    fn text(&self) -> String {
        let start = self
            .bytes
            .iter()
            .take(4)
            .take_while(|b| (**b & 0b1100_0000) == 0b1000_0000)
            .count();
        String::from_utf8_lossy(&self.bytes[start..]).into_owned()
    }
}

struct Terminal {
    session: String,
    output: Arc<Mutex<Output>>,
    exit: watch::Receiver<Option<Exit>>,
    stopper: Stopper,
}

impl Terminal {
    /// Kills the command and all it started, even after the command itself has ended.
    fn kill(&self) {
        self.stopper.stop();
    }
}

/// Every terminal of the runtime, by id.
pub struct Terminals {
    workspace: Workspace,
    env: EnvPolicy,
    map: Mutex<HashMap<String, Arc<Terminal>>>,
}

impl Terminals {
    pub fn new(workspace: Workspace, env: EnvPolicy) -> Self {
        Terminals {
            workspace,
            env,
            map: Mutex::new(HashMap::new()),
        }
    }

    /// `session`'s terminal `id`; another session's is unknown, as is a released one.
    fn get(&self, session: &str, id: &str) -> Result<Arc<Terminal>, String> {
        self.map
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(id)
            .filter(|t| t.session == session)
            .cloned()
            .ok_or_else(|| format!("unknown terminal {id}"))
    }

    /// Starts `spec` for `session`; returns the terminal id.
    pub async fn create(&self, session: &str, spec: Spec) -> Result<String, String> {
        let cwd = match &spec.cwd {
            Some(dir) => self
                .workspace
                .resolve(dir)
                .map_err(|e| e.message().to_owned())?,
            None => self.workspace.root().to_path_buf(),
        };
        let limit = spec
            .output_byte_limit
            .map_or(DEFAULT_OUTPUT_LIMIT, |n| n as usize)
            .min(MAX_OUTPUT_LIMIT);
        let vars = self.env.vars();
        let mut contained = contain::spawn(&spec.command, &spec.args, |command| {
            command
                .env_clear()
                .envs(vars)
                .envs(spec.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
                .current_dir(&cwd)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
        })
        .await
        .map_err(|e| format!("cannot run {}: {e}", spec.command))?;
        let stopper = contained.stopper();
        let output = Arc::new(Mutex::new(Output {
            bytes: Vec::new(),
            truncated: false,
            limit,
        }));
        let readers: Vec<_> = [
            contained
                .child
                .stdout
                .take()
                .map(|s| Box::new(s) as Box<dyn tokio::io::AsyncRead + Send + Unpin>),
            contained
                .child
                .stderr
                .take()
                .map(|s| Box::new(s) as Box<dyn tokio::io::AsyncRead + Send + Unpin>),
        ]
        .into_iter()
        .flatten()
        .map(|mut stream| {
            let output = output.clone();
            tokio::spawn(async move {
                let mut buf = [0u8; 8192];
                while let Ok(n) = stream.read(&mut buf).await {
                    if n == 0 {
                        break;
                    }
                    output
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push(&buf[..n]);
                }
            })
        })
        .collect();
        let (exit_tx, exit_rx) = watch::channel(None);
        tokio::spawn(async move {
            let ended = contained.ended().await;
            // Take what the pipes still hold (a child that keeps them open is not waited for).
            for reader in readers {
                let _ = tokio::time::timeout(Duration::from_millis(500), reader).await;
            }
            let _ = exit_tx.send(Some(describe(ended)));
            contained.reaped().await;
        });
        // Random: an id names one session's terminal, and is not guessed from another's.
        let id = format!(
            "term_{}",
            crate::store::hex(&crate::store::random_bytes::<16>())
        );
        self.map.lock().unwrap_or_else(|e| e.into_inner()).insert(
            id.clone(),
            Arc::new(Terminal {
                session: session.to_owned(),
                output,
                exit: exit_rx,
                stopper,
            }),
        );
        Ok(id)
    }

    /// `(output, truncated, exit)` so far.
    pub fn output(&self, session: &str, id: &str) -> Result<(String, bool, Option<Exit>), String> {
        let t = self.get(session, id)?;
        let output = t.output.lock().unwrap_or_else(|e| e.into_inner());
        let exit = t.exit.borrow().clone();
        Ok((output.text(), output.truncated, exit))
    }

    /// Waits for the command to end.
    pub async fn wait(&self, session: &str, id: &str) -> Result<Exit, String> {
        let mut exit = self.get(session, id)?.exit.clone();
        let done = exit
            .wait_for(Option::is_some)
            .await
            .map_err(|_| "the terminal is gone".to_owned())?;
        Ok(done.clone().unwrap_or_default())
    }

    /// Kills the command; the terminal (and its output) stays until released.
    pub fn kill(&self, session: &str, id: &str) -> Result<(), String> {
        self.get(session, id)?.kill();
        Ok(())
    }

    /// Kills the command and what it left running, and forgets the terminal.
    pub fn release(&self, session: &str, id: &str) -> Result<(), String> {
        let mut map = self.map.lock().unwrap_or_else(|e| e.into_inner());
        match map.get(id) {
            Some(t) if t.session == session => {
                t.kill();
                map.remove(id);
                Ok(())
            }
            _ => Err(format!("unknown terminal {id}")),
        }
    }

    /// Kills every command of `session` (its turn was cancelled), with what it left
    /// running; returns how many had not ended yet.
    pub fn kill_session(&self, session: &str) -> usize {
        let map = self.map.lock().unwrap_or_else(|e| e.into_inner());
        let mut n = 0;
        for t in map.values().filter(|t| t.session == session) {
            n += usize::from(t.exit.borrow().is_none());
            t.kill();
        }
        n
    }
}

fn describe(ended: contain::Ended) -> Exit {
    match ended {
        contain::Ended::Code(code) => Exit {
            code: Some(code as u32),
            signal: None,
        },
        contain::Ended::Signal(signal) => Exit {
            code: None,
            signal: Some(match signal {
                9 => "SIGKILL".to_owned(),
                15 => "SIGTERM".to_owned(),
                2 => "SIGINT".to_owned(),
                n => format!("signal {n}"),
            }),
        },
        contain::Ended::Unknown => Exit::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terminals() -> (Terminals, PathBuf) {
        let dir =
            std::env::temp_dir().join(format!("chat-shell-acp-term-{}", crate::store::new_id("t")));
        std::fs::create_dir_all(&dir).unwrap();
        (
            Terminals::new(Workspace::new(&dir).unwrap(), EnvPolicy::default()),
            dir,
        )
    }

    fn sh(script: &str, limit: Option<u64>) -> Spec {
        Spec {
            command: "sh".into(),
            args: vec!["-c".into(), script.into()],
            output_byte_limit: limit,
            ..Spec::default()
        }
    }

    /// Whether `pid` runs (a zombie does not).
    fn alive(pid: u32) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|s| Some(s.rsplit_once(')')?.1.split_whitespace().next()? != "Z"))
            .unwrap_or(false)
    }

    /// Polls for up to 10 s until `pid` no longer runs.
    async fn dies(pid: u32) -> bool {
        for _ in 0..500 {
            if !alive(pid) {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        false
    }

    /// The pid a command wrote to `file`, waiting up to 10 s for it.
    async fn pid_in(file: &std::path::Path) -> u32 {
        for _ in 0..500 {
            if let Some(pid) = std::fs::read_to_string(file)
                .ok()
                .and_then(|s| s.trim().parse().ok())
            {
                return pid;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("{} never held a pid", file.display());
    }

    /// When the test ends, however it ends: SIGKILLs every process still running in the
    /// test's folder (what the commands started, if they outlived what should end them).
    struct Reap<'a>(&'a std::path::Path);

    impl Drop for Reap<'_> {
        fn drop(&mut self) {
            for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
                let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse().ok()) else {
                    continue;
                };
                let cwd = std::fs::read_link(entry.path().join("cwd")).ok();
                if cwd.is_some_and(|d| d.starts_with(self.0)) {
                    if let Some(pid) = rustix::process::Pid::from_raw(pid) {
                        let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
                    }
                }
            }
        }
    }

    #[tokio::test]
    async fn runs_in_the_workspace_with_bounded_output() {
        let (terms, dir) = terminals();
        let id = terms.create("s1", sh("pwd; exit 3", None)).await.unwrap();
        let exit = terms.wait("s1", &id).await.unwrap();
        assert_eq!(
            exit,
            Exit {
                code: Some(3),
                signal: None
            }
        );
        let (out, truncated, _) = terms.output("s1", &id).unwrap();
        assert_eq!(
            out.trim(),
            dir.canonicalize().unwrap().display().to_string()
        );
        assert!(!truncated);

        // The oldest bytes go, never in the middle of a character.
        let id = terms
            .create(
                "s1",
                sh("printf 'aaaa\\n'; printf 'é%.0s' $(seq 1 20)", Some(9)),
            )
            .await
            .unwrap();
        terms.wait("s1", &id).await.unwrap();
        let (out, truncated, exit) = terms.output("s1", &id).unwrap();
        assert!(truncated);
        assert!(out.len() <= 9 && out.chars().all(|c| c == 'é'), "{out:?}");
        assert_eq!(exit.unwrap().code, Some(0));

        // A cwd outside the workspace is refused.
        let mut outside = sh("pwd", None);
        outside.cwd = Some("/".into());
        assert!(terms.create("s1", outside).await.is_err());
        terms.release("s1", &id).unwrap();
        assert!(terms.output("s1", &id).is_err());
        // A command that cannot run is an error of `terminal/create`.
        let missing = Spec {
            command: "/nonexistent/command".into(),
            ..Spec::default()
        };
        let error = terms.create("s1", missing).await.unwrap_err();
        assert!(error.contains("cannot run /nonexistent/command"), "{error}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[tokio::test]
    async fn kill_release_and_cancel_stop_the_command_and_its_children() {
        let (terms, dir) = terminals();
        let a = terms
            .create("s1", sh("sleep 30 & sleep 30; wait", None))
            .await
            .unwrap();
        let b = terms.create("s1", sh("sleep 30", None)).await.unwrap();
        let c = terms.create("s2", sh("sleep 30", None)).await.unwrap();
        let d = terms.create("s2", sh("sleep 30", None)).await.unwrap();
        terms.kill("s1", &a).unwrap();
        let exit = tokio::time::timeout(Duration::from_secs(5), terms.wait("s1", &a))
            .await
            .expect("killed in time")
            .unwrap();
        assert_eq!(exit.signal.as_deref(), Some("SIGKILL"));
        assert_eq!(terms.kill_session("s1"), 1);
        let exit = tokio::time::timeout(Duration::from_secs(5), terms.wait("s1", &b))
            .await
            .unwrap()
            .unwrap();
        assert!(exit.signal.is_some());
        // Release kills too; s2's other terminal is left alone until its own end.
        let waiting = terms.get("s2", &c).unwrap().exit.clone();
        terms.release("s2", &c).unwrap();
        let mut waiting = waiting;
        tokio::time::timeout(Duration::from_secs(5), waiting.wait_for(Option::is_some))
            .await
            .unwrap()
            .unwrap();
        assert!(terms.get("s2", &d).unwrap().exit.borrow().is_none());
        terms.release("s2", &d).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[tokio::test]
    async fn a_kill_takes_setsid_children_and_what_an_ended_command_left() {
        let (terms, dir) = terminals();
        let dir = dir.canonicalize().unwrap();
        let _reap = Reap(&dir);
        // A child in a session of its own: out of the command's process group.
        let a = terms
            .create(
                "s1",
                sh(
                    "setsid sh -c 'echo $$ > setsid.pid; exec sleep 300' & sleep 300",
                    None,
                ),
            )
            .await
            .unwrap();
        let escaped = pid_in(&dir.join("setsid.pid")).await;
        assert!(alive(escaped));
        terms.kill("s1", &a).unwrap();
        assert!(dies(escaped).await, "the setsid child outlived the kill");
        // Killed, not released: the terminal and its exit are still there.
        let exit = tokio::time::timeout(Duration::from_secs(5), terms.wait("s1", &a))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(exit.signal.as_deref(), Some("SIGKILL"));
        assert!(terms.output("s1", &a).is_ok());

        // The command ends; what it left runs on, until the terminal is killed.
        let b = terms
            .create(
                "s1",
                sh(
                    "sh -c 'echo $$ > left.pid; exec sleep 300' & \
                     while [ ! -s left.pid ]; do sleep 0.02; done",
                    None,
                ),
            )
            .await
            .unwrap();
        let left = pid_in(&dir.join("left.pid")).await;
        let exit = tokio::time::timeout(Duration::from_secs(5), terms.wait("s1", &b))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(exit.code, Some(0));
        assert!(alive(left));
        terms.kill("s1", &b).unwrap();
        assert!(dies(left).await, "what the command left outlived the kill");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[tokio::test]
    async fn ids_are_random_and_belong_to_their_session() {
        let (terms, dir) = terminals();
        let id = terms.create("s1", sh("sleep 30", None)).await.unwrap();
        let other = terms.create("s1", sh("true", None)).await.unwrap();
        assert_eq!(id.len(), "term_".len() + 32, "{id}");
        assert_ne!(id, other);
        // Another session is told the terminal does not exist, whatever it asks.
        assert!(terms.output("s2", &id).is_err());
        assert!(terms.wait("s2", &id).await.is_err());
        assert!(terms.kill("s2", &id).is_err());
        assert!(terms.release("s2", &id).is_err());
        assert_eq!(terms.kill_session("s2"), 0);
        assert!(
            terms.output("s1", &id).unwrap().2.is_none(),
            "still running"
        );
        terms.release("s1", &id).unwrap();
        terms.release("s1", &other).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
    }
}
