//! The array rule against the lab's array truth over a space of arrays: mirrors and stripes of two to eight
//! members and raid10s of four to eight, from 20 MB/s to 3 GB/s, on independent paths, behind a bus that
//! serializes them or one that caps them, with or without one slow member, mirrors of three to eight with or
//! without one member missing, members that write as fast as they read or at a tenth to a half of it, drawn
//! with a fixed seed. The reads are the truth's rates with the
//! spread a real run shows (each member alone −7 to +3 %, together −8 to +2 %). The verdict (parallel,
//! capped, taking turns), the slow member and the array's own rates must match the truth, the missing member is
//! named with what it costs, one writer's rate is said against the layout's promise and found short exactly
//! where the members write slower than they read and no bus hides it, and a healthy array on independent paths must give no finding anywhere in the
//! space.
//!
//! Left out of the space, as no read can tell them apart: a bus between the fastest member's rate and 1.45× it
//! (taking turns or a cap just wider than one member), a bus that lets through more than 70 % of the members'
//! sum (a cap so light that the host's own spread is as large), and a member between 52 and 68 % of the
//! others' rate (slow or not, by the run's spread), and writes between 0.55 and 0.85 of what the members would write as
//! fast as they read (short or not, by the spread).

use drivescope_analysis::array::{assess, findings, Together};
use drivescope_analysis::diagnose::array::assess as assess_diagnosis;
use drivescope_lab::array::{preset, ArrayPreset, ArrayTruth, Layout, Paths};
use drivescope_record::{
    Array, ArrayKind, ArrayMember, ArrayReads, Confidence, FindingCode, Verdict,
};
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

/// One array drawn from the space (a mirror with one member gone when `missing`), or `None` for a draw in a
/// band no read can settle.
fn draw(
    d: &mut Draw,
    bus: Bus,
    slow: bool,
    missing: bool,
    slow_writes: bool,
) -> Option<ArrayPreset> {
    let u = d.unit();
    let layout = if missing || u < 0.4 {
        Layout::Mirror
    } else if u < 0.8 {
        Layout::Stripe
    } else {
        Layout::Raid10
    };
    let n = match layout {
        Layout::Raid10 => 2 * d.count(2, 4),
        _ if missing => d.count(3, 8),
        _ => d.count(2, 8),
    };
    let rate = d.log_range(20.0, 3000.0);
    let slow = slow.then(|| (d.count(0, n - 1), d.range(0.05, 0.45)));
    let bus_mb_s = match bus {
        Bus::None => None,
        Bus::Serializing => Some(rate * d.range(0.5, 1.0)),
        Bus::Capping => Some(rate * d.range(1.4, n as f64)),
    };
    let mut p = preset(layout, n, rate, 256 << 20, bus_mb_s, slow).expect("a valid preset");
    if missing {
        let gone = d.count(0, n - 1);
        p = p.degraded(gone).expect("a mirror of three or more");
    }
    let whole_writes = p.truth().write_mb_per_s.0;
    if slow_writes {
        p = p.writing_at(d.range(0.1, 0.5));
    }
    let t = p.truth();
    let write_share = t.write_mb_per_s.1 / whole_writes;
    let left = left_rates(&t);
    let sum: f64 = left.iter().sum();
    let fastest = left.iter().cloned().fold(0.0, f64::max);
    let slowest = left.iter().cloned().fold(f64::INFINITY, f64::min);
    let mut others = left.clone();
    others.sort_by(f64::total_cmp);
    others.remove(0);
    let share = slowest / others[others.len() / 2];
    let ambiguous = (t.paths != Paths::Parallel
        && (t.together_mb_per_s > 0.7 * sum
            || (t.together_mb_per_s > fastest && t.together_mb_per_s < 1.45 * fastest)))
        || (0.52..0.68).contains(&share)
        || (0.55..0.85).contains(&write_share);
    (!ambiguous).then_some(p)
}

/// The members the array still has, in member order (preset indices).
fn left(t: &ArrayTruth) -> Vec<usize> {
    (0..t.alone_mb_per_s.len())
        .filter(|i| Some(*i) != t.missing)
        .collect()
}

fn left_rates(t: &ArrayTruth) -> Vec<f64> {
    left(t).iter().map(|i| t.alone_mb_per_s[*i]).collect()
}

/// What a run reads on `t`: the truth's rates with a real run's spread, over the members left (a missing
/// member is not in the record, as the probe does not list it, but counted as btrfs's devid: its index + 1).
fn reads(d: &mut Draw, t: &ArrayTruth, layout: Layout) -> ArrayReads {
    let present = left(t);
    let n = t.alone_mb_per_s.len();
    let rates = left_rates(t);
    let alone: Vec<f64> = rates.iter().map(|a| a * d.range(0.93, 1.03)).collect();
    // The members' shares of what gets through together, a little uneven.
    let shares: Vec<f64> = rates.iter().map(|a| a * d.range(0.9, 1.1)).collect();
    let total: f64 = shares.iter().sum();
    let together_sum = t.together_mb_per_s * d.range(0.92, 1.02);
    let together = shares.iter().map(|s| s / total * together_sum).collect();
    let (lo, hi) = t.one_reader_mb_per_s;
    let one = d.range(lo, hi) * d.range(0.93, 1.03);
    let members = present
        .iter()
        .map(|&i| ArrayMember {
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
            missing: t
                .missing
                .map(|m| format!("devid {}", m + 1))
                .into_iter()
                .collect(),
            paths_meet: None,
        },
        block_size: 1 << 20,
        queue_depth: 4,
        duration_ns: 1_000_000_000,
        alone_mb_per_s: alone,
        together_mb_per_s: together,
        array_mb_per_s: Some(one),
        write_mb_per_s: Some(d.range(t.write_mb_per_s.0, t.write_mb_per_s.1) * d.range(0.92, 1.02)),
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
fn space(seed: u64, cases: usize, bus: Bus, slow: bool, missing: bool, slow_writes: bool) -> usize {
    let mut d = Draw(seed);
    let mut checked = 0;
    while checked < cases {
        let Some(p) = draw(&mut d, bus, slow, missing, slow_writes) else {
            continue;
        };
        let t = p.truth();
        let r = reads(&mut d, &t, p.layout);
        let present = left(&t);
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
        assert_eq!(
            v.slow.as_ref().map(|s| present[s.index]),
            t.slow_member,
            "{case}"
        );
        let slow_named = f.iter().find(|f| f.code == FindingCode::SlowMember);
        assert_eq!(
            slow_named.and_then(|f| f.number("member").map(|i| present[i as usize])),
            t.slow_member,
            "{case}"
        );
        // A missing member: said for sure, named as the array counts it, with the members left and their
        // rate together; never on a whole array.
        let degraded = f.iter().find(|f| f.code == FindingCode::Degraded);
        assert_eq!(degraded.is_some(), t.missing.is_some(), "{case}");
        if let (Some(g), Some(m)) = (degraded, t.missing) {
            assert_eq!(g.confidence, Confidence::High);
            assert!(
                g.claim.contains(&format!("(devid {})", m + 1)),
                "{}",
                g.claim
            );
            assert!(g.claim.contains("one copy left"), "{}", g.claim);
            assert_eq!(g.number("members_left"), Some(present.len() as f64));
            assert_eq!(
                g.number("members_counted"),
                Some(t.alone_mb_per_s.len() as f64)
            );
            let together = g.number("together_mb_per_s").expect("the rate together");
            assert!(
                (together / t.together_mb_per_s - 1.0).abs() <= 0.1,
                "{case}"
            );
            // What the whole mirror would read, where the members left read in parallel.
            let whole = g.number("whole_mb_per_s");
            assert_eq!(whole.is_some(), t.paths == Paths::Parallel, "{case}");
            if let Some(w) = whole {
                assert!(w > together * 1.05, "{case}");
            }
        }
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
        // One writer: said against the layout's promise, short exactly where the members write slower than
        // they read and no bus hides it.
        let short = f.iter().find(|f| f.code == FindingCode::ArrayWrites);
        assert_eq!(short.is_some(), t.writes_below_reads, "{case}: {f:?}");
        assert!(o.text.contains("one writer wrote"), "{}", o.text);
        if p.layout == Layout::Stripe {
            let n = t.alone_mb_per_s.len();
            assert!(
                o.text
                    .contains(&format!("a stripe of {n} writes every member in step")),
                "{}",
                o.text
            );
        }
        assert!(!o.text.contains("a cache in front"), "{}", o.text);
        let policy = o.text.contains("read policy");
        let healthy_copies =
            p.layout != Layout::Stripe && t.paths == Paths::Parallel && t.slow_member.is_none();
        assert_eq!(policy, healthy_copies, "{}", o.text);
        assert_eq!(
            o.text.contains("the array is degraded"),
            t.missing.is_some()
        );
        if p.layout == Layout::Raid10 && healthy_copies {
            let half = t.alone_mb_per_s.len() / 2;
            assert!(
                o.text.contains(&format!("about {half} members' rate")),
                "{}",
                o.text
            );
        }
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
        let p = draw(&mut d, Bus::None, false, false, false).expect("never ambiguous");
        let t = p.truth();
        let r = reads(&mut d, &t, p.layout);
        let f = findings(&r);
        assert!(f.is_empty(), "{}: {f:?} from {r:?}", p.name);
        assert_eq!(assess_diagnosis(&r).1.verdict, Verdict::NotFound);
    }
}

#[test]
fn arrays_behind_a_serializing_bus_are_said_to_take_turns() {
    assert_eq!(
        space(0xa11a_0002, 1500, Bus::Serializing, false, false, false),
        1500
    );
}

#[test]
fn arrays_behind_a_capping_bus_are_said_capped_at_it() {
    assert_eq!(
        space(0xa11a_0003, 1500, Bus::Capping, false, false, false),
        1500
    );
}

#[test]
fn the_slow_member_is_named_on_every_path() {
    for (seed, bus) in [
        (0xa11a_0004, Bus::None),
        (0xa11a_0005, Bus::Serializing),
        (0xa11a_0006, Bus::Capping),
    ] {
        assert_eq!(space(seed, 1000, bus, true, false, false), 1000);
    }
}

#[test]
fn a_missing_member_is_named_with_its_cost_on_every_path() {
    for (seed, bus, slow) in [
        (0xa11a_0007, Bus::None, false),
        (0xa11a_0008, Bus::Serializing, false),
        (0xa11a_0009, Bus::Capping, false),
        (0xa11a_000a, Bus::None, true),
    ] {
        assert_eq!(space(seed, 1000, bus, slow, true, false), 1000);
    }
}

#[test]
fn writes_short_of_the_layouts_promise_are_found_and_a_bus_that_hides_them_is_not() {
    for (seed, bus) in [
        (0xa11a_000b, Bus::None),
        (0xa11a_000c, Bus::Serializing),
        (0xa11a_000d, Bus::Capping),
    ] {
        assert_eq!(space(seed, 1000, bus, false, false, true), 1000);
    }
}

/// A cache in front of the members (a ZFS pool's ARC over a test file it just wrote, a controller's cache)
/// serves the array faster than all its members together: said so, with no read policy or spread claimed from
/// the cache's rates, and the members' own findings unchanged. Its twin is every draw above, whose array reads
/// no faster than its members: never said there.
#[test]
fn an_array_read_from_a_cache_is_said_so_and_no_read_policy_is_claimed_from_it() {
    let mut d = Draw(0xa11a_00c0);
    let mut checked = 0;
    while checked < 1000 {
        let bus = match d.count(0, 2) {
            0 => Bus::None,
            1 => Bus::Serializing,
            _ => Bus::Capping,
        };
        let slow = d.unit() < 0.3;
        let Some(p) = draw(&mut d, bus, slow, false, false) else {
            continue;
        };
        let t = p.truth();
        let mut r = reads(&mut d, &t, p.layout);
        let before = findings(&r);
        let sum: f64 = r.alone_mb_per_s.iter().sum();
        let together: f64 = r.together_mb_per_s.iter().sum();
        let most = sum.max(together);
        let cache = most * d.log_range(1.6, 200.0);
        r.array_mb_per_s = Some(cache);
        r.readers_mb_per_s = Some(cache * d.range(0.9, 1.3));
        let (f, o) = assess_diagnosis(&r);
        assert_eq!(f, before, "{}", o.text);
        assert!(
            o.text.contains("a cache in front of them served it"),
            "{}",
            o.text
        );
        assert!(o.text.contains("from the cache too"), "{}", o.text);
        assert!(!o.text.contains("read policy"), "{}", o.text);
        assert!(!o.text.contains("spread over the members"), "{}", o.text);
        checked += 1;
    }
}
