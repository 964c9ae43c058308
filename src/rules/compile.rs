//! Turns a validated catalog into the structures the classifier consults: one matcher for all
//! markers, signal lists and rules pointing into it, provider profiles by id, alias and prefix.
//! The built-in catalog and operator files take this same path.

use super::matcher::{Hits, LitId, LitSet, Matcher, MatcherBuilder, MatcherError, RegId};
use super::model::*;
use std::collections::{HashMap, HashSet};

/// What a signal list matched on, for the explanation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hit {
    Literal(LitId),
    Regex(RegId),
    AllOf(LitId),
}

pub struct CompiledSignal {
    pub id: String,
    literals: LitSet,
    regexes: Vec<RegId>,
    /// When every regex of the list has a required literal set: their union. None of them
    /// can match unless one of these literals appeared.
    regex_gate: Option<LitSet>,
    all_of: Vec<Vec<LitId>>,
    only_for: Vec<(Vec<String>, Vec<LitId>)>,
}

impl CompiledSignal {
    /// Literals first (already known from the scan), then the all-of groups, then regexes.
    pub fn hit(&self, hits: &Hits<'_, '_>, provider: Option<&str>) -> Option<Hit> {
        if let Some(id) = hits.any_of(&self.literals) {
            return Some(Hit::Literal(id));
        }
        if let Some(provider) = provider {
            for (providers, lits) in &self.only_for {
                if providers.iter().any(|p| p == provider)
                    && let Some(id) = hits.any_literal(lits)
                {
                    return Some(Hit::Literal(id));
                }
            }
        }
        for group in &self.all_of {
            if group.iter().all(|&id| hits.literal(id)) {
                return group.first().map(|&id| Hit::AllOf(id));
            }
        }
        if self
            .regex_gate
            .as_ref()
            .is_some_and(|g| hits.any_of(g).is_none())
        {
            return None;
        }
        self.regexes
            .iter()
            .copied()
            .find(|&id| hits.regex(id))
            .map(Hit::Regex)
    }
}

pub struct CompiledGlobalRule {
    pub rule: GlobalRule,
    pub text: Option<LitId>,
}

pub struct CompiledProviderRule {
    pub rule: ProviderRule,
    pub providers: Vec<String>,
    pub body: Vec<LitId>,
    /// Lower-cased markers, for matching the structured `{code, type}` text.
    pub body_lower: Vec<String>,
    pub headers: Vec<(String, HeaderCondition)>,
    pub operator: bool,
}

pub struct CompiledRestatement {
    pub rule: Restatement,
    pub provider: String,
    pub markers: Vec<LitId>,
    pub excludes: Vec<LitId>,
}

/// A provider as the classifier sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Profile {
    /// The canonical id (the given id for prefix matches and unknown providers).
    pub id: String,
    pub auth: AuthClass,
    pub per_model_quota: bool,
    pub tags: Vec<ProviderTag>,
    /// False when no profile, alias or prefix names the provider (treated as an API-key one).
    pub known: bool,
}

impl Profile {
    pub fn has(&self, tag: ProviderTag) -> bool {
        self.tags.contains(&tag)
    }
}

/// Literal ids the pipeline needs besides the catalog's own markers.
pub struct Triggers {
    /// Words any textual retry hint contains; without them the hint parsers do not run.
    pub hint: Vec<LitId>,
    /// Structured codes the pipeline reads; without them the body is not parsed as JSON.
    pub json: Vec<LitId>,
    /// Keys of the JSON retry hints; without them the body is not parsed for a hint.
    pub json_hint: Vec<LitId>,
}

#[derive(Debug, thiserror::Error)]
pub enum CompileError {
    #[error(transparent)]
    Matcher(#[from] MatcherError),
    #[error("the catalog has no `{0}` file")]
    Missing(&'static str),
    #[error("the catalog has no signal list `{0}`")]
    MissingSignal(&'static str),
    #[error("the embedded catalog is unreadable: {0}")]
    Embedded(#[from] serde_json::Error),
}

pub struct Ruleset {
    pub matcher: Matcher,
    signals: Vec<CompiledSignal>,
    pub error_rules: Vec<CompiledGlobalRule>,
    /// Operator rules first, then the built-in ones.
    pub provider_rules: Vec<CompiledProviderRule>,
    pub restatements: Vec<CompiledRestatement>,
    profiles: Vec<Profile>,
    by_name: HashMap<String, usize>,
    prefixes: Vec<(String, usize)>,
    full_text: HashSet<String>,
    honors_scope: HashSet<String>,
    operator_providers: HashSet<String>,
    pub settings: ResilienceFile,
    pub triggers: Triggers,
    pub catalog: Catalog,
}

/// The phrases of the text hint grammars: [please retry in, reset, and the "retry at" family].
const HINT_TRIGGERS: [&str; 6] = [
    "please retry in",
    "reset",
    "wait until",
    "try again at",
    "available at",
    "retry after",
];
/// `RetryInfo` / `retryDelay`, `retryAfter` / `retryAfterMs`, `retry_after_ms`.
const JSON_HINT_TRIGGERS: [&str; 4] = ["retryinfo", "retrydelay", "retryafter", "retry_after_ms"];

/// The union of the required literals of `patterns` (each pattern's prefix set, else its
/// suffix set), or `None` when some pattern has neither.
fn regex_gate(b: &mut MatcherBuilder, patterns: &[String]) -> Option<LitSet> {
    let mut ids = Vec::new();
    for p in patterns {
        let g = super::regex_gate::gate_sets(p);
        let set = g.prefixes.or(g.suffixes)?;
        ids.extend(set.iter().map(|l| b.literal(l)));
    }
    Some(LitSet::new(ids))
}

impl Ruleset {
    pub fn compile(catalog: Catalog) -> Result<Ruleset, CompileError> {
        let settings = catalog
            .resilience
            .clone()
            .ok_or(CompileError::Missing("resilience"))?;
        let allow = catalog
            .allowlists
            .clone()
            .ok_or(CompileError::Missing("allowlists"))?;
        let mut b = MatcherBuilder::default();

        let mut by_id: HashMap<&str, &SignalList> = HashMap::new();
        for s in &catalog.signals {
            by_id.insert(s.id.as_str(), s);
        }
        let mut signals = Vec::with_capacity(SignalId::ALL.len());
        for id in SignalId::ALL {
            let s = by_id
                .get(id.as_str())
                .ok_or(CompileError::MissingSignal(id.as_str()))?;
            signals.push(CompiledSignal {
                id: s.id.clone(),
                literals: LitSet::new(s.literals.iter().map(|l| b.literal(l)).collect()),
                regexes: s.regexes.iter().map(|r| b.regex(r)).collect(),
                regex_gate: regex_gate(&mut b, &s.regexes),
                all_of: s
                    .all_of
                    .iter()
                    .map(|g| g.iter().map(|l| b.literal(l)).collect())
                    .collect(),
                only_for: s
                    .only_for
                    .iter()
                    .map(|o| {
                        (
                            o.providers.iter().map(|p| p.to_lowercase()).collect(),
                            o.literals.iter().map(|l| b.literal(l)).collect(),
                        )
                    })
                    .collect(),
            });
        }

        let error_rules = catalog
            .error_rules
            .iter()
            .map(|r| CompiledGlobalRule {
                rule: r.clone(),
                text: r.text.as_deref().map(|t| b.literal(t)),
            })
            .collect();

        let mut provider_rules = Vec::new();
        let mut operator_providers = HashSet::new();
        for (rules, operator) in [
            (&catalog.operator_rules, true),
            (&catalog.provider_rules, false),
        ] {
            for r in rules {
                let providers: Vec<String> = r.providers.iter().map(|p| p.to_lowercase()).collect();
                if operator {
                    operator_providers.extend(providers.iter().cloned());
                }
                provider_rules.push(CompiledProviderRule {
                    rule: r.clone(),
                    providers,
                    body: r.body_any.iter().map(|m| b.literal(m)).collect(),
                    body_lower: r.body_any.iter().map(|m| m.to_lowercase()).collect(),
                    headers: r
                        .headers_any
                        .iter()
                        .map(|h| (h.name.to_ascii_lowercase(), h.clone()))
                        .collect(),
                    operator,
                });
            }
        }

        let restatements = catalog
            .restatements
            .iter()
            .map(|r| CompiledRestatement {
                rule: r.clone(),
                provider: r.provider.to_lowercase(),
                markers: r.text_markers.iter().map(|m| b.literal(m)).collect(),
                excludes: r.exclude_markers.iter().map(|m| b.literal(m)).collect(),
            })
            .collect();

        let c = &settings.classification;
        let mut json_words: Vec<&str> = vec![
            c.executor_contract_violation_code.as_str(),
            c.previous_response_binding_code.as_str(),
        ];
        json_words.extend(c.model_access_codes.iter().map(String::as_str));
        json_words.extend(c.model_access_types.iter().map(String::as_str));
        json_words.extend(c.model_access_ambiguous_types.iter().map(String::as_str));
        let triggers = Triggers {
            hint: HINT_TRIGGERS.iter().map(|t| b.literal(t)).collect(),
            json_hint: JSON_HINT_TRIGGERS.iter().map(|t| b.literal(t)).collect(),
            json: json_words.iter().map(|t| b.literal(t)).collect(),
        };

        let mut profiles = Vec::new();
        let mut by_name = HashMap::new();
        for p in &catalog.providers {
            let idx = profiles.len();
            profiles.push(Profile {
                id: p.id.to_lowercase(),
                auth: p.auth,
                per_model_quota: p.per_model_quota,
                tags: p.tags.clone(),
                known: true,
            });
            by_name.insert(p.id.to_lowercase(), idx);
            for a in &p.aliases {
                by_name.insert(a.to_lowercase(), idx);
            }
        }
        let mut prefixes = Vec::new();
        for p in &catalog.prefixes {
            let idx = profiles.len();
            profiles.push(Profile {
                id: p.prefix.to_lowercase(),
                auth: p.auth,
                per_model_quota: p.per_model_quota,
                tags: p.tags.clone(),
                known: true,
            });
            prefixes.push((p.prefix.to_lowercase(), idx));
        }
        let lower = |v: &[String]| v.iter().map(|p| p.to_lowercase()).collect::<HashSet<_>>();

        Ok(Ruleset {
            matcher: b.build()?,
            signals,
            error_rules,
            provider_rules,
            restatements,
            profiles,
            by_name,
            prefixes,
            full_text: lower(&allow.full_text_rule_providers),
            honors_scope: lower(&allow.honors_rule_lock_scope_providers),
            operator_providers,
            settings,
            triggers,
            catalog,
        })
    }

    pub fn signal(&self, id: SignalId) -> &CompiledSignal {
        &self.signals[id as usize]
    }

    /// The profile for a provider id (case-insensitive): by id or alias, then by prefix; an
    /// unknown id gets the API-key profile and `known: false`.
    pub fn profile(&self, provider: &str) -> Profile {
        let lower = provider.trim().to_lowercase();
        if let Some(&idx) = self.by_name.get(&lower) {
            return self.profiles[idx].clone();
        }
        if let Some((_, idx)) = self
            .prefixes
            .iter()
            .find(|(p, _)| lower.starts_with(p.as_str()))
        {
            let mut p = self.profiles[*idx].clone();
            p.id = lower;
            return p;
        }
        Profile {
            id: lower,
            auth: AuthClass::Apikey,
            per_model_quota: false,
            tags: Vec::new(),
            known: false,
        }
    }

    pub fn has_operator_rule(&self, provider: &str) -> bool {
        self.operator_providers.contains(provider)
    }

    /// Provider rules see the raw text (operator rules lift the allowlist).
    pub fn full_text(&self, provider: &str) -> bool {
        self.full_text.contains(provider) || self.has_operator_rule(provider)
    }

    /// A matched rule's scope is acted on (operator rules lift the allowlist).
    pub fn honors_scope(&self, provider: &str) -> bool {
        self.honors_scope.contains(provider) || self.has_operator_rule(provider)
    }

    pub fn explain_hit(&self, hit: Hit) -> String {
        match hit {
            Hit::Literal(id) => format!("'{}'", self.matcher.literal_text(id)),
            Hit::AllOf(id) => format!("all-of group starting '{}'", self.matcher.literal_text(id)),
            Hit::Regex(id) => format!("/{}/", self.matcher.regex_pattern(id)),
        }
    }
}
