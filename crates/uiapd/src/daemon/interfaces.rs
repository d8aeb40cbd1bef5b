//! The participating interfaces as the daemon keeps them: joined to the group, known to the
//! device, and what a rescan changed.

use std::collections::BTreeSet;

use rand_chacha::ChaCha20Rng;
use tracing::{info, warn};
use uiap::device::{Device, InterfaceId};
use uiap_control::InterfaceView;

use crate::iface::{self, Interface};
use crate::socket::Sockets;

/// What a rescan found, for the claims in flight (docs/uiap-design.md D31).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Scan {
    /// Interfaces participated and none does now.
    AllLeft,
    /// At least one interface participates; `joined`: one joined in this scan.
    Participating {
        /// An interface joined: held claims are announced again (docs/uiap-design.md D63).
        joined: bool,
    },
    /// Nothing for the claims: none participated and none does, or the scan failed.
    Quiet,
}

/// The participating interfaces.
#[derive(Debug, Default)]
pub(super) struct Interfaces {
    list: Vec<Interface>,
    /// Their indexes: the interfaces a datagram may arrive on.
    known: BTreeSet<u32>,
    /// Interfaces named with `--iface` that the last scan did not find usable: each is warned
    /// about when it goes missing (a typo would otherwise leave the site silently smaller),
    /// not at every rescan.
    absent: BTreeSet<String>,
}

impl Interfaces {
    /// Whether any interface participates.
    pub(super) fn any(&self) -> bool {
        !self.list.is_empty()
    }

    /// The indexes of the participating interfaces.
    pub(super) fn known(&self) -> &BTreeSet<u32> {
        &self.known
    }

    /// The interfaces as `status` shows them.
    pub(super) fn views(&self) -> Vec<InterfaceView> {
        self.list
            .iter()
            .map(|i| InterfaceView {
                index: i.index,
                name: i.name.clone(),
                link_local: i.link_local.to_string(),
            })
            .collect()
    }

    /// Scans the interfaces named in `only` (all, if empty): those that left leave the group
    /// and the device, new ones join them. A failed scan changes nothing.
    pub(super) fn rescan(
        &mut self,
        only: &[String],
        sockets: &mut Sockets,
        device: &mut Device<ChaCha20Rng>,
    ) -> Scan {
        let had = self.any();
        let found = match iface::scan(only) {
            Ok(f) => f,
            Err(e) => {
                warn!(error = %e, "cannot scan interfaces");
                return Scan::Quiet;
            }
        };
        let absent: BTreeSet<String> = only
            .iter()
            .filter(|name| !found.iter().any(|i| &i.name == *name))
            .cloned()
            .collect();
        for name in absent.difference(&self.absent) {
            if std::path::Path::new("/sys/class/net").join(name).exists() {
                // Down, or its link-local address still tentative (as at every start).
                info!(interface = %name, "named interface not usable yet: not participating");
            } else {
                warn!(interface = %name, "named interface does not exist: not participating");
            }
        }
        self.absent = absent;
        for gone in self
            .list
            .iter()
            .filter(|old| !found.iter().any(|n| n.index == old.index))
        {
            info!(interface = %gone, "interface left");
            device.remove_interface(InterfaceId(gone.index));
            sockets.leave(gone.index);
            self.known.remove(&gone.index);
        }
        let mut usable = Vec::new();
        let mut joined = false;
        for new in found {
            if !self.known.contains(&new.index) {
                if let Err(e) = sockets.join(new.index) {
                    warn!(interface = %new, error = %e, "cannot join the group");
                    continue;
                }
                info!(interface = %new, "interface participates");
                device.add_interface(InterfaceId(new.index));
                self.known.insert(new.index);
                joined = true;
            }
            usable.push(new);
        }
        self.list = usable;
        match (had, self.any()) {
            (true, false) => Scan::AllLeft,
            (_, true) => Scan::Participating { joined },
            (false, false) => Scan::Quiet,
        }
    }
}
