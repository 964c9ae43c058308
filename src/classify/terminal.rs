//! Terminal connection states (reference a.8): `credits_exhausted`, `banned`, `expired`.
//! They stick until credentials change or an operator resets them.

use super::decide::{Ctx, Decision};
use crate::rules::model::{AuthClass, ProviderTag, SignalId};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Terminal {
    CreditsExhausted,
    Banned,
    Expired,
}

impl Terminal {
    pub fn as_str(self) -> &'static str {
        match self {
            Terminal::CreditsExhausted => "credits_exhausted",
            Terminal::Banned => "banned",
            Terminal::Expired => "expired",
        }
    }
}

/// `classifyProviderError`'s types, as far as terminal state depends on them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorType {
    QuotaExhausted,
    RateLimited,
    ModelNotFound,
    OauthInvalidToken,
    AccountDeactivated,
    Unauthorized,
    GeoBlocked,
    FingerprintRejection,
    ProjectRouteError,
    RequestRejected,
    Forbidden,
    ServerError,
    ContextOverflow,
}

impl ErrorType {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorType::QuotaExhausted => "quota_exhausted",
            ErrorType::RateLimited => "rate_limited",
            ErrorType::ModelNotFound => "model_not_found",
            ErrorType::OauthInvalidToken => "oauth_invalid_token",
            ErrorType::AccountDeactivated => "account_deactivated",
            ErrorType::Unauthorized => "unauthorized",
            ErrorType::GeoBlocked => "geo_blocked",
            ErrorType::FingerprintRejection => "fingerprint_rejection",
            ErrorType::ProjectRouteError => "project_route_error",
            ErrorType::RequestRejected => "request_rejected",
            ErrorType::Forbidden => "forbidden",
            ErrorType::ServerError => "server_error",
            ErrorType::ContextOverflow => "context_overflow",
        }
    }
}

/// `classifyProviderError(status, body, provider)`, with the signal list that decided it.
pub fn provider_error_type(ctx: &Ctx<'_, '_>) -> (Option<ErrorType>, Option<SignalId>) {
    use ErrorType as T;
    let status = ctx.status;
    let has = |id: SignalId| ctx.signal(id).is_some().then_some(id);
    let oauth_or_none = ctx
        .profile
        .as_ref()
        .is_none_or(|p| p.auth == AuthClass::Oauth);
    let quota_text = has(SignalId::CreditsExhausted).or_else(|| has(SignalId::SubscriptionQuota));
    if matches!(status, 400..=403) && quota_text.is_some() {
        return (Some(T::QuotaExhausted), quota_text);
    }
    let google = ctx
        .profile
        .as_ref()
        .is_some_and(|p| p.has(ProviderTag::GoogleSurface));
    match status {
        429 => {
            let daily = if oauth_or_none {
                quota_text.or_else(|| has(SignalId::DailyQuota))
            } else {
                None
            };
            match daily {
                Some(sig) => (Some(T::QuotaExhausted), Some(sig)),
                None => (Some(T::RateLimited), None),
            }
        }
        404 => match has(SignalId::RequestScopedNotFound) {
            Some(sig) => (None, Some(sig)),
            None => (Some(T::ModelNotFound), None),
        },
        401 => {
            if let Some(sig) = has(SignalId::OauthInvalidToken) {
                (Some(T::OauthInvalidToken), Some(sig))
            } else if let Some(sig) = has(SignalId::ModelNotSupported401) {
                (Some(T::ModelNotFound), Some(sig))
            } else if let Some(sig) = has(SignalId::AccountDeactivated) {
                (Some(T::AccountDeactivated), Some(sig))
            } else {
                (Some(T::Unauthorized), None)
            }
        }
        402 => (Some(T::QuotaExhausted), None),
        400 | 403 if google && has(SignalId::GeoBlocked).is_some() => {
            (Some(T::GeoBlocked), Some(SignalId::GeoBlocked))
        }
        403 => {
            let cloud_code = ctx
                .profile
                .as_ref()
                .is_some_and(|p| p.has(ProviderTag::CloudCode));
            if let Some(sig) = has(SignalId::FingerprintRejection) {
                (Some(T::FingerprintRejection), Some(sig))
            } else if let Some(sig) = has(SignalId::AccountDeactivated) {
                (Some(T::AccountDeactivated), Some(sig))
            } else if let Some(sig) = has(SignalId::ProjectRouteError) {
                (Some(T::ProjectRouteError), Some(sig))
            } else if cloud_code {
                (Some(T::ProjectRouteError), None)
            } else if let Some(sig) = has(SignalId::SentinelBlocked) {
                (Some(T::Forbidden), Some(sig))
            } else if let Some(sig) = has(SignalId::RequestRejected) {
                // One refusal only cools; a streak of three bans (connection state, not this error).
                (Some(T::RequestRejected), Some(sig))
            } else if ctx
                .profile
                .as_ref()
                .is_none_or(|p| p.auth != AuthClass::Oauth)
            {
                (None, None)
            } else {
                (Some(T::Forbidden), None)
            }
        }
        422 => match has(SignalId::GcpProjectRequired) {
            Some(sig) => (Some(T::ProjectRouteError), Some(sig)),
            None => (None, None),
        },
        400 => {
            if let Some(sig) = has(SignalId::ProviderContextOverflow) {
                (Some(T::ContextOverflow), Some(sig))
            } else if let Some(sig) = has(SignalId::ProviderModelUnsupported) {
                (Some(T::ModelNotFound), Some(sig))
            } else {
                (None, None)
            }
        }
        s if s >= 500 => (Some(T::ServerError), None),
        _ => (None, None),
    }
}

/// `resolveTerminalConnectionStatus`, in order. Also returns the provider error type.
pub fn resolve(ctx: &mut Ctx<'_, '_>, d: &Decision) -> (Option<Terminal>, Option<ErrorType>) {
    let (kind, sig) = provider_error_type(ctx);
    if let (Some(k), Some(sig)) = (kind, sig) {
        if !ctx.fired.iter().any(|f| f == sig.as_str()) {
            ctx.fired.push(sig.as_str().to_string());
        }
        ctx.explain.push(format!(
            "provider error type {} (signal {})",
            k.as_str(),
            sig.as_str()
        ));
    } else if let (None, Some(sig)) = (kind, sig) {
        ctx.fired.push(sig.as_str().to_string());
        ctx.explain.push(format!(
            "signal {}: a request resource, not the model, was not found",
            sig.as_str()
        ));
    }
    let per_model = ctx.profile.as_ref().is_some_and(|p| p.per_model_quota);
    let credits_text = ctx.signal(SignalId::CreditsExhausted).is_some();
    if d.credits_exhausted || (!per_model && (ctx.status == 402 || credits_text)) {
        ctx.explain.push(
            "terminal: credits_exhausted (billing must change before this connection is used)"
                .into(),
        );
        return (Some(Terminal::CreditsExhausted), kind);
    }
    if let Some(k) = kind
        && matches!(
            k,
            ErrorType::ProjectRouteError
                | ErrorType::GeoBlocked
                | ErrorType::OauthInvalidToken
                | ErrorType::FingerprintRejection
                | ErrorType::ModelNotFound
        )
    {
        ctx.explain.push(format!(
            "provider error type {} is never terminal",
            k.as_str()
        ));
        return (None, kind);
    }
    if d.permanent || kind == Some(ErrorType::Forbidden) {
        ctx.explain.push("terminal: banned".into());
        return (Some(Terminal::Banned), kind);
    }
    let web_cookie = ctx
        .profile
        .as_ref()
        .is_some_and(|p| p.has(ProviderTag::WebCookie));
    let expired_kind = matches!(
        kind,
        Some(ErrorType::AccountDeactivated | ErrorType::Unauthorized)
    );
    if (expired_kind || ctx.status == 401) && !web_cookie {
        ctx.explain
            .push("terminal: expired (the token health check retries it up to 3 times)".into());
        return (Some(Terminal::Expired), kind);
    }
    (None, kind)
}
