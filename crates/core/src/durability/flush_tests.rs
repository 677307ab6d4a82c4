//! The experiment on a toy device with a virtual clock: a write cache of `cache` bytes filled
//! at `fill` and drained at `drain` (bytes per ns), whose flush waits for the drain or not.
//! Counts, sizes, order, the rate taken and the budget, never wall time.

use super::*;

struct Toy {
    len: u64,
    fill: f64,
    drain: f64,
    cache: f64,
    honours: bool,
    dirty: f64,
    now: u64,
    written: u64,
    flushes: u64,
    idle_ns: u64,
}

impl Toy {
    fn new(cache_mib: u64, fill_mb_s: f64, drain_mb_s: f64, honours: bool) -> Toy {
        Toy {
            len: 1 << 30,
            fill: fill_mb_s * 1e-3,
            drain: drain_mb_s * 1e-3,
            cache: (cache_mib << 20) as f64,
            honours,
            dirty: 0.0,
            now: 0,
            written: 0,
            flushes: 0,
            idle_ns: 0,
        }
    }

    fn pass(&mut self, ns: f64) {
        self.dirty = (self.dirty - ns * self.drain).max(0.0);
        self.now += ns as u64;
    }
}

impl FlushDevice for Toy {
    fn room(&self) -> u64 {
        self.len
    }
    fn write(&mut self, offset: u64, len: usize) -> std::io::Result<()> {
        assert!(offset + len as u64 <= self.len);
        let len = len as f64;
        if self.cache == 0.0 {
            self.pass(len / self.drain);
        } else {
            let excess = self.dirty + len - self.cache;
            if excess > 0.0 {
                self.pass(excess / self.drain);
            }
            self.pass(len / self.fill);
            self.dirty += len;
        }
        self.written += len as u64;
        Ok(())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.flushes += 1;
        if self.honours {
            self.pass(self.dirty / self.drain);
        }
        Ok(())
    }
    fn now_ns(&self) -> u64 {
        self.now
    }
    fn idle(&mut self, ns: u64) {
        self.idle_ns += ns;
        self.pass(ns as f64);
    }
}

fn plan(budget_s: f64) -> FlushPlan {
    FlushPlan {
        budget_ns: (budget_s * 1e9) as u64,
        sustain_max: 256 << 20,
        ..FlushPlan::default()
    }
}

fn go(toy: &mut Toy, p: &FlushPlan) -> FlushRun {
    run(toy, p, &AtomicBool::new(false)).unwrap()
}

#[test]
fn every_byte_and_flush_is_counted_and_the_sizes_double_in_rounds() {
    for (cache, honours) in [(32, true), (32, false), (0, true)] {
        let mut toy = Toy::new(cache, 400.0, 40.0, honours);
        let p = plan(6.0);
        let r = go(&mut toy, &p);
        let s = r.sustained.unwrap();
        let pairs: u64 = r.pairs.iter().map(|p| p.bytes).sum();
        assert_eq!(r.bytes_written, s.bytes + pairs);
        assert_eq!(toy.written, r.bytes_written);
        // One flush first, one after the stream, one per pair.
        assert_eq!(r.flushes, 2 + r.pairs.len() as u64);
        assert_eq!(toy.flushes, r.flushes);
        // Rounds of doubling sizes from 1 MiB, smallest first, at most `repeats` of each.
        let round: Vec<u64> = r
            .pairs
            .iter()
            .map(|p| p.bytes)
            .take_while({
                let mut last = 0;
                move |&b| {
                    let ok = b > last;
                    last = b;
                    ok
                }
            })
            .collect();
        assert!(round.len() >= 3, "{cache} {honours}: {:?}", r.pairs);
        for (i, b) in round.iter().enumerate() {
            assert_eq!(*b, (1u64 << 20) << i);
        }
        for p in &r.pairs {
            let n = r.pairs.iter().filter(|q| q.bytes == p.bytes).count();
            assert!(n <= 3);
        }
        assert!(!r.interrupted);
    }
}

#[test]
fn the_rate_taken_is_the_media_rate_whatever_the_flush_does() {
    for (cache, honours) in [(16, true), (16, false), (0, true)] {
        let mut toy = Toy::new(cache, 800.0, 50.0, honours);
        let r = go(&mut toy, &plan(8.0));
        let s = r.sustained.unwrap();
        let mb_s = s.bytes_per_s / 1e6;
        assert!(
            (mb_s / 50.0 - 1.0).abs() < 0.03,
            "{cache} {honours}: {mb_s} MB/s"
        );
        assert!(s.bytes >= 8 << 20);
    }
}

#[test]
fn an_ignored_flush_leaves_the_data_in_the_cache_and_the_pairs_show_it() {
    let mut toy = Toy::new(64, 1000.0, 40.0, false);
    let r = go(&mut toy, &plan(8.0));
    // Every pair fits the cache, is taken at the fill rate, and its flush costs nothing.
    for p in r.pairs.iter().filter(|p| p.bytes <= 16 << 20) {
        let fill_ns = p.bytes as f64 / 1.0;
        assert!(
            (p.write_ns as f64 - fill_ns).abs() < 0.01 * fill_ns,
            "{p:?}"
        );
        assert_eq!(p.flush_ns, 0);
    }
    // The device was left idle so each pair starts with an empty cache.
    assert!(toy.idle_ns > 0);
    let mut honest = Toy::new(64, 1000.0, 40.0, true);
    let h = go(&mut honest, &plan(8.0));
    for p in &h.pairs {
        // An honoured flush waits for what the drain has not done yet.
        let need = p.bytes as f64 / 0.04 - p.write_ns as f64;
        assert!(p.flush_ns as f64 >= need - 2.0, "{p:?}");
    }
}

#[test]
fn the_run_keeps_to_its_budget_on_the_devices_clock() {
    for budget in [1.0, 3.0, 10.0] {
        for (cache, honours) in [(8, true), (8, false), (0, true), (512, false)] {
            let mut toy = Toy::new(cache, 2000.0, 30.0, honours);
            let r = go(&mut toy, &plan(budget));
            let s = r.sustained.unwrap();
            // The stream stops at its share of the budget (one chunk late at most).
            let chunk_ns = (1u64 << 20) as f64 / 0.03;
            assert!(
                s.write_ns as f64 <= budget * 1e9 * 0.35 + chunk_ns.max(8.0 * chunk_ns),
                "{budget} {cache} {honours}: {s:?}"
            );
            // Pairs start only where they fit at the pace seen so far: the run ends within the
            // budget but for the stream's flush and one pair that went slower than any before.
            let longest = r
                .pairs
                .iter()
                .map(|p| p.write_ns + p.flush_ns)
                .max()
                .unwrap_or(0);
            assert!(
                toy.now as f64
                    <= budget * 1e9 + s.flush_ns as f64 + 8.0 * chunk_ns + longest as f64,
                "{budget} {cache} {honours}: ended at {} ns",
                toy.now
            );
        }
    }
}

#[test]
fn a_stop_ends_it_before_the_pairs_and_says_so() {
    let mut toy = Toy::new(8, 400.0, 40.0, true);
    let r = run(&mut toy, &plan(5.0), &AtomicBool::new(true)).unwrap();
    assert!(r.interrupted);
    assert!(r.pairs.is_empty());
    assert_eq!(r.flushes, 2);
}

#[test]
fn sizes_double_within_the_time_and_the_region() {
    let p = FlushPlan::default();
    // 1 s at 100 MB/s, 3 repeats of three times the size: 1 + 2 + 4 MiB fit, 8 more would not.
    let xs = sizes(&p, 1 << 30, 100e6, 1_000_000_000);
    assert_eq!(xs, vec![1 << 20, 2 << 20, 4 << 20]);
    let xs = sizes(&p, 1 << 30, 100e6, 10_000_000_000);
    assert_eq!(xs.len(), 6);
    // Never past the region; at least three sizes where the region holds them.
    assert_eq!(
        sizes(&p, 3 << 20, 100e6, u64::MAX / 4),
        vec![1 << 20, 2 << 20]
    );
    assert_eq!(sizes(&p, 1 << 30, 1e3, 1).len(), 3);
    assert!(sizes(&p, 0, 100e6, 1).is_empty());
}
