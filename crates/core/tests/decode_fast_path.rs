//! `decode_event` takes a shortcut for text deltas: it must give exactly what the general
//! (tagged-union) decoder gives, for every recorded event and for random deltas, and must
//! never take an event that is not a well-formed text delta.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use chat_shell_core::protocol::chatkit::{decode_event, StreamEvent};
use chat_shell_core::sse::{SseDecoder, SseFrame};
use common::*;
use proptest::prelude::*;
use serde_json::json;

/// The general path alone.
fn general(data: &str) -> Result<StreamEvent, String> {
    serde_json::from_str::<StreamEvent>(data).map_err(|e| e.to_string())
}

#[test]
fn every_recorded_event_decodes_as_the_general_path_does() {
    let mut deltas = 0;
    for name in fixture_names("sse") {
        let mut decoder = SseDecoder::new();
        let mut frames = decoder.push(&fixture(&name));
        frames.extend(decoder.finish());
        for frame in frames {
            let SseFrame::Event { data, .. } = frame else {
                continue;
            };
            deltas += usize::from(data.contains("content_part.text_delta"));
            assert_eq!(
                decode_event(&data).ok(),
                general(&data).ok(),
                "{name}: {data}"
            );
        }
    }
    assert!(
        deltas > 2000,
        "the fixtures hold the long answer's deltas ({deltas})"
    );
}

#[test]
fn near_misses_take_the_general_path() {
    for data in [
        // Another event type around a delta-typed update: not a delta event.
        json!({"type": "thread.item.added", "item_id": "m", "update": {"type": "assistant_message.content_part.text_delta", "delta": "x"}}),
        // A delta without its text, or with a wrong type: errors, as the general path says.
        json!({"type": "thread.item.updated", "item_id": "m", "update": {"type": "assistant_message.content_part.text_delta"}}),
        json!({"type": "thread.item.updated", "item_id": "m", "update": {"type": "assistant_message.content_part.text_delta", "delta": 3}}),
        json!({"type": "thread.item.updated", "item_id": "m", "update": {"type": "assistant_message.content_part.text_delta", "delta": "x", "content_index": null}}),
        // The tag inside the text of another update.
        json!({"type": "thread.item.updated", "item_id": "m", "update": {"type": "widget.streaming_text.value_delta", "component_id": "c", "delta": "\"assistant_message.content_part.text_delta\""}}),
    ] {
        let data = data.to_string();
        assert_eq!(decode_event(&data).ok(), general(&data).ok(), "{data}");
        assert_eq!(
            decode_event(&data).is_ok(),
            general(&data).is_ok(),
            "{data}"
        );
    }
}

proptest! {
    #[test]
    fn random_deltas_decode_as_the_general_path_does(
        delta in any::<String>(),
        index in proptest::option::of(0usize..5),
        id in "[a-z_0-9]{1,12}",
        extra in any::<bool>(),
    ) {
        let mut update = json!({"type": "assistant_message.content_part.text_delta", "delta": delta});
        if let Some(i) = index {
            update["content_index"] = json!(i);
        }
        if extra {
            update["unknown_field"] = json!({"nested": [1, 2]});
        }
        let data = json!({"type": "thread.item.updated", "item_id": id, "update": update}).to_string();
        let fast = decode_event(&data).expect("a delta decodes");
        prop_assert_eq!(Some(fast), general(&data).ok());
    }
}
