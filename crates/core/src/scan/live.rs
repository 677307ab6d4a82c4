//! What a live view of a running scan reads: a coarse transfer curve over the range, the
//! response-time bands and the latency histogram (the record's own buckets, so its percentiles
//! are the record's), all in fixed arrays of atomics that the scan thread (the only writer)
//! updates with relaxed stores as each command completes. Nothing is locked, nothing grows; a
//! reader on another thread takes a [`Snapshot`] when it redraws.

use drivescope_stats::{AtomicHistogram, Bands, Histogram, BAND_LIMITS_NS};
use std::sync::atomic::{AtomicU64, Ordering};

/// Position bins of the live curve (a view draws at most this many columns).
pub const LIVE_BINS: usize = 512;
/// Response-time bands: the 8 timed ones of `drivescope_stats::Bands`, then failed.
pub const BANDS: usize = BAND_LIMITS_NS.len() + 2;

#[derive(Debug, Default)]
struct Bin {
    bytes: AtomicU64,
    /// Issue time of the bin's first command and completion of its last (the run's clock).
    first_ns: AtomicU64,
    last_ns: AtomicU64,
    slow: AtomicU64,
    failed: AtomicU64,
    /// Bytes and latency of commands out of the range's order (a full scan's later passes).
    unpaced_bytes: AtomicU64,
    unpaced_ns: AtomicU64,
}

/// A completed command as the live view counts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Done {
    /// Where it began, bytes into the device.
    pub offset: u64,
    /// Bytes moved; `None`: it failed.
    pub bytes: Option<u64>,
    /// When it was issued and when it completed, ns on the run's clock.
    pub issue_ns: u64,
    pub done_ns: u64,
    /// Its latency from its submission.
    pub latency_ns: u64,
    /// It took at least the scan's slow threshold.
    pub slow: bool,
    /// It belongs to the range's order (a first pass), so its time counts towards its bin's rate.
    pub paced: bool,
}

/// The live counters of one scan over `[start, start + length)`.
#[derive(Debug)]
pub struct Live {
    pub start: u64,
    pub length: u64,
    pub sector: u64,
    bins: Box<[Bin]>,
    bands: [AtomicU64; BANDS],
    /// Completion latency of the successful commands, as the record's histogram counts it.
    lat: AtomicHistogram,
    /// The writer's last bin: its offsets `[lo, hi)` and index. A scan's next command mostly
    /// falls in it, which spares a 128-bit division per command.
    last: [AtomicU64; 3],
}

/// One bin as read.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct BinSnap {
    pub bytes: u64,
    /// Busy span: first issue to last completion.
    pub busy_ns: u64,
    pub slow: u64,
    pub failed: u64,
    /// Bytes and summed latency of commands out of order, which give the rate of a bin
    /// that has no others.
    pub unpaced_bytes: u64,
    pub unpaced_ns: u64,
}

impl BinSnap {
    /// MB/s (10^6 B/s) over the bin's busy span, when it has one.
    pub fn mb_s(&self) -> Option<f64> {
        let (bytes, ns) = if self.bytes > 0 {
            (self.bytes, self.busy_ns)
        } else {
            (self.unpaced_bytes, self.unpaced_ns)
        };
        (bytes > 0 && ns > 0).then(|| bytes as f64 * 1e3 / ns as f64)
    }
}

/// A copy of the live counters at one moment.
#[derive(Debug, Clone)]
pub struct Snapshot {
    pub start: u64,
    pub length: u64,
    pub sector: u64,
    pub bins: Vec<BinSnap>,
    /// Counts per band, [`BANDS`] of them (the last is failed).
    pub bands: [u64; BANDS],
    /// Latencies of the successful commands so far.
    pub lat: Histogram,
}

/// Band of a completed command's latency.
#[inline]
fn band(ns: u64) -> usize {
    BAND_LIMITS_NS
        .iter()
        .position(|&l| ns < l)
        .unwrap_or(BAND_LIMITS_NS.len())
}

/// One more on a counter only this thread writes: a load and a store, no locked add.
#[inline]
fn bump(a: &AtomicU64) {
    a.store(a.load(Ordering::Relaxed).wrapping_add(1), Ordering::Relaxed);
}

impl Live {
    pub fn new(start: u64, length: u64, sector: u64) -> Live {
        Live {
            start,
            length,
            sector: sector.max(1),
            bins: (0..LIVE_BINS).map(|_| Bin::default()).collect(),
            bands: Default::default(),
            lat: AtomicHistogram::new(),
            last: Default::default(),
        }
    }

    /// The bin of `offset` (by the writer: it remembers the bin for the next command).
    #[inline]
    fn bin(&self, offset: u64) -> Option<&Bin> {
        let [lo, hi, i] = &self.last;
        if offset >= lo.load(Ordering::Relaxed) && offset < hi.load(Ordering::Relaxed) {
            return self.bins.get(i.load(Ordering::Relaxed) as usize);
        }
        self.find_bin(offset)
    }

    #[cold]
    fn find_bin(&self, offset: u64) -> Option<&Bin> {
        let rel = offset.checked_sub(self.start)?;
        if rel >= self.length {
            return None;
        }
        let (n, len) = (LIVE_BINS as u128, self.length as u128);
        let i = rel as u128 * n / len;
        // Offsets of bin i: those with i * len <= rel * n < (i + 1) * len.
        let edge = |k: u128| self.start + (k * len).div_ceil(n) as u64;
        let [lo, hi, at] = &self.last;
        lo.store(edge(i), Ordering::Relaxed);
        hi.store(edge(i + 1), Ordering::Relaxed);
        at.store(i as u64, Ordering::Relaxed);
        self.bins.get(i as usize)
    }

    /// A command over the range completed: counts it by position ([`Live::position`]) and in
    /// the bands and latencies, for a writer that keeps no histogram of its own.
    #[inline]
    pub fn command(&self, done: Done) {
        self.position(done);
        let Done {
            bytes, latency_ns, ..
        } = done;
        match bytes {
            Some(_) => {
                bump(&self.bands[band(latency_ns)]);
                self.lat.record(latency_ns);
            }
            None => bump(&self.bands[BANDS - 1]),
        }
    }

    /// A command counted by position only (its bin's bytes, busy span, slow and failed marks):
    /// a writer that keeps its own histogram and bands [`Live::publish`]es them now and then.
    #[inline]
    pub fn position(&self, done: Done) {
        let Done {
            offset,
            bytes,
            issue_ns,
            done_ns,
            latency_ns,
            slow,
            paced,
        } = done;
        let Some(b) = self.bin(offset) else { return };
        match bytes {
            Some(n) => {
                if paced {
                    b.bytes
                        .store(b.bytes.load(Ordering::Relaxed) + n, Ordering::Relaxed);
                    if b.first_ns.load(Ordering::Relaxed) == 0 {
                        b.first_ns.store(issue_ns.max(1), Ordering::Relaxed);
                    }
                    b.last_ns.store(done_ns, Ordering::Relaxed);
                } else {
                    let add = |a: &AtomicU64, v: u64| {
                        a.store(a.load(Ordering::Relaxed) + v, Ordering::Relaxed)
                    };
                    add(&b.unpaced_bytes, n);
                    add(&b.unpaced_ns, latency_ns);
                }
                if slow {
                    bump(&b.slow);
                }
            }
            None => bump(&b.failed),
        }
    }

    /// The writer's own latency histogram and bands, as they are now.
    pub fn publish(&self, hist: &Histogram, bands: &Bands) {
        self.lat.set_from(hist);
        for (a, n) in self.bands.iter().zip(bands.counts()) {
            a.store(n, Ordering::Relaxed);
        }
    }

    pub fn snapshot(&self) -> Snapshot {
        let r = |a: &AtomicU64| a.load(Ordering::Relaxed);
        Snapshot {
            start: self.start,
            length: self.length,
            sector: self.sector,
            bins: self
                .bins
                .iter()
                .map(|b| {
                    let (first, last) = (r(&b.first_ns), r(&b.last_ns));
                    BinSnap {
                        bytes: r(&b.bytes),
                        busy_ns: if first > 0 {
                            last.saturating_sub(first)
                        } else {
                            0
                        },
                        slow: r(&b.slow),
                        failed: r(&b.failed),
                        unpaced_bytes: r(&b.unpaced_bytes),
                        unpaced_ns: r(&b.unpaced_ns),
                    }
                })
                .collect(),
            bands: std::array::from_fn(|i| r(&self.bands[i])),
            lat: self.lat.snapshot(),
        }
    }
}

impl Snapshot {
    /// The latency at quantile `q` (0..1) of the successful commands so far, as the record
    /// gives it for the same commands; `None` before any.
    pub fn quantile_ns(&self, q: f64) -> Option<u64> {
        (self.lat.count() > 0).then(|| self.lat.quantile(q))
    }

    /// Bin `i`'s share of the range: `[offset, end)`.
    pub fn bin_range(&self, i: usize) -> (u64, u64) {
        let n = self.bins.len().max(1) as u128;
        let at = |k: usize| self.start + (k as u128 * self.length as u128 / n) as u64;
        (at(i), at(i + 1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_remembered_bin_is_the_one_the_offset_falls_in() {
        // A length that no bin count divides, walked in order and out of it.
        let (start, length) = (7 * 512, 300_000_007);
        let l = Live::new(start, length, 512);
        let want = |off: u64| ((off - start) as u128 * LIVE_BINS as u128 / length as u128) as usize;
        let index =
            |b: &Bin| (b as *const Bin as usize - l.bins.as_ptr() as usize) / size_of::<Bin>();
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let ordered = (start..start + length).step_by(4096 * 3 + 512);
        let scattered = (0..20_000).map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            start + x % length
        });
        for off in ordered.chain(scattered) {
            assert_eq!(index(l.bin(off).unwrap()), want(off), "offset {off}");
            // the bin's neighbours on either side of its edges
            for o in [off.saturating_sub(1), off + 1] {
                if (start..start + length).contains(&o) {
                    assert_eq!(index(l.bin(o).unwrap()), want(o), "offset {o}");
                }
            }
        }
        // Each edge, entered from above: the offset before it is in the bin before.
        for k in 1..LIVE_BINS as u128 {
            let e = start + (k * length as u128).div_ceil(LIVE_BINS as u128) as u64;
            assert_eq!(index(l.bin(e).unwrap()), k as usize);
            assert_eq!(index(l.bin(e - 1).unwrap()), k as usize - 1);
            assert_eq!(index(l.bin(e).unwrap()), k as usize);
        }
        assert!(l.bin(start - 1).is_none() && l.bin(start + length).is_none());
    }

    #[test]
    fn commands_land_in_their_bins_bands_and_quantiles() {
        let l = Live::new(4096, 512 * 1_000_000, 512);
        // 1 MB per bin in 10 ms: 100 MB/s, 1 ms each.
        for k in 0..10u64 {
            let off = 4096 + k * 100_000;
            l.command(Done {
                offset: off,
                bytes: Some(100_000),
                issue_ns: k * 1_000_000,
                done_ns: (k + 1) * 1_000_000,
                latency_ns: 1_000_000,
                slow: false,
                paced: true,
            });
        }
        l.command(Done {
            offset: 4096 + 300 * 1_000_000,
            bytes: Some(100_000),
            issue_ns: 0,
            done_ns: 60_000_000,
            latency_ns: 60_000_000,
            slow: true,
            paced: true,
        });
        l.command(Done {
            offset: 4096 + 511 * 1_000_000,
            bytes: None,
            issue_ns: 0,
            done_ns: 1,
            latency_ns: 1,
            slow: false,
            paced: true,
        });
        let s = l.snapshot();
        assert_eq!(s.bins[0].bytes, 1_000_000);
        assert!((s.bins[0].mb_s().unwrap() - 100.0).abs() < 1e-3);
        assert_eq!((s.bins[300].slow, s.bins[511].failed), (1, 1));
        assert_eq!(s.bands[1], 10); // <3ms
        assert_eq!(s.bands[5], 1); // <150ms
        assert_eq!(s.bands[BANDS - 1], 1);
        // 10 of 11 successful commands at 1 ms, one at 60 ms: the quantiles of a histogram of
        // those, not of the failed one.
        let mut h = drivescope_stats::Histogram::new();
        (0..10).for_each(|_| h.record(1_000_000));
        h.record(60_000_000);
        assert_eq!(s.quantile_ns(0.5), Some(h.quantile(0.5)));
        assert_eq!(s.quantile_ns(0.99), Some(h.quantile(0.99)));
        assert!(s.quantile_ns(0.99).unwrap() > 59_000_000);
        assert_eq!(s.bin_range(1), (4096 + 1_000_000, 4096 + 2_000_000));
    }
}
