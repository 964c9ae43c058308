//! No input makes the classifier panic, and its outputs keep their invariants.

use omniroute::classify::record::{classify_line, parse_record};
use omniroute::classify::{ErrorInput, Tuning, classify_with};
use omniroute::rules::catalog;
use omniroute::rules::compile::Ruleset;
use proptest::prelude::*;
use std::sync::LazyLock;

static RULES: LazyLock<Ruleset> = LazyLock::new(|| catalog::ruleset(&[]).expect("catalog").0);

/// Every catalog regex compiled plainly, without the matcher's gates.
static PLAIN: LazyLock<Vec<regex::Regex>> = LazyLock::new(|| {
    let m = &RULES.matcher;
    (0..m.regex_count())
        .map(|id| {
            regex::RegexBuilder::new(m.regex_pattern(id))
                .case_insensitive(true)
                .build()
                .expect("compiles")
        })
        .collect()
});

/// Pieces of real error bodies, so generated bodies reach deep into the pipeline.
const PIECES: &[&str] = &[
    "billing cap",
    "billing",
    " cap",
    "plan",
    "spending limit",
    "suspended",
    "hard limit",
    "per month",
    "monthly",
    "DEGRADED",
    "function",
    "access",
    "permission",
    "denied",
    "invalid",
    "api key",
    "no longer available",
    "end-of-life",
    "high frequency",
    "额度不足",
    "无权访问模型",
    "insufficient_quota",
    "rate limit",
    "Rate Limit",
    "quota exceeded",
    "please retry in 3.5s",
    "resets in 2 days",
    "reset at 2026-12-01 00:00 UTC",
    "try again at 2026-11-30T01:00:00Z",
    "{\"error\":{\"code\":\"model_not_found\"",
    "\"retry_after_ms\":",
    "RetryInfo",
    "\"retryDelay\":\"9s\"",
    "model",
    " not ",
    "found",
    "context",
    "limit",
    "max_tokens",
    "account has been deactivated",
    "weekly usage limit",
    "session limit reached",
    "usage limit reached",
    "<html>",
    "\\u989d",
    "daily quota",
    "tpd rate limit",
    "requests for today; quota resets at 2026-11-30T05:00:00Z",
    "error code: 1010",
    "\"",
    "\\",
    "\n",
];

const PROVIDERS: &[&str] = &[
    "openai",
    "anthropic",
    "claude",
    "codex",
    "gemini",
    "agentrouter",
    "opencode-go",
    "minimax",
    "ollama",
    "openai-compatible-x",
    "AgentRouter",
    "",
    "unknown-co",
];

fn body() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        proptest::sample::select(PIECES).prop_map(str::to_string),
        proptest::collection::vec(any::<u8>(), 0..40)
            .prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
        ".{0,20}",
    ];
    proptest::collection::vec(piece, 0..10).prop_map(|v| v.concat())
}

fn headers() -> impl Strategy<Value = Vec<(String, String)>> {
    let name = prop_oneof![
        Just("retry-after".to_string()),
        Just("x-ratelimit-reset".to_string()),
        Just("x-model-quota-remaining".to_string()),
        Just("x-ratelimit-remaining-requests".to_string()),
        Just("x-omni-fallback-hint".to_string()),
        "[a-z-]{1,12}",
    ];
    let value = prop_oneof![
        "-?[0-9]{0,14}",
        Just("Mon, 30 Nov 2026 00:02:00 GMT".to_string()),
        Just("connection_cooldown".to_string()),
        Just("a=0, b=1".to_string()),
        ".{0,30}",
    ];
    proptest::collection::vec((name, value), 0..4)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn classify_never_panics_and_keeps_invariants(
        status in 100u16..=599,
        provider in proptest::option::of(proptest::sample::select(PROVIDERS)),
        body in body(),
        headers in headers(),
        level in 0u32..2000,
        now in proptest::num::i64::ANY,
    ) {
        let tuning = Tuning::defaults(&RULES);
        let input = ErrorInput { provider, status, headers: &headers, body: &body, model: Some("m"), backoff_level: level, now_ms: now };
        let c = classify_with(&RULES, &tuning, &input);
        if c.terminal.is_some() {
            prop_assert_eq!(c.cooldown_ms, 0);
        }
        if !c.retryable {
            prop_assert_eq!(c.cooldown_ms, 0);
        }
        prop_assert!(c.cooldown_ms <= 31_536_000_000, "cooldown {} above a year", c.cooldown_ms);
        prop_assert!(!c.explain.is_empty() || c.rules.is_empty());
        prop_assert!(serde_json::to_string(&c).is_ok());
    }

    #[test]
    fn any_line_gives_exactly_one_output_line(line in prop_oneof![
        ".{0,200}",
        (any::<i64>(), body(), proptest::option::of(proptest::sample::select(PROVIDERS)), any::<i64>())
            .prop_map(|(s, b, p, l)| serde_json::json!({"status": s, "body": b, "provider": p, "backoff_level": l, "headers": {"retry-after": "5"}}).to_string()),
    ]) {
        let tuning = Tuning::defaults(&RULES);
        let mut out = Vec::new();
        let ok = classify_line(&RULES, &tuning, &line, 1, 0, &mut out);
        prop_assert_eq!(out.iter().filter(|&&b| b == b'\n').count(), 1);
        prop_assert_eq!(ok, parse_record(&line).is_ok());
        prop_assert!(serde_json::from_slice::<serde_json::Value>(&out).is_ok());
    }

    /// Gating (required literals, spans, short gates) never changes a regex's answer.
    #[test]
    fn gated_regexes_answer_like_plain_regexes(body in body()) {
        let m = &RULES.matcher;
        let hits = m.scan(&body);
        for (id, plain) in PLAIN.iter().enumerate() {
            prop_assert_eq!(hits.regex(id), plain.is_match(&body), "regex {}", m.regex_pattern(id));
        }
    }

    /// The window scanner and one Aho-Corasick automaton agree on the whole catalog.
    #[test]
    fn catalog_scan_equals_aho_corasick(body in body()) {
        let m = &RULES.matcher;
        prop_assert_eq!(m.scan(&body).literal_ids(), m.scan_reference(&body).literal_ids());
    }
}

#[test]
fn corpus_bodies_scan_the_same_both_ways() {
    let m = &RULES.matcher;
    for line in include_str!("corpus/errors.jsonl").lines() {
        let rec = parse_record(line).expect("corpus record");
        assert_eq!(
            m.scan(&rec.body).literal_ids(),
            m.scan_reference(&rec.body).literal_ids(),
            "{line}"
        );
    }
}
