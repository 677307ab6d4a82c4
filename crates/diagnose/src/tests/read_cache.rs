//! A read cache: working sets that fit are re-read at the cache's rate; the experiment brackets its size.

use super::model::*;
use super::support::*;
use drivescope_record::{Confidence, Experiment, FindingCode, Verdict};

/// A 200 MB/s flash device with a read cache of `bytes` at 2000 MB/s.
fn cached(bytes: u64) -> Model {
    Model {
        outer: 200.0,
        inner: 200.0,
        read_cache: Some((bytes, 2000.0)),
        ..ssd()
    }
}

#[test]
fn a_64_mib_cache_is_bracketed_within_the_refinement_step_with_both_rates() {
    let d = diagnose(cached(64 * MIB), &options(60));
    let code = FindingCode::ReadCache;
    assert_eq!(d.found(code.clone()).confidence, Confidence::High);
    let (lo, hi) = (
        d.number(code.clone(), "lower_bytes"),
        d.number(code.clone(), "upper_bytes"),
    );
    let size = (64 * MIB) as f64;
    assert!(lo <= size && size < hi, "{lo} .. {hi}");
    assert!(hi / lo <= 1.3, "{lo} .. {hi}");
    near(
        "cache size",
        d.number(code.clone(), "cache_bytes"),
        (64 * MIB) as f64,
        0.15,
    );
    near(
        "cache rate",
        d.number(code.clone(), "cache_mb_per_s"),
        hit_rate(MIB, 2000.0),
        0.03,
    );
    near("media rate", d.number(code, "media_mb_per_s"), 200.0, 0.03);
    assert_eq!(d.verdict(Experiment::ReadCache), Verdict::Found);
}

#[test]
fn the_bracket_follows_the_cache_size() {
    let d = diagnose(cached(200 * MIB), &options(60));
    let code = FindingCode::ReadCache;
    let (lo, hi) = (
        d.number(code.clone(), "lower_bytes"),
        d.number(code, "upper_bytes"),
    );
    let size = (200 * MIB) as f64;
    assert!(lo <= size && size < hi, "{lo} .. {hi}");
    assert!(hi / lo <= 1.3, "{lo} .. {hi}");
}

#[test]
fn without_a_cache_a_second_read_is_no_faster_and_nothing_is_claimed() {
    let d = diagnose(
        Model {
            read_cache: None,
            ..cached(0)
        },
        &options(60),
    );
    assert!(
        d.finding(FindingCode::ReadCache).is_none(),
        "{:?}",
        d.codes()
    );
    assert_eq!(d.verdict(Experiment::ReadCache), Verdict::NotFound);
    // The first working set (8 MiB) was not cached, so no larger one was tried.
    let points = &d.rec.read_cache.as_ref().unwrap().points;
    assert_eq!(points.len(), 1);
    assert_eq!(points[0].size, 8 * MIB);
    near("again", points[0].again_mb_per_s, 200.0, 0.05);
}

#[test]
fn a_warm_up_outlasting_the_stream_is_no_read_cache() {
    // The stream's 8 s window sees only the slow start: its curve is a third of the rate the working sets are
    // later read at, the first time as fast as the second. No cache serves them.
    let m = Model {
        size: 160 * MIB,
        outer: 75.0,
        inner: 75.0,
        access_ns: 190_000,
        lanes: 1,
        warm_up: Some((10_000_000_000, 0.32)),
        ..ssd()
    };
    let o = DiagnoseOptions {
        size: 160 * MIB,
        ..options(38)
    };
    let d = diagnose(m, &o);
    let f = d.finding(FindingCode::ReadCache);
    assert!(
        f.is_none_or(|f| f.confidence == Confidence::Inconclusive),
        "{:?}",
        f.map(|f| &f.claim)
    );
}

use crate::DiagnoseOptions;
