//! What `status` and `proxies` report: the device's counters and drops, the link's drops
//! (source checks, rate limits, the PSK trailer, the kernel's buffer overflows), the receive
//! buffers and the proxy table.

use std::collections::BTreeMap;

use tracing::warn;
use uiap_control::{
    AuthFailureView, ErrorKind, InterfaceView, ProxyView, Response, SpaceText, StatusView,
};

use super::{Daemon, now_since};

impl Daemon {
    pub(super) fn status(&self) -> StatusView {
        let c = self.device.counters();
        let link = self.link.counts();
        let counters: BTreeMap<String, u64> = [
            ("datagrams_received", c.datagrams_received),
            ("attempts_received", c.attempts_received),
            ("denies_received", c.denies_received),
            ("floods_originated", c.floods_originated),
            ("attempts_sent", c.attempts_sent),
            ("denies_sent", c.denies_sent),
            ("denies_for_drops", c.denies_for_drops),
            ("attempts_forwarded", c.attempts_forwarded),
            ("denies_forwarded", c.denies_forwarded),
            ("notices_originated", c.notices_originated),
            ("notices_received", c.notices_received),
            ("notices_forwarded", c.notices_forwarded),
            ("notices_not_forwarded", c.notices_not_forwarded),
            ("proxy_denies", c.proxy_denies),
            ("hop_limit_exhausted", c.hop_limit_exhausted),
            ("late_conflicts", c.late_conflicts),
            ("device_id_collisions", c.device_id_collisions),
            ("table_evictions", c.table_evictions),
            ("proxies_recorded", c.proxies_recorded),
            ("proxy_refused_wide", c.proxy_refused_wide),
            ("proxy_refused_share", c.proxy_refused_share),
            ("proxy_table_full", c.proxy_table_full),
            ("proxies_flushed", c.proxies_flushed),
            ("send_errors", link.send_errors),
            ("persist_failures", self.claims.persist_failures()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        let mut drops: BTreeMap<String, u64> = link
            .drops
            .iter()
            .map(|(k, v)| (k.as_str().to_owned(), *v))
            .collect();
        for (k, v) in c.drops() {
            *drops.entry(k.as_str().to_owned()).or_insert(0) += v;
        }
        // Denies the gate did not send (D79).
        if self.unicast.unsent() > 0 {
            drops.insert("denies_unsent".to_owned(), self.unicast.unsent());
        }
        // The kernel's own drops (receive buffer full), seen through SO_RXQ_OVFL.
        for (k, v) in [
            ("socket_overflow_claim", link.kernel_drops.0),
            ("socket_overflow_reply", link.kernel_drops.1),
        ] {
            if v > 0 {
                drops.insert(k.to_owned(), u64::from(v));
            }
        }
        let interfaces = self.interfaces.views();
        StatusView {
            auth_failures: self.auth_failure_views(&interfaces),
            device_id: self.device.device_id().to_string(),
            interfaces,
            claims: self.claims.len(),
            counters,
            drops,
            receive_buffers: [
                ("claim".to_owned(), link.receive_buffers.0 as u64),
                ("reply".to_owned(), link.receive_buffers.1 as u64),
            ]
            .into(),
            proxies: self.proxy_views(),
            lease_liveness_ms: Some(
                u64::try_from(self.config.lease_liveness.as_millis()).unwrap_or(u64::MAX),
            ),
        }
    }

    /// `proxies`: the proxy table, then with `flush` (root only) forgotten
    /// (docs/uiap-design.md D43).
    pub(super) fn proxies(&mut self, flush: bool, uid: u32) -> Response {
        if flush && uid != 0 {
            return Response::error(
                ErrorKind::Request,
                "proxies: only root may flush the proxy table",
            );
        }
        let proxies = self.proxy_views();
        let flushed = flush.then(|| self.device.flush_proxies());
        if let Some(n) = flushed {
            warn!(n, uid, "proxy table flushed");
        }
        Response::Proxies { proxies, flushed }
    }

    /// The neighbours whose datagrams failed authentication, most recent first
    /// (docs/uiap-design.md D62).
    fn auth_failure_views(&self, interfaces: &[InterfaceView]) -> Vec<AuthFailureView> {
        let now = self.start.elapsed();
        let mut views: Vec<(std::time::Duration, AuthFailureView)> = self
            .link
            .failures()
            .sources()
            .map(|(&(index, addr), f)| {
                let interface = interfaces
                    .iter()
                    .find(|i| i.index == index)
                    .map_or_else(|| index.to_string(), |i| i.name.clone());
                let reasons = f
                    .reasons
                    .iter()
                    .map(|(r, n)| (r.as_str().to_owned(), *n))
                    .collect();
                let view = AuthFailureView {
                    interface,
                    address: addr.to_string(),
                    reasons,
                    last_seen_s: now.saturating_sub(f.last).as_secs(),
                };
                (f.last, view)
            })
            .collect();
        views.sort_by_key(|v| std::cmp::Reverse(v.0));
        views.into_iter().map(|(_, v)| v).collect()
    }

    fn proxy_views(&self) -> Vec<ProxyView> {
        let now = now_since(self.start);
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
