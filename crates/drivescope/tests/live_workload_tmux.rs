//! The live views of bench, sweep and soak on a real terminal (tmux): the rate over time, the
//! finished tests or the sweep's grid while the run goes on; `q` stops a bench as SIGINT does
//! (the tests finished so far printed on the restored screen, the run saved as interrupted); a
//! run that ends by itself restores the terminal and prints its summary.

use common::tmux::{braille, Tmux};
use drivescope_testkit as common;
use std::path::PathBuf;
use std::time::Duration;

/// A directory of the test's own, removed on drop (also when the test fails).
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let p = std::env::temp_dir().join(format!("drivescope-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&p).unwrap();
        Scratch(p)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

const BIN: &str = env!("CARGO_BIN_EXE_drivescope");

#[test]
fn bench_shows_its_tests_as_they_finish_and_q_stops_it_saved() {
    let dir = Scratch::new("live-bench");
    let store = dir.0.join("runs.db");
    let shell = format!(
        "{BIN} bench null:256M --runs 1 --duration 1s --store {}; echo EXIT=$?; sleep 600",
        store.display()
    );
    let tmux = Tmux::session("live-bench", &shell, 120, 32);
    // Two of the four tests done (each a preparing and a measured run of 1 s, read and write).
    let live = tmux.wait_for(Duration::from_secs(60), |p| {
        p.matches("SEQ1M Q1T1").count() >= 1 && p.contains("finished tests")
    });
    assert!(live.contains("drivescope bench null:256M"), "{live}");
    assert!(live.contains("MB/s over time") && braille(&live), "{live}");
    assert!(live.contains("SEQ1M Q8T1     read"), "{live}");
    assert!(live.contains("q stop"), "{live}");
    assert!(tmux.alternate());
    tmux.keys("q");
    let done = tmux.wait_for(Duration::from_secs(30), |p| p.contains("EXIT="));
    assert!(!tmux.alternate(), "{done}");
    assert!(!done.contains("MB/s over time"), "{done}");
    assert!(done.contains("EXIT=130"), "{done}");
    let out = std::process::Command::new(BIN)
        .args(["show", "last", "--json", "--store"])
        .arg(&store)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["kind"], "bench");
    assert_eq!(doc["interrupted"], true);
    let tests = doc["tests"].as_array().unwrap();
    assert!((2..8).contains(&tests.len()), "{}", tests.len());
}

#[test]
fn sweep_fills_its_grid_and_soak_ends_on_the_normal_screen() {
    let shell = format!(
        "{BIN} sweep null:256M --qd 1,8 --threads 1,2 --duration 1s --no-store; echo EXIT=$?; \
         {BIN} soak null:256M --duration 3s --interval 500ms --no-store; echo EXIT2=$?; sleep 600"
    );
    let tmux = Tmux::session("live-sweep", &shell, 100, 30);
    let grid = tmux.wait_for(Duration::from_secs(30), |p| {
        p.contains("finished cells") && p.contains(" run ") && p.contains("·")
    });
    assert!(grid.contains("IOPS") && grid.contains("Q8"), "{grid}");
    assert!(tmux.alternate());
    let soak = tmux.wait_for(Duration::from_secs(30), |p| {
        p.contains("drivescope soak null:256M") && braille(p)
    });
    assert!(soak.contains("ETA"), "{soak}");
    let done = tmux.wait_for(Duration::from_secs(30), |p| p.contains("EXIT2="));
    assert!(!tmux.alternate(), "{done}");
    assert!(
        done.contains("EXIT=0") && done.contains("EXIT2=0"),
        "{done}"
    );
    assert!(!done.contains("MB/s over time"), "{done}");
}
