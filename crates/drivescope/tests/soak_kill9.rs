//! A soak killed with SIGKILL at random moments, each time continued with `soak --resume last`,
//! ends as one stored run whose series covers the whole duration with each gap marked and
//! every kept interval unchanged; a soak stopped with SIGINT continues the same way. On a loop
//! device over a /dev/shm file. Needs root (losetup); fails loudly without it.

use common::kill9::*;
use common::typed::{record, record_in, same};
use common::*;
use drivescope_record::{RunState, RunStatus, SoakRecord};
use drivescope_testkit as common;
use std::process::Child;
use std::time::{Duration, Instant};

const MIB: u64 = 1 << 20;
/// The soak: 6 s in 100 ms intervals, a checkpoint every 500 ms.
const DURATION_NS: u64 = 6_000_000_000;
const INTERVAL_NS: u64 = 100_000_000;
const SOAK: [&str; 12] = [
    "--duration",
    "6s",
    "--interval",
    "100ms",
    "--checkpoint",
    "500ms",
    "--test",
    "SEQ128K Q4T1",
    "--size",
    "64M",
    "--json",
    "--quiet",
];

fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|p| p.into_inner())
}

/// Wait until the soak `child` has saved a checkpoint: the store's one run names its process.
fn await_checkpoint(child: &mut Child, store: &TempStore) -> SoakRecord {
    let t0 = Instant::now();
    loop {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the soak ended before a checkpoint was seen"
        );
        if let Some((_, Some(RunState::Checkpoint), doc)) = store.runs().pop() {
            let doc: SoakRecord = record_in(doc);
            if doc.checkpoint.as_ref().expect("a checkpoint").pid == child.id() {
                return doc;
            }
        }
        assert!(t0.elapsed() < Duration::from_secs(30), "no checkpoint");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// A soak document's series: consecutive, in whole intervals but for the last point, and
/// summing to its totals.
fn check_series(d: &SoakRecord) {
    let series = &d.series;
    assert!(!series.is_empty());
    let bytes: u64 = series.iter().map(|p| p.bytes).sum();
    assert_eq!(bytes, d.bytes, "series bytes");
    let commands: u64 = series.iter().map(|p| p.commands).sum();
    assert_eq!(commands, d.commands, "series commands");
    let t: Vec<u64> = series.iter().map(|p| p.t_ns).collect();
    assert!(t.windows(2).all(|w| w[0] < w[1]), "{t:?}");
    assert_eq!(*t.last().unwrap(), d.duration_ns, "{t:?}");
}

/// The stopped soak `d` (a checkpoint or an interrupted run) holds whole intervals, a resume
/// state and its planned duration.
fn check_stopped(d: &SoakRecord) {
    assert!(d.workload.interrupted);
    check_series(d);
    let resume = d.resume.as_ref().expect("a resume state");
    assert_eq!(resume.planned_ns, DURATION_NS);
    assert!(d.duration_ns < DURATION_NS);
}

/// Resume the newest soak to its end; check that the result keeps every interval of `stopped`
/// and marks the gap after them; returns it.
fn resume(store: &TempStore, stopped: &SoakRecord) -> SoakRecord {
    let out = drivescope_cmd()
        .args(["soak", "--resume", "last", "--json", "--quiet"])
        .args(["--store", store.arg()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("resuming soak run"), "{stderr}");
    let d: SoakRecord = record(&out.stdout);
    check_series(&d);
    assert!(d.checkpoint.is_none() && d.resume.is_none());
    assert!(!d.workload.interrupted);
    assert_eq!(d.header.started_at, stopped.header.started_at);
    // The whole duration (the last commands drain after the deadline).
    let dur = d.duration_ns;
    assert!(
        (DURATION_NS..DURATION_NS + 1_000_000_000).contains(&dur),
        "{dur}"
    );
    // The intervals kept before the stop are there as they were, and the gap after them.
    let before = &stopped.series;
    assert_eq!(&d.series[..before.len()], &before[..]);
    let gaps = &d.resumed;
    let gap = gaps.last().unwrap();
    assert_eq!(gap.at_ns, stopped.duration_ns);
    assert!(gap.gap_ns > 0);
    assert_eq!(gaps[..gaps.len() - 1], stopped.resumed[..]);
    // The text report states the gap.
    let text = drivescope(&["show", "last", "--store", store.arg()]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("gap       at"), "{text}");
    d
}

#[test]
fn kill_9_at_random_moments_then_resume_covers_the_whole_duration_with_the_gaps_marked() {
    if skip_without_root("creates loop devices") {
        return;
    }
    let _one = one_at_a_time();
    let dev = TmpfsLoop::new(64 * MIB);
    fill_random(dev.path(), 64 * MIB);
    let target = dev.path().to_str().unwrap();
    let store = TempStore::new("soak-kill9", "kill9");
    let kills = 3;
    let fractions = random_fractions(kills);
    let mut last: Option<SoakRecord> = None;
    for (i, f) in fractions.iter().enumerate() {
        let mut child = match i {
            0 => spawn("soak", &[&[target][..], &SOAK[..]].concat(), &store),
            _ => spawn(
                "soak",
                &["--resume", "last", "--checkpoint", "500ms", "--quiet"],
                &store,
            ),
        };
        let first = await_checkpoint(&mut child, &store);
        if i == 0 {
            // A soak that is still running is not resumed.
            let out = drivescope_cmd()
                .args([
                    "soak",
                    "--resume",
                    "last",
                    "--quiet",
                    "--store",
                    store.arg(),
                ])
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{stderr}");
            assert!(stderr.contains("still running"), "{stderr}");
            let id = store.runs()[0].0;
            assert_eq!(store.listed_state(id), RunStatus::Running);
        }
        // Kill it at a random moment of what is left of its part (each part gets about a
        // third of what the soak has left when it starts).
        let left = (DURATION_NS - first.duration_ns) as f64 / 1e9;
        let wait = f * left / (kills - i + 1) as f64;
        eprintln!(
            "kill {}: first checkpoint at {:.1} s of the soak; killing {wait:.3} s later",
            i + 1,
            first.duration_ns as f64 / 1e9
        );
        std::thread::sleep(Duration::from_secs_f64(wait));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        let runs = store.runs();
        assert_eq!(runs.len(), 1, "one stored run, updated in place");
        let (id, state, killed) = runs[0].clone();
        assert_eq!(state, Some(RunState::Checkpoint));
        let killed: SoakRecord = record_in(killed);
        let pid = killed.checkpoint.as_ref().expect("a checkpoint").pid;
        assert_eq!(pid, child.id());
        assert_eq!(store.listed_state(id), RunStatus::Interrupted);
        check_stopped(&killed);
        // A checkpoint ends on an interval of the series.
        assert_eq!(killed.duration_ns % INTERVAL_NS, 0);
        assert_eq!(killed.resumed.len(), i);
        if let Some(prev) = &last {
            // The soak went on from the last stop: what was kept then is kept now.
            let kept = &prev.series;
            assert!(killed.duration_ns >= prev.duration_ns);
            assert_eq!(&killed.series[..kept.len()], &kept[..]);
        }
        last = Some(killed);
    }
    let killed = last.unwrap();
    let whole = resume(&store, &killed);
    assert_eq!(whole.resumed.len(), kills);
    let runs = store.runs();
    assert_eq!(runs.len(), 1, "one stored run");
    assert_eq!(runs[0].1, Some(RunState::Finished));
    assert!(same(&runs[0].2, &whole));
}

#[test]
fn a_soak_stopped_with_sigint_resumes_and_another_target_is_refused() {
    if skip_without_root("creates loop devices") {
        return;
    }
    let _one = one_at_a_time();
    let dev = TmpfsLoop::new(64 * MIB);
    fill_random(dev.path(), 64 * MIB);
    let target = dev.path().to_str().unwrap();
    let store = TempStore::new("soak-kill9", "sigint");
    let mut child = spawn("soak", &[&[target][..], &SOAK[..]].concat(), &store);
    await_checkpoint(&mut child, &store);
    std::thread::sleep(Duration::from_millis(300));
    // SAFETY: a signal to the child this test started and has not yet waited for.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let st = child.wait().unwrap();
    assert_eq!(st.code(), Some(130), "exit code of an interrupted run");
    let runs = store.runs();
    assert_eq!(runs.len(), 1, "the result replaced the checkpoints");
    let (id, state, stopped) = runs[0].clone();
    assert_eq!(state, Some(RunState::Interrupted));
    let stopped: SoakRecord = record_in(stopped);
    assert!(stopped.checkpoint.is_none());
    assert_eq!(store.listed_state(id), RunStatus::Interrupted);
    check_stopped(&stopped);
    // Another target is not this soak's.
    let other = TmpfsLoop::new(64 * MIB);
    let out = drivescope_cmd()
        .args([
            "soak",
            "--resume",
            "last",
            "--quiet",
            "--store",
            store.arg(),
        ])
        .arg(other.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("refused"), "{stderr}");
    let whole = resume(&store, &stopped);
    assert_eq!(whole.resumed.len(), 1);
    let runs = store.runs();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].1, Some(RunState::Finished));
}
