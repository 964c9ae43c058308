//! The fallback decision (reference a.3): the order of the checks is the mechanism; what each
//! check looks for, and the numbers it returns, come from the catalog.

use super::hint::{self, Caps, Hint, HintSource};
use super::input::ErrorInput;
use super::time::ms_until_daily_reset;
use super::tuning::Tuning;
use crate::rules::compile::{CompiledProviderRule, Hit, Profile, Ruleset};
use crate::rules::matcher::Hits;
use crate::rules::model::{AuthClass, CooldownFrom, ProviderTag, Reason, RuleScope, SignalId};
use serde_json::Value;
use std::cell::OnceCell;

/// What the pipeline decided, before terminal state and scope are derived.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    pub retryable: bool,
    pub cooldown_ms: u64,
    pub next_backoff_level: u32,
    pub reason: Reason,
    pub permanent: bool,
    pub credits_exhausted: bool,
    pub daily_quota: bool,
    pub skip_breaker: bool,
    pub hint_used: Option<Hint>,
    pub quota_reset_ms: Option<u64>,
    pub configured_cooldown_ms: Option<u64>,
    pub rule_scope: Option<RuleScope>,
}

impl Decision {
    fn new(retryable: bool, cooldown_ms: u64, reason: Reason, level: u32) -> Self {
        Decision {
            retryable,
            cooldown_ms,
            next_backoff_level: level,
            reason,
            permanent: false,
            credits_exhausted: false,
            daily_quota: false,
            skip_breaker: false,
            hint_used: None,
            quota_reset_ms: None,
            configured_cooldown_ms: None,
            rule_scope: None,
        }
    }
}

/// The structured error of a JSON body: `error.code` / `error.type`, else top-level ones.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Structured {
    pub code: Option<String>,
    pub kind: Option<String>,
}

impl Structured {
    fn from_json(v: &Value) -> Self {
        let holder = match v.get("error") {
            Some(e @ Value::Object(_)) => e,
            _ => v,
        };
        let text = |key: &str| match holder.get(key) {
            Some(Value::String(s)) => Some(s.clone()),
            Some(Value::Number(n)) => Some(n.to_string()),
            _ => None,
        };
        Structured {
            code: text("code"),
            kind: text("type"),
        }
    }

    /// What non-full-text provider rules see: `{"code":…,"type":…}`, lower-cased.
    pub fn rule_text(&self) -> String {
        let mut map = serde_json::Map::new();
        if let Some(c) = &self.code {
            map.insert("code".into(), Value::String(c.clone()));
        }
        if let Some(t) = &self.kind {
            map.insert("type".into(), Value::String(t.clone()));
        }
        Value::Object(map).to_string().to_lowercase()
    }
}

/// A provider rule that matched, with the cooldown it declares (fixed or parsed).
pub struct RuleMatch<'r> {
    pub rule: &'r CompiledProviderRule,
    pub cooldown_ms: Option<u64>,
}

pub struct Ctx<'r, 'i> {
    pub rules: &'r Ruleset,
    pub tuning: &'r Tuning,
    pub input: &'i ErrorInput<'i>,
    /// The status after restatement.
    pub status: u16,
    pub hits: Hits<'r, 'i>,
    pub profile: Option<Profile>,
    /// The provider id as given, lower-cased.
    given: Option<String>,
    json: OnceCell<Option<Value>>,
    hint: OnceCell<Option<Hint>>,
    hint_text: OnceCell<hint::HintText<'i>>,
    text_class: OnceCell<Option<(Reason, String)>>,
    pub fired: Vec<String>,
    pub explain: Vec<String>,
}

impl<'r, 'i> Ctx<'r, 'i> {
    pub fn new(
        rules: &'r Ruleset,
        tuning: &'r Tuning,
        input: &'i ErrorInput<'i>,
        status: u16,
        hits: Hits<'r, 'i>,
        given: Option<String>,
        profile: Option<Profile>,
    ) -> Self {
        Ctx {
            rules,
            tuning,
            input,
            status,
            hits,
            given,
            profile,
            json: OnceCell::new(),
            hint: OnceCell::new(),
            hint_text: OnceCell::new(),
            text_class: OnceCell::new(),
            fired: Vec::new(),
            explain: Vec::new(),
        }
    }

    /// The body prepared for the text hint grammars, made on first use.
    fn hint_text(&self) -> &hint::HintText<'i> {
        self.hint_text
            .get_or_init(|| hint::HintText::new(self.input.body))
    }

    pub fn provider_id(&self) -> Option<&str> {
        self.profile.as_ref().map(|p| p.id.as_str())
    }

    pub fn signal(&self, id: SignalId) -> Option<Hit> {
        if self.input.body.is_empty() {
            return None;
        }
        self.rules.signal(id).hit(&self.hits, self.provider_id())
    }

    /// Records that a signal list influenced the outcome (once per list).
    pub fn note_signal(&mut self, id: SignalId, what: &str) {
        if let Some(hit) = self.signal(id)
            && !self.fired.iter().any(|f| f == id.as_str())
        {
            self.fire_signal(id, hit, what);
        }
    }

    /// Records that a signal list decided the outcome.
    fn fire_signal(&mut self, id: SignalId, hit: Hit, what: &str) {
        self.fired.push(id.as_str().to_string());
        let marker = self.rules.explain_hit(hit);
        self.explain
            .push(format!("signal {} matched {marker}: {what}", id.as_str()));
    }

    /// The body as JSON, parsed at most once and only when it looks like JSON.
    pub fn json(&self) -> Option<&Value> {
        self.json
            .get_or_init(|| {
                let t = self.input.body.trim_start();
                if t.starts_with('{') || t.starts_with('[') {
                    serde_json::from_str(t).ok()
                } else {
                    None
                }
            })
            .as_ref()
    }

    /// The structured error, read only when the body contains a code the pipeline asks about.
    fn structured_gated(&self) -> Structured {
        if self.hits.any_literal(&self.rules.triggers.json).is_none() {
            return Structured::default();
        }
        self.json().map(Structured::from_json).unwrap_or_default()
    }

    fn caps(&self) -> Caps {
        let c = &self.rules.settings.classification;
        Caps {
            short_ms: c.max_short_retry_hint_ms,
            long_ms: c.max_provider_cooldown_ms,
        }
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.input.header(name)
    }

    /// `detectRetryHint`: headers, then the JSON body, then the text. Computed once.
    pub fn hint(&self) -> Option<Hint> {
        *self.hint.get_or_init(|| {
            let caps = self.caps();
            let now = self.input.now_ms;
            if let Some(h) = hint::from_headers(|n| self.header(n).map(str::to_string), now, caps) {
                return Some(h);
            }
            let t = &self.rules.triggers.hint;
            let seen = hint::Seen {
                please_retry: self.hits.literal(t[0]),
                reset: self.hits.literal(t[1]),
                retry_at: self.hits.any_literal(&t[2..]).is_some(),
            };
            let json = if self
                .hits
                .any_literal(&self.rules.triggers.json_hint)
                .is_some()
            {
                self.json()
            } else {
                None
            };
            if json.is_none() && !(seen.please_retry || seen.reset || seen.retry_at) {
                return None;
            }
            hint::from_text(self.hint_text(), json, now, caps, seen)
        })
    }

    fn cooldown_profile(&self) -> Option<&crate::classify::tuning::CooldownTuning> {
        self.profile
            .as_ref()
            .map(|p| self.tuning.cooldown.get(p.auth))
    }

    /// `buildRetryableFallback`: the upstream hint when the profile honours hints, else the
    /// profile's scaled backoff.
    fn retryable(&mut self, reason: Reason) -> Decision {
        let level = self.input.backoff_level;
        if let Some(p) = self.cooldown_profile()
            && p.use_upstream_retry_hints
            && let Some(h) = self.hint().filter(|h| h.ms > 0)
        {
            self.explain.push(format!(
                "upstream retry hint {} ms from {} ({}) used as the cooldown",
                h.ms,
                h.source.as_str(),
                h.form
            ));
            let mut d = Decision::new(true, h.ms, reason, 0);
            d.hint_used = Some(h);
            return d;
        }
        let c = &self.rules.settings.classification;
        let (base, steps, cap) = match self.cooldown_profile() {
            Some(p) => (
                p.base_cooldown_ms,
                p.max_backoff_steps,
                self.tuning.lockout_max_cooldown_ms,
            ),
            None => (
                c.default_base_cooldown_ms,
                c.no_profile_max_backoff_steps,
                c.no_profile_cap_ms,
            ),
        };
        let exp = level.min(steps);
        let factor = 1u64.checked_shl(exp).unwrap_or(u64::MAX);
        let cooldown = base.saturating_mul(factor).min(cap);
        let next = level.saturating_add(1).min(steps);
        self.explain.push(format!(
            "backoff: {base} ms x 2^{exp} capped at {cap} ms = {cooldown} ms (level {level} -> {next})"
        ));
        Decision::new(true, cooldown, reason, next)
    }

    /// The body provider rules see: raw text for full-text providers, operator rules and
    /// `body: raw` rules, else the structured `{code, type}`.
    fn rule_body_matches(&self, r: &CompiledProviderRule, provider: &str) -> bool {
        if r.body.is_empty() {
            return true;
        }
        let raw = r.operator
            || r.rule.body == crate::rules::model::BodySource::Raw
            || self.rules.full_text(provider)
            || self.input.body.trim().is_empty();
        if raw {
            return self.hits.any_literal(&r.body).is_some();
        }
        // A marker absent from the raw body cannot be in its code or type either.
        if self.hits.any_literal(&r.body).is_none() {
            return false;
        }
        let text = self
            .json()
            .map(Structured::from_json)
            .unwrap_or_default()
            .rule_text();
        r.body_lower.iter().any(|m| text.contains(m.as_str()))
    }

    fn rule_headers_match(&self, r: &CompiledProviderRule) -> bool {
        if r.headers.is_empty() {
            return true;
        }
        r.headers.iter().any(|(name, cond)| {
            let Some(value) = self.header(name) else {
                return false;
            };
            if let Some(want) = &cond.equals {
                return value == want;
            }
            if let Some(want) = &cond.list_value_equals {
                return value
                    .split(',')
                    .filter_map(|pair| pair.split_once('='))
                    .any(|(_, v)| v.trim() == want);
            }
            false
        })
    }

    /// `getProviderErrorRuleMatch`: operator rules first, then built-ins; first match wins.
    pub fn provider_rule(&self) -> Option<RuleMatch<'r>> {
        let profile = self.profile.as_ref()?;
        let given = self.given.as_deref().unwrap_or_default();
        for r in &self.rules.provider_rules {
            let for_provider = r.providers.iter().any(|p| *p == profile.id || p == given);
            if !for_provider || !r.rule.status.contains(&self.status) {
                continue;
            }
            if !self.rule_headers_match(r) || !self.rule_body_matches(r, &profile.id) {
                continue;
            }
            let cooldown_ms = match r.rule.cooldown_from {
                Some(CooldownFrom::ResetCountdown) => {
                    match hint::reset_countdown_ms(self.hint_text()) {
                        Some(ms) => Some(ms),
                        None => continue,
                    }
                }
                None => r.rule.cooldown_ms,
            };
            return Some(RuleMatch {
                rule: r,
                cooldown_ms,
            });
        }
        None
    }

    fn note_rule(&mut self, m: &RuleMatch<'_>) {
        let r = &m.rule.rule;
        self.fired.push(r.id.clone());
        let who = if m.rule.operator {
            "operator rule"
        } else {
            "provider rule"
        };
        self.explain.push(format!(
            "{who} {} matched (status {}): reason {}, scope {}{}",
            r.id,
            self.status,
            r.reason.as_str(),
            r.scope.as_str(),
            m.cooldown_ms
                .map(|c| format!(", cooldown {c} ms"))
                .unwrap_or_default()
        ));
    }

    /// A rule scope travels on only for honoured providers.
    fn honoured_scope(&mut self, scope: RuleScope) -> Option<RuleScope> {
        let provider = self.provider_id()?.to_string();
        if self.rules.honors_scope(&provider) {
            Some(scope)
        } else {
            self.explain.push(format!(
                "scope {} is informational only: {provider} is not in honors_rule_lock_scope_providers",
                scope.as_str()
            ));
            None
        }
    }

    /// A rule's declared cooldown wins over the scaled one (backoff level resets); without one
    /// the retryable builder decides.
    fn rule_base(&mut self, m: &RuleMatch<'_>, reason: Reason) -> Decision {
        match m.cooldown_ms.filter(|&ms| ms > 0) {
            Some(ms) => Decision::new(true, ms, reason, 0),
            None => self.retryable(reason),
        }
    }

    /// Applies a matched provider rule on top of a retryable decision.
    fn with_rule(&mut self, mut d: Decision, m: &RuleMatch<'_>) -> Decision {
        d.reason = m.rule.rule.reason;
        if let Some(ms) = m.cooldown_ms.filter(|&ms| ms > 0) {
            d.cooldown_ms = ms;
            d.next_backoff_level = 0;
            d.configured_cooldown_ms = Some(ms);
            d.hint_used = None;
        }
        d.rule_scope = self.honoured_scope(m.rule.rule.scope);
        d
    }

    fn should_preserve_quota_signals(&mut self) -> bool {
        match &self.profile {
            None => true,
            Some(p) if p.auth == AuthClass::Oauth => true,
            Some(_) => {
                let quota = self.signal(SignalId::QuotaPatterns).is_some();
                if quota && self.status == 429 {
                    self.note_signal(
                        SignalId::QuotaPatterns,
                        "quota text keeps the quota meaning of an API-key 429",
                    );
                }
                quota
            }
        }
    }

    /// `classifyErrorText`: what the text alone says, and the list or rule that said it.
    /// Computed once: the hint step and the output both ask.
    pub fn classify_error_text(&self) -> Option<(Reason, String)> {
        self.text_class
            .get_or_init(|| self.classify_error_text_uncached())
            .clone()
    }

    fn classify_error_text_uncached(&self) -> Option<(Reason, String)> {
        if self.input.body.is_empty() {
            return None;
        }
        let families = [
            (SignalId::TextQuotaPhrases, Reason::QuotaExhausted),
            (SignalId::QuotaPatterns, Reason::QuotaExhausted),
            (SignalId::SubscriptionQuota, Reason::QuotaExhausted),
            (SignalId::CreditsExhausted, Reason::QuotaExhausted),
            (SignalId::AccountDeactivated, Reason::AuthError),
        ];
        for (id, reason) in families {
            if self.signal(id).is_some() {
                return Some((reason, id.as_str().to_string()));
            }
        }
        if let Some(r) = self
            .rules
            .error_rules
            .iter()
            .find(|r| r.text.is_some_and(|id| self.hits.literal(id)))
        {
            return Some((r.rule.reason, r.rule.id.clone()));
        }
        let tail = [
            (SignalId::TextRateLimit, Reason::RateLimitExceeded),
            (SignalId::TextCapacity, Reason::ModelCapacity),
            (SignalId::TextAuth, Reason::AuthError),
            (SignalId::TextServer, Reason::ServerError),
        ];
        tail.into_iter()
            .find(|(id, _)| self.signal(*id).is_some())
            .map(|(id, reason)| (reason, id.as_str().to_string()))
    }

    /// `classifyErrorText(text) == quota_exhausted` (the hint step 6.11).
    fn text_says_quota(&mut self) -> bool {
        match self.classify_error_text() {
            Some((Reason::QuotaExhausted, by)) => {
                self.fired.push(by.clone());
                self.explain.push(format!("the text reads as quota ({by})"));
                true
            }
            _ => false,
        }
    }

    /// The whole decision, first hit returns.
    pub fn decide(&mut self) -> Decision {
        let c = &self.rules.settings.classification;
        let status = self.status;
        let level = self.input.backoff_level;
        let structured = self.structured_gated();

        // 1. executor contract violation
        if structured.code.as_deref() == Some(c.executor_contract_violation_code.as_str()) {
            self.explain.push(
                "structured code executor_contract_violation: no fallback, not a breaker failure"
                    .into(),
            );
            let mut d = Decision::new(false, 0, Reason::ExecutorContractViolation, level);
            d.skip_breaker = true;
            return d;
        }
        // 2. previous_response_id bound to another account
        let binding_code =
            structured.code.as_deref() == Some(c.previous_response_binding_code.as_str());
        let binding_text = status == c.previous_response_binding_status
            && self.signal(SignalId::PreviousResponseBinding).is_some();
        if binding_code || binding_text {
            if let (true, Some(hit)) =
                (binding_text, self.signal(SignalId::PreviousResponseBinding))
            {
                self.fire_signal(
                    SignalId::PreviousResponseBinding,
                    hit,
                    "response bound to another account",
                );
            }
            self.explain.push(
                "invalid previous_response binding: no fallback, not a breaker failure".into(),
            );
            let mut d = Decision::new(false, 0, Reason::InvalidPreviousResponseBinding, level);
            d.skip_breaker = true;
            return d;
        }
        // 3. service supervisor hint
        let sup = &c.service_supervisor;
        if status == sup.status
            && self
                .header(&sup.header)
                .is_some_and(|v| v.trim().eq_ignore_ascii_case(&sup.value))
        {
            self.explain.push(format!(
                "{}: {} on {status}: service not running, {} ms",
                sup.header, sup.value, sup.cooldown_ms
            ));
            let mut d = Decision::new(true, sup.cooldown_ms, Reason::ServiceNotRunning, 0);
            d.skip_breaker = true;
            return d;
        }
        // 5. quota-signal gating
        let preserve = self.should_preserve_quota_signals();
        let use_quota = status != 429 || preserve;
        if status == 429 && !preserve {
            self.explain
                .push("API-key 429 without quota text: quota signals are not consulted".into());
        }

        // 6. the text block
        if !self.input.body.is_empty()
            && let Some(d) = self.text_block(use_quota, status, level)
        {
            return d;
        }
        // 7. global rules
        if let Some(d) = self.global_rules(preserve) {
            return d;
        }
        // 8. retryable statuses
        if c.retryable_statuses.contains(&status) {
            self.explain
                .push(format!("status {status} is retryable: server_error"));
            return self.retryable(Reason::ServerError);
        }
        // 9. plan limit (432)
        if status == c.plan_limit_status {
            if let Some(hit) = self.signal(SignalId::SubscriptionQuota) {
                self.fire_signal(
                    SignalId::SubscriptionQuota,
                    hit,
                    "plan limit with subscription text",
                );
                return self.subscription();
            }
            let ms = self.hint().map_or(c.plan_limit_cooldown_ms, |h| h.ms);
            self.explain.push(format!(
                "status {status} is a plan limit: quota_exhausted for {ms} ms"
            ));
            return Decision::new(true, ms, Reason::QuotaExhausted, level);
        }
        // 10. the 400 family
        if status == 400 {
            return self.bad_request(&structured);
        }
        // 11. anything else
        let base = self
            .cooldown_profile()
            .map_or(c.default_base_cooldown_ms, |p| p.base_cooldown_ms);
        self.explain.push(format!(
            "status {status} matched nothing: fallback with the base cooldown {base} ms"
        ));
        Decision::new(true, base, Reason::Unknown, level)
    }

    fn subscription(&mut self) -> Decision {
        let c = &self.rules.settings.classification;
        let hints = self
            .cooldown_profile()
            .is_some_and(|p| p.use_upstream_retry_hints);
        let body_hint = self.hint();
        let ms = match (hints, body_hint) {
            (true, Some(h)) => h.ms,
            _ => c.subscription_cooldown_ms,
        };
        let mut d = Decision::new(true, ms, Reason::QuotaExhausted, self.input.backoff_level);
        d.quota_reset_ms = body_hint.map(|h| h.ms);
        if hints && body_hint.is_some() {
            d.hint_used = body_hint;
        }
        self.explain.push(format!(
            "subscription usage wall: quota_exhausted for {ms} ms"
        ));
        d
    }

    fn text_block(&mut self, use_quota: bool, status: u16, level: u32) -> Option<Decision> {
        let rules = self.rules;
        let c = &rules.settings.classification;
        // 6.1 banned
        if let Some(hit) = self.signal(SignalId::AccountDeactivated) {
            self.fire_signal(
                SignalId::AccountDeactivated,
                hit,
                "account deactivated, permanent",
            );
            let mut d = Decision::new(true, c.banned_cooldown_ms, Reason::AuthError, level);
            d.permanent = true;
            return Some(d);
        }
        // 6.2 retired model
        if matches!(status, 404 | 410)
            && let Some(hit) = self.signal(SignalId::ModelPermanentlyUnavailable)
        {
            self.fire_signal(SignalId::ModelPermanentlyUnavailable, hit, "model retired");
            let mut d = Decision::new(true, c.model_gone_cooldown_ms, Reason::NotFound, level);
            d.quota_reset_ms = Some(c.model_gone_cooldown_ms);
            return Some(d);
        }
        // 6.3 endpoint moved
        if let Some(hit) = self.signal(SignalId::EndpointPermanentlyMoved) {
            self.fire_signal(SignalId::EndpointPermanentlyMoved, hit, "endpoint moved");
            let mut d = Decision::new(true, c.endpoint_moved_cooldown_ms, Reason::NotFound, level);
            d.quota_reset_ms = Some(c.endpoint_moved_cooldown_ms);
            return Some(d);
        }
        // 6.4 billing suspension
        if let Some(hit) = self.signal(SignalId::AccountSuspendedBilling) {
            self.fire_signal(
                SignalId::AccountSuspendedBilling,
                hit,
                "account suspended for billing",
            );
            let mut d = Decision::new(
                true,
                c.billing_suspended_cooldown_ms,
                Reason::QuotaExhausted,
                level,
            );
            d.credits_exhausted = true;
            return Some(d);
        }
        // 6.5 Gemini per-model metrics
        if self.provider_id() == Some("gemini") && status == 429 && self.input.model.is_some() {
            if let Some(hit) = self.signal(SignalId::GeminiDailyMetric) {
                self.fire_signal(SignalId::GeminiDailyMetric, hit, "Gemini per-day metric");
                return Some(self.retryable(Reason::QuotaExhausted));
            }
            if let Some(hit) = self.signal(SignalId::GeminiMinuteMetric) {
                self.fire_signal(
                    SignalId::GeminiMinuteMetric,
                    hit,
                    "Gemini per-minute metric",
                );
            } else {
                self.explain
                    .push("Gemini 429 with no metric named: rate limit".into());
            }
            return Some(self.retryable(Reason::RateLimitExceeded));
        }
        if use_quota {
            // 6.6 credits
            if let Some(hit) = self.signal(SignalId::CreditsExhausted) {
                let compatible = self
                    .profile
                    .as_ref()
                    .is_some_and(|p| p.has(ProviderTag::Compatible));
                let moonshot = self.signal(SignalId::MoonshotEmptyWallet);
                if !compatible || moonshot.is_some() {
                    if compatible {
                        self.note_signal(
                            SignalId::MoonshotEmptyWallet,
                            "empty-wallet body trusted on a compatible endpoint",
                        );
                    }
                    self.fire_signal(SignalId::CreditsExhausted, hit, "credits exhausted");
                    let mut d =
                        Decision::new(true, c.credits_cooldown_ms, Reason::QuotaExhausted, level);
                    d.credits_exhausted = true;
                    return Some(d);
                }
                self.explain
                    .push("credits text on a compatible endpoint is not trusted as billing".into());
            }
            // 6.7 daily quota
            if let Some(d) = self.daily(level) {
                return Some(d);
            }
            // 6.8 subscription wall
            if let Some(hit) = self.signal(SignalId::SubscriptionQuota) {
                self.fire_signal(SignalId::SubscriptionQuota, hit, "subscription usage limit");
                return Some(self.subscription());
            }
        }
        // 6.9 weekly
        if let Some(hit) = self.signal(SignalId::WeeklyQuota) {
            self.fire_signal(SignalId::WeeklyQuota, hit, "weekly usage limit");
            let parsed = hint::day_granularity(
                self.hint_text(),
                self.input.now_ms,
                c.weekly_max_cooldown_ms,
            );
            let ms = parsed.map_or(c.weekly_default_cooldown_ms, |h| h.ms);
            self.explain.push(match parsed {
                Some(h) => format!("weekly reset parsed ({}): {ms} ms", h.form),
                None => format!("no weekly reset in the text: default {ms} ms"),
            });
            let mut d = Decision::new(true, ms, Reason::QuotaExhausted, level);
            d.quota_reset_ms = parsed.map(|h| h.ms);
            return Some(d);
        }
        // 6.10 session
        if let Some(hit) = self.signal(SignalId::SessionQuota) {
            self.fire_signal(SignalId::SessionQuota, hit, "session usage limit");
            return Some(Decision::new(
                true,
                c.session_cooldown_ms,
                Reason::QuotaExhausted,
                level,
            ));
        }
        // 6.11 a hint on quota text
        let body_hint = self.hint();
        if use_quota && body_hint.is_some() && self.text_says_quota() {
            self.explain.push("quota text with a retry hint".into());
            let mut d = self.retryable(Reason::QuotaExhausted);
            d.quota_reset_ms = body_hint.map(|h| h.ms);
            return Some(d);
        }
        if status == 403 {
            // 6.12 route not authorized
            if let Some(hit) = self.signal(SignalId::RouteNotAuthorized) {
                self.fire_signal(
                    SignalId::RouteNotAuthorized,
                    hit,
                    "route not authorized: the key stays usable",
                );
                return Some(Decision::new(false, 0, Reason::Unknown, level));
            }
            // 6.13 honoured provider rule
            let honoured = self
                .provider_id()
                .is_some_and(|p| self.rules.honors_scope(p));
            if honoured && let Some(m) = self.provider_rule() {
                self.note_rule(&m);
                let d = self.rule_base(&m, m.rule.rule.reason);
                return Some(self.with_rule(d, &m));
            }
            // 6.14 API-key 403
            let apikey = self
                .profile
                .as_ref()
                .is_some_and(|p| p.auth == AuthClass::Apikey);
            let exempt = apikey && self.signal(SignalId::ApiKey403Exempt).is_some();
            if exempt {
                self.note_signal(
                    SignalId::ApiKey403Exempt,
                    "not a credential problem: the API-key 403 path is skipped",
                );
            }
            if apikey && !exempt {
                if let Some(hit) = self.signal(SignalId::CloudflareNonRetryable) {
                    self.fire_signal(
                        SignalId::CloudflareNonRetryable,
                        hit,
                        "Cloudflare refusal: no cooldown",
                    );
                    return Some(Decision::new(true, 0, Reason::AuthError, level));
                }
                self.explain.push("API-key 403: auth_error".into());
                return Some(self.retryable(Reason::AuthError));
            }
        }
        None
    }

    fn daily(&mut self, level: u32) -> Option<Decision> {
        let rules = self.rules;
        let c = &rules.settings.classification;
        let now = self.input.now_ms;
        if let Some(hit) = self.signal(SignalId::DailyResetPreemption)
            && let Some(at) = hint::quota_resets_at(self.hint_text())
        {
            let wait = at.saturating_sub(now).max(0) as u64;
            let ms = wait.clamp(c.daily_preemption_min_ms, c.daily_preemption_max_ms);
            self.fire_signal(
                SignalId::DailyResetPreemption,
                hit,
                "daily quota with a reset instant",
            );
            let mut d = Decision::new(true, ms, Reason::QuotaExhausted, level);
            d.daily_quota = true;
            d.quota_reset_ms = Some(ms);
            return Some(d);
        }
        let hit = self.signal(SignalId::DailyQuota)?;
        if self.signal(SignalId::TpdRateLimit).is_some() {
            let header_reset = self
                .header("x-ratelimit-reset")
                .and_then(|v| hint::from_ratelimit_reset(v, now, self.caps()));
            match header_reset {
                Some(h) => {
                    self.fire_signal(SignalId::TpdRateLimit, hit, "tokens-per-day limit");
                    self.explain
                        .push(format!("TPD reset from x-ratelimit-reset: {} ms", h.ms));
                    let mut d = Decision::new(
                        true,
                        h.ms.min(c.daily_max_cooldown_ms),
                        Reason::QuotaExhausted,
                        level,
                    );
                    d.daily_quota = true;
                    d.hint_used = Some(h);
                    return Some(d);
                }
                None => {
                    self.explain
                        .push("TPD text without a known reset: not treated as daily".into());
                    return None;
                }
            }
        }
        self.fire_signal(SignalId::DailyQuota, hit, "daily quota");
        let ms = ms_until_daily_reset(now, c.daily_reset_hour_utc).min(c.daily_max_cooldown_ms);
        self.explain.push(format!(
            "until the daily reset ({:02}:00 UTC): {ms} ms",
            c.daily_reset_hour_utc
        ));
        let mut d = Decision::new(true, ms, Reason::QuotaExhausted, level);
        d.daily_quota = true;
        Some(d)
    }

    fn global_rules(&mut self, preserve: bool) -> Option<Decision> {
        let status = self.status;
        // An API-key 429 without quota text is matched by its status alone (a.3 step 7).
        let text_rules = (status != 429 || preserve) && !self.input.body.is_empty();
        let mut found = None;
        if text_rules {
            found = self
                .rules
                .error_rules
                .iter()
                .find(|r| r.text.is_some_and(|id| self.hits.literal(id)));
        }
        if found.is_none() {
            found = self
                .rules
                .error_rules
                .iter()
                .find(|r| r.rule.status == Some(status));
        }
        let rule = found?.rule.clone();
        self.fired.push(rule.id.clone());
        let what = match (&rule.text, rule.status) {
            (Some(t), _) => format!("text '{t}'"),
            (None, Some(s)) => format!("status {s}"),
            _ => String::new(),
        };
        self.explain.push(format!(
            "global rule {} matched {what}: {}",
            rule.id,
            rule.reason.as_str()
        ));
        let prov = self.provider_rule();
        if let Some(m) = &prov {
            self.note_rule(m);
        }
        if rule.backoff {
            let reason = prov.as_ref().map_or(rule.reason, |m| m.rule.rule.reason);
            return Some(match &prov {
                Some(m) => {
                    let d = self.rule_base(m, reason);
                    self.with_rule(d, m)
                }
                None => self.retryable(reason),
            });
        }
        let level = self.input.backoff_level;
        let cooldown = prov
            .as_ref()
            .and_then(|m| m.cooldown_ms)
            .or(rule.cooldown_ms)
            .unwrap_or(0);
        let reason = prov.as_ref().map_or(rule.reason, |m| m.rule.rule.reason);
        let mut d = Decision::new(true, cooldown, reason, level);
        if let Some(m) = &prov {
            d.configured_cooldown_ms = m.cooldown_ms;
            d.rule_scope = self.honoured_scope(m.rule.rule.scope);
        }
        Some(d)
    }

    fn bad_request(&mut self, structured: &Structured) -> Decision {
        let rules = self.rules;
        let c = &rules.settings.classification;
        let level = self.input.backoff_level;
        // Beyond the reference: provider rules for 400 are consulted (its documented gap).
        if let Some(m) = self.provider_rule() {
            self.note_rule(&m);
            self.explain.push("provider rules are consulted for 400 (a documented gap of the reference, closed here)".into());
            let base = self.rule_base(&m, m.rule.rule.reason);
            return self.with_rule(base, &m);
        }
        let code_hit = structured
            .code
            .as_ref()
            .is_some_and(|code| c.model_access_codes.contains(code));
        let type_hit = structured
            .kind
            .as_ref()
            .is_some_and(|t| c.model_access_types.contains(t));
        let ambiguous = structured
            .kind
            .as_ref()
            .is_some_and(|t| c.model_access_ambiguous_types.contains(t));
        let auth = self.signal(SignalId::AuthCredentialError);
        let access_text = if auth.is_some() {
            None
        } else {
            self.signal(SignalId::ModelAccessDenied)
        };
        if code_hit || type_hit || (ambiguous && self.signal(SignalId::ModelAccessDenied).is_some())
        {
            self.explain.push(format!(
                "structured error {{code: {}, type: {}}} denies the model: model_capacity, no cooldown",
                structured.code.as_deref().unwrap_or("-"),
                structured.kind.as_deref().unwrap_or("-")
            ));
            return Decision::new(true, 0, Reason::ModelCapacity, level);
        }
        if auth.is_some() {
            self.note_signal(
                SignalId::AuthCredentialError,
                "credential text suppresses the model-access reading",
            );
        }
        let checks = [
            (SignalId::ContextOverflow, "context overflow"),
            (SignalId::MalformedRequest, "malformed request"),
            (SignalId::ParamValidation, "parameter validation"),
            (SignalId::ModelAccessDenied, "model access"),
            (SignalId::NimFunctionDegraded, "NIM function degraded"),
        ];
        for (id, what) in checks {
            let hit = if id == SignalId::ModelAccessDenied {
                access_text
            } else {
                self.signal(id)
            };
            if let Some(hit) = hit {
                self.fire_signal(id, hit, &format!("{what}: fallback, no cooldown"));
                return Decision::new(true, 0, Reason::ModelCapacity, level);
            }
        }
        if let Some(hit) = self.signal(SignalId::RateLimitText) {
            self.fire_signal(SignalId::RateLimitText, hit, "a 400 that is a rate limit");
            return self.retryable(Reason::RateLimitExceeded);
        }
        self.explain
            .push("400 with no known pattern: the request itself is bad, no fallback".into());
        Decision::new(false, 0, Reason::Unknown, level)
    }
}

/// Whether a hint is authoritative enough to exceed the model-lockout cap.
pub fn authoritative(h: &Hint) -> bool {
    matches!(
        h.source,
        HintSource::Header | HintSource::GoogleRpcRetryInfo
    )
}
