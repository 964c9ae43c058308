//! The captured-error corpus: each line is an input record, the reference section it checks
//! (`ref`) and the expected output fields (`expect`). All failures are reported together.

use omniroute::classify::record::parse_record;
use omniroute::classify::{Tuning, classify_with};
use omniroute::rules::catalog;
use omniroute::rules::compile::Ruleset;
use omniroute::rules::model::SignalId;
use serde_json::Value;
use std::collections::BTreeSet;

const CORPUS: &str = include_str!("corpus/errors.jsonl");

/// Rules the corpus cannot reach through `classify`, with the reason.
const UNREACHABLE: &[(&str, &str)] = &[(
    "opencode-monthly-quota-resets-in",
    "its marker contains 'usage limit reached', so the subscription check (a.3 6.8) decides first",
)];

fn ruleset() -> Ruleset {
    catalog::ruleset(&[]).expect("built-in catalog compiles").0
}

struct Outcome {
    failures: Vec<String>,
    fired: BTreeSet<String>,
    cases: usize,
}

fn run_corpus(rules: &Ruleset) -> Outcome {
    let tuning = Tuning::defaults(rules);
    let mut failures = Vec::new();
    let mut fired = BTreeSet::new();
    let mut cases = 0;
    for (i, line) in CORPUS.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        cases += 1;
        let case: Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("corpus line {}: {e}", i + 1));
        let id = case["id"].as_str().unwrap_or("?").to_string();
        assert!(
            case["ref"].as_str().is_some_and(|r| !r.is_empty()),
            "{id}: every case cites a reference section"
        );
        let rec = parse_record(line).unwrap_or_else(|e| panic!("{id}: {}", e.message));
        let out = classify_with(rules, &tuning, &rec.as_input(0));
        let got = serde_json::to_value(&out).expect("serializes");
        for r in out.rules.iter().chain(out.text_rule.iter()) {
            fired.insert(r.clone());
        }
        let expect = case["expect"]
            .as_object()
            .unwrap_or_else(|| panic!("{id}: no expect object"));
        assert!(!expect.is_empty(), "{id}: expects nothing");
        for (field, want) in expect {
            if field == "rules_include" {
                for r in want.as_array().expect("rules_include is a list") {
                    let r = r.as_str().expect("rule ids are strings");
                    if !out.rules.iter().any(|x| x == r) {
                        failures.push(format!(
                            "{id}: rule `{r}` did not fire; fired {:?}\n  explain: {:?}",
                            out.rules, out.explain
                        ));
                    }
                }
                continue;
            }
            let have = got
                .get(field)
                .unwrap_or_else(|| panic!("{id}: unknown expected field `{field}`"));
            if have != want {
                failures.push(format!(
                    "{id}: {field} = {have}, expected {want}\n  explain: {:?}",
                    out.explain
                ));
            }
        }
    }
    Outcome {
        failures,
        fired,
        cases,
    }
}

#[test]
fn corpus_cases_hold() {
    let rules = ruleset();
    let outcome = run_corpus(&rules);
    assert!(
        outcome.cases >= 150,
        "the corpus has {} cases; it needs at least 150",
        outcome.cases
    );
    assert!(
        outcome.failures.is_empty(),
        "{} of {} corpus cases failed:\n{}",
        outcome.failures.len(),
        outcome.cases,
        outcome.failures.join("\n")
    );
}

#[test]
fn corpus_covers_every_rule_and_signal_list() {
    let rules = ruleset();
    let outcome = run_corpus(&rules);
    let c = &rules.catalog;
    let mut wanted: Vec<String> = SignalId::ALL
        .iter()
        .map(|s| s.as_str().to_string())
        .collect();
    wanted.extend(c.error_rules.iter().map(|r| r.id.clone()));
    wanted.extend(c.provider_rules.iter().map(|r| r.id.clone()));
    wanted.extend(c.restatements.iter().map(|r| r.id.clone()));
    let missing: Vec<&String> = wanted
        .iter()
        .filter(|id| !outcome.fired.contains(*id) && !UNREACHABLE.iter().any(|(u, _)| u == id))
        .collect();
    assert!(missing.is_empty(), "no corpus case fires: {missing:?}");
    for (id, why) in UNREACHABLE {
        assert!(
            !outcome.fired.contains(*id),
            "`{id}` is listed as unreachable ({why}) but a case fires it"
        );
    }
}

#[test]
fn corpus_covers_status_families_and_hint_sources() {
    let mut families = BTreeSet::new();
    let mut sources = BTreeSet::new();
    for line in CORPUS.lines().filter(|l| !l.trim().is_empty()) {
        let case: Value = serde_json::from_str(line).expect("valid JSON");
        families.insert(case["status"].as_u64().expect("status") / 100);
        if let Some(s) = case["expect"]["retry_hint_source"].as_str() {
            sources.insert(s.to_string());
        }
    }
    assert_eq!(families, BTreeSet::from([1, 2, 3, 4, 5]));
    assert_eq!(
        sources,
        BTreeSet::from([
            "body".to_string(),
            "google_rpc_retry_info".into(),
            "header".into()
        ])
    );
}
