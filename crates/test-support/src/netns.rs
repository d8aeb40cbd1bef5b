//! A network namespace joined to this one by a veth pair, for tests that cut a process off
//! from the network without touching the host's own firewall.

use std::net::Ipv4Addr;
use std::path::Path;
use std::process::Command;
use std::sync::{Condvar, Mutex, PoisonError};

/// A network namespace joined to this one by a veth pair, on an address pair of 198.18.0.0/15
/// (set aside for tests) derived from the process id and a slot of its own (0–3: up to four
/// namespaces at once in one test process, whatever tests of it make them; a fifth waits for
/// one to be dropped); deleted, with its link, on drop. Inside, a firewall rule can cut it off
/// from the host. Needs root, `ip` and `nft`.
///
/// ```no_run
/// let ns = test_support::netns::Namespace::create();
/// assert_ne!(ns.host(), ns.inside());
/// ns.cut(None); // silence both ways
/// ```
#[derive(Debug)]
pub struct Namespace {
    slot: u8,
    name: String,
    /// The host's end of the veth pair.
    link: String,
    host: Ipv4Addr,
    inside: Ipv4Addr,
}

fn ip(args: &[&str]) {
    let out = Command::new("ip").args(args).output().unwrap();
    assert!(
        out.status.success(),
        "ip {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Which of this process's slots a live [`Namespace`] has: the slot picks its name and addresses,
/// so two at once must not share one.
static SLOTS: Mutex<[bool; 4]> = Mutex::new([false; 4]);
static SLOT_FREED: Condvar = Condvar::new();

/// A free slot, now taken; waits for one if all are.
fn take_slot() -> u8 {
    let mut slots = SLOTS.lock().unwrap_or_else(PoisonError::into_inner);
    loop {
        if let Some(i) = slots.iter().position(|taken| !taken) {
            slots[i] = true;
            return u8::try_from(i).unwrap_or(0);
        }
        slots = SLOT_FREED
            .wait(slots)
            .unwrap_or_else(PoisonError::into_inner);
    }
}

impl Namespace {
    /// Makes the namespace and its link, both ends up, on a slot of this process not taken by a
    /// live namespace (see [`Namespace`]).
    ///
    /// # Panics
    /// When `ip` fails (not root, no `ip`): check [`crate::root`] and [`crate::command`] first.
    #[must_use]
    pub fn create() -> Namespace {
        let slot = take_slot();
        let pid = std::process::id();
        let name = format!("ukns{pid}s{slot}");
        let (outside, inside) = (format!("ukh{pid}s{slot}"), format!("ukc{pid}s{slot}"));
        let base = [
            198,
            18 + ((pid >> 14) & 1) as u8,
            (pid >> 6) as u8,
            ((pid & 0x3F) << 2) as u8,
        ];
        let third = base[2].wrapping_add(slot.wrapping_mul(64));
        let host = Ipv4Addr::new(base[0], base[1], third, base[3] + 1);
        let theirs = Ipv4Addr::new(base[0], base[1], third, base[3] + 2);
        let _ = Command::new("ip").args(["netns", "del", &name]).output();
        let _ = Command::new("ip").args(["link", "del", &outside]).output();
        // Made first: a failure below gives the slot back as the namespace is dropped.
        let ns = Namespace {
            slot,
            link: outside.clone(),
            name,
            host,
            inside: theirs,
        };
        ip(&["netns", "add", &ns.name]);
        ip(&[
            "link", "add", &outside, "type", "veth", "peer", "name", &inside,
        ]);
        ip(&["link", "set", &inside, "netns", &ns.name]);
        ip(&["addr", "add", &format!("{host}/30"), "dev", &outside]);
        ip(&["link", "set", &outside, "up"]);
        let inner = |args: &[&str]| {
            let mut all = vec!["netns", "exec", &ns.name, "ip"];
            all.extend_from_slice(args);
            ip(&all);
        };
        inner(&["addr", "add", &format!("{theirs}/30"), "dev", &inside]);
        inner(&["link", "set", &inside, "up"]);
        inner(&["link", "set", "lo", "up"]);
        ns
    }

    /// The namespace's name, for `ip netns exec`.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The host's end of the link.
    #[must_use]
    pub fn host(&self) -> Ipv4Addr {
        self.host
    }

    /// The namespace's end of the link.
    #[must_use]
    pub fn inside(&self) -> Ipv4Addr {
        self.inside
    }

    /// A command that runs `program` inside.
    #[must_use]
    pub fn command(&self, program: &Path) -> Command {
        let mut cmd = Command::new("ip");
        cmd.args(["netns", "exec", &self.name]).arg(program);
        cmd
    }

    /// Drops every packet between the namespace and the host, both ways, except TCP to and
    /// from port `open` inside (a server's client port that stays reachable): a partition that
    /// gives no error, only silence, as a cut link or a lost route does.
    ///
    /// # Panics
    /// When `nft` fails.
    pub fn cut(&self, open: Option<u16>) {
        let (keep_in, keep_out) = match open {
            Some(p) => (
                format!("tcp dport {p} accept;"),
                format!("tcp sport {p} accept;"),
            ),
            None => (String::new(), String::new()),
        };
        let rules = format!(
            "table inet cut {{ chain out {{ type filter hook output priority 0; policy drop; \
             oif lo accept; {keep_out} }}; chain in {{ type filter hook input priority 0; \
             policy drop; iif lo accept; {keep_in} }}; }}"
        );
        self.nft(&rules);
    }

    /// Lifts [`cut`](Self::cut).
    ///
    /// # Panics
    /// When `nft` fails.
    pub fn heal(&self) {
        self.nft("delete table inet cut");
    }

    fn nft(&self, rules: &str) {
        let out = Command::new("ip")
            .args(["netns", "exec", &self.name, "nft", rules])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "nft: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

impl Drop for Namespace {
    fn drop(&mut self) {
        // The pair goes with its host end at once; with the namespace only once the kernel
        // frees it, which may be later than the next namespace of this slot is made.
        let _ = Command::new("ip")
            .args(["link", "del", &self.link])
            .output();
        let _ = Command::new("ip")
            .args(["netns", "del", &self.name])
            .output();
        let mut slots = SLOTS.lock().unwrap_or_else(PoisonError::into_inner);
        slots[usize::from(self.slot)] = false;
        SLOT_FREED.notify_one();
    }
}
