//! The SMART part of a screen's verdict, on `smartctl --json` documents that real drives produced (probe's
//! fixtures, sources in their README). A pair that shows growth is one real document read twice, the second
//! time with only the counter under test changed. Each rule has its twin that must stay silent.

use drivescope_analysis::screen::verdict;
use drivescope_core::engine::Live;
use drivescope_core::scan::{self, ScanConfig};
use drivescope_core::target::Target;
use drivescope_probe::smart::parse_smartctl_json;
use drivescope_probe::Smart;
use drivescope_record::{Criteria, DriveVerdict, Grade, Member, Rule, ScanRecord};
use serde_json::Value;
use std::path::Path;
use std::sync::atomic::AtomicBool;

fn document(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../probe/tests/fixtures/smartctl")
        .join(name);
    serde_json::from_str(&std::fs::read_to_string(&path).expect("fixture")).expect("JSON")
}

fn parse(v: &Value) -> Smart {
    parse_smartctl_json(&v.to_string())
}

/// The document with ATA attribute `id`'s raw count set to `n`.
fn with_attribute(mut v: Value, id: u64, n: u64) -> Value {
    let table = v["ata_smart_attributes"]["table"]
        .as_array_mut()
        .expect("attribute table");
    let a = table
        .iter_mut()
        .find(|a| a["id"] == id)
        .expect("the attribute");
    a["raw"]["value"] = n.into();
    a["raw"]["string"] = n.to_string().into();
    v
}

/// The document with NVMe health log field `key` set to `n`.
fn with_nvme(mut v: Value, key: &str, n: u64) -> Value {
    let log = &mut v["nvme_smart_health_information_log"];
    assert!(log.get(key).is_some(), "{key} in the health log");
    log[key] = n.into();
    v
}

/// A real read scan of a small clean file: the surface gives the verdict nothing, so SMART alone decides.
fn clean_scan() -> ScanRecord {
    static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let p = format!(
        "/dev/shm/drivescope-screen-smart-{}-{n}",
        std::process::id()
    );
    std::fs::File::create(&p)
        .and_then(|f| f.set_len(4 << 20))
        .expect("a file in /dev/shm");
    let t = Target::open_read(&p).expect("O_DIRECT on /dev/shm");
    let stop = AtomicBool::new(false);
    let s = scan::run(
        &Live(&t),
        &t,
        scan::Start::New(&ScanConfig::default()),
        scan::Observer::new(&stop),
    );
    let _ = std::fs::remove_file(&p);
    let s = s.expect("scan");
    assert!(
        !s.interrupted && s.failed_total == 0,
        "a clean file scans clean"
    );
    s
}

fn judged(before: Smart, after: Smart) -> DriveVerdict {
    verdict(
        &member(Some(before), Some(after)),
        &[],
        &Criteria::default(),
    )
}

fn member(before: Option<Smart>, after: Option<Smart>) -> Member {
    thread_local!(static SCAN: ScanRecord = clean_scan());
    Member {
        target: "/dev/sdx".into(),
        run: None,
        scan: Some(Box::new(SCAN.with(Clone::clone))),
        error: None,
        history: None,
        smart_before: before,
        smart_after: after,
        arrays: Vec::new(),
        verdict: None,
    }
}

fn rules(v: &DriveVerdict) -> Vec<Rule> {
    v.reasons.iter().map(|r| r.rule.clone()).collect()
}

#[test]
fn unchanged_counts_stay_silent() {
    for name in [
        "ata_attributes.json",
        "nvme_healthy.json",
        // Seven media errors, none new during the scan.
        "nvme_media_errors.json",
    ] {
        let s = parse(&document(name));
        assert!(s.read, "{name}");
        let v = judged(s.clone(), s);
        assert_eq!(
            (v.grade, v.reasons.len()),
            (Grade::Pass, 0),
            "{name}: {v:?}"
        );
    }
}

#[test]
fn a_damage_count_that_grew_during_the_scan_fails() {
    let ata = document("ata_attributes.json");
    for (id, what) in [
        (
            5,
            "SMART reallocated sectors (attribute 5) grew from 0 to 3 during the scan",
        ),
        (
            197,
            "SMART pending sectors (attribute 197) grew from 0 to 3 during the scan",
        ),
        (
            198,
            "SMART offline uncorrectable sectors (attribute 198) grew from 0 to 3 during the scan",
        ),
    ] {
        let v = judged(parse(&ata), parse(&with_attribute(ata.clone(), id, 3)));
        assert_eq!(v.grade, Grade::Fail, "attribute {id}: {v:?}");
        // Pending sectors that grew fail once; they do not warn as well.
        assert_eq!(rules(&v), vec![Rule::SmartGrew], "attribute {id}");
        assert_eq!(v.reasons[0].text, what);
    }
    let nvme = document("nvme_media_errors.json");
    let v = judged(
        parse(&nvme),
        parse(&with_nvme(nvme.clone(), "media_errors", 9)),
    );
    assert_eq!((v.grade, rules(&v)), (Grade::Fail, vec![Rule::SmartGrew]));
    assert_eq!(
        v.reasons[0].text,
        "SMART media errors (NVMe health log) grew from 7 to 9 during the scan"
    );
    // A count that went down (a drive that reset it) is no growth.
    let v = judged(parse(&with_attribute(ata.clone(), 5, 4)), parse(&ata));
    assert_eq!(v.grade, Grade::Pass, "{v:?}");
}

#[test]
fn pending_sectors_warn_and_none_stay_silent() {
    let ata = with_attribute(document("ata_attributes.json"), 197, 8);
    let v = judged(parse(&ata), parse(&ata));
    assert_eq!(
        (v.grade, rules(&v)),
        (Grade::Warn, vec![Rule::SmartPending])
    );
    assert_eq!(
        v.reasons[0].text,
        "SMART reports 8 pending sectors (attribute 197): the drive could not read them; a write remaps \
         or clears them"
    );
    // The failing drive as it really reported itself: its own assessment fails it, its pending sectors warn.
    let failing = parse(&document("ata_failing.json"));
    let v = judged(failing.clone(), failing);
    assert_eq!(
        (v.grade, rules(&v)),
        (Grade::Fail, vec![Rule::SmartFailed, Rule::SmartPending])
    );
    // Its twin, healthy in every count: nothing to say.
    let healthy = parse(&document("ata_attributes.json"));
    assert_eq!(healthy.pending_sectors, Some(0));
    assert_eq!(judged(healthy.clone(), healthy).grade, Grade::Pass);
}

#[test]
fn crc_growth_names_the_cable_and_does_not_fail_the_drive() {
    let ata = document("ata_attributes.json");
    let v = judged(parse(&ata), parse(&with_attribute(ata.clone(), 199, 14)));
    assert_eq!((v.grade, rules(&v)), (Grade::Warn, vec![Rule::SmartCrc]));
    assert_eq!(
        v.reasons[0].text,
        "the link's CRC error count (attribute 199) grew from 0 to 14 during the scan: a cable or \
         connector, not the drive"
    );
    // CRC errors counted before and not since: an old cable fault, silent.
    let old = with_attribute(ata, 199, 14);
    assert_eq!(judged(parse(&old), parse(&old)).grade, Grade::Pass);
}

#[test]
fn an_nvme_critical_warning_fails_and_one_of_temperature_warns() {
    let nvme = document("nvme_healthy.json");
    let v = judged(
        parse(&nvme),
        parse(&with_nvme(nvme.clone(), "critical_warning", 4)),
    );
    assert_eq!(
        (v.grade, rules(&v)),
        (Grade::Fail, vec![Rule::SmartCriticalWarning])
    );
    assert_eq!(
        v.reasons[0].text,
        "NVMe critical warning 0x04 (reliability degraded), raised during the scan"
    );
    let hot = with_nvme(nvme.clone(), "critical_warning", 2);
    let v = judged(parse(&hot), parse(&hot));
    assert_eq!(
        (v.grade, rules(&v)),
        (Grade::Warn, vec![Rule::SmartCriticalWarning])
    );
    assert_eq!(
        v.reasons[0].text,
        "NVMe critical warning 0x02 (temperature out of range)"
    );
}

#[test]
fn smart_that_could_not_be_read_changes_no_verdict_and_is_said_once() {
    let lo = parse(&document("loop_device.json"));
    assert!(!lo.read);
    let m = member(Some(lo.clone()), Some(lo.clone()));
    let v = verdict(&m, &[], &Criteria::default());
    assert_eq!((v.grade, v.reasons.len()), (Grade::Pass, 0), "{v:?}");
    assert_eq!(
        m.smart_not_read().as_deref(),
        Some("SMART not read: /dev/loop0: Unable to detect device type")
    );
    // Read before, not after (the drive went away): no growth to judge, the reading before still counts.
    let ata = with_attribute(document("ata_attributes.json"), 197, 2);
    let m = member(Some(parse(&ata)), Some(lo));
    let v = verdict(&m, &[], &Criteria::default());
    assert_eq!(
        (v.grade, rules(&v)),
        (Grade::Warn, vec![Rule::SmartPending])
    );
    assert_eq!(
        m.smart_not_read().as_deref(),
        Some("SMART not read after the scan: /dev/loop0: Unable to detect device type")
    );
    // A document without SMART readings (a version that did not read them, a target that is no drive).
    let m = member(None, None);
    assert_eq!(verdict(&m, &[], &Criteria::default()).grade, Grade::Pass);
    assert_eq!(m.smart_not_read(), None);
}
