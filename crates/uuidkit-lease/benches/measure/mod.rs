//! What the lease measurement programs (`lease_fleet`, `lease_faults`) share: their arguments,
//! and the summary of a series of times.

use std::time::Duration;

/// The value of `--NAME VALUE` on the command line (cargo bench adds `--bench`, ignored).
pub fn arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    let at = args.iter().position(|a| a == &format!("--{name}"))?;
    args.get(at + 1).cloned()
}

/// `--NAME N` as a number, or `default`.
pub fn number(name: &str, default: u64) -> u64 {
    arg(name).map_or(default, |v| {
        v.parse()
            .unwrap_or_else(|_| panic!("--{name}: expected a number, found {v:?}"))
    })
}

/// Whether `what` is among the comma-separated `--only` list (everything without one).
pub fn wanted(what: &str) -> bool {
    arg("only").is_none_or(|list| list.split(',').any(|w| w == what))
}

/// "median M, worst W (n = N)" of `times`, in milliseconds.
pub fn summary(times: &mut [Duration]) -> String {
    if times.is_empty() {
        return "no samples".into();
    }
    times.sort_unstable();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let n = times.len();
    let median = if n % 2 == 1 {
        ms(times[n / 2])
    } else {
        (ms(times[n / 2 - 1]) + ms(times[n / 2])) / 2.0
    };
    format!(
        "median {median:.1} ms, worst {:.1} ms (n = {n})",
        ms(times[n - 1])
    )
}
