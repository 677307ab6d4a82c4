//! Errors from the device: a failed device ends the run with its error kept, the experiments after it
//! skipped; a bad sector is read around.

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
    assert!(err.contains("os error 19"), "{err}");
    assert!(d.rec.warm_up.is_none());
    for e in &Experiment::ALL[1..] {
        assert_eq!(d.skipped(*e), Some(FAILED_EARLIER), "{e:?}");
    }
    // Sixteen failures in a row, then the device is asked nothing more.
    assert_eq!(d.seen.failed(), 16);
    assert!(d.rec.header.findings.is_empty());
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
fn random_reads_that_fail_end_the_run_at_the_queueing_experiment() {
    let m = Model {
        fail: Some(|c: &Call| (c.len == 4096).then_some(libc::EIO)),
        ..hdd()
    };
    let d = diagnose(m, &options(60));
    let err = d.rec.device_error.as_deref().unwrap();
    assert!(err.starts_with("queueing: "), "{err}");
    assert!(err.contains("os error 5"), "{err}");
    assert!(d.rec.queueing.is_none());
    assert_eq!(d.skipped(Experiment::ReadCache), Some(FAILED_EARLIER));
    assert_eq!(d.skipped(Experiment::WriteCache), Some(FAILED_EARLIER));
    // The experiments before it keep their findings.
    assert!(d.finding(FindingCode::Zones).is_some());
    assert_eq!(
        d.rec.resume.as_ref().unwrap().finished,
        vec![
            Experiment::WarmUp,
            Experiment::Throttle,
            Experiment::Zones,
            Experiment::Link
        ]
    );
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
    assert_eq!(d.seen.writes(), 16);
    // Every read experiment ran to its end before it.
    assert_eq!(
        d.rec.resume.as_ref().unwrap().finished,
        Experiment::ALL[..6].to_vec()
    );
}
