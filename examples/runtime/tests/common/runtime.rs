//! The runtime under test: `chat-shell-runtime` started on a free port, its log collected,
//! killed (and the folders it was given removed) on drop.

use super::client::{self, Reply, Request, Stream};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::net::TcpStream;

/// The runtime's environment variables a test must not inherit.
const ENV: &[&str] = &[
    "CHAT_SHELL_RUNTIME_TOKENS",
    "CHAT_SHELL_CALLBACK_TOKEN",
    "CHAT_SHELL_ACP_RECORD",
];

/// How a runtime is started: [`Runtime::builder`].
pub struct Builder {
    args: Vec<String>,
    env: Vec<(String, String)>,
    stderr: bool,
    owned: Vec<PathBuf>,
}

impl Builder {
    /// More command-line arguments (after `--port 0 --pace-ms 0`: later ones win).
    pub fn args(mut self, args: &[&str]) -> Builder {
        self.args.extend(args.iter().map(|a| (*a).to_owned()));
        self
    }

    /// An environment variable (the runtime's own are unset unless given here).
    pub fn env(mut self, name: &str, value: &str) -> Builder {
        self.env.push((name.to_owned(), value.to_owned()));
        self
    }

    /// Environment variables, `(name, value)`.
    pub fn envs(mut self, env: &[(&str, &str)]) -> Builder {
        for (name, value) in env {
            self = self.env(name, value);
        }
        self
    }

    /// The runtime's error output is not shown.
    pub fn quiet(mut self) -> Builder {
        self.stderr = false;
        self
    }

    /// A file or folder of the test's, removed when the runtime is dropped.
    pub fn owning(mut self, path: PathBuf) -> Builder {
        self.owned.push(path);
        self
    }

    /// Starts the binary and waits until it listens.
    pub fn start(self) -> Runtime {
        let mut command = Command::new(env!("CARGO_BIN_EXE_chat-shell-runtime"));
        command
            .args(["--port", "0", "--pace-ms", "0"])
            .args(&self.args);
        for name in ENV {
            command.env_remove(name);
        }
        let mut child = command
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdout(Stdio::piped())
            .stderr(if self.stderr {
                Stdio::inherit()
            } else {
                Stdio::null()
            })
            .spawn()
            .expect("start chat-shell-runtime");
        let lines = Arc::new(Mutex::new(Vec::new()));
        let stdout = child.stdout.take().unwrap();
        let sink = lines.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                sink.lock().unwrap().push(line);
            }
        });
        let mut runtime = Runtime {
            child,
            port: 0,
            args: self.args,
            lines,
            cookie: Mutex::new(None),
            owned: self.owned,
        };
        let line = runtime
            .wait_for_line("chat-shell-runtime listening on http://127.0.0.1:")
            .expect("the listening line");
        runtime.port = line
            .rsplit(':')
            .next()
            .unwrap()
            .parse()
            .expect("a port in the listening line");
        runtime
    }
}

/// A running `chat-shell-runtime`, killed on drop, and the identity cookie of one browser
/// talking to it ([`Runtime::browse`]).
pub struct Runtime {
    child: Child,
    pub port: u16,
    /// The arguments after `--port 0 --pace-ms 0`.
    args: Vec<String>,
    lines: Arc<Mutex<Vec<String>>>,
    /// The identity cookie (`name=value`) `browse` sends and keeps.
    cookie: Mutex<Option<String>>,
    owned: Vec<PathBuf>,
}

impl Runtime {
    /// `--port 0 --pace-ms 0`, then `args`; its error output shown.
    pub fn spawn(args: &[&str]) -> Runtime {
        Runtime::builder().args(args).start()
    }

    pub fn builder() -> Builder {
        Builder {
            args: Vec::new(),
            env: Vec::new(),
            stderr: true,
            owned: Vec::new(),
        }
    }

    /// `http://127.0.0.1:<port>`.
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// What a request's `Host` says unless it is given.
    pub fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    pub fn addr(&self) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], self.port))
    }

    /// The value the runtime was given for `flag` (the last one, which wins).
    pub fn arg(&self, flag: &str) -> Option<&str> {
        self.args
            .windows(2)
            .rev()
            .find(|pair| pair[0] == flag)
            .map(|pair| pair[1].as_str())
    }

    // --- the process ------------------------------------------------------------------

    /// The first log line holding `needle`, waiting up to 10 s for it.
    pub fn wait_for_line(&self, needle: &str) -> Option<String> {
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Some(line) = self
                .lines
                .lock()
                .unwrap()
                .iter()
                .find(|l| l.contains(needle))
            {
                return Some(line.clone());
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        None
    }

    /// The runtime's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The runtime's resident memory in MiB (`VmRSS`).
    pub fn rss_mib(&self) -> f64 {
        rss_mib(self.pid())
    }

    /// The log so far.
    pub fn lines(&self) -> Vec<String> {
        self.lines.lock().unwrap().clone()
    }

    pub fn output(&self) -> String {
        self.lines().join("\n")
    }

    // --- requests ---------------------------------------------------------------------

    /// Sends `request` on a new connection; the response is read as it comes.
    pub async fn fetch(&self, request: Request) -> Stream {
        let tcp = match request.source() {
            Some(from) => self.connect_from(from).await,
            None => self.connect().await,
        };
        client::exchange(tcp, &self.host(), request).await
    }

    /// A request with exactly `headers` (plus `Host: 127.0.0.1:<port>` unless they name a
    /// `Host`, `Connection: close` and `Content-Length`): the whole response.
    pub async fn request(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> Reply {
        self.fetch(Request::new(method, path).headers(headers).body(body))
            .await
            .reply()
            .await
    }

    /// Opens `POST /chatkit` with `request` as `cookie`; the response is read as it comes.
    pub async fn open(&self, cookie: Option<&str>, request: &Value) -> Stream {
        self.fetch(Request::post("/chatkit").json(request).cookie(cookie))
            .await
    }

    /// `open` from the loopback address `from` (127.0.0.2, …): another client to the runtime.
    pub async fn open_from(&self, from: [u8; 4], cookie: Option<&str>, request: &Value) -> Stream {
        self.fetch(
            Request::post("/chatkit")
                .json(request)
                .cookie(cookie)
                .from(from),
        )
        .await
    }

    /// Opens `thread`'s channel as `cookie` and reads it up to `thread.channel.ready`.
    pub async fn open_channel(&self, cookie: &str, thread: &str) -> Stream {
        let mut channel = self.open(Some(cookie), &super::subscribe(thread)).await;
        assert_eq!(channel.status(), 200);
        channel
            .until("thread.channel.ready", |e| {
                e["type"] == "thread.channel.ready"
            })
            .await;
        channel
    }

    /// A fresh identity: the cookie the runtime sets on a first request.
    pub async fn new_identity(&self) -> String {
        let mut first = self
            .open(None, &json!({"type": "threads.list", "params": {}}))
            .await;
        assert_eq!(first.status(), 200);
        let cookie = first.cookie().expect("an identity cookie");
        first.read_to_end().await;
        cookie
    }

    // --- one browser ------------------------------------------------------------------

    /// The browser's identity cookie (`name=value`), if it has one.
    pub fn cookie(&self) -> Option<String> {
        self.cookie.lock().unwrap().clone()
    }

    /// The browser's identity cookie, which it must have.
    pub fn identity(&self) -> String {
        self.cookie().expect("an identity cookie")
    }

    pub fn set_cookie(&self, cookie: Option<String>) {
        *self.cookie.lock().unwrap() = cookie;
    }

    /// Sends `request` like a browser on the runtime's own page: its identity cookie goes
    /// along (unless the request names one), and the one the runtime sets is kept.
    pub async fn browse(&self, request: Request) -> Stream {
        let cookie = self.cookie();
        let request = if request.has_header("cookie") {
            request
        } else {
            request.cookie(cookie.as_deref())
        };
        let stream = self.fetch(request).await;
        if let Some(set) = stream.cookie() {
            self.set_cookie(Some(set));
        }
        stream
    }

    /// `POST /chatkit` of `request` as the browser ([`Runtime::browse`]).
    pub async fn post(&self, request: Value) -> Stream {
        self.browse(Request::post("/chatkit").json(&request)).await
    }

    // --- raw sockets, for tests that need them ---------------------------------------

    /// A connection to the runtime.
    pub async fn connect(&self) -> TcpStream {
        TcpStream::connect(self.addr()).await.unwrap()
    }

    /// A connection to the runtime from the loopback address `from`.
    pub async fn connect_from(&self, from: [u8; 4]) -> TcpStream {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket
            .bind(SocketAddr::from((from, 0)))
            .expect("bind a loopback source address");
        socket.connect(self.addr()).await.unwrap()
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        for path in &self.owned {
            let _ = std::fs::remove_dir_all(path);
            let _ = std::fs::remove_file(path);
        }
    }
}

/// The resident memory of process `pid` in MiB (`VmRSS`).
pub fn rss_mib(pid: u32) -> f64 {
    let status =
        std::fs::read_to_string(format!("/proc/{pid}/status")).expect("the runtime's /proc status");
    let kib: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS");
    kib / 1024.0
}
