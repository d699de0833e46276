//! The scripted agent binary, driven through the same crate as a client.

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema::{
    ContentBlock, InitializeRequest, NewSessionRequest, PromptRequest, SessionNotification,
    StopReason, TextContent,
};
use agent_client_protocol::{AcpAgent, Client};
use std::sync::{Arc, Mutex};

async fn run(prompt: &str) -> (StopReason, Vec<String>) {
    let agent = AcpAgent::from_args([env!("CARGO_BIN_EXE_chat-shell-acp-agent"), "--pace-ms", "0"])
        .unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    let prompt = prompt.to_owned();
    let reason = Client
        .v1()
        .on_receive_notification(
            async move |n: SessionNotification, _cx| {
                let update = serde_json::to_value(&n.update).unwrap();
                let kind = update["sessionUpdate"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned();
                sink.lock().unwrap().push(kind);
                Ok(())
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .connect_with(agent, async move |cx| {
            cx.send_request(InitializeRequest::new(ProtocolVersion::V1))
                .block_task()
                .await?;
            let session = cx
                .send_request(NewSessionRequest::new(std::env::temp_dir()))
                .block_task()
                .await?
                .session_id;
            let text = ContentBlock::Text(TextContent::new(prompt));
            let answer = cx
                .send_request(PromptRequest::new(session, vec![text]))
                .block_task()
                .await?;
            Ok(answer.stop_reason)
        })
        .await
        .unwrap();
    let seen = seen.lock().unwrap().clone();
    (reason, seen)
}

#[tokio::test]
async fn thinks_then_answers() {
    let (reason, seen) = run("think first").await;
    assert_eq!(reason, StopReason::EndTurn);
    let first_message = seen.iter().position(|k| k == "agent_message_chunk");
    let first_thought = seen.iter().position(|k| k == "agent_thought_chunk");
    assert!(first_thought.unwrap() < first_message.unwrap(), "{seen:?}");
}

#[tokio::test]
async fn plans_and_says_honest_stop_reasons() {
    let (reason, seen) = run("plan it").await;
    assert_eq!(reason, StopReason::EndTurn);
    assert!(
        seen.iter().filter(|k| *k == "plan").count() >= 5,
        "{seen:?}"
    );
    assert_eq!(run("refuse").await.0, StopReason::Refusal);
    assert_eq!(run("max tokens").await.0, StopReason::MaxTokens);
    assert_eq!(run("max turn").await.0, StopReason::MaxTurnRequests);
}

#[tokio::test]
async fn tool_calls_of_every_kind_without_client_capabilities() {
    let (reason, seen) = run("tools").await;
    assert_eq!(reason, StopReason::EndTurn);
    assert_eq!(
        seen.iter().filter(|k| *k == "tool_call").count(),
        11,
        "{seen:?}"
    );
}

// ---- The controls: the binary driven with raw JSON-RPC lines, so each test
// sees exactly what goes over the wire.

mod raw {
    use serde_json::{json, Value};
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

    pub struct Agent {
        child: Child,
        stdin: ChildStdin,
        stdout: BufReader<ChildStdout>,
        next: u64,
        /// Every `session/update`'s `update`, in order.
        pub updates: Vec<Value>,
        /// Every other notification and request the agent sent, whole.
        pub sent: Vec<Value>,
        /// How the client answers an agent request (by method): its `result`.
        pub answer: Box<dyn FnMut(&Value) -> Value>,
    }

    impl Agent {
        pub fn start(args: &[&str], capabilities: Value) -> Agent {
            let mut child = Command::new(env!("CARGO_BIN_EXE_chat-shell-acp-agent"))
                .args(["--pace-ms", "0"])
                .args(args)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .unwrap();
            let stdin = child.stdin.take().unwrap();
            let stdout = BufReader::new(child.stdout.take().unwrap());
            let mut agent = Agent {
                child,
                stdin,
                stdout,
                next: 1,
                updates: vec![],
                sent: vec![],
                answer: Box::new(|_| Value::Null),
            };
            let init = agent
                .call(
                    "initialize",
                    json!({"protocolVersion": 1, "clientCapabilities": capabilities}),
                )
                .unwrap();
            assert_eq!(init["agentCapabilities"]["loadSession"], true, "{init}");
            assert!(
                init["agentCapabilities"]["sessionCapabilities"]["list"].is_object(),
                "{init}"
            );
            assert!(
                init["agentCapabilities"]["sessionCapabilities"]["resume"].is_object(),
                "{init}"
            );
            agent
        }

        fn send(&mut self, message: Value) {
            writeln!(self.stdin, "{message}").unwrap();
            self.stdin.flush().unwrap();
        }

        /// A request; its `result`, or its `error`.
        pub fn call(&mut self, method: &str, params: Value) -> Result<Value, Value> {
            let id = self.next;
            self.next += 1;
            self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
            loop {
                let mut line = String::new();
                assert!(
                    self.stdout.read_line(&mut line).unwrap() > 0,
                    "agent hung up"
                );
                let message: Value = serde_json::from_str(&line).unwrap();
                if message["id"] == json!(id) && message.get("method").is_none() {
                    return match message.get("error") {
                        Some(e) => Err(e.clone()),
                        None => Ok(message["result"].clone()),
                    };
                }
                if message["method"] == "session/update" {
                    self.updates.push(message["params"]["update"].clone());
                    continue;
                }
                if message.get("id").is_some() && message.get("method").is_some() {
                    let result = (self.answer)(&message);
                    let reply = json!({"jsonrpc": "2.0", "id": message["id"], "result": result});
                    self.sent.push(message);
                    self.send(reply);
                    continue;
                }
                self.sent.push(message);
            }
        }

        pub fn new_session(&mut self) -> Value {
            self.call("session/new", json!({"cwd": "/tmp", "mcpServers": []}))
                .unwrap()
        }

        pub fn prompt(&mut self, session: &Value, text: &str) -> Value {
            self.call(
                "session/prompt",
                json!({"sessionId": session, "prompt": [{"type": "text", "text": text}]}),
            )
            .unwrap()
        }

        /// The updates of one kind since `from`.
        pub fn of(&self, kind: &str, from: usize) -> Vec<Value> {
            self.updates[from..]
                .iter()
                .filter(|u| u["sessionUpdate"] == kind)
                .cloned()
                .collect()
        }

        /// What the agent said since `from`, joined.
        pub fn said(&self, from: usize) -> String {
            self.of("agent_message_chunk", from)
                .iter()
                .filter_map(|u| u["content"]["text"].as_str().map(str::to_owned))
                .collect()
        }
    }

    impl Drop for Agent {
        fn drop(&mut self) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }

    /// An option's `currentValue` in a `configOptions` array (`None`: not offered).
    pub fn value(options: &Value, id: &str) -> Option<Value> {
        options
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["id"] == id)
            .map(|o| o["currentValue"].clone())
    }

    pub fn ids(options: &Value) -> Vec<String> {
        options
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["id"].as_str().unwrap().to_owned())
            .collect()
    }

    pub fn command_names(update: &Value) -> Vec<String> {
        update["availableCommands"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap().to_owned())
            .collect()
    }
}

use raw::{command_names, ids, value};
use serde_json::json;

#[test]
fn new_session_offers_modes_and_config_options() {
    let mut agent = raw::Agent::start(&[], json!({}));
    let session = agent.new_session();
    assert_eq!(session["modes"]["currentModeId"], "ask", "{session}");
    let modes: Vec<_> = session["modes"]["availableModes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["id"].clone(), m["name"].clone()))
        .collect();
    assert_eq!(
        modes,
        [(json!("ask"), json!("Ask")), (json!("code"), json!("Code"))]
    );
    let options = &session["configOptions"];
    assert_eq!(
        ids(options),
        ["mode", "model", "thought_level"],
        "no boolean unasked"
    );
    let model = &options[1];
    assert_eq!(model["name"], "Model");
    assert_eq!(model["category"], "model");
    assert_eq!(model["type"], "select");
    assert_eq!(model["currentValue"], "scripted-fast");
    let models: Vec<_> = model["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["value"].as_str().unwrap())
        .collect();
    assert_eq!(
        models,
        ["scripted-fast", "scripted-deep", "scripted-locked"]
    );
    assert_eq!(options[0]["category"], "mode");
    assert_eq!(options[0]["currentValue"], "ask");
    assert_eq!(options[2]["name"], "Thinking");
    assert_eq!(options[2]["category"], "thought_level");
    assert_eq!(options[2]["currentValue"], "low");

    // A client that takes boolean options gets one.
    let mut agent = raw::Agent::start(&[], json!({"session": {"configOptions": {"boolean": {}}}}));
    let options = agent.new_session()["configOptions"].clone();
    assert_eq!(ids(&options).last().unwrap(), "auto_approve");
    assert_eq!(value(&options, "auto_approve"), Some(json!(false)));
}

#[test]
fn a_refused_and_an_adjusted_change_and_modes_kept_in_step() {
    let mut agent = raw::Agent::start(&[], json!({}));
    let session = agent.new_session()["sessionId"].clone();
    let set = |agent: &mut raw::Agent, id: &str, v: &str| {
        agent.call(
            "session/set_config_option",
            json!({"sessionId": session, "configId": id, "value": v}),
        )
    };
    let refused = set(&mut agent, "model", "scripted-locked").unwrap_err();
    assert_eq!(refused["code"], -32602, "{refused}");
    assert_eq!(
        refused["data"], "scripted-locked is not available on this plan",
        "the reason, where the runtime reads it: {refused}"
    );
    let adjusted = set(&mut agent, "thought_level", "high").unwrap();
    let options = &adjusted["configOptions"];
    assert_eq!(value(options, "thought_level"), Some(json!("medium")));
    assert_eq!(
        value(options, "model"),
        Some(json!("scripted-fast")),
        "refusal kept the model"
    );
    assert_eq!(
        ids(options),
        ["mode", "model", "thought_level"],
        "the full set"
    );
    let deep = set(&mut agent, "model", "scripted-deep").unwrap();
    assert_eq!(
        value(&deep["configOptions"], "model"),
        Some(json!("scripted-deep"))
    );
    let high = set(&mut agent, "thought_level", "high").unwrap();
    assert_eq!(
        value(&high["configOptions"], "thought_level"),
        Some(json!("high"))
    );

    // The mode, through set_mode, then through the option.
    let from = agent.updates.len();
    agent
        .call(
            "session/set_mode",
            json!({"sessionId": session, "modeId": "code"}),
        )
        .unwrap();
    let viaoption = set(&mut agent, "mode", "ask").unwrap();
    assert_eq!(
        value(&viaoption["configOptions"], "mode"),
        Some(json!("ask"))
    );
    // And set_mode is seen by the config option.
    agent
        .call(
            "session/set_mode",
            json!({"sessionId": session, "modeId": "code"}),
        )
        .unwrap();
    let now = set(&mut agent, "thought_level", "low").unwrap();
    assert_eq!(value(&now["configOptions"], "mode"), Some(json!("code")));
    // Each change of mode, either way, is reported (after its answer: the next exchange
    // has read them all).
    let modes: Vec<_> = agent
        .of("current_mode_update", from)
        .iter()
        .map(|u| u["currentModeId"].clone())
        .collect();
    assert_eq!(modes, [json!("code"), json!("ask"), json!("code")]);
}

#[test]
fn options_and_commands_change_mid_session() {
    let mut agent = raw::Agent::start(&[], json!({}));
    let session = agent.new_session()["sessionId"].clone();
    // The list follows the answer to session/new: the next exchange has read it.
    let from = agent.updates.len();
    agent.prompt(&session, "/test");
    assert_eq!(agent.said(from), "Ran /test with ''.");
    let first = agent.of("available_commands_update", 0);
    assert_eq!(
        command_names(first.last().unwrap()),
        ["web", "test", "plan"]
    );
    let web = &first.last().unwrap()["availableCommands"][0];
    assert_eq!(web["input"]["hint"], "query");

    let from = agent.updates.len();
    agent.prompt(&session, "options+");
    let added = agent.of("config_option_update", from);
    let options = &added.last().unwrap()["configOptions"];
    assert_eq!(
        ids(options),
        ["mode", "model", "thought_level", "verbosity"]
    );
    assert_eq!(value(options, "verbosity"), Some(json!("normal")));
    assert_eq!(options[3]["name"], "Verbosity");
    let from = agent.updates.len();
    agent.prompt(&session, "options-");
    let removed = agent.of("config_option_update", from);
    assert_eq!(
        ids(&removed.last().unwrap()["configOptions"]),
        ["mode", "model", "thought_level"]
    );

    let from = agent.updates.len();
    agent.prompt(&session, "commands-");
    let changed = agent.of("available_commands_update", from);
    assert_eq!(
        command_names(changed.last().unwrap()),
        ["test", "plan", "review"]
    );
    let from = agent.updates.len();
    agent.prompt(&session, "commands+");
    let back = agent.of("available_commands_update", from);
    assert_eq!(command_names(back.last().unwrap()), ["web", "test", "plan"]);

    let from = agent.updates.len();
    agent.prompt(&session, "/web rust acp");
    assert_eq!(agent.said(from), "Ran /web with 'rust acp'.");
}

#[test]
fn usage_grows_each_turn_and_the_first_prompt_names_the_session() {
    let mut agent = raw::Agent::start(&[], json!({}));
    let session = agent.new_session()["sessionId"].clone();
    let mut used = vec![];
    for turn in 1..=3u32 {
        let from = agent.updates.len();
        agent.prompt(&session, "hello there agent");
        let usage = agent.of("usage_update", from);
        let last = usage.last().expect("a usage_update each turn");
        assert_eq!(last["size"], 200_000);
        assert_eq!(last["cost"]["currency"], "USD");
        let cost = last["cost"]["amount"].as_f64().unwrap();
        assert!((cost - f64::from(turn) / 100.0).abs() < 1e-9, "{last}");
        used.push(last["used"].as_u64().unwrap());
    }
    assert_eq!(used, [3_500, 6_000, 8_500]);
    let titles = agent.of("session_info_update", 0);
    assert_eq!(
        titles.first().unwrap()["title"],
        "hello there agent",
        "{titles:?}"
    );
}

#[test]
fn sessions_are_listed_in_pages_and_loaded_after_a_restart() {
    let dir = std::env::temp_dir().join(format!("acp-agent-sessions-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let dir_arg = dir.to_str().unwrap().to_owned();
    let args = ["--sessions", dir_arg.as_str(), "--page-size", "2"];
    let mut ids_made = vec![];
    {
        let mut agent = raw::Agent::start(&args, json!({}));
        for n in 1..=3 {
            let session = agent.new_session()["sessionId"].clone();
            agent.prompt(&session, &format!("first words {n}"));
            ids_made.push(session);
            // Dates are to the second: keep the order unambiguous.
            std::thread::sleep(std::time::Duration::from_millis(1_100));
        }
    }
    // A new process: it knows them from the files.
    let mut agent = raw::Agent::start(&args, json!({}));
    let page = agent.call("session/list", json!({})).unwrap();
    let listed = page["sessions"].as_array().unwrap();
    assert_eq!(listed.len(), 2, "{page}");
    assert_eq!(listed[0]["sessionId"], ids_made[2], "newest first: {page}");
    assert_eq!(listed[0]["title"], "first words 3");
    assert_eq!(listed[1]["sessionId"], ids_made[1]);
    assert!(listed[0]["updatedAt"].is_string(), "{page}");
    assert!(listed[0]["cwd"].is_string(), "{page}");
    let cursor = page["nextCursor"].clone();
    assert!(cursor.is_string(), "{page}");
    let rest = agent
        .call("session/list", json!({"cursor": cursor}))
        .unwrap();
    let listed = rest["sessions"].as_array().unwrap();
    assert_eq!(listed.len(), 1, "{rest}");
    assert_eq!(listed[0]["sessionId"], ids_made[0]);
    assert!(rest["nextCursor"].is_null(), "{rest}");

    // Load replays the transcript before it answers.
    let from = agent.updates.len();
    let loaded = agent
        .call(
            "session/load",
            json!({"sessionId": ids_made[1], "cwd": "/tmp", "mcpServers": []}),
        )
        .unwrap();
    assert_eq!(loaded["modes"]["currentModeId"], "ask", "{loaded}");
    let users = agent.of("user_message_chunk", from);
    assert_eq!(users.len(), 1, "{users:?}");
    assert_eq!(users[0]["content"]["text"], "first words 2");
    assert!(!agent.said(from).is_empty(), "the agent's answer replayed");
    // Resume answers without a replay.
    let from = agent.updates.len();
    agent
        .call(
            "session/resume",
            json!({"sessionId": ids_made[0], "cwd": "/tmp", "mcpServers": []}),
        )
        .unwrap();
    assert!(agent.of("user_message_chunk", from).is_empty());
    assert!(agent.of("agent_message_chunk", from).is_empty());
    drop(agent);
    let _ = std::fs::remove_dir_all(&dir);
}

fn elicited(action: serde_json::Value) -> (raw::Agent, String, serde_json::Value) {
    let mut agent = raw::Agent::start(&[], json!({"elicitation": {"form": {}}}));
    let session = agent.new_session()["sessionId"].clone();
    agent.answer = Box::new(move |_| action.clone());
    let from = agent.updates.len();
    let answer = agent.prompt(&session, "elicit");
    let said = agent.said(from);
    (agent, said, answer)
}

#[test]
fn elicitation_forms_accepted_declined_and_cancelled() {
    let (agent, said, answer) =
        elicited(json!({"action": "accept", "content": {"name": "demo", "workers": 4}}));
    assert_eq!(answer["stopReason"], "end_turn");
    assert_eq!(said, r#"accepted: {"name":"demo","workers":4}"#);
    let request = agent
        .sent
        .iter()
        .find(|m| m["method"] == "elicitation/create")
        .expect("elicitation/create sent");
    let params = &request["params"];
    assert_eq!(params["mode"], "form");
    assert_eq!(params["message"], "Set up the project");
    let properties = &params["requestedSchema"]["properties"];
    assert_eq!(properties["name"]["minLength"], 1);
    assert_eq!(
        properties["language"]["enum"],
        json!(["rust", "python", "go"])
    );
    assert!(properties["license"]["oneOf"].is_array());
    assert_eq!(properties["budget"]["type"], "number");
    assert_eq!(properties["workers"]["minimum"], 1);
    assert_eq!(properties["workers"]["maximum"], 16);
    assert_eq!(properties["tests"]["type"], "boolean");
    assert_eq!(properties["features"]["type"], "array");
    assert_eq!(
        properties["color"]["type"], "color",
        "a type no client knows"
    );
    assert!(params["requestedSchema"]["required"]
        .as_array()
        .unwrap()
        .contains(&json!("name")));

    let (_, said, _) = elicited(json!({"action": "decline"}));
    assert_eq!(said, "declined");
    let (_, said, answer) = elicited(json!({"action": "cancel"}));
    assert_eq!(answer["stopReason"], "cancelled");
    assert!(said.is_empty(), "{said}");

    // Without the capability, no form is asked.
    let mut agent = raw::Agent::start(&[], json!({}));
    let session = agent.new_session()["sessionId"].clone();
    agent.prompt(&session, "elicit");
    assert!(agent
        .sent
        .iter()
        .all(|m| m["method"] != "elicitation/create"));
}

#[test]
fn elicitation_by_url_then_complete() {
    let mut agent = raw::Agent::start(&[], json!({"elicitation": {"url": {}}}));
    let session = agent.new_session()["sessionId"].clone();
    agent.answer = Box::new(|_| json!({"action": "accept"}));
    let from = agent.updates.len();
    agent.prompt(&session, "elicit-url");
    let create = agent
        .sent
        .iter()
        .find(|m| m["method"] == "elicitation/create")
        .expect("asked")
        .clone();
    assert_eq!(create["params"]["mode"], "url");
    assert!(create["params"]["url"]
        .as_str()
        .unwrap()
        .starts_with("https://example.com/"));
    let complete = agent
        .sent
        .iter()
        .find(|m| m["method"] == "elicitation/complete")
        .expect("completed");
    assert_eq!(
        complete["params"]["elicitationId"],
        create["params"]["elicitationId"]
    );
    assert_eq!(agent.said(from), "The authorization is complete.");
}
