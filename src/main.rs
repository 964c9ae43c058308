#![forbid(unsafe_code)]
//! The `omniroute` binary: parse, dispatch, map errors to exit codes.

mod cli;

use clap::Parser;
use cli::{Cli, run};
use std::process::ExitCode;

// The classifier allocates a few small strings and tables per record; mimalloc's thread-local
// free lists cost a fraction of the system allocator's per call (measured in the README).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(err) => {
            // A closed pipe (`omniroute ... | head`) is a normal way to stop reading.
            let broken_pipe = err.chain().any(|e| {
                e.downcast_ref::<std::io::Error>()
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            });
            if broken_pipe {
                return ExitCode::SUCCESS;
            }
            eprintln!("omniroute: error: {err:#}");
            ExitCode::from(2)
        }
    }
}
