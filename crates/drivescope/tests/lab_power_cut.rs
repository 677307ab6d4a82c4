//! The guided power-cut test (`durability --power-cut`, `--verify`, `--listen`) on lab disks
//! whose power is cut on command, against the lab's truth of what each cut lost: a disk whose
//! flush is ignored or partial loses acknowledged records and `--verify` names every one of
//! them (exit 5); an honest or protected disk loses none. Cuts come at random moments, repeated;
//! kill -9 of the writer or of the listener loses nothing logged. Bad input is refused in one
//! line. Needs root and FUSE; fails loudly without them.

use common::lab::{one_at_a_time, start};
use common::typed::record_in;
use common::{drivescope_cmd, require_root};
use drivescope_core::durability::power_cut::{parse_log, Log, FILE_NAME};
use drivescope_core::rng::Rng;
use drivescope_core::safety::DeviceName;
use drivescope_lab::power_cut::CutTruth;
use drivescope_lab::Model;
use drivescope_record::durability::DurabilityRecord;
use drivescope_record::power_cut::PowerCutCheck;
use drivescope_record::Document;
use drivescope_testkit as common;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Output, Stdio};
use std::time::{Duration, Instant};

/// A 16 MiB disk that reads at 100 MB/s and writes its media at 50 kB/s behind a 1 MiB cache
/// taken at 400 MB/s: records arrive far faster than the cache drains, so whatever the flush
/// does decides what a cut loses.
fn disk(flush: &str) -> Model {
    let text = format!(
        "name = 'cut'\nsize = '16M'\nzones = {{ rates_mb_s = [100] }}\noverhead = '20us'\n\
         write_rate_factor = 0.0005\nwrite_cache = {{ size = '1M', rate_mb_s = 400, {flush} }}\n"
    );
    Model::from_toml_str(&text, "test").unwrap()
}

fn confirmation(dev: &Path) -> String {
    let id = drivescope_probe::identify(dev, &drivescope_probe::Roots::default()).unwrap();
    DeviceName::of(&id).unwrap().confirmation()
}

/// A scratch directory for logs, on tmpfs (never the disk under test), removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let p = PathBuf::from(format!(
            "/dev/shm/drivescope-power-cut-{}-{name}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        Scratch(p)
    }

    fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Acknowledged records in the log so far (0 before it exists).
fn acked(log: &Path) -> u64 {
    std::fs::read_to_string(log)
        .ok()
        .and_then(|t| parse_log(&t).ok())
        .map_or(0, |l| l.sums.len() as u64)
}

/// Wait until the log acknowledges `n` records (or the writer ends, or a minute passes).
fn wait_for(log: &Path, n: u64, child: &mut Child) {
    let t = Instant::now();
    while acked(log) < n {
        if let Ok(Some(s)) = child.try_wait() {
            panic!("the writer ended ({s}) after {} records", acked(log));
        }
        assert!(t.elapsed() < Duration::from_secs(60), "no progress");
        std::thread::sleep(Duration::from_millis(2));
    }
}

fn writer(target: &Path, log: &str, extra: &[&str]) -> Child {
    drivescope_cmd()
        .arg("durability")
        .arg(target)
        .args(["--power-cut", "--log", log, "--quiet"])
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the writer")
}

fn kill9(child: &mut Child) {
    let _ = child.kill();
    let _ = child.wait();
}

fn verify(target: &Path, log: &Path) -> (Output, PowerCutCheck) {
    let out = drivescope_cmd()
        .arg("durability")
        .arg(target)
        .arg("--verify")
        .arg("--log")
        .arg(log)
        .args(["--json", "--quiet", "--no-store"])
        .output()
        .expect("run --verify");
    let doc: Document = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "no document ({e}); stderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let rec: DurabilityRecord = record_in(doc);
    (out, rec.power_cut.expect("a power-cut check"))
}

/// The acknowledged records a cut must have cost, from the lab's truth: (lost, of them torn).
fn expected(log: &Log, truth: &CutTruth) -> (Vec<u64>, Vec<u64>) {
    let h = &log.header;
    let n = log.sums.len() as u64;
    let first = (n + 1).saturating_sub(h.slots);
    let hit: Vec<u64> = (first..n)
        .filter(|m| truth.touches(h.offset_of(*m), h.record_bytes))
        .collect();
    let torn = hit
        .iter()
        .copied()
        .filter(|m| !truth.covers(h.offset_of(*m), h.record_bytes))
        .collect();
    (hit, torn)
}

/// Write to the disk, cut its power after `after` acknowledged records, kill the writer (the
/// host goes down with the power), bring the power back and verify. Checks the verdict against
/// the truth record by record; returns how many acknowledged records were lost. `switch`: cut
/// through the disk's `power` file, as a person at a shell would, rather than the lab's call.
fn cut_once(model: &Model, after: u64, name: &str, switch: bool) -> u64 {
    let lab = start(model);
    let dev = lab.loop_device().expect("a loop device").to_path_buf();
    let scratch = Scratch::new(name);
    let log = scratch.join("cut.log");
    let mut w = writer(
        &dev,
        log.to_str().unwrap(),
        &[
            "--destructive",
            "--confirm",
            &confirmation(&dev),
            "--size",
            "4M",
        ],
    );
    wait_for(&log, after, &mut w);
    let power = lab.mountdir().join(drivescope_lab::fuse_fs::POWER_NAME);
    let truth = if switch {
        std::fs::write(&power, "cut\n").unwrap();
        let cuts = lab.power_cuts();
        assert_eq!(cuts.len(), 1);
        cuts[0].clone()
    } else {
        lab.power_cut()
    };
    kill9(&mut w);
    let said = std::fs::read_to_string(&power).unwrap();
    assert!(said.starts_with("off\ncuts 1\n"), "{said}");
    if switch {
        std::fs::write(&power, "on").unwrap();
    } else {
        lab.power_on();
    }
    let text = std::fs::read_to_string(&log).unwrap();
    let parsed = parse_log(&text).unwrap();
    let (out, check) = verify(&dev, &log);
    drop(lab);
    let (lost, torn) = expected(&parsed, &truth);
    assert_eq!(check.acknowledged, parsed.sums.len() as u64);
    assert_eq!(
        check.lost_count + check.torn_count,
        lost.len() as u64,
        "{name}: truth {truth:?}, check {check:?}"
    );
    assert_eq!(check.torn_count, torn.len() as u64, "{name}: {check:?}");
    let named: Vec<u64> = check.losses.iter().map(|l| l.number).collect();
    assert_eq!(named, lost[..lost.len().min(100)].to_vec(), "{name}");
    assert_eq!(check.kept, check.checked - lost.len() as u64);
    let code = if lost.is_empty() { 0 } else { 5 };
    assert_eq!(
        out.status.code(),
        Some(code),
        "{name}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    lost.len() as u64
}

#[test]
fn a_lying_disk_loses_acknowledged_records_and_verify_names_every_one() {
    require_root();
    let _one = one_at_a_time();
    let mut rng = Rng::new(43);
    let mut lost = Vec::new();
    for (i, flush) in [
        "flush = 'ignored'",
        "flush = 'partial', flushed_share = 0.3",
        "flush = 'ignored'",
    ]
    .iter()
    .enumerate()
    {
        let after = 20 + rng.below(100);
        lost.push(cut_once(&disk(flush), after, &format!("lying-{i}"), i == 2));
    }
    // A cut after 20 or more acknowledged records, at several a second into a cache draining
    // 12 a second, always finds some still in it.
    assert!(lost.iter().all(|n| *n > 0), "{lost:?}");
}

#[test]
fn an_honest_or_protected_disk_loses_nothing_acknowledged() {
    require_root();
    let _one = one_at_a_time();
    let mut rng = Rng::new(4343);
    for (i, flush) in ["flush = 'honoured'", "flush = 'ignored', protected = true"]
        .iter()
        .enumerate()
    {
        let after = 3 + rng.below(12);
        assert_eq!(
            cut_once(&disk(flush), after, &format!("honest-{i}"), i == 1),
            0
        );
    }
}

/// A directory on tmpfs: the writer's test file there, the log beside the test in /tmp.
fn tmpfs_dir(name: &str) -> Scratch {
    Scratch::new(&format!("dir-{name}"))
}

fn other_log(name: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!(
        "drivescope-power-cut-{}-{name}.log",
        std::process::id()
    ));
    let _ = std::fs::remove_file(&p);
    p
}

#[test]
fn kill_9_of_the_writer_loses_nothing_logged() {
    require_root();
    let dir = tmpfs_dir("kill");
    let log = other_log("kill");
    let mut w = writer(&dir.0, log.to_str().unwrap(), &["--size", "1M"]);
    // Round the 256-slot area more than once.
    wait_for(&log, 300, &mut w);
    kill9(&mut w);
    let n = acked(&log);
    let (out, check) = verify(&dir.0, &log);
    assert_eq!(out.status.code(), Some(0), "{check:?}");
    assert_eq!((check.acknowledged, check.checked), (n, 255));
    assert_eq!(check.kept, 255);
    assert!(
        !dir.join(FILE_NAME).exists(),
        "a clean check removes its file"
    );
    let _ = std::fs::remove_file(&log);
}

/// A listener on a free local port: the child and its address, from its first line.
fn listener(log: &Path) -> (Child, String) {
    let mut child = drivescope_cmd()
        .args(["durability", "--listen", "127.0.0.1:0", "--log"])
        .arg(log)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the listener");
    let mut line = String::new();
    BufReader::new(child.stderr.as_mut().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .split_whitespace()
        .find(|w| w.starts_with("127.0.0.1:"))
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .trim_end_matches(':')
        .to_string();
    (child, addr)
}

#[test]
fn over_the_network_kill_9_of_either_side_loses_nothing_logged() {
    require_root();
    // The writer killed: the listener ends cleanly, its log complete.
    let dir = tmpfs_dir("net-writer");
    let log = other_log("net-writer");
    let (l, addr) = listener(&log);
    let mut w = writer(&dir.0, &addr, &["--size", "1M"]);
    wait_for(&log, 50, &mut w);
    kill9(&mut w);
    let out = l.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("ended after"), "{err}");
    let (out, check) = verify(&dir.0, &log);
    assert_eq!(out.status.code(), Some(0), "{check:?}");
    assert_eq!(check.kept, check.checked);
    assert!(check.checked >= 50);
    let _ = std::fs::remove_file(&log);

    // The listener killed: the writer stops in one line, and nothing it counted is missing.
    let dir = tmpfs_dir("net-listener");
    let log = other_log("net-listener");
    let (mut l, addr) = listener(&log);
    let mut w = writer(&dir.0, &addr, &["--size", "1M"]);
    wait_for(&log, 50, &mut w);
    kill9(&mut l);
    let out = w.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("went away") && err.contains(&addr), "{err}");
    let (out, check) = verify(&dir.0, &log);
    assert_eq!(out.status.code(), Some(0), "{check:?}");
    assert_eq!(check.kept, check.checked);
    let _ = std::fs::remove_file(&log);
}

fn refused_in_one_line(out: &Output, words: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("refused") && err.contains(words), "{err}");
}

#[test]
fn a_log_on_the_target_and_a_read_only_target_are_refused_in_one_line() {
    require_root();
    let dir = tmpfs_dir("refuse");
    let log = dir.join("cut.log");
    let out = writer(&dir.0, log.to_str().unwrap(), &[])
        .wait_with_output()
        .unwrap();
    refused_in_one_line(&out, "on the storage under test");
    assert!(
        !log.exists() && !dir.join(FILE_NAME).exists(),
        "nothing made"
    );

    // A device: a log on a file system on it is refused too.
    let ro = std::env::temp_dir().join(format!("drivescope-power-cut-ro-{}", std::process::id()));
    std::fs::create_dir_all(&ro).unwrap();
    let ok = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", "ro,size=16m", "tmpfs"])
        .arg(&ro)
        .status()
        .unwrap()
        .success();
    assert!(ok, "mount a read-only tmpfs");
    let log = other_log("ro");
    let out = writer(&ro, log.to_str().unwrap(), &[])
        .wait_with_output()
        .unwrap();
    common::unmount(&ro);
    let _ = std::fs::remove_dir(&ro);
    refused_in_one_line(&out, "read-only");
    assert!(!log.exists());
}
