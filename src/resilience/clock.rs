//! The one place that reads the system clock. Everything else takes `now_ms` as an argument,
//! so `simulate` and the tests run on a virtual clock.

/// Milliseconds since the Unix epoch.
#[allow(clippy::disallowed_methods)]
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}
