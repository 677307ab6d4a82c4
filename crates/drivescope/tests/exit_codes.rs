//! Exit codes and refusals as a user meets them, on targets any user has (`null:`, files in a
//! temporary directory): no root, no devices. Output is read back into the record types.

use drivescope_record::{BenchRecord, Direction, Document, RunState, ScanRecord};
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_drivescope"))
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("run drivescope")
}

/// A directory of the test's own, removed at the end.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let p = std::env::temp_dir().join(format!("drivescope-exit-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).expect("scratch dir");
        Scratch(p)
    }
    fn path(&self, name: &str) -> String {
        self.0.join(name).display().to_string()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn code(o: &Output) -> i32 {
    o.status.code().expect("exited, not killed")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn document(o: &Output) -> Document {
    serde_json::from_slice(&o.stdout).expect("stdout is one drivescope/1 document")
}

#[test]
fn a_finished_scan_exits_0_with_its_document_on_stdout() {
    let o = run(&["scan", "null:32M", "--json", "--no-store", "-q"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let Document::Scan(rec) = document(&o) else {
        panic!("not a scan document")
    };
    assert_eq!(rec.covered, 32 << 20);
    assert_eq!(Document::Scan(rec).state(), Some(RunState::Finished));
}

#[test]
fn writes_to_an_existing_file_are_refused_with_3_and_the_file_is_untouched() {
    let s = Scratch::new("refused");
    let file = s.path("data.img");
    let data: Vec<u8> = (0..1u32 << 20).map(|i| (i * 7 % 251) as u8).collect();
    std::fs::write(&file, &data).expect("test file");
    for args in [
        vec!["scan", file.as_str(), "--write", "--no-store", "-q"],
        vec!["bench", file.as_str(), "--rw", "write", "--no-store", "-q"],
        vec![
            "soak",
            file.as_str(),
            "--rw",
            "write",
            "--duration",
            "1s",
            "--no-store",
        ],
    ] {
        let o = run(&args);
        assert_eq!(code(&o), 3, "{args:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("drivescope: refused: "),
            "{}",
            stderr(&o)
        );
    }
    assert_eq!(std::fs::read(&file).expect("read back"), data);
}

#[test]
fn bench_of_an_existing_file_reads_only_and_says_why() {
    let s = Scratch::new("bench-file");
    let file = s.path("data.img");
    std::fs::write(&file, vec![7u8; 1 << 20]).expect("test file");
    let o = run(&[
        "bench",
        &file,
        "--test",
        "RND4K Q1T1",
        "--runs",
        "1",
        "--duration",
        "100ms",
        "--allow-buffered",
        "--no-store",
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stderr(&o).contains("read tests only"), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("RND4K Q1T1"));
    // With --json the document alone says it: read tests, and no word on stderr.
    let o = run(&[
        "bench",
        &file,
        "--test",
        "RND4K Q1T1",
        "--runs",
        "1",
        "--duration",
        "100ms",
        "--allow-buffered",
        "--json",
        "--no-store",
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(stderr(&o), "");
    let Document::Bench(rec) = document(&o) else {
        panic!("not a bench document")
    };
    let rec: BenchRecord = *rec;
    assert!(!rec.tests.is_empty());
    assert!(
        rec.tests.iter().all(|t| t.rw == Direction::Read),
        "{:?}",
        rec.tests
    );
}

#[test]
fn values_wrong_for_each_other_exit_1_and_bad_numbers_2() {
    for args in [
        vec![
            "soak",
            "null:8M",
            "--duration",
            "1s",
            "--interval",
            "2s",
            "--no-store",
        ],
        vec!["scan", "null:8M", "--offset", "9M", "--no-store", "-q"],
    ] {
        let o = run(&args);
        assert_eq!(code(&o), 1, "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).starts_with("drivescope: "), "{}", stderr(&o));
    }
    for args in [
        vec!["scan", "null:8M", "--offset", "200%"],
        vec!["scan", "--no-such-flag"],
        vec!["bench", "null:8M", "--duration", "soon"],
        vec!["bench", "null:8M", "--runs", "0", "--no-store"],
        vec!["bench", "null:8M", "--duration", "0s", "--no-store"],
        vec!["diagnose", "null:8M", "--budget", "0s", "--no-store"],
        vec!["soak", "null:8M", "--interval", "0s", "--no-store"],
        vec!["scan", "null:8M", "--points", "0", "--no-store", "-q"],
        // Every number option of every command: 0 where 0 means nothing, and out of range.
        vec!["scan", "null:8M", "--queue-depth", "0", "--no-store", "-q"],
        vec![
            "scan",
            "null:8M",
            "--queue-depth",
            "5000",
            "--no-store",
            "-q",
        ],
        vec!["scan", "null:8M", "--block-size", "0", "--no-store", "-q"],
        vec![
            "scan",
            "null:8M",
            "--block-size",
            "128M",
            "--no-store",
            "-q",
        ],
        vec!["scan", "null:8M", "--length", "0", "--no-store", "-q"],
        vec!["scan", "null:8M", "--length", "0%", "--no-store", "-q"],
        vec!["scan", "null:8M", "--interval", "0s", "--no-store", "-q"],
        vec!["scan", "null:8M", "--quick", "--dwell", "0s", "--no-store"],
        vec!["screen", "null:8M", "--queue-depth", "0", "--no-store"],
        vec!["screen", "null:8M", "--max-latency", "0s", "--no-store"],
        vec!["screen", "null:8M", "--below-siblings", "0", "--no-store"],
        vec!["screen", "null:8M", "--below-siblings", "150", "--no-store"],
        vec!["bench", "null:8M", "--size", "0", "--no-store"],
        vec!["sweep", "null:8M", "--size", "0", "--no-store"],
        vec!["sweep", "null:8M", "--qd", "0", "--no-store"],
        vec!["soak", "null:8M", "--step", "0", "--no-store"],
        vec!["replay", "--size", "0", "/dev/null", "/tmp"],
        vec!["runs", "--limit", "0"],
        vec!["capacity", "null:8M", "--block", "0"],
        vec!["capacity", "null:8M", "--block", "6K"],
        vec!["time", "--runs", "0", "--", "true"],
        vec![
            "time",
            "--predict-on",
            "null:8M",
            "--predict-seconds",
            "0",
            "--",
            "true",
        ],
        vec!["lab", "truth", "hdd-7200", "--points", "0"],
        vec!["lab", "truth", "hdd-7200", "--block-size", "0"],
        vec!["lab", "truth", "hdd-7200", "--size", "0"],
    ] {
        let o = run(&args);
        assert_eq!(code(&o), 2, "{args:?}: {}", stderr(&o));
    }
}

/// Start `args`, let it run `after`, send SIGINT, and wait.
fn interrupted(args: &[&str], after: Duration) -> Output {
    let child = bin()
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start drivescope");
    std::thread::sleep(after);
    // SAFETY: kill(2) on our own child's pid.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    child.wait_with_output().expect("wait")
}

#[test]
fn a_scan_stopped_by_sigint_exits_130_saves_and_says_how_to_continue() {
    let s = Scratch::new("sigint");
    let store = s.path("runs.sqlite");
    let o = interrupted(
        &["scan", "null:64T", "--json", "--store", &store, "-q"],
        Duration::from_millis(700),
    );
    assert_eq!(code(&o), 130, "{}", stderr(&o));
    let Document::Scan(rec) = document(&o) else {
        panic!("not a scan document")
    };
    let rec: ScanRecord = *rec;
    assert!(rec.interrupted && rec.covered > 0 && rec.covered < rec.length);
    let err = stderr(&o);
    let id = err
        .split("continue it with `drivescope scan --resume ")
        .nth(1)
        .and_then(|r| r.split('`').next())
        .unwrap_or_else(|| panic!("no way to continue in: {err}"));
    let shown = run(&["show", id, "--store", &store, "--json"]);
    assert_eq!(code(&shown), 0, "{}", stderr(&shown));
    assert_eq!(document(&shown).state(), Some(RunState::Interrupted));
}

#[test]
fn a_soak_stopped_by_sigint_exits_130_with_what_it_measured() {
    let o = interrupted(
        &[
            "soak",
            "null:1G",
            "--test",
            "RND4K Q1T1",
            "--duration",
            "1m",
            "--interval",
            "100ms",
            "--json",
            "--no-store",
            "-q",
        ],
        Duration::from_millis(800),
    );
    assert_eq!(code(&o), 130, "{}", stderr(&o));
    let doc = document(&o);
    assert_eq!(doc.state(), Some(RunState::Interrupted));
    let Document::Soak(rec) = doc else {
        panic!("not a soak document")
    };
    assert!(rec.duration_ns > 0 && rec.duration_ns < 60_000_000_000);
}

#[test]
fn resuming_a_finished_run_is_refused_in_words() {
    let s = Scratch::new("resume");
    let store = s.path("runs.sqlite");
    let o = run(&["scan", "null:8M", "--store", &store, "-q"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = run(&["scan", "--resume", "last", "--store", &store, "-q"]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("finished; nothing to resume"),
        "{}",
        stderr(&o)
    );
}

/// The exit-code lines of a help text: `(code, meaning)` after `Exit codes:`.
fn codes_in(help: &str) -> Vec<(u16, String)> {
    help.lines()
        .skip_while(|l| l.trim() != "Exit codes:")
        .skip(1)
        .map_while(|l| {
            let (code, what) = l.trim().split_once("  ")?;
            Some((code.trim().parse().ok()?, what.trim().to_string()))
        })
        .collect()
}

#[test]
fn help_readme_and_man_pages_say_the_same_exit_codes() {
    let top = codes_in(&String::from_utf8_lossy(&run(&["--help"]).stdout));
    assert!(
        top.len() >= 7,
        "drivescope --help lists every exit code: {top:?}"
    );
    // README's table holds exactly these rows.
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md"))
        .expect("README.md");
    let rows: Vec<(u16, String)> = readme
        .lines()
        .skip_while(|l| !l.starts_with("Exit codes"))
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .filter_map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            match cells.as_slice() {
                ["", code, what, ""] => Some((code.parse().ok()?, what.to_string())),
                _ => None,
            }
        })
        .collect();
    assert_eq!(rows, top, "README's exit-code table and drivescope --help");
    let pages = Scratch::new("man");
    let written = run(&["manpage", "--dir", pages.0.to_str().unwrap()]);
    assert_eq!(code(&written), 0, "{}", stderr(&written));
    // Each command lists its own, in the same words; the measuring ones their interruption and lost device.
    for (command, must) in [
        ("scan", &[0, 1, 2, 3, 4, 130][..]),
        ("screen", &[0, 1, 2, 3, 4, 5, 130]),
        ("diagnose", &[0, 1, 2, 3, 4, 5, 130]),
        ("time", &[0, 1, 2, 3, 130]),
        ("capacity", &[0, 1, 2, 3, 4, 5, 130]),
        ("durability", &[0, 1, 2, 3, 5, 130]),
        ("runs", &[0, 1, 2]),
        ("serve", &[0, 1, 2, 3]),
    ] {
        let help = codes_in(&String::from_utf8_lossy(&run(&[command, "--help"]).stdout));
        let codes: Vec<u16> = help.iter().map(|(c, _)| *c).collect();
        assert_eq!(codes, must, "{command} --help");
        for line in &help {
            assert!(
                top.contains(line),
                "{command}: {line:?} is not drivescope's own words"
            );
        }
        // The command's man page renders the same text.
        let page = pages.0.join(format!("drivescope-{command}.1"));
        let man = std::fs::read_to_string(&page).unwrap_or_else(|e| panic!("{page:?}: {e}"));
        let man = man.replace("\\-", "-");
        for (code, what) in &help {
            assert!(man.contains(what.as_str()), "{page:?} lacks {code}: {what}");
        }
    }
}

#[test]
fn serving_the_store_beyond_loopback_without_a_token_is_refused_with_3() {
    let s = Scratch::new("serve");
    let store = s.path("runs.sqlite");
    assert_eq!(code(&run(&["scan", "null:1M", "-q", "--store", &store])), 0);
    let o = run(&["serve", "--listen", "0.0.0.0:0", "--store", &store]);
    assert_eq!(code(&o), 3, "{}", stderr(&o));
    assert!(
        stderr(&o).starts_with("drivescope: refused: serve: listening on 0.0.0.0:0"),
        "{}",
        stderr(&o)
    );
    assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
}
