//! The liveness window a site lease keeps: its own, or the shorter one its daemon allows
//! (docs/uiap-design.md D73).

use std::time::Duration;

use uiap_control::{Client, ControlErrorKind, Request, Response};

use super::LeaseConfig;
use super::lease::lease_error;
use crate::{LeaseError, LeaseErrorKind};

/// `config` with the liveness window its daemon allows: the daemon's `lease-liveness-ms`, when
/// shorter, with the margin shortened to that window's default margin if that is less
/// (docs/uiap-design.md D73). A daemon that says nothing of it (zero: no lease relies on its
/// claim windows; absent: an older daemon) leaves the lease's own.
pub(super) fn site_window(config: &LeaseConfig) -> Result<LeaseConfig, LeaseError> {
    let uiapd = Client::new(&config.control);
    let answer = uiapd
        .call_within(&Request::Status, config.answer_limit, &mut |_| {})
        .map_err(|e| match e.kind() {
            ControlErrorKind::Timeout => LeaseError::new(
                LeaseErrorKind::Timeout,
                format!(
                    "uiapd did not answer within {} s when asked for the site leases' liveness \
                     window: giving up",
                    config.answer_limit.unwrap_or_default().as_secs_f64()
                ),
            ),
            _ => lease_error(&uiapd, &e),
        })?;
    let site = match answer {
        Response::Status(status) => status.lease_liveness_ms.unwrap_or(0),
        _ => 0,
    };
    let site = Duration::from_millis(site);
    if site.is_zero() || site >= config.liveness {
        return Ok(config.clone());
    }
    let margin = config.margin.min(crate::default_margin(site));
    if site <= margin {
        return Err(LeaseError::new(
            LeaseErrorKind::Config,
            format!(
                "lease liveness: uiapd's lease-liveness-ms ({site:?}) is not longer than the \
                 margin ({margin:?})"
            ),
        ));
    }
    Ok(LeaseConfig {
        liveness: site,
        margin,
        ..config.clone()
    })
}
