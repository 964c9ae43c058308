//! Profiling driver: classifies a file of JSON Lines N times (for callgrind or perf).
//! `cargo run --release --example profile_classify -- FILE [ROUNDS]`
use omniroute::classify::record::parse_record;
use omniroute::classify::{Tuning, classify_with};

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .unwrap_or_else(|| "examples/errors.jsonl".into());
    let rounds: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(10);
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let records: Vec<_> = text.lines().filter_map(|l| parse_record(l).ok()).collect();
    let (rules, _) = omniroute::rules::catalog::ruleset(&[]).expect("catalog");
    let tuning = Tuning::defaults(&rules);
    let mut n = 0;
    let lines_mode = std::env::var_os("PROFILE_LINES").is_some();
    let mut out = Vec::with_capacity(1 << 20);
    for _ in 0..rounds {
        if lines_mode {
            out.clear();
            for (i, line) in text.lines().enumerate() {
                n += usize::from(omniroute::classify::record::classify_line(
                    &rules,
                    &tuning,
                    line,
                    i + 1,
                    0,
                    &mut out,
                ));
            }
            continue;
        }
        for r in &records {
            n += classify_with(&rules, &tuning, &r.as_input(0)).cooldown_ms as usize & 1;
        }
    }
    println!("{} records x {rounds} rounds ({n})", records.len());
}
