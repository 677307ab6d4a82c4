//! The budget, counted on the device's clock: it sizes the experiments and cuts them short, and says so.

use super::model::*;
use super::support::*;
use crate::DiagnoseOptions;
use drivescope_record::{Confidence, Experiment, FindingCode, Verdict};

#[test]
fn a_short_budget_skips_what_it_cannot_fit_and_says_so() {
    let d = diagnose(ssd(), &options(3));
    // The warm-up gets its 2 s floor and the link its two 1.5 s reads: 5 s, past the 3 s budget.
    for e in [Experiment::WarmUp, Experiment::Zones, Experiment::Link] {
        assert!(d.skipped(e).is_none(), "{e:?}");
    }
    for e in [
        Experiment::Queueing,
        Experiment::ReadCache,
        Experiment::WriteCache,
    ] {
        assert_eq!(d.skipped(e), Some("the 3 s budget was spent"), "{e:?}");
        assert_eq!(d.verdict(e), Verdict::Skipped);
    }
    // The time is the device's virtual time, all of it.
    assert_eq!(d.rec.elapsed_ns, d.device_ns);
    near("elapsed", d.rec.elapsed_ns as f64, 5e9, 0.01);
    assert!(
        d.rec.resume.is_none(),
        "every experiment ended, skipped or not"
    );
}

#[test]
fn the_warm_up_window_is_a_fifth_of_the_budget_from_2_to_36_s() {
    for (budget, window) in [(5, 2.0), (60, 12.0), (300, 36.0)] {
        let d = diagnose(hdd(), &options(budget));
        let w = d.rec.warm_up.as_ref().unwrap();
        // The last commands finish a little after the window.
        let got = w.duration_ns as f64 / 1e9;
        assert!(got >= window && got < window + 0.05, "{budget} s: {got} s");
    }
}

#[test]
fn a_quick_scan_for_zones_needs_five_seconds_of_budget() {
    let o = DiagnoseOptions {
        size: 512 * MIB,
        whole_device: false,
        ..options(20)
    };
    let d = diagnose(hdd(), &o);
    assert_eq!(
        d.skipped(Experiment::Zones),
        Some("too little budget left for a quick scan")
    );
    assert!(d.rec.zones.is_none());
    assert!(d.finding(FindingCode::Zones).is_none());
}

#[test]
fn a_read_cache_larger_than_the_budget_can_read_is_left_inconclusive() {
    // 50 MB/s media and a 900 MiB cache: working sets up to 512 MiB are cached; reading 1 GiB once takes 21 s,
    // more than the 45 s budget has left by then.
    let m = Model {
        outer: 50.0,
        inner: 50.0,
        read_cache: Some((900 * MIB, 2000.0)),
        ..ssd()
    };
    let d = diagnose(m, &options(45));
    let f = d.found(FindingCode::ReadCache);
    assert_eq!(f.confidence, Confidence::Inconclusive);
    assert!(f.claim.contains("budget ended"), "{}", f.claim);
    assert_eq!(f.number("lower_bytes"), Some((512 * MIB) as f64));
    assert_eq!(d.verdict(Experiment::ReadCache), Verdict::Inconclusive);
    assert!(d.rec.elapsed_ns <= 45_000_000_000 + 100_000_000);
}
