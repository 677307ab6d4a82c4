//! Errors from the device: a device the scan's lost-device rule finds gone ends the run with its error kept, the
//! experiments after it skipped; a bad spot is read around and named.

use super::model::*;
use super::support::*;
use drivescope_core::engine::scripted::Call;
use drivescope_record::{Experiment, FindingCode};

const FAILED_EARLIER: &str = "the device failed earlier in the run";

#[test]
fn a_device_that_goes_away_in_the_warm_up_ends_the_run_with_its_errno() {
    let m = Model {
        fail: Some(|c: &Call| (c.device_ns >= 3_000_000_000).then_some(libc::ENODEV)),
        ..ssd()
    };
    let d = diagnose(m, &options(60));
    let err = d.rec.device_error.as_deref().unwrap();
    assert!(err.starts_with("warm-up: "), "{err}");
    assert!(err.contains("the device is gone (No such device"), "{err}");
    assert!(d.rec.warm_up.is_none());
    for e in &Experiment::ALL[1..] {
        assert_eq!(d.skipped(*e), Some(FAILED_EARLIER), "{e:?}");
    }
    // The first failure says gone: the commands in flight with it (a queue of 4), then nothing more.
    assert!((1..=4).contains(&d.seen.failed()), "{}", d.seen.failed());
    // Its failures were the device going away, not bad spots.
    assert!(d.rec.header.findings.is_empty());
    assert_eq!(d.rec.spots, None);
    assert!(d.rec.resume.as_ref().unwrap().finished.is_empty());
}

#[test]
fn a_bad_megabyte_is_read_around_and_the_findings_stand() {
    let m = Model {
        fail: Some(|c: &Call| {
            (!c.write && (100 * MIB..101 * MIB).contains(&c.offset)).then_some(libc::EIO)
        }),
        ..hdd()
    };
    let d = diagnose(m, &options(60));
    assert!(d.seen.failed() > 0);
    assert_eq!(d.rec.device_error, None);
    let ratio = d.number(FindingCode::Zones, "zone_ratio");
    assert!((0.49..0.55).contains(&ratio), "{ratio}");
    assert!(d.finding(FindingCode::NoQueueing).is_some());
    assert!(d.rec.resume.is_none());
}

#[test]
fn random_reads_that_mostly_fail_leave_queueing_unmeasured_and_the_device_found() {
    // Every 4 KiB read fails; the 512-byte probes of the lost-device rule and the streams' reads do not: bad spots
    // everywhere random reads look, a device that is there.
    let m = Model {
        fail: Some(|c: &Call| (c.len == 4096).then_some(libc::EIO)),
        ..hdd()
    };
    let d = diagnose(m, &options(60));
    assert_eq!(d.rec.device_error, None);
    assert!(d.rec.queueing.is_none());
    let why = d.skipped(Experiment::Queueing).unwrap();
    assert!(
        why.contains("random reads failed: no rate to compare"),
        "{why}"
    );
    // The experiments after it ran, and those before keep their findings.
    assert!(d.rec.read_cache.is_some());
    assert!(d.finding(FindingCode::Zones).is_some());
    assert!(d.rec.resume.is_none());
    let spots = d.rec.spots.as_ref().unwrap();
    let queueing = spots
        .experiments
        .iter()
        .find(|e| e.experiment == Experiment::Queueing)
        .unwrap();
    assert!(queueing.failed_commands > 0);
    assert_eq!(queueing.failed_commands, spots.failed_commands);
    assert!(d.finding(FindingCode::BadSpots).is_some());
}

#[test]
fn failing_writes_end_the_write_experiment_with_the_error() {
    let m = Model {
        fail: Some(|c: &Call| c.write.then_some(libc::ENOSPC)),
        ..ssd()
    };
    let d = diagnose(m, &writing(60));
    let err = d.rec.device_error.as_deref().unwrap();
    assert!(err.starts_with("write cache: "), "{err}");
    assert!(err.contains("os error 28"), "{err}");
    assert!(d.rec.write_cache.is_none());
    // A full device is not a bad spot: the first refusal ends the writes (a queue of 4 in flight).
    assert!((1..=4).contains(&d.seen.writes()), "{}", d.seen.writes());
    assert_eq!(d.rec.spots, None);
    // Every read experiment ran to its end before it.
    assert_eq!(
        d.rec.resume.as_ref().unwrap().finished,
        Experiment::ALL[..6].to_vec()
    );
}
