//! `uuidkit completions SHELL` and `uuidkit man`, generated from the clap definitions.

use std::io::Write;

use crate::error::{Error, Outcome};
use crate::flags;

/// Prints the completion script for `shell`.
pub fn completions(shell: clap_complete::Shell) -> Result<Outcome, Error> {
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut flags::command(), "uuidkit", &mut buf);
    let mut out = std::io::stdout().lock();
    out.write_all(&buf)?;
    out.flush()?;
    Ok(Outcome::Success)
}

/// Prints the man page (roff) for `uuidkit`, or for one subcommand (`uuidkit-new(1)` …).
pub fn man(sub: Option<&str>) -> Result<Outcome, Error> {
    let cmd = flags::command();
    let page = match sub {
        None => cmd,
        Some(name) => {
            let Some(s) = cmd.find_subcommand(name) else {
                let names: Vec<&str> = cmd.get_subcommands().map(|s| s.get_name()).collect();
                return Err(Error::Usage(format!(
                    "no subcommand '{name}': expected one of {}",
                    names.join(", ")
                )));
            };
            // A one-shot process: leaking the page name is the simplest 'static str.
            let full: &'static str =
                Box::leak(format!("uuidkit-{}", s.get_name()).into_boxed_str());
            s.clone().name(full).bin_name(full)
        }
    };
    let mut buf = Vec::new();
    clap_mangen::Man::new(page).render(&mut buf)?;
    let mut out = std::io::stdout().lock();
    out.write_all(&buf)?;
    out.flush()?;
    Ok(Outcome::Success)
}
