//! Reads one rule file: tells its kind, decodes it into the typed model, and turns every
//! failure into a located diagnostic. Shared with build.rs (no `crate::` paths).
// A file is decoded once, so the size of these values does not matter on any hot path.
#![allow(clippy::large_enum_variant, clippy::result_large_err)]

use super::diag::{self, Diagnostic};
use super::model::*;
use saphyr::{LoadableYamlNode, MarkedYaml, YamlData};
use serde::Deserialize;

/// One decoded rule file.
#[derive(Debug, Clone)]
pub enum RuleFile {
    Providers(ProvidersFile),
    Signals(SignalsFile),
    ErrorRules(ErrorRulesFile),
    ProviderRules(ProviderRulesFile),
    Restatements(RestatementsFile),
    Allowlists(AllowlistsFile),
    Resilience(ResilienceFile),
}

impl RuleFile {
    pub fn kind(&self) -> &'static str {
        match self {
            RuleFile::Providers(_) => "providers",
            RuleFile::Signals(_) => "signals",
            RuleFile::ErrorRules(_) => "error_rules",
            RuleFile::ProviderRules(_) => "provider_rules",
            RuleFile::Restatements(_) => "restatements",
            RuleFile::Allowlists(_) => "allowlists",
            RuleFile::Resilience(_) => "resilience",
        }
    }
}

#[derive(Deserialize)]
struct KindProbe {
    kind: Option<String>,
}

/// A rule file's text with the means to point into it.
pub struct Source<'a> {
    pub name: &'a str,
    pub text: &'a str,
    root: Option<MarkedYaml<'a>>,
}

/// One step of a path into the document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seg {
    Key(String),
    Index(usize),
}

impl From<&str> for Seg {
    fn from(key: &str) -> Self {
        Seg::Key(key.to_string())
    }
}

impl From<usize> for Seg {
    fn from(index: usize) -> Self {
        Seg::Index(index)
    }
}

impl<'a> Source<'a> {
    pub fn new(name: &'a str, text: &'a str) -> Self {
        let root = MarkedYaml::load_from_str(text)
            .ok()
            .and_then(|docs| docs.into_iter().next());
        Source { name, text, root }
    }

    /// Line, column (both 1-based) and width of the node at `path`; with `key` the position of
    /// the mapping key itself rather than its value. Falls back to the deepest node found.
    pub fn locate(&self, path: &[Seg], key: bool) -> (usize, usize, usize) {
        let Some(mut node) = self.root.as_ref() else {
            return (0, 0, 1);
        };
        let mut key_node: Option<&MarkedYaml<'a>> = None;
        for seg in path {
            let next = match (&node.data, seg) {
                (YamlData::Mapping(map), Seg::Key(want)) => map
                    .iter()
                    .find(|(k, _)| k.data.as_str() == Some(want.as_str()))
                    .map(|(k, v)| {
                        key_node = Some(k);
                        v
                    }),
                (YamlData::Sequence(seq), Seg::Index(i)) => {
                    key_node = None;
                    seq.get(*i)
                }
                _ => None,
            };
            match next {
                Some(n) => node = n,
                None => break,
            }
        }
        let target = if key { key_node.unwrap_or(node) } else { node };
        let start = target.span.start;
        let end = target.span.end;
        let width = if end.line() == start.line() && end.col() > start.col() {
            end.col() - start.col()
        } else {
            1
        };
        (start.line(), start.col() + 1, width)
    }

    pub fn error_at(
        &self,
        code: diag::Code,
        path: &[Seg],
        message: impl Into<String>,
    ) -> Diagnostic {
        let (line, col, width) = self.locate(path, false);
        Diagnostic::error(code, self.name, message).at(line, col, width)
    }

    pub fn warning_at(
        &self,
        code: diag::Code,
        path: &[Seg],
        message: impl Into<String>,
    ) -> Diagnostic {
        let (line, col, width) = self.locate(path, false);
        Diagnostic::warning(code, self.name, message).at(line, col, width)
    }

    /// The top-level keys, for telling a file's kind when it does not declare one.
    fn top_keys(&self) -> Vec<String> {
        match self.root.as_ref().map(|r| &r.data) {
            Some(YamlData::Mapping(map)) => map
                .keys()
                .filter_map(|k| k.data.as_str().map(str::to_string))
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The keys of the first entry of `rules`, for the same purpose.
    fn first_rule_keys(&self) -> Vec<String> {
        let Some(YamlData::Mapping(map)) = self.root.as_ref().map(|r| &r.data) else {
            return Vec::new();
        };
        let rules = map
            .iter()
            .find(|(k, _)| k.data.as_str() == Some("rules"))
            .map(|(_, v)| v);
        match rules.map(|r| &r.data) {
            Some(YamlData::Sequence(seq)) => match seq.first().map(|f| &f.data) {
                Some(YamlData::Mapping(first)) => first
                    .keys()
                    .filter_map(|k| k.data.as_str().map(str::to_string))
                    .collect(),
                _ => Vec::new(),
            },
            _ => Vec::new(),
        }
    }
}

/// Tells the kind from the top-level keys when `kind:` is absent.
fn infer_kind(source: &Source<'_>) -> Option<&'static str> {
    let keys = source.top_keys();
    let has = |k: &str| keys.iter().any(|x| x == k);
    if has("providers") || has("prefixes") {
        return Some("providers");
    }
    if has("signals") {
        return Some("signals");
    }
    if has("full_text_rule_providers") || has("honors_rule_lock_scope_providers") {
        return Some("allowlists");
    }
    if has("classification") || has("circuit_breaker") {
        return Some("resilience");
    }
    if has("rules") {
        let first = source.first_rule_keys();
        let rule_has = |k: &str| first.iter().any(|x| x == k);
        if rule_has("from_statuses") || rule_has("to_status") {
            return Some("restatements");
        }
        if rule_has("providers") || rule_has("scope") {
            return Some("provider_rules");
        }
        if rule_has("text") || rule_has("backoff") || rule_has("reason") {
            return Some("error_rules");
        }
    }
    None
}

fn decode_error(source: &Source<'_>, err: &serde_saphyr::Error) -> Diagnostic {
    let inner = err.without_snippet();
    let mut message = inner.to_string();
    // serde-saphyr appends its own " at line X column Y"; the arrow line already says it.
    if let Some(pos) = message.find(" at line ") {
        message.truncate(pos);
    }
    let code = match inner {
        serde_saphyr::Error::Message { .. } => diag::SCHEMA,
        _ if message.contains("unknown field")
            || message.contains("missing field")
            || message.contains("invalid type")
            || message.contains("unknown variant")
            || message.contains("duplicate") =>
        {
            diag::SCHEMA
        }
        _ => diag::YAML_SYNTAX,
    };
    let mut d = Diagnostic::error(code, source.name, message.clone());
    if let Some(loc) = err.location() {
        let line = usize::try_from(loc.line()).unwrap_or(0);
        let col = usize::try_from(loc.column()).unwrap_or(0);
        // Underline the offending token where we can find it on that line.
        let width = source
            .text
            .lines()
            .nth(line.saturating_sub(1))
            .and_then(|l| l.get(col.saturating_sub(1)..))
            .map(|rest| {
                rest.chars()
                    .take_while(|c| !c.is_whitespace() && *c != ':' && *c != ',' && *c != '}')
                    .count()
            })
            .unwrap_or(1);
        d = d.at(line, col, width);
    }
    if let Some(help) = unknown_field_help(&message) {
        d = d.with_help(help);
    }
    d
}

/// For "unknown field `x`, expected one of `a`, `b`": the nearest valid name.
fn unknown_field_help(message: &str) -> Option<String> {
    let rest = message
        .strip_prefix("unknown field `")
        .or_else(|| message.strip_prefix("unknown variant `"))?;
    let (bad, rest) = rest.split_once('`')?;
    let candidates: Vec<&str> = rest.split('`').skip(1).step_by(2).collect();
    let best = candidates
        .iter()
        .map(|c| (edit_distance(bad, c), *c))
        .min()?;
    if best.0 <= bad.len().max(3) / 2 + 1 {
        Some(format!("did you mean `{}`?", best.1))
    } else {
        None
    }
}

/// Levenshtein distance, for "did you mean" hints.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

fn decode<T: for<'de> Deserialize<'de>>(source: &Source<'_>) -> Result<T, Diagnostic> {
    serde_saphyr::from_str::<T>(source.text).map_err(|e| decode_error(source, &e))
}

/// Decodes one rule file of any kind.
pub fn parse_file(source: &Source<'_>) -> Result<RuleFile, Diagnostic> {
    let probe: KindProbe = match serde_saphyr::from_str(source.text) {
        Ok(p) => p,
        Err(e) => {
            let mut d = decode_error(source, &e);
            d.code = diag::YAML_SYNTAX;
            return Err(d);
        }
    };
    let kind = match probe.kind.as_deref() {
        Some(k) => k.to_string(),
        None => match infer_kind(source) {
            Some(k) => k.to_string(),
            None => {
                return Err(Diagnostic::error(
                    diag::UNKNOWN_KIND,
                    source.name,
                    "cannot tell the rule file's kind: add `kind:` at the top",
                )
                .at(1, 1, 1)
                .with_help(format!("one of: {}", FILE_KINDS.join(", "))));
            }
        },
    };
    // A file without `kind:` still decodes: the typed structs require it, so add it at the
    // end, where it shifts no line numbers.
    let patched;
    let patched_source;
    let source = if probe.kind.is_none() {
        patched = format!("{}\nkind: {kind}\n", source.text.trim_end());
        patched_source = Source::new(source.name, &patched);
        &patched_source
    } else {
        source
    };
    let file = match kind.as_str() {
        "providers" => RuleFile::Providers(decode(source)?),
        "signals" => RuleFile::Signals(decode(source)?),
        "error_rules" => RuleFile::ErrorRules(decode(source)?),
        "provider_rules" => RuleFile::ProviderRules(decode(source)?),
        "restatements" => RuleFile::Restatements(decode(source)?),
        "allowlists" => RuleFile::Allowlists(decode(source)?),
        "resilience" => RuleFile::Resilience(decode(source)?),
        other => {
            let (line, col, width) = source.locate(&[Seg::Key("kind".into())], false);
            let nearest = FILE_KINDS
                .iter()
                .min_by_key(|k| edit_distance(other, k))
                .copied()
                .unwrap_or("providers");
            return Err(Diagnostic::error(
                diag::UNKNOWN_KIND,
                source.name,
                format!("unknown rule file kind `{other}`"),
            )
            .at(line, col, width)
            .with_help(format!(
                "did you mean `{nearest}`? kinds: {}",
                FILE_KINDS.join(", ")
            )));
        }
    };
    Ok(file)
}
