//! Scales (linear, log) and their ticks.

/// How far (pixels) the end of a range must lie from the last nice tick to get a label of its own.
const END_ROOM_PX: f64 = 40.0;

/// Maps data values to pixels along one axis.
#[derive(Debug, Clone, Copy)]
pub struct Scale {
    pub lo: f64,
    pub hi: f64,
    pub log: bool,
    /// Pixel of `lo` and of `hi` (for a y axis `p0` is the bottom).
    pub p0: f64,
    pub p1: f64,
}

impl Scale {
    /// A linear scale over [lo, hi], widened to nice tick boundaries.
    pub fn linear(lo: f64, hi: f64, p0: f64, p1: f64) -> Scale {
        let (lo, hi) = if hi > lo {
            (lo, hi)
        } else {
            (lo - 1.0, lo + 1.0)
        };
        let step = nice_step((hi - lo) / 5.0);
        Scale {
            lo: (lo / step).floor() * step,
            hi: (hi / step).ceil() * step,
            log: false,
            p0,
            p1,
        }
    }

    /// A linear scale over exactly [lo, hi]: for an axis that is a range (positions on a device,
    /// time of a run), which ends at the range's end and not at the next nice number past it.
    /// Its ticks are the nice ones inside, and the end itself where it is not crowded by the last.
    pub fn range(lo: f64, hi: f64, p0: f64, p1: f64) -> Scale {
        let (lo, hi) = if hi > lo { (lo, hi) } else { (lo, lo + 1.0) };
        Scale {
            lo,
            hi,
            log: false,
            p0,
            p1,
        }
    }

    /// A log10 scale over exactly [lo, hi] (lo > 0): [`Scale::range`] for a log axis.
    pub fn log_range(lo: f64, hi: f64, p0: f64, p1: f64) -> Scale {
        let lo = lo.max(f64::MIN_POSITIVE);
        let hi = if hi > lo { hi } else { lo * 10.0 };
        Scale {
            lo,
            hi,
            log: true,
            p0,
            p1,
        }
    }

    /// A log10 scale over whole decades covering [lo, hi] (lo > 0).
    pub fn log(lo: f64, hi: f64, p0: f64, p1: f64) -> Scale {
        let lo = lo.max(f64::MIN_POSITIVE);
        let hi = hi.max(lo * 10.0);
        Scale {
            lo: 10f64.powf(lo.log10().floor()),
            hi: 10f64.powf(hi.log10().ceil()),
            log: true,
            p0,
            p1,
        }
    }

    /// Pixel of value `v` (clamped into the plot for log scales at or below zero).
    pub fn px(&self, v: f64) -> f64 {
        let t = if self.log {
            (v.max(self.lo).log10() - self.lo.log10()) / (self.hi.log10() - self.lo.log10())
        } else {
            (v - self.lo) / (self.hi - self.lo)
        };
        self.p0 + t * (self.p1 - self.p0)
    }

    /// Tick values: 1-2-5 steps for linear scales, decades (with 2 and 5 when there are few) for log ones,
    /// none past either end. A scale that does not end on a nice value (see [`Scale::range`]) gets
    /// its end as the last tick, unless the last nice tick is too close to it to leave room for its label.
    pub fn ticks(&self) -> Vec<f64> {
        let mut t = if self.log {
            let (a, b) = (
                self.lo.log10().floor() as i32,
                self.hi.log10().ceil() as i32,
            );
            let mults: &[f64] = if b - a <= 3 { &[1.0, 2.0, 5.0] } else { &[1.0] };
            let mut t = Vec::new();
            for e in a..=b {
                for m in mults {
                    let v = m * 10f64.powi(e);
                    if v >= self.lo * 0.9999 && v <= self.hi * 1.0001 {
                        t.push(v);
                    }
                }
            }
            t
        } else {
            let step = nice_step((self.hi - self.lo) / 5.0);
            let mut t = Vec::new();
            let mut v = (self.lo / step - 1e-6).ceil() * step;
            while v <= self.hi + step * 1e-6 {
                t.push(if v.abs() < step * 1e-9 { 0.0 } else { v });
                v += step;
            }
            t
        };
        let room = t
            .last()
            .is_none_or(|&last| (self.px(self.hi) - self.px(last)).abs() >= END_ROOM_PX);
        if room {
            t.push(self.hi);
        }
        t
    }
}

/// The 1, 2 or 5 × 10^k closest above `raw`.
pub fn nice_step(raw: f64) -> f64 {
    if !(raw.is_finite() && raw > 0.0) {
        return 1.0;
    }
    let mag = 10f64.powf(raw.log10().floor());
    let f = raw / mag;
    mag * if f <= 1.0 {
        1.0
    } else if f <= 2.0 {
        2.0
    } else if f <= 5.0 {
        5.0
    } else {
        10.0
    }
}

/// A tick label without needless decimals: `0`, `2.5`, `1000`, `1e+09` stays readable as `1000000000`.
pub fn label(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        let s = format!("{v:.3}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_ticks_are_nice() {
        let s = Scale::linear(0.0, 207.0, 0.0, 100.0);
        assert_eq!(s.ticks(), vec![0.0, 50.0, 100.0, 150.0, 200.0, 250.0]);
        assert_eq!(s.px(0.0), 0.0);
        assert_eq!(s.px(250.0), 100.0);
    }

    #[test]
    fn a_range_ends_at_its_end() {
        // A 256 MiB device: the axis ends at 256, not at the next nice number (300).
        let s = Scale::range(0.0, 256.0, 0.0, 800.0);
        assert_eq!((s.lo, s.hi), (0.0, 256.0));
        assert_eq!(s.ticks(), vec![0.0, 100.0, 200.0, 256.0]);
        assert_eq!(s.px(256.0), 800.0);
        // The end close to the last nice tick: that tick is the last label.
        let s = Scale::range(0.0, 1010.0, 0.0, 800.0);
        assert_eq!(s.ticks(), vec![0.0, 500.0, 1000.0]);
        // A range that is nice already.
        let s = Scale::range(0.0, 60.0, 0.0, 800.0);
        assert_eq!(s.ticks(), vec![0.0, 20.0, 40.0, 60.0]);
        for hi in [0.7, 3.3, 17.0, 256.0, 931.3, 1e6 + 1.0] {
            let t = Scale::range(0.0, hi, 0.0, 800.0).ticks();
            assert!(t.iter().all(|v| (0.0..=hi).contains(v)), "{hi}: {t:?}");
            assert!(t.len() >= 2, "{hi}: {t:?}");
        }
    }

    #[test]
    fn a_log_range_ends_at_its_end() {
        let s = Scale::log_range(1.0, 32.0, 0.0, 800.0);
        assert_eq!(s.ticks(), vec![1.0, 2.0, 5.0, 10.0, 20.0, 32.0]);
        assert!((s.px(32.0) - 800.0).abs() < 1e-9);
        let s = Scale::log_range(1.0, 1000.0, 0.0, 800.0);
        assert_eq!(s.ticks().last(), Some(&1000.0));
    }

    #[test]
    fn log_scale_spans_decades() {
        let s = Scale::log(3e4, 4e8, 0.0, 500.0);
        assert_eq!(s.lo, 1e4);
        assert_eq!(s.hi, 1e9);
        assert!((s.px(1e6) - 200.0).abs() < 1e-9);
        assert_eq!(s.ticks().len(), 6);
    }
}
