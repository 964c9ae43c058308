//! The rule file types. One struct per file kind; serde reads the YAML into them, schemars
//! derives the committed JSON Schemas from them, and build.rs includes this file verbatim,
//! so it must not name anything under `crate::`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Declares a one-value enum so that each file's `kind:` is pinned in its schema.
macro_rules! kind_tag {
    ($name:ident, $value:literal) => {
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
        pub enum $name {
            #[serde(rename = $value)]
            Tag,
        }
    };
}

kind_tag!(ProvidersKind, "providers");
kind_tag!(SignalsKind, "signals");
kind_tag!(ErrorRulesKind, "error_rules");
kind_tag!(ProviderRulesKind, "provider_rules");
kind_tag!(RestatementsKind, "restatements");
kind_tag!(AllowlistsKind, "allowlists");
kind_tag!(ResilienceKind, "resilience");

/// The file kinds, in the order their schemas are listed.
pub const FILE_KINDS: [&str; 7] = [
    "providers",
    "signals",
    "error_rules",
    "provider_rules",
    "restatements",
    "allowlists",
    "resilience",
];

/// The failure reasons of the reference vocabulary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    QuotaExhausted,
    RateLimitExceeded,
    ModelCapacity,
    ServerError,
    AuthError,
    NotFound,
    Unknown,
    ServiceNotRunning,
    ExecutorContractViolation,
    InvalidPreviousResponseBinding,
}

impl Reason {
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::QuotaExhausted => "quota_exhausted",
            Reason::RateLimitExceeded => "rate_limit_exceeded",
            Reason::ModelCapacity => "model_capacity",
            Reason::ServerError => "server_error",
            Reason::AuthError => "auth_error",
            Reason::NotFound => "not_found",
            Reason::Unknown => "unknown",
            Reason::ServiceNotRunning => "service_not_running",
            Reason::ExecutorContractViolation => "executor_contract_violation",
            Reason::InvalidPreviousResponseBinding => "invalid_previous_response_binding",
        }
    }
}

/// Where a provider rule's lock lands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RuleScope {
    Model,
    Provider,
    Connection,
}

impl RuleScope {
    pub fn as_str(self) -> &'static str {
        match self {
            RuleScope::Model => "model",
            RuleScope::Provider => "provider",
            RuleScope::Connection => "connection",
        }
    }
}

/// The auth class of a provider: it picks the breaker, cooldown and quota-signal profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AuthClass {
    Oauth,
    Apikey,
    Local,
}

impl AuthClass {
    pub fn as_str(self) -> &'static str {
        match self {
            AuthClass::Oauth => "oauth",
            AuthClass::Apikey => "apikey",
            AuthClass::Local => "local",
        }
    }
}

/// Traits of a provider that some checks depend on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ProviderTag {
    /// Google API surface: a 400/403 region refusal is `geo_blocked`, not a ban.
    GoogleSurface,
    /// Cloud Code backend: a 403 is a project/route problem, not a ban.
    CloudCode,
    /// Authenticated by a browser cookie: a 401 does not mean `expired`.
    WebCookie,
    /// An `openai-compatible-*` / `anthropic-compatible-*` endpoint.
    Compatible,
}

// ---------------------------------------------------------------------------------------------
// providers

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProvidersFile {
    pub kind: ProvidersKind,
    pub providers: Vec<ProviderProfile>,
    #[serde(default)]
    pub prefixes: Vec<PrefixProfile>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProviderProfile {
    /// Lower-case provider id.
    #[schemars(regex(pattern = r"^[a-z0-9][a-z0-9._-]*$"))]
    pub id: String,
    pub auth: AuthClass,
    /// Failures land on model lockouts rather than the connection cooldown.
    #[serde(default)]
    pub per_model_quota: bool,
    #[serde(default)]
    pub aliases: Vec<String>,
    #[serde(default)]
    pub tags: Vec<ProviderTag>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PrefixProfile {
    /// Any provider id starting with this prefix gets this profile.
    #[schemars(length(min = 1))]
    pub prefix: String,
    pub auth: AuthClass,
    #[serde(default)]
    pub per_model_quota: bool,
    #[serde(default)]
    pub tags: Vec<ProviderTag>,
}

// ---------------------------------------------------------------------------------------------
// signals

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SignalsFile {
    pub kind: SignalsKind,
    pub signals: Vec<SignalList>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SignalList {
    #[schemars(regex(pattern = r"^[a-z0-9][a-z0-9_-]*$"))]
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Case-insensitive substrings.
    #[serde(default)]
    pub literals: Vec<String>,
    /// Case-insensitive regular expressions (Rust `regex` syntax).
    #[serde(default)]
    pub regexes: Vec<String>,
    /// Groups of substrings that must all be present.
    #[serde(default)]
    pub all_of: Vec<Vec<String>>,
    /// Extra substrings that count only for the named providers.
    #[serde(default)]
    pub only_for: Vec<ProviderLiterals>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProviderLiterals {
    pub providers: Vec<String>,
    pub literals: Vec<String>,
}

// ---------------------------------------------------------------------------------------------
// global error rules

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ErrorRulesFile {
    pub kind: ErrorRulesKind,
    pub rules: Vec<GlobalRule>,
}

/// One global rule: either a text rule (`text`) or a status rule (`status`); either a fixed
/// cooldown (`cooldown_ms`) or the scaled backoff (`backoff: true`).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GlobalRule {
    #[schemars(regex(pattern = r"^[a-z0-9][a-z0-9_.-]*$"))]
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 100, max = 599))]
    pub status: Option<u16>,
    pub reason: Reason,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cooldown_ms: Option<u64>,
    #[serde(default)]
    pub backoff: bool,
}

// ---------------------------------------------------------------------------------------------
// provider error rules

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProviderRulesFile {
    pub kind: ProviderRulesKind,
    pub rules: Vec<ProviderRule>,
}

/// Which text a provider rule's body markers are matched against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "snake_case")]
pub enum BodySource {
    /// Raw text for full-text providers and operator rules, else the structured `{code, type}`.
    #[default]
    Auto,
    /// Always the raw error text.
    Raw,
}

/// Where a rule's cooldown comes from when it is not a fixed number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CooldownFrom {
    /// "reset(s) in N day(s)|hour(s)|minute(s)|second(s)" in the body; no match without it.
    ResetCountdown,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProviderRule {
    #[schemars(regex(pattern = r"^[a-z0-9][a-z0-9_.-]*$"))]
    pub id: String,
    #[schemars(length(min = 1))]
    pub providers: Vec<String>,
    #[schemars(length(min = 1), inner(range(min = 100, max = 599)))]
    pub status: Vec<u16>,
    /// Any of these case-insensitive substrings in the body.
    #[serde(default)]
    pub body_any: Vec<String>,
    #[serde(default)]
    pub body: BodySource,
    /// Any of these header conditions.
    #[serde(default)]
    pub headers_any: Vec<HeaderCondition>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cooldown_from: Option<CooldownFrom>,
    #[serde(default = "default_rule_reason")]
    pub reason: Reason,
    pub scope: RuleScope,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cooldown_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

fn default_rule_reason() -> Reason {
    Reason::QuotaExhausted
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HeaderCondition {
    /// Header name (case-insensitive).
    #[schemars(length(min = 1))]
    pub name: String,
    /// The whole value equals this string exactly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub equals: Option<String>,
    /// The value is a comma list of `name=value`; any trimmed value equals this string.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_value_equals: Option<String>,
}

// ---------------------------------------------------------------------------------------------
// status restatements

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RestatementsFile {
    pub kind: RestatementsKind,
    pub rules: Vec<Restatement>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Restatement {
    #[schemars(regex(pattern = r"^[a-z0-9][a-z0-9_.-]*$"))]
    pub id: String,
    pub provider: String,
    #[schemars(length(min = 1), inner(range(min = 100, max = 599)))]
    pub from_statuses: Vec<u16>,
    #[schemars(range(min = 100, max = 599))]
    pub to_status: u16,
    #[schemars(length(min = 1))]
    pub text_markers: Vec<String>,
    #[serde(default)]
    pub exclude_markers: Vec<String>,
    /// What the client is told when the upstream gave no hint.
    pub default_retry_after_ms: u64,
}

// ---------------------------------------------------------------------------------------------
// allowlists

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AllowlistsFile {
    pub kind: AllowlistsKind,
    pub full_text_rule_providers: Vec<String>,
    pub honors_rule_lock_scope_providers: Vec<String>,
    pub egress_bucketed_lock_providers: Vec<String>,
}

// ---------------------------------------------------------------------------------------------
// resilience defaults

/// A tunable number: its default and the range that overrides are clamped to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Knob {
    pub default: u64,
    pub min: u64,
    pub max: u64,
}

impl Knob {
    pub fn clamp(&self, value: u64) -> u64 {
        value.clamp(self.min, self.max.max(self.min))
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResilienceFile {
    pub kind: ResilienceKind,
    pub classification: ClassificationDefaults,
    pub cooldown_ms: BTreeMap<String, u64>,
    pub backoff: BackoffDefaults,
    pub circuit_breaker: BreakerDefaults,
    pub provider_cooldown: ProviderCooldownDefaults,
    pub connection_cooldown: ConnectionCooldownDefaults,
    pub model_lockout: ModelLockoutDefaults,
    pub request_queue: RequestQueueDefaults,
    pub combo_cooldown_wait: ComboCooldownWaitDefaults,
    pub wait_for_cooldown: WaitForCooldownDefaults,
    pub session_affinity: SessionAffinityDefaults,
    pub stream: StreamDefaults,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClassificationDefaults {
    pub banned_cooldown_ms: u64,
    pub model_gone_cooldown_ms: u64,
    pub endpoint_moved_cooldown_ms: u64,
    pub billing_suspended_cooldown_ms: u64,
    pub credits_cooldown_ms: u64,
    pub subscription_cooldown_ms: u64,
    pub weekly_default_cooldown_ms: u64,
    pub weekly_max_cooldown_ms: u64,
    pub session_cooldown_ms: u64,
    #[schemars(range(min = 100, max = 599))]
    pub plan_limit_status: u16,
    pub plan_limit_cooldown_ms: u64,
    pub daily_max_cooldown_ms: u64,
    #[schemars(range(max = 23))]
    pub daily_reset_hour_utc: u8,
    pub daily_preemption_min_ms: u64,
    pub daily_preemption_max_ms: u64,
    pub default_base_cooldown_ms: u64,
    pub no_profile_cap_ms: u64,
    pub no_profile_max_backoff_steps: u32,
    pub retryable_statuses: Vec<u16>,
    pub retry_after_eligible_statuses: Vec<u16>,
    pub max_short_retry_hint_ms: u64,
    pub max_provider_cooldown_ms: u64,
    pub short_retry_hint_threshold_ms: u64,
    pub executor_contract_violation_code: String,
    pub previous_response_binding_code: String,
    pub previous_response_binding_status: u16,
    pub service_supervisor: ServiceSupervisor,
    pub model_access_codes: Vec<String>,
    pub model_access_types: Vec<String>,
    pub model_access_ambiguous_types: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ServiceSupervisor {
    pub status: u16,
    pub header: String,
    pub value: String,
    pub cooldown_ms: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BackoffDefaults {
    pub base_ms: u64,
    pub max_ms: u64,
    pub max_level: u32,
    pub steps_ms: Vec<u64>,
}

/// Per auth class.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ByAuth<T> {
    pub oauth: T,
    pub apikey: T,
    pub local: T,
}

impl<T> ByAuth<T> {
    pub fn get(&self, auth: AuthClass) -> &T {
        match auth {
            AuthClass::Oauth => &self.oauth,
            AuthClass::Apikey => &self.apikey,
            AuthClass::Local => &self.local,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BreakerDefaults {
    pub trip_statuses: Vec<u16>,
    pub count_429: bool,
    pub half_open_requests: Knob,
    pub registry_max: u64,
    pub idle_sweep_interval_ms: u64,
    pub idle_evict_after_ms: u64,
    pub history_max: u64,
    pub network_error_dedup_ms: u64,
    pub connection_dedup_ms: u64,
    pub connection_dedup_max_keys: u64,
    pub kind_cooldowns_ms: BTreeMap<String, u64>,
    pub profiles: ByAuth<BreakerProfile>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BreakerProfile {
    pub degradation_threshold: Knob,
    pub failure_threshold: Knob,
    pub reset_timeout_ms: Knob,
    pub max_backoff_multiplier: Knob,
    pub backoff_escalation_count: Knob,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProviderCooldownDefaults {
    pub enabled: bool,
    pub evict_after_ms: u64,
    pub evict_interval_ms: u64,
    pub min_retry_cooldown_ms: Knob,
    pub max_retry_cooldown_ms: Knob,
    pub max_backoff_exponent: u32,
    pub profiles: ByAuth<WindowGateProfile>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WindowGateProfile {
    pub failure_threshold: Knob,
    pub failure_window_ms: Knob,
    pub cooldown_ms: Knob,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ConnectionCooldownDefaults {
    pub stream_stall_cooldown: bool,
    pub expired_retry_max: u32,
    pub request_rejected_streak_ban: u32,
    pub request_rejected_streak_window_ms: u64,
    pub profiles: ByAuth<CooldownProfile>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CooldownProfile {
    pub base_cooldown_ms: Knob,
    pub max_backoff_steps: Knob,
    pub use_upstream_retry_hints: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ModelLockoutDefaults {
    pub enabled: bool,
    pub persist: bool,
    pub error_codes: Vec<u16>,
    pub base_cooldown_ms: Knob,
    pub max_cooldown_ms: Knob,
    pub max_backoff_steps: Knob,
    pub use_exponential_backoff: bool,
    pub default_escalation_window_ms: u64,
    pub base_429_ms: u64,
    pub base_other_ms: u64,
    pub cleanup_interval_ms: u64,
    pub slow_start: SlowStartDefaults,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SlowStartDefaults {
    pub enabled: bool,
    pub providers: Vec<String>,
    pub threshold_ms: Knob,
    pub failures_before_cooldown: Knob,
    pub observation_window_ms: Knob,
    pub cooldown_steps_ms: Vec<u64>,
    pub cooldown_step_min_ms: u64,
    pub cooldown_step_max_ms: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RequestQueueDefaults {
    pub auto_enable_api_key_providers: bool,
    pub requests_per_minute: Knob,
    pub min_time_between_requests_ms: Knob,
    pub concurrent_requests: Knob,
    pub max_wait_ms: Knob,
    pub execution_max_wait_ms: Knob,
    pub max_queue_depth: Knob,
    pub quota_share_concurrency_limit: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ComboCooldownWaitDefaults {
    pub enabled: bool,
    pub max_wait_ms: Knob,
    pub max_attempts: Knob,
    pub budget_ms: Knob,
    pub never_wait_reasons: Vec<Reason>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WaitForCooldownDefaults {
    pub enabled: bool,
    pub max_retries: Knob,
    pub max_retry_wait_sec: Knob,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SessionAffinityDefaults {
    pub ttl_ms: Knob,
    pub headers: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StreamDefaults {
    pub throughput_watchdog: WatchdogDefaults,
    pub recovery: RecoveryDefaults,
    pub fetch_timeout_ms: Knob,
    pub idle_timeout_ms: Knob,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WatchdogDefaults {
    pub enabled: bool,
    pub warmup_ms: Knob,
    pub window_ms: Knob,
    pub min_useful_bytes_per_second: Knob,
    pub min_useful_bytes: Knob,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecoveryDefaults {
    pub enabled: bool,
    pub continue_mid_stream: bool,
    pub holdback_ms: u64,
    pub buffer_max_bytes: u64,
    pub early_retry_max: u32,
    pub empty_turn_retry_max: u32,
    pub min_continuation_overlap_chars: u32,
}

// ---------------------------------------------------------------------------------------------
// the whole catalog

/// Every rule file of the catalog, merged. Built-ins come from `rules/`; operator files add to
/// the lists (operator provider rules go in `operator_rules`, consulted first).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Catalog {
    pub providers: Vec<ProviderProfile>,
    pub prefixes: Vec<PrefixProfile>,
    pub signals: Vec<SignalList>,
    pub error_rules: Vec<GlobalRule>,
    pub provider_rules: Vec<ProviderRule>,
    pub operator_rules: Vec<ProviderRule>,
    pub restatements: Vec<Restatement>,
    pub allowlists: Option<AllowlistsFile>,
    pub resilience: Option<ResilienceFile>,
}

/// The signal lists the classifier consults, by id. The lists themselves are data in
/// `rules/signals.yaml`; this names the hooks so a missing list fails the build.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SignalId {
    AccountDeactivated,
    CreditsExhausted,
    OauthInvalidToken,
    ModelPermanentlyUnavailable,
    EndpointPermanentlyMoved,
    AccountSuspendedBilling,
    MoonshotEmptyWallet,
    ContextOverflow,
    ModelAccessDenied,
    ProviderModelUnsupported,
    AuthCredentialError,
    MalformedRequest,
    RateLimitText,
    ParamValidation,
    NimFunctionDegraded,
    DailyQuota,
    TpdRateLimit,
    DailyResetPreemption,
    SubscriptionQuota,
    WeeklyQuota,
    SessionQuota,
    QuotaPatterns,
    TerminalQuotaPatterns,
    TextQuotaPhrases,
    TextRateLimit,
    TextCapacity,
    TextAuth,
    TextServer,
    GeminiDailyMetric,
    GeminiMinuteMetric,
    PreviousResponseBinding,
    RouteNotAuthorized,
    ApiKey403Exempt,
    CloudflareNonRetryable,
    RequestRejected,
    GeoBlocked,
    FingerprintRejection,
    ProjectRouteError,
    SentinelBlocked,
    GcpProjectRequired,
    RequestScopedNotFound,
    ModelNotSupported401,
    ProviderContextOverflow,
}

impl SignalId {
    pub const ALL: [SignalId; 43] = [
        SignalId::AccountDeactivated,
        SignalId::CreditsExhausted,
        SignalId::OauthInvalidToken,
        SignalId::ModelPermanentlyUnavailable,
        SignalId::EndpointPermanentlyMoved,
        SignalId::AccountSuspendedBilling,
        SignalId::MoonshotEmptyWallet,
        SignalId::ContextOverflow,
        SignalId::ModelAccessDenied,
        SignalId::ProviderModelUnsupported,
        SignalId::AuthCredentialError,
        SignalId::MalformedRequest,
        SignalId::RateLimitText,
        SignalId::ParamValidation,
        SignalId::NimFunctionDegraded,
        SignalId::DailyQuota,
        SignalId::TpdRateLimit,
        SignalId::DailyResetPreemption,
        SignalId::SubscriptionQuota,
        SignalId::WeeklyQuota,
        SignalId::SessionQuota,
        SignalId::QuotaPatterns,
        SignalId::TerminalQuotaPatterns,
        SignalId::TextQuotaPhrases,
        SignalId::TextRateLimit,
        SignalId::TextCapacity,
        SignalId::TextAuth,
        SignalId::TextServer,
        SignalId::GeminiDailyMetric,
        SignalId::GeminiMinuteMetric,
        SignalId::PreviousResponseBinding,
        SignalId::RouteNotAuthorized,
        SignalId::ApiKey403Exempt,
        SignalId::CloudflareNonRetryable,
        SignalId::RequestRejected,
        SignalId::GeoBlocked,
        SignalId::FingerprintRejection,
        SignalId::ProjectRouteError,
        SignalId::SentinelBlocked,
        SignalId::GcpProjectRequired,
        SignalId::RequestScopedNotFound,
        SignalId::ModelNotSupported401,
        SignalId::ProviderContextOverflow,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            SignalId::AccountDeactivated => "account_deactivated",
            SignalId::CreditsExhausted => "credits_exhausted",
            SignalId::OauthInvalidToken => "oauth_invalid_token",
            SignalId::ModelPermanentlyUnavailable => "model_permanently_unavailable",
            SignalId::EndpointPermanentlyMoved => "endpoint_permanently_moved",
            SignalId::AccountSuspendedBilling => "account_suspended_billing",
            SignalId::MoonshotEmptyWallet => "moonshot_empty_wallet",
            SignalId::ContextOverflow => "context_overflow",
            SignalId::ModelAccessDenied => "model_access_denied",
            SignalId::ProviderModelUnsupported => "provider_model_unsupported",
            SignalId::AuthCredentialError => "auth_credential_error",
            SignalId::MalformedRequest => "malformed_request",
            SignalId::RateLimitText => "rate_limit_text",
            SignalId::ParamValidation => "param_validation",
            SignalId::NimFunctionDegraded => "nim_function_degraded",
            SignalId::DailyQuota => "daily_quota",
            SignalId::TpdRateLimit => "tpd_rate_limit",
            SignalId::DailyResetPreemption => "daily_reset_preemption",
            SignalId::SubscriptionQuota => "subscription_quota",
            SignalId::WeeklyQuota => "weekly_quota",
            SignalId::SessionQuota => "session_quota",
            SignalId::QuotaPatterns => "quota_patterns",
            SignalId::TerminalQuotaPatterns => "terminal_quota_patterns",
            SignalId::TextQuotaPhrases => "text_quota_phrases",
            SignalId::TextRateLimit => "text_rate_limit",
            SignalId::TextCapacity => "text_capacity",
            SignalId::TextAuth => "text_auth",
            SignalId::TextServer => "text_server",
            SignalId::GeminiDailyMetric => "gemini_daily_metric",
            SignalId::GeminiMinuteMetric => "gemini_minute_metric",
            SignalId::PreviousResponseBinding => "previous_response_binding",
            SignalId::RouteNotAuthorized => "route_not_authorized",
            SignalId::ApiKey403Exempt => "api_key_403_exempt",
            SignalId::CloudflareNonRetryable => "cloudflare_non_retryable",
            SignalId::RequestRejected => "request_rejected",
            SignalId::GeoBlocked => "geo_blocked",
            SignalId::FingerprintRejection => "fingerprint_rejection",
            SignalId::ProjectRouteError => "project_route_error",
            SignalId::SentinelBlocked => "sentinel_blocked",
            SignalId::GcpProjectRequired => "gcp_project_required",
            SignalId::RequestScopedNotFound => "request_scoped_not_found",
            SignalId::ModelNotSupported401 => "model_not_supported_401",
            SignalId::ProviderContextOverflow => "provider_context_overflow",
        }
    }
}
