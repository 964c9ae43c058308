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

/// `classifyProviderError(status, body, provider)`.
pub fn provider_error_type(ctx: &Ctx<'_, '_>) -> Option<ErrorType> {
    let status = ctx.status;
    let has = |id| ctx.signal(id).is_some();
    let oauth_or_none = ctx.profile.as_ref().is_none_or(|p| p.auth == AuthClass::Oauth);
    let quota_text = has(SignalId::CreditsExhausted) || has(SignalId::SubscriptionQuota);
    if matches!(status, 400..=403) && quota_text {
        return Some(ErrorType::QuotaExhausted);
    }
    match status {
        429 => {
            if oauth_or_none && (quota_text || has(SignalId::DailyQuota)) {
                return Some(ErrorType::QuotaExhausted);
            }
            Some(ErrorType::RateLimited)
        }
        404 => (!has(SignalId::RequestScopedNotFound)).then_some(ErrorType::ModelNotFound),
        401 => Some(if has(SignalId::OauthInvalidToken) {
            ErrorType::OauthInvalidToken
        } else if has(SignalId::ModelNotSupported401) {
            ErrorType::ModelNotFound
        } else if has(SignalId::AccountDeactivated) {
            ErrorType::AccountDeactivated
        } else {
            ErrorType::Unauthorized
        }),
        402 => Some(ErrorType::QuotaExhausted),
        400 | 403 if has(SignalId::GeoBlocked) && ctx.profile.as_ref().is_some_and(|p| p.has(ProviderTag::GoogleSurface)) => {
            Some(ErrorType::GeoBlocked)
        }
        403 => {
            if has(SignalId::FingerprintRejection) {
                Some(ErrorType::FingerprintRejection)
            } else if has(SignalId::AccountDeactivated) {
                Some(ErrorType::AccountDeactivated)
            } else if has(SignalId::ProjectRouteError) || ctx.profile.as_ref().is_some_and(|p| p.has(ProviderTag::CloudCode)) {
                Some(ErrorType::ProjectRouteError)
            } else if has(SignalId::SentinelBlocked) {
                Some(ErrorType::Forbidden)
            } else if has(SignalId::RequestRejected) {
                // One refusal only cools; the streak of three bans (a connection-state matter).
                Some(ErrorType::RequestRejected)
            } else if ctx.profile.as_ref().is_none_or(|p| p.auth != AuthClass::Oauth) {
                None
            } else {
                Some(ErrorType::Forbidden)
            }
        }
        422 if has(SignalId::GcpProjectRequired) => Some(ErrorType::ProjectRouteError),
        400 => {
            if has(SignalId::ProviderContextOverflow) {
                Some(ErrorType::ContextOverflow)
            } else if has(SignalId::ProviderModelUnsupported) {
                Some(ErrorType::ModelNotFound)
            } else {
                None
            }
        }
        s if s >= 500 => Some(ErrorType::ServerError),
        _ => None,
    }
}

/// `resolveTerminalConnectionStatus`, in order.
pub fn resolve(ctx: &mut Ctx<'_, '_>, d: &Decision) -> Option<Terminal> {
    let per_model = ctx.profile.as_ref().is_some_and(|p| p.per_model_quota);
    let credits_text = ctx.signal(SignalId::CreditsExhausted).is_some();
    if d.credits_exhausted || (!per_model && (ctx.status == 402 || credits_text)) {
        ctx.explain.push("terminal: credits_exhausted (billing must change before this connection is used)".into());
        return Some(Terminal::CreditsExhausted);
    }
    let kind = provider_error_type(ctx);
    if let Some(k) = kind {
        if matches!(
            k,
            ErrorType::ProjectRouteError
                | ErrorType::GeoBlocked
                | ErrorType::OauthInvalidToken
                | ErrorType::FingerprintRejection
                | ErrorType::ModelNotFound
        ) {
            if d.permanent {
                ctx.explain.push(format!("provider error type {}: not terminal despite the ban text", k.as_str()));
            }
            return None;
        }
    }
    if d.permanent || kind == Some(ErrorType::Forbidden) {
        ctx.explain.push("terminal: banned".into());
        return Some(Terminal::Banned);
    }
    let web_cookie = ctx.profile.as_ref().is_some_and(|p| p.has(ProviderTag::WebCookie));
    let expired_kind = matches!(kind, Some(ErrorType::AccountDeactivated | ErrorType::Unauthorized));
    if (expired_kind || ctx.status == 401) && !web_cookie {
        ctx.explain.push("terminal: expired (the token health check retries it up to 3 times)".into());
        return Some(Terminal::Expired);
    }
    None
}
