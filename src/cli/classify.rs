//! `omniroute classify`: one error from flags, or a JSON Lines batch.

use anyhow::Context;
use omniroute::classify::record::{self, Record};
use omniroute::classify::{Classification, Tuning, classify_with};
use omniroute::resilience::clock;
use omniroute::rules::catalog;
use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Json,
    Text,
}

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Exit codes: 0 all records classified; 1 some input records were invalid \
(each got an error record); 2 usage error or unreadable file.\n\nExamples:\n  omniroute classify --provider agentrouter --status 403 --body '{\"error\":\"用户额度不足\"}' --format text\n  omniroute classify --provider openai --status 429 --header 'Retry-After: 20' --body 'Rate limit reached'\n  omniroute classify --batch examples/errors.jsonl > verdicts.jsonl\n  cat errors.jsonl | omniroute classify --batch -"
)]
pub struct Args {
    /// JSON Lines input (`-` for stdin): one record per line, one output line per input line.
    #[arg(long, value_name = "FILE|-", conflicts_with_all = ["provider", "status", "headers", "body", "body_file", "model", "backoff_level"])]
    pub batch: Option<String>,
    /// Provider id (case-insensitive), e.g. openai, anthropic, agentrouter, openai-compatible-foo.
    #[arg(long)]
    pub provider: Option<String>,
    /// The upstream HTTP status.
    #[arg(long, value_parser = clap::value_parser!(u16).range(100..=599))]
    pub status: Option<u16>,
    /// A response header, `Name: value`; repeat for more.
    #[arg(long = "header", value_name = "NAME: VALUE")]
    pub headers: Vec<String>,
    /// The response body text.
    #[arg(long, conflicts_with = "body_file")]
    pub body: Option<String>,
    /// Read the response body from a file.
    #[arg(long, value_name = "PATH")]
    pub body_file: Option<PathBuf>,
    /// The requested model.
    #[arg(long)]
    pub model: Option<String>,
    /// The connection's current backoff level.
    #[arg(long, default_value_t = 0)]
    pub backoff_level: u32,
    /// Pin the clock (epoch ms) for HTTP-date and reset-time parsing; default: now.
    #[arg(long, value_name = "MS")]
    pub now_ms: Option<i64>,
    /// Operator rule file(s), consulted before the built-in catalog; repeatable.
    #[arg(long = "rules", value_name = "FILE")]
    pub rules: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "json")]
    pub format: Format,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let (rules, warnings) = match catalog::ruleset(&args.rules) {
        Ok(r) => r,
        Err(catalog::LoadError::Invalid { rendered, errors }) => {
            eprint!("{rendered}");
            eprintln!("omniroute classify: {errors} error(s) in rule files; nothing classified");
            return Ok(ExitCode::from(2));
        }
        Err(e) => return Err(e.into()),
    };
    if !warnings.is_empty() {
        eprint!("{warnings}");
    }
    let tuning = Tuning::defaults(&rules);
    let now = args.now_ms.unwrap_or_else(clock::now_ms);
    match &args.batch {
        Some(source) => batch(&rules, &tuning, source, now, args.format),
        None => single(&rules, &tuning, &args, now),
    }
}

fn single(
    rules: &omniroute::rules::compile::Ruleset,
    tuning: &Tuning,
    args: &Args,
    now: i64,
) -> anyhow::Result<ExitCode> {
    let Some(status) = args.status else {
        eprintln!(
            "omniroute classify: give --status N (and usually --provider, --body), or --batch FILE"
        );
        return Ok(ExitCode::from(2));
    };
    let mut headers = Vec::new();
    for h in &args.headers {
        let Some((name, value)) = h.split_once(':') else {
            eprintln!("omniroute classify: --header `{h}` must look like `Name: value`");
            return Ok(ExitCode::from(2));
        };
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
    }
    let body = match (&args.body, &args.body_file) {
        (Some(b), _) => b.clone(),
        (None, Some(path)) => std::fs::read_to_string(path)
            .with_context(|| format!("reading --body-file {}", path.display()))?,
        (None, None) => String::new(),
    };
    let rec = Record {
        id: None,
        provider: args.provider.clone(),
        status,
        headers,
        body,
        model: args.model.clone(),
        backoff_level: args.backoff_level,
        now_ms: Some(now),
    };
    let c = classify_with(rules, tuning, &rec.as_input(now));
    let mut out = Vec::new();
    match args.format {
        Format::Json => record::write_output(&mut out, &rec.id, &c),
        Format::Text => out.extend_from_slice(text(&rec, &c).as_bytes()),
    }
    std::io::stdout().lock().write_all(&out)?;
    Ok(ExitCode::SUCCESS)
}

fn batch(
    rules: &omniroute::rules::compile::Ruleset,
    tuning: &Tuning,
    source: &str,
    now: i64,
    format: Format,
) -> anyhow::Result<ExitCode> {
    let reader: Box<dyn BufRead> = if source == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        let file =
            std::fs::File::open(source).with_context(|| format!("opening --batch {source}"))?;
        Box::new(std::io::BufReader::with_capacity(1 << 16, file))
    };
    let stdout = std::io::stdout();
    let mut writer = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let progress = std::io::stderr().is_terminal();
    let mut out = Vec::with_capacity(1 << 12);
    let (mut total, mut bad) = (0usize, 0usize);
    for (index, line) in reader.lines().enumerate() {
        let line_no = index + 1;
        out.clear();
        let line = match line {
            Ok(l) => l,
            Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
                let err = record::RecordError {
                    id: None,
                    message: "the line is not valid UTF-8".into(),
                };
                record::write_error(&mut out, line_no, &err);
                writer.write_all(&out)?;
                total += 1;
                bad += 1;
                continue;
            }
            Err(e) => return Err(e).with_context(|| format!("reading {source} at line {line_no}")),
        };
        total += 1;
        let ok = match format {
            Format::Json => record::classify_line(rules, tuning, &line, line_no, now, &mut out),
            Format::Text => match record::parse_record(&line) {
                Ok(rec) => {
                    let c = classify_with(rules, tuning, &rec.as_input(now));
                    out.extend_from_slice(
                        format!("line {line_no}: {}\n", text(&rec, &c)).as_bytes(),
                    );
                    true
                }
                Err(e) => {
                    out.extend_from_slice(
                        format!("line {line_no}: error: {}\n\n", e.message).as_bytes(),
                    );
                    false
                }
            },
        };
        if !ok {
            bad += 1;
        }
        writer.write_all(&out)?;
        if progress && total % 100_000 == 0 {
            eprint!("\rclassified {total} records ({bad} invalid)");
        }
    }
    writer.flush()?;
    if progress {
        eprintln!("\rclassified {total} records ({bad} invalid)");
    }
    if bad > 0 {
        eprintln!(
            "omniroute classify: {bad} of {total} input line(s) were invalid; see the records with an \"error\" field"
        );
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

fn duration(ms: u64) -> String {
    if ms == 0 {
        return "none".into();
    }
    let (d, h, m, s, rest) = (
        ms / 86_400_000,
        ms / 3_600_000 % 24,
        ms / 60_000 % 60,
        ms / 1000 % 60,
        ms % 1000,
    );
    let mut parts = Vec::new();
    for (v, unit) in [(d, "d"), (h, "h"), (m, "m"), (s, "s")] {
        if v > 0 {
            parts.push(format!("{v}{unit}"));
        }
    }
    if parts.is_empty() {
        parts.push(format!("{rest}ms"));
    }
    format!("{ms} ms ({})", parts.join(" "))
}

/// A short explanation a support engineer can paste into a ticket.
fn text(rec: &Record, c: &Classification) -> String {
    let provider = c.provider.as_deref().unwrap_or("(no provider)");
    let mut s = match c.restated_status {
        Some(r) => format!("{provider} {} (restated to {r})", c.status),
        None => format!("{provider} {}", c.status),
    };
    if let Some(m) = &rec.model {
        s.push_str(&format!(", model {m}"));
    }
    s.push('\n');
    let yes = |b: bool| if b { "yes" } else { "no" };
    let rows = [
        ("reason", c.reason.to_string()),
        (
            "scope",
            c.scope.map_or("none".into(), |x| x.as_str().to_string()),
        ),
        ("retry elsewhere", yes(c.retryable).to_string()),
        ("cooldown", duration(c.cooldown_ms)),
        (
            "client retry-after",
            c.retry_after_ms.map_or("none".into(), duration),
        ),
        ("terminal state", c.terminal.unwrap_or("none").to_string()),
        ("breaker failure", yes(c.breaker_failure).to_string()),
        (
            "rules",
            if c.rules.is_empty() {
                "none".into()
            } else {
                c.rules.join(", ")
            },
        ),
    ];
    for (k, v) in rows {
        s.push_str(&format!("  {k:<19} {v}\n"));
    }
    s.push_str("  why:\n");
    for step in &c.explain {
        s.push_str(&format!("    - {step}\n"));
    }
    s.push('\n');
    s
}
