//! A write-back cache that fills: a sustained write runs at the burst rate, then steps down to the media's.

use super::model::*;
use super::support::*;
use crate::DiagnoseOptions;
use drivescope_record::{Confidence, Experiment, FindingCode, Verdict};

/// A 200 MB/s flash device, with a write cache of `cache` bytes taking 1000 MB/s when given.
fn device(cache: Option<u64>) -> Model {
    Model {
        outer: 200.0,
        inner: 200.0,
        write_cache: cache.map(|c| (c, 1000.0)),
        ..ssd()
    }
}

#[test]
fn a_256_mib_write_cache_gives_the_burst_the_sustained_rate_and_where_it_stepped() {
    let d = diagnose(device(Some(256 * MIB)), &writing(60));
    let code = FindingCode::WriteBurst;
    assert_eq!(d.found(code.clone()).confidence, Confidence::High);
    near(
        "burst",
        d.number(code.clone(), "burst_mb_per_s"),
        1000.0,
        0.03,
    );
    near(
        "sustained",
        d.number(code.clone(), "sustained_mb_per_s"),
        200.0,
        0.03,
    );
    // It fills at 1000 - 200 MB/s: 256 MiB of room is gone after 0.34 s and 335 MB written.
    let fill_s = 256.0 * MIB as f64 / 800e6;
    near(
        "written",
        d.number(code.clone(), "written_before_step"),
        fill_s * 1000e6,
        0.05,
    );
    near("step", d.number(code, "step_s"), fill_s, 0.05);
    assert_eq!(d.verdict(Experiment::WriteCache), Verdict::Found);
    // The write stopped once the sustained rate was seen for a while, not at the window's end.
    let w = d.rec.write_cache.as_ref().unwrap();
    assert!(w.duration_ns < 5_000_000_000, "{} ns", w.duration_ns);
}

#[test]
fn writes_at_one_rate_make_no_write_burst_claim() {
    let d = diagnose(device(None), &writing(60));
    assert!(
        d.finding(FindingCode::WriteBurst).is_none(),
        "{:?}",
        d.codes()
    );
    assert_eq!(d.verdict(Experiment::WriteCache), Verdict::NotFound);
    let w = d.rec.write_cache.as_ref().unwrap();
    near(
        "rate",
        w.written as f64 * 1e3 / w.duration_ns as f64,
        200.0,
        0.03,
    );
    assert!(d.outcome(Experiment::WriteCache).text.contains("no step"));
}

#[test]
fn a_read_only_diagnosis_skips_the_write_experiment_and_writes_nothing() {
    let d = diagnose(device(Some(256 * MIB)), &options(60));
    assert_eq!(d.seen.writes(), 0);
    assert!(d.rec.write_cache.is_none());
    assert_eq!(d.verdict(Experiment::WriteCache), Verdict::Skipped);
    assert_eq!(
        d.skipped(Experiment::WriteCache),
        Some(options(60).no_writes_why.as_str())
    );
    assert!(d.finding(FindingCode::WriteBurst).is_none());
}

#[test]
fn writes_at_one_rate_throughout_are_no_burst_whatever_the_read_curve_says() {
    // A large zoned disk behind a read cache bigger than the stream region, slow at first: the stream's curve is
    // neither the media's nor its writes'. The writes run at one rate from start to end: no step.
    let m = Model {
        size: 2_865_076_940_800,
        outer: 135.0,
        inner: 61.0,
        zones: 4,
        access_ns: 6_000_000,
        lanes: 25,
        seq_free: true,
        warm_up: Some((7_200_000_000, 0.54)),
        read_cache: Some((3_834_900_480, 655.0)),
        ..ssd()
    };
    let o = crate::DiagnoseOptions {
        size: m.size,
        ..writing(52)
    };
    let d = diagnose(m, &o);
    let f = d.finding(FindingCode::WriteBurst);
    assert!(
        f.is_none_or(|f| f.confidence == Confidence::Inconclusive),
        "{:?}",
        f.map(|f| &f.claim)
    );
}

#[test]
fn zones_a_read_cache_hid_from_the_read_curve_are_no_write_burst() {
    // 805 MB in six zones from 141 to 61 MB/s, no write cache; a read cache larger than the disk serves every
    // read after the first pass, so the read curve is flat and weighs nothing. The write steps down zone by zone
    // (141, 125, 109, 93, 77 MB/s): two lines fit it as a burst of 125 and a sustained 94 MB/s.
    let m = Model {
        size: 805_597_184,
        outer: 141.0,
        inner: 61.1,
        zones: 6,
        access_ns: 5_076_880,
        read_cache: Some((3_781_365_760, 2270.0)),
        link: Some(398.1),
        ..hdd()
    };
    let o = DiagnoseOptions {
        size: m.size,
        ..writing(96)
    };
    let d = diagnose(m, &o);
    assert!(
        d.finding(FindingCode::WriteBurst).is_none(),
        "{:?}",
        d.codes()
    );
    assert_eq!(d.verdict(Experiment::WriteCache), Verdict::NotFound);
}
