//! `omniroute schema`: the JSON Schemas of the rule file kinds, from the Rust types.

use anyhow::Context;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Directory to write `<kind>.schema.json` files into.
    #[arg(long, default_value = "schemas")]
    pub dir: PathBuf,
    /// Compare instead of writing; exit 1 and name each file that differs.
    #[arg(long)]
    pub check: bool,
    /// Print one kind's schema to stdout (providers, signals, error_rules, provider_rules,
    /// restatements, allowlists, resilience) instead of writing files.
    #[arg(long, value_name = "KIND")]
    pub print: Option<String>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let schemas = omniroute_schemas();
    if let Some(kind) = &args.print {
        let name = format!("{kind}.schema.json");
        let Some((_, text)) = schemas.iter().find(|(n, _)| *n == name) else {
            eprintln!(
                "omniroute schema: unknown kind `{kind}`; kinds: {}",
                omniroute::rules::model::FILE_KINDS.join(", ")
            );
            return Ok(ExitCode::from(2));
        };
        use std::io::Write;
        std::io::stdout().write_all(text.as_bytes())?;
        return Ok(ExitCode::SUCCESS);
    }
    if args.check {
        let mut stale = 0;
        for (name, text) in &schemas {
            let path = args.dir.join(name);
            match std::fs::read_to_string(&path) {
                Ok(old) if old == *text => {}
                Ok(_) => {
                    stale += 1;
                    eprintln!(
                        "{}: differs from the types; run `omniroute schema` to regenerate",
                        path.display()
                    );
                }
                Err(e) => {
                    stale += 1;
                    eprintln!(
                        "{}: {e}; run `omniroute schema` to generate",
                        path.display()
                    );
                }
            }
        }
        return Ok(if stale == 0 {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        });
    }
    std::fs::create_dir_all(&args.dir)
        .with_context(|| format!("creating {}", args.dir.display()))?;
    for (name, text) in &schemas {
        let path = args.dir.join(name);
        std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
        eprintln!("wrote {}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}

fn omniroute_schemas() -> Vec<(String, String)> {
    omniroute::rules::schema::all()
}
