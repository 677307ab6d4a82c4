//! The drive's temperature beside a run: the poll started before the measurement and its series
//! put into the record after it (continuing a resumed run's series after the part measured before).

use drivescope_probe::identity::Node;
use drivescope_probe::temperature::{self, TemperatureError};
use drivescope_probe::temperature_poll::{Poller, MIN_INTERVAL};
use drivescope_probe::{Identity, Roots};
use drivescope_record::TemperatureSeries;

/// A poll of the target's drive, or none for the null target (no drive to speak of).
pub fn watch(device: Option<&Identity>) -> Option<Poller> {
    let source = match device {
        Some(id) if matches!(id.layers.first().map(|l| &l.node), Some(Node::Null)) => return None,
        Some(id) => temperature::source(id, &Roots::default()),
        None => Err(TemperatureError::NoSource(
            "the target could not be identified".into(),
        )),
    };
    Some(Poller::start(source, MIN_INTERVAL))
}

/// The series the poll gathered, after `before` (a resumed run's, whose measured part ended at
/// `before_s`) when there is one.
pub fn series(
    poll: Option<Poller>,
    before: Option<TemperatureSeries>,
    before_s: f64,
) -> Option<TemperatureSeries> {
    let now: Option<TemperatureSeries> = poll.map(|p| p.finish().into());
    match (before, now) {
        (Some(mut b), Some(n)) => {
            b.extend_after(n, before_s);
            Some(b)
        }
        (b, n) => n.or(b),
    }
}
