//! `drivescope bench` under `mpirun -n 3` on null targets: one multi document from rank 0,
//! a failing rank named and no rank left waiting.
#![cfg(feature = "mpi")]

use drivescope_record::Document;
use std::process::{Command, Output, Stdio};
use std::sync::Mutex;
use std::time::Duration;

/// One mpirun at a time (the ranks share the machine's cores).
static ONE: Mutex<()> = Mutex::new(());

/// `mpirun -n 3 drivescope bench ARGS`, killed after 60 s (a hang fails the test).
fn mpirun(args: &[&str]) -> Output {
    let _one = ONE.lock().unwrap_or_else(|e| e.into_inner());
    let child = Command::new("mpirun")
        .args([
            "-n",
            "3",
            "--oversubscribe",
            env!("CARGO_BIN_EXE_drivescope"),
            "bench",
        ])
        .args(args)
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mpirun must be installed (apt-get install openmpi-bin) for the mpi tests");
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
    let mut args = vec!["null:1G"];
    args.extend_from_slice(COMMON);
    let out = mpirun(&args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let doc: Document = serde_json::from_slice(&out.stdout).expect("one document on stdout");
    let Document::Multi(m) = doc else {
        panic!(
            "not a multi document: {}",
            String::from_utf8_lossy(&out.stdout)
        )
    };
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
    assert!(
        t.start_spread_ns < 20_000_000,
        "start spread {} ns",
        t.start_spread_ns
    );
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
    let mut args = vec![template.as_str(), "--size", "1M", "--allow-buffered"];
    args.extend_from_slice(COMMON);
    let out = mpirun(&args);
    std::fs::remove_dir_all(&dir).unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("rank 1 on "), "{stderr}");
    let doc: Document = serde_json::from_slice(&out.stdout).expect("one document on stdout");
    let Document::Multi(m) = doc else {
        panic!("not a multi document")
    };
    let failed: Vec<u32> = m.failed().map(|(r, _)| r.rank).collect();
    assert_eq!(failed, vec![1]);
}
