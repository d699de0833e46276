//! Every UI string in one table: English defaults, built-in locales, and per-string
//! overrides from the host page. Views ask for a [`Text`] key, never hard-code words.

use std::collections::HashMap;

macro_rules! texts {
    ($($key:ident = $name:literal => $en:literal,)+) => {
        /// A UI string. `name()` is the key hosts use in overrides.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Text { $($key,)+ }

        impl Text {
            pub const ALL: &'static [Text] = &[$(Text::$key,)+];

            /// The key in override objects, e.g. `"send"`.
            pub fn name(self) -> &'static str {
                match self { $(Text::$key => $name,)+ }
            }

            /// The English default.
            pub fn english(self) -> &'static str {
                match self { $(Text::$key => $en,)+ }
            }

            pub fn from_name(name: &str) -> Option<Text> {
                match name { $($name => Some(Text::$key),)+ _ => None }
            }
        }
    };
}

texts! {
    Send = "send" => "Send",
    Stop = "stop" => "Stop",
    Retry = "retry" => "Retry",
    Copy = "copy" => "Copy",
    Copied = "copied" => "Copied",
    CopyCode = "copy_code" => "Copy code",
    GoodResponse = "good_response" => "Good response",
    BadResponse = "bad_response" => "Bad response",
    ScrollToBottom = "scroll_to_bottom" => "Scroll to bottom",
    NewChat = "new_chat" => "New chat",
    History = "history" => "History",
    ComposerLabel = "composer_label" => "Message",
    ComposerPlaceholder = "composer_placeholder" => "Message the assistant",
    Greeting = "greeting" => "How can I help you today?",
    Conversation = "conversation" => "Conversation",
    YouSaid = "you_said" => "You said",
    AssistantSaid = "assistant_said" => "Assistant said",
    AssistantAnswering = "assistant_answering" => "Assistant is answering",
    AnswerStopped = "answer_stopped" => "Assistant's answer (stopped)",
    AnswerIncomplete = "answer_incomplete" => "Assistant's answer (incomplete)",
    Stopped = "stopped" => "Stopped",
    Sources = "sources" => "Sources",
    DismissNotice = "dismiss_notice" => "Dismiss notice",
    Unsupported = "unsupported" => "Unsupported content",
    ThreadClosed = "thread_closed" => "This conversation is closed.",
    GeneratingImage = "generating_image" => "Generating image",
    GeneratedImage = "generated_image" => "Generated image",
    WorkedFor = "worked_for" => "Worked for {seconds}s",
    Working = "working" => "Working…",
    Worked = "worked" => "Worked",
    Attachments = "attachments" => "Attachments",
    AddAttachment = "add_attachment" => "Add attachment",
    Remove = "remove" => "Remove {name}",
    Approve = "approve" => "Approve",
    Reject = "reject" => "Reject",
    Submit = "submit" => "Submit",
    Skip = "skip" => "Skip",
}

/// Built-in translations (beyond English), by language tag.
const LOCALES: &[(&str, &[(Text, &str)])] = &[
    (
        "fr",
        &[
            (Text::Send, "Envoyer"),
            (Text::Stop, "Arrêter"),
            (Text::Retry, "Réessayer"),
            (Text::Copy, "Copier"),
            (Text::Copied, "Copié"),
            (Text::CopyCode, "Copier le code"),
            (Text::GoodResponse, "Bonne réponse"),
            (Text::BadResponse, "Mauvaise réponse"),
            (Text::ScrollToBottom, "Aller en bas"),
            (Text::NewChat, "Nouvelle conversation"),
            (Text::History, "Historique"),
            (Text::ComposerLabel, "Message"),
            (Text::ComposerPlaceholder, "Écrire à l'assistant"),
            (Text::Greeting, "Comment puis-je vous aider ?"),
            (Text::Stopped, "Arrêté"),
            (Text::Sources, "Sources"),
        ],
    ),
    (
        "de",
        &[
            (Text::Send, "Senden"),
            (Text::Stop, "Stopp"),
            (Text::Retry, "Erneut versuchen"),
            (Text::Copy, "Kopieren"),
            (Text::Copied, "Kopiert"),
            (Text::NewChat, "Neuer Chat"),
            (Text::History, "Verlauf"),
            (Text::ComposerLabel, "Nachricht"),
            (Text::ComposerPlaceholder, "Nachricht an den Assistenten"),
            (Text::Greeting, "Wie kann ich helfen?"),
            (Text::Stopped, "Gestoppt"),
            (Text::Sources, "Quellen"),
        ],
    ),
    (
        "ar",
        &[
            (Text::Send, "إرسال"),
            (Text::Stop, "إيقاف"),
            (Text::Retry, "إعادة المحاولة"),
            (Text::NewChat, "محادثة جديدة"),
            (Text::ComposerLabel, "رسالة"),
            (Text::Greeting, "كيف يمكنني مساعدتك اليوم؟"),
        ],
    ),
];

/// Languages written right to left (by primary subtag).
const RTL: &[&str] = &["ar", "fa", "he", "ur", "ps", "sd", "yi", "dv", "ckb"];

/// The strings of one element: English, then its locale, then the host's overrides.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Strings {
    locale: String,
    overrides: HashMap<Text, String>,
}

impl Strings {
    /// Strings for `locale` (e.g. `fr`, `fr-CA`: the primary subtag picks the table).
    pub fn new(locale: &str) -> Self {
        let primary = primary_subtag(locale);
        let overrides = LOCALES
            .iter()
            .find(|(tag, _)| *tag == primary)
            .map(|(_, table)| table.iter().map(|(k, v)| (*k, (*v).to_owned())).collect())
            .unwrap_or_default();
        Strings {
            locale: locale.to_owned(),
            overrides,
        }
    }

    /// Apply host overrides: `{"send": "Go"}`, or per locale `{"fr": {"send": "Vas-y"}}`
    /// (the entry for this element's locale wins). Unknown keys are ignored.
    pub fn with_overrides(mut self, overrides: &serde_json::Value) -> Self {
        let Some(map) = overrides.as_object() else {
            return self;
        };
        let primary = primary_subtag(&self.locale).to_owned();
        for (key, value) in map {
            if let (Some(text), Some(s)) = (Text::from_name(key), value.as_str()) {
                self.overrides.insert(text, s.to_owned());
            }
        }
        for tag in [primary.as_str(), self.locale.as_str()] {
            if let Some(per_locale) = map.get(tag).and_then(|v| v.as_object()) {
                for (key, value) in per_locale {
                    if let (Some(text), Some(s)) = (Text::from_name(key), value.as_str()) {
                        self.overrides.insert(text, s.to_owned());
                    }
                }
            }
        }
        self
    }

    pub fn get(&self, text: Text) -> &str {
        self.overrides
            .get(&text)
            .map_or(text.english(), String::as_str)
    }

    /// `get` with `{name}` placeholders filled in.
    pub fn format(&self, text: Text, args: &[(&str, &str)]) -> String {
        let mut out = self.get(text).to_owned();
        for (name, value) in args {
            out = out.replace(&format!("{{{name}}}"), value);
        }
        out
    }

    /// Text direction for the locale: `rtl` or `ltr`.
    pub fn direction(&self) -> &'static str {
        if RTL.contains(&primary_subtag(&self.locale)) {
            "rtl"
        } else {
            "ltr"
        }
    }
}

fn primary_subtag(locale: &str) -> &str {
    locale.split(['-', '_']).next().unwrap_or("").trim()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn english_by_default_and_every_key_round_trips() {
        let s = Strings::new("");
        assert_eq!(s.get(Text::Send), "Send");
        for t in Text::ALL {
            assert_eq!(Text::from_name(t.name()), Some(*t));
            assert!(!t.english().is_empty());
        }
    }

    #[test]
    fn locale_tables_then_overrides() {
        let fr = Strings::new("fr-CA");
        assert_eq!(fr.get(Text::Send), "Envoyer");
        assert_eq!(
            fr.get(Text::Unsupported),
            "Unsupported content",
            "missing → English"
        );
        let custom = Strings::new("fr").with_overrides(
            &json!({"send": "Go", "fr": {"stop": "Halte"}, "de": {"stop": "Nein"}, "bogus": "x"}),
        );
        assert_eq!(custom.get(Text::Send), "Go");
        assert_eq!(custom.get(Text::Stop), "Halte");
        assert_eq!(
            Strings::new("xx")
                .with_overrides(&json!(3))
                .get(Text::Retry),
            "Retry"
        );
    }

    #[test]
    fn placeholders_and_direction() {
        let s = Strings::new("en");
        assert_eq!(s.format(Text::Remove, &[("name", "a.png")]), "Remove a.png");
        assert_eq!(
            s.format(Text::WorkedFor, &[("seconds", "12")]),
            "Worked for 12s"
        );
        assert_eq!(Strings::new("ar").direction(), "rtl");
        assert_eq!(Strings::new("he-IL").direction(), "rtl");
        assert_eq!(Strings::new("en-US").direction(), "ltr");
    }
}
