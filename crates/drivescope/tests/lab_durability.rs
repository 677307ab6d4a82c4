//! `drivescope durability` on lab disks (FUSE + loop) against their truth: a write cache whose
//! flush is ignored, or writes out only a twentieth of what is pending, is found, with its
//! evidence and exit code 5; its honest, protected and cache-less twins stay silent. Bad input is
//! refused in one line before anything is written.
//! Needs root and FUSE; fails loudly without them.

use common::flush_twins::{twin, HONEST, LYING, PARTIAL, PROTECTED};
use common::lab::{one_at_a_time, start};
use common::typed::record_in;
use common::{drivescope_cmd, skip_without_root, TmpfsLoop};
use drivescope_core::safety::DeviceName;
use drivescope_record::durability::{DurabilityRecord, FlushHonestyVerdict};
use drivescope_record::{Confidence, Document};
use drivescope_testkit as common;
use std::path::Path;
use std::process::Output;

fn confirmation(dev: &Path) -> String {
    let id = drivescope_probe::identify(dev, &drivescope_probe::Roots::default()).unwrap();
    DeviceName::of(&id).unwrap().confirmation()
}

fn durability(dev: &Path) -> (Output, DurabilityRecord) {
    let out = drivescope_cmd()
        .arg("durability")
        .arg(dev)
        .args(["--destructive", "--confirm", &confirmation(dev)])
        .args(["--budget", "5s", "--json", "--quiet", "--no-store"])
        .output()
        .expect("run drivescope durability");
    let doc: Document = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "no document ({e}); stderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out, record_in(doc))
}

/// Runs the twin and checks what every run must hold: the counts and the evidence's shape.
fn run_twin(cache: &str) -> (Output, DurabilityRecord, drivescope_lab::fuse_fs::Stats) {
    let model = twin(cache);
    let lab = start(&model);
    let dev = lab.loop_device().expect("a loop device").to_path_buf();
    let (out, rec) = durability(&dev);
    let stats = lab.stats();
    drop(lab);
    assert_eq!(rec.on, "device");
    // Every mode at 1 and 4 committers, at 4 KiB, 64 KiB and 1 MiB.
    assert_eq!(rec.data.commits.len(), 18, "{rec:?}");
    let s = rec.sustained.as_ref().expect("a sustained write");
    assert!(s.bytes >= 8 << 20 && s.bytes <= 32 << 20, "{s:?}");
    // Every flush call made one at a time reached the model as an fsync of its image: the
    // experiment's (one first, one after the stream, one per pair) and the commits' at one
    // committer. (Concurrent committers' flushes the block layer may merge; O_DSYNC writes add
    // flushes of their own.)
    let alone: u64 = rec
        .data
        .commits
        .iter()
        .filter(|c| c.committers == 1)
        .map(|c| c.flushes)
        .sum();
    let sequential = 2 + rec.pairs.len() as u64 + alone;
    assert!(
        stats.flushes >= sequential,
        "{} flushes served, {sequential} sent one at a time",
        stats.flushes
    );
    assert!(rec.bytes_written <= stats.bytes_written);
    (out, rec, stats)
}

/// The run's flush-honesty findings (a commit-cost need may be named beside them: that depends
/// on how busy the host is).
fn flush_findings(rec: &DurabilityRecord) -> Vec<&drivescope_record::Finding> {
    rec.header
        .findings
        .iter()
        .filter(|f| f.code.as_str() == "flush_honesty")
        .collect()
}

fn verdict(rec: &DurabilityRecord) -> FlushHonestyVerdict {
    rec.data.flush_honesty.as_ref().expect("a verdict").verdict
}

#[test]
fn an_ignored_or_partial_flush_is_found_with_its_evidence_and_the_protected_twin_is_not() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
    let _one = one_at_a_time();
    // A verdict is read from flush times on the lab's clock, which a busy host can stretch: each
    // twin is judged on a fresh disk until one try holds (a busy host's failed tries are void).
    judged(LYING, FlushHonestyVerdict::Early, |out, rec| {
        assert_eq!(out.status.code(), Some(5), "a lying cache exits with 5");
        let f = flush_findings(rec);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].confidence, Confidence::High);
        assert!(f[0]
            .claim
            .contains("before the data can have reached the media"));
        // The evidence: at least three sizes flushed far below their bound, at the rate measured.
        let h = rec.data.flush_honesty.as_ref().unwrap();
        let early = h
            .sizes
            .iter()
            .filter(|s| s.below * 3 >= s.repeats * 2)
            .count();
        if early < 3 {
            return Err(format!("lying: {early} sizes early: {h:?}"));
        }
        let rate = h.media_bytes_per_s.unwrap();
        // The model's media rate is 80 MB/s; the run measures it, within an order of magnitude.
        assert!(rate > 8e6 && rate < 800e6, "{rate}");
        assert_eq!(rec.cache.power_loss_protection, Some(false));
        Ok(())
    });
    // A flush that writes out a twentieth of what is pending is found the same way.
    judged(PARTIAL, FlushHonestyVerdict::Early, |out, _| {
        assert_eq!(out.status.code(), Some(5));
        Ok(())
    });
    judged(PROTECTED, FlushHonestyVerdict::Protected, |out, rec| {
        assert_eq!(out.status.code(), Some(0));
        assert!(flush_findings(rec)
            .iter()
            .all(|f| f.confidence != Confidence::High));
        assert_eq!(rec.cache.power_loss_protection, Some(true));
        Ok(())
    });
}

/// Runs the twin with write cache `cache` on a fresh disk until its verdict is `want` and `then`
/// holds, two tries (a busy host's failed tries are void).
fn judged(
    cache: &str,
    want: FlushHonestyVerdict,
    then: impl Fn(&Output, &DurabilityRecord) -> Result<(), String>,
) {
    common::busy::timing_tries(
        2,
        |_| {},
        || {
            let (out, rec, _) = run_twin(cache);
            if verdict(&rec) != want {
                return Err(format!("{cache}: {rec:?}"));
            }
            then(&out, &rec)
        },
    );
}

#[test]
fn the_honest_and_the_cacheless_twins_stay_silent() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
    let _one = one_at_a_time();
    for cache in [HONEST, ""] {
        let (out, rec, _) = run_twin(cache);
        let v = verdict(&rec);
        assert!(
            matches!(
                v,
                FlushHonestyVerdict::Honest | FlushHonestyVerdict::NothingPending
            ),
            "{cache}: {v:?} {rec:?}"
        );
        assert!(flush_findings(&rec).is_empty(), "{:?}", rec.header.findings);
        assert_eq!(out.status.code(), Some(0));
    }
}

fn refused_in_one_line(out: &Output, words: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("refused") && err.contains(words), "{err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn a_read_only_target_and_a_device_without_destructive_are_refused_in_one_line() {
    if skip_without_root("creates a loop device and a read-only mount") {
        return;
    }
    // A device without --destructive: refused before anything is written.
    let lo = TmpfsLoop::new(64 << 20);
    let before = std::fs::read(&lo.file).unwrap();
    let out = drivescope_cmd()
        .arg("durability")
        .arg(lo.path())
        .arg("--no-store")
        .output()
        .unwrap();
    refused_in_one_line(&out, "--destructive");
    assert_eq!(std::fs::read(&lo.file).unwrap(), before, "nothing written");
    // A read-only directory: a tmpfs mounted read-only.
    let dir = std::env::temp_dir().join(format!("drivescope-durability-ro-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ok = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", "ro,size=16m", "tmpfs"])
        .arg(&dir)
        .status()
        .unwrap()
        .success();
    assert!(ok, "mount a read-only tmpfs");
    let out = drivescope_cmd()
        .arg("durability")
        .arg(&dir)
        .arg("--no-store")
        .output()
        .unwrap();
    common::unmount(&dir);
    let _ = std::fs::remove_dir(&dir);
    refused_in_one_line(&out, "read-only");
    // An existing file is never written.
    let file = lo.file.display().to_string();
    let out = drivescope_cmd()
        .args(["durability", &file, "--no-store"])
        .output()
        .unwrap();
    refused_in_one_line(&out, "never to an existing file");
}
