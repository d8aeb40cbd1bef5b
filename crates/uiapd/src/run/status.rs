//! What `status` and `proxies` report: the device's counters and drops, the daemon's own drops
//! (source checks, rate limits, the kernel's buffer overflows), the receive buffers and the proxy
//! table.

use std::collections::BTreeMap;

use super::Daemon;
use crate::control::{InterfaceView, ProxyView, SpaceText, StatusView};

impl Daemon {
    pub(super) fn status(&self) -> StatusView {
        let c = self.device.counters();
        let counters: BTreeMap<String, u64> = [
            ("datagrams_received", c.datagrams_received),
            ("attempts_received", c.attempts_received),
            ("denies_received", c.denies_received),
            ("floods_originated", c.floods_originated),
            ("attempts_sent", c.attempts_sent),
            ("denies_sent", c.denies_sent),
            ("attempts_forwarded", c.attempts_forwarded),
            ("denies_forwarded", c.denies_forwarded),
            ("proxy_denies", c.proxy_denies),
            ("hop_limit_exhausted", c.hop_limit_exhausted),
            ("late_conflicts", c.late_conflicts),
            ("device_id_collisions", c.device_id_collisions),
            ("table_evictions", c.table_evictions),
            ("proxies_recorded", c.proxies_recorded),
            ("proxy_refused_wide", c.proxy_refused_wide),
            ("proxy_table_full", c.proxy_table_full),
            ("proxies_flushed", c.proxies_flushed),
            ("send_errors", self.send_errors),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        let mut drops: BTreeMap<String, u64> = self
            .drops
            .iter()
            .map(|(k, v)| (k.as_str().to_owned(), *v))
            .collect();
        for (k, v) in c.drops() {
            *drops.entry(k.as_str().to_owned()).or_insert(0) += v;
        }
        // The kernel's own drops (receive buffer full), seen through SO_RXQ_OVFL.
        for (k, v) in [
            ("socket_overflow_claim", self.kernel_drops.0),
            ("socket_overflow_reply", self.kernel_drops.1),
        ] {
            if v > 0 {
                drops.insert(k.to_owned(), u64::from(v));
            }
        }
        StatusView {
            device_id: self.device.device_id().to_string(),
            interfaces: self
                .interfaces
                .iter()
                .map(|i| InterfaceView {
                    index: i.index,
                    name: i.name.clone(),
                    link_local: i.link_local.to_string(),
                })
                .collect(),
            claims: self.claims.len(),
            counters,
            drops,
            receive_buffers: [
                ("claim".to_owned(), self.receive_buffers.0 as u64),
                ("reply".to_owned(), self.receive_buffers.1 as u64),
            ]
            .into(),
            proxies: self.proxy_views(),
        }
    }

    pub(super) fn proxy_views(&self) -> Vec<ProxyView> {
        let now = self.now();
        self.device
            .proxies(now)
            .map(|p| ProxyView {
                origin: p.origin.to_string(),
                domain: p.domain.to_string(),
                space: SpaceText::from_space(&p.space),
                expires_in: (p.expires - now).as_secs(),
            })
            .collect()
    }
}
