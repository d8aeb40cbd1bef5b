//! `uuidkit completions SHELL` and `uuidkit man`, generated from the clap definitions.

use std::io::Write;

use crate::error::{Error, Outcome};
use crate::flags;

/// Prints the completion script for `shell`.
pub fn completions(shell: clap_complete::Shell) -> Result<Outcome, Error> {
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut flags::command(), "uuidkit", &mut buf);
    let mut out = crate::error::stdout();
    out.write_all(&buf)?;
    out.flush()?;
    Ok(Outcome::Success)
}

/// Prints the man page (roff) for `uuidkit`, or for one subcommand (`uuidkit-new(1)` …),
/// which exists (hiargs checked).
pub fn man(sub: Option<&str>) -> Result<Outcome, Error> {
    let cmd = flags::built_command();
    // hiargs checked that the subcommand exists.
    let page = match sub.and_then(|name| cmd.find_subcommand(name)) {
        None => cmd,
        Some(s) => {
            // A one-shot process: leaking the page name is the simplest 'static str.
            let full: &'static str =
                Box::leak(format!("uuidkit-{}", s.get_name()).into_boxed_str());
            s.clone().name(full).bin_name(full)
        }
    };
    let mut buf = Vec::new();
    clap_mangen::Man::new(page).render(&mut buf)?;
    let mut out = crate::error::stdout();
    out.write_all(&buf)?;
    out.flush()?;
    Ok(Outcome::Success)
}
