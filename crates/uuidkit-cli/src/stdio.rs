//! Whether the process started with its standard input or output closed
//! (`<&-`, `>&-`): the Rust runtime hides both by opening `/dev/null` in
//! their place, so the probe looks before it does.

/// Standard output is an open descriptor.
pub(crate) fn stdout_is_open() -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    if stdio_probe::STDOUT_WAS_CLOSED.load(std::sync::atomic::Ordering::Relaxed) {
        return Err(std::io::Error::other(
            "standard output is closed: nothing can be written",
        ));
    }
    Ok(())
}

/// Standard input is an open descriptor: checked by the commands that read
/// it, before they do (a closed one would read as an empty input).
pub(crate) fn stdin_is_open() -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    if stdio_probe::STDIN_WAS_CLOSED.load(std::sync::atomic::Ordering::Relaxed) {
        return Err(std::io::Error::other(
            "standard input is closed: nothing can be read",
        ));
    }
    Ok(())
}

/// Whether the process started with stdin or stdout closed. The Rust runtime
/// opens `/dev/null` on a closed standard descriptor before `main` runs, so
/// output would vanish with every write succeeding, and input would read as
/// empty; this looks first, from the initialisation array that runs before
/// the runtime's setup.
#[cfg(target_os = "linux")]
mod stdio_probe {
    use std::sync::atomic::{AtomicBool, Ordering};

    pub static STDOUT_WAS_CLOSED: AtomicBool = AtomicBool::new(false);
    pub static STDIN_WAS_CLOSED: AtomicBool = AtomicBool::new(false);

    extern "C" fn probe() {
        // SAFETY: fcntl(F_GETFD) on a descriptor number only reads its flags.
        let closed = |fd| unsafe { libc::fcntl(fd, libc::F_GETFD) } == -1;
        STDOUT_WAS_CLOSED.store(closed(libc::STDOUT_FILENO), Ordering::Relaxed);
        STDIN_WAS_CLOSED.store(closed(libc::STDIN_FILENO), Ordering::Relaxed);
    }

    #[used]
    #[unsafe(link_section = ".init_array")]
    static PROBE: extern "C" fn() = probe;
}
