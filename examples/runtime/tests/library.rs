//! The runtime as a library: an axum app nests the chat's routes under `/chat` with its own
//! login (an identity hook reading `x-user`), and is driven as a tower service, no sockets.
//! The hook's users are scoped as cookie identities are; the guard (Host, Origin) and the
//! nesting still hold.

use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use axum::response::Response;
use axum::routing::get;
use axum::Router;
use chat_shell_runtime::Chat;
use http_body_util::BodyExt;
use serde_json::{json, Value};
use std::time::Duration;
use tower::ServiceExt;

/// Where the app's pages say the runtime is (the element's `endpoint` is `/chat/chatkit`).
const HOST: &str = "localhost:3000";

/// The app: its own page at `/`, the chat nested at `/chat`, users named by `x-user`.
async fn app() -> Router {
    let chat = Chat::builder()
        .memory()
        .prefix("/chat")
        .pace(Duration::from_millis(1))
        .identity(|parts| {
            let user = parts.headers.get("x-user")?.to_str().ok()?;
            Some(user.to_owned())
        })
        .build()
        .await
        .expect("the chat builds");
    Router::new()
        .route("/", get(|| async { "the app's own page" }))
        .nest("/chat", chat.router())
}

/// A JSON POST to `path` as `user` (none: no `x-user`), from `origin` if given.
fn post(path: &str, user: Option<&str>, origin: Option<&str>, body: Value) -> Request<Body> {
    let mut request = Request::post(path)
        .header(header::HOST, HOST)
        .header(header::CONTENT_TYPE, "application/json");
    if let Some(user) = user {
        request = request.header("x-user", user);
    }
    if let Some(origin) = origin {
        request = request.header(header::ORIGIN, origin);
    }
    request.body(Body::from(body.to_string())).unwrap()
}

async fn send(app: &Router, request: Request<Body>) -> Response {
    app.clone().oneshot(request).await.expect("the app answers")
}

async fn json(response: Response) -> Value {
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{e}: {bytes:?}"))
}

/// The events of a streamed answer, read to its end.
async fn events(response: Response) -> Vec<Value> {
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    String::from_utf8(bytes.to_vec())
        .unwrap()
        .lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .map(|data| serde_json::from_str(data).unwrap())
        .collect()
}

fn create(text: &str) -> Value {
    json!({"type": "threads.create", "params": {"input": {
        "content": [{"type": "input_text", "text": text}], "attachments": [], "inference_options": {}
    }}})
}

fn list() -> Value {
    json!({"type": "threads.list", "params": {}})
}

#[tokio::test]
async fn each_user_of_the_app_has_their_own_threads() {
    let app = app().await;
    let answer = send(
        &app,
        post("/chat/chatkit", Some("alice"), None, create("hello")),
    )
    .await;
    assert_eq!(answer.status(), StatusCode::OK);
    assert_eq!(
        answer.headers()[header::CONTENT_TYPE],
        "text/event-stream",
        "a streamed answer"
    );
    let events = events(answer).await;
    let types: Vec<&str> = events.iter().filter_map(|e| e["type"].as_str()).collect();
    assert_eq!(types.first(), Some(&"thread.created"), "{types:?}");
    let thread = events[0]["thread"]["id"].as_str().unwrap().to_owned();
    let answered = events
        .iter()
        .any(|e| e["type"] == "thread.item.done" && e["item"]["type"] == "assistant_message");
    assert!(answered, "an assistant message: {types:?}");

    let listed = |page: &Value| -> Vec<String> {
        page["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["id"].as_str().unwrap().to_owned())
            .collect()
    };
    let alice = json(send(&app, post("/chat/chatkit", Some("alice"), None, list())).await).await;
    assert_eq!(listed(&alice), vec![thread.clone()]);
    let bob = json(send(&app, post("/chat/chatkit", Some("bob"), None, list())).await).await;
    assert_eq!(
        listed(&bob),
        Vec::<String>::new(),
        "bob sees none of alice's"
    );
    // Nor can he read it by its id: the same answer as for a thread that does not exist.
    let get = json!({"type": "threads.get_by_id", "params": {"thread_id": thread}});
    let theirs = send(&app, post("/chat/chatkit", Some("bob"), None, get)).await;
    assert_eq!(theirs.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn the_app_refuses_who_it_does_not_know_and_the_guard_still_stands() {
    let app = app().await;
    // No `x-user`: the hook refuses, and no cookie identity is made instead.
    let anonymous = send(&app, post("/chat/chatkit", None, None, list())).await;
    assert_eq!(anonymous.status(), StatusCode::UNAUTHORIZED);
    assert!(anonymous.headers().get(header::SET_COOKIE).is_none());
    assert_eq!(json(anonymous).await["code"], "unauthorized");
    // A page of another site: refused before anyone is asked who it is.
    let foreign = post(
        "/chat/chatkit",
        Some("alice"),
        Some("https://evil.example"),
        list(),
    );
    let foreign = send(&app, foreign).await;
    assert_eq!(foreign.status(), StatusCode::FORBIDDEN);
    assert_eq!(json(foreign).await["code"], "forbidden_origin");
    // A Host the runtime does not answer to (DNS rebinding).
    let mut rebound = post("/chat/chatkit", Some("alice"), None, list());
    rebound
        .headers_mut()
        .insert(header::HOST, "evil.example:3000".parse().unwrap());
    assert_eq!(
        send(&app, rebound).await.status(),
        StatusCode::MISDIRECTED_REQUEST
    );
}

#[tokio::test]
async fn the_routes_live_under_the_prefix() {
    let app = app().await;
    // Outside `/chat`, only the app's own routes.
    let outside = send(&app, post("/chatkit", Some("alice"), None, list())).await;
    assert_eq!(outside.status(), StatusCode::NOT_FOUND);
    let page = Request::get("/")
        .header(header::HOST, HOST)
        .body(Body::empty())
        .unwrap();
    assert_eq!(send(&app, page).await.status(), StatusCode::OK);
    // The URLs the runtime makes point under it too.
    let create = json!({"type": "attachments.create", "params": {
        "name": "pic.png", "size": 3, "mime_type": "image/png"
    }});
    let created = json(send(&app, post("/chat/chatkit", Some("alice"), None, create)).await).await;
    let upload = created["upload_url"].as_str().unwrap();
    assert!(
        upload.starts_with("http://localhost:3000/chat/upload/"),
        "{upload}"
    );
    let preview = created["preview_url"].as_str().unwrap();
    assert!(
        preview.starts_with("http://localhost:3000/chat/preview/"),
        "{preview}"
    );
}

/// The app keeps the history in PostgreSQL through its own pool: the chat's threads are in
/// the app's database, read back through that pool. Needs `CHAT_SHELL_TEST_DATABASE_URL`
/// (the test command starts a server and sets it).
#[tokio::test(flavor = "multi_thread")]
async fn the_apps_own_postgres_pool_keeps_the_history() {
    let Ok(url) = std::env::var("CHAT_SHELL_TEST_DATABASE_URL") else {
        eprintln!("skipped: CHAT_SHELL_TEST_DATABASE_URL is not set");
        return;
    };
    let config: tokio_postgres::Config = url.parse().expect("a PostgreSQL URL");
    // The synchronous driver runs its own runtime: pools are made and used off the workers.
    let pool = tokio::task::spawn_blocking({
        let config = config.clone();
        move || {
            let manager =
                r2d2_postgres::PostgresConnectionManager::new(config.into(), postgres::NoTls);
            r2d2::Pool::builder()
                .max_size(4)
                .build(manager)
                .expect("the app's pool")
        }
    })
    .await
    .unwrap();
    let chat = Chat::builder()
        .postgres_pool(pool.clone(), config)
        .prefix("/chat")
        .pace(Duration::from_millis(1))
        .identity(|parts| Some(parts.headers.get("x-user")?.to_str().ok()?.to_owned()))
        .build()
        .await
        .expect("the chat builds on the app's pool");
    let app = Router::new().nest("/chat", chat.router());
    let user = format!("pool-user-{}", std::process::id());
    let answer = send(
        &app,
        post("/chat/chatkit", Some(&user), None, create("kept")),
    )
    .await;
    assert_eq!(answer.status(), StatusCode::OK);
    let events = events(answer).await;
    let thread = events[0]["thread"]["id"].as_str().unwrap().to_owned();

    let (found, owner) = tokio::task::spawn_blocking(move || {
        let mut conn = pool.get().expect("a connection of the app's pool");
        let row = conn
            .query_one(
                "SELECT count(*), max(owner) FROM threads WHERE id = $1",
                &[&thread],
            )
            .expect("the threads table, in the app's database");
        let found: i64 = row.get(0);
        let owner: Option<String> = row.get(1);
        drop(conn);
        drop(pool);
        (found, owner)
    })
    .await
    .unwrap();
    assert_eq!(found, 1, "the thread is in the app's database");
    assert_eq!(
        owner.as_deref(),
        Some(format!("a_{user}").as_str()),
        "and is the user's"
    );
    chat.shutdown().await;
}
