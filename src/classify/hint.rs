//! Retry-hint parsing (reference a.7): headers, then the JSON body, then the text forms.
//! These are grammars for dates and durations, not catalog entries; their caps come from the
//! catalog. Every function takes `now_ms` so results are deterministic.

use super::time::{parse_iso, utc_ms, year_of};
use memchr::memmem;
use regex::{Captures, Regex};
use serde_json::Value;
use std::sync::LazyLock;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HintSource {
    Header,
    GoogleRpcRetryInfo,
    Body,
}

impl HintSource {
    pub fn as_str(self) -> &'static str {
        match self {
            HintSource::Header => "header",
            HintSource::GoogleRpcRetryInfo => "google_rpc_retry_info",
            HintSource::Body => "body",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hint {
    pub ms: u64,
    pub source: HintSource,
    /// Which form produced it, for the explanation.
    pub form: &'static str,
}

/// Caps applied to parsed hints.
#[derive(Debug, Clone, Copy)]
pub struct Caps {
    /// RetryInfo and "please retry in" (24 h).
    pub short_ms: u64,
    /// Everything else (30 d).
    pub long_ms: u64,
}

/// A text grammar: a regex anchored at its start, and the phrases (ASCII lower case) one of
/// which every match of it starts with. The regex runs only where such a phrase occurs, so a
/// long body costs one vector search per phrase, not one regex pass per grammar.
struct Grammar {
    re: Option<Regex>,
    leads: Vec<memmem::Finder<'static>>,
}

impl Grammar {
    fn new(pattern: &str, leads: &'static [&'static str]) -> Self {
        let re = regex::RegexBuilder::new(&format!("^(?:{pattern})"))
            .case_insensitive(true)
            .build()
            .ok();
        let leads = leads.iter().map(memmem::Finder::new).collect();
        Grammar { re, leads }
    }
}

macro_rules! grammar {
    ($name:ident, $pattern:expr, $leads:expr) => {
        static $name: LazyLock<Grammar> = LazyLock::new(|| Grammar::new($pattern, $leads));
    };
}

const ISO: &str =
    r"(\d{4}-\d{2}-\d{2}[t ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?\s*(?:z|utc|[+-]\d{2}:?\d{2})?)";
const HMS: &str = r"(?:(\d+)\s*h(?:ours?|rs?)?)?\s*(?:(\d+)\s*m(?:in(?:utes?|s)?)?)?\s*(?:(\d+(?:\.\d+)?)\s*s(?:ec(?:onds?|s)?)?)?";

grammar!(
    PLEASE_RETRY,
    r"please retry in\s+(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\b",
    &["please retry in"]
);
grammar!(
    ISO_AFTER,
    &format!(r"(?:try again at|wait until|resets? at|available at|retry after)\s+{ISO}"),
    &[
        "try again at",
        "wait until",
        "reset",
        "available at",
        "retry after"
    ]
);
grammar!(
    RESET_AFTER,
    &format!(r"(?:will reset after|resets? after|resets? in)\s+{HMS}"),
    &["will reset after", "reset"]
);
grammar!(RESET_DAYS, r"resets? in\s+(\d+)\s*days?\b", &["reset"]);
grammar!(
    RESET_AT_ISO,
    r"resets? at\s+(\d{4}-\d{2}-\d{2})[t ](\d{2}):(\d{2})(?::(\d{2}))?\s*(z|utc|[+-]\d{2}:?\d{2})?",
    &["reset"]
);
grammar!(
    RESET_AT_MMDD,
    r"resets? at\s+(\d{2})-(\d{2})\s+(\d{2}):(\d{2})(?::(\d{2}))?\s*utc",
    &["reset"]
);
grammar!(
    COUNTDOWN,
    r"resets? in\s+(\d+)\s*(days?|hours?|minutes?|seconds?)\b",
    &["reset"]
);
grammar!(
    QUOTA_RESETS_AT,
    &format!(r"quota resets? at\s+{ISO}"),
    &["quota reset"]
);

/// A body prepared for the grammars: the text and its ASCII-lower-cased bytes, made once.
pub struct HintText<'a> {
    text: &'a str,
    lower: Vec<u8>,
}

impl<'a> HintText<'a> {
    pub fn new(text: &'a str) -> Self {
        HintText {
            text,
            lower: text.as_bytes().to_ascii_lowercase(),
        }
    }

    /// The matches of `g` in order, not overlapping: what an unanchored `captures_iter` gives
    /// (every match starts at a lead, so trying each lead position in order finds them all).
    fn matches<'g>(&'g self, g: &'g Grammar) -> impl Iterator<Item = Captures<'a>> + 'g {
        let mut starts: Vec<usize> = g
            .leads
            .iter()
            .flat_map(|lead| lead.find_iter(&self.lower))
            .collect();
        starts.sort_unstable();
        starts.dedup();
        let mut resume = 0;
        starts.into_iter().filter_map(move |at| {
            if at < resume {
                return None;
            }
            let c = g.re.as_ref()?.captures(self.text.get(at..)?)?;
            resume = at + c.get(0).map_or(0, |m| m.end().max(1));
            Some(c)
        })
    }

    fn first<'g>(&'g self, g: &'g Grammar) -> Option<Captures<'a>> {
        self.matches(g).next()
    }
}

fn wait_until(target_ms: i64, now_ms: i64) -> Option<u64> {
    let wait = target_ms.checked_sub(now_ms)?;
    (wait > 0).then_some(wait as u64)
}

/// "1.5s", "300ms", "2m", "1h"; a bare number is seconds. Rounded to whole ms.
pub fn parse_delay(text: &str) -> Option<u64> {
    let t = text.trim().to_ascii_lowercase();
    let (num, factor) = if let Some(n) = t.strip_suffix("ms") {
        (n, 1.0)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, 1000.0)
    } else if let Some(n) = t.strip_suffix('m') {
        (n, 60_000.0)
    } else if let Some(n) = t.strip_suffix('h') {
        (n, 3_600_000.0)
    } else {
        (t.as_str(), 1000.0)
    };
    let value: f64 = num.trim().parse().ok()?;
    if !value.is_finite() || value < 0.0 {
        return None;
    }
    let ms = (value * factor).round();
    (ms <= u64::MAX as f64).then_some(ms as u64)
}

/// `Retry-After` (integer seconds, else HTTP-date or ISO), then `X-RateLimit-Reset` (epoch
/// seconds, or ms above 10^10). Only a wait above zero counts.
pub fn from_headers(
    header: impl Fn(&str) -> Option<String>,
    now_ms: i64,
    caps: Caps,
) -> Option<Hint> {
    if let Some(value) = header("retry-after") {
        let v = value.trim();
        let as_int = v.parse::<i64>().ok().filter(|n| n.to_string() == v);
        let target = match as_int {
            Some(secs) => now_ms.checked_add(secs.checked_mul(1000)?),
            None => httpdate::parse_http_date(v)
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .and_then(|d| i64::try_from(d.as_millis()).ok())
                .or_else(|| parse_iso(v)),
        };
        if let Some(wait) = target.and_then(|t| wait_until(t, now_ms)) {
            let form = if as_int.is_some() {
                "Retry-After seconds"
            } else {
                "Retry-After date"
            };
            return Some(Hint {
                ms: wait.min(caps.long_ms),
                source: HintSource::Header,
                form,
            });
        }
    }
    header("x-ratelimit-reset").and_then(|v| from_ratelimit_reset(&v, now_ms, caps))
}

/// `X-RateLimit-Reset`: epoch seconds, or epoch ms above 10^10; only a future instant counts.
pub fn from_ratelimit_reset(value: &str, now_ms: i64, caps: Caps) -> Option<Hint> {
    let n = value.trim().parse::<i64>().ok()?;
    let target = if n > 10_000_000_000 {
        Some(n)
    } else {
        n.checked_mul(1000)
    };
    let wait = target.and_then(|t| wait_until(t, now_ms))?;
    Some(Hint {
        ms: wait.min(caps.long_ms),
        source: HintSource::Header,
        form: "X-RateLimit-Reset epoch",
    })
}

fn details(v: &Value) -> impl Iterator<Item = &Value> {
    let nested = v
        .get("error")
        .and_then(|e| e.get("details"))
        .and_then(Value::as_array);
    let top = v.get("details").and_then(Value::as_array);
    nested.into_iter().chain(top).flatten()
}

/// Google `RetryInfo`, then `retryAfter` (ISO, future only), then `retry_after_ms` numbers.
pub fn from_json(v: &Value, now_ms: i64, caps: Caps) -> Option<Hint> {
    for d in details(v) {
        let is_retry_info = d
            .get("@type")
            .and_then(Value::as_str)
            .is_some_and(|t| t.contains("RetryInfo"));
        if is_retry_info {
            let delay = match d.get("retryDelay") {
                Some(Value::String(s)) => parse_delay(s),
                Some(Value::Number(n)) => n.as_f64().and_then(|f| parse_delay(&f.to_string())),
                Some(Value::Object(o)) => {
                    let secs = o
                        .get("seconds")
                        .and_then(|s| s.as_f64().or_else(|| s.as_str()?.parse().ok()));
                    let nanos = o.get("nanos").and_then(Value::as_f64).unwrap_or(0.0);
                    secs.map(|s| ((s * 1000.0) + nanos / 1e6).round().max(0.0) as u64)
                }
                _ => None,
            };
            if let Some(ms) = delay.filter(|&ms| ms > 0) {
                return Some(Hint {
                    ms: ms.min(caps.short_ms),
                    source: HintSource::GoogleRpcRetryInfo,
                    form: "RetryInfo.retryDelay",
                });
            }
        }
    }
    let err = v.get("error");
    for holder in [err, Some(v)].into_iter().flatten() {
        if let Some(t) = holder
            .get("retryAfter")
            .and_then(Value::as_str)
            .and_then(parse_iso)
            && let Some(wait) = wait_until(t, now_ms)
        {
            return Some(Hint {
                ms: wait.min(caps.long_ms),
                source: HintSource::Body,
                form: "retryAfter timestamp",
            });
        }
    }
    for holder in [err, Some(v)].into_iter().flatten() {
        for key in ["retry_after_ms", "retryAfterMs"] {
            if let Some(ms) = holder.get(key).and_then(Value::as_f64)
                && ms > 0.0
            {
                return Some(Hint {
                    ms: (ms.round() as u64).min(caps.long_ms),
                    source: HintSource::Body,
                    form: "retry_after_ms",
                });
            }
        }
    }
    None
}

fn hms_ms(c: &regex::Captures<'_>, first: usize) -> Option<u64> {
    let h = c
        .get(first)
        .map(|m| m.as_str().parse::<u64>().ok())
        .unwrap_or(Some(0))?;
    let m = c
        .get(first + 1)
        .map(|m| m.as_str().parse::<u64>().ok())
        .unwrap_or(Some(0))?;
    let s = c
        .get(first + 2)
        .map(|m| m.as_str().parse::<f64>().ok())
        .unwrap_or(Some(0.0))?;
    if c.get(first).is_none() && c.get(first + 1).is_none() && c.get(first + 2).is_none() {
        return None;
    }
    let total = h
        .checked_mul(3_600_000)?
        .checked_add(m.checked_mul(60_000)?)?;
    total.checked_add((s * 1000.0).round() as u64)
}

/// Which trigger phrases the body scan saw; a grammar runs only when its phrase is present.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seen {
    pub please_retry: bool,
    pub reset: bool,
    pub retry_at: bool,
}

impl Seen {
    pub const ALL: Seen = Seen {
        please_retry: true,
        reset: true,
        retry_at: true,
    };
}

/// The text forms, in the reference's order. `json` is the parsed body, if any.
pub fn from_text(
    text: &HintText<'_>,
    json: Option<&Value>,
    now_ms: i64,
    caps: Caps,
    seen: Seen,
) -> Option<Hint> {
    if let Some(h) = json.and_then(|v| from_json(v, now_ms, caps)) {
        return Some(h);
    }
    let body = |ms: u64, cap: u64, form| {
        Some(Hint {
            ms: ms.min(cap),
            source: HintSource::Body,
            form,
        })
    };
    if let Some(c) = Some(&*PLEASE_RETRY)
        .filter(|_| seen.please_retry)
        .and_then(|g| text.first(g))
    {
        let unit = c.get(2).map_or("s", |m| m.as_str());
        if let Some(ms) = parse_delay(&format!("{}{unit}", &c[1])).filter(|&ms| ms > 0) {
            return body(ms, caps.short_ms, "please retry in");
        }
    }
    if let Some(c) = Some(&*ISO_AFTER)
        .filter(|_| seen.retry_at || seen.reset)
        .and_then(|g| text.first(g))
        && let Some(wait) = parse_iso(&c[1]).and_then(|t| wait_until(t, now_ms))
    {
        return body(wait, caps.long_ms, "retry at timestamp");
    }
    if !seen.reset {
        return None;
    }
    for c in text.matches(&RESET_AFTER) {
        if let Some(ms) = hms_ms(&c, 1).filter(|&ms| ms > 0) {
            return body(ms, caps.long_ms, "reset after/in XhYmZs");
        }
    }
    day_granularity(text, now_ms, caps.long_ms)
}

/// "resets in N days", "reset at YYYY-MM-DD HH:MM[:SS][zone]", "resets at MM-DD HH:MM UTC".
pub fn day_granularity(text: &HintText<'_>, now_ms: i64, cap: u64) -> Option<Hint> {
    let body = |ms: u64, form| {
        Some(Hint {
            ms: ms.min(cap),
            source: HintSource::Body,
            form,
        })
    };
    if let Some(c) = text.first(&RESET_DAYS)
        && let Some(ms) = c[1]
            .parse::<u64>()
            .ok()
            .and_then(|d| d.checked_mul(86_400_000))
            .filter(|&ms| ms > 0)
    {
        return body(ms, "resets in N days");
    }
    if let Some(c) = text.first(&RESET_AT_ISO) {
        let zone = c.get(5).map_or("", |m| m.as_str());
        let secs = c.get(4).map_or("00", |m| m.as_str());
        let iso = format!("{}T{}:{}:{secs}{zone}", &c[1], &c[2], &c[3]);
        if let Some(wait) = parse_iso(&iso).and_then(|t| wait_until(t, now_ms)) {
            return body(wait, "reset at date-time");
        }
    }
    if let Some(c) = text.first(&RESET_AT_MMDD) {
        let num = |i: usize| c.get(i).and_then(|m| m.as_str().parse::<u32>().ok());
        let (mo, d, h, mi) = (num(1)?, num(2)?, num(3)?, num(4)?);
        let s = num(5).unwrap_or(0);
        let year = year_of(now_ms);
        for y in [year, year + 1] {
            if let Some(wait) = utc_ms(y, mo, d, h, mi, s, 0).and_then(|t| wait_until(t, now_ms)) {
                return body(wait, "reset at MM-DD HH:MM UTC");
            }
        }
    }
    None
}

/// The provider-rule countdown: "reset(s) in N day(s)|hour(s)|minute(s)|second(s)", N > 0.
pub fn reset_countdown_ms(text: &HintText<'_>) -> Option<u64> {
    let c = text.first(&COUNTDOWN)?;
    let n: u64 = c[1].parse().ok().filter(|&n| n > 0)?;
    let unit = c[2].to_ascii_lowercase();
    let factor = if unit.starts_with("day") {
        86_400_000
    } else if unit.starts_with("hour") {
        3_600_000
    } else if unit.starts_with("minute") {
        60_000
    } else {
        1000
    };
    n.checked_mul(factor)
}

/// LongCat's "quota resets at <ISO>" instant, if present.
pub fn quota_resets_at(text: &HintText<'_>) -> Option<i64> {
    let c = text.first(&QUOTA_RESETS_AT)?;
    parse_iso(&c[1])
}

#[cfg(test)]
mod tests {
    use super::*;

    const CAPS: Caps = Caps {
        short_ms: 86_400_000,
        long_ms: 2_592_000_000,
    };
    const NOW: i64 = 1_795_996_800_000; // 2026-11-30T00:00:00Z

    fn headers<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn delay_strings() {
        assert_eq!(parse_delay("1.5s"), Some(1500));
        assert_eq!(parse_delay("300ms"), Some(300));
        assert_eq!(parse_delay("2m"), Some(120_000));
        assert_eq!(parse_delay("1h"), Some(3_600_000));
        assert_eq!(parse_delay("7"), Some(7000));
        assert_eq!(parse_delay("-1s"), None);
        assert_eq!(parse_delay("soon"), None);
    }

    #[test]
    fn retry_after_integer_must_round_trip() {
        let h = from_headers(headers(&[("retry-after", "60")]), NOW, CAPS).expect("hint");
        assert_eq!(h.ms, 60_000);
        assert_eq!(
            from_headers(headers(&[("retry-after", "060")]), NOW, CAPS),
            None
        );
        assert_eq!(
            from_headers(headers(&[("retry-after", "-5")]), NOW, CAPS),
            None
        );
    }

    #[test]
    fn retry_after_http_date() {
        let h = from_headers(
            headers(&[("retry-after", "Mon, 30 Nov 2026 00:02:00 GMT")]),
            NOW,
            CAPS,
        )
        .expect("hint");
        assert_eq!(h.ms, 120_000);
    }

    #[test]
    fn ratelimit_reset_seconds_and_ms() {
        let secs = ((NOW / 1000) + 30).to_string();
        assert_eq!(
            from_headers(headers(&[("x-ratelimit-reset", &secs)]), NOW, CAPS).map(|h| h.ms),
            Some(30_000)
        );
        let ms = (NOW + 4500).to_string();
        assert_eq!(
            from_headers(headers(&[("x-ratelimit-reset", &ms)]), NOW, CAPS).map(|h| h.ms),
            Some(4500)
        );
        // A relative "60" reads as 1970 and is ignored.
        assert_eq!(
            from_headers(headers(&[("x-ratelimit-reset", "60")]), NOW, CAPS),
            None
        );
    }

    #[test]
    fn text_forms() {
        let t = |s: &str| from_text(&HintText::new(s), None, NOW, CAPS, Seen::ALL).map(|h| h.ms);
        assert_eq!(t("Please retry in 39.538s."), Some(39_538));
        assert_eq!(t("try again at 2026-11-30T01:00:00Z"), Some(3_600_000));
        assert_eq!(t("quota will reset after 1h2m3s"), Some(3_723_000));
        assert_eq!(t("Your limit resets in 5m"), Some(300_000));
        assert_eq!(t("resets in 3 days"), Some(3 * 86_400_000));
        assert_eq!(
            t("limit will reset at 2026-12-01 00:00 UTC"),
            Some(86_400_000)
        );
        assert_eq!(t("resets at 12-01 06:00 UTC"), Some(30 * 3_600_000));
        assert_eq!(t("try again at 2020-01-01T00:00:00Z"), None);
        assert_eq!(t("nothing to see"), None);
    }

    #[test]
    fn countdown() {
        assert_eq!(
            reset_countdown_ms(&HintText::new(
                "monthly usage limit reached, resets in 13 days"
            )),
            Some(1_123_200_000)
        );
        assert_eq!(reset_countdown_ms(&HintText::new("resets in 0 days")), None);
    }

    use proptest::prelude::*;

    /// Each grammar's pattern and leads, unanchored, as the plain regex it stands for.
    fn plain(g: &Grammar) -> Regex {
        let anchored = g.re.as_ref().expect("grammar compiles").as_str();
        let body = anchored
            .strip_prefix("^(?:")
            .and_then(|p| p.strip_suffix(')'))
            .expect("anchored form");
        regex::RegexBuilder::new(body)
            .case_insensitive(true)
            .build()
            .expect("plain form compiles")
    }

    static GRAMMARS: LazyLock<Vec<&'static Grammar>> = LazyLock::new(|| {
        vec![
            &PLEASE_RETRY,
            &ISO_AFTER,
            &RESET_AFTER,
            &RESET_DAYS,
            &RESET_AT_ISO,
            &RESET_AT_MMDD,
            &COUNTDOWN,
            &QUOTA_RESETS_AT,
        ]
    });
    static PLAIN: LazyLock<Vec<Regex>> =
        LazyLock::new(|| GRAMMARS.iter().map(|g| plain(g)).collect());

    fn body() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            proptest::sample::select(
                &[
                    "reset in 5 days",
                    "Resets at 2026-12-01 00:00 UTC",
                    "will reset after 1h2m",
                    "WILL RESET AFTER ",
                    "resets in 3 hours",
                    "reset at 12-01 06:00 utc",
                    "please retry in 2.5s",
                    "Please Retry In ",
                    "try again at 2026-12-01T00:00:00Z",
                    "retry after ",
                    "quota resets at 2026-12-02T00:00:00Z",
                    "reset",
                    "resets",
                    " in ",
                    " at ",
                    "2026-12-01",
                    "10:30",
                ][..]
            )
            .prop_map(str::to_string),
            "[a-zA-Z0-9 :.\\-]{0,8}",
            any::<char>().prop_map(|c| c.to_string()),
        ];
        proptest::collection::vec(piece, 0..10).prop_map(|v| v.concat())
    }

    proptest! {
        /// Running a grammar only at its leads finds what the unanchored regex finds, match
        /// for match.
        #[test]
        fn lead_anchored_grammars_equal_plain_regexes(text in body()) {
            let t = HintText::new(&text);
            for (g, re) in GRAMMARS.iter().zip(PLAIN.iter()) {
                let ours: Vec<String> = t.matches(g).map(|c| c[0].to_string()).collect();
                let theirs: Vec<String> =
                    re.captures_iter(&text).map(|c| c[0].to_string()).collect();
                prop_assert_eq!(ours, theirs, "pattern {}", re.as_str());
            }
        }
    }
}
