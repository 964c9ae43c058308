//! Batch classification throughput on one core, over a deterministic realistic mix:
//! bodies of 0.1-8 KB, a third JSON with nested error objects, some Chinese, HTML pages,
//! plain-text proxy errors. Reports records/s and body MB/s.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use omniroute::classify::record::{self, Record, parse_record};
use omniroute::classify::{Tuning, classify_with};
use omniroute::rules::catalog;
use omniroute::rules::compile::Ruleset;
use omniroute::rules::matcher::Matcher;
use serde_json::json;
use std::hint::black_box;

// The same allocator as the binary, so the numbers are the binary's.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const NOW: i64 = 1_795_996_800_000;

/// A small deterministic generator (no RNG dependency, same mix every run).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
    fn word(&mut self, items: &[&'static str]) -> &'static str {
        items[self.below(items.len() as u64) as usize]
    }
}

/// General English, as in echoed prompts, HTML pages and stack traces.
const GENERAL: &[&str] = &[
    "the",
    "of",
    "and",
    "to",
    "in",
    "is",
    "you",
    "that",
    "it",
    "he",
    "was",
    "for",
    "on",
    "are",
    "as",
    "with",
    "his",
    "they",
    "at",
    "be",
    "this",
    "have",
    "from",
    "or",
    "one",
    "had",
    "by",
    "word",
    "but",
    "not",
    "what",
    "all",
    "were",
    "we",
    "when",
    "your",
    "can",
    "said",
    "there",
    "use",
    "an",
    "each",
    "which",
    "she",
    "do",
    "how",
    "their",
    "if",
    "will",
    "up",
    "other",
    "about",
    "out",
    "many",
    "then",
    "them",
    "these",
    "so",
    "some",
    "her",
    "would",
    "make",
    "like",
    "him",
    "into",
    "time",
    "has",
    "look",
    "two",
    "more",
    "write",
    "go",
    "see",
    "number",
    "no",
    "way",
    "could",
    "people",
    "my",
    "than",
    "first",
    "water",
    "been",
    "call",
    "who",
    "oil",
    "its",
    "now",
    "find",
    "long",
    "down",
    "day",
    "did",
    "get",
    "come",
    "made",
    "may",
    "part",
    "at0x7f3a",
    "src/main.py:142",
    "div",
    "class=\"row\"",
    "{",
    "}",
];

/// The catalog's own vocabulary: the worst case for the scanner's verification step.
const DENSE: &[&str] = &[
    "the",
    "request",
    "was",
    "processed",
    "by",
    "upstream",
    "server",
    "and",
    "returned",
    "an",
    "unexpected",
    "response",
    "while",
    "handling",
    "completion",
    "for",
    "user",
    "session",
    "with",
    "stream",
    "enabled",
    "messages",
    "content",
    "assistant",
    "role",
    "function",
    "tool",
    "call",
    "arguments",
    "payload",
    "header",
    "gateway",
    "timeout",
    "retry",
    "policy",
    "region",
    "deployment",
    "cluster",
    "node",
    "worker",
    "queue",
    "model",
    "token",
    "limit",
    "context",
    "organization",
    "project",
    "account",
    "billing",
    "usage",
];
const ZH: &[&str] = &[
    "请求",
    "服务器",
    "模型",
    "用户",
    "当前",
    "稍后",
    "重试",
    "账户",
    "调用",
    "接口",
    "返回",
    "错误",
];

static DENSE_FILLER: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

fn filler(g: &mut Lcg, bytes: usize, chinese: bool) -> String {
    let dense = DENSE_FILLER.load(std::sync::atomic::Ordering::Relaxed);
    let mut s = String::with_capacity(bytes + 16);
    while s.len() < bytes {
        if chinese && g.below(3) == 0 {
            s.push_str(g.word(ZH));
        } else if dense || g.below(20) == 0 {
            // One word in twenty is domain vocabulary in the realistic mix.
            s.push_str(g.word(DENSE));
            s.push(' ');
        } else {
            s.push_str(g.word(GENERAL));
            s.push(' ');
        }
    }
    s
}

const MESSAGES: &[(&str, u16, &str)] = &[
    (
        "openai",
        429,
        "Rate limit reached for gpt-4o in organization org-abc on requests per min (RPM): Limit 500, Used 500.",
    ),
    (
        "openai",
        429,
        "You exceeded your current quota, please check your plan and billing details.",
    ),
    ("anthropic", 529, "Overloaded"),
    (
        "anthropic",
        400,
        "prompt is too long: 250000 tokens > 200000 maximum",
    ),
    (
        "claude",
        429,
        "Claude Pro usage limit reached. Your limit will reset at 5pm.",
    ),
    (
        "gemini",
        429,
        "Quota exceeded for metric: generate_content_free_tier_requests. Please retry in 39.5s.",
    ),
    ("agentrouter", 403, "用户额度不足，请充值后再试"),
    ("agentrouter", 403, "无权访问模型 claude-opus"),
    ("glm", 429, "您的账户已达到速率限制，请您控制请求频率"),
    (
        "openai",
        500,
        "The server had an error while processing your request. Sorry about that!",
    ),
    (
        "openai",
        503,
        "upstream connect error or disconnect/reset before headers. reset reason: connection failure",
    ),
    ("mistral", 401, "Unauthorized"),
    ("opencode-go", 429, "endpoint is unavailable"),
    ("deepseek", 402, "Insufficient Balance"),
    (
        "groq",
        400,
        "The model llama-99 does not exist or you do not have access to it.",
    ),
];

fn body(g: &mut Lcg, size: usize) -> (String, u16, String) {
    let (provider, status, msg) = *g.pick(MESSAGES);
    let chinese = g.below(5) == 0;
    let kind = g.below(3);
    let text = if kind == 0 {
        // JSON with nested error objects, the message inside, padding in nested details.
        let pad = filler(g, size.saturating_sub(msg.len() + 160), chinese);
        json!({
            "error": {
                "message": msg,
                "type": "upstream_error",
                "code": status,
                "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "UPSTREAM", "metadata": {"trace": pad}}],
                "param": null
            },
            "request_id": format!("req_{:016x}", g.next())
        })
        .to_string()
    } else if kind == 1 {
        let pad = filler(g, size.saturating_sub(msg.len() + 80), chinese);
        format!(
            "<html><head><title>{status} Error</title></head><body><h1>{msg}</h1><p>{pad}</p></body></html>"
        )
    } else {
        let pad = filler(g, size.saturating_sub(msg.len()), chinese);
        format!("{pad} {msg}")
    };
    (text, status, provider.to_string())
}

fn records(n: usize, min: usize, max: usize, seed: u64) -> Vec<Record> {
    let mut g = Lcg(seed);
    (0..n)
        .map(|i| {
            let size = min + g.below((max - min + 1) as u64) as usize;
            let (text, status, provider) = body(&mut g, size);
            let headers = if g.below(4) == 0 {
                vec![("retry-after".to_string(), "30".to_string())]
            } else {
                Vec::new()
            };
            Record {
                id: Some(json!(i)),
                provider: Some(provider),
                status,
                headers,
                body: text,
                model: Some("gpt-4o".into()),
                backoff_level: 0,
                now_ms: Some(NOW),
            }
        })
        .collect()
}

fn to_lines(records: &[Record]) -> Vec<String> {
    records
        .iter()
        .map(|r| {
            let headers: serde_json::Map<String, serde_json::Value> =
                r.headers.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
            json!({"id": r.id, "provider": r.provider, "status": r.status, "headers": headers, "body": r.body, "model": r.model, "now_ms": NOW})
                .to_string()
        })
        .collect()
}

fn classify_all(rules: &Ruleset, tuning: &Tuning, records: &[Record]) {
    for r in records {
        black_box(classify_with(rules, tuning, &r.as_input(NOW)));
    }
}

fn bodies(records: &[Record]) -> impl Iterator<Item = &str> {
    records.iter().map(|r| r.body.as_str())
}

fn scan_all<'a>(matcher: &Matcher, bodies: impl Iterator<Item = &'a str>) {
    for body in bodies {
        black_box(matcher.scan(body).literal(0));
    }
}

fn bench(c: &mut Criterion) {
    let (rules, _) = catalog::ruleset(&[]).expect("catalog");
    let tuning = Tuning::defaults(&rules);

    // The 1 KB mix: bodies of 0.1-2 KB (mean about 1 KB).
    let mix = records(2000, 100, 1948, 7);
    let lines = to_lines(&mix);
    let mix_bytes: usize = mix.iter().map(|r| r.body.len()).sum();
    eprintln!(
        "mix: {} records, mean body {} bytes",
        mix.len(),
        mix_bytes / mix.len()
    );

    let mut g = c.benchmark_group("mix_1k");
    g.throughput(Throughput::Elements(mix.len() as u64));
    g.bench_function(BenchmarkId::new("records", "jsonl_line_to_line"), |b| {
        let mut out = Vec::with_capacity(1 << 20);
        b.iter(|| {
            out.clear();
            for (i, line) in lines.iter().enumerate() {
                record::classify_line(&rules, &tuning, line, i + 1, NOW, &mut out);
            }
            black_box(out.len())
        })
    });
    g.bench_function(BenchmarkId::new("records", "classify_only"), |b| {
        b.iter(|| classify_all(&rules, &tuning, &mix))
    });
    g.finish();
    // The same work in body bytes per second.
    let mut g = c.benchmark_group("mix_1k_bytes");
    g.throughput(Throughput::Bytes(mix_bytes as u64));
    g.bench_function(BenchmarkId::new("bytes", "classify_only"), |b| {
        b.iter(|| classify_all(&rules, &tuning, &mix))
    });
    g.finish();

    // 8 KB bodies: how fast the body text is scanned.
    let big = records(400, 8192, 8192, 11);
    let big_bytes: usize = big.iter().map(|r| r.body.len()).sum();
    let mut g = c.benchmark_group("body_8k");
    g.throughput(Throughput::Bytes(big_bytes as u64));
    g.bench_function(BenchmarkId::new("bytes", "classify_only"), |b| {
        b.iter(|| classify_all(&rules, &tuning, &big))
    });
    g.bench_function(BenchmarkId::new("bytes", "scan_only"), |b| {
        b.iter(|| scan_all(&rules.matcher, bodies(&big)))
    });
    let neutral: Vec<String> = (0..400)
        .map(|i| {
            format!("{i} ")
                + &"lorem ipsum dolor sit amet, consectetur adipiscing elit sed do eiusmod tempor "
                    .repeat(102)
        })
        .collect();
    g.bench_function(BenchmarkId::new("bytes", "scan_neutral_text"), |b| {
        b.iter(|| scan_all(&rules.matcher, neutral.iter().map(String::as_str)))
    });
    g.bench_function(
        BenchmarkId::new("bytes", "scan_reference_aho_corasick"),
        |b| {
            b.iter(|| {
                for body in bodies(&big) {
                    black_box(rules.matcher.scan_reference(body).literal(0));
                }
            })
        },
    );
    DENSE_FILLER.store(true, std::sync::atomic::Ordering::Relaxed);
    let dense = records(400, 8192, 8192, 11);
    DENSE_FILLER.store(false, std::sync::atomic::Ordering::Relaxed);
    g.bench_function(
        BenchmarkId::new("bytes", "classify_only_dense_vocabulary"),
        |b| b.iter(|| classify_all(&rules, &tuning, &dense)),
    );
    g.bench_function(
        BenchmarkId::new("bytes", "scan_only_dense_vocabulary"),
        |b| b.iter(|| scan_all(&rules.matcher, bodies(&dense))),
    );
    let big_lines = to_lines(&big);
    // OMNIROUTE_BENCH_DUMP=DIR writes the generated inputs, for profiling with the example.
    if let Ok(dir) = std::env::var("OMNIROUTE_BENCH_DUMP") {
        let _ = std::fs::write(format!("{dir}/mix_1k.jsonl"), lines.join("\n"));
        let _ = std::fs::write(format!("{dir}/body_8k.jsonl"), big_lines.join("\n"));
    }
    g.bench_function(BenchmarkId::new("bytes", "jsonl_line_to_line"), |b| {
        let mut out = Vec::with_capacity(1 << 20);
        b.iter(|| {
            out.clear();
            for (i, line) in big_lines.iter().enumerate() {
                record::classify_line(&rules, &tuning, line, i + 1, NOW, &mut out);
            }
            black_box(out.len())
        })
    });
    g.finish();
    // The same 8 KB work in records per second.
    let mut g = c.benchmark_group("body_8k_records");
    g.throughput(Throughput::Elements(big.len() as u64));
    g.bench_function(BenchmarkId::new("records", "classify_only"), |b| {
        b.iter(|| classify_all(&rules, &tuning, &big))
    });
    g.finish();

    // Sanity: every generated line parses.
    assert!(lines.iter().all(|l| parse_record(l).is_ok()));
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(4));
    targets = bench
}
criterion_main!(benches);
