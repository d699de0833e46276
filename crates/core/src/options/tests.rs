use super::*;
use serde_json::json;

fn applied(settings: Vec<Setting>) -> Options {
    let mut options = Options::default();
    for s in settings {
        options.set(s);
    }
    options
}

#[test]
fn option_values_of_the_wrong_type_name_their_key() {
    for (key, value) in [
        ("endpoint", json!(3)),
        ("streamTimeout", json!(-1)),
        ("streamTimeout", json!("60")),
        ("maxEventBytes", json!(10)),
        ("greeting", json!(["hi"])),
        ("starterPrompts", json!({"prompt": "x"})),
        ("locale", json!(true)),
        ("strings", json!("fr")),
        ("metadata", json!([1])),
        ("attachments", json!({"maxSize": "big"})),
        ("attachments", json!({"enabled": "yes"})),
        ("attachments", json!(5)),
        ("resizable", json!("true")),
        ("persistSize", json!(1)),
        ("theme", json!(1)),
        ("composer", json!([])),
        ("composer", json!({"models": [{"label": "No id"}]})),
        ("composer", json!({"tools": {"id": "x"}})),
        ("composer", json!({"dictation": true})),
        ("composer", json!({"dictation": {"enabled": "yes"}})),
    ] {
        let err = Setting::from_option(key, &value).expect_err(key);
        assert!(err.0.contains(&format!("`{key}`")), "{key}: {}", err.0);
    }
}

#[test]
fn composer_models_and_tools_are_set_separately_and_read_back() {
    let models = json!([{"id": "fast", "label": "Fast", "default": true}]);
    let tools = json!([{"id": "search", "label": "Search", "shortLabel": "S"}]);
    let mut options = applied(
        Setting::from_option("composer", &json!({"models": models, "tools": tools})).unwrap(),
    );
    assert_eq!(options.composer_models[0].id, "fast");
    // Only the keys given change; other chatkit-js composer keys are ignored.
    for s in Setting::from_option("composer", &json!({"tools": null, "placeholder": "x"})).unwrap()
    {
        options.set(s);
    }
    assert!(options.composer_tools.is_empty());
    assert_eq!(options.composer_models.len(), 1);
    let back = options.to_json();
    assert_eq!(back["composer"]["models"], models);
    for s in Setting::from_option("composer", &Value::Null).unwrap() {
        options.set(s);
    }
    assert!(options.composer_models.is_empty() && options.composer_tools.is_empty());
    let back =
        applied(Setting::from_option("composer", &json!({"tools": tools})).unwrap()).to_json();
    assert_eq!(back["composer"]["tools"], tools);
}

#[test]
fn composer_max_length_is_a_count_or_none() {
    let options = applied(Setting::from_option("composer", &json!({"maxLength": 100})).unwrap());
    assert_eq!(options.composer_max_length, Some(100));
    assert_eq!(options.to_json()["composer"]["maxLength"], json!(100));
    for bad in [json!(0), json!(-1), json!(1.5), json!("10")] {
        assert!(
            Setting::from_option("composer", &json!({"maxLength": bad})).is_err(),
            "{bad}"
        );
    }
    let cleared = Setting::from_option("composer", &json!({"maxLength": null})).unwrap();
    let mut options = options;
    for s in cleared {
        options.set(s);
    }
    assert_eq!(options.composer_max_length, None);
}

#[test]
fn composer_dictation_is_chatkit_js_enabled_flag() {
    let on = json!({"dictation": {"enabled": true}});
    let mut options = applied(Setting::from_option("composer", &on).unwrap());
    assert!(options.composer_dictation);
    assert_eq!(
        options.to_json()["composer"]["dictation"],
        json!({"enabled": true})
    );
    // Other composer keys leave it alone; `enabled: null`, `{}` or `null` turn it off.
    for s in Setting::from_option("composer", &json!({"tools": []})).unwrap() {
        options.set(s);
    }
    assert!(options.composer_dictation);
    for off in [
        json!({"dictation": {"enabled": null}}),
        json!({"dictation": {}}),
        json!({"dictation": null}),
        Value::Null,
    ] {
        options.set(Setting::ComposerDictation(Some(true)));
        for s in Setting::from_option("composer", &off).unwrap() {
            options.set(s);
        }
        assert!(!options.composer_dictation, "{off}");
    }
    assert!(!Options::default().composer_dictation);
}

#[test]
fn null_restores_each_default() {
    let mut options = Options::default();
    for (key, value) in [
        ("endpoint", json!("/x")),
        ("streamTimeout", json!(5)),
        ("maxEventBytes", json!(4096)),
        ("greeting", json!("Hi")),
        ("placeholder", json!("Ask")),
        ("starterPrompts", json!([{"prompt": "p"}])),
        ("locale", json!("fr")),
        ("strings", json!({"send": "Go"})),
        ("metadata", json!({"a": 1})),
        (
            "attachments",
            json!({"enabled": false, "accept": ["image/png"], "maxSize": 5, "maxCount": 2}),
        ),
        ("resizable", json!(true)),
        ("persistSize", json!("k")),
        ("theme", json!("dark")),
    ] {
        for s in Setting::from_option(key, &value).unwrap() {
            options.set(s);
        }
        assert_ne!(options, Options::default(), "{key} changed something");
        for s in Setting::from_option(key, &Value::Null).unwrap() {
            options.set(s);
        }
        assert_eq!(
            options,
            Options::default(),
            "{key}: null restores the default"
        );
    }
}

#[test]
fn options_read_back_under_their_names() {
    let options = applied(
        [
            ("endpoint", json!("/chatkit")),
            ("streamTimeout", json!(12.5)),
            ("attachments", json!({"accept": "image/*", "maxCount": 3})),
            ("metadata", json!({"tenant": "acme"})),
        ]
        .iter()
        .flat_map(|(k, v)| Setting::from_option(k, v).unwrap())
        .collect(),
    );
    let back = options.to_json();
    assert_eq!(back["endpoint"], "/chatkit");
    assert_eq!(back["streamTimeout"], 12.5);
    assert_eq!(back["attachments"]["accept"], json!(["image/*"]));
    assert_eq!(back["attachments"]["maxCount"], 3);
    assert_eq!(back["metadata"], json!({"tenant": "acme"}));
    assert_eq!(options.stream_timeout_ms(), 12_500);
    assert_eq!(back["protocol"], "chatkit", "the default");
    let events = applied(Setting::from_option("protocol", &json!("events")).unwrap());
    assert_eq!(events.protocol, Protocol::Events);
    assert_eq!(events.to_json()["protocol"], "events");
    assert!(Setting::from_option("protocol", &json!("sse")).is_err());
    assert!(Setting::from_option("protocol", &json!(1)).is_err());
    // Function-valued and unknown keys are not plain options.
    assert_eq!(Setting::from_option("headers", &json!({})), Ok(vec![]));
    assert_eq!(Setting::from_option("nonsense", &json!(1)), Ok(vec![]));
}

#[test]
fn attributes_are_lenient_and_removal_restores_the_default() {
    let (setting, warning) = Setting::from_attribute("stream-timeout", Some("soon")).unwrap();
    assert_eq!(setting, Setting::StreamTimeout(None));
    assert!(warning.unwrap().contains("stream-timeout"));
    let (setting, warning) = Setting::from_attribute("max-attachments", Some(" 4 ")).unwrap();
    assert_eq!((setting, warning), (Setting::MaxAttachments(Some(4)), None));
    let (setting, _) = Setting::from_attribute("allow-attachments", Some("false")).unwrap();
    assert_eq!(setting, Setting::AttachmentsEnabled(Some(false)));
    let (setting, warning) = Setting::from_attribute("metadata", Some("[1]")).unwrap();
    assert_eq!(setting, Setting::Metadata(None));
    assert!(warning.is_some());
    let options = applied(vec![
        Setting::from_attribute("resizable", Some("")).unwrap().0,
        Setting::from_attribute("locale", Some("de")).unwrap().0,
    ]);
    assert!(options.resizable);
    assert_eq!(options.locale, "de");
    let removed = applied(vec![
        Setting::Resizable(Some(true)),
        Setting::from_attribute("resizable", None).unwrap().0,
    ]);
    assert!(!removed.resizable);
    assert!(Setting::from_attribute("theme", Some("dark")).is_none());
    let (setting, warning) = Setting::from_attribute("protocol", Some(" Events ")).unwrap();
    assert_eq!(
        (setting, warning),
        (Setting::Protocol(Some(Protocol::Events)), None)
    );
    let (setting, warning) = Setting::from_attribute("protocol", Some("acp")).unwrap();
    assert_eq!(setting, Setting::Protocol(None));
    assert!(warning.unwrap().contains("protocol"));
    // Every observed attribute maps onto a setting.
    for name in ATTRIBUTES {
        assert!(Setting::from_attribute(name, None).is_some(), "{name}");
    }
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
