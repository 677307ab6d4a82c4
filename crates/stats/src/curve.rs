//! Transfer rate per position: the range's commands are split into `bins` consecutive groups
//! (bin `i` holds commands `[i*n/bins, (i+1)*n/bins)`), so bins are whole commands, cover the
//! range with no gap and no overlap, and their number never exceeds the command count.
//!
//! A bin's rate is its bytes over its busy span (first submit to last completion), so it is
//! wall-clock based like the run's overall rate. A command that follows a jump (it does not
//! continue the one before it) is *unpaced*: its time holds the positioning, so a bin's rate
//! comes from its paced commands, and from the unpaced ones only when it has no other.

use serde::{Deserialize, Serialize};

/// Accumulator of one bin.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CurveBin {
    pub bytes: u64,
    pub commands: u64,
    pub first_submit_ns: u64,
    pub last_done_ns: u64,
    pub min_ns: u64,
    pub max_ns: u64,
    /// Busy time counted apart from the span: an earlier, interrupted run's share of the bin,
    /// and the time of commands issued out of the range's order (a scan's later passes).
    pub prior_busy_ns: u64,
    /// Bytes and latency of unpaced commands (after a jump), which the bin's rate takes only
    /// when it has no paced bytes.
    pub unpaced_bytes: u64,
    pub unpaced_ns: u64,
    /// The slowest and fastest rate of the stretches of [`WINDOW_NS`] or more that ended in the bin, MB/s (0 while
    /// none has).
    pub window_min: f64,
    pub window_max: f64,
}

impl CurveBin {
    /// Busy span: first submit to last completion, plus an earlier run's share.
    pub fn busy_ns(&self) -> u64 {
        self.prior_busy_ns
            .saturating_add(self.last_done_ns.saturating_sub(self.first_submit_ns))
    }

    fn reached(&self) -> bool {
        self.last_done_ns > 0 || self.commands > 0 || self.prior_busy_ns > 0
    }

    /// Bytes and time the bin's rate is made of: its paced commands', else all of them.
    pub fn rate_parts(&self) -> (u64, u64) {
        if self.bytes > 0 {
            (self.bytes, self.busy_ns())
        } else {
            (self.unpaced_bytes, self.unpaced_ns + self.busy_ns())
        }
    }
}

/// What an interrupted run leaves of a bin, to be continued by a resumed run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BinState {
    pub index: usize,
    pub bytes: u64,
    pub commands: u64,
    pub busy_ns: u64,
    pub min_ns: u64,
    pub max_ns: u64,
    #[serde(default)]
    pub unpaced_bytes: u64,
    #[serde(default)]
    pub unpaced_ns: u64,
    /// The whisker rates of the stretches that ended in the bin (0 when none did, and in older documents).
    #[serde(default)]
    pub window_min: f64,
    #[serde(default)]
    pub window_max: f64,
}

impl Default for CurveBin {
    fn default() -> Self {
        CurveBin {
            bytes: 0,
            commands: 0,
            first_submit_ns: u64::MAX,
            last_done_ns: 0,
            min_ns: u64::MAX,
            max_ns: 0,
            prior_busy_ns: 0,
            unpaced_bytes: 0,
            unpaced_ns: 0,
            window_min: 0.0,
            window_max: 0.0,
        }
    }
}

/// One curve point as it appears in JSON and CSV.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CurvePoint {
    pub offset: u64,
    pub length: u64,
    pub mb_per_s: f64,
    pub min_ns: u64,
    pub max_ns: u64,
    /// The slowest and the fastest rate the commands came at over the stretches of [`WINDOW_NS`] or more that
    /// ended in the bin (what its whiskers show), MB/s; the bin's own rate where none did. 0 in older documents. A
    /// command's own latency is no rate: after a host's late reply a read-ahead disk serves the next commands from
    /// what it read meanwhile, at rates its media never reach.
    #[serde(default)]
    pub min_mb_per_s: f64,
    #[serde(default)]
    pub max_mb_per_s: f64,
}

/// The shortest stretch of completions a whisker rate is measured over.
pub const WINDOW_NS: u64 = 20_000_000;
/// The longest a whisker stretch grows to keep a pause at its start.
pub const WINDOW_LONGEST: u64 = 5 * WINDOW_NS;
/// A time between two completions this long or longer is a pause (a disk that read on during it serves what
/// follows faster than its media).
const PAUSE_NS: u64 = 1_000_000;
/// The most completions a whisker stretch holds (a faster device's stretch is shorter than [`WINDOW_NS`]).
const WINDOW_MAX: usize = 4096;

/// The position curve over a range of `commands` commands of `block_size` bytes starting at
/// `start`; the last command may be shorter (`range_len` need not be a multiple).
#[derive(Debug, Clone)]
pub struct Curve {
    start: u64,
    range_len: u64,
    block_size: u64,
    commands: u64,
    bins: Vec<CurveBin>,
    /// The latest completions (time, bytes), oldest first: the front's time is where the stretch starts.
    window: std::collections::VecDeque<(u64, u64)>,
    window_bytes: u64,
}

impl Curve {
    /// A curve of at most `points` bins over `[start, start + range_len)`.
    pub fn new(start: u64, range_len: u64, block_size: u64, points: usize) -> Self {
        assert!(block_size > 0);
        let commands = range_len.div_ceil(block_size);
        let n = (points as u64)
            .min(commands)
            .max(if commands > 0 { 1 } else { 0 }) as usize;
        Curve {
            start,
            range_len,
            block_size,
            commands,
            bins: vec![CurveBin::default(); n],
            window: std::collections::VecDeque::new(),
            window_bytes: 0,
        }
    }

    /// A completion at `done_ns` of `bytes` (0 for a failure) of bin `i`, issued at `submit_ns`: the stretch of
    /// completions of at least [`WINDOW_NS`] ending with it gives the bin a whisker rate.
    fn window(&mut self, i: usize, bytes: u64, submit_ns: u64, done_ns: u64) {
        if self.window.is_empty() {
            // The stretch starts where the first command was issued.
            self.window.push_back((submit_ns, 0));
        }
        self.window.push_back((done_ns, bytes));
        self.window_bytes += bytes;
        // The stretch starts at a completion. One that a pause follows (a late reply, a stall) stays its start
        // for up to [`WINDOW_LONGEST`]: what came after the pause, quickly as a disk that read on serves it, was
        // read during the pause, and counts over it.
        while self.window.len() > WINDOW_MAX
            || (self.window.len() > 2
                && done_ns.saturating_sub(self.window[1].0) >= WINDOW_NS
                && (self.window[1].0.saturating_sub(self.window[0].0) < PAUSE_NS
                    || done_ns.saturating_sub(self.window[0].0) > WINDOW_LONGEST))
        {
            let (_, b) = self.window.pop_front().expect("a completion");
            self.window_bytes -= b;
        }
        let (t0, b0) = self.window[0];
        let span = done_ns.saturating_sub(t0);
        if span >= WINDOW_NS || (self.window.len() >= WINDOW_MAX && span > 0) {
            let r = rate(self.window_bytes - b0, span);
            let bin = &mut self.bins[i];
            bin.window_min = if bin.window_max == 0.0 {
                r
            } else {
                bin.window_min.min(r)
            };
            bin.window_max = bin.window_max.max(r);
        }
    }

    pub fn commands(&self) -> u64 {
        self.commands
    }

    /// Bin index of the command at `offset` (must lie in the range).
    #[inline]
    pub fn bin_of(&self, offset: u64) -> usize {
        let cmd = (offset - self.start) / self.block_size;
        ((cmd as u128 * self.bins.len() as u128) / self.commands as u128) as usize
    }

    /// First command index of bin `i`.
    fn first_cmd(&self, i: usize) -> u64 {
        ((i as u128 * self.commands as u128).div_ceil(self.bins.len() as u128)) as u64
    }

    /// Record a successful command.
    #[inline]
    pub fn record(&mut self, offset: u64, bytes: u64, submit_ns: u64, done_ns: u64) {
        let i = self.bin_of(offset);
        let lat = done_ns.saturating_sub(submit_ns);
        let b = &mut self.bins[i];
        // saturating: a resumed bin starts from the stored share, whatever it says
        b.bytes = b.bytes.saturating_add(bytes);
        b.commands = b.commands.saturating_add(1);
        b.first_submit_ns = b.first_submit_ns.min(submit_ns);
        b.last_done_ns = b.last_done_ns.max(done_ns);
        b.min_ns = b.min_ns.min(lat);
        b.max_ns = b.max_ns.max(lat);
        self.window(i, bytes, submit_ns, done_ns);
    }

    /// Record a failed command: it takes time in its bin but moves no bytes.
    #[inline]
    pub fn record_failed(&mut self, offset: u64, submit_ns: u64, done_ns: u64) {
        let i = self.bin_of(offset);
        let b = &mut self.bins[i];
        b.first_submit_ns = b.first_submit_ns.min(submit_ns);
        b.last_done_ns = b.last_done_ns.max(done_ns);
        self.window(i, 0, submit_ns, done_ns);
    }

    /// Record a command issued out of the range's order (a scan's later pass over what the
    /// first pass skipped): its bytes count, and `busy_ns` is added to the bin's busy time (its
    /// latency, or for a command that continues a run, the time since the one before it
    /// completed; the time between it and the bin's other commands is not counted). `ok` is
    /// false for a failed command, which takes time but moves no bytes.
    pub fn record_apart(
        &mut self,
        offset: u64,
        bytes: u64,
        busy_ns: u64,
        latency_ns: u64,
        ok: bool,
    ) {
        let i = self.bin_of(offset);
        let b = &mut self.bins[i];
        b.prior_busy_ns += busy_ns;
        if ok {
            b.bytes += bytes;
            b.commands += 1;
            b.min_ns = b.min_ns.min(latency_ns);
            b.max_ns = b.max_ns.max(latency_ns);
        }
    }

    /// Record a successful command that follows a jump (the first after a skip, or of a
    /// later pass's run): its latency holds the positioning, so it is kept apart from the
    /// bin's pace (see the module's notes).
    pub fn record_unpaced(&mut self, offset: u64, bytes: u64, latency_ns: u64) {
        let i = self.bin_of(offset);
        let b = &mut self.bins[i];
        b.unpaced_bytes += bytes;
        b.unpaced_ns += latency_ns;
        b.commands += 1;
        b.min_ns = b.min_ns.min(latency_ns);
        b.max_ns = b.max_ns.max(latency_ns);
    }

    /// The state of every bin a command reached, to continue them in a resumed run.
    pub fn states(&self) -> Vec<BinState> {
        (0..self.bins.len())
            .filter(|&i| self.bins[i].reached())
            .map(|i| self.bin_state(i))
            .collect()
    }

    /// The state of bin `i`, to continue it in a resumed run.
    pub fn bin_state(&self, i: usize) -> BinState {
        let b = &self.bins[i];
        BinState {
            index: i,
            bytes: b.bytes,
            commands: b.commands,
            busy_ns: b.busy_ns(),
            min_ns: b.min_ns,
            max_ns: b.max_ns,
            unpaced_bytes: b.unpaced_bytes,
            unpaced_ns: b.unpaced_ns,
            window_min: b.window_min,
            window_max: b.window_max,
        }
    }

    /// Continue bin `s.index` from an earlier run's share of it (its bytes, commands and busy
    /// time are added to what this run records there). Ignored when the index is out of range.
    pub fn add_prior(&mut self, s: &BinState) {
        if let Some(b) = self.bins.get_mut(s.index) {
            b.bytes += s.bytes;
            b.commands += s.commands;
            b.prior_busy_ns += s.busy_ns;
            b.min_ns = b.min_ns.min(s.min_ns);
            b.max_ns = b.max_ns.max(s.max_ns);
            b.unpaced_bytes += s.unpaced_bytes;
            b.unpaced_ns += s.unpaced_ns;
            if s.window_max > 0.0 {
                b.window_min = if b.window_max > 0.0 {
                    b.window_min.min(s.window_min)
                } else {
                    s.window_min
                };
                b.window_max = b.window_max.max(s.window_max);
            }
        }
    }

    pub fn bins(&self) -> &[CurveBin] {
        &self.bins
    }

    /// Byte range `[offset, offset+len)` of bin `i`.
    pub fn bin_range(&self, i: usize) -> (u64, u64) {
        let first = self.first_cmd(i);
        let next = self.first_cmd(i + 1);
        let off = self.start + first * self.block_size;
        let end = (self.start + next * self.block_size).min(self.start + self.range_len);
        (off, end - off)
    }

    /// The curve as points. Bins no command reached are left out.
    pub fn points(&self) -> Vec<CurvePoint> {
        (0..self.bins.len())
            .filter(|&i| self.bins[i].reached())
            .map(|i| {
                let b = &self.bins[i];
                let (offset, length) = self.bin_range(i);
                let (bytes, span) = b.rate_parts();
                let mb_per_s = rate(bytes, span);
                let (lo, hi) = if b.window_max > 0.0 {
                    (b.window_min, b.window_max)
                } else {
                    (mb_per_s, mb_per_s)
                };
                CurvePoint {
                    offset,
                    length,
                    mb_per_s,
                    min_ns: if b.commands > 0 { b.min_ns } else { 0 },
                    max_ns: b.max_ns,
                    min_mb_per_s: lo,
                    max_mb_per_s: hi,
                }
            })
            .collect()
    }

    /// Mean rate over the bins that start in the first `frac` of the range.
    pub fn head_rate(&self, frac: f64) -> Option<f64> {
        let limit = self.start + (self.range_len as f64 * frac).ceil() as u64;
        self.rate_where(|off, _| off < limit)
    }

    /// Mean rate over the bins that end in the last `frac` of the range.
    pub fn tail_rate(&self, frac: f64) -> Option<f64> {
        let limit = self.start + self.range_len - (self.range_len as f64 * frac).ceil() as u64;
        self.rate_where(|off, len| off + len > limit)
    }

    /// The rate of the last `frac` of the range over the first's: < 1 when the inner zone is slower. Each end's
    /// rate is the median of its bins' rates (at least [`ZONE_BINS`] bins each, where the curve has them), so a
    /// few slow commands, or a host's late replies and the burst after them, do not move it as they move the bytes
    /// over the time of a short end.
    pub fn zone_ratio(&self, frac: f64) -> Option<f64> {
        let points = self.points();
        zone_ratio_of(&points, self.start, self.range_len, frac)
    }

    fn rate_where(&self, keep: impl Fn(u64, u64) -> bool) -> Option<f64> {
        let (mut bytes, mut span) = (0u64, 0u64);
        for i in 0..self.bins.len() {
            let (off, len) = self.bin_range(i);
            let b = &self.bins[i];
            if keep(off, len) && b.commands > 0 {
                let (by, ns) = b.rate_parts();
                bytes += by;
                span += ns;
            }
        }
        (span > 0).then(|| rate(bytes, span))
    }
}

/// The fewest bins an end of the range takes its median rate over (fewer only where the curve has fewer than
/// twice as many).
pub const ZONE_BINS: usize = 8;

/// [`Curve::zone_ratio`] over curve points (bins no command reached left out) of the range `[start, start + len)`:
/// the median rate of the points in its last `frac` over that of the points in its first, each end widened to
/// [`ZONE_BINS`] points where there are fewer.
pub fn zone_ratio_of(points: &[CurvePoint], start: u64, len: u64, frac: f64) -> Option<f64> {
    let mut pts: Vec<&CurvePoint> = points.iter().filter(|p| p.mb_per_s > 0.0).collect();
    pts.sort_by_key(|p| p.offset);
    if pts.len() < 2 {
        return None;
    }
    let edge = (len as f64 * frac).ceil() as u64;
    let widest = (pts.len() / 2).max(1);
    let head_n = pts
        .iter()
        .filter(|p| p.offset < start + edge)
        .count()
        .max(ZONE_BINS)
        .min(widest);
    let tail_n = pts
        .iter()
        .filter(|p| p.offset.saturating_add(p.length) > start + len - edge)
        .count()
        .max(ZONE_BINS)
        .min(widest);
    let median = |v: &[&CurvePoint]| {
        let mut r: Vec<f64> = v.iter().map(|p| p.mb_per_s).collect();
        r.sort_by(f64::total_cmp);
        let n = r.len();
        if n % 2 == 1 {
            r[n / 2]
        } else {
            (r[n / 2 - 1] + r[n / 2]) / 2.0
        }
    };
    let head = median(&pts[..head_n]);
    let tail = median(&pts[pts.len() - tail_n..]);
    (head > 0.0).then_some(tail / head)
}

fn rate(bytes: u64, ns: u64) -> f64 {
    if ns == 0 {
        0.0
    } else {
        bytes as f64 * 1e3 / ns as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn bins_cover_range_without_gap_or_overlap(start in 0u64..1<<40, cmds in 1u64..100_000, tail in 0u64..4096, points in 1usize..3000) {
            let bs = 4096u64;
            let len = if tail == 0 { cmds * bs } else { (cmds - 1) * bs + tail.max(512) };
            let c = Curve::new(start, len, bs, points);
            prop_assert!(c.bins().len() <= points);
            prop_assert!(c.bins().len() as u64 <= c.commands());
            let mut next = start;
            for i in 0..c.bins().len() {
                let (off, l) = c.bin_range(i);
                prop_assert_eq!(off, next);
                prop_assert!(l > 0);
                next = off + l;
            }
            prop_assert_eq!(next, start + len);
            // every command maps into the bin whose range holds it
            for cmd in [0, cmds / 2, cmds - 1] {
                let off = start + cmd * bs;
                let i = c.bin_of(off);
                let (bo, bl) = c.bin_range(i);
                prop_assert!(off >= bo && off < bo + bl, "cmd {} bin {} [{}, {})", cmd, i, bo, bo + bl);
            }
        }
    }

    #[test]
    fn rates_and_zone_ratio() {
        // 100 commands of 1 MB-ish; first half 1 ms each, second half 2 ms each.
        let bs = 1_000_000u64;
        let mut c = Curve::new(0, 100 * bs, bs, 10);
        let mut t = 0;
        for i in 0..100u64 {
            let d = if i < 50 { 1_000_000 } else { 2_000_000 };
            c.record(i * bs, bs, t, t + d);
            t += d;
        }
        let p = c.points();
        assert_eq!(p.len(), 10);
        assert!((p[0].mb_per_s - 1000.0).abs() < 1e-9);
        assert!((p[9].mb_per_s - 500.0).abs() < 1e-9);
        assert_eq!(p[0].min_ns, 1_000_000);
        assert!((c.zone_ratio(0.05).unwrap() - 0.5).abs() < 1e-9);
    }

    #[test]
    fn commands_apart_add_their_own_latency_not_the_time_between() {
        // One bin of 4 commands: two read in order (1 ms each), two much later out of order
        // (1 ms each, one failed after 500 ms): the bin's busy time is the in-order span plus
        // the later commands' own latencies.
        let bs = 1_000_000u64;
        let mut c = Curve::new(0, 4 * bs, bs, 1);
        c.record(0, bs, 0, 1_000_000);
        c.record(bs, bs, 1_000_000, 2_000_000);
        c.record_apart(3 * bs, bs, 1_000_000, 1_000_000, true);
        c.record_apart(2 * bs, 0, 500_000_000, 500_000_000, false);
        let p = &c.points()[0];
        // 3 MB in 503 ms.
        assert!(
            (p.mb_per_s - 3e6 / 0.503 / 1e6).abs() < 1e-9,
            "{}",
            p.mb_per_s
        );
        assert_eq!((p.min_ns, p.max_ns), (1_000_000, 1_000_000));
        let s = c.states();
        assert_eq!(s.len(), 1);
        assert_eq!(
            (s[0].bytes, s[0].commands, s[0].busy_ns),
            (3 * bs, 3, 503_000_000)
        );
        // A curve continued from those states gives the same point.
        let mut d = Curve::new(0, 4 * bs, bs, 1);
        d.add_prior(&s[0]);
        assert_eq!(d.points(), c.points());
    }

    #[test]
    fn commands_after_a_jump_set_the_rate_only_of_bins_with_no_other() {
        // Bin 0: a paced command at 1 ms and one after a jump at 9 ms; bin 1: only one after a
        // jump, at 9 ms.
        let bs = 1_000_000u64;
        let mut c = Curve::new(0, 4 * bs, bs, 2);
        c.record(0, bs, 0, 1_000_000);
        c.record_unpaced(bs, bs, 9_000_000);
        c.record_unpaced(2 * bs, bs, 9_000_000);
        let p = c.points();
        assert_eq!(p.len(), 2);
        assert!((p[0].mb_per_s - 1000.0).abs() < 1e-9, "{}", p[0].mb_per_s);
        assert!(
            (p[1].mb_per_s - 1e3 / 9.0).abs() < 1e-9,
            "{}",
            p[1].mb_per_s
        );
        assert_eq!((p[0].min_ns, p[0].max_ns), (1_000_000, 9_000_000));
        // Continued from its states, the same.
        let mut d = Curve::new(0, 4 * bs, bs, 2);
        for s in c.states() {
            d.add_prior(&s);
        }
        assert_eq!(d.points(), p);
    }
}
