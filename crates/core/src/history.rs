//! The thread history as the list shows it: a label per thread and relative dates.
//!
//! ChatKit timestamps are naive ISO 8601 (`2025-11-27T14:23:46.724911`, no zone); servers
//! write them in UTC, so they are read as UTC. Everything here is pure: "now" is passed in.

use crate::protocol::chatkit::{ItemKind, Thread, ThreadItem, UserMessage};
use crate::strings::{Strings, Text};

/// Longest label taken from a first message (the list shows one line).
const LABEL_CHARS: usize = 80;

/// The label of a thread in the list: its title, else the text of its first user message
/// (when the server sent items with the thread), else [`Text::Untitled`].
pub fn thread_label(thread: &Thread, strings: &Strings) -> String {
    if let Some(title) = thread.title.as_deref().map(str::trim) {
        if !title.is_empty() {
            return title.to_owned();
        }
    }
    thread
        .items
        .as_ref()
        .and_then(|page| preview(&page.data))
        .unwrap_or_else(|| strings.get(Text::Untitled).to_owned())
}

/// Whether a thread has a title of its own (else its label stands in for one).
pub fn has_title(thread: &Thread) -> bool {
    thread
        .title
        .as_deref()
        .is_some_and(|t| !t.trim().is_empty())
}

/// What tells an untitled thread apart in the list: its first visible user message, on
/// one line. Ghost messages are never shown, so they never name a thread.
pub fn preview(items: &[ThreadItem]) -> Option<String> {
    preview_of(items.iter().filter_map(|item| match &item.kind {
        ItemKind::UserMessage(m) => Some(m),
        _ => None,
    }))
}

/// [`preview`] of the user messages of a thread, in order.
pub fn preview_of<'a>(messages: impl IntoIterator<Item = &'a UserMessage>) -> Option<String> {
    messages
        .into_iter()
        .find(|m| !crate::model::is_ghost(m))
        .map(|m| one_line(&m.text()))
        .filter(|text| !text.is_empty())
}

/// Whitespace collapsed to single spaces, cut to [`LABEL_CHARS`] characters.
fn one_line(text: &str) -> String {
    let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match joined.char_indices().nth(LABEL_CHARS) {
        Some((end, _)) => format!("{}…", &joined[..end]),
        None => joined,
    }
}

/// Milliseconds since the Unix epoch of an ISO 8601 timestamp. A timestamp without a zone
/// is UTC; `Z` and `±hh:mm` offsets are honoured. `None` when it cannot be read.
pub fn parse_timestamp_ms(text: &str) -> Option<f64> {
    let text = text.trim();
    let (date, time) = text.split_once(['T', ' '])?;
    let mut date_parts = date.splitn(3, '-');
    let year: i64 = date_parts.next()?.parse().ok()?;
    let month: u32 = date_parts.next()?.parse().ok()?;
    let day: u32 = date_parts.next()?.parse().ok()?;
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    // Split off a zone: `Z`, or a sign after the seconds.
    let (clock, offset_minutes) = if let Some(clock) = time.strip_suffix(['Z', 'z']) {
        (clock, 0)
    } else if let Some(at) = time.rfind(['+', '-']) {
        let (clock, zone) = time.split_at(at);
        let sign = if zone.starts_with('-') { -1 } else { 1 };
        let zone = zone[1..].replace(':', "");
        if zone.len() != 4 || !zone.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let hours: i64 = zone[..2].parse().ok()?;
        let minutes: i64 = zone[2..].parse().ok()?;
        (clock, sign * (hours * 60 + minutes))
    } else {
        (time, 0)
    };
    let mut clock_parts = clock.splitn(3, ':');
    let hour: u32 = clock_parts.next()?.parse().ok()?;
    let minute: u32 = clock_parts.next()?.parse().ok()?;
    let seconds = crate::number::parse(clock_parts.next().unwrap_or("0"))?;
    if hour > 23 || minute > 59 || !(0.0..61.0).contains(&seconds) {
        return None;
    }
    let days = days_from_civil(year, month, day);
    let secs = days as f64 * 86_400.0 + f64::from(hour * 3600 + minute * 60) + seconds
        - (offset_minutes * 60) as f64;
    Some(secs * 1000.0)
}

/// Where the history list puts a conversation, by the day it was made in the reader's
/// time zone: today, yesterday, the seven days before, then by month.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DateGroup {
    Today,
    Yesterday,
    PreviousWeek,
    /// `month` 1..=12.
    Month {
        year: i64,
        month: u32,
    },
}

/// The group of a conversation made at `created_at`, seen at `now_ms`, in a time zone
/// `offset_minutes` behind UTC (JavaScript's `getTimezoneOffset`). `None` when the
/// timestamp cannot be read. A time in the future (clocks disagree) is today.
pub fn date_group(created_at: &str, now_ms: f64, offset_minutes: i64) -> Option<DateGroup> {
    let day = |ms: f64| ((ms / 1000.0 - (offset_minutes * 60) as f64) / 86_400.0).floor() as i64;
    let then = day(parse_timestamp_ms(created_at)?);
    Some(match day(now_ms) - then {
        i64::MIN..=0 => DateGroup::Today,
        1 => DateGroup::Yesterday,
        2..=7 => DateGroup::PreviousWeek,
        _ => {
            let (year, month, _) = civil_from_days(then);
            DateGroup::Month { year, month }
        }
    })
}

/// The date of a day number (days since 1970-01-01): `(year, month, day)` in the
/// proleptic Gregorian calendar; the inverse of [`days_from_civil`] (Howard Hinnant's).
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let m = i64::from(month);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// "just now", "2 minutes ago", "yesterday", "3 weeks ago", … for a timestamp, seen at
/// `now_ms` (milliseconds since the epoch). `None` when the timestamp cannot be read.
/// A time in the future (clocks disagree) reads as "just now". Words from `strings`.
pub fn relative_date(created_at: &str, now_ms: f64, strings: &Strings) -> Option<String> {
    let then = parse_timestamp_ms(created_at)?;
    let seconds = ((now_ms - then) / 1000.0).max(0.0).floor() as u64;
    const MINUTE: u64 = 60;
    const HOUR: u64 = 60 * MINUTE;
    const DAY: u64 = 24 * HOUR;
    // (one, many): "1 minute ago", "{count} minutes ago".
    let ago = |n: u64, (one, many): (Text, Text)| {
        if n == 1 {
            strings.get(one).to_owned()
        } else {
            strings.format(many, &[("count", &n.to_string())])
        }
    };
    Some(match seconds {
        s if s < MINUTE => strings.get(Text::JustNow).to_owned(),
        s if s < HOUR => ago(s / MINUTE, (Text::MinuteAgo, Text::MinutesAgo)),
        s if s < DAY => ago(s / HOUR, (Text::HourAgo, Text::HoursAgo)),
        s if s < 2 * DAY => strings.get(Text::Yesterday).to_owned(),
        // Two days at least: never "1 day ago".
        s if s < 7 * DAY => ago(s / DAY, (Text::DaysAgo, Text::DaysAgo)),
        s if s < 30 * DAY => ago(s / (7 * DAY), (Text::WeekAgo, Text::WeeksAgo)),
        s if s < 365 * DAY => ago(s / (30 * DAY), (Text::MonthAgo, Text::MonthsAgo)),
        s => ago(s / (365 * DAY), (Text::YearAgo, Text::YearsAgo)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversations_group_by_the_readers_day_then_by_month() {
        // 2026-03-15 10:00 UTC.
        let now = parse_timestamp_ms("2026-03-15T10:00:00Z").unwrap();
        let g = |t: &str, offset| date_group(t, now, offset);
        assert_eq!(g("2026-03-15T00:30:00", 0), Some(DateGroup::Today));
        assert_eq!(
            g("2026-03-16T08:00:00", 0),
            Some(DateGroup::Today),
            "the future"
        );
        assert_eq!(g("2026-03-14T23:59:00", 0), Some(DateGroup::Yesterday));
        // In UTC−11 (offset 660) it is 23:00 on the 14th: 00:30 UTC on the 15th was 13:30
        // on the 14th there (today), 10:00 UTC on the 14th was 23:00 on the 13th.
        assert_eq!(g("2026-03-15T00:30:00", 660), Some(DateGroup::Today));
        assert_eq!(g("2026-03-14T10:00:00", 660), Some(DateGroup::Yesterday));
        assert_eq!(g("2026-03-13T10:00:00", 660), Some(DateGroup::PreviousWeek));
        assert_eq!(g("2026-03-08T12:00:00", 0), Some(DateGroup::PreviousWeek));
        assert_eq!(
            g("2026-03-07T12:00:00", 0),
            Some(DateGroup::Month {
                year: 2026,
                month: 3
            })
        );
        assert_eq!(
            g("2025-12-31T23:00:00", 0),
            Some(DateGroup::Month {
                year: 2025,
                month: 12
            })
        );
        assert_eq!(g("not a date", 0), None);
        for days in [-1000, -1, 0, 1, 59, 60, 365, 10_957, 20_000] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days, "{days}");
        }
    }
    use crate::protocol::chatkit::{Page, ThreadItem};

    const T0: &str = "2025-11-27T14:23:46.724911";

    fn at(offset_secs: f64) -> f64 {
        parse_timestamp_ms(T0).unwrap() + offset_secs * 1000.0
    }

    #[test]
    fn a_preview_is_the_first_visible_user_message_on_one_line() {
        let item = |id: &str, kind: serde_json::Value| -> ThreadItem {
            let mut v = serde_json::json!({"id": id, "thread_id": "t", "created_at": T0});
            v.as_object_mut()
                .unwrap()
                .extend(kind.as_object().unwrap().clone());
            serde_json::from_value(v).unwrap()
        };
        let ghost = item(
            "a",
            serde_json::json!({"type": "user_message", "content": [{"type": "input_text", "text": "secret"}], "inference_options": {"ghost": true}}),
        );
        let answer = item(
            "b",
            serde_json::json!({"type": "assistant_message", "content": [{"type": "output_text", "text": "hi", "annotations": []}]}),
        );
        let first = item(
            "c",
            serde_json::json!({"type": "user_message", "content": [{"type": "input_text", "text": "  Plan a\n trip   to Lisbon "}]}),
        );
        let second = item(
            "d",
            serde_json::json!({"type": "user_message", "content": [{"type": "input_text", "text": "later"}]}),
        );
        assert_eq!(
            preview(&[ghost.clone(), answer.clone(), first, second]),
            Some("Plan a trip to Lisbon".into())
        );
        assert_eq!(preview(&[ghost, answer]), None);
        assert_eq!(preview(&[]), None);
    }

    #[test]
    fn naive_timestamps_are_utc() {
        assert_eq!(parse_timestamp_ms("1970-01-01T00:00:00"), Some(0.0));
        let ms = parse_timestamp_ms("2025-11-27T14:23:46.724911").unwrap();
        assert!((ms - 1_764_253_426_724.911).abs() < 0.01, "{ms}");
        assert_eq!(
            parse_timestamp_ms("2025-11-27T14:23:46.724911Z"),
            parse_timestamp_ms(T0)
        );
        assert_eq!(
            parse_timestamp_ms("2025-11-27T16:23:46.724911+02:00"),
            parse_timestamp_ms(T0)
        );
        assert_eq!(
            parse_timestamp_ms("2024-02-29 00:00"),
            Some(1_709_164_800_000.0)
        );
        assert_eq!(
            parse_timestamp_ms("1969-12-31T23:59:59"),
            Some(-1000.0),
            "before the epoch"
        );
    }

    #[test]
    fn unreadable_timestamps_are_none() {
        for bad in [
            "",
            "yesterday",
            "2025-13-01T00:00:00",
            "2025-11-27",
            "2025-11-27T25:00:00",
            "2025-11-27T10:00:00+2",
        ] {
            assert_eq!(parse_timestamp_ms(bad), None, "{bad}");
            assert_eq!(relative_date(bad, 0.0, &Strings::default()), None, "{bad}");
        }
    }

    #[test]
    fn relative_dates_read_naturally() {
        let cases = [
            (0.0, "just now"),
            (59.9, "just now"),
            (60.0, "1 minute ago"),
            (150.0, "2 minutes ago"),
            (3599.0, "59 minutes ago"),
            (3600.0, "1 hour ago"),
            (5.0 * 3600.0, "5 hours ago"),
            (30.0 * 3600.0, "yesterday"),
            (3.0 * 86_400.0, "3 days ago"),
            (8.0 * 86_400.0, "1 week ago"),
            (21.0 * 86_400.0, "3 weeks ago"),
            (65.0 * 86_400.0, "2 months ago"),
            (800.0 * 86_400.0, "2 years ago"),
            // A server clock ahead of ours.
            (-30.0, "just now"),
        ];
        for (offset, want) in cases {
            assert_eq!(
                relative_date(T0, at(offset), &Strings::default()).as_deref(),
                Some(want),
                "{offset}"
            );
        }
    }

    fn thread(title: Option<&str>, items: Option<Vec<ThreadItem>>) -> Thread {
        Thread {
            branching: false,
            id: "thr_1".into(),
            title: title.map(str::to_owned),
            created_at: T0.into(),
            status: Default::default(),
            metadata: Default::default(),
            items: items.map(|data| Page {
                data,
                has_more: false,
                after: None,
            }),
        }
    }

    fn label(thread: &Thread) -> String {
        thread_label(thread, &Strings::default())
    }

    #[test]
    fn relative_dates_and_labels_in_the_locale() {
        let fr = Strings::new("fr");
        assert_eq!(
            relative_date(T0, at(0.0), &fr).as_deref(),
            Some("à l'instant")
        );
        assert_eq!(
            relative_date(T0, at(60.0), &fr).as_deref(),
            Some("il y a 1 minute")
        );
        assert_eq!(
            relative_date(T0, at(3.0 * 86_400.0), &fr).as_deref(),
            Some("il y a 3 jours")
        );
        assert_eq!(
            thread_label(&thread(None, None), &fr),
            "Conversation sans titre"
        );
    }

    #[test]
    fn labels_fall_back_from_title_to_first_message() {
        assert_eq!(label(&thread(Some(" Pay a bill "), None)), "Pay a bill");
        assert_eq!(label(&thread(Some("  "), None)), "Untitled conversation");
        assert_eq!(label(&thread(None, Some(vec![]))), "Untitled conversation");
        let items: Vec<ThreadItem> = serde_json::from_value(serde_json::json!([
            {"id": "m0", "type": "assistant_message", "content": [{"type": "output_text", "text": "Hi"}]},
            {"id": "m1", "type": "user_message", "content": [{"type": "input_text", "text": "can you\n  pay this bill"}]}
        ]))
        .unwrap();
        assert_eq!(label(&thread(None, Some(items))), "can you pay this bill");
        let long: Vec<ThreadItem> = serde_json::from_value(serde_json::json!([
            {"id": "m1", "type": "user_message", "content": [{"type": "input_text", "text": "é".repeat(100)}]}
        ]))
        .unwrap();
        let label = label(&thread(None, Some(long)));
        assert_eq!(label.chars().count(), LABEL_CHARS + 1);
        assert!(label.ends_with('…'));
    }
}
