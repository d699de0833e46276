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
