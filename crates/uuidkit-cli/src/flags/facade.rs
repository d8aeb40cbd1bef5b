//! `convert --to facade` and `--from facade`: the keyed v7 ↔ v4 façade
//! (`uuidkit::facade`), its key file and its mode.

use std::path::PathBuf;
use std::sync::LazyLock;

use clap::{Args, ValueEnum};
use uuidkit::facade::{Facade, FacadeKey, FacadeMode};

use super::Format;
use crate::error::Error;

/// The façade flags of `convert`.
#[derive(Debug, Args)]
pub struct FacadeArgs {
    /// With --to facade or --from facade: the file holding the key, 32 hex digits (16 bytes).
    #[arg(long, value_name = "FILE")]
    pub key_file: Option<PathBuf>,

    /// With --to facade or --from facade: full permutes all 122 bits (shows nothing of the v7);
    /// uuidv47 masks only the time, as stateless-me/uuidv47 does (shows the random bits, and
    /// so a counter's order). Default: full.
    #[arg(long, value_enum, ignore_case = true)]
    pub mode: Option<ModeArg>,
}

/// `--mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ModeArg {
    /// All 122 bits (FF1 on AES-128).
    Full,
    /// The timestamp only (SipHash-2-4 mask), byte-identical to uuidv47.
    Uuidv47,
}

/// What `convert --from` reads: a text form, or façades to decode (in the
/// default text forms).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConvertFrom {
    /// Inputs in this form.
    Form(Format),
    /// Façades, to decode back to their v7s.
    Facade,
}

impl ConvertFrom {
    /// The text form to read, if one is named.
    pub fn form(self) -> Option<Format> {
        match self {
            ConvertFrom::Form(f) => Some(f),
            ConvertFrom::Facade => None,
        }
    }
}

/// Every form of `--from`, then `facade`.
static CONVERT_FROM: LazyLock<Vec<ConvertFrom>> = LazyLock::new(|| {
    Format::value_variants()
        .iter()
        .map(|&f| ConvertFrom::Form(f))
        .chain([ConvertFrom::Facade])
        .collect()
});

impl ValueEnum for ConvertFrom {
    fn value_variants<'a>() -> &'a [Self] {
        &CONVERT_FROM
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        match self {
            ConvertFrom::Form(f) => f.to_possible_value(),
            ConvertFrom::Facade => Some(
                clap::builder::PossibleValue::new("facade")
                    .help("façades (--key-file, --mode): decode them to their v7s"),
            ),
        }
    }
}

/// Which way a `convert` goes through the façade.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// v7 → façade (`--to facade`).
    Encode,
    /// façade → v7 (`--from facade`).
    Decode,
}

/// A validated façade conversion: the keyed façade and the direction.
#[derive(Debug, Clone)]
pub struct FacadePlan {
    /// The key and mode.
    pub facade: Facade,
    /// Encode or decode.
    pub direction: Direction,
}

/// The façade conversion `--to facade`/`--from facade` ask for, if any;
/// usage errors for a missing or unreadable key file, both directions at once,
/// or a key file without either.
pub fn plan(encode: bool, decode: bool, args: &FacadeArgs) -> Result<Option<FacadePlan>, Error> {
    let direction = match (encode, decode) {
        (true, true) => {
            return Err(Error::Usage(
                "--to facade and --from facade go opposite ways: expected one".into(),
            ));
        }
        (true, false) => Direction::Encode,
        (false, true) => Direction::Decode,
        (false, false) if args.key_file.is_some() || args.mode.is_some() => {
            return Err(Error::Usage(
                "--key-file and --mode apply to --to facade and --from facade only".into(),
            ));
        }
        (false, false) => return Ok(None),
    };
    let Some(path) = &args.key_file else {
        return Err(Error::Usage(
            "a façade needs its key: expected --key-file FILE (32 hex digits)".into(),
        ));
    };
    let key = FacadeKey::from_file(path)
        .map_err(|e| Error::Usage(format!("--key-file {}: {e}", path.display())))?;
    let mode = match args.mode {
        None | Some(ModeArg::Full) => FacadeMode::Full,
        Some(ModeArg::Uuidv47) => FacadeMode::Uuidv47,
    };
    Ok(Some(FacadePlan {
        facade: Facade::new(&key, mode),
        direction,
    }))
}
