//! A target in memory is said to be memory: bench, sweep and diagnose on a tmpfs directory print
//! a note under their headline and carry `"memory": "tmpfs"` in their JSON; on a disk's file
//! system neither appears.

use common::scratch::run;
use drivescope_testkit as common;

/// A directory of the test's own on /dev/shm (tmpfs), removed when dropped.
struct ShmDir(std::path::PathBuf);

impl ShmDir {
    fn new(name: &str) -> ShmDir {
        let d = std::path::PathBuf::from(format!(
            "/dev/shm/drivescope-mem-{}-{name}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        ShmDir(d)
    }
    fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for ShmDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn is_tmpfs(path: &str) -> bool {
    let mounts = std::fs::read_to_string("/proc/self/mounts").unwrap();
    mounts
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split(' ').collect();
            Some((f.get(1)?.to_string(), f.get(2)?.to_string()))
        })
        .filter(|(mp, _)| path.starts_with(mp.as_str()))
        .max_by_key(|(mp, _)| mp.len())
        .is_some_and(|(_, t)| t == "tmpfs")
}

const NOTE: &str = "is memory (tmpfs), not a disk";

fn commands(dir: &str) -> Vec<Vec<String>> {
    let v = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    vec![
        v(&[
            "bench",
            dir,
            "--size",
            "8M",
            "--runs",
            "1",
            "--duration",
            "100ms",
            "--test",
            "SEQ1M Q1T1",
            "--rw",
            "read",
            "--no-store",
            "--no-live",
        ]),
        v(&[
            "sweep",
            dir,
            "--size",
            "8M",
            "--qd",
            "1",
            "--threads",
            "1",
            "--duration",
            "100ms",
            "--no-store",
            "--no-live",
        ]),
        v(&[
            "diagnose",
            dir,
            "--size",
            "8M",
            "--budget",
            "1s",
            "--no-store",
            "--no-live",
        ]),
    ]
}

#[test]
fn bench_sweep_and_diagnose_on_tmpfs_say_it_is_memory() {
    let d = ShmDir::new("all");
    assert!(
        is_tmpfs(d.path()),
        "/dev/shm is not tmpfs here: this test needs a tmpfs to measure"
    );
    for args in commands(d.path()) {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, out, err) = run(&a);
        assert_eq!(code, 0, "{a:?}: {err}");
        let note = out.lines().nth(1).unwrap_or_default();
        assert!(
            note.starts_with(&format!("  note: {} {NOTE}", d.path())),
            "{a:?}:\n{out}"
        );
        let mut j = a.clone();
        j.retain(|x| *x != "--no-live");
        j.push("--json");
        let (code, out, err) = run(&j);
        assert_eq!(code, 0, "{j:?}: {err}");
        let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(doc["memory"], "tmpfs", "{j:?}");
    }
}

#[test]
fn a_disk_file_system_is_not_memory() {
    // The test's own build directory lies on the machine's disk, not in memory.
    let dir = std::env::current_dir().unwrap().join("target");
    let dir = if dir.is_dir() {
        dir
    } else {
        std::env::current_dir().unwrap()
    };
    let d = dir.join(format!("drivescope-mem-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let p = d.to_str().unwrap().to_string();
    assert!(!is_tmpfs(&p), "{p} is tmpfs");
    let args = &commands(&p)[0];
    let mut a: Vec<&str> = args.iter().map(String::as_str).collect();
    a.retain(|x| *x != "--no-live");
    a.push("--json");
    let (code, out, err) = run(&a);
    let _ = std::fs::remove_dir_all(&d);
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(doc.get("memory").is_none(), "{out}");
}
