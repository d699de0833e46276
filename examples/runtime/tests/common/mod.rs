//! What the runtime's end-to-end tests share: the binary started on a free port with its
//! log collected, and a response read as it comes (`POST /chatkit` over hand-written
//! HTTP/1.1, chunked SSE decoded frame by frame).

// Each test crate uses its own part of this module.
#![allow(dead_code)]

use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The runtime's environment variables a test must not inherit.
const ENV: &[&str] = &[
    "CHAT_SHELL_RUNTIME_TOKENS",
    "CHAT_SHELL_CALLBACK_TOKEN",
    "CHAT_SHELL_ACP_RECORD",
];

/// A running `chat-shell-runtime`, killed on drop.
pub struct Process {
    child: Child,
    pub port: u16,
    lines: Arc<Mutex<Vec<String>>>,
}

impl Process {
    /// Starts the binary with `--port 0 --pace-ms 0`, then `args` (later ones win), and
    /// `env` (the runtime's own variables are unset otherwise); waits for its listening
    /// line. `stderr`: whether to show its error output.
    pub fn start(args: &[&str], env: &[(&str, &str)], stderr: bool) -> Process {
        let mut child = Command::new(env!("CARGO_BIN_EXE_chat-shell-runtime"))
            .args(["--port", "0", "--pace-ms", "0"])
            .args(args)
            .env_remove(ENV[0])
            .env_remove(ENV[1])
            .env_remove(ENV[2])
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(if stderr {
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
        let mut process = Process {
            child,
            port: 0,
            lines,
        };
        let line = process
            .wait_for_line("chat-shell-runtime listening on http://127.0.0.1:")
            .expect("the listening line");
        process.port = line
            .rsplit(':')
            .next()
            .unwrap()
            .parse()
            .expect("a port in the listening line");
        process
    }

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
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid()))
            .expect("the runtime's /proc status");
        let kib: f64 = status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("VmRSS");
        kib / 1024.0
    }

    /// The log so far.
    pub fn lines(&self) -> Vec<String> {
        self.lines.lock().unwrap().clone()
    }

    pub fn output(&self) -> String {
        self.lines().join("\n")
    }

    /// Opens `POST /chatkit` with `request` (and `cookie`); the response is read as it comes.
    /// Opens `thread`'s channel as `cookie` and reads it up to `thread.channel.ready`.
    pub async fn open_channel(&self, cookie: &str, thread: &str) -> Stream {
        let mut channel = self.open(Some(cookie), &subscribe(thread)).await;
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
        self.open(None, &json!({"type": "threads.list", "params": {}}))
            .await
            .cookie()
            .expect("an identity cookie")
    }

    pub async fn open(&self, cookie: Option<&str>, request: &Value) -> Stream {
        let body = request.to_string();
        self.send(
            "POST",
            "/chatkit",
            Some("application/json"),
            cookie,
            body.as_bytes(),
        )
        .await
    }

    /// `open` from the loopback address `from` (127.0.0.2, …): another client to the runtime.
    pub async fn open_from(&self, from: [u8; 4], cookie: Option<&str>, request: &Value) -> Stream {
        let body = request.to_string();
        let tcp = self.connect_from(from).await;
        let head = self.head(
            "POST",
            "/chatkit",
            Some("application/json"),
            cookie,
            body.len(),
        );
        Stream::exchange(tcp, &head, body.as_bytes()).await
    }

    /// A connection to the runtime from the loopback address `from`.
    pub async fn connect_from(&self, from: [u8; 4]) -> TcpStream {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket
            .bind(std::net::SocketAddr::from((from, 0)))
            .expect("bind a loopback source address");
        socket
            .connect(std::net::SocketAddr::from(([127, 0, 0, 1], self.port)))
            .await
            .unwrap()
    }

    /// A request head (without its final blank line, so headers can be added).
    pub fn head(
        &self,
        method: &str,
        path: &str,
        content_type: Option<&str>,
        cookie: Option<&str>,
        length: usize,
    ) -> String {
        let mut head = format!(
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Length: {length}\r\nConnection: close\r\n",
            self.port,
        );
        if let Some(t) = content_type {
            head.push_str(&format!("Content-Type: {t}\r\n"));
        }
        if let Some(c) = cookie {
            head.push_str(&format!("Cookie: {c}\r\n"));
        }
        head
    }

    /// Sends any request; the response is read as it comes.
    pub async fn send(
        &self,
        method: &str,
        path: &str,
        content_type: Option<&str>,
        cookie: Option<&str>,
        body: &[u8],
    ) -> Stream {
        let tcp = TcpStream::connect(("127.0.0.1", self.port)).await.unwrap();
        let head = self.head(method, path, content_type, cookie, body.len());
        Stream::exchange(tcp, &head, body).await
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Stream {
    /// Sends `head` (then a blank line) and `body` on `tcp`; the response is read as it comes.
    pub async fn exchange(mut tcp: TcpStream, head: &str, body: &[u8]) -> Stream {
        tcp.write_all(head.as_bytes()).await.unwrap();
        tcp.write_all(b"\r\n").await.unwrap();
        tcp.write_all(body).await.unwrap();
        let mut stream = Stream {
            tcp,
            raw: Vec::new(),
            body: Vec::new(),
            headers: String::new(),
            ended: false,
            keepalives: 0,
        };
        stream.read_headers().await;
        stream
    }
}

/// One HTTP response, its chunked body decoded as it arrives.
pub struct Stream {
    tcp: TcpStream,
    raw: Vec<u8>,
    pub body: Vec<u8>,
    headers: String,
    /// The body is over (its last chunk came, or the connection closed).
    pub ended: bool,
    /// Keepalive comments skipped.
    pub keepalives: usize,
}

impl Stream {
    async fn fill(&mut self) -> bool {
        let mut buf = [0u8; 16384];
        match self.tcp.read(&mut buf).await {
            Ok(0) | Err(_) => false,
            Ok(n) => {
                self.raw.extend_from_slice(&buf[..n]);
                true
            }
        }
    }

    async fn read_headers(&mut self) {
        loop {
            if let Some(end) = find(&self.raw, b"\r\n\r\n") {
                self.headers = String::from_utf8_lossy(&self.raw[..end]).into_owned();
                self.raw.drain(..end + 4);
                return;
            }
            assert!(self.fill().await, "no response headers");
        }
    }

    /// The status code.
    pub fn status(&self) -> u16 {
        self.headers
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .expect("a status line")
    }

    /// The `name=value` of the identity cookie the response sets, if any.
    pub fn cookie(&self) -> Option<String> {
        let set = self.header("set-cookie")?;
        Some(set.split(';').next()?.trim().to_owned())
    }

    pub fn header(&self, name: &str) -> Option<String> {
        self.headers.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.trim()
                .eq_ignore_ascii_case(name)
                .then(|| v.trim().to_owned())
        })
    }

    fn chunked(&self) -> bool {
        self.header("transfer-encoding")
            .is_some_and(|v| v.contains("chunked"))
    }

    /// Moves whole chunks from `raw` to `body`.
    fn decode(&mut self) {
        if !self.chunked() {
            self.body.append(&mut self.raw);
            return;
        }
        loop {
            let Some(line_end) = find(&self.raw, b"\r\n") else {
                return;
            };
            let size_text = String::from_utf8_lossy(&self.raw[..line_end]).into_owned();
            let size = usize::from_str_radix(size_text.split(';').next().unwrap().trim(), 16)
                .expect("a chunk size");
            if size == 0 {
                self.ended = true;
                self.raw.clear();
                return;
            }
            if self.raw.len() < line_end + 2 + size + 2 {
                return;
            }
            let chunk = self.raw[line_end + 2..line_end + 2 + size].to_vec();
            self.body.extend_from_slice(&chunk);
            self.raw.drain(..line_end + 2 + size + 2);
        }
    }

    /// The next SSE event, if one comes within `within`.
    pub async fn next_event(&mut self, within: Duration) -> Option<Value> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            self.decode();
            if let Some(end) = find(&self.body, b"\n\n") {
                let frame = String::from_utf8_lossy(&self.body[..end]).into_owned();
                self.body.drain(..end + 2);
                if frame.starts_with(':') {
                    self.keepalives += 1;
                    continue;
                }
                let data: String = frame
                    .lines()
                    .filter_map(|l| l.strip_prefix("data: "))
                    .collect();
                return Some(serde_json::from_str(&data).expect("an event"));
            }
            if self.ended {
                return None;
            }
            match tokio::time::timeout_at(deadline, self.fill()).await {
                Ok(true) => {}
                Ok(false) => {
                    self.decode();
                    self.ended = true;
                    find(&self.body, b"\n\n")?;
                }
                Err(_) => return None,
            }
        }
    }

    /// Events until one matches `pred` (included).
    pub async fn until(&mut self, what: &str, pred: impl Fn(&Value) -> bool) -> Vec<Value> {
        let mut seen = Vec::new();
        loop {
            match self.next_event(Duration::from_secs(20)).await {
                Some(event) => {
                    let hit = pred(&event);
                    seen.push(event);
                    if hit {
                        return seen;
                    }
                }
                None => panic!("no {what} in {seen:#?}"),
            }
        }
    }

    /// Every event up to the end of the response.
    pub async fn rest(&mut self) -> Vec<Value> {
        let mut seen = Vec::new();
        while let Some(event) = self.next_event(Duration::from_secs(30)).await {
            seen.push(event);
        }
        assert!(self.ended, "the stream did not end: {seen:#?}");
        seen
    }

    pub async fn read_to_end(&mut self) {
        while !self.ended {
            if !self.fill().await {
                self.ended = true;
            }
            self.decode();
        }
    }

    /// The whole body as JSON.
    pub async fn json(&mut self) -> Value {
        self.read_to_end().await;
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|_| panic!("not JSON: {}", String::from_utf8_lossy(&self.body)))
    }
}

pub fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// `threads.create` with `text` as the first message.
pub fn create(text: &str) -> Value {
    json!({"type": "threads.create", "params": {"input": {
        "content": [{"type": "input_text", "text": text}], "attachments": [], "inference_options": {}
    }}})
}

/// `threads.add_user_message` of `text` on `thread`.
pub fn add_message(thread: &str, text: &str) -> Value {
    json!({"type": "threads.add_user_message", "params": {"thread_id": thread, "input": {
        "content": [{"type": "input_text", "text": text}], "attachments": [], "inference_options": {}
    }}})
}

/// `threads.subscribe` of `thread` from its start.
pub fn subscribe(thread: &str) -> Value {
    json!({"type": "threads.subscribe", "params": {"thread_id": thread, "after": null}})
}

/// The scripted ACP agent's binary beside the runtime's (`CHAT_SHELL_ACP_AGENT_BIN`
/// overrides it).
pub fn agent_bin() -> std::path::PathBuf {
    if let Some(bin) = std::env::var_os("CHAT_SHELL_ACP_AGENT_BIN") {
        return bin.into();
    }
    let runtime = std::path::PathBuf::from(env!("CARGO_BIN_EXE_chat-shell-runtime"));
    let bin = runtime.with_file_name(format!(
        "chat-shell-acp-agent{}",
        std::env::consts::EXE_SUFFIX
    ));
    assert!(
        bin.exists(),
        "{} is missing: run `cargo build -p chat-shell-acp-agent` (cargo test --workspace builds it)",
        bin.display()
    );
    bin
}

/// A new empty folder for one test (`name` and the process id in its name), canonical.
pub fn temp_dir(prefix: &str, name: &str) -> std::path::PathBuf {
    static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let dir = std::env::temp_dir().join(format!(
        "chat-shell-{prefix}-test-{name}-{}-{n}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.canonicalize().unwrap()
}

/// The URL of a fresh schema (named after `prefix`, one per call) on the test PostgreSQL
/// server of `CHAT_SHELL_TEST_DATABASE_URL`; `None` (said once on stderr) when none is
/// given. Blocking: call it from `spawn_blocking` in an async test.
pub fn postgres_schema(prefix: &str) -> Option<String> {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let Ok(url) = std::env::var("CHAT_SHELL_TEST_DATABASE_URL") else {
        eprintln!("note: CHAT_SHELL_TEST_DATABASE_URL is not set: PostgreSQL is skipped");
        return None;
    };
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let schema = format!("{prefix}_{}_{n}", std::process::id());
    let mut admin = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    admin
        .batch_execute(&format!(
            "DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema}"
        ))
        .unwrap();
    let sep = if url.contains('?') { '&' } else { '?' };
    Some(format!("{url}{sep}options=-csearch_path%3D{schema}"))
}
