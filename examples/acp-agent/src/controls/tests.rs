//! Unit tests of the session controls: refused and adjusted choices, the date format.

use super::*;

#[test]
fn refused_and_adjusted_choices() {
    let mut c = Controls::default();
    assert!(c
        .set("model", &json!(LOCKED_MODEL), false)
        .unwrap_err()
        .contains("not available"));
    assert_eq!(c.model, "scripted-fast");
    c.set("thought_level", &json!("high"), false).unwrap();
    assert_eq!(c.thought, "medium", "adjusted on the fast model");
    c.set("model", &json!("scripted-deep"), false).unwrap();
    c.set("thought_level", &json!("high"), false).unwrap();
    assert_eq!(c.thought, "high");
    assert!(c.set("auto_approve", &json!(true), false).is_err());
    assert!(c.set("auto_approve", &json!(true), true).is_ok());
    assert!(c.set("mode", &json!("nope"), false).is_err());
    assert!(c.set("verbosity", &json!("terse"), false).is_err());
}

#[test]
fn dates_are_iso() {
    let d = now();
    assert_eq!(d.len(), 20, "{d}");
    assert!(d.starts_with("20") && d.ends_with('Z'), "{d}");
}
