//! The agent's process and its stdio as the ACP connection's transport, read under a size
//! limit: no message of the agent is ever held whole when it is over the limit, and the
//! lists of a large one are clipped while it is decoded.
//!
//! `AcpAgent` (the crate's own) reads each line whole, however long, before anything can
//! look at it: one 25 MB line took the runtime to half a GB. Here a line over the limit is
//! skipped to its newline, logged, and the exchange it belonged to still ends: an answer
//! becomes an error answer (the request waiting for it fails), a request is passed on under
//! a method nobody handles (the agent gets "method not found" instead of waiting forever), a
//! notification is dropped. The session goes on.
//!
//! The process is started and stopped as `AcpAgent` does it: its own process group,
//! killed with it; an exit other than 0 ends the connection with the status and the tail of
//! its stderr. The exit is also published on [`AgentProcess::exit`]: the connection ends
//! at the agent's end of output, and may drop this transport before it saw the exit.

use agent_client_protocol::{Agent, Client, ConnectTo, Error, LineDirection, Lines};
use futures_util::future::{select, Either};
use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use std::cell::Cell;
use std::collections::VecDeque;
use std::fmt;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

/// The default limit on one message of the agent (`--max-agent-message-mb`).
pub const DEFAULT_MAX_MESSAGE_MB: usize = 4;
/// Messages longer than this are decoded with their lists clipped; shorter ones cannot
/// hold a list long enough to matter and pass as they are.
const CLIP_FROM: usize = 64 * 1024;
/// A list (array or object) of a clipped message keeps at most this many entries.
pub const MAX_LIST: usize = 1024;
/// A clipped message keeps at most this many values in all (lists within lists).
const MAX_VALUES: usize = 64 * 1024;
/// The agent's stderr kept for the error of an exit other than 0.
const STDERR_TAIL: usize = 64 * 1024;
/// How long the agent has to exit once its input closed, and its stderr to end.
const GRACE: Duration = Duration::from_secs(1);

type Debug = Arc<dyn Fn(&str, LineDirection) + Send + Sync>;

/// How the agent's process ended: `None` while it runs, then `Ok` for an exit with 0.
pub(crate) type Exit = Option<Result<(), Error>>;

/// The agent to start, and the limit on what it says.
pub(crate) struct AgentProcess {
    config: agent_client_protocol::AcpAgentConfig,
    max_message: usize,
    debug: Option<Debug>,
    exit: tokio::sync::watch::Sender<Exit>,
}

impl AgentProcess {
    pub fn new(config: agent_client_protocol::AcpAgentConfig, max_message: usize) -> Self {
        AgentProcess {
            config,
            max_message,
            debug: None,
            exit: tokio::sync::watch::channel(None).0,
        }
    }

    /// How the process ended, once it has.
    pub fn exit(&self) -> tokio::sync::watch::Receiver<Exit> {
        self.exit.subscribe()
    }

    /// Calls `f` with every line read or written (and of stderr).
    pub fn with_debug(mut self, f: impl Fn(&str, LineDirection) + Send + Sync + 'static) -> Self {
        self.debug = Some(Arc::new(f));
        self
    }
}

impl ConnectTo<Client> for AgentProcess {
    async fn connect_to(self, client: impl ConnectTo<Agent>) -> Result<(), Error> {
        let mut command = tokio::process::Command::new(self.config.command());
        command
            .args(self.config.arguments())
            .envs(self.config.environment())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        // Its own group, so that what a launcher (`npx`, `uvx`) started goes with it.
        #[cfg(unix)]
        command.process_group(0);
        let mut child = command.spawn().map_err(Error::into_internal_error)?;
        let group = Group(child.id(), Arc::default());
        let killed = group.1.clone();
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(Error::internal_error().data("the agent's stdio is not piped"));
        };
        let tail = Arc::new(Mutex::new(VecDeque::new()));
        let stderr = tokio::spawn(drain_stderr(stderr, tail.clone(), self.debug.clone()));
        let debug = self.debug.clone();
        let reader = Reader::new(BufReader::new(stdout), self.max_message);
        let incoming = futures_util::stream::unfold(reader, move |mut reader| {
            let debug = debug.clone();
            async move {
                let line = reader.next().await.transpose()?;
                if let (Ok(line), Some(debug)) = (&line, &debug) {
                    debug(line, LineDirection::Stdout);
                }
                Some((line, reader))
            }
        });
        let debug = self.debug.clone();
        let outgoing = futures_util::sink::unfold(stdin, move |mut stdin, line: String| {
            if let Some(debug) = &debug {
                debug(&line, LineDirection::Stdin);
            }
            async move {
                stdin.write_all(line.as_bytes()).await?;
                stdin.write_all(b"\n").await?;
                stdin.flush().await?;
                Ok::<_, std::io::Error>(stdin)
            }
        });
        let lines = Lines::new(Box::pin(outgoing), Box::pin(incoming));
        let protocol = Box::pin(ConnectTo::<Client>::connect_to(lines, client));
        // Reaped apart from this future, which the connection may drop first; the group's
        // kill (when this future ends) makes sure there is an exit to reap.
        let published = self.exit.clone();
        tokio::spawn(async move {
            let status = child.wait().await;
            // Killed with its group once the connection was over: not the agent's failure.
            let ended = match killed.load(std::sync::atomic::Ordering::SeqCst) && by_kill(&status) {
                true => Ok(()),
                false => exited(status, tail, stderr).await,
            };
            published.send_replace(Some(ended));
        });
        let mut exit = self.exit.subscribe();
        let wait = Box::pin(async move {
            match exit.wait_for(Option::is_some).await {
                Ok(ended) => ended.clone().unwrap_or(Ok(())),
                Err(_) => Ok(()),
            }
        });
        match select(protocol, wait).await {
            Either::Left((result, wait)) => {
                result?;
                // The protocol's end closed the agent's input: it should exit now.
                tokio::time::timeout(GRACE, wait).await.unwrap_or(Ok(()))
            }
            Either::Right((ended, protocol)) => {
                ended?;
                // What it wrote before exiting is still read.
                let _ = tokio::time::timeout(GRACE, protocol).await;
                Ok(())
            }
        }
    }
}

/// Waits (a little) for the agent's exit once its output ended: the connection, which ends
/// there, would otherwise drop the process before its exit status is known.
pub(crate) async fn exit_after_output(mut exit: tokio::sync::watch::Receiver<Exit>) {
    let _ = tokio::time::timeout(GRACE, exit.wait_for(Option::is_some)).await;
}

/// The connection's end once the agent exited: an error unless it exited with 0.
async fn exited(
    status: std::io::Result<std::process::ExitStatus>,
    tail: Arc<Mutex<VecDeque<u8>>>,
    stderr: tokio::task::JoinHandle<()>,
) -> Result<(), Error> {
    let status = status.map_err(Error::into_internal_error)?;
    if status.success() {
        return Ok(());
    }
    let _ = tokio::time::timeout(GRACE, stderr).await;
    let tail = {
        let mut tail = tail.lock().unwrap_or_else(|e| e.into_inner());
        String::from_utf8_lossy(tail.make_contiguous())
            .trim()
            .to_owned()
    };
    let message = if tail.is_empty() {
        format!("Process exited with {status}")
    } else {
        format!("Process exited with {status}: {tail}")
    };
    Err(Error::internal_error().data(message))
}

/// Whether the process ended by SIGKILL (the group's kill, when it ran on).
fn by_kill(status: &std::io::Result<std::process::ExitStatus>) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        matches!(status, Ok(s) if s.signal() == Some(9))
    }
    #[cfg(not(unix))]
    {
        let _ = status;
        false
    }
}

/// Keeps the last [`STDERR_TAIL`] bytes of the agent's stderr.
async fn drain_stderr(
    stderr: tokio::process::ChildStderr,
    tail: Arc<Mutex<VecDeque<u8>>>,
    debug: Option<Debug>,
) {
    let mut stderr = BufReader::new(stderr);
    let mut line = Vec::new();
    loop {
        line.clear();
        // One line at most the tail's size: a longer one is cut there.
        match (&mut stderr)
            .take(STDERR_TAIL as u64)
            .read_until(b'\n', &mut line)
            .await
        {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        if let Some(debug) = &debug {
            debug(
                String::from_utf8_lossy(&line).trim_end_matches(['\r', '\n']),
                LineDirection::Stderr,
            );
        }
        let mut tail = tail.lock().unwrap_or_else(|e| e.into_inner());
        tail.extend(&line);
        let over = tail.len().saturating_sub(STDERR_TAIL);
        tail.drain(..over);
    }
}

/// The agent's process group, killed when the connection ends (and marked so).
struct Group(Option<u32>, Arc<std::sync::atomic::AtomicBool>);

impl Drop for Group {
    fn drop(&mut self) {
        self.1.store(true, std::sync::atomic::Ordering::SeqCst);
        #[cfg(unix)]
        if let Some(pid) = self
            .0
            .and_then(|p| rustix::process::Pid::from_raw(p as i32))
        {
            let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
        }
    }
}

/// Reads the agent's messages, one a line, each under the limit.
pub(crate) struct Reader<R> {
    input: R,
    max: usize,
    line: Vec<u8>,
}

impl<R: AsyncBufRead + Unpin> Reader<R> {
    pub fn new(input: R, max: usize) -> Self {
        Reader {
            input,
            max,
            line: Vec::new(),
        }
    }

    /// The next message to hand the connection; `None` at the end of the output.
    pub async fn next(&mut self) -> std::io::Result<Option<String>> {
        loop {
            match self.read_line().await? {
                Read::End => return Ok(None),
                Read::Line => {
                    let line = std::mem::take(&mut self.line);
                    let line = String::from_utf8(line)
                        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
                    let line = line.trim_end_matches('\r');
                    if line.len() > CLIP_FROM {
                        return Ok(Some(clipped(line)));
                    }
                    return Ok(Some(line.to_owned()));
                }
                Read::TooLong(size) => {
                    let head = envelope(&self.line);
                    // Not kept: the next line starts from an empty buffer.
                    self.line = Vec::new();
                    println!(
                        "ACP: refused a message of the agent of {size} bytes or more (the limit \
                         is {} bytes, --max-agent-message-mb)",
                        self.max
                    );
                    if let Some(line) = head.instead(self.max) {
                        return Ok(Some(line));
                    }
                }
            }
        }
    }

    /// Reads one line into `self.line` (without its newline), or up to the limit and then
    /// past its newline.
    async fn read_line(&mut self) -> std::io::Result<Read> {
        self.line.clear();
        let mut skipped: Option<usize> = None;
        loop {
            let available = self.input.fill_buf().await?;
            if available.is_empty() {
                return Ok(match skipped {
                    Some(size) => Read::TooLong(size),
                    None if self.line.is_empty() => Read::End,
                    None => Read::Line,
                });
            }
            let newline = available.iter().position(|b| *b == b'\n');
            let part = &available[..newline.unwrap_or(available.len())];
            match &mut skipped {
                Some(size) => *size += part.len(),
                None if self.line.len() + part.len() > self.max => {
                    // The start is kept to find the message's id in.
                    let room = self.max - self.line.len();
                    self.line.extend_from_slice(&part[..room]);
                    skipped = Some(self.line.len() + part.len() - room);
                }
                None => self.line.extend_from_slice(part),
            }
            let used = newline.map_or(available.len(), |n| n + 1);
            self.input.consume(used);
            if newline.is_some() {
                return Ok(match skipped {
                    Some(size) => Read::TooLong(size),
                    None => Read::Line,
                });
            }
        }
    }
}

enum Read {
    End,
    Line,
    /// Over the limit: its size.
    TooLong(usize),
}

/// What the start of a refused message says of it.
#[derive(Debug, Default, PartialEq)]
struct Envelope {
    /// Its id, as JSON (a number or a string).
    id: Option<String>,
    /// Whether it names a method (a request or a notification, not an answer).
    method: bool,
}

impl Envelope {
    /// What the connection reads instead of the refused message, if anything.
    fn instead(&self, max: usize) -> Option<String> {
        let id = self.id.as_deref()?;
        Some(if self.method {
            // A method nobody handles: the connection answers the agent with an error.
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"_chat_shell/message_too_large","params":{{}}}}"#
            )
        } else {
            let message = format!(
                "the agent's answer is over the runtime's limit of {max} bytes per message"
            );
            serde_json::json!({
                "jsonrpc": "2.0",
                "id": serde_json::from_str::<Value>(id).unwrap_or(Value::Null),
                "error": {"code": -32603, "message": message},
            })
            .to_string()
        })
    }
}

/// The id and method of a JSON-RPC message, from its start (the rest may be cut off).
fn envelope(head: &[u8]) -> Envelope {
    struct Keys<'a>(&'a Cell<Option<String>>, &'a Cell<bool>);
    impl<'de> Visitor<'de> for Keys<'_> {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a JSON-RPC message")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                match key.as_ref() {
                    "id" => {
                        let id = map.next_value::<Value>()?;
                        if id.is_number() || id.is_string() {
                            self.0.set(Some(id.to_string()));
                        }
                    }
                    "method" => {
                        map.next_value::<IgnoredAny>()?;
                        self.1.set(true);
                    }
                    _ => {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
            }
            Ok(())
        }
    }
    let (id, method) = (Cell::new(None), Cell::new(false));
    let mut de = serde_json::Deserializer::from_slice(head);
    // Cut off: what was read before the cut is what counts.
    let _ = serde::Deserializer::deserialize_map(&mut de, Keys(&id, &method));
    Envelope {
        id: id.take(),
        method: method.get(),
    }
}

/// `line` with each of its lists cut to [`MAX_LIST`] entries (and [`MAX_VALUES`] values in
/// all), cut while it is decoded; a line that is not JSON passes as it is (the connection
/// reports it).
fn clipped(line: &str) -> String {
    let budget = Cell::new(MAX_VALUES);
    let mut de = serde_json::Deserializer::from_str(line);
    match Clip(&budget).deserialize(&mut de) {
        Ok(value) => value.to_string(),
        Err(_) => line.to_owned(),
    }
}

/// Decodes a JSON value keeping the first entries of each list and skipping the rest.
#[derive(Clone, Copy)]
struct Clip<'a>(&'a Cell<usize>);

impl Clip<'_> {
    /// Takes one value from the budget; `false` when it is spent.
    fn take(&self) -> bool {
        let left = self.0.get();
        self.0.set(left.saturating_sub(1));
        left > 0
    }
}

impl<'de> DeserializeSeed<'de> for Clip<'_> {
    type Value = Value;
    fn deserialize<D: serde::Deserializer<'de>>(self, de: D) -> Result<Value, D::Error> {
        de.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Clip<'_> {
    type Value = Value;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("JSON")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut kept = Vec::new();
        while kept.len() < MAX_LIST && self.take() {
            match seq.next_element_seed(self)? {
                Some(v) => kept.push(v),
                None => return Ok(Value::Array(kept)),
            }
        }
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Value::Array(kept))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut kept = serde_json::Map::new();
        while kept.len() < MAX_LIST && self.take() {
            match map.next_key::<String>()? {
                Some(k) => {
                    let v = map.next_value_seed(self)?;
                    kept.insert(k, v);
                }
                None => return Ok(Value::Object(kept)),
            }
        }
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Value::Object(kept))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    async fn read_all(input: &[u8], max: usize) -> Vec<String> {
        let mut reader = Reader::new(input, max);
        let mut lines = Vec::new();
        while let Some(line) = reader.next().await.unwrap() {
            lines.push(line);
        }
        lines
    }

    #[tokio::test]
    async fn lines_under_the_limit_pass_as_they_are() {
        let input = b"{\"a\":1}\r\n{\"b\":2}\n{\"c\":3}";
        assert_eq!(
            read_all(input, 64).await,
            [r#"{"a":1}"#, r#"{"b":2}"#, r#"{"c":3}"#]
        );
    }

    #[tokio::test]
    async fn a_line_over_the_limit_is_skipped_and_its_exchange_ended() {
        let big = "x".repeat(10_000);
        let input = format!(
            "{}\n{}\n{}\n{}\n",
            json!({"jsonrpc": "2.0", "method": "session/update", "params": {"t": big}}),
            json!({"jsonrpc": "2.0", "id": 7, "result": {"t": big}}),
            json!({"jsonrpc": "2.0", "id": "r1", "method": "fs/write_text_file", "params": {"t": big}}),
            json!({"jsonrpc": "2.0", "method": "ok"}),
        );
        let lines = read_all(input.as_bytes(), 1000).await;
        let lines: Vec<Value> = lines
            .iter()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        // The notification is gone; the answer is an error answer; the request is one
        // nobody handles; what follows is read.
        assert_eq!(lines.len(), 3, "{lines:#?}");
        assert_eq!(lines[0]["id"], 7);
        assert_eq!(lines[0]["error"]["code"], -32603);
        assert!(lines[0].get("result").is_none());
        assert_eq!(lines[1]["id"], "r1");
        assert_eq!(lines[1]["method"], "_chat_shell/message_too_large");
        assert_eq!(lines[2]["method"], "ok");
    }

    #[tokio::test]
    async fn a_line_over_the_limit_is_never_held_whole() {
        // A reader that never has more than a small buffer: the line is 8 MB.
        let line = format!("{{\"id\":1,\"result\":\"{}\"}}\n", "y".repeat(8 << 20));
        let input = BufReader::with_capacity(4096, line.as_bytes());
        let mut reader = Reader::new(input, 1 << 20);
        let got = reader.next().await.unwrap().unwrap();
        assert!(got.contains("\"error\""), "{got}");
        assert!(reader.line.capacity() <= 1 << 20);
        assert_eq!(reader.next().await.unwrap(), None);
    }

    /// Runs `script` (sh) as the agent, connected as the runtime connects, until its output
    /// ends: how the connection ended, and how the process did (awaited 5 s at most).
    #[cfg(unix)]
    async fn run_until_output_ends(script: &str) -> (Result<(), Error>, Exit) {
        use agent_client_protocol::v1::ConnectionTo;
        let config = agent_client_protocol::AcpAgentConfig::new("/bin/sh")
            .arg("-c")
            .arg(script);
        let agent = AgentProcess::new(config, 1 << 20);
        let (mut exit, waited) = (agent.exit(), agent.exit());
        let ended = Client
            .v1()
            .connect_with(agent, async move |cx: ConnectionTo<Agent>| {
                cx.incoming_closed().await;
                exit_after_output(waited).await;
                Ok(())
            })
            .await;
        let exit = tokio::time::timeout(Duration::from_secs(5), exit.wait_for(Option::is_some))
            .await
            .expect("the exit is published")
            .unwrap()
            .clone();
        (ended, exit)
    }

    /// An agent that closes its output and exits with 3 a moment later: the connection
    /// ends cleanly at the end of output, and the exit is still known, with its stderr.
    #[cfg(unix)]
    #[tokio::test]
    async fn an_exit_after_the_end_of_output_is_still_reported() {
        let (ended, exit) =
            run_until_output_ends("exec >&-; sleep 0.3; echo gone on purpose >&2; exit 3").await;
        // A clean end or the exit's error, as the transport saw it first.
        if let Err(e) = &ended {
            assert!(format!("{e:?}").contains("exit status: 3"), "{e:?}");
        }
        let error = exit.unwrap().expect_err("exit 3 is a failure");
        let text = format!("{error:?}");
        assert!(text.contains("exit status: 3"), "{text}");
        assert!(text.contains("gone on purpose"), "{text}");
    }

    /// The group's kill once the connection is over is not reported as the agent's failure.
    #[cfg(unix)]
    #[tokio::test]
    async fn the_runtime_s_own_kill_is_not_a_failure() {
        // Closes its output but runs on: the connection's end kills it.
        let started = std::time::Instant::now();
        let (ended, exit) = run_until_output_ends("exec >&-; exec sleep 30").await;
        assert!(ended.is_ok(), "{ended:?}");
        assert!(matches!(exit, Some(Ok(()))), "{exit:?}");
        assert!(started.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn the_envelope_is_read_from_a_cut_start() {
        let e = envelope(br#"{"jsonrpc":"2.0","id":3,"method":"x","params":{"a":"cut he"#);
        assert_eq!((e.id.as_deref(), e.method), (Some("3"), true));
        let e = envelope(br#"{"jsonrpc":"2.0","result":{"a":"cut he"#);
        assert_eq!(e, Envelope::default());
        assert_eq!(e.instead(10), None);
        let e = envelope(br#"{"id":"a\"b","result":"#);
        assert_eq!(e.id.as_deref(), Some(r#""a\"b""#));
    }

    #[test]
    fn lists_are_clipped_while_decoded() {
        let choices: Vec<Value> = (0..100_000)
            .map(|i| json!({"value": format!("c{i}"), "name": format!("Choice {i}")}))
            .collect();
        let line =
            json!({"params": {"update": {"configOptions": [{"options": choices}]}}}).to_string();
        let decoded: Value = serde_json::from_str(&clipped(&line)).unwrap();
        let options = decoded["params"]["update"]["configOptions"][0]["options"]
            .as_array()
            .unwrap();
        assert_eq!(options.len(), MAX_LIST);
        assert_eq!(options[0]["value"], "c0");
        // Lists within lists share one budget.
        let nested = json!(vec![vec![0; 2000]; 2000]).to_string();
        let nested: Value = serde_json::from_str(&clipped(&nested)).unwrap();
        let values: usize = nested
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_array().unwrap().len() + 1)
            .sum();
        assert!(values <= MAX_VALUES, "{values}");
        // Not JSON: as it was.
        assert_eq!(clipped("{nope"), "{nope");
    }
}
