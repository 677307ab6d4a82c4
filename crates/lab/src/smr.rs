//! A drive-managed SMR (shingled) disk: its media cache, band cleaning and idle drain.
//!
//! A DM-SMR drive cannot rewrite a shingled band in place, so it takes every write that does not
//! continue a sequential stream into a persistent media cache (a conventional region written as a
//! log): fast, with no positioning, while there is room. Once the cache is full, each write must
//! wait while the drive cleans a band (reads it, merges the cached data, rewrites it): a stall of
//! `stall` that frees `band` bytes of the cache. A sequential stream goes straight to the bands at
//! the media rate, and reads are a plain disk's. When the drive has had no command for
//! `idle_after`, it drains the cache back to the bands at `drain_mb_s` until the next command.
//!
//! Pure bookkeeping in virtual time, as [`crate::cache`] is; [`crate::timing`] calls it.

use crate::units::{de_duration_ns, de_size};
use serde::{Deserialize, Serialize};

/// The `[smr]` section of a model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Smr {
    /// Size of the persistent media cache that takes non-sequential writes.
    #[serde(deserialize_with = "de_size")]
    pub media_cache: u64,
    /// Rate of writes into the media cache (MB/s), with no positioning.
    pub cache_mb_s: f64,
    /// Media-cache bytes one band cleaning frees.
    #[serde(deserialize_with = "de_size")]
    pub band: u64,
    /// How long one band cleaning holds the drive.
    #[serde(deserialize_with = "de_duration_ns", rename = "stall")]
    pub stall_ns: u64,
    /// Time without any command after which the drive drains its media cache.
    #[serde(deserialize_with = "de_duration_ns", rename = "idle_after")]
    pub idle_after_ns: u64,
    /// Rate at which an idle drive drains the media cache to the bands (MB/s).
    pub drain_mb_s: f64,
}

impl Smr {
    /// Why the section is not a drive's, if it is not.
    pub fn check(&self) -> Result<(), String> {
        let pos = |v: f64| v.is_finite() && v > 0.0;
        if self.media_cache == 0 || self.band == 0 || self.band > self.media_cache {
            return Err("smr needs a media_cache and a band no larger than it".into());
        }
        if !pos(self.cache_mb_s) || !pos(self.drain_mb_s) {
            return Err("smr.cache_mb_s and smr.drain_mb_s must be positive".into());
        }
        if self.stall_ns == 0 {
            return Err("smr.stall must be above 0".into());
        }
        Ok(())
    }

    /// Steady MB/s of back-to-back non-sequential writes of `len` bytes into a full cache, each
    /// taking `per_command_ns` of its own besides its transfer: a stall per band written.
    pub fn full_mb_s(&self, len: u64, per_command_ns: f64) -> f64 {
        let commands = self.band as f64 / len as f64;
        let write_ns = per_command_ns + len as f64 * 1e3 / self.cache_mb_s;
        self.band as f64 * 1e3 / (self.stall_ns as f64 + commands * write_ns)
    }

    /// Time a drive idles from its last command until a full media cache has drained, ns.
    pub fn drain_ns(&self) -> u64 {
        self.idle_after_ns + (self.media_cache as f64 * 1e3 / self.drain_mb_s) as u64
    }
}

/// Command size the truth states random-write rates for.
pub const TRUTH_BLOCK: u64 = 64 << 10;

/// What the `[smr]` section of `model` means for random writes.
pub fn truth(model: &crate::Model, s: &Smr) -> drivescope_record::SmrTruth {
    let overhead = model.overhead_ns as f64;
    drivescope_record::SmrTruth {
        media_cache: s.media_cache,
        cache_mb_per_s: s.cache_mb_s,
        band: s.band,
        stall_ns: s.stall_ns,
        idle_after_ns: s.idle_after_ns,
        drain_mb_per_s: s.drain_mb_s,
        drain_ns: s.drain_ns(),
        fill_mb_per_s: TRUTH_BLOCK as f64 * 1e3
            / (overhead + TRUTH_BLOCK as f64 * 1e3 / s.cache_mb_s),
        full_mb_per_s: s.full_mb_s(TRUTH_BLOCK, overhead),
    }
}

/// The media cache's fill level in virtual time.
#[derive(Debug, Clone, Default)]
pub struct MediaCache {
    used: f64,
    /// When the last command finished (the drive is idle after it).
    last_done: u64,
    /// Idle time up to here has been drained already.
    drained_to: u64,
}

impl MediaCache {
    /// Drain what the idle time up to `now` allows.
    pub fn settle(&mut self, s: &Smr, now: u64) {
        let from = (self.last_done + s.idle_after_ns).max(self.drained_to);
        if now > from {
            self.used = (self.used - (now - from) as f64 * s.drain_mb_s * 1e-3).max(0.0);
            self.drained_to = now;
        }
    }

    /// A non-sequential write of `len` bytes taken at `at`: the band cleaning it waits for, ns.
    pub fn write(&mut self, s: &Smr, at: u64, len: u64) -> u64 {
        self.settle(s, at);
        let len = (len as f64).min(s.media_cache as f64);
        let mut stall = 0;
        while self.used + len > s.media_cache as f64 {
            self.used = (self.used - s.band as f64).max(0.0);
            stall += s.stall_ns;
        }
        self.used += len;
        stall
    }

    /// A command finished at `done`: the drive was busy until then.
    pub fn busy_until(&mut self, done: u64) {
        self.last_done = self.last_done.max(done);
    }

    /// Bytes in the media cache as of the last update.
    pub fn used(&self) -> u64 {
        self.used as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn smr() -> Smr {
        Smr {
            media_cache: 8 << 20,
            cache_mb_s: 100.0,
            band: 1 << 20,
            stall_ns: 400_000_000,
            idle_after_ns: 1_000_000_000,
            drain_mb_s: 10.0,
        }
    }

    #[test]
    fn writes_fill_the_cache_then_each_band_costs_a_stall() {
        let s = smr();
        let mut c = MediaCache::default();
        let len = 64 << 10;
        let mut t = 0;
        let mut stalls = vec![];
        for _ in 0..256 {
            let stall = c.write(&s, t, len);
            stalls.push(stall);
            t += stall + 1_000;
            c.busy_until(t);
        }
        // 8 MiB = 128 writes fit; then one stall per 16 writes (a 1 MiB band).
        assert!(stalls[..128].iter().all(|s| *s == 0), "{stalls:?}");
        let after: Vec<_> = stalls[128..].iter().filter(|s| **s > 0).collect();
        assert_eq!(after.len(), 8, "{stalls:?}");
        assert!(after.iter().all(|s| **s == 400_000_000));
        assert_eq!(c.used(), 8 << 20);
    }

    #[test]
    fn idle_time_drains_it_and_a_busy_drive_does_not() {
        let s = smr();
        let mut c = MediaCache::default();
        for i in 0..128 {
            c.write(&s, i, 64 << 10);
            c.busy_until(i + 1);
        }
        assert_eq!(c.used(), 8 << 20);
        // Commands every 0.5 s keep it from idling long enough.
        for k in 1..10u64 {
            c.settle(&s, 128 + k * 500_000_000);
            c.busy_until(128 + k * 500_000_000);
        }
        assert_eq!(c.used(), 8 << 20);
        // 1 s idle, then 0.5 s at 10 MB/s: 5 MB gone.
        let last = 128 + 9 * 500_000_000;
        c.settle(&s, last + 1_500_000_000);
        assert_eq!(c.used(), (8 << 20) - 5_000_000);
        // Long enough: empty, and the next writes need no cleaning.
        c.settle(&s, last + 10_000_000_000);
        assert_eq!(c.used(), 0);
        assert_eq!(c.write(&s, last + 10_000_000_000, 64 << 10), 0);
        assert!(s.drain_ns() > 1_800_000_000 && s.drain_ns() < 1_900_000_000);
    }

    /// The `smr-nas` preset and its CMR twin, driven on the timeline: reads and sequential writes alike,
    /// random writes apart.
    #[test]
    fn the_smr_preset_differs_from_its_twin_only_in_random_writes() {
        use crate::timing::{Op, Timeline};
        let smr = crate::Model::preset("smr-nas").unwrap();
        let cmr = crate::Model::preset("cmr-nas").unwrap();
        let s = smr.smr.clone().unwrap();
        let mut a = smr.clone();
        a.smr = None;
        a.name = cmr.name.clone();
        a.description = cmr.description.clone();
        assert_eq!(a, cmr, "the twins differ only in the [smr] section");
        let bs = 1 << 20;
        let (mut ts, mut tc) = (Timeline::new(&smr), Timeline::new(&cmr));
        let mut now = 0;
        // A read stream, a write stream that continues it, random reads.
        let reads = (0..32).map(|i| (Op::Read, i * bs));
        let writes = (32..64).map(|i| (Op::Write, i * bs));
        let random = (0..32).map(|i| (Op::Read, (i * 7919 % 200) * bs));
        for (op, off) in reads.chain(writes).chain(random) {
            let (x, y) = (ts.schedule(op, off, bs, now), tc.schedule(op, off, bs, now));
            assert_eq!(x, y, "{op:?} at {off}");
            now = x.done_ns;
        }
        // Random 64 KiB writes: the SMR disk takes its media cache fast, then stalls a band at a time.
        let len = 64 << 10;
        let (mut ts, mut tc) = (Timeline::new(&smr), Timeline::new(&cmr));
        let (mut now_s, mut now_c) = (0, 0);
        let (mut lat_s, mut lat_c) = (vec![], vec![]);
        let n = 2 * s.media_cache / len;
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for _ in 0..n {
            // Offsets at random (a stride would continue a stream a few commands back).
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let off = (x % (smr.size / len)) * len;
            let o = ts.schedule(Op::Write, off, len, now_s);
            lat_s.push(o.done_ns - now_s);
            now_s = o.done_ns;
            let o = tc.schedule(Op::Write, off, len, now_c);
            lat_c.push(o.done_ns - now_c);
            now_c = o.done_ns;
        }
        let fill = (s.media_cache / len) as usize;
        assert!(
            lat_s[..fill].iter().all(|l| *l < 1_000_000),
            "no positioning"
        );
        let stalls = lat_s[fill..].iter().filter(|l| **l >= s.stall_ns).count() as u64;
        assert_eq!(stalls, s.media_cache / s.band);
        // The CMR twin positions the head for each write, and never stalls.
        assert!(lat_c.iter().all(|l| *l < 40_000_000));
        let mut sorted = lat_c.clone();
        sorted.sort_unstable();
        assert!(
            sorted[sorted.len() / 2] > 5_000_000,
            "{}",
            sorted[sorted.len() / 2]
        );
        // Idle long enough: the cache has drained and random writes are fast again.
        let later = now_s + s.drain_ns() + 1;
        let o = ts.schedule(Op::Write, 12345 * len, len, later);
        assert!(o.done_ns - later < 1_000_000);
        // The truth states the same rates.
        let t = smr.truth().smr.unwrap();
        let fill_rate = (fill as u64 * len) as f64 * 1e3 / lat_s[..fill].iter().sum::<u64>() as f64;
        assert!(
            (fill_rate / t.fill_mb_per_s - 1.0).abs() < 0.01,
            "{fill_rate}"
        );
        assert!(cmr.truth().smr.is_none());
    }

    #[test]
    fn the_full_rate_counts_a_stall_per_band() {
        let s = smr();
        // 16 writes of 64 KiB at 100 MB/s (655 µs each) and one 400 ms stall per MiB.
        let want = 1048576.0 * 1e3 / (400e6 + 16.0 * 655_360.0);
        assert!((s.full_mb_s(64 << 10, 0.0) / want - 1.0).abs() < 1e-9);
        let mut bad = smr();
        bad.band = 16 << 20;
        assert!(bad.check().is_err());
        assert!(smr().check().is_ok());
    }
}
