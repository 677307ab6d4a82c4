//! A diagnosis killed with SIGKILL at random moments (before its first experiment ended, after the
//! first ones, in its write experiment), each time continued with `diagnose --resume last`, ends as
//! one stored run with every experiment once, the experiments finished before each kill kept as
//! they were, the findings of an uninterrupted diagnosis of the same target, and no test file left
//! behind; a diagnosis stopped with SIGINT continues the same way. On an ext4 file system on a lab
//! disk with a read cache and a write-back cache (a directory target: its test file takes the
//! write experiment; the model's caches give findings that do not depend on the host's noise).
//! Needs root, FUSE and losetup; fails loudly without them.

use common::kill9::*;
use common::typed::{record, record_in, same};
use common::*;
use drivescope_lab::{check_environment, LabDevice, Model};
use drivescope_record::{DiagnoseRecord, Experiment, FindingCode, RunState, RunStatus};
use drivescope_testkit as common;
use std::collections::HashSet;
use std::path::PathBuf;
use std::process::Child;
use std::time::{Duration, Instant};

/// The diagnosis: a 64 MiB test file, a 15 s budget (the warm-up takes 3 s of it, the write
/// experiment 2 s or more); about 12 s on the disk below.
const DIAGNOSE: [&str; 6] = ["--size", "64M", "--budget", "15s", "--json", "--quiet"];
/// A flat 250 MB/s disk (writes at 125 MB/s) with a 16 MiB read cache and a write-back cache
/// larger than the test file (a resumed run fills a new one right before the write experiment).
const DISK: &str = "name = 'cached-flat'\nsize = '256M'\nzones = { rates_mb_s = [250] }\n\
    write_rate_factor = 0.5\noverhead = '50us'\nread_cache = { size = '16M', rate_mb_s = 1000 }\n\
    write_cache = { size = '160M', rate_mb_s = 600 }\nqueue = { mode = 'parallel', depth = 32 }\n";
const EXPERIMENTS: [Experiment; 9] = Experiment::ALL;

/// An ext4 file system on a lab disk, mounted; unmounted and stopped on drop.
struct LabFs {
    dir: PathBuf,
    _disk: LabDevice,
}

impl LabFs {
    fn new() -> LabFs {
        if let Err(e) = check_environment(true) {
            panic!("this test needs root, /dev/fuse (Debian fuse3) and losetup: {e}");
        }
        let model = Model::from_toml_str(DISK, "test").unwrap();
        let disk = LabDevice::start_temp(&model, true).expect("start the lab disk");
        let dev = disk.loop_device().unwrap();
        let st = std::process::Command::new("mkfs.ext4")
            .args(["-q", "-F", "-E", "nodiscard"])
            .arg(dev)
            .status()
            .expect("mkfs.ext4 (e2fsprogs) is needed");
        assert!(st.success(), "mkfs.ext4 failed");
        let dir = std::env::temp_dir().join(format!(
            "drivescope-diagnose-kill9-mnt-{}-{}",
            std::process::id(),
            dev.file_name().unwrap().to_string_lossy()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let st = std::process::Command::new("mount")
            .arg(dev)
            .arg(&dir)
            .status()
            .unwrap();
        assert!(st.success(), "mount failed");
        LabFs { dir, _disk: disk }
    }

    fn path(&self) -> &str {
        self.dir.to_str().unwrap()
    }
}

impl Drop for LabFs {
    fn drop(&mut self) {
        unmount(&self.dir);
        let _ = std::fs::remove_dir(&self.dir);
    }
}

fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|p| p.into_inner())
}

/// The experiments a stored diagnosis finished, by its resume state.
fn finished(d: &DiagnoseRecord) -> Vec<Experiment> {
    d.resume
        .as_ref()
        .unwrap_or_else(|| panic!("no resume state: {d:?}"))
        .finished
        .clone()
}

/// True when experiment `e`'s measurements are the same in `a` and `b` (both absent alike).
fn same_data(a: &DiagnoseRecord, b: &DiagnoseRecord, e: Experiment) -> bool {
    match e {
        Experiment::WarmUp => a.warm_up == b.warm_up,
        Experiment::Zones => a.zones == b.zones,
        Experiment::Link => a.link == b.link,
        Experiment::Queueing => a.queueing == b.queueing,
        Experiment::ReadCache => a.read_cache == b.read_cache,
        Experiment::WriteCache => a.write_cache == b.write_cache,
        Experiment::Throttle => a.throttle == b.throttle,
        Experiment::Smr => a.smr == b.smr,
        Experiment::FlushHonesty => a.flush_honesty == b.flush_honesty,
        Experiment::Array => a.array == b.array,
    }
}

/// True when `d` holds experiment `e`'s measurements.
fn measured(d: &DiagnoseRecord, e: Experiment) -> bool {
    match e {
        Experiment::WarmUp => d.warm_up.is_some(),
        Experiment::Zones => d.zones.is_some(),
        Experiment::Link => d.link.is_some(),
        Experiment::Queueing => d.queueing.is_some(),
        Experiment::ReadCache => d.read_cache.is_some(),
        Experiment::WriteCache => d.write_cache.is_some(),
        // Measured only after a fall in the warm-up stream; else it ends at once with nothing to keep.
        Experiment::Throttle => d.throttle.is_some() || d.warm_up.is_some(),
        Experiment::Smr => d.smr.is_some(),
        Experiment::FlushHonesty => d.flush_honesty.is_some(),
        Experiment::Array => d.array.is_some(),
    }
}

/// Wait until the diagnosis `child` has saved a checkpoint with at least `done` experiments
/// finished.
fn await_checkpoint(child: &mut Child, store: &TempStore, done: usize) -> DiagnoseRecord {
    let t0 = Instant::now();
    loop {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the diagnosis ended before a checkpoint with {done} experiments finished was seen"
        );
        if let Some((_, Some(RunState::Checkpoint), doc)) = store.runs().pop() {
            let doc: DiagnoseRecord = record_in(doc);
            let pid = doc.checkpoint.as_ref().expect("a checkpoint").pid;
            if pid == child.id() && finished(&doc).len() >= done {
                return doc;
            }
        }
        assert!(t0.elapsed() < Duration::from_secs(40), "no checkpoint");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The files drivescope left in the directory `dir`.
fn left_in(dir: &str) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| n.starts_with("drivescope"))
        .collect()
}

/// The finding codes of a diagnosis.
fn codes(d: &DiagnoseRecord) -> HashSet<FindingCode> {
    d.header.findings.iter().map(|f| f.code.clone()).collect()
}

/// A whole diagnosis: one outcome per experiment, in order, each either measured or skipped
/// (once), and no resume state or checkpoint.
fn check_whole(d: &DiagnoseRecord) {
    assert!(!d.workload.interrupted, "{d:?}");
    assert!(d.resume.is_none() && d.checkpoint.is_none());
    let outcomes: Vec<Experiment> = d.outcomes.iter().map(|o| o.experiment).collect();
    assert_eq!(outcomes, EXPERIMENTS, "one outcome per experiment");
    for e in EXPERIMENTS {
        let n = d.skipped.iter().filter(|s| s.experiment == e).count();
        assert_eq!(
            n + measured(d, e) as usize,
            1,
            "{e:?}: measured or skipped, once: {d:?}"
        );
    }
    let write = d.write_cache.as_ref().expect("the write experiment's data");
    assert!(write.written > 0);
}

/// Resume the newest diagnosis to its end; check it keeps what `stopped` finished, as it was.
fn resume(store: &TempStore, stopped: &DiagnoseRecord, dir: &str) -> DiagnoseRecord {
    let out = drivescope_cmd()
        .args(["diagnose", "--resume", "last", "--json", "--quiet"])
        .args(["--store", store.arg()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("resuming diagnose run"), "{stderr}");
    let d: DiagnoseRecord = record(&out.stdout);
    check_whole(&d);
    assert_eq!(d.header.started_at, stopped.header.started_at);
    for e in finished(stopped) {
        assert!(same_data(&d, stopped, e), "{e:?} kept as it was");
    }
    assert!(left_in(dir).is_empty(), "{:?}", left_in(dir));
    d
}

#[test]
fn kill_9_at_random_moments_then_resume_runs_each_experiment_once_with_the_same_findings() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
    let _one = one_at_a_time();
    let fs = LabFs::new();
    let dir = fs.path();
    // An uninterrupted diagnosis of the same target, for its findings.
    let pressure = common::busy::Pressure::start();
    let out = drivescope_cmd()
        .arg("diagnose")
        .arg(dir)
        .args(DIAGNOSE)
        .arg("--no-store")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let whole: DiagnoseRecord = record(&out.stdout);
    check_whole(&whole);
    // The caches are found from the lab's timing: a host busy through the run may hide them, and
    // then the comparison after the resumes below has less to compare (common::busy).
    let found = codes(&whole).contains(&FindingCode::ReadCache)
        && codes(&whole).contains(&FindingCode::WriteBurst);
    if !found {
        let share = pressure.and_then(|p| p.share()).unwrap_or(0.0);
        assert!(
            share >= common::busy::BUSY,
            "the disk's caches are found (CPU pressure {share:.2}): {:?}",
            whole.outcomes
        );
        eprintln!(
            "inconclusive: the uninterrupted run found {:?} with the CPUs {:.0} % under pressure",
            codes(&whole),
            share * 100.0
        );
    }
    let store = TempStore::new("diagnose-kill9", "kill9");
    // Each kill comes at a random moment after a checkpoint with this many experiments finished
    // (0: in the warm-up; 1: after it; 5: in the write experiment, the last), within this long.
    let kills = [(0, 2.0), (1, 1.5), (5, 1.0)];
    let fractions = random_fractions(kills.len());
    let mut last: Option<DiagnoseRecord> = None;
    for (i, ((done, within), f)) in kills.iter().zip(&fractions).enumerate() {
        let mut child = match i {
            0 => spawn("diagnose", &[&[dir][..], &DIAGNOSE[..]].concat(), &store),
            _ => spawn("diagnose", &["--resume", "last", "--quiet"], &store),
        };
        let seen = await_checkpoint(&mut child, &store, *done);
        if i == 0 {
            // A diagnosis that is still running is not resumed.
            let out = drivescope_cmd()
                .args(["diagnose", "--resume", "last", "--quiet"])
                .args(["--store", store.arg()])
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{stderr}");
            assert!(stderr.contains("still running"), "{stderr}");
            assert_eq!(store.listed_state(store.runs()[0].0), RunStatus::Running);
        }
        let wait = f * within;
        eprintln!(
            "kill {}: {:?} finished; killing {wait:.3} s later",
            i + 1,
            finished(&seen)
        );
        std::thread::sleep(Duration::from_secs_f64(wait));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        let runs = store.runs();
        assert_eq!(runs.len(), 1, "one stored run, updated in place");
        let (id, state, killed) = runs[0].clone();
        assert_eq!(state, Some(RunState::Checkpoint));
        let killed: DiagnoseRecord = record_in(killed);
        let pid = killed.checkpoint.as_ref().expect("a checkpoint").pid;
        assert_eq!(pid, child.id());
        assert_eq!(store.listed_state(id), RunStatus::Interrupted);
        assert!(killed.workload.interrupted);
        let kept = finished(&killed);
        assert!(
            kept.len() >= *done && kept.len() < EXPERIMENTS.len(),
            "{kept:?}"
        );
        assert_eq!(kept[..], EXPERIMENTS[..kept.len()], "finished in order");
        if let Some(prev) = &last {
            // What was kept at the last kill is kept now, as it was.
            assert_eq!(killed.header.started_at, prev.header.started_at);
            for e in finished(prev) {
                assert!(kept.contains(&e), "{e:?} kept");
                assert!(same_data(&killed, prev, e), "{e:?} as it was");
            }
        }
        // The test file the killed run wrote is named, and still there.
        let resume = killed.resume.as_ref().expect("a resume state");
        let file = &resume.test_file.as_ref().expect("its test file").path;
        assert!(std::path::Path::new(file).exists(), "{file}");
        last = Some(killed);
    }
    let killed = last.unwrap();
    assert!(
        !finished(&killed).contains(&Experiment::WriteCache),
        "the last kill came in the write experiment"
    );
    // The disk's write-back cache drains what the killed write left in it, as a device's does
    // before anyone resumes.
    std::thread::sleep(Duration::from_secs(2));
    let pressure = common::busy::Pressure::start();
    let d = resume(&store, &killed, dir);
    let busy = pressure
        .and_then(|p| p.share())
        .is_some_and(|s| s >= common::busy::BUSY);
    // The disk's own behaviours (its read cache and write burst) are found as by an
    // uninterrupted run; what a busy host adds to either run (a flat top read as a link) is
    // the host's, not the resume's, and is only shown. On a host busy through the resumed run
    // the lab served the host's timing, and a finding it missed says nothing (common::busy).
    for code in [FindingCode::ReadCache, FindingCode::WriteBurst] {
        if !codes(&whole).contains(&code) {
            continue;
        }
        let missed = !codes(&d).contains(&code);
        if missed && busy {
            eprintln!(
                "inconclusive: {code:?} not found after the resumes on a busy host: {:?} against {:?}",
                codes(&d),
                codes(&whole)
            );
            continue;
        }
        assert!(
            !missed,
            "{code:?}, found by the uninterrupted run, is found after the resumes: {:?} against {:?}",
            codes(&d),
            codes(&whole)
        );
    }
    if codes(&d) != codes(&whole) {
        eprintln!(
            "findings beside the disk's: resumed {:?}, uninterrupted {:?}",
            codes(&d),
            codes(&whole)
        );
    }
    let runs = store.runs();
    assert_eq!(runs.len(), 1, "one stored run");
    assert_eq!(runs[0].1, Some(RunState::Finished));
    assert!(same(&runs[0].2, &d));
}

#[test]
fn a_diagnosis_stopped_with_sigint_resumes_and_another_target_is_refused() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
    let _one = one_at_a_time();
    let fs = LabFs::new();
    let dir = fs.path();
    let store = TempStore::new("diagnose-kill9", "sigint");
    let mut child = spawn("diagnose", &[&[dir][..], &DIAGNOSE[..]].concat(), &store);
    await_checkpoint(&mut child, &store, 1);
    std::thread::sleep(Duration::from_millis(500));
    // SAFETY: a signal to the child this test started and has not yet waited for.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let st = child.wait().unwrap();
    assert_eq!(st.code(), Some(130), "exit code of an interrupted run");
    let runs = store.runs();
    assert_eq!(runs.len(), 1, "the result replaced the checkpoints");
    let (id, state, stopped) = runs[0].clone();
    assert_eq!(state, Some(RunState::Interrupted));
    let stopped: DiagnoseRecord = record_in(stopped);
    assert!(stopped.checkpoint.is_none());
    assert_eq!(store.listed_state(id), RunStatus::Interrupted);
    let kept = finished(&stopped);
    assert!(
        !kept.is_empty() && kept.len() < EXPERIMENTS.len(),
        "{kept:?}"
    );
    // The experiment the signal cut had begun: it is not finished, and not one of those the stop
    // skipped.
    let cut = EXPERIMENTS[kept.len()];
    let skipped = &stopped.skipped;
    assert!(
        !skipped
            .iter()
            .any(|s| s.experiment == cut && s.why == "interrupted"),
        "{cut:?} was cut, not skipped: {kept:?} {skipped:?}"
    );
    assert!(
        left_in(dir).is_empty(),
        "a stopped run removes its test file"
    );
    // Another target is not this diagnosis's.
    let other = Ext4Mount::new(256 << 20);
    let out = drivescope_cmd()
        .args(["diagnose", "--resume", "last", "--quiet"])
        .args(["--store", store.arg(), other.path()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("refused"), "{stderr}");
    assert!(left_in(other.path()).is_empty());
    resume(&store, &stopped, dir);
    let runs = store.runs();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].1, Some(RunState::Finished));
    // A finished diagnosis has nothing left to resume.
    let out = drivescope_cmd()
        .args(["diagnose", "--resume", "last", "--quiet"])
        .args(["--store", store.arg()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("nothing to resume"), "{stderr}");
}
