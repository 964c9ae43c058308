//! Validates the built-in catalog in `rules/` with the same checks `lint-rules` runs, fails
//! the build with located diagnostics on any bad rule, and emits the validated catalog into
//! OUT_DIR. Reads only `rules/` and `src/rules/`, writes only OUT_DIR.
#![forbid(unsafe_code)]

#[allow(dead_code)]
#[path = "src/rules/model.rs"]
mod model;

#[allow(dead_code)]
#[path = "src/rules/diag.rs"]
mod diag;

#[allow(dead_code)]
#[path = "src/rules/load.rs"]
mod load;

#[allow(dead_code)]
#[path = "src/rules/regex_gate.rs"]
mod regex_gate;

#[allow(dead_code)]
#[path = "src/rules/check.rs"]
mod check;

use std::path::{Path, PathBuf};

fn main() {
    // OMNIROUTE_RULES_DIR lets the build-failure test point the script at a scratch catalog.
    println!("cargo::rerun-if-env-changed=OMNIROUTE_RULES_DIR");
    let rules_dir = std::env::var_os("OMNIROUTE_RULES_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("rules"));
    println!("cargo::rerun-if-changed={}", rules_dir.display());
    println!("cargo::rerun-if-changed=src/rules");

    let mut paths: Vec<PathBuf> = match std::fs::read_dir(&rules_dir) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "yaml" || x == "yml"))
            .collect(),
        Err(e) => {
            println!("cargo::error=cannot read {}: {e}", rules_dir.display());
            return;
        }
    };
    paths.sort();
    for p in &paths {
        println!("cargo::rerun-if-changed={}", p.display());
    }

    let mut texts = Vec::new();
    for p in &paths {
        match std::fs::read_to_string(p) {
            Ok(t) => texts.push((display_name(p), t)),
            Err(e) => {
                println!("cargo::error=cannot read {}: {e}", p.display());
                return;
            }
        }
    }

    let mut diagnostics = Vec::new();
    let mut loaded = Vec::new();
    for (name, text) in &texts {
        let source = load::Source::new(name, text);
        match load::parse_file(&source) {
            Ok(file) => loaded.push(check::Loaded { source, file }),
            Err(d) => diagnostics.push((d, text.as_str())),
        }
    }
    // A file that failed to decode would make every list it defines look missing, so the
    // completeness check only runs when all files decoded.
    let role = if diagnostics.is_empty() {
        check::Role::BuiltIn
    } else {
        check::Role::Operator
    };
    for d in check::check_files(&loaded, role, None) {
        let text = texts
            .iter()
            .find(|(n, _)| *n == d.file)
            .map(|(_, t)| t.as_str())
            .unwrap_or("");
        diagnostics.push((d, text));
    }

    let errors = diagnostics.iter().filter(|(d, _)| d.is_error()).count();
    for (d, text) in &diagnostics {
        for line in d.render(text).lines() {
            println!("cargo::warning={line}");
        }
    }
    if errors > 0 {
        let first = diagnostics
            .iter()
            .find(|(d, _)| d.is_error())
            .map(|(d, _)| format!("{}: error[{}]: {}", d.location(), d.code.id, d.message))
            .unwrap_or_default();
        println!("cargo::error={errors} error(s) in the built-in rule catalog; first: {first}");
        return;
    }

    let catalog = check::merge(&loaded, check::Role::BuiltIn, model::Catalog::default());
    let json = match serde_json::to_string(&catalog) {
        Ok(j) => j,
        Err(e) => {
            println!("cargo::error=cannot serialize the catalog: {e}");
            return;
        }
    };
    let out = PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_default()).join("catalog.json");
    if let Err(e) = write_if_changed(&out, &json) {
        println!("cargo::error=cannot write {}: {e}", out.display());
    }
}

/// `rules/x.yaml` relative to the crate, so diagnostics read like the source tree.
fn display_name(p: &Path) -> String {
    let manifest = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from);
    match manifest.as_deref().and_then(|m| p.strip_prefix(m).ok()) {
        Some(rel) => rel.display().to_string(),
        None => p.display().to_string(),
    }
}

fn write_if_changed(path: &Path, content: &str) -> std::io::Result<()> {
    if std::fs::read_to_string(path).is_ok_and(|old| old == content) {
        return Ok(());
    }
    std::fs::write(path, content)
}
