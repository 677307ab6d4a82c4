//! A shared bus: one link (an HBA, a USB hub, a port multiplier) that several emulated disks
//! served by one process cross, so that together they cannot move more than its rate.
//!
//! Every data transfer of every device on the bus (reads and writes, cache hits included;
//! failed commands move no data) also occupies the bus for `bytes / rate`. The bus keeps a
//! calendar of the stretches of virtual time it is busy ([`BusCalendar`]): a transfer that may
//! begin at `t` takes the earliest idle bus time from `t` on, in as many pieces as it needs (a
//! link interleaves frames of several devices), and the command completes no earlier than the
//! moment its last byte has crossed. So one device alone streams at `min(its own rate, the bus
//! rate)`, and the aggregate of all devices never exceeds the bus rate.
//!
//! Devices on one bus share its epoch ([`Bus::epoch`]): their virtual clocks count from the same
//! instant, so their reservations fall on one time line.

use crate::timing::xfer_ns;
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Instant;

/// How far behind the latest reservation the calendar remembers busy time (ns), beyond the
/// longest lookahead of its devices. No transfer begins that far back: a command's transfer
/// begins at its arrival at the earliest, or (gap bridging) at most the model's lookahead
/// before it.
pub const MEMORY_NS: u64 = 1_000_000_000;

/// Where a transfer on the bus ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Carried {
    /// When its last byte crossed the bus, ns since the bus's epoch.
    pub done_ns: u64,
    /// Other devices' transfers held the bus when this one could have begun or while it ran:
    /// it ended later than `bytes / rate` after `at` or after the device's own previous
    /// transfer, whichever is later.
    pub waited: bool,
}

/// The bus's busy time in virtual nanoseconds: pure bookkeeping, no clock and no lock.
#[derive(Debug, Clone)]
pub struct BusCalendar {
    rate_mb_s: f64,
    /// Busy stretches, start → end: disjoint, and merged where they touch.
    busy: BTreeMap<u64, u64>,
    /// The latest `at` seen (what the calendar may forget is measured from it).
    latest: u64,
    /// How far behind `latest` busy time is remembered.
    memory_ns: u64,
}

impl BusCalendar {
    /// An idle bus of `rate_mb_s` MB/s (10^6 B/s).
    pub fn new(rate_mb_s: f64) -> Self {
        BusCalendar {
            rate_mb_s,
            busy: BTreeMap::new(),
            latest: 0,
            memory_ns: MEMORY_NS,
        }
    }

    /// A device whose transfers may begin up to `lookahead_ns` before its commands arrive (gap
    /// bridging) uses the bus: remember busy time that far back too.
    pub fn reach_back(&mut self, lookahead_ns: u64) {
        self.memory_ns = self.memory_ns.max(lookahead_ns.saturating_add(MEMORY_NS));
    }

    /// The bus rate, MB/s.
    pub fn rate_mb_s(&self) -> f64 {
        self.rate_mb_s
    }

    /// Carry `len` bytes that may begin crossing at `at`: they take the earliest idle bus time
    /// from `at` on, in pieces where other transfers hold the bus. `own_end` is when the same
    /// device's previous transfer ended (waiting for that is no wait for others).
    pub fn reserve(&mut self, at: u64, len: u64, own_end: u64) -> Carried {
        let need = xfer_ns(len, self.rate_mb_s).round() as u64;
        self.latest = self.latest.max(at);
        self.forget_before(self.latest.saturating_sub(self.memory_ns));
        if need == 0 {
            return Carried {
                done_ns: at,
                waited: false,
            };
        }
        let mut pos = at;
        let mut left = need;
        // A stretch that began before `at` and is still busy then pushes the start out.
        if let Some((_, &end)) = self.busy.range(..=pos).next_back() {
            pos = pos.max(end);
        }
        loop {
            let next = self.busy.range(pos..).next().map(|(&s, &e)| (s, e));
            match next {
                Some((s, e)) if s - pos < left => {
                    if s > pos {
                        left -= s - pos;
                        self.occupy(pos, s);
                    }
                    pos = e;
                }
                _ => {
                    self.occupy(pos, pos + left);
                    let done_ns = pos + left;
                    return Carried {
                        done_ns,
                        waited: done_ns > at.max(own_end) + need,
                    };
                }
            }
        }
    }

    /// Mark `[start, end)` busy (it was idle), merging with the stretches it touches.
    fn occupy(&mut self, mut start: u64, mut end: u64) {
        if let Some((&s, &e)) = self.busy.range(..=start).next_back() {
            if e >= start {
                start = s;
                end = end.max(e);
                self.busy.remove(&s);
            }
        }
        if let Some((&s, &e)) = self.busy.range(start..).next() {
            if s <= end {
                end = end.max(e);
                self.busy.remove(&s);
            }
        }
        self.busy.insert(start, end);
    }

    /// Drop the stretches that ended before `t`.
    fn forget_before(&mut self, t: u64) {
        while let Some((&s, &e)) = self.busy.first_key_value() {
            if e >= t {
                break;
            }
            self.busy.remove(&s);
        }
    }

    /// Busy nanoseconds in `[from, to)` (what the calendar still remembers).
    pub fn busy_ns(&self, from: u64, to: u64) -> u64 {
        self.busy
            .iter()
            .map(|(&s, &e)| e.min(to).saturating_sub(s.max(from)))
            .sum()
    }
}

/// What a bus has carried so far.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct BusStats {
    pub rate_mb_per_s: f64,
    /// Devices that joined the bus.
    pub devices: u64,
    /// Transfers carried (commands that moved data).
    pub transfers: u64,
    pub bytes: u64,
    /// Transfers that other devices' transfers held up.
    pub waited: u64,
}

/// A shared bus that several [`crate::LabDevice`]s cross (see the module documentation).
/// Create one with [`Bus::new`] and pass it to [`crate::LabDevice::start_on`].
#[derive(Debug)]
pub struct Bus {
    epoch: Instant,
    state: Mutex<(BusCalendar, BusStats)>,
}

impl Bus {
    /// A bus of `rate_mb_s` MB/s (10^6 B/s), its epoch now. The rate must be finite and
    /// positive.
    pub fn new(rate_mb_s: f64) -> Result<std::sync::Arc<Bus>, crate::LabError> {
        if !(rate_mb_s.is_finite() && rate_mb_s > 0.0) {
            return Err(crate::LabError::Bus(format!(
                "rate must be a positive number of MB/s, not {rate_mb_s}"
            )));
        }
        Ok(std::sync::Arc::new(Bus {
            epoch: Instant::now(),
            state: Mutex::new((
                BusCalendar::new(rate_mb_s),
                BusStats {
                    rate_mb_per_s: rate_mb_s,
                    ..BusStats::default()
                },
            )),
        }))
    }

    /// The bus rate, MB/s.
    pub fn rate_mb_s(&self) -> f64 {
        self.state.lock().expect("bus").0.rate_mb_s()
    }

    /// The instant the virtual clocks of all devices on this bus count from.
    pub fn epoch(&self) -> Instant {
        self.epoch
    }

    /// Carry `len` bytes of one device's command that may begin crossing at `at` (ns since
    /// [`Bus::epoch`]); `own_end`: when that device's previous transfer ended.
    pub fn carry(&self, at: u64, len: u64, own_end: u64) -> Carried {
        let mut s = self.state.lock().expect("bus");
        let c = s.0.reserve(at, len, own_end);
        s.1.transfers += 1;
        s.1.bytes += len;
        s.1.waited += u64::from(c.waited);
        c
    }

    /// A device joins the bus; its transfers may begin up to `lookahead_ns` before its
    /// commands arrive.
    pub(crate) fn attach(&self, lookahead_ns: u64) {
        let mut s = self.state.lock().expect("bus");
        s.0.reach_back(lookahead_ns);
        s.1.devices += 1;
    }

    /// What the bus has carried so far.
    pub fn stats(&self) -> BusStats {
        self.state.lock().expect("bus").1.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MB: u64 = 1_000_000;

    #[test]
    fn an_idle_bus_carries_at_its_rate() {
        let mut c = BusCalendar::new(100.0);
        // 1 MB at 100 MB/s: 10 ms.
        let r = c.reserve(5_000, MB, 0);
        assert_eq!(r.done_ns, 5_000 + 10_000_000);
        assert!(!r.waited);
        assert_eq!(c.busy_ns(0, u64::MAX), 10_000_000);
    }

    #[test]
    fn a_busy_bus_makes_the_next_transfer_wait() {
        let mut c = BusCalendar::new(100.0);
        c.reserve(0, MB, 0);
        let r = c.reserve(2_000_000, MB, 0);
        assert_eq!(r.done_ns, 20_000_000);
        assert!(r.waited);
        // The same device's own previous transfer is no wait for others.
        let r = c.reserve(15_000_000, MB, 20_000_000);
        assert_eq!((r.done_ns, r.waited), (30_000_000, false));
        // Merged into one busy stretch.
        assert_eq!(c.busy.len(), 1);
        assert_eq!(c.busy_ns(0, u64::MAX), 30_000_000);
    }

    #[test]
    fn a_transfer_fills_idle_gaps_in_pieces() {
        let mut c = BusCalendar::new(100.0);
        c.reserve(0, MB, 0); // [0, 10 ms)
        c.reserve(15_000_000, MB, 0); // [15, 25 ms)
                                      // 1 MB from 2 ms: 8 ms waiting, then 5 ms in the gap, then 5 ms after 25 ms.
        let r = c.reserve(2_000_000, MB, 0);
        assert_eq!(r.done_ns, 30_000_000);
        assert!(r.waited);
        assert_eq!(c.busy_ns(0, u64::MAX), 30_000_000);
        // A transfer that fits in a gap before later reservations ends in that gap.
        let mut c = BusCalendar::new(100.0);
        c.reserve(50_000_000, MB, 0);
        let r = c.reserve(0, MB, 0);
        assert_eq!((r.done_ns, r.waited), (10_000_000, false));
    }

    #[test]
    fn old_busy_time_is_forgotten() {
        let mut c = BusCalendar::new(100.0);
        for i in 0..1000u64 {
            c.reserve(i * 20_000_000, MB, 0);
        }
        // 20 s of transfers, 10 ms each, 10 ms apart: only the last second is kept.
        assert!(c.busy.len() <= 51, "{}", c.busy.len());
        // A device that bridges gaps of up to 2 s makes the bus remember 3 s.
        let mut c = BusCalendar::new(100.0);
        c.reach_back(2_000_000_000);
        for i in 0..1000u64 {
            c.reserve(i * 20_000_000, MB, 0);
        }
        assert!((150..=151).contains(&c.busy.len()), "{}", c.busy.len());
    }

    /// `n` devices of a flat `mb_s` model, on `bus` (when given), each read by one QD1 stream of
    /// 1 MiB sequential commands with a 200 µs host round trip, for 3 s of virtual time,
    /// arrivals taken in time order. MB/s of each device, and the commands others held up.
    fn streams(n: usize, mb_s: f64, bus: Option<f64>) -> (Vec<f64>, u64) {
        use crate::timing::{Op, Timeline};
        let text = format!("name='flat'\nsize='256M'\nzones={{rates_mb_s=[{mb_s}]}}");
        let model = crate::Model::from_toml_str(&text, "test").unwrap();
        let bus = bus.map(|r| Bus::new(r).unwrap());
        let mut devs: Vec<Timeline> = (0..n)
            .map(|_| match &bus {
                Some(b) => Timeline::on_bus(&model, b.clone()),
                None => Timeline::new(&model),
            })
            .collect();
        let (bs, end, rtt) = (1u64 << 20, 3_000_000_000u64, 200_000u64);
        let mut next = vec![0u64; n];
        let mut pos = vec![0u64; n];
        let mut bytes = vec![0u64; n];
        loop {
            let i = (0..n).min_by_key(|&i| next[i]).unwrap();
            if next[i] >= end {
                break;
            }
            let o = devs[i].schedule(Op::Read, pos[i] % model.size, bs, next[i]);
            if o.done_ns <= end {
                bytes[i] += bs;
            }
            pos[i] += bs;
            next[i] = o.done_ns + rtt;
        }
        let rates = bytes.iter().map(|b| *b as f64 * 1e3 / end as f64).collect();
        (rates, devs.iter().map(|d| d.bus_waits()).sum())
    }

    #[test]
    fn four_streams_share_the_bus_one_alone_runs_at_its_own_rate() {
        let within = |got: f64, want: f64| (got / want - 1.0).abs() < 0.01;
        let (each, waits) = streams(4, 60.0, Some(120.0));
        let sum: f64 = each.iter().sum();
        assert!(within(sum, 120.0), "{each:?}");
        assert!(waits > 0);
        // Shared fairly: each gets a quarter.
        assert!(each.iter().all(|r| within(*r, 30.0)), "{each:?}");
        let (alone, waits) = streams(1, 60.0, Some(120.0));
        assert!(within(alone[0], 60.0), "{alone:?}");
        assert_eq!(waits, 0);
        // Without a bus the four add up.
        let free: f64 = streams(4, 60.0, None).0.iter().sum();
        assert!(within(free, 240.0), "{free}");
        // A device faster than the bus is held to the bus rate, alone too.
        let (fast, waits) = streams(1, 200.0, Some(120.0));
        assert!(within(fast[0], 120.0), "{fast:?}");
        assert_eq!(waits, 0, "its own transfers hold no one up");
        // Two do not fill a bus that is faster than both together.
        let two: f64 = streams(2, 60.0, Some(150.0)).0.iter().sum();
        assert!(within(two, 120.0), "{two}");
    }

    #[test]
    fn the_bus_rejects_a_rate_that_is_not_positive() {
        assert!(Bus::new(0.0).is_err());
        assert!(Bus::new(f64::NAN).is_err());
        assert!(Bus::new(-1.0).is_err());
        let b = Bus::new(120.0).unwrap();
        assert_eq!(b.rate_mb_s(), 120.0);
        let c = b.carry(0, MB, 0);
        assert_eq!(c.done_ns, 8_333_333);
        assert_eq!(b.stats().bytes, MB);
    }
}
