//! JSON Schemas of the rule file kinds, generated from the model types.

use super::model::*;
use schemars::schema_for;

/// (file name, pretty JSON with a trailing newline) for every rule file kind.
pub fn all() -> Vec<(String, String)> {
    let schemas = [
        ("providers", schema_for!(ProvidersFile)),
        ("signals", schema_for!(SignalsFile)),
        ("error_rules", schema_for!(ErrorRulesFile)),
        ("provider_rules", schema_for!(ProviderRulesFile)),
        ("restatements", schema_for!(RestatementsFile)),
        ("allowlists", schema_for!(AllowlistsFile)),
        ("resilience", schema_for!(ResilienceFile)),
    ];
    schemas
        .into_iter()
        .map(|(kind, schema)| {
            let text = serde_json::to_string_pretty(&schema).unwrap_or_default();
            (format!("{kind}.schema.json"), format!("{text}\n"))
        })
        .collect()
}
