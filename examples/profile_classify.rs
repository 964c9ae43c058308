//! Profiling driver: classifies a file of JSON Lines for some rounds (for callgrind or perf)
//! and prints the best round's throughput, which is steadier than a mean on a busy machine.
//! `cargo run --release --example profile_classify -- FILE [ROUNDS]`; `PROFILE_LINES=1`
//! times the JSON line in, JSON line out path instead of classification alone.
use omniroute::classify::record::parse_record;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
use omniroute::classify::{Tuning, classify_with};

#[allow(clippy::disallowed_methods)] // a timing harness reads the clock by design
fn now() -> std::time::Instant {
    std::time::Instant::now()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .unwrap_or_else(|| "examples/errors.jsonl".into());
    let rounds: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(10);
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let records: Vec<_> = text.lines().filter_map(|l| parse_record(l).ok()).collect();
    let bytes: usize = records.iter().map(|r| r.body.len()).sum();
    let (rules, _) = omniroute::rules::catalog::ruleset(&[]).expect("catalog");
    let tuning = Tuning::defaults(&rules);
    let mut n = 0;
    let lines_mode = std::env::var_os("PROFILE_LINES").is_some();
    let mut out = Vec::with_capacity(1 << 20);
    let mut best = f64::MAX;
    for _ in 0..rounds {
        let t = now();
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
        } else {
            for r in &records {
                n += classify_with(&rules, &tuning, &r.as_input(0)).cooldown_ms as usize & 1;
            }
        }
        best = best.min(t.elapsed().as_secs_f64());
    }
    println!(
        "{} records x {rounds} rounds ({n}): best round {:.0} records/s, {:.0} MB/s of body",
        records.len(),
        records.len() as f64 / best,
        bytes as f64 / best / 1e6
    );
}
