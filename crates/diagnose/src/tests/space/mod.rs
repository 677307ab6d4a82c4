//! Model spaces with known truth: device models drawn at random from ranges at least as wide as real hardware,
//! several behaviours at once, on a busy host; each draw is a [`Spec`], which is its own truth (what is present,
//! with its numbers), and becomes a scripted [`Model`]. [`expect`] says what a diagnosis within the draw's
//! budget can see of each behaviour; [`score`] measures every finding against it.
//!
//! The ranges ([`Space::WIDE`]):
//! - hard disks: outer rate 60–300 MB/s, inner 40–80 % of it, over 1 (a linear fall) to 16 equal zones, an
//!   access of 2–20 ms, 1–32 commands overlapping; flash: flat 20–3000 MB/s, an access of 20 µs–1 ms, 1–64
//!   commands overlapping; writes at 0.2–1× the read rate; sizes 128 MiB (lab disks) to 20 TB;
//! - read and write caches of 4 MiB–4 GiB (reads at 1.2–20× the media, writes at 1–20× the media's writes);
//! - a warm-up, and a throttle, each from 5 s to 2 min at 0.3–0.9× (a throttle cools in 2 s–2 min);
//! - a ceiling (link) anywhere in 20–3000 MB/s, below or above the media;
//! - on hard disks, drive-managed SMR: a media cache of 16 MiB–1 GiB at 50–250 MB/s, bands of 256 KiB–64 MiB,
//!   100 ms–2 s per band cleaned, draining at 20–200 MB/s from 0.5–5 s of idle;
//! - a busy host: completions seen up to 0–200 µs late, and 0–1 % of them 1–50 ms later still;
//! - a budget of 60 s to 3 min on the virtual clock, writes allowed or not.

pub mod expect;
pub mod lab;
pub mod presets;
pub mod rng;
pub mod score;

use super::model::{Model, Noise, Smr, GIB, MIB};
use super::support::options;
use crate::DiagnoseOptions;
use rng::Rng;
use std::ops::RangeInclusive;
use std::time::Duration;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Media {
    Hdd,
    Flash,
}

/// One drawn device and how it is diagnosed.
#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    pub media: Media,
    pub size: u64,
    pub outer: f64,
    pub inner: f64,
    /// 0 or 1: a linear fall; 2 or more: equal zones.
    pub zones: u32,
    pub access_ns: u64,
    pub lanes: usize,
    /// The media writes at this share of its read rate.
    pub write_factor: f64,
    /// Seconds, factor.
    pub warm_up: Option<(f64, f64)>,
    /// Seconds of work before it throttles, factor, seconds of rest that cool it.
    pub throttle: Option<(f64, f64, f64)>,
    /// Bytes, MB/s.
    pub read_cache: Option<(u64, f64)>,
    pub write_cache: Option<(u64, f64)>,
    pub link: Option<f64>,
    pub smr: Option<Smr>,
    pub noise: Option<Noise>,
    pub writes: bool,
    pub budget_s: u64,
}

/// The documented ranges a space draws from.
pub struct Space {
    pub hdd_outer: RangeInclusive<f64>,
    pub hdd_inner_share: RangeInclusive<f64>,
    pub hdd_zones: RangeInclusive<u32>,
    pub hdd_access_ms: RangeInclusive<f64>,
    pub flash_rate: RangeInclusive<f64>,
    pub flash_access_us: RangeInclusive<f64>,
    pub lanes: RangeInclusive<usize>,
    pub write_factor: RangeInclusive<f64>,
    pub size: RangeInclusive<u64>,
    pub cache_bytes: RangeInclusive<u64>,
    pub read_cache_speedup: RangeInclusive<f64>,
    pub write_cache_speedup: RangeInclusive<f64>,
    pub slow_s: RangeInclusive<f64>,
    pub slow_factor: RangeInclusive<f64>,
    pub cooling_s: RangeInclusive<f64>,
    pub link: RangeInclusive<f64>,
    pub smr_cache: RangeInclusive<u64>,
    pub smr_rate: RangeInclusive<f64>,
    pub smr_band: RangeInclusive<u64>,
    pub smr_stall_ms: RangeInclusive<f64>,
    pub smr_idle_s: RangeInclusive<f64>,
    pub smr_drain: RangeInclusive<f64>,
    pub jitter_us: RangeInclusive<f64>,
    pub slow_share: RangeInclusive<f64>,
    pub slow_ms: RangeInclusive<f64>,
    pub budget_s: RangeInclusive<u64>,
    /// Chance of each behaviour in a draw.
    pub chance: f64,
}

impl Space {
    pub const WIDE: Space = Space {
        hdd_outer: 60.0..=300.0,
        hdd_inner_share: 0.4..=0.8,
        hdd_zones: 1..=16,
        hdd_access_ms: 2.0..=20.0,
        flash_rate: 20.0..=3000.0,
        flash_access_us: 20.0..=1000.0,
        lanes: 1..=64,
        write_factor: 0.2..=1.0,
        size: (128 * MIB)..=20_000_000_000_000,
        cache_bytes: (4 * MIB)..=(4 * GIB),
        read_cache_speedup: 1.2..=20.0,
        write_cache_speedup: 1.0..=20.0,
        slow_s: 5.0..=120.0,
        slow_factor: 0.3..=0.9,
        cooling_s: 2.0..=120.0,
        link: 20.0..=3000.0,
        smr_cache: (16 * MIB)..=GIB,
        smr_rate: 50.0..=250.0,
        smr_band: (256 << 10)..=(64 * MIB),
        smr_stall_ms: 100.0..=2000.0,
        smr_idle_s: 0.5..=5.0,
        smr_drain: 20.0..=200.0,
        jitter_us: 0.0..=200.0,
        slow_share: 0.0..=0.01,
        slow_ms: 1.0..=50.0,
        budget_s: 60..=180,
        chance: 0.3,
    };

    fn f(r: &mut Rng, x: &RangeInclusive<f64>) -> f64 {
        r.range(*x.start(), *x.end())
    }
    fn l(r: &mut Rng, x: &RangeInclusive<f64>) -> f64 {
        r.log(*x.start(), *x.end())
    }
    fn b(r: &mut Rng, x: &RangeInclusive<u64>) -> u64 {
        r.log(*x.start() as f64, *x.end() as f64) as u64 / 4096 * 4096
    }

    /// The device the seed `seed` draws.
    pub fn draw(&self, seed: u64) -> Spec {
        let r = &mut Rng::new(seed);
        let media = if r.chance(0.5) {
            Media::Hdd
        } else {
            Media::Flash
        };
        let (outer, inner, zones, access_ns, lanes) = match media {
            Media::Hdd => {
                let outer = Self::f(r, &self.hdd_outer);
                let z = r.int(*self.hdd_zones.start() as u64, *self.hdd_zones.end() as u64) as u32;
                let lanes = if r.chance(0.5) {
                    1
                } else {
                    r.int(2, 32) as usize
                };
                (
                    outer,
                    outer * Self::f(r, &self.hdd_inner_share),
                    z,
                    (Self::f(r, &self.hdd_access_ms) * 1e6) as u64,
                    lanes,
                )
            }
            Media::Flash => {
                let rate = Self::l(r, &self.flash_rate);
                let lanes = if r.chance(0.3) {
                    1
                } else {
                    r.log(2.0, *self.lanes.end() as f64 + 1.0) as usize
                };
                (
                    rate,
                    rate,
                    0,
                    (Self::l(r, &self.flash_access_us) * 1e3) as u64,
                    lanes,
                )
            }
        };
        let size = Self::b(r, &self.size);
        let c = self.chance;
        let slow = |r: &mut Rng| (Self::l(r, &self.slow_s), Self::f(r, &self.slow_factor));
        let warm_up = r.chance(c).then(|| slow(r));
        let throttle = r.chance(c).then(|| {
            let (s, f) = slow(r);
            (s, f, Self::l(r, &self.cooling_s))
        });
        let read_cache = r.chance(c).then(|| {
            (
                Self::b(r, &self.cache_bytes),
                outer * Self::l(r, &self.read_cache_speedup),
            )
        });
        let write_factor = if media == Media::Flash {
            Self::f(r, &self.write_factor)
        } else {
            1.0
        };
        let smr = (media == Media::Hdd && r.chance(c)).then(|| Smr {
            cache: Self::b(r, &self.smr_cache),
            rate: Self::f(r, &self.smr_rate),
            band: Self::b(r, &self.smr_band),
            stall_ns: (Self::l(r, &self.smr_stall_ms) * 1e6) as u64,
            idle_after_ns: (Self::f(r, &self.smr_idle_s) * 1e9) as u64,
            drain: Self::f(r, &self.smr_drain),
        });
        // The model's write cache and media cache are one or the other.
        let write_cache = (smr.is_none() && r.chance(c)).then(|| {
            (
                Self::b(r, &self.cache_bytes),
                outer * write_factor * Self::l(r, &self.write_cache_speedup),
            )
        });
        let link = r.chance(c).then(|| Self::l(r, &self.link));
        let noise = r.chance(0.5).then(|| Noise {
            seed: r.next_u64(),
            jitter_ns: (Self::f(r, &self.jitter_us) * 1e3) as u64,
            slow_share: Self::f(r, &self.slow_share),
            slow_ns: (Self::l(r, &self.slow_ms) * 1e6) as u64,
        });
        Spec {
            media,
            size,
            outer,
            inner,
            zones,
            access_ns,
            lanes,
            write_factor,
            warm_up,
            throttle,
            read_cache,
            write_cache,
            link,
            smr,
            noise,
            writes: r.chance(0.6),
            budget_s: r.int(*self.budget_s.start(), *self.budget_s.end()),
        }
    }

    /// Why `s` lies outside the space, if it does.
    pub fn outside(&self, s: &Spec) -> Option<String> {
        let mut why = Vec::new();
        let mut check = |what: &str, ok: bool| {
            if !ok {
                why.push(what.to_string());
            }
        };
        match s.media {
            Media::Hdd => {
                check("outer rate", self.hdd_outer.contains(&s.outer));
                check(
                    "inner share",
                    self.hdd_inner_share.contains(&(s.inner / s.outer)),
                );
                check("zones", self.hdd_zones.contains(&s.zones.max(1)));
                check(
                    "access",
                    self.hdd_access_ms.contains(&(s.access_ns as f64 / 1e6)),
                );
                check("write factor", s.write_factor == 1.0);
            }
            Media::Flash => {
                check("flash rate", self.flash_rate.contains(&s.outer));
                check("flat", s.inner == s.outer && s.zones <= 1);
                check(
                    "access",
                    self.flash_access_us.contains(&(s.access_ns as f64 / 1e3)),
                );
                check("write factor", self.write_factor.contains(&s.write_factor));
                check("no SMR on flash", s.smr.is_none());
            }
        }
        check("lanes", self.lanes.contains(&s.lanes));
        check("size", self.size.contains(&s.size));
        let slow = |x: Option<(f64, f64)>| {
            x.is_none_or(|(t, f)| self.slow_s.contains(&t) && self.slow_factor.contains(&f))
        };
        check("warm-up", slow(s.warm_up));
        check(
            "throttle",
            slow(s.throttle.map(|(t, f, _)| (t, f)))
                && s.throttle.is_none_or(|t| self.cooling_s.contains(&t.2)),
        );
        check(
            "read cache",
            s.read_cache.is_none_or(|(b, r)| {
                self.cache_bytes.contains(&b) && self.read_cache_speedup.contains(&(r / s.outer))
            }),
        );
        check(
            "write cache",
            s.write_cache.is_none_or(|(b, r)| {
                self.cache_bytes.contains(&b)
                    && self
                        .write_cache_speedup
                        .contains(&(r / (s.outer * s.write_factor)))
            }),
        );
        check("link", s.link.is_none_or(|l| self.link.contains(&l)));
        check(
            "smr",
            s.smr.is_none_or(|m| {
                self.smr_cache.contains(&m.cache)
                    && self.smr_rate.contains(&m.rate)
                    && self.smr_band.contains(&m.band)
                    && self.smr_stall_ms.contains(&(m.stall_ns as f64 / 1e6))
                    && self.smr_idle_s.contains(&(m.idle_after_ns as f64 / 1e9))
                    && self.smr_drain.contains(&m.drain)
                    && s.write_cache.is_none()
            }),
        );
        (!why.is_empty()).then(|| why.join(", "))
    }
}

impl Spec {
    /// The scripted device.
    pub fn model(&self) -> Model {
        let s = |x: f64| (x * 1e9) as u64;
        Model {
            size: self.size,
            outer: self.outer,
            inner: self.inner,
            zones: self.zones,
            access_ns: self.access_ns,
            lanes: self.lanes,
            seq_free: self.media == Media::Hdd,
            write_factor: self.write_factor,
            warm_up: self.warm_up.map(|(t, f)| (s(t), f)),
            throttle: self.throttle.map(|(t, f, c)| (s(t), f, s(c))),
            read_cache: self.read_cache,
            write_cache: self.write_cache,
            link: self.link,
            smr: self.smr,
            noise: self.noise,
            ..super::model::ssd()
        }
    }

    /// The diagnosis of the whole device, as `drivescope diagnose` runs it.
    pub fn options(&self) -> DiagnoseOptions {
        DiagnoseOptions {
            size: self.size,
            budget: Duration::from_secs(self.budget_s),
            writes: self.writes,
            ..options(self.budget_s)
        }
    }
}
