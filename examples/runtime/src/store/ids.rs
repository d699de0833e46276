//! Ids and timestamps, the same on both backends: random ids nobody can guess, and the
//! time as the SDK writes it.

/// `N` bytes from the operating system's CSPRNG.
pub fn random_bytes<const N: usize>() -> [u8; N] {
    let mut bytes = [0u8; N];
    // Only fails where the OS has no random source at all; nothing safe to fall back on.
    getrandom::fill(&mut bytes).expect("the operating system's random number generator");
    bytes
}

/// Lowercase hex.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `prefix` + `_` + 128 random bits in hex: ids nobody can guess or count through.
pub fn new_id(prefix: &str) -> String {
    format!("{prefix}_{}", hex(&random_bytes::<16>()))
}

/// The current UTC time as the SDK writes it: naive ISO 8601 with microseconds.
pub fn now_iso() -> String {
    iso(jiff::Timestamp::now())
}

/// [`iso`] of `secs` and `micros` since the epoch (a time past jiff's range, the year 9999,
/// reads as its last instant).
#[cfg(test)]
pub(super) fn format_iso(secs: u64, micros: u32) -> String {
    let at = i64::try_from(secs)
        .ok()
        .and_then(|secs| jiff::Timestamp::new(secs, micros as i32 * 1000).ok())
        .unwrap_or(jiff::Timestamp::MAX);
    iso(at)
}

/// `at` in UTC as `2026-11-21T08:28:56.274912`: no offset, always six fraction digits.
fn iso(at: jiff::Timestamp) -> String {
    jiff::tz::Offset::UTC
        .to_datetime(at)
        .strftime("%Y-%m-%dT%H:%M:%S.%6f")
        .to_string()
}
