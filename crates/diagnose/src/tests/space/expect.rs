//! What a diagnosis within a draw's budget can see of each behaviour: a finding it must make (with the numbers
//! it must give, each with its tolerance), none it may make, or a case it cannot tell (and why), counted apart.

use super::{Media, Spec};
use crate::tests::model::{hit_rate, GIB, MIB};
use drivescope_record::FindingCode;

/// How close a reported number must be to the truth.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Tol {
    /// Within this share of the truth, plus `abs` in the number's unit.
    Rel(f64, f64),
    /// Within this many units.
    Abs(f64),
    /// At most the truth (times 1 + the share): a lower bound the rule states as one.
    AtMost(f64),
    /// At least the truth (times 1 − the share): an upper bound the rule states as one.
    AtLeast(f64),
}

impl Tol {
    pub fn holds(self, got: f64, truth: f64) -> bool {
        match self {
            Tol::Rel(r, a) => (got - truth).abs() <= truth.abs() * r + a,
            Tol::Abs(a) => (got - truth).abs() <= a,
            Tol::AtMost(r) => got <= truth * (1.0 + r),
            Tol::AtLeast(r) => got >= truth * (1.0 - r),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Check {
    pub number: &'static str,
    pub truth: f64,
    pub tol: Tol,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Expect {
    /// Present and within reach: a finding (or an inconclusive one), with these numbers.
    Found(Vec<Check>),
    /// Absent: a finding surer than inconclusive is a false claim.
    Absent,
    /// This diagnosis cannot tell: any verdict, counted under the reason.
    Blind(&'static str),
}

/// The behaviours scored, with the finding that reports each.
pub const BEHAVIOURS: &[(&str, FindingCode)] = &[
    ("zones", FindingCode::Zones),
    ("link_cap", FindingCode::LinkCap),
    ("warm_up", FindingCode::WarmUp),
    ("throttle", FindingCode::ThermalThrottle),
    ("read_cache", FindingCode::ReadCache),
    ("write_burst", FindingCode::WriteBurst),
    ("smr", FindingCode::Smr),
    ("no_queueing", FindingCode::NoQueueing),
];

fn c(number: &'static str, truth: f64, tol: Tol) -> Check {
    Check { number, truth, tol }
}

/// What the diagnosis measures with: the stream region and its command size, and the warm-up stream's window.
pub struct Reach {
    pub region: u64,
    pub bs: u64,
    pub window_s: f64,
}

impl Spec {
    pub fn reach(&self) -> Reach {
        let size = self.size.min(GIB);
        let bs = (size / 64 / 4).clamp(4096, MIB) / 4096 * 4096;
        Reach {
            region: size / (64 * bs) * 64 * bs,
            bs,
            window_s: (self.budget_s as f64 / 5.0).clamp(2.0, 36.0),
        }
    }

    fn cap(&self, r: f64) -> f64 {
        self.link.map_or(r, |l| r.min(l))
    }

    /// The media read rate at `offset` (no warm-up, no throttle), before the link.
    fn media_at(&self, offset: u64) -> f64 {
        self.model().rate_at(offset)
    }

    /// The rate of sequential reads of `bs` at `qd` at `offset`, through the link.
    pub fn read_rate(&self, offset: u64, bs: u64, qd: usize) -> f64 {
        self.slowed_rate(offset, bs, qd, 1.0)
    }

    /// The same with the media slowed to `k` of its rate (a warm-up, a throttle).
    pub fn slowed_rate(&self, offset: u64, bs: u64, qd: usize, k: f64) -> f64 {
        let m = self.media_at(offset) * k;
        let r = match self.media {
            Media::Hdd => m,
            Media::Flash => {
                let n = qd.min(self.lanes) as f64;
                let xfer = bs as f64 * 1e3 / m;
                m.min(n * bs as f64 * 1e3 / (self.access_ns as f64 + xfer))
            }
        };
        self.cap(r)
    }

    /// The mean of the stream's rate over `[from, to)` shares of the device.
    fn mean_rate(&self, from: f64, to: f64) -> f64 {
        self.mean_slowed(from, to, 1.0)
    }

    /// The same with the media slowed to `k` of its rate.
    fn mean_slowed(&self, from: f64, to: f64, k: f64) -> f64 {
        let n = 50;
        (0..n)
            .map(|i| {
                let x = from + (to - from) * (i as f64 + 0.5) / n as f64;
                self.slowed_rate((x * self.size as f64) as u64, self.reach().bs, 4, k)
            })
            .sum::<f64>()
            / n as f64
    }

    /// The media's own mean rate over `[from, to)` shares of the device.
    fn mean_slowed_media(&self, from: f64, to: f64) -> f64 {
        let n = 50;
        (0..n)
            .map(|i| {
                self.media_at(
                    ((from + (to - from) * (i as f64 + 0.5) / n as f64) * self.size as f64) as u64,
                )
            })
            .sum::<f64>()
            / n as f64
    }

    /// The stream's rate slowed to `k` over its rate, as the stream sees it (an access is not slowed, a
    /// ceiling may hide all of it).
    fn seen_factor(&self, k: f64) -> f64 {
        let to = self.reach().region as f64 / self.size as f64;
        self.mean_slowed(0.0, to, k) / self.mean_rate(0.0, to)
    }

    /// The share of its rate the media may run at while the link experiment reads (after the warm-up stream and
    /// the throttle's rest and reads): a warm-up not over, a throttle begun.
    fn slowed_during_shapes(&self) -> f64 {
        let w = self.reach().window_s;
        let mut k = 1.0;
        if let Some((d, f)) = self.warm_up.filter(|(d, _)| *d > w - 1.0) {
            let _ = d;
            k *= f;
        }
        if let Some((_, f, _)) = self.throttle.filter(|(a, ..)| *a < w + 40.0) {
            k *= f;
        }
        k
    }

    /// The time-weighted mean media write rate through the link over the bytes `[from, to)` a sequential write
    /// covers (it wraps at the region's end), with the media slowed to `k` of its rate.
    fn write_rate_over(&self, from: f64, to: f64, k: f64) -> f64 {
        let r = self.reach().region as f64;
        let n = 64;
        let secs: f64 = (0..n)
            .map(|i| {
                let o = ((from + (to - from) * (i as f64 + 0.5) / n as f64) % r) as u64;
                1.0 / self.cap(self.media_at(o) * self.write_factor * k)
            })
            .sum();
        n as f64 / secs
    }

    /// The read cache holds the whole stream region (and is faster than the media): every pass after the
    /// first is the cache's.
    fn cache_holds_region(&self) -> bool {
        let r = self.reach();
        self.read_cache.is_some_and(|(b, rate)| {
            b >= r.region && self.cap(hit_rate(r.bs, rate)) > self.read_rate(0, r.bs, 4)
        })
    }

    /// The zones are read by a quick scan of the whole device: the stream region (a whole number of slots of at
    /// most 1 GiB) leaves more than 3 % of it out.
    fn quick_scanned(&self) -> bool {
        (self.reach().region as f64) < 0.97 * self.size as f64
    }

    pub fn expect(&self, code: &FindingCode) -> Expect {
        match code {
            FindingCode::Zones => self.zones(),
            FindingCode::LinkCap => self.link_cap(),
            FindingCode::WarmUp => self.warm_up(),
            FindingCode::ThermalThrottle => self.throttle(),
            FindingCode::ReadCache => self.read_cache(),
            FindingCode::WriteBurst => self.write_burst(),
            FindingCode::Smr => self.smr(),
            FindingCode::NoQueueing => self.no_queueing(),
            _ => Expect::Blind("not scored"),
        }
    }

    fn zones(&self) -> Expect {
        if self.media == Media::Flash {
            return Expect::Absent;
        }
        let w = self.reach().window_s;
        if self.cache_holds_region() {
            return Expect::Blind(
                "a read cache holds the stream region: re-reads show the cache, not the media",
            );
        }
        let ratio = self.mean_rate(0.95, 1.0) / self.mean_rate(0.0, 0.05);
        if ratio > 0.8 {
            return Expect::Blind("a ceiling hides most of the fall");
        }
        if (2..=6).contains(&self.zones) {
            return Expect::Blind(
                "2–6 zones: few of the curve's ten stretches fall, and the rule asks a steady fall (60 % of them, or three \
                 and none rising)",
            );
        }
        let within = |t: f64| t < w + 2.0;
        if self.warm_up.is_some_and(|(d, _)| within(d))
            || self.throttle.is_some_and(|(a, ..)| within(a))
        {
            return Expect::Blind(
                "a warm-up or throttle changes the rate within the stream window: passes at both rates mix in the curve",
            );
        }
        // A disk the stream region does not cover is read by a quick scan after the stream (and the throttle's
        // rest and reads, up to 40 s), for a sixth of the budget, outer edge first.
        if self.quick_scanned() && self.read_cache.is_some_and(|(b, _)| b >= self.size / 10) {
            return Expect::Blind(
                "a read cache holds much of the outer regions the stream read: the quick scan reads them from it",
            );
        }
        let scan_end = w + self.budget_s as f64 / 6.0 + 40.0;
        if self.quick_scanned()
            && (self.warm_up.is_some_and(|(d, _)| d < scan_end)
                || self.throttle.is_some_and(|(a, ..)| a < scan_end))
        {
            return Expect::Blind(
                "a warm-up ends or a throttle begins while the quick scan reads: a change over time reads as one by \
                 position",
            );
        }
        Expect::Found(vec![c("zone_ratio", ratio, Tol::Abs(0.06))])
    }

    fn link_cap(&self) -> Expect {
        let r = self.reach();
        let shapes = [
            (r.bs, 4),
            ((512 << 10).min(r.region / 64), 16),
            ((256 << 10).min(r.region / 64), 32),
        ];
        let share_r = r.region as f64 / self.size as f64;
        let dwell_s = (self.budget_s as f64 / 6.0 / 256.0).clamp(0.02, 3.0);
        if self.quick_scanned()
            && self
                .noise
                .is_some_and(|n| n.slow_share > 0.0 && n.slow_ns as f64 / 1e9 >= 0.05 * dwell_s)
        {
            return Expect::Blind(
                "a quick scan's short regions on a busy host: a slow completion of 5 % of a region's time or more \
                 takes positions off the flat top",
            );
        }
        if self.cache_holds_region() {
            return Expect::Blind("a read cache holds the stream region: its top is the cache's");
        }
        if self.quick_scanned() && self.read_cache.is_some_and(|(b, _)| b >= self.size / 10) {
            return Expect::Blind(
                "a read cache holds a tenth of the device or more: the quick scan's regions it serves read off the \
                 flat top",
            );
        }
        if self.read_cache.is_some_and(|(b, _)| b >= r.region / 10 * 8) {
            return Expect::Blind(
                "a read cache holds most of the stream region: the shapes' reads hit it where the stream left it",
            );
        }
        match self.media {
            Media::Flash => {
                let k = self.slowed_during_shapes();
                let rates: Vec<f64> = shapes
                    .iter()
                    .map(|&(bs, qd)| self.slowed_rate(0, bs, qd, k))
                    .collect();
                let lo = rates.iter().copied().fold(f64::INFINITY, f64::min);
                let hi = rates.iter().copied().fold(0.0, f64::max);
                if k < 1.0 && self.link.is_none_or(|l| l > 0.95 * lo) {
                    return Expect::Blind(
                        "a warm-up or throttle slows the media while the shapes are read",
                    );
                }
                if hi / lo - 1.0 <= 0.01 {
                    Expect::Found(vec![c("ceiling_mb_per_s", hi, Tol::Rel(0.03, 0.0))])
                } else if hi / lo - 1.0 >= 0.08 {
                    Expect::Absent
                } else {
                    Expect::Blind("the shapes' rates differ by less than the noise allows to tell")
                }
            }
            Media::Hdd => {
                // Share of the stream region's positions the link holds flat.
                let Some(l) = self.link else {
                    return if share_r < 0.5 {
                        Expect::Blind("the stream covers only the outer part of a large disk")
                    } else {
                        Expect::Absent
                    };
                };
                let n = 64;
                let flat = (0..n)
                    .filter(|i| {
                        self.media_at(
                            (share_r * self.size as f64 * (*i as f64 + 0.5) / n as f64) as u64,
                        ) >= l / 0.97
                    })
                    .count() as f64
                    / n as f64;
                let ratio = self.mean_rate(0.95, 1.0) / self.mean_rate(0.0, 0.05);
                let k = self.slowed_during_shapes();
                if k < 1.0 && l > 0.95 * self.slowed_rate(r.region, r.bs, 4, k) {
                    return Expect::Blind(
                        "a warm-up or throttle slows the media while the shapes are read",
                    );
                }
                if flat >= 0.55 && ratio <= 0.95 {
                    Expect::Found(vec![c("ceiling_mb_per_s", l, Tol::Rel(0.03, 0.0))])
                } else if flat >= 0.55 {
                    Expect::Blind(
                        "flat at the ceiling everywhere: a ceiling, the link or the media's own",
                    )
                } else if flat < 0.25 {
                    Expect::Absent
                } else {
                    Expect::Blind("flat at the ceiling over 25–55 % of the positions")
                }
            }
        }
    }

    fn warm_up(&self) -> Expect {
        let r = self.reach();
        let Some((d, f)) = self.warm_up else {
            return Expect::Absent;
        };
        if self.seen_factor(f) > 0.8 {
            return Expect::Blind(
                "a warm-up shallower than 0.8×: within what the rule takes for the settled rate",
            );
        }
        if d > 0.7 * r.window_s {
            return Expect::Blind("the warm-up outlasts the stream window (budget / 5, 2–36 s)");
        }
        if self.cache_holds_region() {
            return Expect::Blind(
                "a read cache holds the stream region: the second pass speeds up too",
            );
        }
        let first_pass =
            r.region as f64 / 1e6 / (self.mean_rate(0.0, r.region as f64 / self.size as f64) * f);
        if (first_pass - d).abs() < r.window_s / 15.0 {
            return Expect::Blind(
                "the warm-up ends with the first pass over the region: as a read cache would",
            );
        }
        if self
            .throttle
            .is_some_and(|(a, ..)| a < d + 3.0 || a < r.window_s)
        {
            return Expect::Blind("a throttle within the stream window sets its settled rate");
        }
        let pass = r.region as f64 / 1e6 / self.mean_rate(0.0, r.region as f64 / self.size as f64);
        if pass > r.window_s / 3.0 {
            return Expect::Blind(
                "the stream reads the region less than once in its settled last third: positions read only while \
                 slow set the curve",
            );
        }
        Expect::Found(vec![
            c("warm_up_s", d, Tol::Rel(0.1, 0.5)),
            c("factor", self.seen_factor(f), Tol::Abs(0.06)),
        ])
    }

    fn throttle(&self) -> Expect {
        let r = self.reach();
        let Some((a, f, cool)) = self.throttle else {
            return Expect::Absent;
        };
        // The media heats while busy and cools while idle: behind a slower link or access it is busy only part
        // of the time, and heats that much slower (or never).
        let to = r.region as f64 / self.size as f64;
        let busy = (self.mean_rate(0.0, to) / self.mean_slowed_media(0.0, to)).min(1.0);
        let net = busy - (1.0 - busy) * 1.05 * a / cool;
        if net <= 0.05 {
            return Expect::Blind("the stream keeps the media idle enough that it never throttles");
        }
        let a = a / net;
        if self.seen_factor(f) > 0.8 {
            return Expect::Blind(
                "a throttle shallower than 0.8×: within the fall the rule requires (0.85×)",
            );
        }
        if a > 0.6 * r.window_s {
            return Expect::Blind(
                "throttles later than the stream's first 60 % (budget / 5, 2–36 s)",
            );
        }
        let first_pass =
            r.region as f64 / 1e6 / self.mean_rate(0.0, r.region as f64 / self.size as f64);
        if first_pass > a - r.window_s / 15.0 {
            return Expect::Blind("throttles before the stream has read the region once");
        }
        if self.warm_up.is_some() {
            return Expect::Blind(
                "a warm-up before or until the throttle: the fast level the fall is measured from (the stream's \
                 first seconds) is read while warming",
            );
        }
        if self.cache_holds_region() {
            return Expect::Blind(
                "a read cache holds the stream region: the throttled media is not read",
            );
        }
        let rest = (a * 0.5).clamp(1.0, 15.0);
        let cooling = if rest < 0.8 * cool {
            c("cooling_s", cool, Tol::Rel(0.35, 0.5))
        } else {
            c("cooling_s", cool, Tol::AtLeast(0.1))
        };
        let mut checks = vec![
            c("time_to_throttle_s", a, Tol::Rel(0.1, 0.5)),
            c("factor", self.seen_factor(f), Tol::Abs(0.06)),
        ];
        // Not judged with a read cache of a tenth of the region or more: the reads after the rest hit it where it
        // holds the region, fast whatever the heat, and the rest reads as long enough. Nor where the rest buys
        // under 1.5 s of fast work (the model cools `rest / cool` of its heat, 5 % above the throttle's): the
        // rule times no fall within a second, and says the cooling is well over the rest.
        let fast_again = a * (1.05 * rest / cool - 0.05);
        if self.read_cache.is_none_or(|(b, _)| b < r.region / 10)
            && (rest >= 0.8 * cool || fast_again >= 1.5)
        {
            checks.push(cooling);
        }
        Expect::Found(checks)
    }

    fn read_cache(&self) -> Expect {
        let r = self.reach();
        let Some((b, rate)) = self.read_cache else {
            return Expect::Absent;
        };
        if self.cache_holds_region() {
            return Expect::Blind(
                "a read cache at least the stream region serves every pass after the first: the media rate is never \
                 measured, and the re-reads run as fast as the reads",
            );
        }
        let hit = self.cap(hit_rate(r.bs, rate));
        let media = self.read_rate(0, r.bs, 4);
        if hit < 1.7 * media {
            return Expect::Blind("hits no faster than 1.7× the media");
        }
        let first = (8 * MIB).min(r.region / 8);
        if b < first + first / 8 {
            return Expect::Blind(
                "smaller than the first working set (8 MiB, or 1/8 of the region)",
            );
        }
        if b >= r.region {
            return Expect::Found(vec![c("lower_bytes", b as f64, Tol::AtMost(0.0))]);
        }
        Expect::Found(vec![
            c("lower_bytes", b as f64, Tol::AtMost(0.0)),
            c("upper_bytes", b as f64, Tol::AtLeast(0.0)),
            c("cache_bytes", b as f64, Tol::Rel(0.5, 0.0)),
        ])
    }

    fn write_burst(&self) -> Expect {
        if !self.writes {
            return Expect::Blind("read-only diagnosis");
        }
        let Some((b, rate)) = self.write_cache else {
            if self.throttle.is_some() {
                return Expect::Blind(
                    "a throttle during the writes steps down as a cache filling does",
                );
            }
            return Expect::Absent;
        };
        if self.throttle.is_some() {
            return Expect::Blind(
                "a throttle during the writes steps down as a cache filling does",
            );
        }
        let r = self.reach();
        // A warm-up lasting through the whole diagnosis slows the media's writes as its reads; one that ends
        // after the stream window may end during the writes; one within it leaves positions the stream read only
        // while slow in the read curve (less than one pass in its settled last third), which weighs the write's
        // progress wrong.
        let mut k = 1.0;
        if let Some((d, f)) = self.warm_up {
            let pass =
                r.region as f64 / 1e6 / self.mean_rate(0.0, r.region as f64 / self.size as f64);
            if d >= self.budget_s as f64 {
                k = f;
            } else if d > r.window_s - 1.0 {
                return Expect::Blind(
                    "a warm-up outlasting the stream window may end during the writes: the sustained rate is the \
                     warming media's, or not",
                );
            } else if pass > r.window_s / 3.0 {
                return Expect::Blind(
                    "the read curve keeps positions read only while warming (less than one pass in the stream's \
                     settled last third): the write's progress is weighted by it",
                );
            }
        }
        let burst = self.cap(rate);
        let sustained = self.write_rate_over(0.0, r.region as f64, k);
        if burst < 1.5 * sustained {
            return Expect::Blind("the cache takes writes less than 1.5× faster than the media");
        }
        let fill_s = b as f64 / 1e6 / (burst - sustained);
        let written = burst * 1e6 * fill_s;
        // The write stops once it has run past the step as long as before it (2 s at least): the sustained rate
        // is the media's over the positions written then (a hard disk's zones differ along the region).
        let after = sustained * 1e6 * fill_s.max(2.0);
        let sustained = self.write_rate_over(written, written + after, k);
        if written < 6.0 * r.region as f64 / 256.0 {
            return Expect::Blind("fills within the first few stretches of the write");
        }
        // With no step by then, the write stops after 5 s once it has covered the region.
        if burst * 1e6 * 5.0 >= r.region as f64 && fill_s > 4.5 {
            return Expect::Blind(
                "fills later than the write runs (it stops after 5 s once it has covered the region with no step)",
            );
        }
        if fill_s > 8.0 {
            return Expect::Blind("fills later than the write window settles (8 s)");
        }
        Expect::Found(vec![
            c("burst_mb_per_s", burst, Tol::Rel(0.1, 0.0)),
            c("sustained_mb_per_s", sustained, Tol::Rel(0.15, 0.0)),
            // The step is placed at a stretch's edge: one stretch (region / 256) on top of the share.
            c(
                "written_before_step",
                written,
                Tol::Rel(0.25, r.region as f64 / 256.0),
            ),
        ])
    }

    fn smr(&self) -> Expect {
        if !self.writes {
            return Expect::Blind("read-only diagnosis");
        }
        let Some(m) = self.smr else {
            return Expect::Absent;
        };
        let block = 64 << 10;
        let before = self.cap(m.rate);
        let write_s = block as f64 / 1e6 / before;
        let cycle = m.band as f64 / block as f64 * write_s;
        let share = m.stall_ns as f64 / 1e9 / (m.stall_ns as f64 / 1e9 + cycle);
        let window = (self.budget_s as f64 / 8.0).max(5.0);
        let fill = m.cache as f64 / 1e6 / before;
        if share < 0.45 {
            return Expect::Blind("stalls take under 45 % of the time after the fall");
        }
        if fill + 4.0 * (cycle + m.stall_ns as f64 / 1e9) > window / 2.0 {
            return Expect::Blind("the media cache fills too late in the window to see stalls");
        }
        // The rule fits a step with four stretches before it at least; a stretch is 1 MiB and 25 ms at least. The
        // cache is two write-experiment commands fuller at the start (see media_cache_bytes).
        let stretch = ((1u64 << 20) as f64).max(before * 1e6 * 0.025);
        if (m.cache as f64 - 2.0 * self.reach().bs as f64) / stretch < 5.0 {
            return Expect::Blind(
                "the media cache fills within the first five stretches of the random writes (1 MiB and 25 ms each at \
                 least): too few to fit the step",
            );
        }
        // A busy host sees each write late by up to its jitter, and a stall later by a slow completion too.
        let (jitter, slow) = self.noise.map_or((0.0, 0.0), |n| {
            (n.jitter_ns as f64 / 1e9, n.slow_ns as f64 / 1e9)
        });
        Expect::Found(vec![
            // The write-cache experiment before it starts a stream at the region's head, and again when it wraps:
            // each start continues no stream and goes to the media cache, which is that much fuller at the start.
            c(
                "media_cache_bytes",
                m.cache as f64,
                Tol::Rel(0.1, 2.0 * self.reach().bs as f64),
            ),
            c(
                "before_mb_per_s",
                before,
                Tol::Rel(0.1 + jitter / write_s, 0.0),
            ),
            c(
                "stall_max_s",
                m.stall_ns as f64 / 1e9,
                Tol::Rel(0.05, jitter + slow),
            ),
        ])
    }

    fn no_queueing(&self) -> Expect {
        // One command: an access and the media transfer, then the link's, which the model lets overlap the next
        // command (it paces completions to the link's rate, and adds nothing to a lone command that the link
        // already carried the last one of); deep: the lanes overlap the accesses, the media and the link each
        // move one transfer at a time.
        let xfer = 4096.0 * 1e3 / self.media_at(self.size / 2);
        let link = self.link.map_or(0.0, |l| 4096.0 * 1e3 / l);
        let one = (self.access_ns as f64 + xfer).max(link);
        let deep = (self.lanes as f64 / (self.access_ns as f64 + xfer))
            .min(1.0 / xfer)
            .min(1.0 / link.max(1e-9));
        let gain = deep * one;
        // The host's mean lateness per completion: a one-at-a-time run waits it out each time, a deep one does not.
        let late = self.noise.map_or(0.0, |n| {
            n.jitter_ns as f64 / 2.0 + n.slow_share * n.slow_ns as f64
        });
        if late >= 0.05 * one {
            return Expect::Blind(
                "the host's completion latency (jitter and slow completions) is 5 % or more of a command's time: a \
                 deep queue hides it as a device queue would",
            );
        }
        if self.read_cache.is_some_and(|(b, _)| b >= self.size / 20) {
            return Expect::Blind(
                "a read cache holds 5 % of the device or more: random reads that hit it overlap the media's",
            );
        }
        let deep_mb = deep * 4096.0 * 1e3;
        let top = self.read_rate(0, self.reach().bs, 4);
        if deep_mb >= 0.8 * top || drivescope_analysis::usual_ceiling(deep_mb).is_some() {
            return Expect::Blind(
                "random reads at a usual link's rate or the top rate: a ceiling, not the queue",
            );
        }
        // The one-at-a-time run (1.5 s) waits out each slow completion the host sees: a few of them, as chance
        // has it, take their share of the run off its rate.
        let slow = self.noise.map_or(0.0, |n| {
            let count = 1.5e9 / one * n.slow_share;
            (count + 2.0 * count.sqrt()) * n.slow_ns as f64 / 1.5e9
        });
        if gain < 1.08 {
            Expect::Found(vec![c("gain", gain, Tol::Abs(0.08 + slow))])
        } else if gain > 1.3 {
            Expect::Absent
        } else {
            Expect::Blind("queueing gains 1.08–1.3×: between served one at a time and overlapped")
        }
    }
}
