//! The form of an agent's question (ACP elicitation, `mode: "form"`): its `requestedSchema`
//! read as fields, the values a user entered checked as the schema says, and the `content`
//! of an accepted answer built from them with the schema's JSON types.
//!
//! ACP's schema is a flat object of primitive properties: strings (with a `format`), a
//! choice (`enum`, or `oneOf` of `{const, title}`), numbers and integers (`minimum`,
//! `maximum`), booleans, and arrays of choices (a multi-select, `minItems`, `maxItems`).
//! A property of another type is kept as [`Kind::Unsupported`]: shown as such, never as a
//! text box, and a required one blocks accepting the form.

use crate::strings::Text;
use serde_json::{Map, Number, Value};

/// What a field asks for.
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    /// A string; `format` is the schema's (`email`, `uri`, `date`, `date-time`…).
    Text {
        format: Option<String>,
    },
    /// One of these (value, title).
    Choice {
        options: Vec<(String, String)>,
    },
    Number {
        integer: bool,
        min: Option<f64>,
        max: Option<f64>,
    },
    Boolean,
    /// Some of these (value, title), between `min` and `max` of them.
    MultiChoice {
        options: Vec<(String, String)>,
        min: Option<usize>,
        max: Option<usize>,
    },
    /// A type this client does not know (`type_name` as the schema says it).
    Unsupported {
        type_name: String,
    },
}

/// One property of the schema.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    pub key: String,
    /// The title, or the key.
    pub label: String,
    /// The description.
    pub hint: Option<String>,
    pub required: bool,
    pub kind: Kind,
    pub min_length: Option<usize>,
    pub max_length: Option<usize>,
    /// The schema's `default`, if any.
    pub default: Option<Value>,
    /// A choice whose option values are numbers in the schema (sent back as numbers).
    pub options_numeric: bool,
}

/// What a user entered in a field: text (strings, choices and numbers as typed), a
/// checkbox, or the chosen values of a multi-select.
#[derive(Clone, Debug, PartialEq)]
pub enum FieldValue {
    Text(String),
    Bool(bool),
    Many(Vec<String>),
}

/// Why a field's value cannot be sent.
#[derive(Clone, Debug, PartialEq)]
pub enum FieldError {
    Required,
    TooShort(usize),
    TooLong(usize),
    BelowMin(f64),
    AboveMax(f64),
    NotInteger,
    NotNumber,
    NotAnOption,
    TooFew(usize),
    TooMany(usize),
    /// A required field this client cannot show.
    Unsupported,
}

impl FieldError {
    /// The string that says it, and its arguments.
    pub fn message(&self) -> (Text, Vec<(&'static str, String)>) {
        match self {
            FieldError::Required => (Text::FormRequired, vec![]),
            FieldError::TooShort(n) => (Text::FormTooShort, vec![("count", n.to_string())]),
            FieldError::TooLong(n) => (Text::FormTooLong, vec![("count", n.to_string())]),
            FieldError::BelowMin(m) => (Text::FormBelow, vec![("limit", number_text(*m))]),
            FieldError::AboveMax(m) => (Text::FormAbove, vec![("limit", number_text(*m))]),
            FieldError::NotInteger => (Text::FormNotAnInteger, vec![]),
            FieldError::NotNumber => (Text::FormNotANumber, vec![]),
            FieldError::NotAnOption => (Text::FormNotAChoice, vec![]),
            FieldError::TooFew(n) => (Text::FormTooFew, vec![("count", n.to_string())]),
            FieldError::TooMany(n) => (Text::FormTooMany, vec![("count", n.to_string())]),
            FieldError::Unsupported => (Text::ElicitationBlocked, vec![]),
        }
    }
}

/// A bound as a person writes it: `0`, `16`, `2.5`.
pub fn number_text(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        n.to_string()
    }
}

/// The fields of a `requestedSchema` (`None` or a schema without properties: no field).
pub fn fields(schema: Option<&Value>) -> Vec<Field> {
    let Some(schema) = schema else {
        return Vec::new();
    };
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    properties
        .iter()
        .map(|(key, p)| field(key, p, required.contains(&key.as_str())))
        .collect()
}

fn field(key: &str, p: &Value, required: bool) -> Field {
    let text = |name: &str| p.get(name).and_then(Value::as_str).map(str::to_owned);
    let count = |name: &str| {
        p.get(name)
            .and_then(Value::as_u64)
            .map(|n| usize::try_from(n).unwrap_or(usize::MAX))
    };
    let type_name = match p.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(other) => other.to_string(),
        // A choice may leave out its type.
        None if p.get("enum").is_some() || p.get("oneOf").is_some() => "string".to_owned(),
        None => String::new(),
    };
    let kind = match type_name.as_str() {
        "string" => match options(p) {
            Some(options) => Kind::Choice { options },
            None => Kind::Text {
                format: text("format"),
            },
        },
        "number" | "integer" => Kind::Number {
            integer: type_name == "integer",
            min: p.get("minimum").and_then(Value::as_f64),
            max: p.get("maximum").and_then(Value::as_f64),
        },
        "boolean" => Kind::Boolean,
        "array" => match p.get("items").and_then(options) {
            Some(options) => Kind::MultiChoice {
                options,
                min: count("minItems"),
                max: count("maxItems"),
            },
            None => Kind::Unsupported { type_name },
        },
        _ => Kind::Unsupported { type_name },
    };
    Field {
        key: key.to_owned(),
        label: text("title")
            .filter(|t| !t.trim().is_empty())
            .unwrap_or_else(|| key.to_owned()),
        hint: text("description").filter(|t| !t.trim().is_empty()),
        required,
        kind,
        min_length: count("minLength"),
        max_length: count("maxLength"),
        default: p.get("default").cloned(),
        options_numeric: [p.get("enum"), p.get("items").and_then(|i| i.get("enum"))]
            .into_iter()
            .flatten()
            .filter_map(Value::as_array)
            .any(|values| !values.is_empty() && values.iter().all(Value::is_number)),
    }
}

/// The (value, title) options of a choice: `enum` (titled by `enumNames` where given, else
/// by the value), `oneOf`/`anyOf` of `{const, title}`.
fn options(p: &Value) -> Option<Vec<(String, String)>> {
    if let Some(values) = p.get("enum").and_then(Value::as_array) {
        let names = p.get("enumNames").and_then(Value::as_array);
        return Some(
            values
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    let value = scalar_text(v);
                    let title = names
                        .and_then(|n| n.get(i))
                        .and_then(Value::as_str)
                        .map_or_else(|| value.clone(), str::to_owned);
                    (value, title)
                })
                .collect(),
        );
    }
    let list = p
        .get("oneOf")
        .or_else(|| p.get("anyOf"))
        .and_then(Value::as_array)?;
    Some(
        list.iter()
            .filter_map(|o| {
                let value = scalar_text(o.get("const")?);
                let title = o
                    .get("title")
                    .and_then(Value::as_str)
                    .map_or_else(|| value.clone(), str::to_owned);
                Some((value, title))
            })
            .collect(),
    )
}

fn scalar_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The value a field starts with: its default where the schema gives one that fits.
pub fn initial(field: &Field) -> FieldValue {
    let default = field.default.as_ref();
    match &field.kind {
        Kind::Boolean => FieldValue::Bool(default.and_then(Value::as_bool).unwrap_or(false)),
        Kind::MultiChoice { .. } => FieldValue::Many(
            default
                .and_then(Value::as_array)
                .map(|a| a.iter().map(scalar_text).collect())
                .unwrap_or_default(),
        ),
        _ => FieldValue::Text(
            default
                .filter(|d| !d.is_null() && !d.is_object() && !d.is_array())
                .map(scalar_text)
                .unwrap_or_default(),
        ),
    }
}

/// Whether the form can be accepted at all: not if a required field cannot be shown.
pub fn can_accept(fields: &[Field]) -> bool {
    !fields
        .iter()
        .any(|f| f.required && matches!(f.kind, Kind::Unsupported { .. }))
}

/// Each field's error (`None`: fine), in the fields' order. `values` is read by position; a
/// missing value counts as empty.
pub fn validate(fields: &[Field], values: &[FieldValue]) -> Vec<Option<FieldError>> {
    fields
        .iter()
        .enumerate()
        .map(|(i, f)| check(f, values.get(i)))
        .collect()
}

fn check(field: &Field, value: Option<&FieldValue>) -> Option<FieldError> {
    let text = match value {
        Some(FieldValue::Text(t)) => t.as_str(),
        _ => "",
    };
    match &field.kind {
        Kind::Unsupported { .. } => field.required.then_some(FieldError::Unsupported),
        Kind::Boolean => None,
        Kind::MultiChoice { options, min, max } => {
            let chosen: &[String] = match value {
                Some(FieldValue::Many(m)) => m,
                _ => &[],
            };
            if chosen.iter().any(|c| !options.iter().any(|(v, _)| v == c)) {
                return Some(FieldError::NotAnOption);
            }
            if chosen.is_empty() {
                return field.required.then_some(FieldError::Required);
            }
            match (min, max) {
                (Some(min), _) if chosen.len() < *min => Some(FieldError::TooFew(*min)),
                (_, Some(max)) if chosen.len() > *max => Some(FieldError::TooMany(*max)),
                _ => None,
            }
        }
        _ if text.trim().is_empty() => field.required.then_some(FieldError::Required),
        Kind::Text { .. } => {
            let length = text.chars().count();
            match (field.min_length, field.max_length) {
                (Some(min), _) if length < min => Some(FieldError::TooShort(min)),
                (_, Some(max)) if length > max => Some(FieldError::TooLong(max)),
                _ => None,
            }
        }
        Kind::Choice { options } => {
            (!options.iter().any(|(v, _)| v == text)).then_some(FieldError::NotAnOption)
        }
        Kind::Number { integer, min, max } => {
            let Ok(n) = text.trim().parse::<f64>() else {
                return Some(FieldError::NotNumber);
            };
            if !n.is_finite() {
                return Some(FieldError::NotNumber);
            }
            if *integer && n.fract() != 0.0 {
                return Some(FieldError::NotInteger);
            }
            match (min, max) {
                (Some(min), _) if n < *min => Some(FieldError::BelowMin(*min)),
                (_, Some(max)) if n > *max => Some(FieldError::AboveMax(*max)),
                _ => None,
            }
        }
    }
}

/// The `content` of an accepted answer: each field with a value, in its schema type (a
/// choice in the type of its option's value). Empty optional fields and unsupported ones
/// are left out. Call once [`validate`] found no error.
pub fn content(fields: &[Field], values: &[FieldValue]) -> Map<String, Value> {
    let mut out = Map::new();
    for (field, value) in fields.iter().zip(values) {
        let value = match (&field.kind, value) {
            (Kind::Unsupported { .. }, _) => continue,
            (Kind::Boolean, FieldValue::Bool(b)) => Value::Bool(*b),
            (Kind::MultiChoice { .. }, FieldValue::Many(m)) if m.is_empty() => continue,
            (Kind::MultiChoice { .. }, FieldValue::Many(m)) => {
                Value::Array(m.iter().map(|v| option_value(field, v)).collect())
            }
            (_, FieldValue::Text(t)) if t.trim().is_empty() => continue,
            (Kind::Number { integer, .. }, FieldValue::Text(t)) => {
                let Ok(n) = t.trim().parse::<f64>() else {
                    continue;
                };
                if *integer && n.fract() == 0.0 && n.abs() < 9.0e15 {
                    Value::Number(Number::from(n as i64))
                } else {
                    match Number::from_f64(n) {
                        Some(n) => Value::Number(n),
                        None => continue,
                    }
                }
            }
            (Kind::Choice { .. }, FieldValue::Text(t)) => option_value(field, t),
            (_, FieldValue::Text(t)) => Value::String(t.clone()),
            _ => continue,
        };
        out.insert(field.key.clone(), value);
    }
    out
}

/// A chosen option as the schema wrote it: `"rust"`, or `3` for an `enum` of numbers.
fn option_value(field: &Field, chosen: &str) -> Value {
    let numeric = field
        .options_numeric
        .then(|| serde_json::from_str::<Value>(chosen).ok())
        .flatten()
        .filter(Value::is_number);
    numeric.unwrap_or_else(|| Value::String(chosen.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn project() -> Value {
        json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "title": "Project name", "minLength": 1, "maxLength": 40},
                "language": {"type": "string", "title": "Language", "enum": ["rust", "python", "go"]},
                "license": {"type": "string", "title": "License", "oneOf": [
                    {"const": "mit", "title": "MIT"}, {"const": "apache-2.0", "title": "Apache 2.0"}]},
                "budget": {"type": "number", "title": "Budget (USD)", "minimum": 0},
                "workers": {"type": "integer", "title": "Workers", "minimum": 1, "maximum": 16},
                "tests": {"type": "boolean", "title": "Write tests", "default": true},
                "features": {"type": "array", "title": "Features",
                             "items": {"type": "string", "enum": ["cli", "web", "db"]}},
                "color": {"type": "color", "title": "Accent colour"},
                "email": {"type": "string", "format": "email", "description": "Where to write"}
            },
            "required": ["name", "language"]
        })
    }

    fn by_key<'a>(fields: &'a [Field], key: &str) -> (usize, &'a Field) {
        fields
            .iter()
            .enumerate()
            .find(|(_, f)| f.key == key)
            .expect(key)
    }

    #[test]
    fn form_schema_becomes_fields() {
        let fields = fields(Some(&project()));
        assert_eq!(fields.len(), 9);
        let (_, name) = by_key(&fields, "name");
        assert_eq!((name.label.as_str(), name.required), ("Project name", true));
        assert_eq!(name.kind, Kind::Text { format: None });
        assert_eq!((name.min_length, name.max_length), (Some(1), Some(40)));
        let (_, language) = by_key(&fields, "language");
        assert!(
            matches!(&language.kind, Kind::Choice { options } if options.len() == 3 && options[0] == ("rust".into(), "rust".into()))
        );
        let (_, license) = by_key(&fields, "license");
        assert!(
            matches!(&license.kind, Kind::Choice { options } if options[1] == ("apache-2.0".into(), "Apache 2.0".into()))
        );
        let (_, workers) = by_key(&fields, "workers");
        assert_eq!(
            workers.kind,
            Kind::Number {
                integer: true,
                min: Some(1.0),
                max: Some(16.0)
            }
        );
        let (_, budget) = by_key(&fields, "budget");
        assert_eq!(
            budget.kind,
            Kind::Number {
                integer: false,
                min: Some(0.0),
                max: None
            }
        );
        assert_eq!(by_key(&fields, "tests").1.kind, Kind::Boolean);
        assert!(
            matches!(&by_key(&fields, "features").1.kind, Kind::MultiChoice { options, .. } if options.len() == 3)
        );
        assert_eq!(
            by_key(&fields, "color").1.kind,
            Kind::Unsupported {
                type_name: "color".into()
            }
        );
        let (_, email) = by_key(&fields, "email");
        assert_eq!(
            email.kind,
            Kind::Text {
                format: Some("email".into())
            }
        );
        assert_eq!(
            (email.label.as_str(), email.hint.as_deref()),
            ("email", Some("Where to write"))
        );
        assert!(can_accept(&fields));
        assert!(super::fields(None).is_empty());
    }

    #[test]
    fn form_validation_and_content() {
        let fields = fields(Some(&project()));
        let mut values: Vec<FieldValue> = fields.iter().map(initial).collect();
        assert_eq!(values[by_key(&fields, "tests").0], FieldValue::Bool(true));
        let errors = validate(&fields, &values);
        assert_eq!(
            errors[by_key(&fields, "name").0],
            Some(FieldError::Required)
        );
        assert_eq!(
            errors[by_key(&fields, "language").0],
            Some(FieldError::Required)
        );
        assert_eq!(
            errors[by_key(&fields, "color").0],
            None,
            "optional unsupported"
        );
        values[by_key(&fields, "name").0] = FieldValue::Text("demo".into());
        values[by_key(&fields, "language").0] = FieldValue::Text("go".into());
        values[by_key(&fields, "workers").0] = FieldValue::Text("2.5".into());
        values[by_key(&fields, "budget").0] = FieldValue::Text("-1".into());
        let errors = validate(&fields, &values);
        assert_eq!(
            errors[by_key(&fields, "workers").0],
            Some(FieldError::NotInteger)
        );
        assert_eq!(
            errors[by_key(&fields, "budget").0],
            Some(FieldError::BelowMin(0.0))
        );
        values[by_key(&fields, "workers").0] = FieldValue::Text("17".into());
        assert_eq!(
            validate(&fields, &values)[by_key(&fields, "workers").0],
            Some(FieldError::AboveMax(16.0))
        );
        values[by_key(&fields, "workers").0] = FieldValue::Text("4".into());
        values[by_key(&fields, "budget").0] = FieldValue::Text("12.5".into());
        values[by_key(&fields, "features").0] = FieldValue::Many(vec!["cli".into(), "db".into()]);
        values[by_key(&fields, "name").0] = FieldValue::Text("x".repeat(41));
        assert_eq!(
            validate(&fields, &values)[by_key(&fields, "name").0],
            Some(FieldError::TooLong(40))
        );
        values[by_key(&fields, "name").0] = FieldValue::Text("demo".into());
        assert!(validate(&fields, &values).iter().all(Option::is_none));
        let content = Value::Object(content(&fields, &values));
        assert_eq!(
            content,
            json!({"name": "demo", "language": "go", "workers": 4, "budget": 12.5,
                   "tests": true, "features": ["cli", "db"]})
        );
    }

    #[test]
    fn form_required_unknown_field_blocks_accept() {
        let schema = json!({"properties": {"c": {"type": "color"}, "n": {"type": "integer", "enum": [1, 2]}}, "required": ["c"]});
        let fields = fields(Some(&schema));
        assert!(!can_accept(&fields));
        let errors = validate(
            &fields,
            &[
                FieldValue::Text(String::new()),
                FieldValue::Text("2".into()),
            ],
        );
        assert_eq!(errors[0], Some(FieldError::Unsupported));
        assert_eq!(
            errors[0].as_ref().map(|e| e.message().0),
            Some(Text::ElicitationBlocked)
        );
        // An integer type with an enum is a number field here; its value goes out as a number.
        let choice = json!({"properties": {"k": {"enum": [1, 2]}}});
        let fields = super::fields(Some(&choice));
        assert!(matches!(&fields[0].kind, Kind::Choice { .. }));
        assert_eq!(
            content(&fields, &[FieldValue::Text("2".into())])["k"],
            json!(2)
        );
        assert_eq!(number_text(16.0), "16");
        assert_eq!(number_text(2.5), "2.5");
    }

    proptest::proptest! {
        /// Whatever is typed or ticked, a form that validates sends values that keep the
        /// schema: an integer in range, a name within its lengths, a choice among the
        /// options, a budget not below its minimum.
        #[test]
        fn form_content_of_a_valid_form_keeps_the_schema(
            name in ".{0,44}",
            language in "(rust|python|go|cobol|)",
            workers in "[-0-9.e ]{0,6}",
            budget in "[-0-9.]{0,6}",
            features in proptest::collection::vec("(cli|web|db|x)", 0..4),
        ) {
            let fields = fields(Some(&project()));
            let values: Vec<FieldValue> = fields
                .iter()
                .map(|f| match f.key.as_str() {
                    "name" => FieldValue::Text(name.clone()),
                    "language" => FieldValue::Text(language.clone()),
                    "workers" => FieldValue::Text(workers.clone()),
                    "budget" => FieldValue::Text(budget.clone()),
                    "features" => FieldValue::Many(features.clone()),
                    _ => initial(f),
                })
                .collect();
            let errors = validate(&fields, &values);
            let fine = |key: &str| {
                fields
                    .iter()
                    .position(|f| f.key == key)
                    .is_some_and(|i| errors[i].is_none())
            };
            // A field without error sends a value that keeps its schema (or nothing).
            let content = content(&fields, &values);
            if let Some(n) = content.get("name").filter(|_| fine("name")) {
                let n = n.as_str().expect("a name").chars().count();
                proptest::prop_assert!((1..=40).contains(&n));
            }
            if let Some(l) = content.get("language").filter(|_| fine("language")) {
                proptest::prop_assert!(["rust", "python", "go"].contains(&l.as_str().expect("a language")));
            }
            if let Some(w) = content.get("workers").filter(|_| fine("workers")) {
                let w = w.as_i64().expect("an integer");
                proptest::prop_assert!((1..=16).contains(&w));
            }
            if let Some(b) = content.get("budget").filter(|_| fine("budget")) {
                proptest::prop_assert!(b.as_f64().expect("a number") >= 0.0);
            }
            if let Some(f) = content.get("features").filter(|_| fine("features")) {
                proptest::prop_assert!(f
                    .as_array()
                    .expect("a list")
                    .iter()
                    .all(|v| ["cli", "web", "db"].contains(&v.as_str().unwrap_or(""))));
            }
            // A required field without error is sent: empty is an error, never left out.
            proptest::prop_assert!(!fine("name") || content.contains_key("name"));
            proptest::prop_assert!(!fine("language") || content.contains_key("language"));
            proptest::prop_assert!(content.get("color").is_none(), "nothing for an unsupported field");
        }
    }
}
