//! The command line: one module per subcommand.

pub mod classify;
pub mod schema;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(
    name = "omniroute",
    version,
    about = "The resilience core of an LLM API gateway",
    long_about = "omniroute decides what an upstream LLM provider failure means (quota, rate limit, \
ban, retired model, bad request...), how long to keep away from the key, model or provider that \
failed, and whether the client should be told to retry.\n\nThe rule catalog lives in rules/*.yaml \
and is compiled into the binary; operator rule files add to it with --rules.",
    after_help = "Examples:\n  omniroute classify --provider openai --status 429 --header 'Retry-After: 30' --body 'Rate limit reached'\n  omniroute classify --batch examples/errors.jsonl\n  omniroute schema --check"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Explain captured upstream errors: restated status, reason, scope, cooldown, retry hint.
    Classify(classify::Args),
    /// Write (or check) the JSON Schemas of the rule file kinds.
    Schema(schema::Args),
    /// Run the OpenAI-compatible proxy (not built yet).
    Serve(NotBuilt),
    /// Replay a scenario on a virtual clock (not built yet).
    Simulate(NotBuilt),
    /// Check rule files and run their tests (not built yet).
    LintRules(NotBuilt),
}

/// Accepts any arguments so the message is the same however it is called.
#[derive(clap::Args, Debug)]
pub struct NotBuilt {
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
    pub rest: Vec<String>,
}

/// Runs a parsed command line and returns its exit code.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Classify(args) => classify::run(args),
        Command::Schema(args) => schema::run(args),
        Command::Serve(_) => not_built("serve"),
        Command::Simulate(_) => not_built("simulate"),
        Command::LintRules(_) => not_built("lint-rules"),
    }
}

fn not_built(name: &str) -> anyhow::Result<ExitCode> {
    eprintln!("omniroute {name}: not built yet (planned; see README.md, \"Status\")");
    Ok(ExitCode::from(2))
}
