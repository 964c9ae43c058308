//! One scan per body. Every literal marker of the catalog (signal literals, rule markers,
//! restatement markers, regex gate prefixes, hint triggers) is one pattern of a single
//! ASCII-case-insensitive Aho-Corasick automaton; one overlapping pass records which appeared.
//! Regexes then run only when asked for and only if one of their required prefixes appeared;
//! the few without a usable prefix share one `RegexSet` pass.

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, AhoCorasickKind, MatchKind};
use regex::{Regex, RegexBuilder, RegexSet, RegexSetBuilder};
use std::cell::Cell;
use std::collections::HashMap;

pub type LitId = usize;
pub type RegId = usize;

#[derive(Debug, thiserror::Error)]
pub enum MatcherError {
    #[error("cannot build the literal automaton: {0}")]
    Automaton(#[from] aho_corasick::BuildError),
    #[error("invalid regex `{pattern}`: {source}")]
    Regex {
        pattern: String,
        #[source]
        source: regex::Error,
    },
}

/// Collects literals and regexes, deduplicating them, before the automaton is built.
#[derive(Default)]
pub struct MatcherBuilder {
    literals: Vec<String>,
    index: HashMap<String, LitId>,
    regexes: Vec<String>,
    regex_index: HashMap<String, RegId>,
}

impl MatcherBuilder {
    /// The id of a literal (ASCII-lower-cased; the automaton folds ASCII case).
    pub fn literal(&mut self, text: &str) -> LitId {
        let key = text.to_ascii_lowercase();
        if let Some(&id) = self.index.get(&key) {
            return id;
        }
        let id = self.literals.len();
        self.literals.push(key.clone());
        self.index.insert(key, id);
        id
    }

    pub fn regex(&mut self, pattern: &str) -> RegId {
        if let Some(&id) = self.regex_index.get(pattern) {
            return id;
        }
        let id = self.regexes.len();
        self.regexes.push(pattern.to_string());
        self.regex_index.insert(pattern.to_string(), id);
        id
    }

    pub fn build(mut self) -> Result<Matcher, MatcherError> {
        let mut compiled = Vec::with_capacity(self.regexes.len());
        let mut gates = Vec::with_capacity(self.regexes.len());
        let mut ungated = Vec::new();
        let patterns = std::mem::take(&mut self.regexes);
        for (id, pattern) in patterns.iter().enumerate() {
            let re = RegexBuilder::new(pattern)
                .case_insensitive(true)
                .build()
                .map_err(|source| MatcherError::Regex {
                    pattern: pattern.clone(),
                    source,
                })?;
            compiled.push(re);
            match super::regex_gate::gates(pattern) {
                Some(prefixes) => {
                    gates.push(prefixes.iter().map(|p| self.literal(p)).collect());
                }
                None => {
                    gates.push(Vec::new());
                    ungated.push(id);
                }
            }
        }
        let ungated_set = RegexSetBuilder::new(ungated.iter().map(|&i| &patterns[i]))
            .case_insensitive(true)
            .build()
            .map_err(|source| MatcherError::Regex {
                pattern: "<ungated set>".into(),
                source,
            })?;
        let ac = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .kind(Some(AhoCorasickKind::DFA))
            .build(&self.literals)?;
        let words = self.literals.len().div_ceil(64);
        Ok(Matcher {
            ac,
            words,
            literals: self.literals,
            index: self.index,
            regexes: compiled,
            patterns,
            gates,
            ungated,
            ungated_set,
        })
    }
}

pub struct Matcher {
    ac: AhoCorasick,
    words: usize,
    literals: Vec<String>,
    index: HashMap<String, LitId>,
    regexes: Vec<Regex>,
    patterns: Vec<String>,
    gates: Vec<Vec<LitId>>,
    ungated: Vec<RegId>,
    ungated_set: RegexSet,
}

impl Matcher {
    /// The single pass over the body.
    pub fn scan<'m, 'b>(&'m self, body: &'b str) -> Hits<'m, 'b> {
        let mut bits = vec![0u64; self.words];
        if !body.is_empty() {
            for m in self.ac.find_overlapping_iter(body) {
                let id = m.pattern().as_usize();
                bits[id / 64] |= 1 << (id % 64);
            }
        }
        Hits {
            matcher: self,
            body,
            bits,
            regex_memo: vec![Cell::new(RegexState::Unknown); self.regexes.len()],
        }
    }

    pub fn literal_text(&self, id: LitId) -> &str {
        &self.literals[id]
    }

    pub fn regex_pattern(&self, id: RegId) -> &str {
        &self.patterns[id]
    }

    pub fn literal_id(&self, text: &str) -> Option<LitId> {
        self.index.get(&text.to_ascii_lowercase()).copied()
    }

    pub fn literal_count(&self) -> usize {
        self.literals.len()
    }

    pub fn regex_count(&self) -> usize {
        self.regexes.len()
    }

    pub fn ungated_count(&self) -> usize {
        self.ungated.len()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RegexState {
    Unknown,
    No,
    Yes,
}

/// What one scan found. Regex answers are computed on first use and remembered.
pub struct Hits<'m, 'b> {
    matcher: &'m Matcher,
    body: &'b str,
    bits: Vec<u64>,
    regex_memo: Vec<Cell<RegexState>>,
}

impl Hits<'_, '_> {
    pub fn literal(&self, id: LitId) -> bool {
        self.bits[id / 64] & (1 << (id % 64)) != 0
    }

    pub fn any_literal(&self, ids: &[LitId]) -> Option<LitId> {
        ids.iter().copied().find(|&id| self.literal(id))
    }

    pub fn regex(&self, id: RegId) -> bool {
        match self.regex_memo[id].get() {
            RegexState::Yes => return true,
            RegexState::No => return false,
            RegexState::Unknown => {}
        }
        let m = self.matcher;
        let gates = &m.gates[id];
        let hit = if gates.is_empty() {
            self.run_ungated();
            return self.regex_memo[id].get() == RegexState::Yes;
        } else if gates.iter().any(|&g| self.literal(g)) {
            m.regexes[id].is_match(self.body)
        } else {
            false
        };
        self.regex_memo[id].set(if hit { RegexState::Yes } else { RegexState::No });
        hit
    }

    fn run_ungated(&self) {
        let m = self.matcher;
        let matched = m.ungated_set.matches(self.body);
        for (slot, &id) in m.ungated.iter().enumerate() {
            let state = if matched.matched(slot) {
                RegexState::Yes
            } else {
                RegexState::No
            };
            self.regex_memo[id].set(state);
        }
    }

    pub fn body(&self) -> &str {
        self.body
    }

    pub fn matcher(&self) -> &Matcher {
        self.matcher
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build(lits: &[&str], res: &[&str]) -> (Matcher, Vec<LitId>, Vec<RegId>) {
        let mut b = MatcherBuilder::default();
        let l = lits.iter().map(|x| b.literal(x)).collect();
        let r = res.iter().map(|x| b.regex(x)).collect();
        (b.build().expect("builds"), l, r)
    }

    #[test]
    fn overlapping_literals_all_reported() {
        let (m, l, _) = build(&["rate limit", "tpd rate limit", "organization tpd rate limit"], &[]);
        let h = m.scan("Organization TPD Rate Limit reached");
        assert!(l.iter().all(|&id| h.literal(id)));
    }

    #[test]
    fn chinese_literals_match() {
        let (m, l, _) = build(&["额度不足", "无权访问"], &[]);
        let h = m.scan(r#"{"error":"用户额度不足"}"#);
        assert!(h.literal(l[0]));
        assert!(!h.literal(l[1]));
    }

    #[test]
    fn gated_regex_runs_only_when_its_prefix_appears() {
        let (m, _, r) = build(&[], &["model.{0,40}retired", r"\w+ exploded"]);
        assert!(m.scan("The MODEL gpt-3 was retired").regex(r[0]));
        assert!(!m.scan("nothing here retired").regex(r[0]));
        assert!(m.scan("engine exploded").regex(r[1]));
        assert_eq!(m.ungated_count(), 1);
    }
}
