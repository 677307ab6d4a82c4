//! Thermal throttling: sustained reads fall by a lasting step after a while, and a rest restores them. Each
//! throttling device has a twin that must stay silent: the same device without it, a warm-up (slow, then fast),
//! zones, an SLC write cache.

use super::model::*;
use super::support::*;
use crate::DiagnoseOptions;
use drivescope_record::{Confidence, Experiment, FindingCode, Verdict};

const S: u64 = 1_000_000_000;

/// A 500 MB/s flash device that throttles to `factor` after `after_s` of work and cools in `cooling_s`.
fn hot(after_s: f64, factor: f64, cooling_s: f64) -> Model {
    Model {
        throttle: Some(((after_s * 1e9) as u64, factor, (cooling_s * 1e9) as u64)),
        ..ssd()
    }
}

#[test]
fn a_throttle_is_found_with_its_time_factor_and_cooling() {
    let d = diagnose(hot(4.0, 0.45, 3.0), &options(60));
    let code = FindingCode::ThermalThrottle;
    assert_eq!(d.found(code.clone()).confidence, Confidence::High);
    near(
        "time",
        d.number(code.clone(), "time_to_throttle_s"),
        4.0,
        0.1,
    );
    near("factor", d.number(code.clone(), "factor"), 0.45, 0.05);
    near("cooling", d.number(code.clone(), "cooling_s"), 3.0, 0.3);
    near("fast", d.number(code.clone(), "fast_mb_per_s"), 500.0, 0.05);
    near("slow", d.number(code, "throttled_mb_per_s"), 225.0, 0.05);
    assert_eq!(d.verdict(Experiment::Throttle), Verdict::Found);
    // Fast then slow is no warm-up.
    assert!(d.finding(FindingCode::WarmUp).is_none(), "{:?}", d.codes());
    let t = d.rec.throttle.as_ref().expect("the read after the rest");
    near("rest", t.idle_ns as f64, 2.0 * S as f64, 0.1);
}

#[test]
fn the_same_device_without_a_throttle_has_none() {
    let d = diagnose(ssd(), &options(60));
    assert!(
        d.finding(FindingCode::ThermalThrottle).is_none(),
        "{:?}",
        d.codes()
    );
    assert_eq!(d.verdict(Experiment::Throttle), Verdict::NotFound);
    assert!(d.rec.throttle.is_none(), "no fall, nothing to read again");
}

#[test]
fn a_throttle_is_not_taken_for_a_write_cache_when_writes_run_hot() {
    let d = diagnose(hot(4.0, 0.45, 3.0), &writing(60));
    assert!(d.finding(FindingCode::ThermalThrottle).is_some());
    assert!(
        d.finding(FindingCode::WriteBurst).is_none(),
        "{:?}",
        d.codes()
    );
}

#[test]
fn an_slc_cache_is_a_write_burst_not_a_throttle() {
    let m = Model {
        write_cache: Some((2 * GIB / 8, 1500.0)),
        ..ssd()
    };
    let d = diagnose(m, &writing(60));
    assert!(
        d.finding(FindingCode::WriteBurst).is_some(),
        "{:?}",
        d.codes()
    );
    assert!(
        d.finding(FindingCode::ThermalThrottle).is_none(),
        "{:?}",
        d.codes()
    );
}

#[test]
fn a_warm_up_is_slow_then_fast_not_a_throttle() {
    let m = Model {
        outer: 200.0,
        inner: 200.0,
        warm_up: Some((4 * S, 0.5)),
        ..ssd()
    };
    let d = diagnose(m, &options(60));
    assert!(d.finding(FindingCode::WarmUp).is_some(), "{:?}", d.codes());
    assert!(
        d.finding(FindingCode::ThermalThrottle).is_none(),
        "{:?}",
        d.codes()
    );
}

#[test]
fn zones_are_a_fall_by_position_not_a_throttle() {
    let d = diagnose(hdd(), &options(60));
    assert!(d.finding(FindingCode::Zones).is_some(), "{:?}", d.codes());
    assert!(
        d.finding(FindingCode::ThermalThrottle).is_none(),
        "{:?}",
        d.codes()
    );
    assert_eq!(d.verdict(Experiment::Throttle), Verdict::NotFound);
}

#[test]
fn a_fall_that_rest_does_not_undo_is_not_claimed_as_a_throttle() {
    // Cooling takes far longer than the rest the experiment can afford.
    let d = diagnose(hot(4.0, 0.45, 1000.0), &options(60));
    let f = d.found(FindingCode::ThermalThrottle);
    assert_eq!(f.confidence, Confidence::Inconclusive, "{}", f.claim);
    assert_eq!(d.verdict(Experiment::Throttle), Verdict::Inconclusive);
}

#[test]
fn a_short_rest_measures_the_cooling_from_the_partial_recovery() {
    // A rest of 3 s (half of 6 s to throttle) against 12 s of cooling: about a quarter of the heat gone.
    let d = diagnose(hot(6.0, 0.5, 12.0), &options(90));
    let code = FindingCode::ThermalThrottle;
    assert_eq!(d.found(code.clone()).confidence, Confidence::High);
    near(
        "time",
        d.number(code.clone(), "time_to_throttle_s"),
        6.0,
        0.1,
    );
    near("cooling", d.number(code.clone(), "cooling_s"), 12.0, 0.3);
    assert!(d.found(code).claim.contains("cools in"));
}

#[test]
fn a_throttle_later_than_the_stream_is_not_seen_and_not_guessed() {
    // 12 s of sustained reads in a 60 s budget; the device throttles after 30 s.
    let d = diagnose(hot(30.0, 0.45, 3.0), &options(60));
    assert!(
        d.finding(FindingCode::ThermalThrottle).is_none(),
        "{:?}",
        d.codes()
    );
    assert!(d
        .outcome(Experiment::Throttle)
        .text
        .contains("no lasting fall"));
}

#[test]
fn a_throttle_in_the_last_pass_is_judged_against_the_fast_passes_before_it() {
    // The outer 1 GiB of a 10 GB disk, read at 208 MB/s for two passes; 10.5 s in it throttles to 0.59× for the
    // rest of the stream. The settled curve (the last third) held the throttled rate at most positions and the
    // fast one at the first few, so the stream's first seconds looked as slow as the throttled pass.
    let m = Model {
        size: 10_038_112_256,
        outer: 208.5,
        inner: 158.9,
        zones: 9,
        access_ns: 18_801_985,
        lanes: 5,
        throttle: Some((10_480_020_475, 0.5936, 107_668_624_064)),
        ..hdd()
    };
    let o = DiagnoseOptions {
        size: m.size,
        ..options(94)
    };
    let d = diagnose(m, &o);
    let code = FindingCode::ThermalThrottle;
    near(
        "time",
        d.number(code.clone(), "time_to_throttle_s"),
        10.48,
        0.1,
    );
    let factor = d.number(code, "factor");
    assert!((factor - 0.5936).abs() <= 0.06, "{factor}");
}

#[test]
fn a_rest_that_buys_under_a_second_of_fast_reads_gives_no_cooling_time() {
    // Throttles after 7.9 s to 0.72×, cools in 27 s; the 4 s rest cools 15 % of the heat, half a second of fast
    // reads. No fall timed within the first second: the read was said "restored" and the cooling put at 4 s.
    let m = Model {
        size: 3_251_847_168,
        outer: 262.0,
        inner: 191.9,
        zones: 5,
        access_ns: 14_898_885,
        lanes: 13,
        throttle: Some((7_894_948_455, 0.7199, 27_074_874_552)),
        ..hdd()
    };
    let o = DiagnoseOptions {
        size: m.size,
        ..options(75)
    };
    let d = diagnose(m, &o);
    let f = d.found(FindingCode::ThermalThrottle);
    assert_eq!(f.number("cooling_s"), None, "{}", f.claim);
    assert!(f.claim.contains("under a second"), "{}", f.claim);
}
