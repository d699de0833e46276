use super::answers::Scenario;
use super::png::sample_png;
use super::rich::structured_questions;
use super::texts::{even_chunks, long_text};
use super::widgets::{showcase_card, widget, widget_item};
use super::*;
use chat_shell_core::protocol::chatkit::decode_event;
use chat_shell_core::protocol::chatkit::{Action, ClientWidget, StructuredInputStatus};
use serde_json::json;

fn thread(store: &Store) -> Thread {
    store.user("test").create_thread().unwrap()
}

fn events(steps: &[Step]) -> Vec<StreamEvent> {
    steps
        .iter()
        .filter_map(|s| match s {
            Step::Emit { event, .. } => Some(event.clone()),
            _ => None,
        })
        .collect()
}

/// Serializes every event and decodes it back as a client would: no `Other` anywhere.
fn assert_round_trips(events: &[StreamEvent]) {
    for event in events {
        let json = serde_json::to_string(event).unwrap();
        let back = decode_event(&json).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(&back, event, "round trip of {json}");
        assert!(!matches!(back, StreamEvent::Other(_)), "{json}");
        let item = match &back {
            StreamEvent::ItemAdded(e) | StreamEvent::ItemDone(e) | StreamEvent::ItemReplaced(e) => {
                Some(&e.item)
            }
            _ => None,
        };
        if let Some(item) = item {
            assert!(!matches!(item.kind, ItemKind::Other(_)), "{json}");
        }
        if let StreamEvent::ItemUpdated(u) = &back {
            assert!(!matches!(u.update, ItemUpdate::Other(_)), "{json}");
        }
    }
}

#[test]
fn keywords_pick_scenarios() {
    assert_eq!(Scenario::pick("hello"), Scenario::Markdown);
    assert_eq!(Scenario::pick("hello markdown"), Scenario::Markdown);
    assert_eq!(Scenario::pick("Show me a WIDGET"), Scenario::Widget);
    assert_eq!(Scenario::pick("widgets please"), Scenario::Widget);
    assert_eq!(Scenario::pick("widgetstream"), Scenario::WidgetStream);
    assert_eq!(Scenario::pick("some information"), Scenario::Markdown);
    assert_eq!(Scenario::pick("a form widget"), Scenario::Form);
    assert_eq!(Scenario::pick("long fast"), Scenario::Long);
    assert_eq!(Scenario::pick("please error out"), Scenario::Error);
    assert_eq!(Scenario::pick("clock block"), Scenario::Markdown);
    assert_eq!(Scenario::pick("nocancel"), Scenario::NoCancel);
    assert_eq!(Scenario::pick("(fork)"), Scenario::Fork);
    assert_eq!(Scenario::pick("an agent run"), Scenario::Agent);
    assert_eq!(Scenario::pick("agents"), Scenario::Agent);
    assert_eq!(Scenario::pick("agentcut please"), Scenario::AgentCut);
    assert_eq!(Scenario::pick("ask permission"), Scenario::Permission);
    assert_eq!(Scenario::pick("reagent"), Scenario::Markdown);
}

#[test]
fn chunkers_keep_every_character() {
    let text = "Héllo **wörld**, a `table` | x |\n\n```rust\nfn x() {}\n```";
    for chunks in [word_chunks(text), ragged_chunks(text), even_chunks(text, 7)] {
        assert_eq!(chunks.concat(), text);
        assert!(chunks.iter().all(|c| !c.is_empty()));
    }
    let ragged = ragged_chunks(&default_markdown("hi"));
    let sizes: Vec<usize> = ragged.iter().map(|c| c.chars().count()).collect();
    assert!(
        sizes[..sizes.len() - 1]
            .iter()
            .all(|n| (4..=12).contains(n)),
        "{sizes:?}"
    );
    assert!(sizes.iter().collect::<std::collections::HashSet<_>>().len() > 3);
    assert_eq!(
        word_chunks("This answer  will\n\nfail"),
        ["This ", "answer  ", "will\n\n", "fail"]
    );
    assert_eq!(even_chunks("abcdefg", 3), ["abc", "de", "fg"]);
}

#[test]
fn long_text_is_about_100_kb_in_2000_deltas() {
    let text = long_text();
    assert!((100_000..120_000).contains(&text.len()), "{}", text.len());
    assert_eq!(text, long_text(), "deterministic");
    assert!(text.contains("```rust") && text.contains("| Metric |") && text.contains("\n- Point"));
    let chunks = even_chunks(&text, 2000);
    assert_eq!(chunks.len(), 2000);
    assert_eq!(chunks.concat(), text);
}

#[test]
fn titles_come_from_the_first_words() {
    assert_eq!(title_from("  hello\n world "), "hello world");
    assert_eq!(title_from(""), "New conversation");
    let t = title_from("Please explain how the streaming protocol handles cancellation of answers");
    assert!(t.ends_with('…') && t.chars().count() <= 41, "{t}");
    assert!(t.starts_with("Please explain how the streaming"));
}

#[test]
fn titles_drop_control_and_bidi_formatting_characters() {
    assert_eq!(
        title_from("read\0 me\u{1b}[2J now \u{202e}gpj.exe\r\nplease"),
        "read me[2J now gpj.exe please"
    );
    assert_eq!(title_from("\u{202e}\u{2066} \0"), "New conversation");
}

#[test]
fn every_scenario_builds_decodable_events() {
    let store = Store::open_in_memory().unwrap();
    for &(keyword, scenario) in KEYWORDS {
        let mut s = Script::new(&store, Duration::ZERO, thread(&store));
        let user = ItemId::from("msg_00000001");
        respond(&mut s, &user, keyword, 1);
        s.finish(keyword);
        let evs = events(s.steps());
        assert!(!evs.is_empty(), "{keyword}");
        assert_round_trips(&evs);
        let has_options = matches!(evs[0], StreamEvent::StreamOptions(_));
        assert_eq!(has_options, scenario != Scenario::Fork, "{keyword}");
        let ends_early = matches!(s.steps().last(), Some(Step::Drop { .. } | Step::Stall(_)))
            || matches!(evs.last(), Some(StreamEvent::Error(_)));
        let early = matches!(
            scenario,
            Scenario::Error | Scenario::Drop | Scenario::Stall | Scenario::AgentCut
        );
        assert_eq!(ends_early, early, "{keyword}");
        if !early {
            let titled = evs
                .iter()
                .any(|e| matches!(e, StreamEvent::ThreadUpdated(t) if t.thread.title.is_some()));
            assert!(titled, "{keyword} never titles the thread");
        }
    }
}

#[test]
fn error_fails_first_and_succeeds_on_retry() {
    let store = Store::open_in_memory().unwrap();
    let user = ItemId::from("msg_00000009");
    let mut s = Script::new(&store, Duration::ZERO, thread(&store));
    respond(&mut s, &user, "error", 1);
    let evs = events(s.steps());
    let Some(StreamEvent::Error(e)) = evs.last() else {
        panic!("no error at the end")
    };
    assert_eq!(e.code, "custom");
    assert!(e.allow_retry);
    assert_eq!(
        e.message.as_deref(),
        Some("The peer failed on purpose (attempt 1). Retry to succeed.")
    );
    assert!(
        !evs.iter().any(|e| matches!(e, StreamEvent::ItemDone(_))),
        "the partial item is never done"
    );
    let mut s = Script::new(&store, Duration::ZERO, thread(&store));
    respond(&mut s, &user, "error", 2);
    let evs = events(s.steps());
    let done = evs.iter().rev().find_map(|e| match e {
        StreamEvent::ItemDone(ItemEvent {
            item:
                ThreadItem {
                    kind: ItemKind::AssistantMessage(m),
                    ..
                },
        }) => Some(m.content[0].text.clone()),
        _ => None,
    });
    assert_eq!(
        done.as_deref(),
        Some("Retry succeeded (attempt 2 for user message `msg_00000009`).")
    );
}

#[test]
fn fork_deltas_use_fresh_ids_and_growing_indexes() {
    let store = Store::open_in_memory().unwrap();
    let mut s = Script::new(&store, Duration::ZERO, thread(&store));
    respond(&mut s, &ItemId::from("msg_1"), "fork", 1);
    let evs = events(s.steps());
    let deltas: Vec<(String, usize)> = evs
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ItemUpdated(ItemUpdatedEvent {
                item_id,
                update: ItemUpdate::TextDelta(d),
            }) => Some((item_id.0.clone(), d.content_index)),
            _ => None,
        })
        .collect();
    assert!(deltas.len() > 5);
    let ids: std::collections::HashSet<_> = deltas.iter().map(|(id, _)| id.clone()).collect();
    assert_eq!(ids.len(), deltas.len());
    assert!(ids.iter().all(|id| id.starts_with("itm_")));
    assert_eq!(
        deltas.iter().map(|d| d.1).collect::<Vec<_>>(),
        (1..=deltas.len()).collect::<Vec<_>>()
    );
    let task_ids: Vec<&ItemId> = evs
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ItemAdded(ItemEvent { item })
                if matches!(item.kind, ItemKind::Task(_)) =>
            {
                Some(&item.id)
            }
            _ => None,
        })
        .collect();
    assert_eq!(task_ids.len(), 2);
    assert_eq!(task_ids[0], task_ids[1]);
}

#[test]
fn continuations_answer_actions() {
    let store = Store::open_in_memory().unwrap();
    let th = thread(&store);
    // A confirm replaces the widget with its confirmed version.
    let mut s = Script::new(&store, Duration::ZERO, th.clone());
    let card = widget_item(&s, widget(showcase_card()), None);
    let confirm = Action {
        kind: "confirm".into(),
        payload: json!({}),
        handler: None,
        loading_behavior: None,
        streaming: None,
    };
    custom_action(&mut s, Some(&card), &confirm);
    let evs = events(s.steps());
    assert_round_trips(&evs);
    let Some(StreamEvent::ItemReplaced(r)) = evs.get(1) else {
        panic!("{evs:?}")
    };
    let json = serde_json::to_string(&r.item).unwrap();
    assert!(
        json.contains("Confirmed") && !json.contains("Sync +1"),
        "{json}"
    );
    // A sync counter click increments the count.
    let counter = Action {
        kind: "counter".into(),
        payload: json!({"count": 4}),
        handler: None,
        loading_behavior: None,
        streaming: Some(false),
    };
    let json = serde_json::to_string(&sync_action(&card, &counter)).unwrap();
    assert!(
        json.contains("Sync +1 (count=5)") && json.contains(r#""count":5"#),
        "{json}"
    );
    // A form submission lists the values.
    let mut s = Script::new(&store, Duration::ZERO, th.clone());
    let submit = Action {
        kind: "form.submit".into(),
        payload: json!({"form": "profile", "name": "Ada", "agree": true}),
        handler: None,
        loading_behavior: None,
        streaming: None,
    };
    custom_action(&mut s, Some(&card), &submit);
    let text = last_text(&events(s.steps()));
    assert!(
        text.contains("| name | Ada |") && text.contains("| agree | `true` |"),
        "{text}"
    );
    // An approval records the decision and answers.
    for (approved, word) in [(true, "Approved:"), (false, "Rejected:")] {
        let mut s = Script::new(&store, Duration::ZERO, th.clone());
        let approval = s.item(
            "wdg",
            ItemKind::ClientWidget(ClientWidget {
                name: "tool_approval_request".into(),
                args: json!({"tool_name": "send_payment", "call_id": "call_1"}),
            }),
        );
        let act = Action {
            kind: "approval".into(),
            payload: json!({"approved": approved, "call_id": "call_1", "request_id": null, "tool_name": "send_payment", "tool_args": "{\"amount\":42.5}"}),
            handler: Some("server".into()),
            loading_behavior: None,
            streaming: None,
        };
        custom_action(&mut s, Some(&approval), &act);
        let evs = events(s.steps());
        assert_round_trips(&evs);
        let decision = if approved { "approved" } else { "rejected" };
        assert!(evs.iter().any(|e| matches!(e, StreamEvent::ItemReplaced(r) if serde_json::to_string(&r.item).unwrap().contains(&format!(r#""decision":"{decision}""#)))));
        assert!(last_text(&evs).starts_with(word), "{}", last_text(&evs));
    }
    // A structured input answer is replaced and summarised.
    let mut s = Script::new(&store, Duration::ZERO, th);
    let mut questions = structured_questions();
    questions.status = StructuredInputStatus::Answered;
    questions.inputs[0].answer = Some(chat_shell_core::protocol::chatkit::StructuredAnswer {
        values: vec!["green".into()],
        skipped: false,
    });
    let item = s.item("msg", ItemKind::StructuredInput(questions));
    structured_answered(&mut s, &item);
    assert!(last_text(&events(s.steps())).contains("- **Pick a color** green"));
}

fn last_text(evs: &[StreamEvent]) -> String {
    evs.iter()
        .rev()
        .find_map(|e| match e {
            StreamEvent::ItemDone(ItemEvent {
                item:
                    ThreadItem {
                        kind: ItemKind::AssistantMessage(m),
                        ..
                    },
            }) => Some(m.content[0].text.clone()),
            _ => None,
        })
        .unwrap_or_default()
}

#[test]
fn sample_png_is_a_valid_png() {
    use base64::Engine as _;
    let mut seen = Vec::new();
    for block in [1, 4, 8] {
        let url = sample_png(block);
        let base64 = url.strip_prefix("data:image/png;base64,").expect(&url);
        let png = base64::engine::general_purpose::STANDARD
            .decode(base64)
            .unwrap();
        assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));
        // IHDR first: 48×32, 8-bit RGB.
        assert_eq!(&png[12..16], b"IHDR");
        assert_eq!(&png[16..29], [0, 0, 0, 48, 0, 0, 0, 32, 8, 2, 0, 0, 0]);
        // IEND last (its CRC is fixed).
        assert!(png.ends_with(b"\0\0\0\0IEND\xae\x42\x60\x82"));
        seen.push(png);
    }
    // Each stage differs, and the blurrier the smaller.
    assert!(seen[0].len() > seen[1].len() && seen[1].len() > seen[2].len());
    assert_eq!(sample_png(0), sample_png(1));
    assert_eq!(sample_png(5), sample_png(4));
}
