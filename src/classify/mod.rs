//! Classification of one upstream error: status restatement, retry hints, the fallback
//! decision, backoff, terminal state, breaker relevance and scope.

pub mod decide;
pub mod hint;
pub mod input;
pub mod record;
pub mod terminal;
pub mod time;
pub mod tuning;

use crate::rules::compile::Ruleset;
use crate::rules::matcher::Hits;
use crate::rules::model::{Reason, SignalId};
use decide::{Ctx, Decision, authoritative};
pub use input::ErrorInput;
use serde::Serialize;
use terminal::Terminal;
pub use tuning::Tuning;

/// Upstream JSON often escapes non-ASCII text (`\u989d\u5ea6`), which hides markers such as
/// `额度不足` from a byte scan. Such a body is scanned in its re-serialized form, where
/// serde_json writes non-ASCII characters as they are. Other bodies are scanned as received.
fn unescape_json(body: &str) -> Option<String> {
    let trimmed = body.trim_start();
    if !(trimmed.starts_with('{') || trimmed.starts_with('[')) || !body.contains("\\u") {
        return None;
    }
    let value: serde_json::Value = serde_json::from_str(body.trim()).ok()?;
    serde_json::to_string(&value).ok()
}

/// Where the consequence of an error lands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    Connection,
    Model,
    Provider,
    Exact,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Connection => "connection",
            Scope::Model => "model",
            Scope::Provider => "provider",
            Scope::Exact => "exact",
        }
    }
}

/// The verdict on one error; the fields of the classify output record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Classification {
    pub status: u16,
    pub restated_status: Option<u16>,
    pub reason: &'static str,
    pub scope: Option<Scope>,
    pub terminal: Option<&'static str>,
    pub retryable: bool,
    pub cooldown_ms: u64,
    pub retry_after_ms: Option<u64>,
    pub breaker_failure: bool,
    pub rules: Vec<String>,
    pub explain: Vec<String>,
    /// The backoff level to store with the connection after this error.
    pub next_backoff_level: u32,
    /// Where the used or reported retry hint came from: header, google_rpc_retry_info, body.
    pub retry_hint_source: Option<&'static str>,
    /// The breaker's failure kind (classify429): transient, rate_limit or quota_exhausted.
    pub breaker_kind: &'static str,
    /// The provider's canonical id, when one was given.
    pub provider: Option<String>,
    /// The provider error type (quota_exhausted, geo_blocked, fingerprint_rejection, ...).
    pub error_type: Option<&'static str>,
    /// What the body text alone says (classifyErrorText), and the list or rule that said it.
    pub text_reason: Option<&'static str>,
    pub text_rule: Option<String>,
}

/// The restatement that applied, if any.
struct Restated {
    status: u16,
    retry_after_ms: u64,
}

fn restate(
    rules: &Ruleset,
    input: &ErrorInput<'_>,
    names: Option<(&str, &str)>,
    hits: &Hits<'_, '_>,
    fired: &mut Vec<String>,
    explain: &mut Vec<String>,
) -> Option<Restated> {
    let (given, canonical) = names?;
    if input.body.trim().is_empty() {
        return None;
    }
    for r in &rules.restatements {
        if (r.provider != given && r.provider != canonical)
            || !r.rule.from_statuses.contains(&input.status)
        {
            continue;
        }
        let Some(marker) = hits.any_literal(&r.markers) else {
            continue;
        };
        if let Some(veto) = hits.any_literal(&r.excludes) {
            explain.push(format!(
                "restatement {} vetoed by exclude marker '{}': status stays {}",
                r.rule.id,
                rules.matcher.literal_text(veto),
                input.status
            ));
            continue;
        }
        fired.push(r.rule.id.clone());
        explain.push(format!(
            "restatement {}: {} -> {} (marker '{}')",
            r.rule.id,
            input.status,
            r.rule.to_status,
            rules.matcher.literal_text(marker)
        ));
        return Some(Restated {
            status: r.rule.to_status,
            retry_after_ms: r.rule.default_retry_after_ms,
        });
    }
    None
}

/// `classify429`: the breaker's failure kind.
fn breaker_kind(ctx: &mut Ctx<'_, '_>) -> &'static str {
    if ctx.status != 429 {
        return "transient";
    }
    if ctx.signal(SignalId::TerminalQuotaPatterns).is_some() {
        ctx.note_signal(
            SignalId::TerminalQuotaPatterns,
            "breaker kind quota_exhausted; a short hint cannot downgrade it",
        );
        return "quota_exhausted";
    }
    let threshold = ctx
        .rules
        .settings
        .classification
        .short_retry_hint_threshold_ms;
    if ctx.hint().is_some_and(|h| h.ms < threshold) {
        return "rate_limit";
    }
    if ctx.signal(SignalId::QuotaPatterns).is_some() {
        ctx.note_signal(SignalId::QuotaPatterns, "breaker kind quota_exhausted");
        return "quota_exhausted";
    }
    "rate_limit"
}

/// Classifies one error with the catalog defaults.
pub fn classify(rules: &Ruleset, input: &ErrorInput<'_>) -> Classification {
    let tuning = Tuning::defaults(rules);
    classify_with(rules, &tuning, input)
}

/// Classifies one error with resolved tuning (defaults plus settings overrides).
pub fn classify_with(rules: &Ruleset, tuning: &Tuning, input: &ErrorInput<'_>) -> Classification {
    let unescaped = unescape_json(input.body);
    let hits = rules
        .matcher
        .scan(unescaped.as_deref().unwrap_or(input.body));
    let mut fired = Vec::new();
    let mut explain = Vec::new();
    // The provider is resolved once: lower-cased as given, and its profile.
    let given = input.provider.map(|p| p.trim().to_lowercase());
    let profile = given.as_deref().map(|p| rules.profile(p));
    let names = given
        .as_deref()
        .zip(profile.as_ref().map(|p| p.id.as_str()));
    let restated = restate(rules, input, names, &hits, &mut fired, &mut explain);
    let status = restated.as_ref().map_or(input.status, |r| r.status);
    let mut ctx = Ctx::new(rules, tuning, input, status, hits, given, profile);
    ctx.fired = fired;
    ctx.explain = explain;
    if let Some(p) = &ctx.profile
        && !p.known
    {
        let id = p.id.clone();
        ctx.explain.push(format!(
            "provider `{id}` has no profile: treated as an API-key provider"
        ));
    }

    let mut d = ctx.decide();
    let (terminal, error_type) = terminal::resolve(&mut ctx, &d);
    let scope = scope_of(&mut ctx, &mut d, terminal);

    let trip = tuning.breaker_trip_statuses.contains(&status)
        || (status == 429 && tuning.breaker_count_429);
    let breaker_failure = trip && !d.skip_breaker;
    if d.skip_breaker && trip {
        ctx.explain
            .push("not counted by the provider breaker".into());
    }
    let hint = ctx.hint();
    let retry_after_ms = match &restated {
        Some(r) => Some(hint.map_or(r.retry_after_ms, |h| h.ms)),
        None => hint.map(|h| h.ms),
    };
    if let (Some(r), None) = (&restated, hint) {
        ctx.explain.push(format!(
            "client is told Retry-After {} s; the connection's own cooldown is {} ms",
            r.retry_after_ms.div_ceil(1000),
            d.cooldown_ms
        ));
    }
    let breaker_kind = breaker_kind(&mut ctx);
    let text = ctx.classify_error_text();
    Classification {
        status: input.status,
        restated_status: restated.map(|r| r.status),
        reason: d.reason.as_str(),
        scope,
        terminal: terminal.map(Terminal::as_str),
        retryable: d.retryable,
        cooldown_ms: if terminal.is_some() { 0 } else { d.cooldown_ms },
        retry_after_ms,
        breaker_failure,
        next_backoff_level: d.next_backoff_level,
        retry_hint_source: d.hint_used.or(hint).map(|h| h.source.as_str()),
        breaker_kind,
        provider: ctx.profile.as_ref().map(|p| p.id.clone()),
        error_type: error_type.map(terminal::ErrorType::as_str),
        text_reason: text.as_ref().map(|(r, _)| r.as_str()),
        text_rule: text.map(|(_, by)| by),
        rules: ctx.fired,
        explain: ctx.explain,
    }
}

/// Which state the error lands on. Per-model-quota providers lock the model on 404/429/5xx
/// (quota family for 429/403/402, base model for 404, exact otherwise); the lock is capped by
/// the model-lockout maximum unless the upstream reset is authoritative.
fn scope_of(ctx: &mut Ctx<'_, '_>, d: &mut Decision, terminal: Option<Terminal>) -> Option<Scope> {
    if terminal.is_some() {
        return Some(Scope::Connection);
    }
    if !d.retryable && d.cooldown_ms == 0 {
        return None;
    }
    if let Some(s) = d.rule_scope {
        let scope = match s {
            crate::rules::model::RuleScope::Connection => Scope::Connection,
            crate::rules::model::RuleScope::Provider => Scope::Provider,
            crate::rules::model::RuleScope::Model => Scope::Model,
        };
        if scope == Scope::Model {
            cap_lockout(ctx, d);
        }
        return Some(scope);
    }
    let per_model = ctx.profile.as_ref().is_some_and(|p| p.per_model_quota);
    let status = ctx.status;
    if per_model && (matches!(status, 404 | 429) || status >= 500) && d.reason != Reason::AuthError
    {
        let scope = if matches!(status, 429 | 403 | 402 | 404) {
            Scope::Model
        } else {
            Scope::Exact
        };
        ctx.explain.push(format!(
            "per-model-quota provider: a model lockout ({}) instead of a connection cooldown",
            scope.as_str()
        ));
        cap_lockout(ctx, d);
        return Some(scope);
    }
    Some(Scope::Connection)
}

fn cap_lockout(ctx: &mut Ctx<'_, '_>, d: &mut Decision) {
    let max = ctx.tuning.lockout_max_cooldown_ms;
    let authoritative_hint = d.hint_used.as_ref().is_some_and(authoritative);
    if d.cooldown_ms > max && !authoritative_hint {
        ctx.explain.push(format!(
            "model lockout caps {} ms at model_lockout.max_cooldown_ms {max} ms",
            d.cooldown_ms
        ));
        d.cooldown_ms = max;
    }
}
