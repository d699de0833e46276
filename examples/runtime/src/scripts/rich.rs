//! Scenarios of rich items: sources and annotations, a generated image, a streamed widget,
//! structured questions, a fork.

use super::png::sample_png;
use super::tasks::{custom_task, file_source, url_source};
use super::texts::word_chunks;
use super::widgets::{widget, widget_item};
use super::{object, Script};
use crate::store::now_iso;
use chat_shell_core::protocol::chatkit::{
    Annotation, AssistantContent, AssistantMessage, ChoiceOption, ClientWidget, EntitySource,
    GeneratedImage, GeneratedImageItem, GeneratedImageUpdated, ItemKind, ItemUpdate, Source,
    SourceKind, StatusIndicator, StructuredInput, StructuredInputField, StructuredInputStatus,
    TaskItem, TextDelta, WidgetComponentUpdated, WidgetItem, WidgetRootUpdated, WidgetTextDelta,
};
use serde_json::{json, Value};

pub(super) fn annotations(s: &mut Script<'_>) {
    let text = "ChatKit is documented on GitHub [1], the spec file is attached [2], and the account entity is ACME [3].";
    // Each marker's annotation points just after it, like the SDK fixture.
    let after = |marker: &str| text.find(marker).map(|i| (i + marker.len()) as u64);
    let entity = Source {
        title: "ACME Corp".into(),
        description: Some("customer account".into()),
        timestamp: None,
        group: None,
        kind: SourceKind::Entity(EntitySource {
            id: "acct_42".into(),
            icon: Some("suitcase".into()),
            label: Some("Account".into()),
            inline_label: Some("ACME".into()),
            interactive: true,
            data: object(json!({ "account_id": 42, "tier": "gold" })),
        }),
    };
    let mut github = url_source(
        "openai/chatkit-python",
        "https://github.com/openai/chatkit-python",
        Some("github.com"),
        None,
    );
    github.description = Some("SDK source".into());
    let annotation = |source: Source, index: Option<u64>| Annotation {
        kind: "annotation".into(),
        source,
        index,
    };
    let list = vec![
        annotation(github, after("[1]")),
        annotation(
            file_source("Protocol spec", "spec.md", Some("attached file")),
            after("[2]"),
        ),
        annotation(entity, after("[3]")),
        annotation(
            url_source(
                "No index example",
                "https://example.com/no-index",
                None,
                Some("extra"),
            ),
            None,
        ),
    ];
    let pace = s.pace();
    s.message(text, word_chunks(text), pace, list);
}

pub(super) fn image(s: &mut Script<'_>) {
    let mut item = s.item(
        "msg",
        ItemKind::GeneratedImage(GeneratedImageItem { image: None }),
    );
    s.added(&item);
    let image_id = s.id("img").0;
    let beat = s.beat();
    let stages = [(8, Some(0.33)), (4, Some(0.66)), (1, None)];
    let mut last = None;
    for (block, progress) in stages {
        let image = GeneratedImage {
            id: image_id.clone(),
            url: sample_png(block),
        };
        s.wait(beat).update(
            &item.id,
            ItemUpdate::GeneratedImageUpdated(GeneratedImageUpdated {
                image: image.clone(),
                progress,
            }),
        );
        last = Some(image);
    }
    item.kind = ItemKind::GeneratedImage(GeneratedImageItem { image: last });
    s.done(&item);
    s.text("An image generated in three steps (33 %, 66 %, final).");
}

pub(super) fn widget_stream(s: &mut Script<'_>) {
    let pace = s.pace();
    let card = |title: &str, text: &str, text_streaming: bool, md: &str, badge: Value| {
        widget(json!({
            "type": "Card", "key": "ws", "children": [
                {"id": "ws_title", "type": "Title", "value": title},
                {"id": "ws_text", "type": "Text", "value": text, "streaming": text_streaming},
                {"id": "ws_md", "type": "Markdown", "value": md},
                badge,
            ]
        }))
    };
    let running =
        json!({"id": "ws_badge", "type": "Badge", "label": "running", "color": "warning"});
    let finished = json!({"id": "ws_badge", "type": "Badge", "label": "done", "color": "success"});
    let mut item = widget_item(
        s,
        card("Streaming widget", "", true, "", running.clone()),
        None,
    );
    s.added(&item);
    let text = "Text streamed into a widget component, word by word.";
    for chunk in word_chunks(text) {
        s.wait(pace).update(
            &item.id,
            ItemUpdate::WidgetTextDelta(WidgetTextDelta {
                component_id: "ws_text".into(),
                delta: chunk,
                done: false,
            }),
        );
    }
    s.update(
        &item.id,
        ItemUpdate::WidgetRootUpdated(WidgetRootUpdated {
            widget: card("Streaming widget", text, false, "", running),
        }),
    );
    // Markdown streamed with done: true on every delta (the SDK does that when
    // `streaming` is unset); later deltas still append.
    let md = "**Markdown** streamed with `streaming` unset:\n\n- one\n- two\n";
    for chunk in word_chunks(md) {
        s.wait(pace).update(
            &item.id,
            ItemUpdate::WidgetTextDelta(WidgetTextDelta {
                component_id: "ws_md".into(),
                delta: chunk,
                done: true,
            }),
        );
    }
    s.update(
        &item.id,
        ItemUpdate::WidgetComponentUpdated(WidgetComponentUpdated {
            component_id: "ws_badge".into(),
            component: widget(finished.clone()),
        }),
    );
    let last = card(
        "Streaming widget (root replaced)",
        text,
        false,
        md,
        finished,
    );
    s.update(
        &item.id,
        ItemUpdate::WidgetRootUpdated(WidgetRootUpdated {
            widget: last.clone(),
        }),
    );
    item.kind = ItemKind::Widget(WidgetItem {
        widget: last,
        copy_text: Some(text.into()),
    });
    s.done(&item);
}

pub(super) fn structured_questions() -> StructuredInput {
    let options = |values: &[(&str, Option<&str>)]| {
        values
            .iter()
            .map(|(v, l)| ChoiceOption {
                value: (*v).into(),
                label: l.map(str::to_owned),
            })
            .collect::<Vec<_>>()
    };
    StructuredInput {
        status: StructuredInputStatus::Pending,
        inputs: vec![
            StructuredInputField {
                id: "color".into(),
                question: "Pick a color".into(),
                kind: "multiple_choice".into(),
                description: None,
                options: options(&[("red", None), ("green", None), ("blue", None)]),
                multiple: false,
                answer: None,
            },
            StructuredInputField {
                id: "toppings".into(),
                question: "Pick toppings".into(),
                kind: "multiple_choice".into(),
                description: None,
                options: options(&[
                    ("cheese", Some("Cheese")),
                    ("olives", Some("Olives")),
                    ("basil", Some("Fresh basil")),
                ]),
                multiple: true,
                answer: None,
            },
            StructuredInputField {
                id: "why".into(),
                question: "Why?".into(),
                kind: "freeform".into(),
                description: Some("Free text".into()),
                options: vec![],
                multiple: false,
                answer: None,
            },
        ],
        action_id: None,
    }
}

/// The fork's wire shape (`forkquirks.sse`): no stream_options, a task added twice under
/// one id, the first chunk inside `thread.item.added`, every later delta under a fresh
/// `itm_` id with a growing `content_index`, and an approval `client_widget`.
pub(super) fn fork(s: &mut Script<'_>) {
    let pace = s.pace();
    let beat = s.beat();
    s.progress(Some("atom"), "Processing your request ...");
    let call_id = s.id("call");
    let task = |title: &str, icon: &str| {
        ItemKind::Task(TaskItem {
            task: custom_task(StatusIndicator::None, title, icon, None),
        })
    };
    let mut t = s.item_with_id(
        call_id.clone(),
        task("Extracting data from the uploaded image...", "search"),
    );
    s.added(&t);
    t.kind = task(
        "Data extracted from the uploaded image",
        "check-circle-filled",
    );
    t.created_at = now_iso();
    s.wait(beat).added(&t);

    let text = "I've extracted the following details:\n\n| Field | Value |\n|---|---|\n| Payee | GORI |\n| Amount | 85.20 |\n";
    let chunks = word_chunks(text);
    let mut msg = s.item(
        "msg",
        ItemKind::AssistantMessage(AssistantMessage {
            content: vec![AssistantContent::text(chunks[0].clone())],
        }),
    );
    s.added(&msg);
    for (i, chunk) in chunks.into_iter().enumerate().skip(1) {
        let fresh = s.id("itm");
        s.wait(pace).update(
            &fresh,
            ItemUpdate::TextDelta(TextDelta {
                content_index: i,
                delta: chunk,
            }),
        );
    }
    msg.kind = ItemKind::AssistantMessage(AssistantMessage {
        content: vec![AssistantContent::text(text)],
    });
    s.done(&msg);
    let approval = s.item(
        "wdg",
        ItemKind::ClientWidget(ClientWidget {
            name: "tool_approval_request".into(),
            args: json!({
                "tool_name": "processPayment",
                "tool_args": {"account_id": "1010", "amount": 85.2},
                "call_id": call_id.0,
                "request_id": call_id.0,
            }),
        }),
    );
    s.done(&approval);
}
