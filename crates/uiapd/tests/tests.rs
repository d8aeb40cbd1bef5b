//! Integration tests of the daemon: its control API without namespaces or root
//! (`daemon_control`), and sites of daemons in network namespaces (`netns_*`, root and `ip`;
//! see `netns_support::can_run`), in one test binary. The tests of one file run together, never
//! beside another file's (`netns_support::Turn`).

mod netns_support;

mod daemon_control;
mod netns_chain;
mod netns_claims;
mod netns_faults;
mod netns_flood;
mod netns_hostile;
mod netns_iface;
mod netns_isolation;
mod netns_keys;
mod netns_overflow;
mod netns_site;
mod netns_site_flood;
mod netns_site_skew;
mod netns_spoof;
