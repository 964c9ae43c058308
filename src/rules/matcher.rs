//! One scan per body. Every literal marker of the catalog (signal literals, rule markers,
//! restatement markers, regex gate literals, hint triggers) is found in a single pass that
//! records which of them appear anywhere in the body, ASCII case folded, with where each
//! first starts and last ends.
//!
//! Literals of seven bytes or more go through a sampled window filter: every fourth 4-byte
//! window of the body is case folded, hashed and tested against a 64 Kbit set (8 KB, so it
//! stays in L1) holding four consecutive windows of each literal, taken where its bytes are
//! least common in English (as Hyperscan picks its literal fragments); a literal of seven
//! bytes always covers one tested window. Only a hit is verified, first on eight folded
//! bytes, then exactly. This costs a load, a multiply and a bit test per four bytes; an
//! Aho-Corasick automaton over all the folded phrases measured 200 MB/s here (its table does
//! not fit in cache). The shorter literals are searched on a lower-cased copy of the body with
//! Teddy, aho-corasick's vector searcher, which is fast for a few dozen patterns; the copy
//! is kept for the regex gates. The full automaton remains as `scan_reference`, the oracle of
//! a differential test.
//!
//! Regexes then run only when asked for and only if their required literals appeared; the few
//! without usable literals share one `RegexSet` pass.

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, AhoCorasickKind, MatchKind, packed};
use memchr::memmem::Finder;
use regex::{Regex, RegexBuilder, RegexSet, RegexSetBuilder};
use std::cell::{Cell, OnceCell};
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
                prefixes: prefixes.map(LitSet::new),
                suffixes: suffixes.map(LitSet::new),
                short_prefixes: short_gate(short.prefixes),
                short_suffixes: short_gate(short.suffixes),
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
        let short = ShortSet::new(&self.literals)?;
        let filter = WindowFilter::new(&self.literals);
        Ok(Matcher {
            reference,
            short,
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
/// Windows are tested at every fourth position, so a literal must span four windows.
const STRIDE: usize = 4;
/// Literals shorter than this go through the short-literal searcher.
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
    if let Some(Ok(chunk)) = body.get(at..at + 8).map(<[u8; 8]>::try_from) {
        return u64::from_le_bytes(chunk);
    }
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

/// Where to anchor a literal: the start of the four consecutive windows (seven bytes) with the
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

/// What a scan found: which literals (one bit each), and where each first starts and last
/// ends. Positions live in a short list reached through a per-literal slot, so a scan
/// allocates and clears a few hundred bytes, not a table of every literal's positions.
struct Found {
    bits: Vec<u32>,
    /// 1 + the index into `spans` of each found literal; 0 when not found.
    slot: Vec<u32>,
    /// (first start, last end) per found literal.
    spans: Vec<(u32, u32)>,
}

impl Found {
    fn new(literals: usize) -> Self {
        Found {
            bits: vec![0; literals.div_ceil(32)],
            slot: vec![0; literals],
            spans: Vec::new(),
        }
    }

    fn record(&mut self, id: LitId, start: usize, end: usize) {
        let (start, end) = (start as u32, end as u32);
        match self.slot[id] {
            0 => {
                self.bits[id / 32] |= 1 << (id % 32);
                self.spans.push((start, end));
                self.slot[id] = u32::try_from(self.spans.len()).unwrap_or(u32::MAX);
            }
            s => {
                if let Some(span) = self.spans.get_mut(s as usize - 1) {
                    span.0 = span.0.min(start);
                    span.1 = span.1.max(end);
                }
            }
        }
    }

    fn has(&self, id: LitId) -> bool {
        self.bits[id / 32] & (1 << (id % 32)) != 0
    }

    fn span(&self, id: LitId) -> Option<(u32, u32)> {
        let s = *self.slot.get(id)? as usize;
        s.checked_sub(1).and_then(|i| self.spans.get(i)).copied()
    }

    fn first(&self, id: LitId) -> u32 {
        self.span(id).map_or(u32::MAX, |s| s.0)
    }

    fn last_end(&self, id: LitId) -> u32 {
        self.span(id).map_or(0, |s| s.1)
    }
}

/// A set of literal ids as a sparse bit mask over the scan's bits, plus the ids in list
/// order: one AND per word says whether any appeared; the list says which came first.
#[derive(Debug, Clone, Default)]
pub struct LitSet {
    ids: Vec<LitId>,
    words: Vec<(usize, u32)>,
}

impl LitSet {
    pub fn new(ids: Vec<LitId>) -> Self {
        let mut words: Vec<(usize, u32)> = Vec::new();
        for &id in &ids {
            let (w, bit) = (id / 32, 1u32 << (id % 32));
            match words.iter_mut().find(|(i, _)| *i == w) {
                Some((_, m)) => *m |= bit,
                None => words.push((w, bit)),
            }
        }
        LitSet { ids, words }
    }

    pub fn ids(&self) -> &[LitId] {
        &self.ids
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

/// The literals of `MIN_SAMPLED_LEN` bytes or more, filed under the hash of four consecutive
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
        // Windows at i and i + 4 from each 8-byte load.
        while i + 8 <= n {
            let Ok(chunk) = <[u8; 8]>::try_from(&body[i..i + 8]) else {
                break;
            };
            let x = u64::from_le_bytes(chunk);
            if self.test(x as u32) {
                self.verify(body, i, fold(x as u32), literals, out);
            }
            if self.test((x >> 32) as u32) {
                self.verify(body, i + 4, fold((x >> 32) as u32), literals, out);
            }
            i += 8;
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

/// The literals too short for the window filter, searched on the lower-cased body: with
/// Teddy (aho-corasick's vector searcher) where the CPU has it, else with an automaton. Both
/// report positions where some literal starts; each is then checked against every short
/// literal, so literals sharing a start are all recorded.
struct ShortSet {
    teddy: Option<packed::Searcher>,
    fallback: AhoCorasick,
    lits: Vec<ShortLit>,
}

/// A short literal as a little-endian word and the mask of the bytes it has (short literals
/// are under eight bytes), for a one-compare check at a position.
struct ShortLit {
    id: LitId,
    len: usize,
    head: u64,
    mask: u64,
}

impl ShortSet {
    fn new(literals: &[String]) -> Result<Self, MatcherError> {
        let short: Vec<(LitId, &[u8])> = literals
            .iter()
            .enumerate()
            .filter(|(_, l)| l.len() < MIN_SAMPLED_LEN)
            .map(|(id, l)| (id, l.as_bytes()))
            .collect();
        let mut b = packed::Config::new()
            .match_kind(packed::MatchKind::LeftmostFirst)
            .heuristic_pattern_limits(false)
            .builder();
        b.extend(short.iter().map(|(_, l)| l));
        let fallback = AhoCorasickBuilder::new()
            .match_kind(MatchKind::Standard)
            .build(short.iter().map(|(_, l)| l))?;
        let lits = short
            .iter()
            .map(|&(id, l)| ShortLit {
                id,
                len: l.len(),
                head: load8(l, 0),
                mask: (1u64 << (8 * l.len())) - 1,
            })
            .collect();
        Ok(ShortSet {
            teddy: b.build(),
            fallback,
            lits,
        })
    }

    fn scan(&self, lower: &[u8], out: &mut Found) {
        if self.lits.is_empty() {
            return;
        }
        let record_at = |at: usize, out: &mut Found| {
            let here = load8(lower, at);
            for l in &self.lits {
                if here & l.mask == l.head && at + l.len <= lower.len() {
                    out.record(l.id, at, at + l.len);
                }
            }
        };
        match &self.teddy {
            Some(t) => {
                let mut at = 0;
                while let Some(m) = t.find_in(lower, aho_corasick::Span::from(at..lower.len())) {
                    record_at(m.start(), out);
                    at = m.start() + 1;
                }
            }
            None => {
                let mut last = usize::MAX;
                for m in self.fallback.find_overlapping_iter(lower) {
                    if m.start() != last {
                        last = m.start();
                        record_at(m.start(), out);
                    }
                }
            }
        }
    }
}

pub struct Matcher {
    reference: AhoCorasick,
    short: ShortSet,
    filter: WindowFilter,
    literals: Vec<String>,
    regexes: Vec<Regex>,
    patterns: Vec<String>,
    gates: Vec<Gate>,
    ungated: Vec<RegId>,
    ungated_set: RegexSet,
}

/// The body with ASCII letters lower-cased, byte for byte (offsets are unchanged).
fn lower_case(body: &str) -> Vec<u8> {
    body.bytes().map(|b| b.to_ascii_lowercase()).collect()
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

/// Searchers for a short gate set, run on the lower-cased body (memmem's vector prefilter
/// is far faster than a folded automaton on literals this short and common).
fn short_gate(set: Option<Vec<String>>) -> Option<Vec<Finder<'static>>> {
    set.map(|lits| {
        lits.iter()
            .map(|l| Finder::new(l.as_bytes()).into_owned())
            .collect()
    })
}

/// A regex may run only when one literal of each known set appeared. Sets of literals too
/// short for the scanner are searched for only when the scanner's gates already passed.
struct Gate {
    prefixes: Option<LitSet>,
    suffixes: Option<LitSet>,
    short_prefixes: Option<Vec<Finder<'static>>>,
    short_suffixes: Option<Vec<Finder<'static>>>,
}

impl Matcher {
    /// The single pass over the body.
    pub fn scan<'m, 'b>(&'m self, body: &'b str) -> Hits<'m, 'b> {
        let mut found = Found::new(self.literals.len());
        let lower = OnceCell::new();
        if !body.is_empty() {
            self.filter
                .scan(body.as_bytes(), &self.literals, &mut found);
            if !self.short.lits.is_empty() {
                let l = lower.get_or_init(|| lower_case(body));
                self.short.scan(l, &mut found);
            }
        }
        self.hits(body, found, lower)
    }

    /// The same answer from one Aho-Corasick automaton over every literal: slower, simpler,
    /// kept as the oracle the window filter is tested against.
    pub fn scan_reference<'m, 'b>(&'m self, body: &'b str) -> Hits<'m, 'b> {
        let mut found = Found::new(self.literals.len());
        for m in self.reference.find_overlapping_iter(body) {
            found.record(m.pattern().as_usize(), m.start(), m.end());
        }
        self.hits(body, found, OnceCell::new())
    }

    fn hits<'m, 'b>(
        &'m self,
        body: &'b str,
        found: Found,
        lower: OnceCell<Vec<u8>>,
    ) -> Hits<'m, 'b> {
        Hits {
            matcher: self,
            body,
            found,
            regex_memo: vec![Cell::new(RegexState::Unknown); self.regexes.len()],
            lower,
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
    /// The body ASCII-lower-cased, made on the first short-gate search.
    lower: OnceCell<Vec<u8>>,
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

    /// The first literal of `set` (in its list order) that appeared.
    pub fn any_of(&self, set: &LitSet) -> Option<LitId> {
        if !self.any_bit(set) {
            return None;
        }
        self.any_literal(&set.ids)
    }

    fn any_bit(&self, set: &LitSet) -> bool {
        let bits = &self.found.bits;
        set.words
            .iter()
            .any(|&(w, m)| bits.get(w).is_some_and(|b| b & m != 0))
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
        // Most gates fail outright: one mask test per set.
        let absent = |set: &Option<LitSet>| set.as_ref().is_some_and(|s| !self.any_bit(s));
        if absent(&gate.prefixes) || absent(&gate.suffixes) {
            self.regex_memo[id].set(RegexState::No);
            return false;
        }
        // A match starts at a prefix literal and ends at a suffix literal: it lies between the
        // first prefix start and the last suffix end, or nowhere.
        let start = match &gate.prefixes {
            Some(set) => set
                .ids
                .iter()
                .map(|&g| self.found.first(g))
                .min()
                .unwrap_or(u32::MAX),
            None => 0,
        };
        let end = match &gate.suffixes {
            Some(set) => set
                .ids
                .iter()
                .filter(|&&g| self.literal(g))
                .map(|&g| self.found.last_end(g))
                .max(),
            None => Some(self.body.len() as u32),
        };
        let hit = match end {
            Some(end) if start < end => match self.short_gates_start(gate, start, end) {
                Some(start) => {
                    // One character past the end keeps a trailing `\b` or `$` honest.
                    let mut stop = (end as usize + 1).min(self.body.len());
                    while !self.body.is_char_boundary(stop) {
                        stop += 1;
                    }
                    m.regexes[id].is_match_at(&self.body[..stop], start as usize)
                }
                None => false,
            },
            _ => false,
        };
        self.regex_memo[id].set(if hit { RegexState::Yes } else { RegexState::No });
        hit
    }

    /// The start moved to the first short prefix at or after it, or `None` when no short prefix
    /// or no short suffix lies in `start..end`. (A reverse search for the last suffix has no
    /// vector prefilter and cost more than the regex run it would shorten.)
    fn short_gates_start(&self, gate: &Gate, start: u32, end: u32) -> Option<u32> {
        if gate.short_prefixes.is_none() && gate.short_suffixes.is_none() {
            return Some(start);
        }
        let lower = self.lower.get_or_init(|| lower_case(self.body));
        // Literal boundaries are character boundaries; if not, do not narrow.
        let Some(hay) = lower.get(start as usize..end as usize) else {
            return Some(start);
        };
        let from = match &gate.short_prefixes {
            Some(finders) => finders.iter().filter_map(|f| f.find(hay)).min()?,
            None => 0,
        };
        if let Some(finders) = &gate.short_suffixes
            && !finders.iter().any(|f| f.find(&hay[from..]).is_some())
        {
            return None;
        }
        Some(start + from as u32)
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
