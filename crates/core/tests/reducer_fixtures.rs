//! Replays every recorded ChatKit response through the SSE decoder and the reducer and
//! checks the resulting state against what the server said, fixture by fixture.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use chat_shell_core::adapters::chatkit as chatkit_adapter;
use chat_shell_core::model::{Entry, EntryKind};
use chat_shell_core::protocol::chatkit::*;
use chat_shell_core::reducer::{reduce, ChatState, Effect, Input, ItemStatus, OutgoingMessage};
use common::*;
use std::collections::HashMap;

/// The server's own view of the final items: the last `added`/`done`/`replaced` of each id,
/// in order of first appearance, minus removed ones.
fn server_items(name: &str) -> (Vec<ItemId>, HashMap<ItemId, (Entry, bool)>) {
    let text = String::from_utf8(fixture(name)).unwrap();
    let mut order = Vec::new();
    let mut items = HashMap::new();
    for line in text.lines().filter_map(|l| l.strip_prefix("data: ")) {
        let (item, done) = match decode_event(line).unwrap() {
            StreamEvent::ItemAdded(e) => (e.item, false),
            StreamEvent::ItemDone(e) | StreamEvent::ItemReplaced(e) => (e.item, true),
            StreamEvent::ItemRemoved(e) => {
                order.retain(|id| id != &e.item_id);
                items.remove(&e.item_id);
                continue;
            }
            _ => continue,
        };
        if !items.contains_key(&item.id) {
            order.push(item.id.clone());
        }
        items.insert(item.id.clone(), (chatkit_adapter::entry(item), done));
    }
    (order, items)
}

fn user_text(name: &str) -> String {
    let text = String::from_utf8(fixture(name)).unwrap();
    text.lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .find_map(|l| match decode_event(l).ok()? {
            StreamEvent::ItemDone(e) => match e.item.kind {
                ItemKind::UserMessage(m) => Some(m.text()),
                _ => None,
            },
            _ => None,
        })
        .unwrap_or_default()
}

fn text_of(state: &ChatState, id: &str) -> String {
    match &state.item(&ItemId::from(id)).expect(id).entry.kind {
        EntryKind::AssistantText(m) => m.content.iter().map(|p| p.text.clone()).collect(),
        other => panic!("{id} is not an assistant message: {other:?}"),
    }
}

#[test]
fn every_stream_fixture_ends_in_the_servers_final_items() {
    let follow_ups = fixture_names(".sse");
    assert!(follow_ups.len() >= 29, "fixtures missing: {follow_ups:?}");
    for name in follow_ups.iter().filter(|n| n.matches('.').count() == 1) {
        let (state, replay) = replay_message(name, &user_text(name));
        let (order, items) = server_items(name);
        let shown: Vec<ItemId> = state.items().iter().map(|i| i.entry.id.clone()).collect();
        assert_eq!(shown, order, "{name}: item order");
        for (id, (item, done)) in &items {
            let got = state.item(id).unwrap();
            if *done {
                assert_eq!(&got.entry, item, "{name}: final item {id}");
            }
            assert!(!got.local, "{name}: {id} still local");
        }
        let malformed = replay
            .warnings()
            .into_iter()
            .filter(|w| w.contains("malformed"))
            .count();
        assert_eq!(malformed, 0, "{name}: {:?}", replay.warnings());
        assert!(state.turn.is_none(), "{name}: the turn must be over");
        let failed = name.starts_with("error");
        assert_eq!(
            state.error.is_some(),
            failed,
            "{name}: error state {:?}",
            state.error
        );
    }
}

#[test]
fn forkquirks_streams_every_delta_into_the_message_before_done() {
    let mut growth = Vec::new();
    let mut state = ChatState::new();
    let start = Input::SendStarted(OutgoingMessage {
        content: Vec::new(),
        text: "forkquirks".into(),
        ..Default::default()
    });
    let replay = replay_into(
        &mut state,
        start,
        &fixture("forkquirks.sse"),
        &[7, 13, 1],
        |s| {
            s.item(&ItemId::from("msg_2461a5d6"))
                .map(|i| match &i.entry.kind {
                    EntryKind::AssistantText(m) => {
                        format!("{:?}:{}", i.status, m.content[0].text)
                    }
                    _ => String::new(),
                })
        },
    );
    for seen in &replay.observed {
        if growth.last() != Some(seen) {
            growth.push(seen.clone());
        }
    }
    let streaming: Vec<&String> = growth
        .iter()
        .filter(|s| s.starts_with("Streaming:"))
        .collect();
    assert!(
        streaming.len() >= 10,
        "text must grow before done: {growth:?}"
    );
    for pair in streaming.windows(2) {
        assert!(pair[1].len() > pair[0].len() && pair[1].starts_with(pair[0].as_str()));
    }
    assert!(
        streaming.last().unwrap().contains("| Field | Value |"),
        "{streaming:?}"
    );
    let final_text = text_of(&state, "msg_2461a5d6");
    let (_, items) = server_items("forkquirks.sse");
    let EntryKind::AssistantText(m) = &items[&ItemId::from("msg_2461a5d6")].0.kind else {
        panic!()
    };
    assert_eq!(final_text, m.content[0].text);
    // Streamed text equals the final text: nothing lost, nothing doubled.
    let last_streamed = streaming.last().unwrap().trim_start_matches("Streaming:");
    assert_eq!(last_streamed, final_text);
    // The task added twice under one id is one item, showing its final title.
    let task = state
        .item(&ItemId::from("call_OqZCSVqydPx07bpoQELBBrMi"))
        .unwrap();
    let EntryKind::Task(t) = &task.entry.kind else {
        panic!()
    };
    assert_eq!(
        t.task.title(),
        Some("Data extracted from the uploaded image")
    );
    assert_eq!(
        state
            .items()
            .iter()
            .filter(|i| matches!(i.entry.kind, EntryKind::Task(_)))
            .count(),
        1
    );
    // Never done by the fork, but the stream's end closes it.
    assert_eq!(task.status, ItemStatus::Done);
    let widget = state
        .items()
        .iter()
        .find(|i| matches!(i.entry.kind, EntryKind::ClientWidget(_)));
    let EntryKind::ClientWidget(w) = &widget.expect("client widget").entry.kind else {
        panic!()
    };
    assert_eq!(w.name, "tool_approval_request");
}

#[test]
fn deltas_for_unknown_ids_and_indexes_go_to_the_streamed_message() {
    let mut state = ChatState::new();
    reduce(&mut state, Input::TurnStarted);
    let ev = |s: &str| chat_shell_core::adapters::chatkit::input(decode_event(s).unwrap());
    reduce(
        &mut state,
        ev(
            r#"{"type":"thread.item.added","item":{"id":"m1","type":"assistant_message","content":[{"type":"output_text","text":"a"}]}}"#,
        ),
    );
    reduce(
        &mut state,
        ev(
            r#"{"type":"thread.item.updated","item_id":"itm_x","update":{"type":"assistant_message.content_part.text_delta","content_index":7,"delta":"b"}}"#,
        ),
    );
    reduce(
        &mut state,
        ev(
            r#"{"type":"thread.item.updated","item_id":"m1","update":{"type":"assistant_message.content_part.text_delta","content_index":3,"delta":"c"}}"#,
        ),
    );
    assert_eq!(text_of(&state, "m1"), "abc");
    assert_eq!(state.items().len(), 1);
    // With no message at all, a delta becomes a message of its own instead of being dropped.
    let mut fresh = ChatState::new();
    reduce(&mut fresh, Input::TurnStarted);
    reduce(
        &mut fresh,
        ev(
            r#"{"type":"thread.item.updated","item_id":"orphan","update":{"type":"assistant_message.content_part.text_delta","content_index":0,"delta":"kept"}}"#,
        ),
    );
    assert_eq!(text_of(&fresh, "orphan"), "kept");
}

#[test]
fn an_item_added_twice_is_updated_in_place() {
    let (state, _) = replay_message("task.sse", "task");
    let ids: Vec<&str> = state.items().iter().map(|i| i.entry.id.as_str()).collect();
    assert_eq!(ids.iter().filter(|id| **id == "tsk_00000014").count(), 1);
    let EntryKind::Task(t) = &state
        .item(&ItemId::from("tsk_00000014"))
        .unwrap()
        .entry
        .kind
    else {
        panic!()
    };
    assert_eq!(t.task.title(), Some("Found 56 records"));
    assert_eq!(t.task.status_indicator, StatusIndicator::Complete);
    let EntryKind::Task(r) = &state
        .item(&ItemId::from("tsk_00000015"))
        .unwrap()
        .entry
        .kind
    else {
        panic!()
    };
    assert_eq!(r.task.title(), Some("Permissions OK (replaced)"));
}

#[test]
fn content_part_done_with_empty_annotations_keeps_added_ones() {
    let mut state = ChatState::new();
    reduce(
        &mut state,
        Input::SendStarted(OutgoingMessage {
            content: Vec::new(),
            text: "agent".into(),
            ..Default::default()
        }),
    );
    let text = String::from_utf8(fixture("agent.sse")).unwrap();
    let mut after_part_done = None;
    for line in text.lines().filter_map(|l| l.strip_prefix("data: ")) {
        let event = decode_event(line).unwrap();
        let is_part_done = matches!(&event, StreamEvent::ItemUpdated(e) if matches!(e.update, ItemUpdate::ContentPartDone(_)));
        let id = match &event {
            StreamEvent::ItemUpdated(e) => Some(e.item_id.clone()),
            _ => None,
        };
        reduce(&mut state, chat_shell_core::adapters::chatkit::input(event));
        if is_part_done {
            let item = state.item(id.as_ref().unwrap()).unwrap();
            let EntryKind::AssistantText(m) = &item.entry.kind else {
                panic!()
            };
            after_part_done = Some(m.content[0].annotations.len());
        }
    }
    assert_eq!(
        after_part_done,
        Some(1),
        "content_part.done wiped the annotation"
    );
    let msg = state
        .items()
        .iter()
        .find(|i| matches!(i.entry.kind, EntryKind::AssistantText(_)))
        .unwrap();
    let EntryKind::AssistantText(m) = &msg.entry.kind else {
        panic!()
    };
    assert_eq!(m.content[0].annotations.len(), 1);
}

#[test]
fn annotations_of_every_source_kind_survive() {
    let (state, _) = replay_message("annotations.sse", "annotations");
    let msg = state
        .items()
        .iter()
        .find(|i| matches!(i.entry.kind, EntryKind::AssistantText(_)))
        .unwrap();
    let EntryKind::AssistantText(m) = &msg.entry.kind else {
        panic!()
    };
    let kinds: Vec<&str> = m.content[0]
        .annotations
        .iter()
        .map(|a| match &a.source.kind {
            SourceKind::Url(_) => "url",
            SourceKind::File(_) => "file",
            SourceKind::Entity(_) => "entity",
            SourceKind::Other(_) => "other",
        })
        .collect();
    for k in ["url", "file", "entity"] {
        assert!(kinds.contains(&k), "{kinds:?}");
    }
    assert!(m.content[0].annotations.iter().any(|a| a.index.is_none()));
}

#[test]
fn an_error_keeps_the_partial_answer_and_a_retry_replaces_it() {
    let (mut state, replay) = replay_message("error.sse", "error");
    let error = state.error.clone().expect("error shown");
    assert!(error.allow_retry);
    assert!(
        error.message.contains("failed on purpose"),
        "{}",
        error.message
    );
    let partial = state
        .items()
        .iter()
        .find(|i| i.status == ItemStatus::Failed)
        .expect("partial kept");
    assert!(matches!(partial.entry.kind, EntryKind::AssistantText(_)));
    let emitted: Vec<&str> = replay
        .outcomes
        .iter()
        .flat_map(|o| &o.effects)
        .filter_map(|e| match e {
            Effect::Emit(event) => Some(event.name()),
            _ => None,
        })
        .collect();
    assert!(emitted.contains(&"chat.error"));
    let user = error.retry_after.clone().expect("retry target");
    assert!(matches!(
        state.item(&user).unwrap().entry.kind,
        EntryKind::UserMessage(_)
    ));
    let partial_id = partial.entry.id.clone();
    replay_into(
        &mut state,
        Input::RetryStarted {
            user_message: user.clone(),
        },
        &fixture("error.retry_after_item.sse"),
        &[64],
        |_| None,
    );
    assert!(state.error.is_none());
    assert!(
        state.item(&partial_id).is_none(),
        "the failed answer is dropped on retry"
    );
    let ids: Vec<&str> = state.items().iter().map(|i| i.entry.id.as_str()).collect();
    assert_eq!(ids.first().copied(), Some(user.as_str()));
    assert!(!text_of(&state, "msg_00000066").is_empty());
    assert_eq!(ids.len(), 2, "{ids:?}");
}

#[test]
fn an_error_without_message_gets_a_clear_default() {
    let (state, _) = replay_message("errorcode.sse", "errorcode");
    let error = state.error.expect("error");
    assert_eq!(error.code, "stream.error");
    assert!(error.message.contains("Something went wrong"));
}

#[test]
fn thread_updated_mid_message_changes_title_and_keeps_text() {
    let (state, _) = replay_message("title.sse", "title");
    let thread = state.thread.as_ref().unwrap();
    assert_eq!(thread.title.as_deref(), Some("Peer title 08:28:49"));
    let msg = state
        .items()
        .iter()
        .rev()
        .find(|i| matches!(i.entry.kind, EntryKind::AssistantText(_)))
        .unwrap();
    assert!(text_of(&state, msg.entry.id.as_str()).contains("The thread title is now"));
}

#[test]
fn a_locked_thread_reports_its_reason() {
    let (state, _) = replay_message("lock.sse", "lock");
    let status = &state.thread.as_ref().unwrap().status;
    assert_eq!(
        status.blocked_reason(),
        Some(Some("Locked by the peer server (scenario `lock`)."))
    );
}

#[test]
fn widgets_keep_float_props_and_the_whole_tree() {
    let (state, _) = replay_message("widget.sse", "widget");
    let widgets: Vec<&WidgetRoot> = state
        .items()
        .iter()
        .filter_map(|i| match &i.entry.kind {
            EntryKind::Widget(w) => Some(&w.widget),
            _ => None,
        })
        .collect();
    let kinds: Vec<&str> = widgets.iter().map(|w| w.kind.as_str()).collect();
    for k in ["Card", "ListView", "Basic"] {
        assert!(kinds.contains(&k), "{kinds:?}");
    }
    fn walk<'a>(w: &'a WidgetComponent, out: &mut Vec<&'a WidgetComponent>) {
        out.push(w);
        w.children.iter().for_each(|c| walk(c, out));
    }
    let mut all = Vec::new();
    widgets.iter().for_each(|w| walk(w, &mut all));
    let names: std::collections::BTreeSet<&str> = all.iter().map(|c| c.kind.as_str()).collect();
    for k in [
        "Row",
        "Col",
        "Box",
        "Icon",
        "Title",
        "Caption",
        "Text",
        "Markdown",
        "Badge",
        "Image",
        "Divider",
        "Spacer",
        "Button",
        "Form",
        "Input",
        "Select",
        "Textarea",
        "Checkbox",
        "RadioGroup",
        "DatePicker",
        "Label",
        "ListViewItem",
        "Chart",
    ] {
        assert!(names.contains(k), "{k} missing from {names:?}");
    }
    assert!(
        all.iter().all(|c| c.is_known()),
        "unknown component in the SDK catalog"
    );
    // A float prop (`padding: 3.0`-style) reads as a number.
    assert!(
        all.iter().any(|c| c.props.values().any(|v| v.is_f64())),
        "no float prop survived"
    );
}

#[test]
fn widget_streaming_updates_apply_by_component_id() {
    let (state, replay) = replay_message("widgetstream.sse", "widgetstream");
    assert!(replay.warnings().is_empty(), "{:?}", replay.warnings());
    let (_, items) = server_items("widgetstream.sse");
    for (id, (item, done)) in items {
        if done {
            assert_eq!(state.item(&id).unwrap().entry, item);
        }
    }
}

#[test]
fn workflows_keep_tasks_and_summaries() {
    let (state, _) = replay_message("workflow.sse", "workflow");
    let flows: Vec<&Workflow> = state
        .items()
        .iter()
        .filter_map(|i| match &i.entry.kind {
            EntryKind::Workflow(w) => Some(&w.workflow),
            _ => None,
        })
        .collect();
    assert_eq!(flows.len(), 3);
    assert!(matches!(
        flows[0].summary,
        Some(WorkflowSummary::Duration { .. })
    ));
    assert!(
        matches!(&flows[1].summary, Some(WorkflowSummary::Title { title, .. }) if title == "Checked 2 sources")
    );
    assert_eq!(flows[2].kind, WorkflowKind::Reasoning);
    let task_kinds: Vec<&str> = flows[0]
        .tasks
        .iter()
        .map(|t| match t.kind {
            TaskKind::Custom(_) => "custom",
            TaskKind::WebSearch(_) => "web_search",
            TaskKind::Thought(_) => "thought",
            TaskKind::File(_) => "file",
            TaskKind::Image(_) => "image",
            TaskKind::Other(_) => "other",
        })
        .collect();
    for k in ["custom", "web_search", "thought", "file", "image"] {
        assert!(task_kinds.contains(&k), "{task_kinds:?}");
    }
}

#[test]
fn progress_is_ephemeral_and_notices_and_effects_are_reported() {
    let mut saw_progress = Vec::new();
    let mut state = ChatState::new();
    let start = Input::SendStarted(OutgoingMessage {
        content: Vec::new(),
        text: "progress".into(),
        ..Default::default()
    });
    replay_into(
        &mut state,
        start,
        &fixture("progress.sse"),
        &[usize::MAX],
        |s| s.progress.as_ref().map(|p| p.text.clone()),
    )
    .observed
    .into_iter()
    .for_each(|p| {
        if saw_progress.last() != Some(&p) {
            saw_progress.push(p)
        }
    });
    assert_eq!(saw_progress.len(), 5, "{saw_progress:?}");
    assert!(
        state.progress.is_none(),
        "progress must go when content arrives"
    );
    let kinds: Vec<bool> = state
        .items()
        .iter()
        .map(|i| {
            matches!(
                i.entry.kind,
                EntryKind::UserMessage(_) | EntryKind::AssistantText(_)
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [true, true],
        "progress updates are never stored as items"
    );

    let (state, _) = replay_message("notice.sse", "notice");
    let levels: Vec<NoticeLevel> = state.notices.iter().map(|n| n.event.level).collect();
    assert_eq!(
        levels,
        vec![NoticeLevel::Info, NoticeLevel::Warning, NoticeLevel::Danger]
    );

    let (state, replay) = replay_message("effect.sse", "effect");
    let effects: Vec<String> = replay
        .outcomes
        .iter()
        .flat_map(|o| &o.effects)
        .filter_map(|e| match e {
            Effect::ClientEffect { name, .. } => Some(name.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(effects, ["peer.toast", "peer.navigate", "peer.no_data"]);
    assert!(state
        .items()
        .iter()
        .all(|i| !format!("{:?}", i.entry).contains("peer.toast\"")));
}

#[test]
fn a_pending_client_tool_call_is_invoked_once() {
    let (_, replay) = replay_message("clienttool.sse", "clienttool");
    let calls: Vec<&str> = replay
        .outcomes
        .iter()
        .flat_map(|o| &o.effects)
        .filter_map(|e| match e {
            Effect::InvokeClientTool { name, .. } => Some(name.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(calls, ["get_client_info"]);
}

#[test]
fn naive_timestamps_are_kept_as_sent() {
    let (state, _) = replay_message("task.sse", "task");
    let t = &state.thread.as_ref().unwrap().created_at;
    assert!(t.starts_with("2026-11-21T") && !t.ends_with('Z'), "{t}");
    let item = &state.items()[0].entry.created_at;
    assert_eq!(item, "2026-11-21T08:28:48.821767");
}

#[test]
fn a_stream_without_any_event_is_an_error_and_gives_the_text_back() {
    let mut state = ChatState::new();
    reduce(
        &mut state,
        Input::SendStarted(OutgoingMessage {
            content: Vec::new(),
            text: "lost?".into(),
            ..Default::default()
        }),
    );
    let out = reduce(&mut state, Input::StreamEnded);
    assert!(state
        .error
        .as_ref()
        .unwrap()
        .message
        .contains("without sending anything"));
    assert!(out
        .effects
        .iter()
        .any(|e| matches!(e, Effect::RestoreDraft { text, .. } if text == "lost?")));
    assert!(
        state.items().is_empty(),
        "the unsent message moves back to the composer"
    );
}

#[test]
fn a_stream_cut_in_the_middle_of_a_json_line_reports_and_keeps_the_text() {
    let bytes = fixture("markdown.sse");
    // Cut 40 bytes into a `data:` line two thirds of the way in.
    let line_start = bytes.len() * 2 / 3
        + bytes[bytes.len() * 2 / 3..]
            .windows(7)
            .position(|w| w == b"\ndata: ")
            .unwrap()
        + 1;
    let cut = line_start + 40;
    let mut state = ChatState::new();
    let start = Input::SendStarted(OutgoingMessage {
        content: Vec::new(),
        text: "markdown".into(),
        ..Default::default()
    });
    let replay = replay_into(&mut state, start, &bytes[..cut], &[500], |_| None);
    let malformed: Vec<String> = replay
        .warnings()
        .into_iter()
        .filter(|w| w.contains("malformed"))
        .collect();
    assert_eq!(malformed.len(), 1, "{:?}", replay.warnings());
    let msg = state
        .items()
        .iter()
        .find(|i| matches!(i.entry.kind, EntryKind::AssistantText(_)))
        .unwrap();
    assert!(
        text_of(&state, msg.entry.id.as_str()).len() > 100,
        "partial text kept"
    );
}

#[test]
fn unknown_types_are_kept_and_broken_known_types_are_errors() {
    let unknown = decode_event(r#"{"type":"thread.item.sparkled","x":1}"#).unwrap();
    assert!(matches!(&unknown, StreamEvent::Other(u) if u.type_name() == "thread.item.sparkled"));
    let item = decode_event(
        r#"{"type":"thread.item.added","item":{"id":"i1","type":"hologram","beam":3}}"#,
    )
    .unwrap();
    let StreamEvent::ItemAdded(e) = item else {
        panic!()
    };
    assert!(matches!(&e.item.kind, ItemKind::Other(u) if u.0["beam"] == 3));
    // A known type whose body is broken is NOT hidden as "unknown".
    let broken = decode_event(
        r#"{"type":"thread.item.updated","item_id":"i1","update":{"type":"assistant_message.content_part.text_delta","delta":5}}"#,
    );
    let err = broken.unwrap_err();
    assert!(err.raw.contains("\"delta\":5"));
    assert!(decode_event(r#"{"type":"notice","level":"info"}"#).is_err());
    // And the reducer turns the unknown one into a warning, not a failure.
    let mut state = ChatState::new();
    reduce(&mut state, Input::TurnStarted);
    let out = reduce(
        &mut state,
        chat_shell_core::adapters::chatkit::input(unknown),
    );
    assert_eq!(out.warnings.len(), 1);
    assert!(state.turn.is_some());
}

#[test]
fn every_json_fixture_parses_into_its_response_type() {
    for name in fixture_names(".json") {
        let text = String::from_utf8(fixture(&name)).unwrap();
        match name.as_str() {
            n if n.starts_with("threads.get_by_id") || n == "threads.update.json" => {
                let t: Thread = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{n}: {e}"));
                if n.starts_with("threads.get_by_id") {
                    assert!(!t.items.unwrap().data.is_empty(), "{n}");
                }
            }
            n if n.starts_with("threads.list") => {
                let p: Page<Thread> = serde_json::from_str(&text).unwrap();
                assert!(!p.data.is_empty(), "{n}");
            }
            n if n.starts_with("items.list") => {
                let p: Page<ThreadItem> = serde_json::from_str(&text).unwrap();
                assert!(!p.data.is_empty(), "{n}");
                assert!(
                    p.data.iter().all(|i| !matches!(i.kind, ItemKind::Other(_))),
                    "{n}"
                );
            }
            n if n.starts_with("attachments.create") => {
                let a: Attachment = serde_json::from_str(&text).unwrap();
                assert!(a.upload_descriptor.is_some(), "{n}");
            }
            "threads.sync_custom_action.json" => {
                let r: SyncCustomActionResponse = serde_json::from_str(&text).unwrap();
                assert!(r.updated_item.is_some());
            }
            "items.feedback.json" | "threads.delete.json" => {
                let v: serde_json::Value = serde_json::from_str(&text).unwrap();
                assert!(v.as_object().unwrap().is_empty());
            }
            other => panic!("no response type for fixture {other}"),
        }
    }
}

#[test]
fn official_fixtures_contain_no_unknown_types() {
    for name in fixture_names(".sse") {
        let text = String::from_utf8(fixture(&name)).unwrap();
        for line in text.lines().filter_map(|l| l.strip_prefix("data: ")) {
            let debug = format!(
                "{:?}",
                decode_event(line).unwrap_or_else(|e| panic!("{name}: {e}"))
            );
            assert!(!debug.contains("Other(Unknown"), "{name}: {line}");
        }
    }
}

#[test]
fn hydration_then_older_pages_keep_order() {
    let thread: Thread = serde_json::from_slice(&fixture("threads.get_by_id.json")).unwrap();
    let first_ids: Vec<ItemId> = thread
        .items
        .as_ref()
        .unwrap()
        .data
        .iter()
        .map(|i| i.id.clone())
        .collect();
    let mut state = ChatState::new();
    reduce(&mut state, chatkit_adapter::thread_loaded(thread));
    let ids: Vec<ItemId> = state.items().iter().map(|i| i.entry.id.clone()).collect();
    assert_eq!(ids, first_ids);
    let older = Page {
        data: vec![
            serde_json::from_str(r#"{"id":"old2","type":"end_of_turn"}"#).unwrap(),
            serde_json::from_str(r#"{"id":"old1","type":"end_of_turn"}"#).unwrap(),
        ],
        has_more: false,
        after: None,
    };
    reduce(&mut state, chatkit_adapter::older_items(older));
    let ids: Vec<&str> = state.items().iter().map(|i| i.entry.id.as_str()).collect();
    assert_eq!(&ids[..2], ["old1", "old2"]);
}

#[test]
fn stop_is_offered_only_after_the_server_spoke_and_allowed_it() {
    let mut state = ChatState::new();
    reduce(
        &mut state,
        Input::SendStarted(OutgoingMessage {
            content: Vec::new(),
            text: "nocancel".into(),
            ..Default::default()
        }),
    );
    assert!(
        !state.turn.as_ref().unwrap().can_cancel(),
        "no Stop before the server said anything"
    );
    let options =
        decode_event(r#"{"type":"stream_options","stream_options":{"allow_cancel":false}}"#)
            .unwrap();
    reduce(
        &mut state,
        chat_shell_core::adapters::chatkit::input(options),
    );
    assert!(!state.turn.as_ref().unwrap().can_cancel());
    // The fork never sends stream_options: its first event makes Stop available.
    let mut fork = ChatState::new();
    reduce(&mut fork, Input::TurnStarted);
    let changes = fork.take_changes();
    assert!(changes.turn);
    reduce(
        &mut fork,
        chat_shell_core::adapters::chatkit::input(
            decode_event(r#"{"type":"progress_update","text":"…"}"#).unwrap(),
        ),
    );
    assert!(fork.turn.as_ref().unwrap().can_cancel());
    assert!(
        fork.take_changes().turn,
        "the view learns that Stop is now available"
    );
}

#[test]
fn streamed_items_are_live_and_loaded_ones_are_not() {
    let (state, _) = replay_message("markdown.sse", "markdown");
    let answer = state
        .items()
        .iter()
        .find(|i| matches!(i.entry.kind, EntryKind::AssistantText(_)))
        .unwrap();
    assert!(answer.live);
    let thread: Thread = serde_json::from_slice(&fixture("threads.get_by_id.json")).unwrap();
    let mut loaded = ChatState::new();
    reduce(&mut loaded, chatkit_adapter::thread_loaded(thread));
    assert!(loaded.items().iter().all(|i| !i.live));
}
