//! A warm-up: the first seconds from the device's first command run slower than its settled rate.

use super::model::*;
use super::support::*;
use drivescope_record::{Confidence, Experiment, FindingCode, Verdict};

/// A 200 MB/s flash device at `factor` of its rate for its first `secs`.
fn warming(secs: f64, factor: f64) -> Model {
    Model {
        outer: 200.0,
        inner: 200.0,
        warm_up: Some(((secs * 1e9) as u64, factor)),
        ..ssd()
    }
}

#[test]
fn four_seconds_at_half_speed_are_found_with_their_length_and_factor() {
    let d = diagnose(warming(4.0, 0.5), &options(60));
    let code = FindingCode::WarmUp;
    assert_eq!(d.found(code.clone()).confidence, Confidence::High);
    near("length", d.number(code.clone(), "warm_up_s"), 4.0, 0.05);
    near("factor", d.number(code.clone(), "factor"), 0.5, 0.04);
    near("steady", d.number(code, "steady_mb_per_s"), 200.0, 0.03);
    assert_eq!(d.verdict(Experiment::WarmUp), Verdict::Found);
}

#[test]
fn a_longer_warm_up_at_a_milder_factor_is_measured_as_such() {
    let d = diagnose(warming(6.0, 0.7), &options(60));
    let code = FindingCode::WarmUp;
    near("length", d.number(code.clone(), "warm_up_s"), 6.0, 0.05);
    near("factor", d.number(code, "factor"), 0.7, 0.04);
}

#[test]
fn a_device_at_its_rate_from_the_start_has_no_warm_up() {
    let d = diagnose(
        Model {
            warm_up: None,
            ..warming(0.0, 1.0)
        },
        &options(60),
    );
    assert!(d.finding(FindingCode::WarmUp).is_none(), "{:?}", d.codes());
    assert_eq!(d.verdict(Experiment::WarmUp), Verdict::NotFound);
}

#[test]
fn a_slow_half_second_is_settling_not_a_warm_up() {
    let d = diagnose(warming(0.5, 0.5), &options(60));
    assert!(d.finding(FindingCode::WarmUp).is_none(), "{:?}", d.codes());
    assert_eq!(d.verdict(Experiment::WarmUp), Verdict::NotFound);
}

#[test]
fn a_read_cache_holding_the_whole_region_is_not_taken_for_a_warm_up() {
    // The second pass over the region comes from the cache: the rate rises tenfold when it starts.
    let m = Model {
        read_cache: Some((2 * GIB, 2000.0)),
        ..warming(0.0, 1.0)
    };
    let d = diagnose(m, &options(60));
    assert!(d.finding(FindingCode::WarmUp).is_none(), "{:?}", d.codes());
    assert_eq!(d.verdict(Experiment::WarmUp), Verdict::Inconclusive);
    assert!(d
        .outcome(Experiment::WarmUp)
        .text
        .contains("a read cache, not a warm-up"));
}
