//! Semantic checks over decoded rule files, and the merge into one catalog. build.rs runs the
//! same checks on `rules/`, so the built-in catalog never holds what the checks reject.
//! Shared with build.rs (no `crate::` paths).

use super::diag::{self, Diagnostic};
use super::load::{RuleFile, Seg, Source};
use super::model::*;
use super::regex_gate;
use std::collections::{BTreeMap, BTreeSet};

macro_rules! path {
    ($($seg:expr),* $(,)?) => { [$(Seg::from($seg)),*] };
}

/// A decoded file with its source, so diagnostics can point into it.
pub struct Loaded<'a> {
    pub source: Source<'a>,
    pub file: RuleFile,
}

/// Who the files are: the built-in catalog must be complete; operator files add to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    BuiltIn,
    Operator,
}

/// Provider ids the catalog knows: profiles, aliases and prefixes.
#[derive(Debug, Default, Clone)]
pub struct KnownProviders {
    pub ids: BTreeSet<String>,
    pub prefixes: Vec<String>,
}

impl KnownProviders {
    pub fn from_catalog(catalog: &Catalog) -> Self {
        let mut known = KnownProviders::default();
        known.add(&catalog.providers, &catalog.prefixes);
        known
    }

    fn add(&mut self, providers: &[ProviderProfile], prefixes: &[PrefixProfile]) {
        for p in providers {
            self.ids.insert(p.id.to_lowercase());
            for a in &p.aliases {
                self.ids.insert(a.to_lowercase());
            }
        }
        for p in prefixes {
            self.prefixes.push(p.prefix.to_lowercase());
        }
    }

    pub fn knows(&self, id: &str) -> bool {
        let id = id.to_lowercase();
        self.ids.contains(&id) || self.prefixes.iter().any(|p| id.starts_with(p.as_str()))
    }

    pub fn nearest(&self, id: &str) -> Option<&str> {
        self.ids
            .iter()
            .map(|k| (super::load::edit_distance(id, k), k.as_str()))
            .min()
            .filter(|(d, _)| *d <= 3)
            .map(|(_, k)| k)
    }
}

struct Checker<'c> {
    out: Vec<Diagnostic>,
    known: KnownProviders,
    /// id -> where it was first defined (file name), for duplicate reports.
    ids: BTreeMap<String, String>,
    context: Option<&'c Catalog>,
}

/// Checks files together (and against `context`, the built-in catalog, for operator files).
pub fn check_files(files: &[Loaded<'_>], role: Role, context: Option<&Catalog>) -> Vec<Diagnostic> {
    let mut ck = Checker {
        out: Vec::new(),
        known: context
            .map(KnownProviders::from_catalog)
            .unwrap_or_default(),
        ids: BTreeMap::new(),
        context,
    };
    if let Some(ctx) = context {
        for id in catalog_ids(ctx) {
            ck.ids.insert(id, "the built-in catalog".to_string());
        }
    }
    for f in files {
        if let RuleFile::Providers(p) = &f.file {
            ck.known.add(&p.providers, &p.prefixes);
        }
    }
    let mut singletons: BTreeMap<&str, &str> = BTreeMap::new();
    for f in files {
        let kind = f.file.kind();
        let singleton = matches!(kind, "allowlists" | "resilience");
        if let Some(first) = singleton
            .then(|| singletons.insert(kind, f.source.name))
            .flatten()
        {
            ck.out.push(
                f.source
                    .error_at(
                        diag::DUPLICATE_KIND,
                        &path!["kind"],
                        format!("a second `{kind}` file"),
                    )
                    .with_help(format!("the first one is {first}; merge them")),
            );
        }
        ck.file(f);
    }
    if role == Role::BuiltIn {
        ck.completeness(files);
    }
    ck.out
}

/// All ids a catalog defines (rules, lists, restatements), for duplicate detection.
fn catalog_ids(c: &Catalog) -> Vec<String> {
    let mut ids = Vec::new();
    ids.extend(c.signals.iter().map(|s| s.id.clone()));
    ids.extend(c.error_rules.iter().map(|r| r.id.clone()));
    ids.extend(c.provider_rules.iter().map(|r| r.id.clone()));
    ids.extend(c.operator_rules.iter().map(|r| r.id.clone()));
    ids.extend(c.restatements.iter().map(|r| r.id.clone()));
    ids
}

impl Checker<'_> {
    fn push(&mut self, d: Diagnostic) {
        self.out.push(d);
    }

    fn id(&mut self, src: &Source<'_>, path: &[Seg], id: &str) {
        if let Some(first) = self.ids.get(id) {
            let first = first.clone();
            self.push(
                src.error_at(diag::DUPLICATE_ID, path, format!("duplicate id `{id}`"))
                    .with_help(format!("`{id}` is already defined in {first}; ids must be unique across the catalog")),
            );
        } else {
            self.ids.insert(id.to_string(), src.name.to_string());
        }
    }

    fn status(&mut self, src: &Source<'_>, path: &[Seg], status: u16) {
        if !(100..=599).contains(&status) {
            self.push(src.error_at(
                diag::STATUS_RANGE,
                path,
                format!("HTTP status {status} is outside 100..=599"),
            ));
        }
    }

    fn marker(&mut self, src: &Source<'_>, path: &[Seg], marker: &str) {
        if marker.trim().is_empty() {
            self.push(
                src.error_at(
                    diag::EMPTY_MARKER,
                    path,
                    "empty marker: it would match every body",
                )
                .with_help("remove it or write the text it should find"),
            );
        }
    }

    fn regex(&mut self, src: &Source<'_>, path: &[Seg], pattern: &str) {
        if let Err(e) = regex_gate::validate(pattern) {
            let first = e
                .lines()
                .find(|l| l.starts_with("error:"))
                .unwrap_or(e.lines().last().unwrap_or(""));
            self.push(src.error_at(
                diag::INVALID_REGEX,
                path,
                format!(
                    "invalid regex `{pattern}`: {}",
                    first.trim_start_matches("error: ")
                ),
            ));
        } else if !regex_gate::gate_sets(pattern).is_gated() {
            self.push(
                src.warning_at(
                    diag::UNGATED_REGEX,
                    path,
                    format!("regex `{pattern}` starts and ends with no literal of 5+ bytes, so it runs on every body"),
                )
                .with_help("start or end the pattern with a literal word, e.g. `quota.*exceeded`"),
            );
        }
    }

    fn provider(&mut self, src: &Source<'_>, path: &[Seg], id: &str) {
        if id != id.to_lowercase() {
            self.push(
                src.warning_at(
                    diag::NOT_LOWERCASE,
                    path,
                    format!("provider id `{id}` is not lower-case"),
                )
                .with_help(format!(
                    "ids match case-insensitively; write `{}`",
                    id.to_lowercase()
                )),
            );
        }
        if !self.known.knows(id) {
            let mut d = src.error_at(
                diag::UNKNOWN_PROVIDER,
                path,
                format!("unknown provider id `{id}`"),
            );
            if let Some(near) = self.known.nearest(&id.to_lowercase()) {
                d = d.with_help(format!("did you mean `{near}`?"));
            } else {
                d = d.with_help("add a profile for it in a `providers` file");
            }
            self.push(d);
        }
    }

    fn file(&mut self, f: &Loaded<'_>) {
        let src = &f.source;
        match &f.file {
            RuleFile::Providers(p) => self.providers(src, p),
            RuleFile::Signals(s) => self.signals(src, s),
            RuleFile::ErrorRules(r) => self.error_rules(src, r),
            RuleFile::ProviderRules(r) => self.provider_rules(src, r),
            RuleFile::Restatements(r) => self.restatements(src, r),
            RuleFile::Allowlists(a) => self.allowlists(src, a),
            RuleFile::Resilience(r) => self.resilience(src, r),
        }
    }

    fn providers(&mut self, src: &Source<'_>, file: &ProvidersFile) {
        let mut seen: BTreeMap<String, usize> = BTreeMap::new();
        if let Some(ctx) = self.context {
            for p in &ctx.providers {
                seen.insert(p.id.clone(), usize::MAX);
            }
        }
        for (i, p) in file.providers.iter().enumerate() {
            if p.id != p.id.to_lowercase() || p.id.is_empty() {
                self.push(src.error_at(
                    diag::NOT_LOWERCASE,
                    &path!["providers", i, "id"],
                    format!("provider id `{}` must be lower-case and non-empty", p.id),
                ));
            }
            let names = std::iter::once(&p.id).chain(p.aliases.iter());
            for (j, name) in names.enumerate() {
                let at: Vec<Seg> = if j == 0 {
                    path!["providers", i, "id"].to_vec()
                } else {
                    path!["providers", i, "aliases", j - 1].to_vec()
                };
                if seen.insert(name.to_lowercase(), i).is_some() {
                    self.push(src.error_at(
                        diag::DUPLICATE_ID,
                        &at,
                        format!("provider id or alias `{name}` is defined twice"),
                    ));
                }
            }
        }
        for (i, p) in file.prefixes.iter().enumerate() {
            self.marker(src, &path!["prefixes", i, "prefix"], &p.prefix);
        }
    }

    fn signals(&mut self, src: &Source<'_>, file: &SignalsFile) {
        for (i, s) in file.signals.iter().enumerate() {
            self.id(src, &path!["signals", i, "id"], &s.id);
            if s.literals.is_empty()
                && s.regexes.is_empty()
                && s.all_of.is_empty()
                && s.only_for.is_empty()
            {
                self.push(src.error_at(
                    diag::EXCLUSIVE_FIELDS,
                    &path!["signals", i],
                    format!(
                        "signal list `{}` has no literals, regexes, all_of or only_for",
                        s.id
                    ),
                ));
            }
            for (j, l) in s.literals.iter().enumerate() {
                self.marker(src, &path!["signals", i, "literals", j], l);
            }
            for (j, r) in s.regexes.iter().enumerate() {
                self.regex(src, &path!["signals", i, "regexes", j], r);
            }
            for (j, group) in s.all_of.iter().enumerate() {
                if group.is_empty() {
                    self.push(src.error_at(
                        diag::EMPTY_MARKER,
                        &path!["signals", i, "all_of", j],
                        "empty all_of group",
                    ));
                }
                for (k, l) in group.iter().enumerate() {
                    self.marker(src, &path!["signals", i, "all_of", j, k], l);
                }
            }
            for (j, o) in s.only_for.iter().enumerate() {
                for (k, p) in o.providers.iter().enumerate() {
                    self.provider(src, &path!["signals", i, "only_for", j, "providers", k], p);
                }
                for (k, l) in o.literals.iter().enumerate() {
                    self.marker(src, &path!["signals", i, "only_for", j, "literals", k], l);
                }
            }
        }
    }

    fn error_rules(&mut self, src: &Source<'_>, file: &ErrorRulesFile) {
        for (i, r) in file.rules.iter().enumerate() {
            self.id(src, &path!["rules", i, "id"], &r.id);
            match (&r.text, r.status) {
                (Some(_), Some(_)) | (None, None) => self.push(src.error_at(
                    diag::EXCLUSIVE_FIELDS,
                    &path!["rules", i],
                    format!("rule `{}` needs exactly one of `text` or `status`", r.id),
                )),
                (Some(t), None) => self.marker(src, &path!["rules", i, "text"], t),
                (None, Some(s)) => self.status(src, &path!["rules", i, "status"], s),
            }
            if r.backoff == r.cooldown_ms.is_some() {
                self.push(src.error_at(
                    diag::EXCLUSIVE_FIELDS,
                    &path!["rules", i],
                    format!(
                        "rule `{}` needs exactly one of `cooldown_ms` or `backoff: true`",
                        r.id
                    ),
                ));
            }
        }
    }

    fn provider_rules(&mut self, src: &Source<'_>, file: &ProviderRulesFile) {
        for (i, r) in file.rules.iter().enumerate() {
            self.id(src, &path!["rules", i, "id"], &r.id);
            if r.providers.is_empty() {
                self.push(src.error_at(
                    diag::SCHEMA,
                    &path!["rules", i, "providers"],
                    "a rule needs at least one provider",
                ));
            }
            for (j, p) in r.providers.iter().enumerate() {
                self.provider(src, &path!["rules", i, "providers", j], p);
            }
            if r.status.is_empty() {
                self.push(src.error_at(
                    diag::SCHEMA,
                    &path!["rules", i, "status"],
                    "a rule needs at least one status",
                ));
            }
            for (j, s) in r.status.iter().enumerate() {
                self.status(src, &path!["rules", i, "status", j], *s);
            }
            for (j, m) in r.body_any.iter().enumerate() {
                self.marker(src, &path!["rules", i, "body_any", j], m);
            }
            for (j, h) in r.headers_any.iter().enumerate() {
                if h.equals.is_some() == h.list_value_equals.is_some() {
                    self.push(src.error_at(
                        diag::EXCLUSIVE_FIELDS,
                        &path!["rules", i, "headers_any", j],
                        "a header condition needs exactly one of `equals` or `list_value_equals`",
                    ));
                }
                if h.name != h.name.to_lowercase() {
                    self.push(src.warning_at(
                        diag::NOT_LOWERCASE,
                        &path!["rules", i, "headers_any", j, "name"],
                        format!("header name `{}` should be lower-case (headers match case-insensitively)", h.name),
                    ));
                }
            }
            if r.cooldown_ms.is_some() && r.cooldown_from.is_some() {
                self.push(src.error_at(
                    diag::EXCLUSIVE_FIELDS,
                    &path!["rules", i, "cooldown_from"],
                    "`cooldown_ms` and `cooldown_from` cannot both be set",
                ));
            }
        }
    }

    fn restatements(&mut self, src: &Source<'_>, file: &RestatementsFile) {
        for (i, r) in file.rules.iter().enumerate() {
            self.id(src, &path!["rules", i, "id"], &r.id);
            self.provider(src, &path!["rules", i, "provider"], &r.provider);
            for (j, s) in r.from_statuses.iter().enumerate() {
                self.status(src, &path!["rules", i, "from_statuses", j], *s);
            }
            self.status(src, &path!["rules", i, "to_status"], r.to_status);
            if r.text_markers.is_empty() {
                self.push(src.error_at(
                    diag::SCHEMA,
                    &path!["rules", i, "text_markers"],
                    "a restatement needs at least one text marker",
                ));
            }
            for (j, m) in r.text_markers.iter().enumerate() {
                self.marker(src, &path!["rules", i, "text_markers", j], m);
            }
            for (j, m) in r.exclude_markers.iter().enumerate() {
                self.marker(src, &path!["rules", i, "exclude_markers", j], m);
            }
        }
    }

    fn allowlists(&mut self, src: &Source<'_>, a: &AllowlistsFile) {
        for (key, list) in [
            ("full_text_rule_providers", &a.full_text_rule_providers),
            (
                "honors_rule_lock_scope_providers",
                &a.honors_rule_lock_scope_providers,
            ),
            (
                "egress_bucketed_lock_providers",
                &a.egress_bucketed_lock_providers,
            ),
        ] {
            for (j, p) in list.iter().enumerate() {
                self.provider(src, &path![key, j], p);
            }
        }
    }

    fn resilience(&mut self, src: &Source<'_>, r: &ResilienceFile) {
        // Every knob, wherever it sits, must hold its default inside [min, max].
        let Ok(value) = serde_json::to_value(r) else {
            return;
        };
        let mut knobs = Vec::new();
        collect_knobs(&value, &mut Vec::new(), &mut knobs);
        for (path, knob) in knobs {
            if knob.min > knob.max || knob.default < knob.min || knob.default > knob.max {
                self.push(src.error_at(
                    diag::NUMBER_RANGE,
                    &path,
                    format!(
                        "knob default {} is outside its range [{}, {}]",
                        knob.default, knob.min, knob.max
                    ),
                ));
            }
        }
        let c = &r.classification;
        for (key, list) in [
            ("retryable_statuses", &c.retryable_statuses),
            (
                "retry_after_eligible_statuses",
                &c.retry_after_eligible_statuses,
            ),
        ] {
            for (j, s) in list.iter().enumerate() {
                self.status(src, &path!["classification", key, j], *s);
            }
        }
        self.status(
            src,
            &path!["classification", "plan_limit_status"],
            c.plan_limit_status,
        );
        if c.daily_reset_hour_utc > 23 {
            self.push(src.error_at(
                diag::NUMBER_RANGE,
                &path!["classification", "daily_reset_hour_utc"],
                "daily_reset_hour_utc must be 0..=23",
            ));
        }
        for (j, s) in r.circuit_breaker.trip_statuses.iter().enumerate() {
            self.status(src, &path!["circuit_breaker", "trip_statuses", j], *s);
        }
        for (j, s) in r.model_lockout.error_codes.iter().enumerate() {
            self.status(src, &path!["model_lockout", "error_codes", j], *s);
        }
        for (j, p) in r.model_lockout.slow_start.providers.iter().enumerate() {
            self.provider(
                src,
                &path!["model_lockout", "slow_start", "providers", j],
                p,
            );
        }
    }

    fn completeness(&mut self, files: &[Loaded<'_>]) {
        let Some(first) = files.first() else { return };
        let defined: BTreeSet<&str> = files
            .iter()
            .filter_map(|f| match &f.file {
                RuleFile::Signals(s) => Some(s.signals.iter().map(|x| x.id.as_str())),
                _ => None,
            })
            .flatten()
            .collect();
        for id in SignalId::ALL {
            if !defined.contains(id.as_str()) {
                self.push(Diagnostic::error(
                    diag::MISSING_SIGNAL,
                    first.source.name,
                    format!(
                        "the classifier needs the signal list `{}`, and no signals file defines it",
                        id.as_str()
                    ),
                ));
            }
        }
        for kind in [
            "providers",
            "signals",
            "error_rules",
            "allowlists",
            "resilience",
        ] {
            if !files.iter().any(|f| f.file.kind() == kind) {
                self.push(Diagnostic::error(
                    diag::MISSING_SIGNAL,
                    first.source.name,
                    format!("the built-in catalog has no `{kind}` file"),
                ));
            }
        }
    }
}

fn collect_knobs(value: &serde_json::Value, at: &mut Vec<Seg>, out: &mut Vec<(Vec<Seg>, Knob)>) {
    match value {
        serde_json::Value::Object(map) => {
            if map.len() == 3
                && map.contains_key("default")
                && map.contains_key("min")
                && map.contains_key("max")
            {
                if let Ok(knob) = serde_json::from_value::<Knob>(value.clone()) {
                    out.push((at.clone(), knob));
                }
                return;
            }
            for (k, v) in map {
                at.push(Seg::Key(k.clone()));
                collect_knobs(v, at, out);
                at.pop();
            }
        }
        serde_json::Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                at.push(Seg::Index(i));
                collect_knobs(v, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

/// Merges decoded files into one catalog. Operator provider rules land in `operator_rules`.
pub fn merge(files: &[Loaded<'_>], role: Role, mut into: Catalog) -> Catalog {
    for f in files {
        match &f.file {
            RuleFile::Providers(p) => {
                into.providers.extend(p.providers.iter().cloned());
                into.prefixes.extend(p.prefixes.iter().cloned());
            }
            RuleFile::Signals(s) => into.signals.extend(s.signals.iter().cloned()),
            RuleFile::ErrorRules(r) => into.error_rules.extend(r.rules.iter().cloned()),
            RuleFile::ProviderRules(r) => match role {
                Role::BuiltIn => into.provider_rules.extend(r.rules.iter().cloned()),
                Role::Operator => into.operator_rules.extend(r.rules.iter().cloned()),
            },
            RuleFile::Restatements(r) => into.restatements.extend(r.rules.iter().cloned()),
            RuleFile::Allowlists(a) => into.allowlists = Some(a.clone()),
            RuleFile::Resilience(r) => into.resilience = Some(r.clone()),
        }
    }
    into
}
