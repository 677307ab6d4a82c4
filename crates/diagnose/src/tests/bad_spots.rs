//! Damage met during a diagnosis, over the space of damaged and vanishing devices the scan's lost-device rule is
//! held to (core's `engine::scripted_damage`): patches from one sector to hundreds of MiB, fixed or growing as they
//! are read. A present device is never called lost, the experiments read on around its damage, and the bad-spots
//! finding names places inside the truth; a device that goes away is lost within a few commands, its going not
//! taken for bad spots. Slow spots are named; a busy host's late completions, anywhere, are not.

use super::model::*;
use super::support::*;
use drivescope_core::engine::scripted::{Call, Reply, Scripted};
use drivescope_core::engine::scripted_damage::StandInSysfs as Sysfs;
use drivescope_core::engine::scripted_damage::{DamageModel, Script, Vanish};
use drivescope_core::rng::Rng;
use drivescope_core::target::Target;
use drivescope_record::{BadSpotKind, DiagnoseRecord, Experiment, FindingCode, Header, Kind};
use std::sync::atomic::{AtomicBool, Ordering};

/// The model's device serving one command at a time (its script answers each as if alone).
fn one_at_a_time(mut script: Script) -> impl FnMut(&Call) -> Reply + Send {
    let mut free = 0u64;
    move |c: &Call| {
        let r = script(c);
        let start = free.max(c.device_ns);
        free = start + r.latency_ns;
        Reply {
            latency_ns: free - c.device_ns,
            result: r.result,
        }
    }
}

/// A read-only diagnosis of the whole of `m` in `budget_s`, and how many commands came after it went away.
fn diagnose_damaged(m: &DamageModel, n: usize, budget_s: u64) -> (DiagnoseRecord, u64) {
    let sysfs =
        matches!(m.vanish, Some(Vanish::Kernel { .. })).then(|| Sysfs::new("diagnose-damage", n));
    let (script, seen) = m.script(sysfs.as_ref().map(|s| s.0.clone()));
    let mut dev = Scripted::new(one_at_a_time(script)).unlogged();
    if let Some(s) = &sysfs {
        dev = dev.with_sysfs(s.0.clone());
    }
    let target = Target::open_read(&format!("null:{}", m.size)).unwrap();
    let header = Header::new(
        Kind::Diagnose,
        target.info(),
        "host".into(),
        "2026-11-27T00:00:00Z".into(),
    );
    let o = crate::DiagnoseOptions {
        size: m.size,
        ..options(budget_s)
    };
    let rec = crate::diagnose_on(
        &dev,
        &target,
        header,
        &o,
        crate::DiagnoseRun::default(),
        &AtomicBool::new(false),
        &mut |_, _| {},
    );
    (rec, seen.after_gone.load(Ordering::Relaxed))
}

fn inside(span: (u64, u64), of: &[(u64, u64)]) -> bool {
    of.iter().any(|&(a, b)| a <= span.0 && span.1 <= b)
}

fn overlaps(a: (u64, u64), b: (u64, u64)) -> bool {
    a.0 < b.1 && b.0 < a.1
}

#[test]
fn drawn_damage_is_read_around_named_inside_the_truth_and_never_taken_for_a_lost_device() {
    let mut rng = Rng::new(0x5eed_ba05);
    let (mut met, mut growing) = (0, 0);
    for n in 0..16 {
        let m = DamageModel::draw(&mut rng, (512 * MIB, 4 * GIB), 0.0);
        growing += usize::from(m.widest_margin() > 0);
        let (d, _) = diagnose_damaged(&m, n, 30);
        let what = format!("model {n}: {m:?}");
        assert_eq!(d.device_error, None, "{what}");
        assert!(d.resume.is_none(), "{what}: every experiment ran");
        let failed: Vec<(u64, u64)> = d
            .spots
            .iter()
            .flat_map(|s| &s.places)
            .filter(|p| p.kind == BadSpotKind::Failed)
            .map(|p| (p.offset, p.offset + p.length))
            .collect();
        // Truth: a failed place lies within a patch, its margins, one command more on each side, and the gap
        // over which places are joined.
        let hull = m.hull(MIB, 3 * MIB);
        for &p in &failed {
            assert!(inside(p, &hull), "{what}: {p:?} outside {hull:?}");
        }
        // Every patch the warm-up stream read over in a whole pass is named.
        let w = d.warm_up.as_ref().unwrap();
        if w.points.iter().any(|p| p.pass >= 1) {
            for p in m.patches.iter().filter(|p| p.offset + p.length <= w.region) {
                assert!(
                    failed
                        .iter()
                        .any(|&f| overlaps(f, (p.offset, p.offset + p.length))),
                    "{what}: {p:?} not named: {failed:?}"
                );
            }
        }
        let finding = d
            .header
            .findings
            .iter()
            .find(|f| f.code == FindingCode::BadSpots);
        assert_eq!(finding.is_some(), !failed.is_empty(), "{what}");
        if let Some(f) = finding {
            met += 1;
            assert_eq!(f.number("failed_places"), Some(failed.len() as f64));
            assert_eq!(f.number("first_failed_offset"), Some(failed[0].0 as f64));
            assert!(f.claim.contains("`drivescope scan`"), "{}", f.claim);
        }
    }
    assert!(met >= 10 && growing >= 8, "{met} met, {growing} growing");
}

#[test]
fn drawn_devices_that_go_away_mid_diagnosis_are_lost_by_the_scan_s_rule() {
    let mut rng = Rng::new(0x5eed_9013);
    for n in 0..12 {
        let m = DamageModel::draw(&mut rng, (512 * MIB, 2 * GIB), 1.0);
        let (d, after) = diagnose_damaged(&m, n, 30);
        let what = format!("model {n}: {m:?}");
        let err = d
            .device_error
            .as_deref()
            .unwrap_or_else(|| panic!("{what}"));
        let says = match m.vanish.unwrap() {
            Vanish::Errno { .. } => "the device is gone (No such device",
            Vanish::Kernel { .. } => "the kernel removed the block device",
            Vanish::Silent { .. } => "3 places at least",
        };
        assert!(err.contains(says), "{what}: {err}");
        // The commands in flight when it went (a queue of 32 at most), and the probes.
        assert!(after <= 32 + 4, "{what}: {after} commands after it went");
        // What failed as it went is not a bad spot: named places lie in the truth.
        let hull = m.hull(MIB, 3 * MIB);
        for p in d.spots.iter().flat_map(|s| &s.places) {
            assert!(
                inside((p.offset, p.offset + p.length), &hull),
                "{what}: {p:?} outside {hull:?}"
            );
        }
    }
}

/// Small devices (64 to 256 MiB, where the failures of a deep queue leave no place 64 MiB from every failure to
/// probe) that go away mid-diagnosis: lost by the scan's rule, or said inconclusive, never a diagnosis that ends
/// with its failures read as bad spots and nothing more.
#[test]
fn small_devices_that_go_away_are_lost_or_said_inconclusive() {
    let mut rng = Rng::new(0x5eed_5a11);
    let mut inconclusive = 0;
    for n in 0..12 {
        let m = DamageModel::draw(&mut rng, (64 * MIB, 256 * MIB), 1.0);
        let (d, _) = diagnose_damaged(&m, 100 + n, 30);
        let what = format!("model {n}: {m:?}");
        assert!(
            d.device_error.is_some() != d.lost_inconclusive.is_some(),
            "{what}: {:?} {:?}",
            d.device_error,
            d.lost_inconclusive
        );
        inconclusive += usize::from(d.lost_inconclusive.is_some());
    }
    eprintln!("12 small devices gone: {inconclusive} said inconclusive, the rest lost");
}

/// Their twins, damaged and present to the end: never said inconclusive, never lost.
#[test]
fn small_damaged_devices_that_stay_are_never_said_inconclusive() {
    let mut rng = Rng::new(0x5eed_5a12);
    for n in 0..12 {
        let m = DamageModel::draw(&mut rng, (64 * MIB, 256 * MIB), 0.0);
        let (d, _) = diagnose_damaged(&m, 200 + n, 30);
        let what = format!("model {n}: {m:?}");
        assert_eq!(d.lost_inconclusive, None, "{what}");
        assert_eq!(d.device_error, None, "{what}");
    }
}

/// Reads touching `[at, at + 4 KiB)` take this much longer.
const SLOW_SPOT: u64 = 120_000_000;

/// An SSD with a slow spot at 40 MiB, and late completions from a busy host when `noise`.
fn slow_ssd(spot: bool, noise: Option<Noise>) -> (DiagnoseRecord, u64) {
    let m = Model { noise, ..ssd() };
    let (mut script, _seen) = m.script();
    let at = 40 * MIB;
    let dev = Scripted::new(move |c: &Call| {
        let mut r = script(c);
        if spot && c.offset < at + 4096 && at < c.offset + c.len as u64 {
            r.latency_ns += SLOW_SPOT;
        }
        r
    })
    .unlogged();
    let target = Target::open_read(&format!("null:{GIB}")).unwrap();
    let header = Header::new(
        Kind::Diagnose,
        target.info(),
        "host".into(),
        "2026-11-27T00:00:00Z".into(),
    );
    let rec = crate::diagnose_on(
        &dev,
        &target,
        header,
        &options(60),
        crate::DiagnoseRun::default(),
        &AtomicBool::new(false),
        &mut |_, _| {},
    );
    (rec, at)
}

#[test]
fn a_slow_spot_is_named_and_a_busy_host_s_late_completions_are_not() {
    for seed in 1..=8 {
        // One completion in 500 seen 150 ms late, anywhere: a busy host.
        let noise = Noise {
            seed,
            jitter_ns: 200_000,
            slow_share: 0.002,
            slow_ns: 150_000_000,
        };
        let (d, at) = slow_ssd(true, Some(noise));
        let f = d
            .header
            .findings
            .iter()
            .find(|f| f.code == FindingCode::BadSpots)
            .unwrap_or_else(|| panic!("seed {seed}: no bad spots: {:?}", d.spots));
        assert_eq!(f.number("failed_commands"), Some(0.0));
        assert_eq!(
            f.number("slow_places"),
            Some(1.0),
            "seed {seed}: {:?}",
            d.spots
        );
        let first = f.number("first_slow_offset").unwrap() as u64;
        // The command that read the spot starts at most one command (1 MiB) before it.
        assert!(first <= at && first + MIB > at, "seed {seed}: {first}");
        assert!(f.claim.contains("LBA"), "{}", f.claim);
        // The twin without the spot, as busy: nothing named.
        let (twin, _) = slow_ssd(false, Some(noise));
        assert!(
            !twin
                .header
                .findings
                .iter()
                .any(|f| f.code == FindingCode::BadSpots),
            "seed {seed}: {:?}",
            twin.spots
        );
        let slow = twin.spots.as_ref().map_or(0, |s| s.slow_commands);
        assert!(
            slow > 0,
            "seed {seed}: the host was busy: some reads were slow"
        );
    }
}

#[test]
fn a_bad_megabyte_is_named_with_the_experiments_that_met_it() {
    let m = Model {
        fail: Some(|c: &Call| {
            (!c.write && (100 * MIB..101 * MIB).contains(&c.offset)).then_some(libc::EIO)
        }),
        ..hdd()
    };
    let d = diagnose(m, &options(60));
    let s = d.rec.spots.as_ref().unwrap();
    assert_eq!(s.places.len(), 1, "{s:?}");
    let p = &s.places[0];
    assert_eq!(
        (p.kind, p.offset, p.length),
        (BadSpotKind::Failed, 100 * MIB, MIB)
    );
    assert_eq!(p.errno, Some(libc::EIO));
    assert!(p.experiments.contains(&Experiment::WarmUp), "{p:?}");
    // Every failed command is accounted to the experiment that met it.
    let by: u64 = s.experiments.iter().map(|e| e.failed_commands).sum();
    assert_eq!(by, s.failed_commands);
    assert_eq!(s.failed_commands, d.seen.failed());
    assert_eq!(
        d.number(FindingCode::BadSpots, "first_failed_offset"),
        (100 * MIB) as f64
    );
}
