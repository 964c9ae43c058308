//! The built-in catalog (validated by build.rs, embedded as JSON) and operator rule files
//! loaded at run time through the same decode and checks.

use super::check::{self, Loaded, Role};
use super::compile::{CompileError, Ruleset};
use super::diag::Diagnostic;
use super::load::{self, Source};
use super::model::Catalog;
use std::path::{Path, PathBuf};

static CATALOG_JSON: &str = include_str!(concat!(env!("OUT_DIR"), "/catalog.json"));

#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("cannot read rule file {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{errors} error(s) in rule files:\n{rendered}")]
    Invalid { errors: usize, rendered: String },
    #[error(transparent)]
    Compile(#[from] CompileError),
}

/// The built-in catalog as build.rs validated it.
pub fn builtin() -> Result<Catalog, CompileError> {
    Ok(serde_json::from_str(CATALOG_JSON)?)
}

/// Decodes and checks rule texts as `role`, against `base` for ids and providers. Returns the
/// diagnostics (errors and warnings) alongside the decoded files' merge.
pub fn load_texts(
    texts: &[(String, String)],
    role: Role,
    base: &Catalog,
) -> (Option<Catalog>, Vec<Diagnostic>) {
    let mut diagnostics = Vec::new();
    let mut loaded = Vec::new();
    for (name, text) in texts {
        let source = Source::new(name, text);
        match load::parse_file(&source) {
            Ok(file) => loaded.push(Loaded { source, file }),
            Err(d) => diagnostics.push(d),
        }
    }
    let context = (role == Role::Operator).then_some(base);
    let effective_role = if diagnostics.is_empty() {
        role
    } else {
        Role::Operator
    };
    diagnostics.extend(check::check_files(&loaded, effective_role, context));
    if diagnostics.iter().any(Diagnostic::is_error) {
        return (None, diagnostics);
    }
    (Some(check::merge(&loaded, role, base.clone())), diagnostics)
}

/// Renders diagnostics against their sources.
pub fn render(diagnostics: &[Diagnostic], texts: &[(String, String)]) -> String {
    diagnostics
        .iter()
        .map(|d| {
            let text = texts
                .iter()
                .find(|(n, _)| *n == d.file)
                .map_or("", |(_, t)| t.as_str());
            d.render(text)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

pub fn read_texts(paths: &[PathBuf]) -> Result<Vec<(String, String)>, LoadError> {
    paths
        .iter()
        .map(|p| {
            std::fs::read_to_string(p)
                .map(|t| (display(p), t))
                .map_err(|source| LoadError::Io {
                    path: p.clone(),
                    source,
                })
        })
        .collect()
}

fn display(p: &Path) -> String {
    p.display().to_string()
}

/// The ruleset: built-ins plus operator files (consulted first for their providers).
/// Warnings are returned rendered, for the caller to show.
pub fn ruleset(operator_files: &[PathBuf]) -> Result<(Ruleset, String), LoadError> {
    let base = builtin()?;
    if operator_files.is_empty() {
        return Ok((Ruleset::compile(base)?, String::new()));
    }
    let texts = read_texts(operator_files)?;
    let (catalog, diagnostics) = load_texts(&texts, Role::Operator, &base);
    let rendered = render(&diagnostics, &texts);
    match catalog {
        Some(c) => Ok((Ruleset::compile(c)?, rendered)),
        None => Err(LoadError::Invalid {
            errors: diagnostics.iter().filter(|d| d.is_error()).count(),
            rendered,
        }),
    }
}
