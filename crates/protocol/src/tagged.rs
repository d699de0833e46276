//! Tolerant decoding of `type`-tagged unions: known tags decode strictly, unknown tags are
//! kept whole as [`Unknown`].

use super::decode::Decode;
use serde::Serialize;
use serde_json::Value;

/// A value whose `type` this client does not know, kept with all its fields.
#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
#[serde(transparent)]
pub struct Unknown(pub Value);

impl Unknown {
    /// The `type` tag the server used (empty when it sent none).
    pub fn type_name(&self) -> &str {
        self.0.get("type").and_then(Value::as_str).unwrap_or("")
    }
}

/// Implements `Deserialize` for an enum whose known variants are newtypes over structs
/// (decoded from the whole object, `type` included) and whose last variant is
/// `Other(Unknown)`. A known tag with a broken body is an error, never `Other`.
macro_rules! tolerant_tagged {
    ($enum:ident { $($tag:literal => $variant:ident),+ $(,)? }) => {
        impl $crate::decode::Decode for $enum {
            fn decode(value: &serde_json::Value) -> Result<Self, $crate::decode::Error> {
                let tag = value.get("type").and_then(serde_json::Value::as_str).unwrap_or("");
                match tag {
                    $($tag => $crate::decode::Decode::decode(value)
                        .map($enum::$variant)
                        .map_err(|e| e.in_variant(stringify!($enum), $tag)),)+
                    _ => Ok($enum::Other($crate::Unknown(value.clone()))),
                }
            }
        }

        $crate::decode::deserialize_by_decode!($enum);

        impl serde::Serialize for $enum {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                use serde::ser::SerializeMap as _;
                // Serialize the body, then put the tag in front of it.
                let (tag, body) = match self {
                    $($enum::$variant(v) => ($tag, serde_json::to_value(v).map_err(serde::ser::Error::custom)?),)+
                    $enum::Other(u) => return u.0.serialize(s),
                };
                let serde_json::Value::Object(fields) = body else {
                    return Err(serde::ser::Error::custom("tagged variant is not an object"));
                };
                let mut map = s.serialize_map(Some(fields.len() + 1))?;
                map.serialize_entry("type", tag)?;
                for (k, v) in fields.iter().filter(|(k, _)| k.as_str() != "type") {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    };
}
pub(crate) use tolerant_tagged;

/// `null` or absent both mean "use the default": the SDK omits fields, the fork sends null.
/// (For `deserialize_with`, with `default` for the absent case.)
pub(crate) fn null_as_default<T: Default + Decode>(
    value: &Value,
) -> Result<T, super::decode::Error> {
    match value {
        Value::Null => Ok(T::default()),
        v => T::decode(v),
    }
}
