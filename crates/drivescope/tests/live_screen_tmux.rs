//! The screen view on a real terminal: `screen` of two emulated lab disks (FUSE + loop), the
//! second with one slow spot, run inside tmux. The pane names the shared-path reads while they
//! run, then shows one curve per drive with the slow mark under the second; `q` stops both as
//! SIGINT does (the summary printed on the restored screen, both drives saved as incomplete)
//! and `screen --resume last` finishes them. Needs root, FUSE and tmux; fails loudly without.

use common::tmux::{braille, Tmux};
use common::*;
use drivescope_lab::{check_environment, LabDevice, Model};
use drivescope_record::{Document, Grade, ScreenRecord};
use drivescope_store::{RunId, Store};
use drivescope_testkit as common;
use std::path::PathBuf;
use std::time::Duration;

const MIB: u64 = 1 << 20;
const SIZE: u64 = 256 * MIB;
const SLOW_AT: u64 = 48 * MIB;

/// A folder of the test's own, removed on drop (also when the test fails).
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// 256 MiB at 40 MB/s (6.7 s to the end); with `slow`, one 64 KiB command at 48 MiB takes
/// 300 ms more.
fn lab_disk(slow: bool) -> LabDevice {
    lab_disk_of("256M", slow)
}

fn lab_disk_of(size: &str, slow: bool) -> LabDevice {
    let mut text = format!("name = 'live'\nsize = '{size}'\nzones = {{ rates_mb_s = [40] }}\n");
    if slow {
        text += "slow = [{ offset = '48M', length = '64K', latency = '300ms' }]\n";
    }
    let model = Model::from_toml_str(&text, "test").unwrap();
    LabDevice::start_temp(&model, true).expect("start lab device")
}

/// The pane's rows from the drive panel headed by `path` to the next panel or the keys.
fn panel<'a>(pane: &'a str, path: &str) -> Vec<&'a str> {
    let head = format!(" {path} (MB/s) ");
    let rows: Vec<&str> = pane.lines().collect();
    let Some(start) = rows.iter().position(|r| r.contains(&head)) else {
        return Vec::new();
    };
    rows[start + 1..]
        .iter()
        .take_while(|r| !r.contains(" (MB/s) ") && !r.starts_with("q stop all"))
        .copied()
        .collect()
}

/// A row holding marks only, and the slow one among them.
fn slow_marked(rows: &[&str]) -> bool {
    rows.iter().any(|r| {
        let marks = r.trim();
        !marks.is_empty()
            && marks.chars().all(|c| matches!(c, '!' | 'X' | ' '))
            && marks.contains('!')
    })
}

/// The "slow N" count a drive's panel shows.
fn slow_count(rows: &[&str]) -> u64 {
    rows.iter()
        .find_map(|r| {
            let (_, rest) = r.split_once("slow ")?;
            rest.split_whitespace().next()?.parse().ok()
        })
        .unwrap_or_else(|| panic!("no slow count in {rows:?}"))
}

fn lab_ready() {
    require_root();
    if let Err(e) = check_environment(true) {
        panic!("lab tests need root, /dev/fuse (Debian fuse3) and losetup: {e}");
    }
}

fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|p| p.into_inner())
}

#[test]
fn screen_shows_a_curve_per_drive_marks_the_slow_one_and_q_stops_both_resumably() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
    let _one = one_at_a_time();
    lab_ready();
    let devs = [lab_disk(false), lab_disk(true)];
    let paths: Vec<String> = devs
        .iter()
        .map(|d| d.loop_device().unwrap().display().to_string())
        .collect();
    let dir = Scratch(PathBuf::from(format!(
        "/tmp/drivescope-live-screen-{}",
        std::process::id()
    )));
    std::fs::create_dir_all(&dir.0).unwrap();
    let store = dir.0.join("runs.db");
    let bin = env!("CARGO_BIN_EXE_drivescope");
    let shell = format!(
        "{bin} screen {} {} --shared-path 1s --store {}; echo EXIT=$?; sleep 600",
        paths[0],
        paths[1],
        store.display()
    );
    let pressure = common::busy::Pressure::start();
    let tmux = Tmux::session("screen", &shell, 120, 32);

    // The shared-path reads come first, named on the view.
    let phase = tmux.wait_for(Duration::from_secs(30), |p| p.contains("shared path: "));
    assert!(
        phase.contains("shared path: reading each drive alone for 1.00 s, then all 2 together"),
        "{phase}"
    );
    assert!(tmux.alternate());
    // Then both scans: a curve in each panel, the slow mark under the second drive's only.
    let live = tmux.wait_for(Duration::from_secs(40), |p| {
        let (a, b) = (panel(p, &paths[0]), panel(p, &paths[1]));
        a.iter().any(|r| braille(r)) && b.iter().any(|r| braille(r)) && slow_marked(&b)
    });
    let (a, b) = (panel(&live, &paths[0]), panel(&live, &paths[1]));
    assert!(!live.contains("shared path: "), "{live}");
    assert!(live.starts_with("drivescope screen  2 drives"), "{live}");
    // The second drive's slow spot is counted; a command the host held back past the slow
    // threshold counts too, which only a busy host's may add (said on stderr), and on either drive.
    let (slow_a, slow_b) = (slow_count(&a), slow_count(&b));
    assert!(a.iter().any(|r| r.contains("failed 0")), "{live}");
    assert!(b.iter().any(|r| r.contains("failed 0")), "{live}");
    assert!(slow_b >= 1, "{live}");
    if slow_a > 0 || slow_b > 1 || slow_marked(&a) {
        let busy = pressure.as_ref().and_then(|p| p.share()).unwrap_or(0.0);
        assert!(
            busy >= common::busy::BUSY,
            "slow {slow_a} and {slow_b} (CPU pressure {busy:.2}): {live}"
        );
        eprintln!(
            "inconclusive: slow {slow_a} and {slow_b} with the CPUs {:.0} % under pressure",
            busy * 100.0
        );
    }
    assert!(live.contains("q stop all"), "{live}");

    tmux.keys("q");
    let done = tmux.wait_for(Duration::from_secs(30), |p| p.contains("EXIT="));
    // The terminal is restored: the group's summary on the normal screen, no view left over.
    assert!(!tmux.alternate(), "{done}");
    assert!(!done.contains("q stop all"), "{done}");
    assert!(done.contains("EXIT=130"), "{done}");
    let summary = tmux.history(200);
    assert!(
        summary.contains("drivescope screen: 2 drives, read scan")
            && summary.contains("stopped before every drive was done"),
        "{summary}"
    );
    assert!(done.contains("incomplete      incomplete"), "{done}");
    let id: i64 = done
        .split("continue it with `drivescope screen --resume ")
        .nth(1)
        .and_then(|r| r.split('`').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no resume hint in\n{done}"));

    // Both drives saved as incomplete.
    let Document::Screen(first) = Store::open(&store).unwrap().get(RunId(id)).unwrap() else {
        panic!("run {id} is not a screen");
    };
    assert!(first.interrupted);
    for m in &first.members {
        let s = m.scan.as_ref().unwrap();
        assert!(
            s.interrupted && s.covered < SIZE,
            "{}: {}",
            m.target,
            s.covered
        );
        assert_eq!(m.verdict.as_ref().unwrap().grade, Grade::Incomplete);
    }

    // `--resume last` reads the rest of both.
    let out = drivescope_cmd()
        .args(["screen", "--resume", "last", "--json", "--quiet", "--store"])
        .arg(&store)
        .output()
        .unwrap();
    drop(devs);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let g: ScreenRecord = serde_json::from_slice(&out.stdout).unwrap();
    assert!(!g.interrupted);
    assert_eq!(g.resumed_from, Some(id));
    for (m, before) in g.members.iter().zip(&first.members) {
        let s = m.scan.as_ref().unwrap();
        assert!(!s.interrupted, "{}", m.target);
        assert_eq!((s.covered, s.length), (SIZE, SIZE), "{}", m.target);
        assert_eq!(s.resumed_from, before.run, "{}", m.target);
    }
    // The slow command the view marked is the second drive's, in its whole run.
    let slow_at = |i: usize| {
        let s = g.members[i].scan.as_ref().unwrap();
        s.slow.iter().any(|e| e.offset == SLOW_AT)
    };
    assert!(slow_at(1) && !slow_at(0));
}

/// With --no-live the terminal never leaves its normal screen: the progress lines, then the
/// summary.
#[test]
fn no_live_keeps_the_progress_lines() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
    let _one = one_at_a_time();
    lab_ready();
    let devs = [lab_disk_of("64M", false), lab_disk_of("64M", false)];
    let bin = env!("CARGO_BIN_EXE_drivescope");
    let shell = format!(
        "{bin} screen {} {} --shared-path 0 --no-store --no-live; echo EXIT=$?; sleep 600",
        devs[0].loop_device().unwrap().display(),
        devs[1].loop_device().unwrap().display(),
    );
    let tmux = Tmux::session("screen-plain", &shell, 120, 32);
    let t0 = std::time::Instant::now();
    let mut pane = String::new();
    while t0.elapsed() < Duration::from_secs(60) && !pane.contains("EXIT=") {
        assert!(!tmux.alternate(), "{}", tmux.pane());
        pane = tmux.pane();
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(pane.contains("EXIT=0"), "{pane}");
    assert!(!pane.contains("q stop all"), "{pane}");
    assert!(
        tmux.history(200).contains("drivescope screen: 2 drives"),
        "{pane}"
    );
}
