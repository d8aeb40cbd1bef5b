//! The set-up `cargo xtask test` does before it builds anything, also run on
//! its own as `cargo xtask provision` (CI's first step).
//!
//! It checks each row of [`needs`] and installs what is missing: Debian
//! packages with `apt-get` when run as root, cargo tools with
//! `cargo install`. Whatever is still missing afterwards is named in one
//! line with the command that would install it, and the features and crates
//! that cannot build without it are left out of the build (see
//! [`Outcome::cargo_args`]) and listed as not run: a missing C library never
//! ends the run in a build-script panic. Under `CI=true` anything missing
//! fails the run instead.
//!
//! Probes look at a [`Machine`]: a filesystem root and a program search
//! path, so the whole procedure can be pointed at a directory tree that
//! stands for another machine (the tests below do).

mod cargo_args;
mod needs;

#[cfg(test)]
mod tests;

pub use cargo_args::{Workspace, cargo_args};
pub use needs::{CARGO_TOOLS, PACKAGES};

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// How to tell that something is installed.
#[derive(Debug, Clone, Copy)]
pub enum Probe {
    /// An executable of this name on the search path.
    Program(&'static str),
    /// A file; a component may be `*` (any one directory name).
    Path(&'static str),
    /// This command (a program on the search path, then its arguments) runs
    /// and exits 0.
    Runs(&'static [&'static str]),
    /// At least one of these.
    Any(&'static [Probe]),
    /// Every one of these.
    All(&'static [Probe]),
}

/// Something that cannot build without a row of [`needs`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Build {
    /// A workspace crate's feature, `crate/feature`.
    #[allow(
        dead_code,
        reason = "for a row whose package only a feature needs (a `-sys` crate behind a feature)"
    )]
    Feature(&'static str),
    /// A whole workspace crate that no other one depends on: it is left out
    /// of the run (`--exclude`), with every feature elsewhere that would
    /// turn one of its features on.
    Crate(&'static str),
}

/// A Debian package a test needs.
#[derive(Debug)]
pub struct Package {
    /// The package's name.
    pub name: &'static str,
    /// How to tell it is installed.
    pub found: Probe,
    /// What cannot build without it.
    pub builds: &'static [Build],
}

/// A program a test needs, built with `cargo install` at the version of the
/// crate it serves.
#[derive(Debug)]
pub struct CargoTool {
    /// The crate to `cargo install`.
    pub name: &'static str,
    /// The program it installs, asked for its version with `--version`.
    pub program: &'static str,
    /// The crate whose locked version the tool must have.
    pub locked_crate: &'static str,
    /// The lock files (relative to the workspace root) looked in, in order:
    /// the first that locks [`locked_crate`](Self::locked_crate) gives the
    /// version. Without one, the tool is not needed.
    pub lock_files: &'static [&'static str],
    /// What cannot build without it.
    pub builds: &'static [Build],
}

/// Where probes look: a filesystem root and the directories searched for
/// programs (relative to that root).
#[derive(Debug, Clone)]
pub struct Machine {
    root: PathBuf,
    search: Vec<PathBuf>,
}

/// Directories searched after `PATH`: a user's `PATH` often lacks them,
/// and the servers and network tools live there.
const SBIN: [&str; 3] = ["/usr/local/sbin", "/usr/sbin", "/sbin"];

impl Machine {
    /// This machine: `/`, and `PATH` then the sbin directories.
    pub fn this() -> Machine {
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut search: Vec<PathBuf> = std::env::split_paths(&path).collect();
        search.extend(SBIN.iter().map(PathBuf::from));
        Machine::at(PathBuf::from("/"), search)
    }

    /// A machine whose files are under `root`, searching `search` (each
    /// taken relative to `root`) for programs.
    pub fn at(root: PathBuf, search: Vec<PathBuf>) -> Machine {
        Machine { root, search }
    }

    fn under_root(&self, path: &Path) -> PathBuf {
        self.root.join(path.strip_prefix("/").unwrap_or(path))
    }

    /// The path of program `name`, if the search path has it.
    pub fn program(&self, name: &str) -> Option<PathBuf> {
        self.search
            .iter()
            .map(|dir| self.under_root(dir).join(name))
            .find(|p| p.is_file())
    }

    /// Whether `probe` holds.
    pub fn found(&self, probe: &Probe) -> bool {
        match *probe {
            Probe::Program(name) => self.program(name).is_some(),
            Probe::Path(pattern) => glob_exists(&self.root, pattern),
            Probe::Runs(argv) => {
                let Some((program, args)) = argv.split_first() else {
                    return false;
                };
                self.program(program).is_some_and(|p| {
                    Command::new(p)
                        .args(args)
                        .stdin(Stdio::null())
                        .stdout(Stdio::null())
                        .stderr(Stdio::null())
                        .status()
                        .is_ok_and(|s| s.success())
                })
            }
            Probe::Any(ps) => ps.iter().any(|p| self.found(p)),
            Probe::All(ps) => ps.iter().all(|p| self.found(p)),
        }
    }
}

/// Whether a file matching `pattern` exists under `root`: `pattern` is
/// absolute, and a `*` in a component stands for any run of characters in
/// that one name (`/usr/lib/llvm-*/lib/libclang.so`).
fn glob_exists(root: &Path, pattern: &str) -> bool {
    let mut paths = vec![root.to_path_buf()];
    for part in pattern.split('/').filter(|p| !p.is_empty()) {
        paths = match part.split_once('*') {
            None => paths.iter().map(|d| d.join(part)).collect(),
            Some((head, tail)) => paths
                .iter()
                .filter_map(|d| std::fs::read_dir(d).ok())
                .flatten()
                .flatten()
                .filter(|e| {
                    let name = e.file_name();
                    let name = name.to_string_lossy();
                    name.len() >= head.len() + tail.len()
                        && name.starts_with(head)
                        && name.ends_with(tail)
                })
                .map(|e| e.path())
                .collect(),
        };
    }
    paths.iter().any(|p| p.exists())
}

/// What installs things; [`System`] is the real one.
pub trait Installer {
    /// Whether `apt-get` is there (a Debian-like system).
    fn has_apt(&self) -> bool;
    /// Whether the effective user is root.
    fn is_root(&self) -> bool;
    /// Installs Debian packages; false if that failed.
    fn apt_install(&mut self, packages: &[&str]) -> bool;
    /// What `PROGRAM --version` prints, if the program is installed.
    fn tool_version(&self, program: &str) -> Option<String>;
    /// Runs [`install_command`] for `tool` at `version`; false if that failed.
    fn cargo_install(&mut self, tool: &CargoTool, version: &str) -> bool;
}

/// This machine's installer.
pub struct System<'a> {
    /// Where `apt-get` is looked for.
    pub machine: &'a Machine,
}

impl Installer for System<'_> {
    fn has_apt(&self) -> bool {
        self.machine.program("apt-get").is_some()
    }

    fn is_root(&self) -> bool {
        // SAFETY: geteuid has no preconditions and cannot fail.
        unsafe { libc::geteuid() == 0 }
    }

    fn apt_install(&mut self, packages: &[&str]) -> bool {
        eprintln!("xtask: apt-get install {}", packages.join(" "));
        let apt = || {
            let mut c = Command::new("apt-get");
            c.env("DEBIAN_FRONTEND", "noninteractive");
            c
        };
        crate::step("apt-get update", apt().args(["update", "-qq"]))
            && crate::step(
                "apt-get install",
                apt()
                    .args(["install", "-y", "-qq", "--no-install-recommends"])
                    .args(packages),
            )
    }

    fn tool_version(&self, program: &str) -> Option<String> {
        program_version(program)
    }

    fn cargo_install(&mut self, tool: &CargoTool, version: &str) -> bool {
        let args = install_command(tool, version);
        crate::step(
            &format!("cargo install {} {version}", tool.name),
            crate::cargo().args(&args[1..]),
        )
    }
}

/// What provisioning left missing.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Packages not installed.
    pub packages: Vec<&'static Package>,
    /// Cargo tools not installed, with the version they need.
    pub tools: Vec<(&'static CargoTool, String)>,
    /// Whether the user was root (the command to run then needs no `sudo`).
    pub root: bool,
    /// Whether `apt-get` exists at all.
    pub apt: bool,
}

/// Checks every row, installs what is missing where it can, and says what
/// is still missing. `read` gives the text of a file of the workspace (a
/// lock file) by its path relative to the root, if there is one.
pub fn provision(
    machine: &Machine,
    installer: &mut dyn Installer,
    read: &dyn Fn(&str) -> Option<String>,
) -> Outcome {
    let absent = |machine: &Machine| -> Vec<&'static Package> {
        PACKAGES
            .iter()
            .filter(|p| !machine.found(&p.found))
            .collect()
    };
    let mut packages = absent(machine);
    if !packages.is_empty() && installer.is_root() && installer.has_apt() {
        let names: Vec<&str> = packages.iter().map(|p| p.name).collect();
        installer.apt_install(&names);
        packages = absent(machine);
    }
    let mut tools = Vec::new();
    for tool in CARGO_TOOLS {
        let Some(version) = tool.wanted(read) else {
            continue;
        };
        let has = |i: &dyn Installer| {
            i.tool_version(tool.program)
                .is_some_and(|v| reports_version(&v, &version))
        };
        let installed = has(installer) || installer.cargo_install(tool, &version) && has(installer);
        if !installed {
            tools.push((tool, version));
        }
    }
    Outcome {
        packages,
        tools,
        root: installer.is_root(),
        apt: installer.has_apt(),
    }
}

impl CargoTool {
    /// The version the first lock file that locks
    /// [`locked_crate`](Self::locked_crate) gives it; `None`: not needed.
    pub fn wanted(&self, read: &dyn Fn(&str) -> Option<String>) -> Option<String> {
        self.lock_files
            .iter()
            .find_map(|f| locked_version(&read(f)?, self.locked_crate))
    }
}

/// What `PROGRAM --version` prints, if the program runs.
pub fn program_version(program: &str) -> Option<String> {
    let out = Command::new(program).arg("--version").output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Whether a program's `--version` text names exactly `version` (as a word:
/// `0.2.1000` is not `0.2.100`).
pub fn reports_version(text: &str, version: &str) -> bool {
    text.split_whitespace().any(|word| word == version)
}

/// The command that installs `tool` at `version`, as `cargo` and its
/// arguments. A debug build: these programs only run tests, whose speed
/// does not depend on theirs, and it compiles in a fraction of the time.
/// `--force`: it runs only when the program at that version is missing,
/// and cargo's own record of what it installed can say otherwise (a
/// program deleted by hand stays "already installed" for cargo).
pub fn install_command(tool: &CargoTool, version: &str) -> Vec<String> {
    [
        "cargo",
        "install",
        "--locked",
        "--force",
        "--debug",
        tool.name,
        "--version",
        version,
    ]
    .map(String::from)
    .to_vec()
}

/// The version `Cargo.lock` gives crate `name`, if it has it.
pub fn locked_version(lock: &str, name: &str) -> Option<String> {
    let wanted = format!("name = \"{name}\"");
    let mut lines = lock.lines();
    lines.find(|l| l.trim() == wanted)?;
    let version = lines.next()?.trim().strip_prefix("version = \"")?;
    Some(version.strip_suffix('"')?.to_string())
}

impl Outcome {
    /// Whether nothing is missing.
    pub fn complete(&self) -> bool {
        self.packages.is_empty() && self.tools.is_empty()
    }

    /// One line naming what is missing and the exact command that installs
    /// it, or `None` if nothing is.
    pub fn command_line(&self) -> Option<String> {
        if self.complete() {
            return None;
        }
        let names: Vec<&str> = self.packages.iter().map(|p| p.name).collect();
        let mut commands = Vec::new();
        if !names.is_empty() {
            let sudo = if self.root { "" } else { "sudo " };
            commands.push(format!(
                "{sudo}apt-get update && {sudo}apt-get install -y {}",
                names.join(" ")
            ));
        }
        for (tool, version) in &self.tools {
            commands.push(install_command(tool, version).join(" "));
        }
        let mut missing: Vec<String> = names.iter().map(|n| (*n).to_string()).collect();
        missing.extend(self.tools.iter().map(|(t, v)| format!("{} {v}", t.name)));
        let how = if self.apt || names.is_empty() {
            format!("run: {}", commands.join(" && "))
        } else {
            format!(
                "install these Debian packages' equivalents, or run on Debian: {}",
                commands.join(" && ")
            )
        };
        Some(format!(
            "xtask: missing {}; to install, {how}",
            missing.join(", ")
        ))
    }

    /// What cannot be built, each with the names of what it lacks.
    pub fn left_out(&self) -> Vec<(Build, Vec<&'static str>)> {
        let mut out: Vec<(Build, Vec<&'static str>)> = Vec::new();
        let lacks = self
            .packages
            .iter()
            .map(|p| (p.builds, p.name))
            .chain(self.tools.iter().map(|(t, _)| (t.builds, t.name)));
        for (builds, name) in lacks {
            for b in builds {
                match out.iter_mut().find(|(x, _)| x == b) {
                    Some((_, names)) => names.push(name),
                    None => out.push((*b, vec![name])),
                }
            }
        }
        out.sort();
        out
    }
}
