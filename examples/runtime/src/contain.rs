//! Containment of what the runtime starts for an agent: the agent process and its
//! terminals' commands see an allowlisted environment, and a terminal's command dies as a
//! whole, descendants included, however they tried to leave.
//!
//! - **Environment.** Only [`PASSED`], `LC_*` and the names given with `--pass-env` go
//!   through, plus what was set explicitly (the agent's own `--acp 'NAME=VALUE …'`, a
//!   terminal's `env`); the runtime's secrets ([`SECRETS`]) never do. The agent is started
//!   through this binary re-executed ([`EXEC_ARG`]), which keeps the named variables only
//!   and execs the agent in its place (the ACP crate that spawns it inherits everything).
//! - **Terminals (Linux).** Each command runs under a reaper, this binary re-executed
//!   ([`REAPER_ARG`]): a child subreaper (`PR_SET_CHILD_SUBREAPER`), so whatever the command
//!   leaves behind (background children, `setsid` sessions, children of an exited leader) is
//!   reparented to it rather than to init. Its stdin is a socket to the runtime: when that
//!   reaches end of file (the terminal is killed or released, the session stopped, or the
//!   runtime exits however it exits) it SIGKILLs every descendant it finds in `/proc`,
//!   again until none is left. It reports the command's own exit on the socket and ends
//!   when nothing of the command is left. Elsewhere a command gets its own process group,
//!   which is what is killed.

use std::ffi::{OsStr, OsString};
use std::process::ExitCode;

/// The hidden first argument that makes this binary a terminal's reaper.
pub const REAPER_ARG: &str = "__chat-shell-reaper";
/// The hidden first argument that makes this binary exec a program with some variables.
pub const EXEC_ARG: &str = "__chat-shell-exec";

/// Variables every agent and command gets when the runtime has them.
pub const PASSED: &[&str] = &[
    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TERM", "TMPDIR", "TZ",
];

/// The runtime's own secrets: never passed on, whatever `--pass-env` says.
pub const SECRETS: &[&str] = &[crate::config::TOKENS_ENV, crate::config::CALLBACK_TOKEN_ENV];

/// Runs a hidden mode when the command line asks for one; `None`: run the server.
pub fn hidden_mode() -> Option<ExitCode> {
    let mut args = std::env::args_os().skip(1);
    let mode = args.next()?;
    #[cfg(target_os = "linux")]
    if mode == REAPER_ARG {
        return Some(reaper::run(args.collect()));
    }
    #[cfg(unix)]
    if mode == EXEC_ARG {
        return Some(exec_with(args.collect()));
    }
    let _ = (mode, args);
    None
}

/// Checks a `--pass-env` value: `NAME`, or `PREFIX*` for every name starting so.
pub fn check_pass_env(pattern: &str) -> Result<(), String> {
    let name = pattern.strip_suffix('*').unwrap_or(pattern);
    if name.is_empty() || name.contains(['=', '\0', '*']) {
        return Err(format!(
            "--pass-env: not a variable name or PREFIX*: {pattern:?}"
        ));
    }
    if SECRETS.contains(&pattern) {
        return Err(format!(
            "--pass-env: {pattern} is the runtime's own secret and is never passed on"
        ));
    }
    Ok(())
}

/// Which of the runtime's variables an agent and its commands get.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EnvPolicy {
    /// `--pass-env` values, checked by [`check_pass_env`].
    pub pass: Vec<String>,
}

impl EnvPolicy {
    pub fn allows(&self, name: &OsStr) -> bool {
        let Some(name) = name.to_str() else {
            return false;
        };
        if SECRETS.contains(&name) {
            return false;
        }
        PASSED.contains(&name)
            || name.starts_with("LC_")
            || self.pass.iter().any(|p| match p.strip_suffix('*') {
                Some(prefix) => name.starts_with(prefix),
                None => p == name,
            })
    }

    /// The allowed variables of this process, with their values.
    pub fn vars(&self) -> Vec<(OsString, OsString)> {
        std::env::vars_os()
            .filter(|(name, _)| self.allows(name))
            .collect()
    }
}

/// The program that re-executes this binary: `/proc/self/exe` on Linux (still this binary
/// if the file was replaced meanwhile).
#[cfg(all(unix, not(test)))]
fn self_exe() -> std::path::PathBuf {
    if cfg!(target_os = "linux") {
        "/proc/self/exe".into()
    } else {
        std::env::current_exe().unwrap_or_else(|_| "chat-shell-runtime".into())
    }
}

/// Unit tests run in the test harness: the runtime binary is the one beside it, which
/// `cargo test` builds for the integration tests.
#[cfg(all(unix, test))]
fn self_exe() -> std::path::PathBuf {
    let exe = std::env::current_exe().expect("the test binary");
    let bin = exe
        .parent()
        .and_then(std::path::Path::parent)
        .expect("target/<profile>/deps")
        .join("chat-shell-runtime");
    assert!(
        bin.exists(),
        "{} is missing: `cargo test -p chat-shell-runtime` builds it",
        bin.display()
    );
    bin
}

/// How to start `agent` with an allowlisted environment: this binary in [`EXEC_ARG`] mode,
/// told which names to keep (the allowed ones and the agent's own), then the agent.
pub fn agent(
    agent: &agent_client_protocol::AcpAgentConfig,
    policy: &EnvPolicy,
) -> agent_client_protocol::AcpAgentConfig {
    #[cfg(unix)]
    {
        let mut names: Vec<String> = policy
            .vars()
            .into_iter()
            .filter_map(|(name, _)| name.into_string().ok())
            .chain(agent.environment().keys().cloned())
            .collect();
        names.sort();
        names.dedup();
        agent_client_protocol::AcpAgentConfig::new(self_exe())
            .arg(EXEC_ARG)
            .args(names)
            .arg("--")
            .arg(agent.command().to_string_lossy())
            .args(agent.arguments().iter().cloned())
            .envs(agent.environment().clone())
    }
    #[cfg(not(unix))]
    {
        let _ = policy;
        agent.clone()
    }
}

/// [`EXEC_ARG`] mode: `NAME… -- PROGRAM ARGS…`; execs PROGRAM with only the named
/// variables of this process.
#[cfg(unix)]
fn exec_with(args: Vec<OsString>) -> ExitCode {
    use std::os::unix::process::CommandExt;
    let Some(split) = args.iter().position(|a| a == "--") else {
        return ExitCode::from(2);
    };
    let (names, rest) = (&args[..split], &args[split + 1..]);
    let Some((program, program_args)) = rest.split_first() else {
        return ExitCode::from(2);
    };
    let env: Vec<(OsString, OsString)> = std::env::vars_os()
        .filter(|(name, _)| names.contains(name))
        .collect();
    let error = std::process::Command::new(program)
        .args(program_args)
        .env_clear()
        .envs(env)
        .exec();
    eprintln!(
        "chat-shell-runtime: cannot run {}: {error}",
        program.to_string_lossy()
    );
    ExitCode::from(127)
}

/// How a contained command's first process ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ended {
    Code(i32),
    Signal(i32),
    /// It is gone and nobody could say how.
    Unknown,
}

#[cfg(not(target_os = "linux"))]
pub use fallback::{spawn, Stopper};
#[cfg(target_os = "linux")]
pub use linux::{spawn, Stopper};

/// The runtime's side of a reaper (Linux).
#[cfg(target_os = "linux")]
mod linux {
    use super::{self_exe, Ended, REAPER_ARG};
    use std::net::Shutdown;
    use std::os::fd::OwnedFd;
    use std::os::unix::net::UnixStream;
    use std::process::Stdio;
    use std::sync::Arc;
    use std::time::Duration;
    use tokio::io::{AsyncBufReadExt, BufReader, Lines};

    /// How long a reaper has to say it started the command.
    const START_TIMEOUT: Duration = Duration::from_secs(10);

    /// A command running under its reaper.
    pub struct Contained {
        /// The reaper; its stdout and stderr are the command's.
        pub child: tokio::process::Child,
        control: Arc<UnixStream>,
        lines: Lines<BufReader<tokio::net::UnixStream>>,
    }

    /// Kills a contained command, all of it.
    pub struct Stopper(Arc<UnixStream>);

    impl Stopper {
        /// Everything the command started dies; idempotent.
        pub fn stop(&self) {
            // End of file for the reaper, while its reports can still be read.
            let _ = self.0.shutdown(Shutdown::Write);
        }
    }

    /// Starts `program args` under a reaper; `configure` sets the rest (environment,
    /// folder, output). Stdin is the reaper's: the command's is `/dev/null`.
    pub async fn spawn(
        program: &str,
        args: &[String],
        configure: impl FnOnce(&mut tokio::process::Command),
    ) -> Result<Contained, String> {
        let (ours, theirs) = UnixStream::pair().map_err(|e| e.to_string())?;
        let mut command = tokio::process::Command::new(self_exe());
        command.arg(REAPER_ARG).arg(program).args(args);
        configure(&mut command);
        command
            .stdin(Stdio::from(OwnedFd::from(theirs)))
            // Not in the runtime's group: a Ctrl-C meant for the runtime is not for it.
            .process_group(0);
        let child = command.spawn().map_err(|e| e.to_string())?;
        let control = Arc::new(ours.try_clone().map_err(|e| e.to_string())?);
        ours.set_nonblocking(true).map_err(|e| e.to_string())?;
        let reader = tokio::net::UnixStream::from_std(ours).map_err(|e| e.to_string())?;
        let mut contained = Contained {
            child,
            control,
            lines: BufReader::new(reader).lines(),
        };
        let first = tokio::time::timeout(START_TIMEOUT, contained.lines.next_line()).await;
        match first {
            Ok(Ok(Some(line))) if line == "started" => Ok(contained),
            Ok(Ok(Some(line))) => Err(line.strip_prefix("error ").unwrap_or(&line).to_owned()),
            _ => {
                contained.stopper().stop();
                Err("the command's reaper did not start".to_owned())
            }
        }
    }

    impl Contained {
        pub fn stopper(&self) -> Stopper {
            Stopper(self.control.clone())
        }

        /// Waits for the command's first process to end (what it leaves may run on).
        pub async fn ended(&mut self) -> Ended {
            while let Ok(Some(line)) = self.lines.next_line().await {
                let number = |prefix: &str| line.strip_prefix(prefix)?.parse().ok();
                if let Some(code) = number("exit ") {
                    return Ended::Code(code);
                }
                if let Some(signal) = number("signal ") {
                    return Ended::Signal(signal);
                }
            }
            Ended::Unknown
        }

        /// Waits for the reaper itself, once nothing of the command is left.
        pub async fn reaped(mut self) {
            let _ = self.child.wait().await;
        }
    }
}

/// Without a reaper: the command leads its own process group, which is what is killed.
#[cfg(not(target_os = "linux"))]
mod fallback {
    use super::Ended;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    pub struct Contained {
        pub child: tokio::process::Child,
        done: Arc<AtomicBool>,
    }

    pub struct Stopper {
        pid: Option<u32>,
        /// Once the leader is reaped its group id may be reused: nothing is killed then.
        done: Arc<AtomicBool>,
    }

    impl Stopper {
        pub fn stop(&self) {
            #[cfg(unix)]
            if let (Some(pid), false) = (self.pid, self.done.load(Ordering::SeqCst)) {
                if let Some(pid) = rustix::process::Pid::from_raw(pid as i32) {
                    let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
                }
            }
        }
    }

    pub async fn spawn(
        program: &str,
        args: &[String],
        configure: impl FnOnce(&mut tokio::process::Command),
    ) -> Result<Contained, String> {
        let mut command = tokio::process::Command::new(program);
        command.args(args);
        configure(&mut command);
        command
            .stdin(std::process::Stdio::null())
            .kill_on_drop(true);
        #[cfg(unix)]
        command.process_group(0);
        let child = command.spawn().map_err(|e| e.to_string())?;
        Ok(Contained {
            child,
            done: Arc::default(),
        })
    }

    impl Contained {
        pub fn stopper(&self) -> Stopper {
            Stopper {
                pid: self.child.id(),
                done: self.done.clone(),
            }
        }

        pub async fn ended(&mut self) -> Ended {
            let status = self.child.wait().await;
            self.done.store(true, Ordering::SeqCst);
            let Ok(status) = status else {
                return Ended::Unknown;
            };
            #[cfg(unix)]
            if let Some(signal) = std::os::unix::process::ExitStatusExt::signal(&status) {
                return Ended::Signal(signal);
            }
            status.code().map_or(Ended::Unknown, Ended::Code)
        }

        pub async fn reaped(self) {}
    }
}

/// The reaper process (Linux): see the module's comment.
#[cfg(target_os = "linux")]
mod reaper {
    use rustix::io::Errno;
    use rustix::process::{Pid, PidfdFlags, Signal, WaitOptions};
    use std::collections::{HashMap, HashSet};
    use std::ffi::OsString;
    use std::fs::File;
    use std::io::{Read, Write};
    use std::os::fd::AsFd;
    use std::process::{ExitCode, Stdio};
    use std::time::Duration;

    pub fn run(args: Vec<OsString>) -> ExitCode {
        let Some((program, args)) = args.split_first() else {
            return ExitCode::from(2);
        };
        // The control socket, off fd 0 (close-on-exec): the command must not hold it.
        let control = match std::io::stdin().as_fd().try_clone_to_owned() {
            Ok(fd) => File::from(fd),
            Err(_) => return ExitCode::from(2),
        };
        let report = |line: &str| {
            let _ = writeln!(&control, "{line}");
        };
        if let Err(e) = rustix::process::set_child_subreaper(Some(rustix::process::getpid())) {
            report(&format!("error cannot contain the command: {e}"));
            return ExitCode::from(1);
        }
        let leader = match std::process::Command::new(program)
            .args(args)
            .stdin(Stdio::null())
            .spawn()
        {
            Ok(child) => child.id(),
            Err(e) => {
                report(&format!("error {e}"));
                return ExitCode::from(127);
            }
        };
        report("started");
        let watcher = match control.try_clone() {
            Ok(file) => file,
            Err(_) => {
                kill_descendants();
                return ExitCode::from(1);
            }
        };
        std::thread::spawn(move || {
            let mut buf = [0u8; 64];
            loop {
                match (&watcher).read(&mut buf) {
                    Ok(0) => break,
                    Ok(_) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
            kill_descendants();
        });
        // Reap every child, the leader and whatever is reparented here, until none is left.
        loop {
            match rustix::process::wait(WaitOptions::empty()) {
                Ok(Some((pid, status))) if pid.as_raw_nonzero().get() as u32 == leader => {
                    match (status.exit_status(), status.terminating_signal()) {
                        (Some(code), _) => report(&format!("exit {code}")),
                        (None, Some(signal)) => report(&format!("signal {signal}")),
                        (None, None) => {}
                    }
                }
                Ok(_) | Err(Errno::INTR) => {}
                // ECHILD: nothing of the command is left.
                Err(_) => return ExitCode::SUCCESS,
            }
        }
    }

    /// SIGKILLs every descendant of this process, again until none is left (a process
    /// that forked meanwhile leaves an orphan, reparented here and found next round).
    fn kill_descendants() {
        let me = std::process::id();
        let mut pause = Duration::from_millis(1);
        loop {
            let tree = descendants(me);
            if tree.is_empty() {
                return;
            }
            let mut ours: HashSet<u32> = tree.iter().copied().collect();
            ours.insert(me);
            for &pid in &tree {
                kill(pid, &ours);
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(100));
        }
    }

    /// SIGKILLs `pid` if it is still a child of one of `ours` (the pid may have been
    /// reused since it was read: a pidfd holds the process while that is checked).
    fn kill(pid: u32, ours: &HashSet<u32>) {
        let Some(raw) = Pid::from_raw(pid as i32) else {
            return;
        };
        match rustix::process::pidfd_open(raw, PidfdFlags::empty()) {
            Ok(fd) => {
                if parent(pid).is_some_and(|p| ours.contains(&p)) {
                    let _ = rustix::process::pidfd_send_signal(&fd, Signal::KILL);
                }
            }
            Err(Errno::NOSYS) => {
                let _ = rustix::process::kill_process(raw, Signal::KILL);
            }
            Err(_) => {}
        }
    }

    /// `/proc/PID/stat`'s parent pid (after the command name, which may hold anything).
    fn parent(pid: u32) -> Option<u32> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        let (_, rest) = stat.rsplit_once(')')?;
        rest.split_whitespace().nth(1)?.parse().ok()
    }

    /// Every process below `root`, from `/proc` (`/proc/PID/task/*/children` is not in
    /// every kernel).
    fn descendants(root: u32) -> Vec<u32> {
        let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
        for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
            let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse().ok()) else {
                continue;
            };
            if let Some(ppid) = parent(pid) {
                children.entry(ppid).or_default().push(pid);
            }
        }
        let mut found = Vec::new();
        let mut next = vec![root];
        while let Some(pid) = next.pop() {
            for &child in children.get(&pid).into_iter().flatten() {
                found.push(child);
                next.push(child);
            }
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_allowed_names_pass_and_never_a_secret() {
        let policy = EnvPolicy {
            pass: vec!["ANTHROPIC_API_KEY".into(), "NPM_CONFIG_*".into()],
        };
        let allows = |name: &str| policy.allows(OsStr::new(name));
        for name in [
            "PATH",
            "HOME",
            "LANG",
            "LC_ALL",
            "TMPDIR",
            "ANTHROPIC_API_KEY",
            "NPM_CONFIG_PREFIX",
        ] {
            assert!(allows(name), "{name}");
        }
        for name in [
            "CHAT_SHELL_RUNTIME_TOKENS",
            "CHAT_SHELL_CALLBACK_TOKEN",
            "CHAT_SHELL_ACP_RECORD",
            "AWS_SECRET_ACCESS_KEY",
            "ANTHROPIC_API_KEY_2",
            "NPM_TOKEN",
            "path",
        ] {
            assert!(!allows(name), "{name}");
        }
        // A pattern that covers a secret still leaves it out.
        let broad = EnvPolicy {
            pass: vec!["CHAT_SHELL_*".into()],
        };
        assert!(broad.allows(OsStr::new("CHAT_SHELL_THEME")));
        assert!(!broad.allows(OsStr::new("CHAT_SHELL_CALLBACK_TOKEN")));
        assert!(check_pass_env("CHAT_SHELL_*").is_ok());
        assert!(check_pass_env("CHAT_SHELL_CALLBACK_TOKEN").is_err());
        assert!(check_pass_env("A=B").is_err());
    }
}
