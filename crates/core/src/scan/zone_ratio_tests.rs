//! The full scan's zone ratio on a disk whose rate falls from 200 MB/s at the outer edge to 100 MB/s inside, truth
//! known: one slow command at the start (a seek, a retry) and a host's late replies with the burst a read-ahead
//! disk then serves do not move it; the pooled bytes over time of a short end did (0.64 for 0.51).

use super::scripted_tests::{scan, target};
use super::ScanConfig;
use crate::engine::scripted::{Call, Reply, Scripted};

const MIB: u64 = 1 << 20;
const BS: u64 = 64 << 10;
/// What the device adds to every command (the host's round trip), ns.
const OVERHEAD: u64 = 84_000;

/// The media rate at `offset` of a `size`-byte disk, MB/s.
fn rate_at(offset: u64, size: u64) -> f64 {
    200.0 - 100.0 * offset as f64 / size as f64
}

/// The truth: the media rate of the last 5 % of the range over the first 5 % (bytes over media time).
fn truth(size: u64) -> f64 {
    let edge = size / 20 / BS * BS;
    let rate = |from: u64| {
        let ns: f64 = (from..from + edge)
            .step_by(BS as usize)
            .map(|o| BS as f64 * 1e3 / rate_at(o, size))
            .sum();
        edge as f64 * 1e3 / ns
    };
    rate(size - edge) / rate(0)
}

/// A read-ahead disk of `size` bytes read at QD1: it streams on at its media rate whatever the host does, so a
/// command completes when its data has come under the head (plus [`OVERHEAD`]). `slow_first` holds the first
/// command that long (a positioning, no read-ahead before it); `late` replies (by command index) are seen by the
/// host that much later while the disk reads on: the commands after them find their data read already.
fn disk(
    size: u64,
    slow_first: u64,
    late: &'static [(u64, u64)],
) -> impl FnMut(&Call) -> Reply + Send {
    // When each command's data has been read: the media time of everything before it, from the first command's end.
    let mut ready = Vec::new();
    let mut t = slow_first;
    for o in (0..size).step_by(BS as usize) {
        t += (BS as f64 * 1e3 / rate_at(o, size)) as u64;
        ready.push(t);
    }
    move |c: &Call| {
        let k = (c.offset / BS) as usize;
        let done = ready[k].max(c.at_ns + OVERHEAD);
        let extra = late
            .iter()
            .find(|(i, _)| *i as usize == k)
            .map_or(0, |(_, ns)| *ns);
        Reply::ok(done - c.at_ns + extra)
    }
}

#[test]
fn a_slow_first_command_and_late_then_burst_replies_leave_the_zone_ratio_at_the_truth() {
    static LATE: [(u64, u64); 3] = [(20, 18_700_000), (1500, 25_000_000), (4000, 12_000_000)];
    for size in [256 * MIB, 1024 * MIB] {
        let want = truth(size);
        for (what, slow_first, late) in [
            ("plain", 0, &[][..]),
            ("a slow first command", 18_700_000, &[][..]),
            ("late replies, then bursts", 0, &LATE[..]),
            ("both", 18_700_000, &LATE[..]),
        ] {
            let dev = Scripted::new(disk(size, slow_first, late)).unlogged();
            let r = scan(&dev, &target(size), &ScanConfig::default());
            let got = r.zone_ratio.unwrap();
            assert!(
                (got / want - 1.0).abs() < 0.01,
                "{} MiB, {what}: zone ratio {got:.4}, truth {want:.4}",
                size / MIB
            );
            // The whiskers: no stretch ran faster than the media at its fastest, whatever came late.
            let top = r.curve.iter().map(|p| p.max_mb_per_s).fold(0.0, f64::max);
            assert!(
                top <= 200.0 * 1.02,
                "{} MiB, {what}: {top} MB/s",
                size / MIB
            );
            let inner = r.curve.last().unwrap();
            assert!(
                inner.max_mb_per_s >= 100.0 * 0.95 && inner.min_mb_per_s <= inner.max_mb_per_s,
                "{what}: {inner:?}"
            );
        }
    }
}
