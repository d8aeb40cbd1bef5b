//! How many control connections the daemon accepts, given its file-descriptor limit
//! (docs/uiap-design.md D36).

use std::time::Duration;

use tracing::info;

use super::Limits;
use crate::Config;

/// Descriptors never given to control connections: the two UDP sockets, the state directory's
/// lock, a persistence write (temporary file and directory), an interface rescan (the
/// `/proc` and `/sys` files it reads), the runtime's own, and the spare the accept loop keeps,
/// with room to spare.
const RESERVED_FDS: u64 = 64;

/// The connection cap: the configured one, lowered so that `RESERVED_FDS` stay free under a
/// soft `RLIMIT_NOFILE` of `soft`.
fn cap(configured: usize, soft: u64) -> usize {
    let room = usize::try_from(soft.saturating_sub(RESERVED_FDS)).unwrap_or(usize::MAX);
    configured.min(room).max(1)
}

/// The control socket's limits for `config` under this process's descriptor limit.
pub(crate) fn limits(config: &Config) -> Limits {
    let soft = nix::sys::resource::getrlimit(nix::sys::resource::Resource::RLIMIT_NOFILE)
        .map_or(1024, |(soft, _)| soft);
    let max_connections = cap(config.max_connections, soft);
    if max_connections < config.max_connections {
        info!(
            configured = config.max_connections,
            nofile = soft,
            max_connections,
            "control connections capped below the descriptor limit"
        );
    }
    Limits {
        max_connections,
        per_user: config.users.max_connections,
        per_user_tied: config.users.max_claims,
        idle: Duration::from_secs(config.control_idle_s),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cap_leaves_descriptors_in_reserve() {
        assert_eq!(cap(256, 1024), 256);
        assert_eq!(cap(256, 128), 128 - RESERVED_FDS as usize);
        assert_eq!(cap(256, 10), 1, "always at least one connection");
        assert_eq!(cap(256, u64::MAX), 256);
    }

    #[test]
    fn the_defaults_are_256_connections_idle_for_a_minute() {
        let default = limits(&Config::default());
        assert!(default.max_connections <= 256 && default.max_connections >= 1);
        assert_eq!(default.idle, Duration::from_secs(60));
        let few = Config {
            max_connections: 3,
            control_idle_s: 8,
            ..Config::default()
        };
        assert_eq!(
            limits(&few),
            Limits {
                max_connections: 3,
                per_user: 16,
                per_user_tied: 64,
                idle: Duration::from_secs(8)
            }
        );
    }
}
