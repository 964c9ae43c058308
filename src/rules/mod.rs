//! The rule catalog: the typed model, loading with located diagnostics, semantic checks, and
//! the compiled matchers the classifier runs on.

pub mod catalog;
pub mod check;
pub mod compile;
pub mod diag;
pub mod load;
pub mod matcher;
pub mod model;
pub mod regex_gate;
pub mod schema;
