//! The array rule over drawn rates: members of every speed from a USB stick to NVMe, two to eight of them,
//! drawn with a fixed seed; each case's truth is known from how it was drawn.

use super::*;
use drivescope_probe::{Array, ArrayKind, Member};
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

    /// Log-uniform: as many slow devices as fast ones.
    fn log_range(&mut self, lo: f64, hi: f64) -> f64 {
        (lo.ln() + (hi.ln() - lo.ln()) * self.unit()).exp()
    }

    fn count(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.unit() * (hi - lo + 1) as f64) as usize
    }
}

fn reads(alone: Vec<f64>, together: Vec<f64>) -> ArrayReads {
    let members = (0..alone.len())
        .map(|i| Member {
            name: format!("sd{}", (b'b' + i as u8) as char),
            dev_path: PathBuf::from(format!("/dev/sd{}", (b'b' + i as u8) as char)),
            major_minor: None,
        })
        .collect();
    ArrayReads {
        array: Array {
            target: PathBuf::from("/dev/md0"),
            kind: ArrayKind::Md,
            name: "md0".into(),
            level: Some("raid0".into()),
            profiles: Vec::new(),
            members,
            controller: None,
            notes: Vec::new(),
            missing: Vec::new(),
            paths_meet: None,
        },
        block_size: 1 << 20,
        queue_depth: 4,
        duration_ns: 2_000_000_000,
        alone_mb_per_s: alone,
        together_mb_per_s: together,
        array_mb_per_s: None,
        readers: 0,
        readers_mb_per_s: None,
        write_mb_per_s: None,
    }
}

/// Healthy members of one kind: each within ±15 % of a drawn rate.
fn healthy(d: &mut Draw, n: usize) -> Vec<f64> {
    let base = d.log_range(20.0, 7000.0);
    (0..n).map(|_| base * d.range(0.85, 1.15)).collect()
}

/// Independent members together: each within a few percent of alone (the host's own overhead).
fn independent(d: &mut Draw, alone: &[f64]) -> Vec<f64> {
    alone.iter().map(|a| a * d.range(0.88, 1.02)).collect()
}

/// Members behind a cap: their sum together is `cap`, split with a little unevenness.
fn capped(d: &mut Draw, alone: &[f64], cap: f64) -> Vec<f64> {
    let shares: Vec<f64> = alone.iter().map(|a| a * d.range(0.9, 1.1)).collect();
    let sum: f64 = shares.iter().sum();
    shares.iter().map(|s| s / sum * cap).collect()
}

#[test]
fn independent_healthy_members_give_no_claim() {
    let mut d = Draw(0x5eed_0001);
    for case in 0..2000 {
        let n = d.count(2, 8);
        let alone = healthy(&mut d, n);
        let together = independent(&mut d, &alone);
        let r = reads(alone, together);
        let f = findings(&r);
        assert!(f.is_empty(), "case {case}: {f:?} from {r:?}");
        assert!(
            matches!(assess(&r).together, Together::Parallel { .. }),
            "case {case}"
        );
    }
}

#[test]
fn members_behind_a_cap_are_named_capped_at_it() {
    let mut d = Draw(0x5eed_0002);
    for case in 0..2000 {
        let n = d.count(3, 8);
        let alone = healthy(&mut d, n);
        let sum: f64 = alone.iter().sum();
        let fastest = alone.iter().cloned().fold(0.0, f64::max);
        // A cap wider than one member and well under their sum.
        let cap = d.range(1.5 * fastest, 0.75 * sum);
        let together = capped(&mut d, &alone, cap);
        let r = reads(alone, together);
        match assess(&r).together {
            Together::Capped {
                cap_mb_per_s,
                serialized,
                ..
            } => {
                assert!((cap_mb_per_s / cap - 1.0).abs() < 1e-9, "case {case}");
                assert!(!serialized, "case {case}: {r:?}");
            }
            t => panic!("case {case}: {t:?} from {r:?}"),
        }
        let f = findings(&r);
        assert_eq!(f.len(), 1, "case {case}: {f:?}");
        assert_eq!(f[0].code, FindingCode::SharedPath);
        assert!(f[0].claim.contains("caps them"), "{}", f[0].claim);
        assert!((f[0].number("ceiling_mb_per_s").unwrap() / cap - 1.0).abs() < 1e-9);
    }
}

#[test]
fn members_that_take_turns_read_no_more_together_than_one() {
    let mut d = Draw(0x5eed_0003);
    for case in 0..2000 {
        let n = d.count(2, 8);
        let alone = healthy(&mut d, n);
        let fastest = alone.iter().cloned().fold(0.0, f64::max);
        let cap = fastest * d.range(0.8, 1.1);
        let together = capped(&mut d, &alone, cap);
        let r = reads(alone, together);
        assert!(
            matches!(
                assess(&r).together,
                Together::Capped {
                    serialized: true,
                    ..
                }
            ),
            "case {case}: {r:?}"
        );
        let f = findings(&r);
        assert_eq!(f.len(), 1, "case {case}: {f:?}");
        assert_eq!(f[0].code, FindingCode::SharedPath);
        assert!(f[0].claim.contains("take turns"), "{}", f[0].claim);
        // Which members: every one, by name.
        assert!(f[0].claim.contains("(sdb, sdc"), "{}", f[0].claim);
        assert_eq!(f[0].number("serialized"), Some(1.0));
        // Where their paths meet, where the system shows it; nothing guessed where it does not.
        assert!(!f[0].claim.contains("paths meet"), "{}", f[0].claim);
        let mut r = r;
        r.array.paths_meet = Some("2-1 (hub)".into());
        let f = findings(&r);
        assert!(
            f[0].claim
                .contains("take turns on a path they share (their paths meet at 2-1 (hub))"),
            "{}",
            f[0].claim
        );
    }
}

#[test]
fn a_member_well_below_the_others_is_named_and_the_rest_stay_silent() {
    let mut d = Draw(0x5eed_0004);
    for case in 0..2000 {
        let n = d.count(2, 8);
        let mut alone = healthy(&mut d, n);
        let slow = d.count(0, n - 1);
        alone[slow] *= d.range(0.05, 0.45);
        let together = independent(&mut d, &alone);
        let r = reads(alone, together);
        let f = findings(&r);
        assert_eq!(f.len(), 1, "case {case}: {f:?}");
        assert_eq!(f[0].code, FindingCode::SlowMember);
        assert_eq!(f[0].number("member"), Some(slow as f64), "case {case}");
        let name = &r.array.members[slow].name;
        assert!(
            f[0].claim.contains(&format!("member {name} ")),
            "{}",
            f[0].claim
        );
    }
}

#[test]
fn a_capped_array_with_a_slow_member_says_both() {
    let mut d = Draw(0x5eed_0005);
    for case in 0..500 {
        let n = d.count(3, 8);
        let mut alone = healthy(&mut d, n);
        let slow = d.count(0, n - 1);
        alone[slow] *= d.range(0.05, 0.4);
        let sum: f64 = alone.iter().sum();
        let cap = sum * d.range(0.2, 0.6);
        let together = capped(&mut d, &alone, cap);
        let r = reads(alone, together);
        let codes: Vec<FindingCode> = findings(&r).into_iter().map(|f| f.code).collect();
        assert_eq!(
            codes,
            [FindingCode::SharedPath, FindingCode::SlowMember],
            "case {case}: {r:?}"
        );
    }
}

#[test]
fn failed_members_are_left_out_and_one_member_settles_nothing() {
    // A member read as 0 failed: the other two read in parallel, no claim.
    let r = reads(vec![500.0, 0.0, 510.0], vec![495.0, 0.0, 500.0]);
    assert!(findings(&r).is_empty());
    assert!(matches!(assess(&r).together, Together::Parallel { .. }));
    // One usable member: nothing to compare.
    let r = reads(vec![500.0, 0.0], vec![100.0, 0.0]);
    assert_eq!(assess(&r).together, Together::Unmeasured);
    assert!(findings(&r).is_empty());
    // No members at all.
    assert!(findings(&reads(Vec::new(), Vec::new())).is_empty());
    // NaN and infinite rates are not measurements.
    let r = reads(vec![f64::NAN, 400.0], vec![f64::INFINITY, 390.0]);
    assert!(findings(&r).is_empty());
}
