//! Options a host page gives the element as attribute text: the start screen (greeting,
//! starter prompts) and the metadata sent with every request. Parsing is lenient: a
//! broken value falls back to the default and says why, it never breaks the element.

use crate::protocol::JsonMap;
use serde::Deserialize;
use serde_json::Value;

/// What the start screen says when the host does not set `greeting`.
pub const DEFAULT_GREETING: &str = "How can I help you today?";

/// One suggestion on the start screen: clicking it sends `prompt` as the first message.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct StarterPrompt {
    /// What the button shows (falls back to the prompt).
    #[serde(default)]
    pub title: String,
    pub prompt: String,
    /// An emoji or short symbol shown before the title, or an image URL.
    #[serde(default)]
    pub icon: Option<String>,
}

/// The greeting: the attribute's text, or the default when absent or blank.
pub fn greeting(value: Option<&str>) -> String {
    match value.map(str::trim) {
        Some(text) if !text.is_empty() => text.to_owned(),
        _ => DEFAULT_GREETING.to_owned(),
    }
}

/// The starter prompts from JSON: `[{"title": …, "prompt": …, "icon": …}]`. Entries
/// without a prompt are skipped; a value that is not such a list is an error (the caller
/// shows none and logs it).
pub fn parse_starter_prompts(json: &str) -> Result<Vec<StarterPrompt>, String> {
    if json.trim().is_empty() {
        return Ok(Vec::new());
    }
    let value: Value =
        serde_json::from_str(json).map_err(|e| format!("starter-prompts is not JSON: {e}"))?;
    let Value::Array(entries) = value else {
        return Err("starter-prompts must be a JSON array of {title, prompt, icon}".into());
    };
    Ok(entries
        .into_iter()
        .filter_map(|entry| serde_json::from_value::<StarterPrompt>(entry).ok())
        .filter(|p| !p.prompt.trim().is_empty())
        .map(|mut p| {
            if p.title.trim().is_empty() {
                p.title = p.prompt.clone();
            }
            p.icon = p.icon.filter(|i| !i.trim().is_empty());
            p
        })
        .collect())
}

/// The metadata object from JSON; blank means none. Anything but an object is an error.
pub fn parse_metadata(json: &str) -> Result<Option<JsonMap>, String> {
    if json.trim().is_empty() {
        return Ok(None);
    }
    match serde_json::from_str::<Value>(json) {
        Ok(Value::Object(map)) => Ok(Some(map)),
        Ok(_) => Err("metadata must be a JSON object".into()),
        Err(e) => Err(format!("metadata is not JSON: {e}")),
    }
}

/// The configured metadata with a message's own on top (its keys win).
pub fn merge_metadata(base: Option<&JsonMap>, message: Option<&JsonMap>) -> Option<JsonMap> {
    match (base, message) {
        (None, None) => None,
        (Some(b), None) => Some(b.clone()),
        (None, Some(m)) => Some(m.clone()),
        (Some(b), Some(m)) => {
            let mut merged = b.clone();
            merged.extend(m.iter().map(|(k, v)| (k.clone(), v.clone())));
            Some(merged)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn greeting_defaults_when_blank() {
        assert_eq!(greeting(None), DEFAULT_GREETING);
        assert_eq!(greeting(Some("  ")), DEFAULT_GREETING);
        assert_eq!(greeting(Some(" Hi there ")), "Hi there");
    }

    #[test]
    fn starter_prompts_parse_leniently() {
        let prompts = parse_starter_prompts(
            r#"[
                {"title": "Plan a trip", "prompt": "Plan a trip to Lisbon", "icon": "✈️"},
                {"prompt": "Summarize markdown"},
                {"title": "no prompt"},
                {"title": "blank", "prompt": "  "},
                "not an object",
                {"title": "t", "prompt": "p", "icon": ""}
            ]"#,
        )
        .unwrap();
        assert_eq!(
            prompts,
            [
                StarterPrompt {
                    title: "Plan a trip".into(),
                    prompt: "Plan a trip to Lisbon".into(),
                    icon: Some("✈️".into())
                },
                StarterPrompt {
                    title: "Summarize markdown".into(),
                    prompt: "Summarize markdown".into(),
                    icon: None
                },
                StarterPrompt {
                    title: "t".into(),
                    prompt: "p".into(),
                    icon: None
                },
            ]
        );
        assert_eq!(parse_starter_prompts(""), Ok(vec![]));
        assert!(parse_starter_prompts("{\"title\": 1}").is_err());
        assert!(parse_starter_prompts("[oops").is_err());
    }

    #[test]
    fn metadata_is_an_object_and_merges() {
        assert_eq!(parse_metadata(" "), Ok(None));
        assert!(parse_metadata("[1]").is_err());
        assert!(parse_metadata("{").is_err());
        let base = parse_metadata(r#"{"tenant": "acme", "lang": "en"}"#)
            .unwrap()
            .unwrap();
        let message = json!({"lang": "fr", "source": "starter"});
        let merged = merge_metadata(Some(&base), message.as_object()).unwrap();
        assert_eq!(
            Value::Object(merged),
            json!({"tenant": "acme", "lang": "fr", "source": "starter"})
        );
        assert_eq!(merge_metadata(None, None), None);
        assert_eq!(merge_metadata(Some(&base), None), Some(base.clone()));
    }
}
