//! The array rule against the lab's array truth over a space of arrays: mirrors and stripes of two to eight
//! members from 20 MB/s to 3 GB/s, on independent paths, behind a bus that serializes them or one that caps
//! them, with or without one slow member, drawn with a fixed seed. The reads are the truth's rates with the
//! spread a real run shows (each member alone −7 to +3 %, together −8 to +2 %). The verdict (parallel,
//! capped, taking turns), the slow member and the array's own rates must match the truth, and a healthy array
//! on independent paths must give no finding anywhere in the space.
//!
//! Left out of the space, as no read can tell them apart: a bus between the fastest member's rate and 1.45× it
//! (taking turns or a cap just wider than one member), a bus that lets through more than 70 % of the members'
//! sum (a cap so light that the host's own spread is as large), and a member between 52 and 68 % of the
//! others' rate (slow or not, by the run's spread).

use drivescope_analysis::array::{assess, findings, Together};
use drivescope_analysis::diagnose::array::assess as assess_diagnosis;
use drivescope_lab::array::{preset, ArrayPreset, ArrayTruth, Layout, Paths};
use drivescope_record::{Array, ArrayKind, ArrayMember, ArrayReads, FindingCode, Verdict};
use std::path::PathBuf;

/// A fixed-seed generator (PCG-style LCG, the high bits).
struct Draw(u64);

impl Draw {
    fn unit(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }
    fn log_range(&mut self, lo: f64, hi: f64) -> f64 {
        (lo.ln() + (hi.ln() - lo.ln()) * self.unit()).exp()
    }
    fn count(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.unit() * (hi - lo + 1) as f64) as usize
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Bus {
    None,
    Serializing,
    Capping,
}

/// One array drawn from the space, or `None` for a draw in a band no read can settle.
fn draw(d: &mut Draw, bus: Bus, slow: bool) -> Option<ArrayPreset> {
    let layout = if d.unit() < 0.5 {
        Layout::Mirror
    } else {
        Layout::Stripe
    };
    let n = d.count(2, 8);
    let rate = d.log_range(20.0, 3000.0);
    let slow = slow.then(|| (d.count(0, n - 1), d.range(0.05, 0.45)));
    let bus_mb_s = match bus {
        Bus::None => None,
        Bus::Serializing => Some(rate * d.range(0.5, 1.0)),
        Bus::Capping => Some(rate * d.range(1.4, n as f64)),
    };
    let p = preset(layout, n, rate, 256 << 20, bus_mb_s, slow).expect("a valid preset");
    let t = p.truth();
    let sum: f64 = t.alone_mb_per_s.iter().sum();
    let fastest = t.alone_mb_per_s.iter().cloned().fold(0.0, f64::max);
    let slowest = t
        .alone_mb_per_s
        .iter()
        .cloned()
        .fold(f64::INFINITY, f64::min);
    let mut others = t.alone_mb_per_s.clone();
    others.sort_by(f64::total_cmp);
    others.remove(0);
    let share = slowest / others[others.len() / 2];
    let ambiguous = (t.paths != Paths::Parallel
        && (t.together_mb_per_s > 0.7 * sum
            || (t.together_mb_per_s > fastest && t.together_mb_per_s < 1.45 * fastest)))
        || (0.52..0.68).contains(&share);
    (!ambiguous).then_some(p)
}

/// What a run reads on `t`: the truth's rates with a real run's spread.
fn reads(d: &mut Draw, t: &ArrayTruth, layout: Layout) -> ArrayReads {
    let n = t.alone_mb_per_s.len();
    let alone: Vec<f64> = t
        .alone_mb_per_s
        .iter()
        .map(|a| a * d.range(0.93, 1.03))
        .collect();
    // The members' shares of what gets through together, a little uneven.
    let shares: Vec<f64> = t
        .alone_mb_per_s
        .iter()
        .map(|a| a * d.range(0.9, 1.1))
        .collect();
    let total: f64 = shares.iter().sum();
    let together_sum = t.together_mb_per_s * d.range(0.92, 1.02);
    let together = shares.iter().map(|s| s / total * together_sum).collect();
    let (lo, hi) = t.one_reader_mb_per_s;
    let one = d.range(lo, hi) * d.range(0.93, 1.03);
    let members = (0..n)
        .map(|i| ArrayMember {
            name: format!("loop{}", 10 + i),
            dev_path: PathBuf::from(format!("/dev/loop{}", 10 + i)),
            major_minor: None,
        })
        .collect();
    ArrayReads {
        array: Array {
            target: PathBuf::from("/mnt/array"),
            kind: ArrayKind::Btrfs,
            name: "4f1c0a2e".into(),
            level: Some(layout_level(layout).into()),
            profiles: vec![layout_level(layout).into()],
            members,
            controller: None,
            notes: Vec::new(),
        },
        block_size: 1 << 20,
        queue_depth: 4,
        duration_ns: 1_000_000_000,
        alone_mb_per_s: alone,
        together_mb_per_s: together,
        array_mb_per_s: Some(one),
        readers: n as u32,
        readers_mb_per_s: Some(
            d.range(t.readers_mb_per_s.0, t.readers_mb_per_s.1) * d.range(0.92, 1.02),
        ),
    }
}

fn layout_level(l: Layout) -> &'static str {
    l.btrfs_profile()
}

/// Run `cases` draws of one corner of the space and check each against its truth.
fn space(seed: u64, cases: usize, bus: Bus, slow: bool) -> usize {
    let mut d = Draw(seed);
    let mut checked = 0;
    while checked < cases {
        let Some(p) = draw(&mut d, bus, slow) else {
            continue;
        };
        let t = p.truth();
        let r = reads(&mut d, &t, p.layout);
        let v = assess(&r);
        let f = findings(&r);
        let codes: Vec<FindingCode> = f.iter().map(|f| f.code.clone()).collect();
        let case = format!("{} {t:?} {r:?}", p.name);
        match t.paths {
            Paths::Parallel => {
                assert!(matches!(v.together, Together::Parallel { .. }), "{case}");
                assert!(!codes.contains(&FindingCode::SharedPath), "{case}");
            }
            Paths::Serialized | Paths::Capped => {
                let serialized = t.paths == Paths::Serialized;
                assert!(
                    matches!(v.together, Together::Capped { serialized: s, .. } if s == serialized),
                    "{case}: {:?}",
                    v.together
                );
                let shared = f.iter().find(|f| f.code == FindingCode::SharedPath);
                let cap = shared.and_then(|f| f.number("ceiling_mb_per_s"));
                // The cap said within the run's spread of the truth.
                assert!(
                    cap.is_some_and(|c| (c / t.together_mb_per_s - 1.0).abs() <= 0.1),
                    "{case}"
                );
            }
        }
        assert_eq!(v.slow.as_ref().map(|s| s.index), t.slow_member, "{case}");
        let slow_named = f.iter().find(|f| f.code == FindingCode::SlowMember);
        assert_eq!(
            slow_named.and_then(|f| f.number("member")),
            t.slow_member.map(|i| i as f64),
            "{case}"
        );
        if let Some(i) = t.slow_member {
            let claim = &slow_named.expect("named").claim;
            assert!(
                claim.contains(&format!("member loop{} ", 10 + i)),
                "{claim}"
            );
        }
        // The diagnosis line: the evidence of every member and the array's own rates.
        let (df, o) = assess_diagnosis(&r);
        assert_eq!(df, f);
        assert_eq!(
            o.verdict,
            if f.is_empty() {
                Verdict::NotFound
            } else {
                Verdict::Found
            }
        );
        for m in &r.array.members {
            assert!(o.text.contains(&m.name), "{}", o.text);
        }
        assert!(o.text.contains("with one reader"), "{}", o.text);
        let policy = o.text.contains("read policy");
        let healthy_mirror =
            p.layout == Layout::Mirror && t.paths == Paths::Parallel && t.slow_member.is_none();
        assert_eq!(policy, healthy_mirror, "{}", o.text);
        if p.layout == Layout::Stripe && t.slow_member.is_some() {
            assert!(o.text.contains("slowest member's pace"), "{}", o.text);
        }
        checked += 1;
    }
    checked
}

#[test]
fn healthy_arrays_on_independent_paths_give_no_finding() {
    let mut d = Draw(0xa11a_0001);
    for _ in 0..3000 {
        let p = draw(&mut d, Bus::None, false).expect("never ambiguous");
        let t = p.truth();
        let r = reads(&mut d, &t, p.layout);
        let f = findings(&r);
        assert!(f.is_empty(), "{}: {f:?} from {r:?}", p.name);
        assert_eq!(assess_diagnosis(&r).1.verdict, Verdict::NotFound);
    }
}

#[test]
fn arrays_behind_a_serializing_bus_are_said_to_take_turns() {
    assert_eq!(space(0xa11a_0002, 1500, Bus::Serializing, false), 1500);
}

#[test]
fn arrays_behind_a_capping_bus_are_said_capped_at_it() {
    assert_eq!(space(0xa11a_0003, 1500, Bus::Capping, false), 1500);
}

#[test]
fn the_slow_member_is_named_on_every_path() {
    for (seed, bus) in [
        (0xa11a_0004, Bus::None),
        (0xa11a_0005, Bus::Serializing),
        (0xa11a_0006, Bus::Capping),
    ] {
        assert_eq!(space(seed, 1000, bus, true), 1000);
    }
}
