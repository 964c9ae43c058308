//! The resolved numbers the classifier uses: catalog defaults, later overridden by settings
//! (clamped to the catalog's ranges).

use crate::rules::compile::Ruleset;
use crate::rules::model::{AuthClass, ByAuth, CooldownProfile};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CooldownTuning {
    pub base_cooldown_ms: u64,
    pub max_backoff_steps: u32,
    pub use_upstream_retry_hints: bool,
}

impl CooldownTuning {
    fn defaults(p: &CooldownProfile) -> Self {
        CooldownTuning {
            base_cooldown_ms: p.base_cooldown_ms.default,
            max_backoff_steps: u32::try_from(p.max_backoff_steps.default).unwrap_or(u32::MAX),
            use_upstream_retry_hints: p.use_upstream_retry_hints,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CooldownByAuth {
    pub oauth: CooldownTuning,
    pub apikey: CooldownTuning,
    pub local: CooldownTuning,
}

impl CooldownByAuth {
    pub fn get(&self, auth: AuthClass) -> &CooldownTuning {
        match auth {
            AuthClass::Oauth => &self.oauth,
            AuthClass::Apikey => &self.apikey,
            AuthClass::Local => &self.local,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tuning {
    pub cooldown: CooldownByAuth,
    /// Caps scaled connection backoff and model lockouts (model_lockout.max_cooldown_ms).
    pub lockout_max_cooldown_ms: u64,
    pub breaker_trip_statuses: Vec<u16>,
    pub breaker_count_429: bool,
}

impl Tuning {
    pub fn defaults(rules: &Ruleset) -> Self {
        let s = &rules.settings;
        let by: &ByAuth<CooldownProfile> = &s.connection_cooldown.profiles;
        Tuning {
            cooldown: CooldownByAuth {
                oauth: CooldownTuning::defaults(&by.oauth),
                apikey: CooldownTuning::defaults(&by.apikey),
                local: CooldownTuning::defaults(&by.local),
            },
            lockout_max_cooldown_ms: s.model_lockout.max_cooldown_ms.default,
            breaker_trip_statuses: s.circuit_breaker.trip_statuses.clone(),
            breaker_count_429: s.circuit_breaker.count_429,
        }
    }
}
