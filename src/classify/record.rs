//! The classify record contract: one JSON object in, one JSON object out. A bad input line
//! yields an error record naming the line; it never stops a batch.

use super::input::ErrorInput;
use super::tuning::Tuning;
use super::{Classification, classify_with};
use crate::rules::compile::Ruleset;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::borrow::Cow;
use std::collections::BTreeMap;

#[derive(Deserialize)]
struct RawRecord<'a> {
    #[serde(default)]
    id: Option<Value>,
    #[serde(default, borrow)]
    provider: Option<Cow<'a, str>>,
    status: Option<i64>,
    #[serde(default, borrow)]
    headers: Option<BTreeMap<Cow<'a, str>, Value>>,
    #[serde(default, borrow)]
    body: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    model: Option<Cow<'a, str>>,
    #[serde(default)]
    backoff_level: Option<i64>,
    #[serde(default)]
    now_ms: Option<i64>,
}

/// An input record, owned, validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    pub id: Option<Value>,
    pub provider: Option<String>,
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
    pub model: Option<String>,
    pub backoff_level: u32,
    pub now_ms: Option<i64>,
}

impl Record {
    pub fn as_input(&self, default_now_ms: i64) -> ErrorInput<'_> {
        ErrorInput {
            provider: self.provider.as_deref(),
            status: self.status,
            headers: &self.headers,
            body: &self.body,
            model: self.model.as_deref(),
            backoff_level: self.backoff_level,
            now_ms: self.now_ms.unwrap_or(default_now_ms),
        }
    }
}

/// Why an input line was rejected (the id is kept when it could be read).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordError {
    pub id: Option<Value>,
    pub message: String,
}

fn header_value(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Array(items) => Some(
            items
                .iter()
                .filter_map(header_value)
                .collect::<Vec<_>>()
                .join(", "),
        ),
        _ => None,
    }
}

/// Parses and validates one JSON Lines record.
pub fn parse_record(line: &str) -> Result<Record, RecordError> {
    let raw: RawRecord<'_> = serde_json::from_str(line).map_err(|e| RecordError {
        id: serde_json::from_str::<Value>(line)
            .ok()
            .and_then(|v| v.get("id").cloned()),
        message: format!("not a valid input record: {e}"),
    })?;
    let fail = |message: String| RecordError {
        id: raw.id.clone(),
        message,
    };
    let status = match raw.status {
        None => {
            return Err(fail(
                "missing field `status` (an HTTP status, 100..=599)".into(),
            ));
        }
        Some(s) if (100..=599).contains(&s) => s as u16,
        Some(s) => {
            return Err(fail(format!(
                "`status` must be an HTTP status in 100..=599, got {s}"
            )));
        }
    };
    let backoff_level = match raw.backoff_level {
        None => 0,
        Some(l) if (0..=1024).contains(&l) => l as u32,
        Some(l) => {
            return Err(fail(format!(
                "`backoff_level` must be in 0..=1024, got {l}"
            )));
        }
    };
    let mut headers = Vec::new();
    for (name, value) in raw.headers.iter().flatten() {
        let Some(text) = header_value(value) else {
            return Err(fail(format!(
                "header `{name}` must be a string, number or list, got {value}"
            )));
        };
        headers.push((name.trim().to_ascii_lowercase(), text));
    }
    Ok(Record {
        id: raw.id.clone(),
        provider: raw
            .provider
            .map(|p| p.into_owned())
            .filter(|p| !p.trim().is_empty()),
        status,
        headers,
        body: raw.body.map(Cow::into_owned).unwrap_or_default(),
        model: raw.model.map(Cow::into_owned),
        backoff_level,
        now_ms: raw.now_ms,
    })
}

#[derive(Serialize)]
struct OutRecord<'a> {
    id: &'a Option<Value>,
    #[serde(flatten)]
    c: &'a Classification,
}

#[derive(Serialize)]
struct ErrRecord<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: &'a Option<Value>,
    line: usize,
    error: &'a str,
}

/// The output line for a classification.
pub fn write_output(out: &mut Vec<u8>, id: &Option<Value>, c: &Classification) {
    // Serializing plain structs into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, &OutRecord { id, c });
    out.push(b'\n');
}

pub fn write_error(out: &mut Vec<u8>, line: usize, e: &RecordError) {
    let _ = serde_json::to_writer(
        &mut *out,
        &ErrRecord {
            id: &e.id,
            line,
            error: &e.message,
        },
    );
    out.push(b'\n');
}

/// Classifies one input line and appends exactly one output line. Returns false for an
/// error record.
pub fn classify_line(
    rules: &Ruleset,
    tuning: &Tuning,
    line: &str,
    line_no: usize,
    now_ms: i64,
    out: &mut Vec<u8>,
) -> bool {
    match parse_record(line) {
        Ok(rec) => {
            let c = classify_with(rules, tuning, &rec.as_input(now_ms));
            write_output(out, &rec.id, &c);
            true
        }
        Err(e) => {
            write_error(out, line_no, &e);
            false
        }
    }
}
