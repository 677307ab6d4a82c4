//! `drivescope bench`, `sweep`, `soak` and `scan` under `mpirun -n 3`: one multi document from
//! rank 0 with every rank's own record and their exact sums, a failing rank named, an
//! interrupted rank stopping all, and no rank left waiting.
#![cfg(feature = "mpi")]

use drivescope_record::{Document, MultiRecord, RunState};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// One mpirun at a time (the ranks share the machine's cores).
static ONE: Mutex<()> = Mutex::new(());

/// `mpirun -n 3 drivescope ARGS`, started, with the lock that keeps other mpiruns out.
fn spawn(args: &[&str]) -> (Child, MutexGuard<'static, ()>) {
    let one = ONE.lock().unwrap_or_else(|e| e.into_inner());
    let child = Command::new("mpirun")
        .args([
            "-n",
            "3",
            "--oversubscribe",
            env!("CARGO_BIN_EXE_drivescope"),
        ])
        .args(args)
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mpirun must be installed (apt-get install openmpi-bin) for the mpi tests");
    (child, one)
}

/// The child's output, killed after 60 s (a hang fails the test).
fn wait(child: Child) -> Output {
    // The pipes are drained while the ranks run (a document is larger than a pipe holds).
    let pid = child.id() as i32;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(child.wait_with_output().unwrap()));
    match rx.recv_timeout(Duration::from_secs(60)) {
        Ok(out) => out,
        Err(_) => {
            unsafe { libc::kill(pid, libc::SIGKILL) };
            panic!("mpirun did not end within 60 s: a rank hangs");
        }
    }
}

/// `mpirun -n 3 drivescope ARGS` to its end.
fn mpirun(args: &[&str]) -> Output {
    let (child, _one) = spawn(args);
    wait(child)
}

/// A timing between three ranks that share two cores: a rank can wait a scheduler slice or more for its
/// turn, longer while another build keeps the cores busy. `first` is the check of the run the test made;
/// where it fails, `again` runs the same job once more and checks it, and the test passes when one of three
/// runs holds. A missing barrier or stonewall fails every run.
fn holds_on_one_of_three(first: Result<(), String>, mut again: impl FnMut() -> Result<(), String>) {
    let mut failed = Vec::new();
    let mut outcome = first;
    while let Err(e) = outcome {
        failed.push(e);
        assert!(failed.len() < 3, "on three runs: {failed:#?}");
        outcome = again();
    }
    if !failed.is_empty() {
        eprintln!("held on run {} after {failed:?}", failed.len() + 1);
    }
}

/// The start spread of a run's first test within `bound_ns`.
fn started_within(m: &MultiRecord, bound_ns: u64) -> Result<(), String> {
    let spread = m.tests[0].start_spread_ns;
    if spread < bound_ns {
        Ok(())
    } else {
        Err(format!("start spread {spread} ns"))
    }
}

/// The one multi document rank 0 printed.
fn multi(out: &Output) -> MultiRecord {
    let doc: Document = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "one document on stdout ({e}): {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let Document::Multi(m) = doc else {
        panic!(
            "not a multi document: {}",
            String::from_utf8_lossy(&out.stdout)
        )
    };
    *m
}

const COMMON: &[&str] = &[
    "--test",
    "RND4K Q1T1",
    "--rw",
    "read",
    "--runs",
    "2",
    "--duration",
    "300ms",
    "--json",
    "--no-store",
];

#[test]
fn three_ranks_make_one_document_with_exact_sums() {
    let mut args = vec!["bench", "null:1G"];
    args.extend_from_slice(COMMON);
    let out = mpirun(&args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let m = multi(&out);
    assert_eq!(m.command, "bench");
    let ranks: Vec<u32> = m.members.iter().map(|r| r.rank).collect();
    assert_eq!(ranks, vec![0, 1, 2]);
    assert!(m
        .members
        .iter()
        .all(|r| !r.host.is_empty() && r.bench.is_some()));
    let t = &m.tests[0];
    assert_eq!(t.ranks, 3);
    let rank_bytes: u64 = m
        .members
        .iter()
        .flat_map(|r| &r.windows[0])
        .map(|w| w.bytes)
        .sum();
    assert_eq!(t.bytes, rank_bytes);
    let rank_commands: u64 = m
        .members
        .iter()
        .map(|r| r.bench.as_ref().unwrap().tests[0].latency.count)
        .sum();
    assert_eq!(t.latency.count, rank_commands);
    assert_eq!(t.runs.len(), 2);
    // The barrier lines the ranks up within a few ms (one host: one clock; three busy ranks
    // on two cores wait up to a scheduler slice or two for their turn).
    holds_on_one_of_three(started_within(&m, 20_000_000), || {
        started_within(&multi(&mpirun(&args)), 20_000_000)
    });
}

#[test]
fn a_rank_without_its_target_fails_cleanly_and_is_named() {
    let dir = std::env::temp_dir().join(format!("ds-mpi-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Ranks 0 and 2 get a directory (a small test file in it); rank 1's does not exist.
    for r in [0, 2] {
        std::fs::create_dir(dir.join(format!("t{r}"))).unwrap();
    }
    let template = format!("{}/t{{rank}}", dir.display());
    let mut args = vec![
        "bench",
        template.as_str(),
        "--size",
        "1M",
        "--allow-buffered",
    ];
    args.extend_from_slice(COMMON);
    let out = mpirun(&args);
    std::fs::remove_dir_all(&dir).unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("rank 1 on "), "{stderr}");
    let m = multi(&out);
    let failed: Vec<u32> = m.failed().map(|(r, _)| r.rank).collect();
    assert_eq!(failed, vec![1]);
}

/// A directory of this test's own under /dev/shm, removed when dropped.
struct Scratch(std::path::PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        let dir =
            std::path::PathBuf::from(format!("/dev/shm/ds-mpi-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn a_scan_of_each_ranks_own_file_merges_every_command() {
    let dir = Scratch::new("scan");
    const MIB: u64 = 1 << 20;
    for r in 0..3u64 {
        let f = std::fs::File::create(dir.0.join(format!("r{r}"))).unwrap();
        f.set_len((r + 1) * 8 * MIB).unwrap();
    }
    let template = format!("{}/r{{rank}}", dir.0.display());
    let store = dir.0.join("store.db");
    let store = store.to_str().unwrap();
    let out = mpirun(&["scan", &template, "--json", "--store", store]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let m = multi(&out);
    assert_eq!(m.command, "scan");
    assert_eq!(m.target_template, template);
    let ranks: Vec<u32> = m.members.iter().map(|r| r.rank).collect();
    assert_eq!(ranks, vec![0, 1, 2]);
    for (i, r) in m.members.iter().enumerate() {
        let scan = r.scan.as_ref().expect("each rank's own scan");
        assert_eq!(r.target, format!("{}/r{i}", dir.0.display()));
        assert_eq!(
            scan.bytes,
            (i as u64 + 1) * 8 * MIB,
            "rank {i} read its whole file"
        );
        let state = Document::from((**scan).clone()).state();
        assert_eq!(state, Some(RunState::Finished), "rank {i}");
    }
    assert_eq!(m.tests.len(), 1);
    let t = &m.tests[0];
    assert_eq!((t.name.as_str(), t.ranks), ("scan", 3));
    assert_eq!(t.bytes, 48 * MIB);
    assert_eq!(t.commands, 48 * MIB / (64 << 10));
    let scans = || m.members.iter().map(|r| r.scan.as_ref().unwrap());
    assert_eq!(
        t.latency.count,
        scans().map(|s| s.latency.count).sum::<u64>()
    );
    // The bands are every rank's counts summed, band by band.
    assert_eq!(t.bands.len(), scans().next().unwrap().bands.len());
    for b in &t.bands {
        let sum: u64 = scans()
            .map(|s| s.bands.iter().find(|x| x.label == b.label).unwrap().count)
            .sum();
        assert_eq!(b.count, sum, "band {}", b.label);
    }
    assert_eq!(t.bands.iter().map(|b| b.count).sum::<u64>(), t.commands);
    assert_eq!(t.slow_commands, Some(0));
    // The rate is every byte over the earliest start to the latest end.
    let run = &t.runs[0];
    let rate = run.bytes as f64 * 1e3 / (run.end_ns - run.start_ns) as f64;
    assert!(
        (t.mb_per_s - rate).abs() < 1e-6 * rate,
        "{} {rate}",
        t.mb_per_s
    );
    holds_on_one_of_three(started_within(&m, 20_000_000), || {
        let out = mpirun(&["scan", &template, "--json", "--no-store"]);
        started_within(&multi(&out), 20_000_000)
    });

    // Rank 0 stored one run; its report has the per-rank table and every rank's curve.
    let html = dir.0.join("report.html");
    let report = std::process::Command::new(env!("CARGO_BIN_EXE_drivescope"))
        .args(["report", "1", "--store", store, "-o"])
        .arg(&html)
        .output()
        .unwrap();
    assert!(
        report.status.success(),
        "{}",
        String::from_utf8_lossy(&report.stderr)
    );
    let html = std::fs::read_to_string(&html).unwrap();
    let ranks = html
        .split("<table class=\"ranks\">")
        .nth(1)
        .expect("the per-rank table")
        .split("</table>")
        .next()
        .unwrap();
    for i in 0..3 {
        // The page escapes every slash of a target.
        let target = format!("{}/r{i}", dir.0.display()).replace('/', "&#x2f;");
        assert!(ranks.contains(&target), "{ranks}");
    }
    assert_eq!(ranks.matches(" best\"").count(), 1, "{ranks}");
    assert_eq!(ranks.matches(" worst\"").count(), 1, "{ranks}");
    let chart = html
        .split("id=\"chart-multi-curve-")
        .nth(1)
        .expect("the ranks' curves in one chart");
    let chart = chart.split("</svg>").next().unwrap();
    assert_eq!(chart.matches("data-points=").count(), 3, "a line per rank");

    // compare lines the ranks up host by host: a row per rank.
    let compare = std::process::Command::new(env!("CARGO_BIN_EXE_drivescope"))
        .args(["compare", "1", "1", "--store", store])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&compare.stdout);
    assert!(compare.status.success(), "{text}");
    for r in &m.members {
        let row = format!("scan read rank {} on {}", r.rank, r.host);
        assert!(text.contains(&row), "{row} in\n{text}");
    }
}

#[test]
fn a_sweep_merges_each_cell_over_the_ranks() {
    let out = mpirun(&[
        "sweep",
        "null:1G",
        "--qd",
        "1,2",
        "--threads",
        "1",
        "--duration",
        "200ms",
        "--json",
        "--no-store",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let m = multi(&out);
    assert_eq!(m.command, "sweep");
    let names: Vec<&str> = m.tests.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, vec!["RND4K Q1T1", "RND4K Q2T1"]);
    for (i, t) in m.tests.iter().enumerate() {
        assert_eq!(t.ranks, 3);
        let count: u64 = m
            .members
            .iter()
            .map(|r| {
                assert!(r.sweep.is_some(), "rank {} has its sweep", r.rank);
                drivescope_stats::Histogram::from_out(&r.histograms[i]).count()
            })
            .sum();
        assert_eq!(t.latency.count, count, "cell {}", t.name);
        let windows: u64 = m.members.iter().map(|r| r.windows[i][0].commands).sum();
        assert_eq!(t.commands, windows);
    }
}

#[test]
fn a_stonewalled_soak_ends_every_rank_together() {
    const SOAK: &[&str] = &[
        "soak",
        "null:1G",
        "--test",
        "RND4K Q1T1",
        "--duration",
        "500ms",
        "--interval",
        "100ms",
        "--stonewall",
        "--json",
        "--no-store",
    ];
    let out = mpirun(SOAK);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let m = multi(&out);
    assert!(m.stonewall);
    assert_eq!(m.command, "soak");
    let t = &m.tests[0];
    assert_eq!(t.ranks, 3);
    // All stop at the earliest rank's start + duration (the time to notice the deadline and
    // leave the run's loop aside).
    let together = |m: &MultiRecord| {
        let windows: Vec<_> = m.members.iter().map(|r| r.windows[0][0]).collect();
        let first_start = windows.iter().map(|w| w.start_ns).min().unwrap();
        let first_end = windows.iter().map(|w| w.end_ns).min().unwrap();
        let last_end = windows.iter().map(|w| w.end_ns).max().unwrap();
        if last_end <= first_start + 500_000_000 + 30_000_000 && last_end - first_end < 30_000_000 {
            Ok(())
        } else {
            Err(format!(
                "last end {} ms after the first start, {} ms after the first end",
                (last_end - first_start) / 1_000_000,
                (last_end - first_end) / 1_000_000
            ))
        }
    };
    holds_on_one_of_three(together(&m), || together(&multi(&mpirun(SOAK))));
    let count: u64 = m
        .members
        .iter()
        .map(|r| drivescope_stats::Histogram::from_out(&r.histograms[0]).count())
        .sum();
    assert_eq!(t.latency.count, count);
}

/// The CPU time (user and system) process `pid` has used, in seconds; 0 once it is gone.
fn cpu_seconds(pid: i32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // utime and stime are the 12th and 13th fields after the command's closing parenthesis.
    let ticks: u64 = stat
        .rsplit_once(')')
        .map(|(_, rest)| {
            rest.split_whitespace()
                .skip(11)
                .take(2)
                .filter_map(|t| t.parse::<u64>().ok())
                .sum()
        })
        .unwrap_or(0);
    // SAFETY: sysconf reads a constant of the system.
    ticks as f64 / unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64
}

/// The process of `rank` among mpirun's children.
fn rank_pid(mpirun: u32, rank: u32) -> Option<i32> {
    for e in std::fs::read_dir("/proc").ok()?.flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        // The parent's pid is the second field after the command's closing parenthesis.
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|p| p.parse::<u32>().ok());
        if ppid != Some(mpirun) {
            continue;
        }
        let env = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
        let want = format!("OMPI_COMM_WORLD_RANK={rank}");
        if env.split(|&b| b == 0).any(|v| v == want.as_bytes()) {
            return Some(pid);
        }
    }
    None
}

#[test]
fn ctrl_c_on_one_rank_stops_every_rank_at_its_next_run() {
    let (child, _one) = spawn(&[
        "bench",
        "null:1G",
        "--test",
        "RND4K Q1T1",
        "--rw",
        "read",
        "--runs",
        "100",
        "--duration",
        "200ms",
        "--json",
        "--no-store",
    ]);
    let started = Instant::now();
    // The preparing run and a few measured runs, then SIGINT to rank 1 alone. A rank reading the
    // null target keeps its CPU busy, so a second of its CPU time is at least a second of its
    // runs (five of 200 ms, the preparing one among them), however slowly a busy host ran it.
    let pid = loop {
        if let Some(p) = rank_pid(child.id(), 1) {
            break p;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "no rank 1");
        std::thread::sleep(Duration::from_millis(50));
    };
    while cpu_seconds(pid) < 1.0 {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "rank 1 used {} s of CPU in 60 s",
            cpu_seconds(pid)
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    unsafe { libc::kill(pid, libc::SIGINT) };
    let out = wait(child);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    let m = multi(&out);
    let state = Document::from(m.clone()).state();
    assert_eq!(state, Some(RunState::Interrupted));
    let t = &m.tests[0];
    assert_eq!(t.ranks, 3, "every rank keeps the runs it made");
    assert!(
        // A hundred runs of 200 ms take twenty seconds: fewer means the stop ended them, however
        // long the signal took to arrive on a busy machine.
        t.runs.len() < 100 && !t.runs.is_empty(),
        "{} runs",
        t.runs.len()
    );
    assert!(m.failed().next().is_none());
}
