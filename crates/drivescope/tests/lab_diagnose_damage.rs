//! Diagnoses of damaged and vanishing lab disks (FUSE + loop) whose truth is known, on a short budget: damage
//! that grows as it is read is read around and named inside the truth, never taken for a lost disk (exit 0); a
//! disk that goes away mid-diagnosis ends as lost by the scan's rule (exit 4). Needs root and FUSE; fails loudly
//! without them.

use common::lab::{one_at_a_time, start};
use common::typed::record_of;
use common::*;
use drivescope_lab::{LabDevice, Model};
use drivescope_record::{BadSpotKind, DiagnoseRecord, FindingCode};
use drivescope_testkit as common;

const MIB: u64 = 1 << 20;

/// A read-only diagnosis of `dev` in 10 s: its exit code, stderr and record.
fn diagnose(dev: &LabDevice) -> (Option<i32>, String, DiagnoseRecord) {
    let path = dev.loop_device().unwrap().to_str().unwrap().to_string();
    let out = drivescope(&[
        "diagnose",
        &path,
        "--budget",
        "10s",
        "--json",
        "--quiet",
        "--no-store",
    ]);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(!err.contains("panicked"), "{err}");
    (out.status.code(), err, record_of(&out))
}

#[test]
fn growing_damage_is_read_around_and_named_not_taken_for_a_lost_disk() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
    let _one = one_at_a_time();
    let model = Model::preset("growing-16m").unwrap();
    let truth = model.truth();
    let dev = start(&model);
    let (code, err, d) = diagnose(&dev);
    drop(dev);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(d.device_error, None);
    // Read-only: every read experiment ran (none skipped for a device that failed).
    assert!(
        d.warm_up.is_some() && d.queueing.is_some(),
        "{:?}",
        d.skipped
    );
    let f = d
        .header
        .findings
        .iter()
        .find(|f| f.code == FindingCode::BadSpots)
        .unwrap_or_else(|| panic!("no bad spots: {:?}", d.spots));
    assert!(f.claim.contains("`drivescope scan`"), "{}", f.claim);
    // Named inside the truth: the spot, its margins, and a command (1 MiB) and the joining gap (1 MiB) more.
    let spot = &truth.bad[0];
    let margin = spot.marginal.unwrap_or(0);
    let (lo, hi) = (
        spot.offset - margin - 2 * MIB,
        spot.offset + spot.length + margin + 2 * MIB,
    );
    let failed: Vec<_> = d
        .spots
        .iter()
        .flat_map(|s| &s.places)
        .filter(|p| p.kind == BadSpotKind::Failed)
        .collect();
    assert!(!failed.is_empty());
    for p in &failed {
        assert!(
            p.offset >= lo && p.offset + p.length <= hi,
            "{p:?} outside [{lo}, {hi})"
        );
    }
    assert!(
        failed
            .iter()
            .any(|p| p.offset <= spot.offset && spot.offset < p.offset + p.length),
        "the spot at {} is not named: {failed:?}",
        spot.offset
    );
}

#[test]
fn a_disk_that_goes_away_mid_diagnosis_ends_as_lost() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
    let _one = one_at_a_time();
    // The preset goes after 400 MiB of reads; here after 96 MiB, inside the first experiment's reads.
    let mut model = Model::preset("vanishing").unwrap();
    model.vanish.as_mut().unwrap().after_read = 96 * MIB;
    let dev = start(&model);
    let (code, err, d) = diagnose(&dev);
    drop(dev);
    assert_eq!(code, Some(4), "device-lost exit code: {err}");
    let why = d.device_error.as_deref().expect("lost");
    assert!(why.contains("3 places at least 64.0 MiB from it"), "{why}");
    // Its going is not a bad spot.
    assert!(
        !d.header
            .findings
            .iter()
            .any(|f| f.code == FindingCode::BadSpots),
        "{:?}",
        d.spots
    );
}
