//! Wire types from a parsed JSON value: `#[derive(Decode)]` (crates/decode-derive) writes a
//! straight-line decoder per type, a map lookup and a call per field, where serde's derive
//! would write visitors for every deserializer (about a fifth of the element's wasm). The
//! derive reads the types' `#[serde(…)]` attributes, so a field has one spelling both ways,
//! and gives each type a `serde::Deserialize` that goes through its decoder.
//!
//! Meanings follow serde's: unknown fields are ignored, a missing `Option` is `None`, a
//! `null` `Option` is `None`, a wrong JSON type is an error, numbers must fit. One
//! difference: a field present under its name and an alias reads the name (serde refuses
//! the object).

use serde::de::{Deserialize, Deserializer};
use serde_json::{Map, Value};
use std::fmt;

pub use chat_shell_decode_derive::Decode;

/// Why a value did not decode: the message, with the path of fields that led to it.
#[derive(Debug, Clone, PartialEq)]
pub struct Error(String);

impl Error {
    pub fn new(message: impl Into<String>) -> Self {
        Error(message.into())
    }

    #[inline(never)]
    pub fn missing(field: &str) -> Self {
        Error(format!("missing field `{field}`"))
    }

    pub fn unknown(variant: &str) -> Self {
        Error(format!("unknown variant `{variant}`"))
    }

    /// The error of a known variant of a `type`-tagged union whose body did not decode.
    #[inline(never)]
    pub fn in_variant(self, union: &str, tag: &str) -> Self {
        Error(format!("{union} `{tag}`: {}", self.0))
    }

    fn expected(what: &str, got: &Value) -> Self {
        let got = match got {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Number(_) => "a number",
            Value::String(_) => "a string",
            Value::Array(_) => "an array",
            Value::Object(_) => "an object",
        };
        Error(format!("invalid type: {got}, expected {what}"))
    }

    /// The same error, inside field `field`.
    #[inline(never)]
    pub fn at(self, field: &str) -> Self {
        Error(format!("{field}: {}", self.0))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

/// A type read from a parsed JSON value.
pub trait Decode: Sized {
    fn decode(value: &Value) -> Result<Self, Error>;
}

/// `serde::Deserialize` through [`Decode`]: what the derive gives each type.
pub fn deserialize<'de, D: Deserializer<'de>, T: Decode>(d: D) -> Result<T, D::Error> {
    let value = Value::deserialize(d)?;
    T::decode(&value).map_err(serde::de::Error::custom)
}

/// A value decoded from JSON text.
pub fn from_str<T: Decode>(text: &str) -> Result<T, Error> {
    let value: Value = serde_json::from_str(text).map_err(|e| Error(e.to_string()))?;
    T::decode(&value)
}

/// The fields of an object.
pub fn object(value: &Value) -> Result<&Map<String, Value>, Error> {
    value
        .as_object()
        .ok_or_else(|| Error::expected("an object", value))
}

/// The text of a string.
pub fn string(value: &Value) -> Result<&str, Error> {
    value
        .as_str()
        .ok_or_else(|| Error::expected("a string", value))
}

impl Decode for String {
    #[inline(never)]
    fn decode(value: &Value) -> Result<Self, Error> {
        string(value).map(str::to_owned)
    }
}

/// The JSON scalars, each read by its `Value` accessor.
macro_rules! scalar {
    ($($ty:ty => $read:ident, $what:literal);*) => {$(
        impl Decode for $ty {
            #[inline(never)]
            fn decode(value: &Value) -> Result<Self, Error> {
                value.$read().ok_or_else(|| Error::expected($what, value))
            }
        }
    )*};
}
scalar!(
    bool => as_bool, "a boolean";
    f64 => as_f64, "a number";
    u64 => as_u64, "an unsigned integer";
    i64 => as_i64, "an integer"
);

macro_rules! narrow {
    ($($ty:ty => $wide:ty),*) => {$(
        impl Decode for $ty {
            fn decode(value: &Value) -> Result<Self, Error> {
                <$ty>::try_from(<$wide>::decode(value)?)
                    .map_err(|_| Error::new(concat!("number out of range for ", stringify!($ty))))
            }
        }
    )*};
}
narrow!(u32 => u64, u16 => u64, u8 => u64, usize => u64, i32 => i64);

impl Decode for Value {
    #[inline(never)]
    fn decode(value: &Value) -> Result<Self, Error> {
        Ok(value.clone())
    }
}

impl Decode for Map<String, Value> {
    #[inline(never)]
    fn decode(value: &Value) -> Result<Self, Error> {
        object(value).cloned()
    }
}

impl<T: Decode> Decode for Option<T> {
    #[inline(never)]
    fn decode(value: &Value) -> Result<Self, Error> {
        match value {
            Value::Null => Ok(None),
            v => T::decode(v).map(Some),
        }
    }
}

impl<T: Decode> Decode for Vec<T> {
    #[inline(never)]
    fn decode(value: &Value) -> Result<Self, Error> {
        let items = value
            .as_array()
            .ok_or_else(|| Error::expected("an array", value))?;
        items.iter().map(T::decode).collect()
    }
}

impl<T: Decode> Decode for Box<T> {
    #[inline(never)]
    fn decode(value: &Value) -> Result<Self, Error> {
        T::decode(value).map(Box::new)
    }
}

/// `serde::Deserialize` through a hand-written `Decode` (the derive writes its own).
macro_rules! deserialize_by_decode {
    ($($ty:ty),*) => {$(
        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                $crate::decode::deserialize(d)
            }
        }
    )*};
}
pub(crate) use deserialize_by_decode;

/// `Decode` for types serde's derive still reads (shapes `derive(Decode)` does not take).
macro_rules! via_serde {
    ($($ty:ty),*) => {$(
        impl $crate::decode::Decode for $ty {
            fn decode(value: &serde_json::Value) -> Result<Self, $crate::decode::Error> {
                $crate::decode::from_serde(value)
            }
        }
    )*};
}
pub(crate) use via_serde;

/// For the few types serde's derive still reads (shapes `derive(Decode)` does not take: tagged
/// enums with bodies, untagged ones).
pub fn from_serde<T: serde::de::DeserializeOwned>(value: &Value) -> Result<T, Error> {
    T::deserialize(value).map_err(|e| Error(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn or_seven() -> u32 {
        7
    }

    fn null_is_zero(value: &Value) -> Result<u32, Error> {
        if value.is_null() {
            Ok(0)
        } else {
            u32::decode(value)
        }
    }

    #[derive(Debug, PartialEq, Decode)]
    #[serde(rename_all = "snake_case")]
    enum Mode {
        Fast,
        SlowAndSteady,
        #[serde(rename = "x.y")]
        Dotted,
    }

    /// One of each shape derive(Decode) takes, and its twin read by serde's own derive.
    macro_rules! twin {
        ($name:ident, $derive:path, $mode:ty, $with:literal) => {
            #[derive(Debug, PartialEq, $derive)]
            #[serde(rename_all = "camelCase")]
            struct $name {
                tool_call_id: String,
                maybe: Option<u64>,
                #[serde(default)]
                flag: bool,
                #[serde(default = "or_seven")]
                count: u32,
                #[serde(rename = "type", default)]
                kind: Option<$mode>,
                #[serde(default, alias = "older")]
                newer: Vec<i32>,
                #[serde(default, deserialize_with = $with)]
                zeroed: u32,
                ratio: Option<f64>,
            }
        };
    }
    twin!(Ours, Decode, Mode, "null_is_zero");

    #[derive(Debug, PartialEq, serde::Deserialize)]
    #[serde(rename_all = "snake_case")]
    enum SerdeMode {
        Fast,
        SlowAndSteady,
        #[serde(rename = "x.y")]
        Dotted,
    }
    fn serde_null_is_zero<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
        Ok(Option::<u32>::deserialize(d)?.unwrap_or(0))
    }
    twin!(Theirs, serde::Deserialize, SerdeMode, "serde_null_is_zero");

    fn mode(m: SerdeMode) -> Mode {
        match m {
            SerdeMode::Fast => Mode::Fast,
            SerdeMode::SlowAndSteady => Mode::SlowAndSteady,
            SerdeMode::Dotted => Mode::Dotted,
        }
    }

    fn same(theirs: Theirs) -> Ours {
        Ours {
            tool_call_id: theirs.tool_call_id,
            maybe: theirs.maybe,
            flag: theirs.flag,
            count: theirs.count,
            kind: theirs.kind.map(mode),
            newer: theirs.newer,
            zeroed: theirs.zeroed,
            ratio: theirs.ratio,
        }
    }

    /// A JSON value of any shape, small numbers and short strings, often of the right kind.
    fn any_json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            (-5i64..5_000_000_000).prop_map(Value::from),
            (-10.0f64..10.0).prop_map(Value::from),
            prop_oneof![
                Just("fast"),
                Just("slow_and_steady"),
                Just("x.y"),
                Just("Fast"),
                Just("")
            ]
            .prop_map(Value::from),
        ];
        leaf.prop_recursive(2, 8, 4, |inner| {
            prop::collection::vec(inner, 0..4).prop_map(Value::from)
        })
    }

    /// A field's value: mostly of the kind the field wants (`good`), sometimes anything.
    fn field(good: BoxedStrategy<Value>) -> impl Strategy<Value = Option<Value>> {
        prop::option::weighted(0.7, prop_oneof![4 => good, 1 => any_json()])
    }

    fn ints() -> BoxedStrategy<Value> {
        prop_oneof![
            (0u64..10).prop_map(Value::from),
            (-3i64..5_000_000_000).prop_map(Value::from)
        ]
        .boxed()
    }

    proptest! {
        /// derive(Decode) accepts exactly what serde's derive accepts, with the same value.
        #[test]
        fn decode_agrees_with_serde(
            fields in (
                field(prop_oneof![Just("c"), Just("")].prop_map(Value::from).boxed()),
                field(ints()),
                field(any::<bool>().prop_map(Value::from).boxed()),
                field(ints()),
                field(prop_oneof![Just("fast"), Just("slow_and_steady"), Just("x.y"), Just("Fast")]
                    .prop_map(Value::from).boxed()),
                field(prop::collection::vec(-3i64..3, 0..3).prop_map(Value::from).boxed()),
                field(prop::collection::vec(-3i64..3, 0..3).prop_map(Value::from).boxed()),
                field(prop_oneof![Just(Value::Null), ints()].boxed()),
                field(prop_oneof![(-10.0f64..10.0).prop_map(Value::from), ints()].boxed()),
                field(any_json().boxed()),
            ),
        ) {
            let keys = ["toolCallId", "maybe", "flag", "count", "type", "newer", "older", "zeroed",
                "ratio", "tool_call_id"];
            let (a, b, c, d, e, f, g, h, i, j) = fields;
            let object: Map<String, Value> = keys
                .iter()
                .zip([a, b, c, d, e, f, g, h, i, j])
                .filter_map(|(k, v)| Some(((*k).to_owned(), v?)))
                .collect();
            let value = Value::Object(object);
            let ours = Ours::decode(&value);
            if value.get("newer").is_some() && value.get("older").is_some() {
                // The one difference: serde refuses a name and its alias together.
                let newer = value.get("newer").map(Vec::<i32>::decode);
                if let (Ok(ours), Some(Ok(newer))) = (&ours, newer) {
                    prop_assert_eq!(&ours.newer, &newer);
                }
                return Ok(());
            }
            let theirs = Theirs::deserialize(&value);
            match (ours, theirs) {
                (Ok(a), Ok(b)) => prop_assert_eq!(a, same(b)),
                (Err(_), Err(_)) => {}
                (a, b) => prop_assert!(false, "{value}: ours {a:?}, serde {b:?}"),
            }
        }
    }

    macro_rules! unions {
        ($tagged:ident, $untagged:ident, $derive:path) => {
            #[derive(Debug, PartialEq, $derive)]
            #[serde(tag = "note", rename_all = "snake_case")]
            enum $tagged {
                WorkerDone {
                    agent_id: String,
                    #[serde(default)]
                    tools: Option<u64>,
                },
                #[serde(rename = "handed.off")]
                Handoff { to: String },
            }

            #[derive(Debug, PartialEq, $derive)]
            #[serde(untagged)]
            enum $untagged {
                Duration {
                    duration: f64,
                },
                Title {
                    title: String,
                    #[serde(default)]
                    icon: Option<String>,
                },
            }
        };
    }
    unions!(OurNote, OurSummary, Decode);
    unions!(SerdeNote, SerdeSummary, serde::Deserialize);

    proptest! {
        /// Tagged and untagged unions: the same verdicts and values as serde's.
        #[test]
        fn unions_agree_with_serde(
            note in field(prop_oneof![Just("worker_done"), Just("handed.off"), Just("handoff")]
                .prop_map(Value::from).boxed()),
            text in field(prop_oneof![Just("a"), Just("")].prop_map(Value::from).boxed()),
            number in field(ints()),
            keys in prop::sample::subsequence(vec!["agent_id", "tools", "to", "duration", "title", "icon"], 0..4),
        ) {
            let mut object = Map::new();
            if let Some(note) = note {
                object.insert("note".into(), note);
            }
            for key in keys {
                let v = if matches!(key, "tools" | "duration") { number.clone() } else { text.clone() };
                if let Some(v) = v {
                    object.insert(key.into(), v);
                }
            }
            let value = Value::Object(object);
            let ours = OurNote::decode(&value).map(|n| format!("{n:?}"));
            let theirs = SerdeNote::deserialize(&value).map(|n| format!("{n:?}"));
            prop_assert_eq!(ours.ok(), theirs.ok().map(|t| t.replacen("Serde", "Our", 1)), "{}", value);
            let ours = OurSummary::decode(&value).map(|n| format!("{n:?}"));
            let theirs = SerdeSummary::deserialize(&value).map(|n| format!("{n:?}"));
            prop_assert_eq!(ours.ok(), theirs.ok(), "{}", value);
        }
    }

    #[test]
    fn errors_name_the_field_and_what_was_wrong() {
        let missing = Ours::decode(&json!({})).unwrap_err();
        assert_eq!(missing.to_string(), "missing field `toolCallId`");
        let wrong = Ours::decode(&json!({"toolCallId": "c", "count": -1})).unwrap_err();
        assert_eq!(
            wrong.to_string(),
            "count: invalid type: a number, expected an unsigned integer"
        );
        let range =
            Ours::decode(&json!({"toolCallId": "c", "count": 5_000_000_000u64})).unwrap_err();
        assert_eq!(range.to_string(), "count: number out of range for u32");
        let variant = Ours::decode(&json!({"toolCallId": "c", "type": "Fast"})).unwrap_err();
        assert_eq!(variant.to_string(), "type: unknown variant `Fast`");
        assert!(
            Ours::decode(&json!([1, 2])).is_err(),
            "a struct is an object"
        );
    }

    #[test]
    fn defaults_aliases_and_nulls() {
        let ours = Ours::decode(&json!({"toolCallId": "c", "older": [1, 2], "zeroed": null,
            "maybe": null, "type": "x.y", "unknown": {"kept": "out"}}))
        .unwrap();
        assert_eq!(
            ours,
            Ours {
                tool_call_id: "c".into(),
                maybe: None,
                flag: false,
                count: 7,
                kind: Some(Mode::Dotted),
                newer: vec![1, 2],
                zeroed: 0,
                ratio: None,
            }
        );
        // Through serde, as a serde type holding a decoded one would.
        let via: Ours = serde_json::from_str(r#"{"toolCallId": "d", "ratio": 2}"#).unwrap();
        assert_eq!((via.tool_call_id.as_str(), via.ratio), ("d", Some(2.0)));
    }
}
