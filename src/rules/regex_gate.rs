//! Required-prefix literals of a rule regex. Every match of the regex starts with one of them,
//! so the single literal scan can tell when a regex cannot match and need not run. Shared
//! with build.rs (no `crate::` paths).

use regex_syntax::hir::literal::{ExtractKind, Extractor};

/// Shorter literals would hit nearly every body and fall off the scanner's fast path.
pub const MIN_GATE_LEN: usize = 5;
const MAX_GATES: usize = 64;

/// Parses and checks a rule regex. `Err` carries the parser's message.
pub fn validate(pattern: &str) -> Result<(), String> {
    let re = regex::RegexBuilder::new(pattern)
        .case_insensitive(true)
        .build()
        .map_err(|e| e.to_string())?;
    if re.is_match("") {
        return Err("the pattern matches empty text, so it would fire on every body".into());
    }
    Ok(())
}

/// The gate literals of a regex: `prefixes` (every match starts with one) and `suffixes`
/// (every match ends with one), each `None` when no finite set of useful literals exists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gates {
    pub prefixes: Option<Vec<String>>,
    pub suffixes: Option<Vec<String>>,
}

impl Gates {
    pub fn is_gated(&self) -> bool {
        self.prefixes.is_some() || self.suffixes.is_some()
    }
}

/// Both gate sets of a pattern.
pub fn gate_sets(pattern: &str) -> Gates {
    Gates {
        prefixes: extract(pattern, ExtractKind::Prefix, MIN_GATE_LEN),
        suffixes: extract(pattern, ExtractKind::Suffix, MIN_GATE_LEN),
    }
}

/// Literal sets too short for the scanner (2 to 4 bytes) but still worth a targeted search
/// before a regex runs; `None` where the scanner gate exists or no such set exists.
pub fn short_gate_sets(pattern: &str) -> Gates {
    let short = |kind: ExtractKind| match extract(pattern, kind.clone(), MIN_GATE_LEN) {
        Some(_) => None,
        None => extract(pattern, kind, MIN_SHORT_GATE_LEN),
    };
    Gates {
        prefixes: short(ExtractKind::Prefix),
        suffixes: short(ExtractKind::Suffix),
    }
}

const MIN_SHORT_GATE_LEN: usize = 2;

fn extract(pattern: &str, kind: ExtractKind, min_len: usize) -> Option<Vec<String>> {
    // Extracted from the case-sensitive pattern and ASCII-lowered: the scanner folds ASCII
    // case only, so a literal with a cased non-ASCII letter cannot be a safe gate.
    let hir = regex_syntax::ParserBuilder::new()
        .build()
        .parse(pattern)
        .ok()?;
    let mut extractor = Extractor::new();
    extractor.kind(kind).limit_total(MAX_GATES * 8);
    let seq = extractor.extract(&hir);
    let literals = seq.literals()?;
    if literals.is_empty() || literals.len() > MAX_GATES {
        return None;
    }
    let mut out = Vec::with_capacity(literals.len());
    for lit in literals {
        let text = std::str::from_utf8(lit.as_bytes()).ok()?;
        let cased_non_ascii = text
            .chars()
            .any(|c| !c.is_ascii() && (c.is_lowercase() || c.is_uppercase()));
        if text.len() < min_len || cased_non_ascii {
            return None;
        }
        out.push(text.to_ascii_lowercase());
    }
    out.sort();
    out.dedup();
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alternation_prefixes_are_gates() {
        let g = gate_sets("(?:invalid|expired) api.?key")
            .prefixes
            .expect("gated");
        assert_eq!(
            g,
            vec!["expired api".to_string(), "invalid api".to_string()]
        );
    }

    #[test]
    fn proximity_patterns_gate_on_the_first_word() {
        assert_eq!(
            gate_sets("model.{0,40}(?:retired|deprecated)")
                .prefixes
                .expect("gated"),
            vec!["model"]
        );
        assert_eq!(
            gate_sets("(?:invalid|expired) api.?key")
                .prefixes
                .map(|g| g.len()),
            Some(2)
        );
        assert_eq!(
            gate_sets("rate.?limit").suffixes,
            Some(vec!["limit".to_string()])
        );
        assert_eq!(
            gate_sets("限额将在.*重置").prefixes.expect("gated"),
            vec!["限额将在"]
        );
    }

    #[test]
    fn unanchored_or_short_prefixes_are_not_gates() {
        assert_eq!(gate_sets(r"\w+ failed").prefixes, None);
        assert_eq!(gate_sets("a.*b").prefixes, None);
        assert!(!gate_sets("a.*b").is_gated());
    }

    #[test]
    fn short_literals_become_short_gates() {
        let g = short_gate_sets("billing.*cap");
        assert_eq!(g.prefixes, None, "billing is a scanner gate");
        assert_eq!(g.suffixes, Some(vec!["cap".to_string()]));
    }

    #[test]
    fn suffixes_gate_when_the_prefix_is_short() {
        let g = gate_sets("max.*token");
        assert_eq!(g.prefixes, None);
        assert_eq!(g.suffixes, Some(vec!["token".to_string()]));
        let g = gate_sets("model.*not.*(?:found|available)");
        assert_eq!(g.prefixes, Some(vec!["model".to_string()]));
        assert_eq!(
            g.suffixes,
            Some(vec!["available".to_string(), "found".to_string()])
        );
    }

    #[test]
    fn validate_rejects_empty_matches_and_bad_syntax() {
        assert!(validate("a*").is_err());
        assert!(validate("(unclosed").is_err());
        assert!(validate("rate.?limit").is_ok());
    }
}
