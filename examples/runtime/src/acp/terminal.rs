//! `terminal/*` (with `--allow-terminal`): commands run in the workspace, their output kept
//! up to the agent's `outputByteLimit` (the oldest bytes go first), each in its own process
//! group so a kill takes its children too. Terminals are killed on release, when their
//! session's turn is cancelled, and when the runtime exits (`kill_on_drop`).

use super::fs::Workspace;
use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
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
    pid: Option<u32>,
}

impl Terminal {
    fn kill(&self) {
        if self.exit.borrow().is_some() {
            return;
        }
        if let Some(pid) = self.pid {
            kill_group(pid);
        }
    }
}

#[cfg(unix)]
fn kill_group(pid: u32) {
    if let Some(pid) = rustix::process::Pid::from_raw(pid as i32) {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
}

#[cfg(not(unix))]
fn kill_group(_pid: u32) {}

/// Every terminal of the runtime, by id.
pub struct Terminals {
    workspace: Workspace,
    next: AtomicU64,
    map: Mutex<HashMap<String, Arc<Terminal>>>,
}

impl Terminals {
    pub fn new(workspace: Workspace) -> Self {
        Terminals {
            workspace,
            next: AtomicU64::new(1),
            map: Mutex::new(HashMap::new()),
        }
    }

    fn get(&self, id: &str) -> Result<Arc<Terminal>, String> {
        self.map
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(id)
            .cloned()
            .ok_or_else(|| format!("unknown terminal {id}"))
    }

    /// Starts `spec` for `session`; returns the terminal id.
    pub fn create(&self, session: &str, spec: Spec) -> Result<String, String> {
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
        let mut command = tokio::process::Command::new(&spec.command);
        command
            .args(&spec.args)
            .envs(spec.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .current_dir(&cwd)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        #[cfg(unix)]
        command.process_group(0);
        let mut child = command
            .spawn()
            .map_err(|e| format!("cannot run {}: {e}", spec.command))?;
        let pid = child.id();
        let output = Arc::new(Mutex::new(Output {
            bytes: Vec::new(),
            truncated: false,
            limit,
        }));
        let readers: Vec<_> = [
            child
                .stdout
                .take()
                .map(|s| Box::new(s) as Box<dyn tokio::io::AsyncRead + Send + Unpin>),
            child
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
            let status = child.wait().await;
            // Take what the pipes still hold (a child that keeps them open is not waited for).
            for reader in readers {
                let _ = tokio::time::timeout(Duration::from_millis(500), reader).await;
            }
            let exit = match status {
                Ok(status) => describe(status),
                Err(_) => Exit::default(),
            };
            let _ = exit_tx.send(Some(exit));
        });
        let id = format!("term_{}", self.next.fetch_add(1, Ordering::SeqCst));
        self.map.lock().unwrap_or_else(|e| e.into_inner()).insert(
            id.clone(),
            Arc::new(Terminal {
                session: session.to_owned(),
                output,
                exit: exit_rx,
                pid,
            }),
        );
        Ok(id)
    }

    /// `(output, truncated, exit)` so far.
    pub fn output(&self, id: &str) -> Result<(String, bool, Option<Exit>), String> {
        let t = self.get(id)?;
        let output = t.output.lock().unwrap_or_else(|e| e.into_inner());
        let exit = t.exit.borrow().clone();
        Ok((output.text(), output.truncated, exit))
    }

    /// Waits for the command to end.
    pub async fn wait(&self, id: &str) -> Result<Exit, String> {
        let mut exit = self.get(id)?.exit.clone();
        let done = exit
            .wait_for(Option::is_some)
            .await
            .map_err(|_| "the terminal is gone".to_owned())?;
        Ok(done.clone().unwrap_or_default())
    }

    /// Kills the command; the terminal (and its output) stays until released.
    pub fn kill(&self, id: &str) -> Result<(), String> {
        self.get(id)?.kill();
        Ok(())
    }

    /// Kills the command if it still runs and forgets the terminal.
    pub fn release(&self, id: &str) -> Result<(), String> {
        let removed = self
            .map
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(id)
            .ok_or_else(|| format!("unknown terminal {id}"))?;
        removed.kill();
        Ok(())
    }

    /// Kills every command still running for `session` (its turn was cancelled).
    pub fn kill_session(&self, session: &str) -> usize {
        let map = self.map.lock().unwrap_or_else(|e| e.into_inner());
        let mut n = 0;
        for t in map.values().filter(|t| t.session == session) {
            if t.exit.borrow().is_none() {
                t.kill();
                n += 1;
            }
        }
        n
    }
}

fn describe(status: std::process::ExitStatus) -> Exit {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            let name = match signal {
                9 => "SIGKILL".to_owned(),
                15 => "SIGTERM".to_owned(),
                2 => "SIGINT".to_owned(),
                n => format!("signal {n}"),
            };
            return Exit {
                code: None,
                signal: Some(name),
            };
        }
    }
    Exit {
        code: status.code().map(|c| c as u32),
        signal: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terminals() -> (Terminals, PathBuf) {
        let dir =
            std::env::temp_dir().join(format!("chat-shell-acp-term-{}", crate::store::new_id("t")));
        std::fs::create_dir_all(&dir).unwrap();
        (Terminals::new(Workspace::new(&dir).unwrap()), dir)
    }

    fn sh(script: &str, limit: Option<u64>) -> Spec {
        Spec {
            command: "sh".into(),
            args: vec!["-c".into(), script.into()],
            output_byte_limit: limit,
            ..Spec::default()
        }
    }

    #[tokio::test]
    async fn runs_in_the_workspace_with_bounded_output() {
        let (terms, dir) = terminals();
        let id = terms.create("s1", sh("pwd; exit 3", None)).unwrap();
        let exit = terms.wait(&id).await.unwrap();
        assert_eq!(
            exit,
            Exit {
                code: Some(3),
                signal: None
            }
        );
        let (out, truncated, _) = terms.output(&id).unwrap();
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
            .unwrap();
        terms.wait(&id).await.unwrap();
        let (out, truncated, exit) = terms.output(&id).unwrap();
        assert!(truncated);
        assert!(out.len() <= 9 && out.chars().all(|c| c == 'é'), "{out:?}");
        assert_eq!(exit.unwrap().code, Some(0));

        // A cwd outside the workspace is refused.
        let mut outside = sh("pwd", None);
        outside.cwd = Some("/".into());
        assert!(terms.create("s1", outside).is_err());
        terms.release(&id).unwrap();
        assert!(terms.output(&id).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[tokio::test]
    async fn kill_release_and_cancel_stop_the_command_and_its_children() {
        let (terms, dir) = terminals();
        let a = terms
            .create("s1", sh("sleep 30 & sleep 30; wait", None))
            .unwrap();
        let b = terms.create("s1", sh("sleep 30", None)).unwrap();
        let c = terms.create("s2", sh("sleep 30", None)).unwrap();
        let d = terms.create("s2", sh("sleep 30", None)).unwrap();
        terms.kill(&a).unwrap();
        let exit = tokio::time::timeout(Duration::from_secs(5), terms.wait(&a))
            .await
            .expect("killed in time")
            .unwrap();
        assert_eq!(exit.signal.as_deref(), Some("SIGKILL"));
        assert_eq!(terms.kill_session("s1"), 1);
        let exit = tokio::time::timeout(Duration::from_secs(5), terms.wait(&b))
            .await
            .unwrap()
            .unwrap();
        assert!(exit.signal.is_some());
        // Release kills too; s2's other terminal is left alone until its own end.
        let waiting = terms.get(&c).unwrap().exit.clone();
        terms.release(&c).unwrap();
        let mut waiting = waiting;
        tokio::time::timeout(Duration::from_secs(5), waiting.wait_for(Option::is_some))
            .await
            .unwrap()
            .unwrap();
        assert!(terms.get(&d).unwrap().exit.borrow().is_none());
        terms.release(&d).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
    }
}
