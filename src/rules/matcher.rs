//! One scan per body. Every literal marker of the catalog (signal literals, rule markers,
//! restatement markers, regex gate literals, hint triggers) is found in a single pass that
//! records which of them appear anywhere in the body, ASCII case folded.
//!
//! The pass is a sampled window filter: every second 4-byte window of the body is case
//! folded, hashed and tested against a 64 Kbit set (8 KB, so it stays in L1) holding two
//! consecutive windows of each literal, taken where its bytes are least common in English (as
//! Hyperscan picks its literal fragments); a literal of five bytes or more always covers one
//! tested window. Only a hit is verified, first on eight folded bytes, then exactly. An
//! Aho-Corasick automaton over all the folded phrases measured 200 MB/s here (its table does
//! not fit in cache); this filter costs a load, a multiply and a bit test per two bytes.
//! Literals shorter than five bytes go through a small Aho-Corasick automaton instead. The
//! full automaton remains as `scan_reference`, the oracle of a differential test.
//!
//! Regexes then run only when asked for and only if their required literals appeared; the few
//! without usable literals share one `RegexSet` pass.

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
            let g = super::regex_gate::gate_sets(pattern);
            if !g.is_gated() {
                ungated.push(id);
            }
            let mut ids = |set: Option<Vec<String>>| {
                set.map(|s| s.iter().map(|p| self.literal(p)).collect::<Vec<_>>())
            };
            let prefixes = ids(g.prefixes);
            let suffixes = ids(g.suffixes);
            let short = super::regex_gate::short_gate_sets(pattern);
            gates.push(Gate {
                prefixes,
                suffixes,
                short_prefixes: short_gate(short.prefixes)?,
                short_suffixes: short_gate(short.suffixes)?,
            });
        }
        let ungated_set = RegexSetBuilder::new(ungated.iter().map(|&i| &patterns[i]))
            .case_insensitive(true)
            .build()
            .map_err(|source| MatcherError::Regex {
                pattern: "<ungated set>".into(),
                source,
            })?;
        let all: Vec<&str> = self.literals.iter().map(String::as_str).collect();
        let reference = folded_automaton(&all, Some(AhoCorasickKind::DFA))?;
        let short_ids: Vec<LitId> = (0..self.literals.len())
            .filter(|&i| self.literals[i].len() < MIN_SAMPLED_LEN)
            .collect();
        let short: Vec<&str> = short_ids
            .iter()
            .map(|&i| self.literals[i].as_str())
            .collect();
        let short_ac = folded_automaton(&short, Some(AhoCorasickKind::DFA))?;
        let filter = WindowFilter::new(&self.literals);
        Ok(Matcher {
            reference,
            short_ac,
            short_ids,
            filter,
            literals: self.literals,
            regexes: compiled,
            patterns,
            gates,
            ungated,
            ungated_set,
        })
    }
}

const WINDOW: usize = 4;
/// Windows are tested at every second position, so a literal must span two windows.
const STRIDE: usize = 2;
/// Literals shorter than this go through the small automaton.
pub const MIN_SAMPLED_LEN: usize = WINDOW + STRIDE - 1;
const FILTER_BITS: u32 = 16;
const BUCKET_BITS: u32 = 12;
const FILTER_WORDS: usize = 1 << (FILTER_BITS - 6);

/// Folds ASCII upper case (and, harmlessly, some punctuation) onto lower case for hashing and
/// the pre-check; the final verification is exact.
fn fold(w: u32) -> u32 {
    w | 0x2020_2020
}

fn fold8(w: u64) -> u64 {
    w | 0x2020_2020_2020_2020
}

fn window_hash(w: u32) -> u32 {
    w.wrapping_mul(0x9E37_79B1) >> (32 - FILTER_BITS)
}

/// Up to eight bytes at `at`, little-endian, zero-padded past the end.
fn load8(body: &[u8], at: usize) -> u64 {
    let mut buf = [0u8; 8];
    let rest = body.get(at..).unwrap_or(&[]);
    let n = rest.len().min(8);
    buf[..n].copy_from_slice(&rest[..n]);
    u64::from_le_bytes(buf)
}

/// How common a byte is in English-like text (higher is more common); spaces and the most
/// frequent letters make poor anchors.
fn commonness(b: u8) -> u32 {
    match b.to_ascii_lowercase() {
        b' ' => 200,
        b'e' => 127,
        b't' => 91,
        b'a' => 82,
        b'o' => 75,
        b'i' => 70,
        b'n' => 67,
        b's' => 63,
        b'h' => 61,
        b'r' => 60,
        b'd' => 43,
        b'l' => 40,
        b'c' | b'u' => 28,
        b'm' | b'w' => 24,
        b'f' | b'g' | b'y' | b'p' => 20,
        b'b' => 15,
        b'v' | b'k' => 9,
        b'j' | b'x' | b'q' | b'z' => 2,
        b'0'..=b'9' => 30,
        0x80.. => 5,
        _ => 60,
    }
}

/// Where to anchor a literal: the start of the two consecutive windows (five bytes) with the
/// least common bytes, so common words ("this ", "your ") do not trigger verification.
fn anchor(lit: &[u8]) -> usize {
    (0..=lit.len() - MIN_SAMPLED_LEN)
        .min_by_key(|&j| {
            lit[j..j + MIN_SAMPLED_LEN]
                .iter()
                .map(|&b| commonness(b))
                .sum::<u32>()
        })
        .unwrap_or(0)
}

/// What a scan found: which literals, where each first starts and where each last ends. One
/// allocation per scan: `[bits..., first..., last_end...]`.
struct Found {
    words: usize,
    literals: usize,
    data: Vec<u32>,
}

impl Found {
    fn new(literals: usize) -> Self {
        let words = literals.div_ceil(32);
        let mut data = vec![0u32; words + 2 * literals];
        data[words..words + literals].fill(u32::MAX);
        Found {
            words,
            literals,
            data,
        }
    }

    fn record(&mut self, id: LitId, start: usize, end: usize) {
        self.data[id / 32] |= 1 << (id % 32);
        let (start, end) = (start as u32, end as u32);
        let first = &mut self.data[self.words + id];
        *first = (*first).min(start);
        let last = &mut self.data[self.words + self.literals + id];
        *last = (*last).max(end);
    }

    fn has(&self, id: LitId) -> bool {
        self.data[id / 32] & (1 << (id % 32)) != 0
    }

    fn first(&self, id: LitId) -> u32 {
        self.data[self.words + id]
    }

    fn last_end(&self, id: LitId) -> u32 {
        self.data[self.words + self.literals + id]
    }
}

struct Entry {
    /// The folded window this entry is filed under.
    key: u32,
    /// Where that window sits inside the literal.
    offset: usize,
    id: LitId,
    /// The literal's first eight bytes, folded, and which of them exist.
    head: u64,
    mask: u64,
}

/// The literals of `MIN_SAMPLED_LEN` bytes or more, filed under the hash of two consecutive
/// 4-byte windows at their rarest spot.
struct WindowFilter {
    bits: Box<[u64; FILTER_WORDS]>,
    bucket_start: Vec<u32>,
    entries: Vec<Entry>,
}

impl WindowFilter {
    fn new(literals: &[String]) -> Self {
        let mut bits = Box::new([0u64; FILTER_WORDS]);
        let mut by_bucket: Vec<Vec<Entry>> = (0..1 << BUCKET_BITS).map(|_| Vec::new()).collect();
        for (id, lit) in literals.iter().enumerate() {
            let b = lit.as_bytes();
            if b.len() < MIN_SAMPLED_LEN {
                continue;
            }
            let len = b.len().min(8);
            let mask = if len == 8 {
                u64::MAX
            } else {
                (1u64 << (8 * len)) - 1
            };
            let head = fold8(load8(b, 0)) & mask;
            let base = anchor(b);
            for offset in base..base + STRIDE {
                let w = fold(u32::from_le_bytes([
                    b[offset],
                    b[offset + 1],
                    b[offset + 2],
                    b[offset + 3],
                ]));
                let h = window_hash(w);
                bits[(h >> 6) as usize] |= 1 << (h & 63);
                by_bucket[(h >> (FILTER_BITS - BUCKET_BITS)) as usize].push(Entry {
                    key: w,
                    offset,
                    id,
                    head,
                    mask,
                });
            }
        }
        let mut bucket_start = Vec::with_capacity(by_bucket.len() + 1);
        let mut entries = Vec::new();
        for bucket in by_bucket {
            bucket_start.push(entries.len() as u32);
            entries.extend(bucket);
        }
        bucket_start.push(entries.len() as u32);
        WindowFilter {
            bits,
            bucket_start,
            entries,
        }
    }

    #[inline(always)]
    fn test(&self, w: u32) -> bool {
        let h = window_hash(fold(w));
        self.bits[(h >> 6) as usize & (FILTER_WORDS - 1)] & (1 << (h & 63)) != 0
    }

    fn scan(&self, body: &[u8], literals: &[String], out: &mut Found) {
        let n = body.len();
        let mut i = 0;
        // Windows at i and i + 2 from each 8-byte load.
        while i + 8 <= n {
            let Ok(chunk) = <[u8; 8]>::try_from(&body[i..i + 8]) else {
                break;
            };
            let x = u64::from_le_bytes(chunk);
            if self.test(x as u32) {
                self.verify(body, i, fold(x as u32), literals, out);
            }
            if self.test((x >> 16) as u32) {
                self.verify(body, i + 2, fold((x >> 16) as u32), literals, out);
            }
            i += 4;
        }
        while i + WINDOW <= n {
            let w = u32::from_le_bytes([body[i], body[i + 1], body[i + 2], body[i + 3]]);
            if self.test(w) {
                self.verify(body, i, fold(w), literals, out);
            }
            i += STRIDE;
        }
    }

    #[cold]
    fn verify(&self, body: &[u8], at: usize, key: u32, literals: &[String], out: &mut Found) {
        let h = window_hash(key);
        let bucket = (h >> (FILTER_BITS - BUCKET_BITS)) as usize;
        let range = self.bucket_start[bucket] as usize..self.bucket_start[bucket + 1] as usize;
        for e in &self.entries[range] {
            if e.key != key || at < e.offset {
                continue;
            }
            let start = at - e.offset;
            if fold8(load8(body, start)) & e.mask != e.head {
                continue;
            }
            let lit = literals[e.id].as_bytes();
            let rest = &body[start..];
            if rest.len() >= lit.len() && rest[..lit.len()].eq_ignore_ascii_case(lit) {
                out.record(e.id, start, start + lit.len());
            }
        }
    }
}

pub struct Matcher {
    reference: AhoCorasick,
    short_ac: AhoCorasick,
    short_ids: Vec<LitId>,
    filter: WindowFilter,
    literals: Vec<String>,
    regexes: Vec<Regex>,
    patterns: Vec<String>,
    gates: Vec<Gate>,
    ungated: Vec<RegId>,
    ungated_set: RegexSet,
}

/// An ASCII-case-insensitive automaton reporting every match (overlapping searches need the
/// standard match kind).
fn folded_automaton<P: AsRef<[u8]>>(
    lits: &[P],
    kind: Option<AhoCorasickKind>,
) -> Result<AhoCorasick, aho_corasick::BuildError> {
    AhoCorasickBuilder::new()
        .ascii_case_insensitive(true)
        .match_kind(MatchKind::Standard)
        .kind(kind)
        .build(lits)
}

fn short_gate(set: Option<Vec<String>>) -> Result<Option<AhoCorasick>, MatcherError> {
    Ok(match set {
        Some(lits) => Some(folded_automaton(&lits, None)?),
        None => None,
    })
}

/// A regex may run only when one literal of each known set appeared. Sets of literals too
/// short for the scanner are searched for only when the scanner's gates already passed.
struct Gate {
    prefixes: Option<Vec<LitId>>,
    suffixes: Option<Vec<LitId>>,
    short_prefixes: Option<AhoCorasick>,
    short_suffixes: Option<AhoCorasick>,
}

impl Matcher {
    /// The single pass over the body.
    pub fn scan<'m, 'b>(&'m self, body: &'b str) -> Hits<'m, 'b> {
        let mut found = Found::new(self.literals.len());
        if !body.is_empty() {
            self.filter
                .scan(body.as_bytes(), &self.literals, &mut found);
            if !self.short_ids.is_empty() {
                for m in self.short_ac.find_overlapping_iter(body) {
                    found.record(self.short_ids[m.pattern().as_usize()], m.start(), m.end());
                }
            }
        }
        self.hits(body, found)
    }

    /// The same answer from one Aho-Corasick automaton over every literal: slower, simpler,
    /// kept as the oracle the window filter is tested against.
    pub fn scan_reference<'m, 'b>(&'m self, body: &'b str) -> Hits<'m, 'b> {
        let mut found = Found::new(self.literals.len());
        for m in self.reference.find_overlapping_iter(body) {
            found.record(m.pattern().as_usize(), m.start(), m.end());
        }
        self.hits(body, found)
    }

    fn hits<'m, 'b>(&'m self, body: &'b str, found: Found) -> Hits<'m, 'b> {
        Hits {
            matcher: self,
            body,
            found,
            regex_memo: vec![Cell::new(RegexState::Unknown); self.regexes.len()],
        }
    }

    pub fn literal_text(&self, id: LitId) -> &str {
        &self.literals[id]
    }

    pub fn regex_pattern(&self, id: RegId) -> &str {
        &self.patterns[id]
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
    found: Found,
    regex_memo: Vec<Cell<RegexState>>,
}

impl Hits<'_, '_> {
    /// The ids of every literal found, for comparing scanners.
    pub fn literal_ids(&self) -> Vec<LitId> {
        (0..self.matcher.literals.len())
            .filter(|&id| self.literal(id))
            .collect()
    }

    pub fn literal(&self, id: LitId) -> bool {
        self.found.has(id)
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
        let gate = &m.gates[id];
        if gate.prefixes.is_none() && gate.suffixes.is_none() {
            self.run_ungated();
            return self.regex_memo[id].get() == RegexState::Yes;
        }
        // A match starts at a prefix literal and ends at a suffix literal: it lies between the
        // first prefix start and the last suffix end, or nowhere.
        let start = match &gate.prefixes {
            Some(ids) => ids
                .iter()
                .map(|&g| self.found.first(g))
                .min()
                .unwrap_or(u32::MAX),
            None => 0,
        };
        let end = match &gate.suffixes {
            Some(ids) => ids
                .iter()
                .filter(|&&g| self.literal(g))
                .map(|&g| self.found.last_end(g))
                .max(),
            None => Some(self.body.len() as u32),
        };
        let (start, end) = self.narrow_by_short_gates(gate, start, end);
        let hit = match end {
            Some(end) if start != u32::MAX && start < end => {
                // One character past the end keeps a trailing `\b` or `$` honest.
                let mut stop = (end as usize + 1).min(self.body.len());
                while !self.body.is_char_boundary(stop) {
                    stop += 1;
                }
                m.regexes[id].is_match_at(&self.body[..stop], start as usize)
            }
            _ => false,
        };
        self.regex_memo[id].set(if hit { RegexState::Yes } else { RegexState::No });
        hit
    }

    /// Moves the start to the first short prefix at or after it and the end to the last short
    /// suffix, or rules the regex out when one of them is absent.
    fn narrow_by_short_gates(
        &self,
        gate: &Gate,
        start: u32,
        end: Option<u32>,
    ) -> (u32, Option<u32>) {
        let (Some(mut end), true) = (end, start != u32::MAX) else {
            return (start, None);
        };
        let mut start = start;
        if let Some(ac) = &gate.short_prefixes {
            let from = start as usize;
            // Literal boundaries are character boundaries; if not, do not narrow.
            let Some(hay) = self.body.get(from..end as usize) else {
                return (start, Some(end));
            };
            match ac.find(hay) {
                Some(m) => start = (from + m.start()) as u32,
                None => return (start, None),
            }
        }
        if let Some(ac) = &gate.short_suffixes {
            let from = start as usize;
            let Some(hay) = self.body.get(from..end as usize) else {
                return (start, Some(end));
            };
            match ac.find_overlapping_iter(hay).map(|m| m.end()).max() {
                Some(e) => end = (from + e) as u32,
                None => return (start, None),
            }
        }
        (start, Some(end))
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
        let (m, l, _) = build(
            &[
                "rate limit",
                "tpd rate limit",
                "organization tpd rate limit",
            ],
            &[],
        );
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
        let (m, _, r) = build(&[], &["model.{0,40}retired", r"\w+ \d+"]);
        assert!(m.scan("The MODEL gpt-3 was retired").regex(r[0]));
        assert!(!m.scan("nothing here retired").regex(r[0]));
        assert!(m.scan("engine 42").regex(r[1]));
        assert_eq!(m.ungated_count(), 1);
    }

    #[test]
    fn short_and_long_literals_at_every_offset_and_boundary() {
        let (m, l, _) = build(&["oom", "rate limit", "quota", "x"], &[]);
        for pad in 0..9 {
            let body = format!("{}RATE LIMIT", "-".repeat(pad));
            assert!(m.scan(&body).literal(l[1]), "offset {pad}");
            let body = format!("{}Quota", "-".repeat(pad));
            assert!(m.scan(&body).literal(l[2]), "offset {pad} at the end");
        }
        let h = m.scan("ooM!");
        assert!(h.literal(l[0]) && !h.literal(l[3]));
    }

    use proptest::prelude::*;

    const LITS: &[&str] = &[
        "rate limit",
        "tpd rate limit",
        "额度不足",
        "quota",
        "oom",
        "insufficient_quota",
        "model",
        "a\"b",
        "retry",
    ];

    fn body_strategy() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            proptest::sample::select(LITS).prop_map(|s| s.to_string()),
            proptest::sample::select(LITS).prop_map(|s| s.to_uppercase()),
            "[a-zA-Z \\-\"_]{0,6}",
            any::<char>().prop_map(|c| c.to_string()),
        ];
        proptest::collection::vec(piece, 0..12).prop_map(|v| v.concat())
    }

    proptest! {
        /// The window filter finds exactly what one Aho-Corasick automaton finds.
        #[test]
        fn window_scan_equals_aho_corasick(body in body_strategy()) {
            let (m, _, _) = build(LITS, &[]);
            prop_assert_eq!(m.scan(&body).literal_ids(), m.scan_reference(&body).literal_ids());
        }
    }
}
