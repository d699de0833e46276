//! The tests' HTTP client: hyper's HTTP/1.1 client connection, one connection per request.
//! A response is a [`Stream`], its head read and its body read as it comes (SSE frame by
//! frame), or a [`Reply`], read whole.
//!
//! The connection is driven only while the test reads (as a socket read by hand would be),
//! and closed the moment its response is dropped: a client that leaves.

use http_body_util::Full;
use hyper::body::{Body as _, Bytes, Incoming};
use hyper::client::conn::http1;
use hyper_util::rt::TokioIo;
use serde_json::Value;
use std::future::{poll_fn, Future};
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::time::Instant;

/// One request: the method, the path, exactly the headers given (plus `Host`,
/// `Connection: close` and `Content-Length` unless they name them) and the body.
pub struct Request {
    method: String,
    path: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    from: Option<[u8; 4]>,
    keep_alive: bool,
}

impl Request {
    pub fn new(method: &str, path: &str) -> Request {
        Request {
            method: method.to_owned(),
            path: path.to_owned(),
            headers: Vec::new(),
            body: Vec::new(),
            from: None,
            keep_alive: false,
        }
    }

    pub fn get(path: &str) -> Request {
        Request::new("GET", path)
    }

    pub fn post(path: &str) -> Request {
        Request::new("POST", path)
    }

    pub fn header(mut self, name: &str, value: &str) -> Request {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    pub fn headers(mut self, headers: &[(&str, &str)]) -> Request {
        for (name, value) in headers {
            self = self.header(name, value);
        }
        self
    }

    /// `Content-Type`, if given.
    pub fn content_type(self, content_type: Option<&str>) -> Request {
        match content_type {
            Some(t) => self.header("Content-Type", t),
            None => self,
        }
    }

    /// `Cookie`, if given.
    pub fn cookie(self, cookie: Option<&str>) -> Request {
        match cookie {
            Some(c) => self.header("Cookie", c),
            None => self,
        }
    }

    pub fn body(mut self, body: impl Into<Vec<u8>>) -> Request {
        self.body = body.into();
        self
    }

    /// `value` as the body, `Content-Type: application/json`.
    pub fn json(self, value: &Value) -> Request {
        self.header("Content-Type", "application/json")
            .body(value.to_string())
    }

    /// Sent from the loopback address `from` (127.0.0.2, …): another client.
    pub fn from(mut self, from: [u8; 4]) -> Request {
        self.from = Some(from);
        self
    }

    /// Without `Connection: close`: the server may keep the connection once it answered.
    pub fn keep_alive(mut self) -> Request {
        self.keep_alive = true;
        self
    }

    pub fn source(&self) -> Option<[u8; 4]> {
        self.from
    }

    pub fn has_header(&self, name: &str) -> bool {
        self.headers
            .iter()
            .any(|(k, _)| k.eq_ignore_ascii_case(name))
    }

    fn build(self, host: &str) -> hyper::Request<Full<Bytes>> {
        let mut builder = hyper::Request::builder()
            .method(self.method.as_str())
            .uri(self.path.as_str());
        if !self.has_header("host") {
            builder = builder.header("Host", host);
        }
        if !self.keep_alive && !self.has_header("connection") {
            builder = builder.header("Connection", "close");
        }
        if !self.has_header("content-length") {
            builder = builder.header("Content-Length", self.body.len());
        }
        for (name, value) in &self.headers {
            builder = builder.header(name.as_str(), value.as_str());
        }
        builder
            .body(Full::new(Bytes::from(self.body)))
            .unwrap_or_else(|e| panic!("not a request: {} {}: {e}", self.method, self.path))
    }
}

/// The connection's socket. A body the server refused may be cut short by it: the bytes
/// that no longer go through are dropped, as a browser would, and its answer is read.
struct Socket {
    tcp: TcpStream,
    /// The server stopped taking what is written.
    refused: bool,
}

impl AsyncRead for Socket {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.tcp).poll_read(cx, buf)
    }
}

impl AsyncWrite for Socket {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        if self.refused {
            return Poll::Ready(Ok(buf.len()));
        }
        match Pin::new(&mut self.tcp).poll_write(cx, buf) {
            Poll::Ready(Err(e)) if refused(&e) => {
                self.refused = true;
                Poll::Ready(Ok(buf.len()))
            }
            other => other,
        }
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if self.refused {
            return Poll::Ready(Ok(()));
        }
        match Pin::new(&mut self.tcp).poll_flush(cx) {
            Poll::Ready(Err(e)) if refused(&e) => {
                self.refused = true;
                Poll::Ready(Ok(()))
            }
            other => other,
        }
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.tcp).poll_shutdown(cx)
    }
}

/// A write failed because the server closed its side.
fn refused(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::BrokenPipe | io::ErrorKind::ConnectionReset
    )
}

type Connection = http1::Connection<TokioIo<Socket>, Full<Bytes>>;

/// Polls the connection, if it is still open: it reads and writes only while polled.
fn drive(connection: &mut Option<Pin<Box<Connection>>>, cx: &mut Context<'_>) {
    if let Some(c) = connection {
        if c.as_mut().poll(cx).is_ready() {
            *connection = None;
        }
    }
}

/// Sends `request` on `tcp` (`host` its `Host` unless it names one); the response once its
/// head is in.
pub async fn exchange(tcp: TcpStream, host: &str, request: Request) -> Stream {
    let what = format!("{} {}", request.method, request.path);
    let socket = Socket {
        tcp,
        refused: false,
    };
    let (mut sender, connection) = http1::handshake(TokioIo::new(socket))
        .await
        .unwrap_or_else(|e| panic!("{what}: no HTTP/1.1 connection: {e}"));
    let mut connection = Some(Box::pin(connection));
    let response = {
        let mut sent = std::pin::pin!(sender.send_request(request.build(host)));
        poll_fn(|cx| {
            drive(&mut connection, cx);
            sent.as_mut().poll(cx)
        })
        .await
        .unwrap_or_else(|e| panic!("{what}: no response: {e}"))
    };
    let (head, body) = response.into_parts();
    Stream {
        status: head.status.as_u16(),
        headers: head
            .headers
            .iter()
            .map(|(k, v)| {
                (
                    k.as_str().to_owned(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect(),
        incoming: Some(body),
        connection,
        _sender: sender,
        body: Vec::new(),
        ended: false,
        complete: false,
        keepalives: 0,
    }
}

/// One response, its head in and its body read as it comes.
pub struct Stream {
    status: u16,
    /// Names in lower case; the values of one name in the order they came.
    headers: Vec<(String, String)>,
    incoming: Option<Incoming>,
    connection: Option<Pin<Box<Connection>>>,
    _sender: http1::SendRequest<Full<Bytes>>,
    /// What was read of the body and not yet taken as a frame.
    pub body: Vec<u8>,
    /// The body is over (its end came, or the connection broke).
    pub ended: bool,
    /// The body ended as it should (its last chunk came), not cut.
    pub complete: bool,
    /// Keepalive comments skipped.
    pub keepalives: usize,
}

impl Stream {
    pub fn status(&self) -> u16 {
        self.status
    }

    /// The first value of the header `name` (lower case).
    pub fn header(&self, name: &str) -> Option<&str> {
        header(&self.headers, name)
    }

    pub fn headers(&self) -> &[(String, String)] {
        &self.headers
    }

    /// The `name=value` of the cookie the response sets, if any.
    pub fn cookie(&self) -> Option<String> {
        set_cookie(&self.headers)
    }

    /// Reads what comes next of the body; `false` once it is over.
    pub async fn fill(&mut self) -> bool {
        loop {
            let Some(incoming) = self.incoming.as_mut() else {
                return false;
            };
            let connection = &mut self.connection;
            let frame = poll_fn(|cx| {
                drive(connection, cx);
                Pin::new(&mut *incoming).poll_frame(cx)
            })
            .await;
            match frame {
                Some(Ok(frame)) => {
                    if let Ok(data) = frame.into_data() {
                        if !data.is_empty() {
                            self.body.extend_from_slice(&data);
                            return true;
                        }
                    }
                }
                end => {
                    self.complete = end.is_none();
                    self.ended = true;
                    self.incoming = None;
                    return false;
                }
            }
        }
    }

    /// Reads the body until it holds `needle`, each read within `within`; panics if the
    /// body ends first.
    pub async fn read_until(&mut self, needle: &[u8], within: Duration) {
        while super::find(&self.body, needle).is_none() {
            let more = tokio::time::timeout(within, self.fill())
                .await
                .unwrap_or_else(|_| panic!("nothing more for {within:?}: {}", self.text()));
            assert!(more, "closed early: {}", self.text());
        }
    }

    /// Reads the whole body.
    pub async fn read_to_end(&mut self) {
        while self.fill().await {}
    }

    /// What was read of the body, as text.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The whole body as JSON.
    pub async fn json(&mut self) -> Value {
        self.read_to_end().await;
        serde_json::from_slice(&self.body).unwrap_or_else(|_| panic!("not JSON: {}", self.text()))
    }

    /// The whole response (within 30 s).
    pub async fn reply(mut self) -> Reply {
        tokio::time::timeout(Duration::from_secs(30), self.read_to_end())
            .await
            .expect("the whole response within 30 s");
        Reply {
            status: self.status,
            headers: std::mem::take(&mut self.headers),
            body: std::mem::take(&mut self.body),
            complete: self.complete,
        }
    }

    /// The next SSE frame (its lines, a `:` comment included), if one comes by `deadline`.
    async fn frame_by(&mut self, deadline: Instant) -> Option<String> {
        loop {
            if let Some(end) = super::find(&self.body, b"\n\n") {
                let frame = String::from_utf8_lossy(&self.body[..end]).into_owned();
                self.body.drain(..end + 2);
                return Some(frame);
            }
            if self.ended {
                return None;
            }
            tokio::time::timeout_at(deadline, self.fill()).await.ok()?;
        }
    }

    /// The next SSE frame (its lines, a `:` comment included), if one comes within `within`.
    pub async fn next_frame(&mut self, within: Duration) -> Option<String> {
        self.frame_by(Instant::now() + within).await
    }

    /// The next SSE event (its `data` as JSON), if one comes within `within`; keepalive
    /// comments are counted and skipped.
    pub async fn next_event(&mut self, within: Duration) -> Option<Value> {
        let deadline = Instant::now() + within;
        loop {
            let frame = self.frame_by(deadline).await?;
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
}

/// A whole response.
pub struct Reply {
    pub status: u16,
    /// Names in lower case; the values of one name in the order they came.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// The body ended as it should (its last chunk came), not cut.
    pub complete: bool,
}

impl Reply {
    /// The first value of the header `name` (lower case).
    pub fn header(&self, name: &str) -> Option<&str> {
        header(&self.headers, name)
    }

    /// The `name=value` of the cookie the response sets, if any.
    pub fn cookie(&self) -> Option<String> {
        set_cookie(&self.headers)
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.text()))
    }

    /// A JSON error with `status` and `code`; its message, which must be a string.
    pub fn assert_error(&self, status: u16, code: &str) -> String {
        assert_eq!(self.status, status, "{}", self.text());
        let v = self.json();
        assert_eq!(v["code"], code, "{v}");
        v["error"].as_str().expect("an error message").to_owned()
    }
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

fn set_cookie(headers: &[(String, String)]) -> Option<String> {
    let set = header(headers, "set-cookie")?;
    Some(set.split(';').next()?.trim().to_owned())
}
