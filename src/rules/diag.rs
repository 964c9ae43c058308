//! Located diagnostics with stable codes, rendered like rustc. Shared with build.rs, so it
//! must not name anything under `crate::`.

use std::fmt::Write as _;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Error,
    Warning,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// A stable diagnostic code and what it means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Code {
    pub id: &'static str,
    pub title: &'static str,
}

macro_rules! codes {
    ($($name:ident = $id:literal, $title:literal;)*) => {
        $(pub const $name: Code = Code { id: $id, title: $title };)*
        /// Every code, in order: the README table and the SARIF rules come from here.
        pub const ALL_CODES: &[Code] = &[$($name),*];
    };
}

codes! {
    YAML_SYNTAX = "OR001", "the file is not valid YAML";
    UNKNOWN_KIND = "OR002", "the file does not declare a known `kind`";
    SCHEMA = "OR003", "a value does not fit the schema (unknown key, wrong type, missing field)";
    STATUS_RANGE = "OR004", "an HTTP status outside 100..=599";
    NUMBER_RANGE = "OR005", "a number outside its allowed range or a knob whose default is outside [min, max]";
    DUPLICATE_ID = "OR006", "an id used twice in the catalog";
    INVALID_REGEX = "OR007", "a regular expression that does not compile or can match empty text";
    EMPTY_MARKER = "OR008", "an empty or blank marker";
    UNKNOWN_PROVIDER = "OR009", "a provider id that no profile, alias or prefix names";
    EXCLUSIVE_FIELDS = "OR010", "fields that must appear exactly once, or not together";
    MISSING_SIGNAL = "OR011", "a signal list the classifier needs is missing";
    DUPLICATE_KIND = "OR012", "a catalog kind that may appear once is defined twice";
    NOT_LOWERCASE = "OR013", "an id or header name that must be lower-case";
    UNGATED_REGEX = "OR014", "a regex with no literal prefix: it runs on every body";
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub code: Code,
    pub severity: Severity,
    pub message: String,
    pub file: String,
    /// 1-based; 0 when unknown.
    pub line: usize,
    /// 1-based; 0 when unknown.
    pub col: usize,
    /// How many characters to underline.
    pub width: usize,
    pub help: Option<String>,
}

impl Diagnostic {
    pub fn error(code: Code, file: &str, message: impl Into<String>) -> Self {
        Diagnostic {
            code,
            severity: Severity::Error,
            message: message.into(),
            file: file.to_string(),
            line: 0,
            col: 0,
            width: 1,
            help: None,
        }
    }

    pub fn warning(code: Code, file: &str, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(code, file, message)
        }
    }

    pub fn at(mut self, line: usize, col: usize, width: usize) -> Self {
        self.line = line;
        self.col = col;
        self.width = width.max(1);
        self
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// `file:line:col`, or just the file when the position is unknown.
    pub fn location(&self) -> String {
        if self.line == 0 {
            self.file.clone()
        } else {
            format!("{}:{}:{}", self.file, self.line, self.col.max(1))
        }
    }

    /// rustc-style text: header, arrow, the source line with a caret, optional help.
    pub fn render(&self, source: &str) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{}[{}]: {}",
            self.severity.as_str(),
            self.code.id,
            self.message
        );
        let _ = writeln!(out, "  --> {}", self.location());
        if let Some(text) = self.line.checked_sub(1).and_then(|i| source.lines().nth(i)) {
            {
                let number = self.line.to_string();
                let pad = " ".repeat(number.len());
                let col = self.col.max(1);
                let _ = writeln!(out, "{pad} |");
                let _ = writeln!(out, "{number} | {text}");
                let lead: String = text
                    .chars()
                    .take(col - 1)
                    .map(|c| if c == '\t' { '\t' } else { ' ' })
                    .collect();
                let _ = writeln!(out, "{pad} | {lead}{}", "^".repeat(self.width));
            }
        }
        if let Some(help) = &self.help {
            let _ = writeln!(out, "  = help: {help}");
        }
        out
    }
}
