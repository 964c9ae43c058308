//! The `omniroute` binary as users run it: exit codes, record contracts, diagnostics.

use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_omniroute"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("run omniroute")
}

fn run_with_stdin(args: &[&str], stdin: &str) -> Output {
    let mut child = bin()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn omniroute");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes())
        .expect("write stdin");
    child.wait_with_output().expect("wait")
}

fn lines(out: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("every output line is JSON"))
        .collect()
}

#[test]
fn batch_of_examples_classifies_every_line() {
    let out = run(&["classify", "--batch", "examples/errors.jsonl"]);
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let input = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/errors.jsonl"),
    )
    .expect("examples");
    let got = lines(&out);
    assert_eq!(got.len(), input.lines().count());
    for (line, rec) in input.lines().zip(&got) {
        let want: Value = serde_json::from_str(line).expect("json");
        assert_eq!(rec["id"], want["id"], "same order, ids echoed");
        for field in [
            "status",
            "restated_status",
            "reason",
            "scope",
            "terminal",
            "retryable",
            "cooldown_ms",
            "retry_after_ms",
            "breaker_failure",
            "rules",
            "explain",
        ] {
            assert!(rec.get(field).is_some(), "output record has `{field}`");
        }
    }
}

#[test]
fn bad_lines_get_error_records_and_the_batch_goes_on() {
    let input = [
        r#"{"id":"ok-1","provider":"openai","status":500,"body":"boom"}"#,
        r#"{"id":"no-status","provider":"openai","body":"x"}"#,
        "not json at all",
        "",
        r#"{"id":"bad-status","status":700}"#,
        r#"{"id":"bad-header","status":429,"headers":{"retry-after":{"nested":1}}}"#,
        r#"{"id":"ok-2","provider":"claude","status":401,"body":"OAuth token has expired"}"#,
    ]
    .join("\n");
    let out = run_with_stdin(&["classify", "--batch", "-"], &input);
    assert_eq!(
        out.status.code(),
        Some(1),
        "invalid lines make the exit code 1"
    );
    let got = lines(&out);
    assert_eq!(got.len(), 7, "one output line per input line");
    assert_eq!(got[0]["reason"], "server_error");
    assert_eq!(got[1]["line"], 2);
    assert_eq!(got[1]["id"], "no-status");
    assert!(
        got[1]["error"]
            .as_str()
            .expect("message")
            .contains("status")
    );
    assert_eq!(got[2]["line"], 3);
    assert_eq!(got[3]["line"], 4);
    assert!(got[4]["error"].as_str().expect("message").contains("700"));
    assert!(
        got[5]["error"]
            .as_str()
            .expect("message")
            .contains("retry-after")
    );
    assert_eq!(got[6]["terminal"], "expired");
}

#[test]
fn single_record_text_output_explains() {
    let out = run(&[
        "classify",
        "--provider",
        "agentrouter",
        "--status",
        "403",
        "--body",
        "{\"error\":\"用户额度不足\"}",
        "--format",
        "text",
    ]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("restated to 429"), "{text}");
    assert!(text.contains("agentrouter-quota-misstatus"), "{text}");
    assert!(text.contains("Retry-After 60 s"), "{text}");
}

#[test]
fn single_record_json_with_headers_and_pinned_clock() {
    let out = run(&[
        "classify",
        "--provider",
        "openai",
        "--status",
        "429",
        "--header",
        "Retry-After: Mon, 30 Nov 2026 00:02:00 GMT",
        "--now-ms",
        "1795996800000",
    ]);
    assert!(out.status.success());
    let rec = &lines(&out)[0];
    assert_eq!(rec["cooldown_ms"], 120_000);
    assert_eq!(rec["retry_hint_source"], "header");
}

#[test]
fn usage_errors_exit_2() {
    let out = run(&["classify", "--status", "700"]);
    assert_eq!(out.status.code(), Some(2));
    let out = run(&["classify", "--provider", "openai"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--status"));
    let out = run(&["classify", "--batch", "/nonexistent/errors.jsonl"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/errors.jsonl"));
}

#[test]
fn unbuilt_subcommands_say_so() {
    for sub in ["serve", "simulate", "lint-rules"] {
        let out = run(&[sub]);
        assert_eq!(out.status.code(), Some(2), "{sub}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("not built yet"),
            "{sub}"
        );
    }
}

#[test]
fn operator_rules_come_first_and_lift_both_allowlists() {
    let out = run(&[
        "classify",
        "--rules",
        "examples/operator-rules.yaml",
        "--provider",
        "openai",
        "--status",
        "403",
        "--body",
        "Workspace seat limit reached",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rec = &lines(&out)[0];
    assert_eq!(rec["rules"], serde_json::json!(["acme-openai-seat-limit"]));
    assert_eq!(
        rec["scope"], "connection",
        "scope honoured for a provider outside the allowlist"
    );
    assert_eq!(rec["cooldown_ms"], 600_000);

    // Without the operator file the same error is an ordinary API-key 403.
    let out = run(&[
        "classify",
        "--provider",
        "openai",
        "--status",
        "403",
        "--body",
        "Workspace seat limit reached",
    ]);
    assert_eq!(lines(&out)[0]["reason"], "auth_error");
}

fn classify_with_rules(path: &Path) -> Output {
    run(&[
        "classify",
        "--rules",
        path.to_str().expect("utf8"),
        "--status",
        "500",
    ])
}

#[test]
fn a_broken_operator_file_is_located() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("ops.yaml");
    std::fs::write(&path, "kind: provider_rules\nrules:\n  - id: x\n    providers: [opnai]\n    status: [403]\n    scope: connection\n    colour: red\n").expect("write");
    let out = classify_with_rules(&path);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("error[OR003]"), "{err}");
    assert!(err.contains("ops.yaml:7:5"), "{err}");

    std::fs::write(&path, "kind: provider_rules\nrules:\n  - id: x\n    providers: [opnai]\n    status: [403]\n    scope: connection\n").expect("write");
    let out = classify_with_rules(&path);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("error[OR009]: unknown provider id `opnai`"),
        "{err}"
    );
    assert!(err.contains("ops.yaml:4:17"), "{err}");
    assert!(err.contains("did you mean `openai`?"), "{err}");
}

#[test]
fn a_closed_stdout_is_a_quiet_exit() {
    let mut child = bin()
        .args(["classify", "--batch", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || {
        let line = "{\"provider\":\"openai\",\"status\":429,\"body\":\"Rate limit reached\"}\n"
            .repeat(1000);
        for _ in 0..200 {
            if stdin.write_all(line.as_bytes()).is_err() {
                break;
            }
        }
    });
    let mut first = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut first)
        .expect("one line");
    // Dropping the reader closes the pipe while omniroute is still writing.
    let out = child.wait_with_output().expect("wait");
    let _ = writer.join();
    assert!(first.contains("rate_limit_exceeded"));
    assert_eq!(
        out.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
}

#[test]
fn committed_schemas_match_the_types() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas");
    let generated = omniroute::rules::schema::all();
    assert_eq!(generated.len(), 7);
    for (name, text) in &generated {
        let committed = std::fs::read_to_string(dir.join(name))
            .unwrap_or_else(|e| panic!("schemas/{name}: {e}; run `omniroute schema`"));
        assert!(
            committed == *text,
            "schemas/{name} drifted from the Rust types; run `cargo run -- schema`"
        );
    }
    let out = run(&["schema", "--check"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = run(&["schema", "--print", "restatements"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        std::fs::read_to_string(dir.join("restatements.schema.json")).expect("file")
    );
}

#[test]
fn schema_check_fails_on_drift() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = run(&["schema", "--dir", dir.path().to_str().expect("utf8")]);
    assert!(out.status.success());
    std::fs::write(dir.path().join("signals.schema.json"), "{}\n").expect("write");
    let out = run(&[
        "schema",
        "--check",
        "--dir",
        dir.path().to_str().expect("utf8"),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("signals.schema.json"));
}
