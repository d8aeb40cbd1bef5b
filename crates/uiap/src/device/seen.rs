//! The message table: remembered Claim-Attempts of other devices (§4.2.2.1, docs/uiap-design.md
//! D12), and the record of our own floods (§4.2.2.3).

use std::collections::{HashMap, VecDeque};
use std::net::Ipv6Addr;

use core::time::Duration;

use super::{ClaimId, InterfaceId};
use crate::space::{DomainId, UidSpace};
use crate::time::Instant;
use crate::wire::{DeviceId, MessageId};

/// One remembered Claim-Attempt of another device.
#[derive(Clone, Debug)]
pub(crate) struct Record {
    /// The interface the first copy arrived on.
    pub first_interface: InterfaceId,
    /// The link-local address of the neighbour that sent the first copy.
    pub previous_hop: Ipv6Addr,
    pub expires: Instant,
    /// A Claim-Deny was sent or forwarded for this Attempt.
    pub deny_sent: bool,
    pub domain: DomainId,
    pub space: UidSpace,
}

/// A bounded map from message ID to [`Record`], expiring `ttl` after the last copy.
///
/// Expiry is lazy: expired records are treated as absent by [`get_mut`](Self::get_mut) and
/// removed by [`purge`](Self::purge), which the device calls on every input.
#[derive(Debug)]
pub(crate) struct MessageTable {
    map: HashMap<MessageId, Record>,
    /// (expiry, id) in insertion order; expiries are non-decreasing because `ttl` is constant
    /// and time is monotonic. Entries whose expiry no longer matches the record are stale.
    queue: VecDeque<(Instant, MessageId)>,
    capacity: usize,
    ttl: Duration,
    /// Records whose last copy arrived less than this long ago are evicted only to make room for
    /// another neighbour's Attempt, and only from the neighbour with the most records.
    protect: Duration,
    /// How many records each neighbour (arrival interface, previous hop) has.
    per_hop: HashMap<(InterfaceId, Ipv6Addr), usize>,
}

/// [`MessageTable::insert`] found the table full of protected records.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct TableFull;

impl MessageTable {
    /// `protect`: how long after its last copy a record may still be needed to route a Deny
    /// back (the claim window); younger records are never evicted (docs/uiap-design.md D44).
    pub fn new(capacity: usize, ttl: Duration, protect: Duration) -> MessageTable {
        MessageTable {
            map: HashMap::new(),
            queue: VecDeque::new(),
            capacity: capacity.max(1),
            ttl,
            protect: protect.min(ttl),
            per_hop: HashMap::new(),
        }
    }

    fn remove(&mut self, id: &MessageId) {
        if let Some(r) = self.map.remove(id) {
            let hop = (r.first_interface, r.previous_hop);
            if let Some(n) = self.per_hop.get_mut(&hop) {
                *n -= 1;
                if *n == 0 {
                    self.per_hop.remove(&hop);
                }
            }
        }
    }

    /// The neighbour with the most records (the lowest key among equals, for determinism).
    fn heaviest(&self) -> Option<(InterfaceId, Ipv6Addr)> {
        self.per_hop
            .iter()
            .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
            .map(|(k, _)| *k)
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn purge(&mut self, now: Instant) {
        while let Some(&(at, id)) = self.queue.front() {
            if at > now {
                break;
            }
            self.queue.pop_front();
            if self.map.get(&id).is_some_and(|r| r.expires == at) {
                self.remove(&id);
            }
        }
        // Stale queue entries are bounded by the datagrams of one ttl; compact if they dominate.
        if self.queue.len() > 4 * self.capacity + 64 {
            let map = &self.map;
            self.queue
                .retain(|(at, id)| map.get(id).is_some_and(|r| r.expires == *at));
        }
    }

    pub fn get_mut(&mut self, now: Instant, id: &MessageId) -> Option<&mut Record> {
        self.map.get_mut(id).filter(|r| r.expires > now)
    }

    /// Refreshes the record's expiry (a duplicate arrived).
    pub fn refresh(&mut self, now: Instant, id: &MessageId) {
        let expires = now + self.ttl;
        if let Some(r) = self.map.get_mut(id)
            && r.expires != expires
        {
            r.expires = expires;
            self.queue.push_back((expires, *id));
        }
    }

    /// Inserts a new record (expiring `ttl` from `now`); returns how many records were evicted.
    ///
    /// When the table is full, the least recently heard record goes if it was last heard more
    /// than `protect` ago. Otherwise every record may still be needed to route a Deny back, and
    /// the neighbour with the most records pays: its least recently heard record goes to make
    /// room for another neighbour's Attempt, and its own new Attempts are refused
    /// (docs/uiap-design.md D44). One neighbour's flood thus never evicts the young records of
    /// the others.
    ///
    /// # Errors
    /// [`TableFull`] if the table is full of young records and the new one comes from the
    /// neighbour with the most records.
    pub fn insert(
        &mut self,
        now: Instant,
        id: MessageId,
        mut record: Record,
    ) -> Result<u64, TableFull> {
        let mut evicted = 0;
        while self.map.len() >= self.capacity {
            let Some(&(at, old)) = self.queue.front() else {
                break;
            };
            if self.map.get(&old).is_none_or(|r| r.expires != at) {
                self.queue.pop_front();
                continue;
            }
            // `at` is the record's last copy plus `ttl`: the queue is in the order records were
            // last heard, so the front is the oldest.
            if at + self.protect <= now + self.ttl {
                self.queue.pop_front();
                self.remove(&old);
                evicted += 1;
                continue;
            }
            let hop = (record.first_interface, record.previous_hop);
            let Some(heavy) = self.heaviest().filter(|h| *h != hop) else {
                return Err(TableFull);
            };
            let map = &self.map;
            let victim = self.queue.iter().find_map(|(at, id)| {
                map.get(id)
                    .filter(|r| r.expires == *at && (r.first_interface, r.previous_hop) == heavy)
                    .map(|_| *id)
            });
            // Its queue entry becomes stale and is skipped or compacted later.
            match victim {
                Some(v) => {
                    self.remove(&v);
                    evicted += 1;
                }
                None => return Err(TableFull),
            }
        }
        self.remove(&id);
        *self
            .per_hop
            .entry((record.first_interface, record.previous_hop))
            .or_insert(0) += 1;
        record.expires = now + self.ttl;
        self.queue.push_back((record.expires, id));
        self.map.insert(id, record);
        Ok(evicted)
    }
}

/// One Claim-Attempt flood we originated.
#[derive(Clone, Debug)]
pub(crate) struct OwnRecord {
    /// The device ID the flood carried.
    pub origin: DeviceId,
    pub claim: ClaimId,
    /// The round of the claim that sent it.
    pub round: u32,
    pub expires: Instant,
    /// A Deny for it has been received.
    pub denied: bool,
    pub domain: DomainId,
    pub space: UidSpace,
}

/// Our own floods by sequence number, kept until `expires` (at least the message ttl after the
/// end of their claim's round); never evicted early.
#[derive(Debug, Default)]
pub(crate) struct OwnFloods {
    map: HashMap<u32, OwnRecord>,
    queue: VecDeque<(Instant, u32)>,
}

impl OwnFloods {
    pub fn insert(&mut self, seq: u32, record: OwnRecord) {
        self.queue.push_back((record.expires, seq));
        self.map.insert(seq, record);
    }

    pub fn get_mut(&mut self, seq: u32) -> Option<&mut OwnRecord> {
        self.map.get_mut(&seq)
    }

    /// Whether we sent the flood (`origin`, `seq`).
    pub fn contains(&self, origin: DeviceId, seq: u32) -> bool {
        self.map.get(&seq).is_some_and(|r| r.origin == origin)
    }

    pub fn purge(&mut self, now: Instant) {
        while let Some(&(at, seq)) = self.queue.front() {
            if at > now {
                break;
            }
            self.queue.pop_front();
            if self.map.get(&seq).is_some_and(|r| r.expires == at) {
                self.map.remove(&seq);
            }
        }
    }
}
