//! The live view on a real terminal: `scan` of an emulated lab disk (FUSE + loop) with one
//! slow spot, run inside tmux. The pane shows the curve and the slow mark while it runs; `q`
//! stops the scan as SIGINT does (the summary printed on the restored screen, the run saved
//! as interrupted) and the saved run continues with `--resume`. Needs root, FUSE and tmux
//! (Debian `tmux`); fails loudly without them.

use common::tmux::{braille, Tmux};
use common::*;
use drivescope_lab::{check_environment, LabDevice, Model};
use drivescope_testkit as common;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

/// A path of the test's own, removed on drop (also when the test fails).
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
        let _ = std::fs::remove_file(&self.0);
    }
}

/// A row of the curve's frame holding only the slow mark.
fn slow_mark(pane: &str) -> bool {
    pane.lines().any(|l| {
        let inner: String = l.chars().filter(|c| !matches!(c, '│' | ' ')).collect();
        inner == "!"
    })
}

fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|p| p.into_inner())
}

/// 512 MiB at 40 MB/s: 13 s to the end; one 64 KiB command at 48 MiB takes 300 ms more.
fn lab_disk() -> LabDevice {
    require_root();
    assert!(
        Command::new("tmux").arg("-V").output().is_ok(),
        "this test drives the live view in tmux (Debian: apt-get install tmux)"
    );
    if let Err(e) = check_environment(true) {
        panic!("lab tests need root, /dev/fuse (Debian fuse3) and losetup: {e}");
    }
    let text = "name = 'live'\nsize = '512M'\nzones = { rates_mb_s = [40] }\n\
                slow = [{ offset = '48M', length = '64K', latency = '300ms' }]\n";
    let model = Model::from_toml_str(text, "test").unwrap();
    LabDevice::start_temp(&model, true).expect("start lab device")
}

/// `shell` in a new tmux session, 120 × 32.
fn session(name: &str, shell: &str) -> Tmux {
    Tmux::session(name, shell, 120, 32)
}

#[test]
fn scan_shows_the_curve_and_slow_spot_and_q_stops_it_resumably() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
    let _one = one_at_a_time();
    let dev = lab_disk();
    let path = dev.loop_device().unwrap().to_path_buf();
    let dir = Scratch(PathBuf::from(format!(
        "/tmp/drivescope-live-{}",
        std::process::id()
    )));
    std::fs::create_dir_all(&dir.0).unwrap();
    let store = dir.0.join("runs.db");
    let bin = env!("CARGO_BIN_EXE_drivescope");
    let shell = format!(
        "{bin} scan {} --store {}; echo EXIT=$?; sleep 600",
        path.display(),
        store.display()
    );
    let tmux = session("live", &shell);

    // The view: title, curve filling in, and the slow spot marked once the scan is past it.
    let live = tmux.wait_for(Duration::from_secs(30), |p| {
        p.contains("MB/s by position") && slow_mark(p)
    });
    assert!(
        live.contains(&format!("drivescope scan {}", path.display())),
        "{live}"
    );
    assert!(braille(&live), "no curve in\n{live}");
    assert!(live.contains("q stop"), "{live}");
    assert!(live.contains("<150ms"), "{live}");
    // The slow command's 300 ms in its band while the scan goes on (the scan's own bands,
    // handed to the view ten times a second).
    tmux.wait_for(Duration::from_secs(5), |p| {
        p.lines().any(|l| {
            l.split_once("<500ms")
                .and_then(|(_, r)| r.split_whitespace().next()?.parse::<u64>().ok())
                .is_some_and(|n| n >= 1)
        })
    });
    assert!(tmux.alternate());
    // A smaller terminal: the view is drawn again to its size, keys on the last row.
    let resized = tmux
        .cmd()
        .args(["resize-window", "-x", "80", "-y", "24"])
        .status()
        .unwrap();
    assert!(resized.success());
    let small = tmux.wait_for(Duration::from_secs(10), |p| {
        let rows: Vec<&str> = p.lines().collect();
        rows.len() == 24
            && rows[23].starts_with("q stop")
            && rows.iter().all(|r| r.chars().count() <= 80)
            && rows[1].starts_with('┌')
            && rows[1].ends_with('┐')
    });
    assert!(small.contains("MB/s by position"), "{small}");

    tmux.cmd().args(["send-keys", "q"]).status().unwrap();
    tmux.wait_for(Duration::from_secs(30), |p| p.contains("EXIT="));
    // The summary may be taller than the pane: read what scrolled off too.
    let done = tmux.history(200);
    // The terminal is restored: the summary on the normal screen, no view left over.
    assert!(!tmux.alternate(), "{done}");
    assert!(!done.contains("MB/s by position"), "{done}");
    assert!(done.contains("EXIT=130"), "{done}");
    assert!(done.contains("drivescope: interrupted after"), "{done}");
    assert!(
        done.contains("continue it with `drivescope scan --resume 1`"),
        "{done}"
    );

    // Saved as interrupted and resumable: the rest of the range is read.
    let out = drivescope_cmd()
        .args(["scan", "--resume", "1", "--json", "--store"])
        .arg(&store)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["resumed_from"], 1);
    assert_eq!(doc["interrupted"], false);
    // The slow command the view marked is in the whole run's slow list.
    let slow = doc["slow"].as_array().unwrap();
    assert!(
        slow.iter().any(|e| e["offset"] == 48 << 20),
        "{}",
        doc["slow"]
    );
}

/// With stderr not a terminal there is no live view: the terminal never leaves its normal
/// screen, and stderr gets the plain progress lines, in their format, with no control codes.
#[test]
fn stderr_off_the_terminal_keeps_the_plain_progress_lines() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
    let _one = one_at_a_time();
    let dev = lab_disk();
    let path = dev.loop_device().unwrap().to_path_buf();
    let err = Scratch(PathBuf::from(format!(
        "/tmp/drivescope-plain-{}.err",
        std::process::id()
    )));
    let bin = env!("CARGO_BIN_EXE_drivescope");
    let shell = format!(
        "{bin} scan {} --no-store 2>{}; echo EXIT=$?; sleep 600",
        path.display(),
        err.0.display()
    );
    let tmux = session("plain", &shell);
    let t0 = Instant::now();
    let mut done = String::new();
    while t0.elapsed() < Duration::from_secs(60) {
        assert!(!tmux.alternate(), "{}", tmux.pane());
        done = tmux.pane();
        if done.contains("EXIT=") {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let text = std::fs::read_to_string(&err.0).unwrap();
    assert!(done.contains("EXIT=0"), "{done}");
    assert!(!text.contains('\x1b'), "{text:?}");
    // One line at 10 s (the scan takes about 13 s): ` 77.0%  394.0 MiB of 512.0 MiB  …`.
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| l.contains(" MB/s  slow "))
        .collect();
    assert!(!lines.is_empty(), "{text}");
    for l in lines {
        let (pct, rest) = l.trim_start().split_once("%  ").unwrap();
        assert!(pct.parse::<f64>().is_ok(), "{l}");
        assert!(rest.contains(" of 512.0 MiB  "), "{l}");
        assert!(
            rest.contains(" MB/s  slow ") && rest.contains("  failed 0  ETA "),
            "{l}"
        );
    }
}

/// A panic while the view is up (asked for through a debug build's environment variable):
/// the terminal is back on its main screen with the cursor shown, and the panic's message is
/// printed there. Debug builds only: a release build has no such variable.
#[cfg(debug_assertions)]
#[test]
fn a_panic_restores_the_terminal_and_its_message_is_shown() {
    let _one = one_at_a_time();
    assert!(
        Command::new("tmux").arg("-V").output().is_ok(),
        "this test drives the live view in tmux (Debian: apt-get install tmux)"
    );
    let bin = env!("CARGO_BIN_EXE_drivescope");
    let shell = format!(
        "RUST_BACKTRACE=0 DRIVESCOPE_DEBUG_PANIC_LIVE=1 {bin} scan null:64G --no-store; \
         echo EXIT=$?; sleep 600"
    );
    let tmux = session("panic", &shell);
    let done = tmux.wait_for(Duration::from_secs(30), |p| p.contains("EXIT="));
    assert!(done.contains("EXIT=101"), "{done}");
    assert!(done.contains("a panic while the live view is up"), "{done}");
    assert!(!done.contains("MB/s by position"), "{done}");
    assert!(!tmux.alternate(), "{done}");
    assert!(tmux.cursor_shown(), "{done}");
}
