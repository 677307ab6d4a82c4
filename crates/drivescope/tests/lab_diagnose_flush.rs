//! `diagnose --destructive` on lab disks (FUSE + loop) whose write cache's flush is known: a cache that
//! ignores flushes is found by the diagnosis' flush-honesty experiment ("flushes return before the data can
//! have reached the media"); the same cache honouring them, behind a declared power-loss protection, or no
//! cache at all make no such claim. The lying cache's diagnosis exits 5 (a broken promise, as `durability`), its
//! twins' 0; the block layer's count of the flush requests the loop device was sent is kept, and names the
//! device as the one that returns them. Small disks, a 32 s budget. Needs root and FUSE; fails loudly without
//! them.

use common::flush_twins::{twin, HONEST, LYING, PROTECTED};
use common::lab::{one_at_a_time, start};
use common::typed::record_of;
use common::{drivescope_cmd, skip_without_root};
use drivescope_core::safety::DeviceName;
use drivescope_record::{Confidence, DiagnoseRecord, Experiment, Finding, Verdict};
use drivescope_testkit as common;
use std::path::Path;

fn confirmation(dev: &Path) -> String {
    let id = drivescope_probe::identify(dev, &drivescope_probe::Roots::default()).unwrap();
    DeviceName::of(&id).unwrap().confirmation()
}

/// A diagnosis and the exit code it ended with.
struct Diagnosed {
    rec: DiagnoseRecord,
    code: Option<i32>,
}

/// Diagnose a fresh disk of the twin with write cache `cache`, writes allowed.
fn diagnosed(cache: &str) -> Diagnosed {
    let lab = start(&twin(cache));
    let dev = lab.loop_device().expect("a loop device").to_path_buf();
    let out = drivescope_cmd()
        .arg("diagnose")
        .arg(&dev)
        .args(["--destructive", "--confirm", &confirmation(&dev)])
        .args(["--budget", "32s", "--json", "--quiet", "--no-store"])
        .output()
        .expect("run drivescope diagnose");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    let d: DiagnoseRecord = record_of(&out);
    let stats = lab.stats();
    drop(lab);
    // It ran, on the device, and every byte and flush it counted reached the disk.
    let f = d.flush_honesty.as_ref().unwrap_or_else(|| {
        panic!("{cache}: no flush experiment: {:?}", d.outcomes);
    });
    assert!(f.direct, "{f:?}");
    assert!(f.sustained.is_some() && !f.pairs.is_empty(), "{f:?}");
    assert!(f.bytes_written <= stats.bytes_written);
    assert!(f.flushes <= stats.flushes, "{f:?} {stats:?}");
    // Every flush the experiment asked for went to the loop device as a flush request (the block layer counts
    // them there; other programs' flushes on it only add).
    let counted = f
        .device_flushes
        .unwrap_or_else(|| panic!("{cache}: not counted: {f:?}"));
    assert!(
        counted >= f.pairs.len() as u64,
        "{cache}: {counted} counted: {f:?}"
    );
    Diagnosed {
        rec: d,
        code: out.status.code(),
    }
}

fn flush_finding(d: &DiagnoseRecord) -> Option<&Finding> {
    d.header
        .findings
        .iter()
        .find(|f| f.code.as_str() == "flush_honesty")
}

fn verdict(d: &DiagnoseRecord) -> Verdict {
    d.outcomes
        .iter()
        .find(|o| o.experiment == Experiment::FlushHonesty)
        .expect("an outcome line")
        .verdict
}

#[test]
fn a_cache_that_ignores_flushes_is_found_and_its_twins_are_not() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
    let _one = one_at_a_time();
    // A twin that keeps its promise ends as a diagnosis does: 0.
    let kept = |what: &str, d: &Diagnosed| {
        assert!(!d.rec.broke_promise(), "{what}: {:?}", d.rec.outcomes);
        assert_eq!(d.code, Some(0), "{what}: {:?}", d.rec.outcomes);
    };
    // A verdict is read from flush times on the lab's clock, which a busy host can stretch: each twin is
    // judged on a fresh disk until one try holds (a busy host's failed tries are void).
    let judged = |cache: &str, check: &dyn Fn(&Diagnosed) -> Result<(), String>| {
        common::busy::timing_tries(2, |_| {}, || check(&diagnosed(cache)));
    };
    judged(LYING, &|d| {
        let (code, d) = (d.code, &d.rec);
        let f = flush_finding(d)
            .ok_or_else(|| format!("lying: no finding: {:?} {:?}", d.outcomes, d.flush_honesty))?;
        if f.confidence != Confidence::High || verdict(d) != Verdict::Found {
            return Err(format!("lying: {f:?} {:?}", d.outcomes));
        }
        assert!(
            f.claim
                .contains("before the data can have reached the media"),
            "{}",
            f.claim
        );
        let h = d.flush_honesty.as_ref().unwrap();
        assert_eq!(h.cache.power_loss_protection, Some(false));
        // The flushes reached the device (the block layer counted them): the device returns them early.
        if h.cache.write_cache.as_deref() != Some("write through") {
            assert!(f.claim.contains("(the device returns them)"), "{}", f.claim);
        }
        assert_eq!(
            f.number("device_flushes"),
            h.device_flushes.map(|n| n as f64)
        );
        assert!(d.broke_promise());
        assert_eq!(code, Some(5), "a lying cache's diagnosis exits with 5");
        Ok(())
    });
    judged(HONEST, &|d| match flush_finding(&d.rec) {
        None if verdict(&d.rec) == Verdict::NotFound => {
            kept("honest", d);
            Ok(())
        }
        f => Err(format!("honest: {f:?} {:?}", d.rec.outcomes)),
    });
    judged("", &|d| match flush_finding(&d.rec) {
        None if verdict(&d.rec) == Verdict::NotFound => {
            kept("no cache", d);
            Ok(())
        }
        f => Err(format!("no cache: {f:?} {:?}", d.rec.outcomes)),
    });
    judged(PROTECTED, &|d| {
        let whole = d;
        let d = &d.rec;
        assert_eq!(
            d.flush_honesty
                .as_ref()
                .unwrap()
                .cache
                .power_loss_protection,
            Some(true)
        );
        match flush_finding(d) {
            Some(f) if f.confidence == Confidence::High => {
                Err(format!("protected: a claim: {f:?}"))
            }
            _ if verdict(d) == Verdict::NotFound => {
                kept("protected", whole);
                Ok(())
            }
            _ => Err(format!("protected: {:?}", d.outcomes)),
        }
    });
}
