//! Headless Chromium (Debian package `chromium`) for the tests that look at pages in a real
//! browser: the report's file and the pages `drivescope serve` answers with. Without Chromium
//! these tests FAIL: CI must install it. Shared by the report's tests and the binary's (`#[path]`).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

pub fn chromium() -> PathBuf {
    if let Some(p) = std::env::var_os("DRIVESCOPE_CHROMIUM") {
        return p.into();
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    for name in [
        "chromium",
        "chromium-browser",
        "google-chrome",
        "google-chrome-stable",
    ] {
        for dir in std::env::split_paths(&path) {
            let p = dir.join(name);
            if p.is_file() {
                return p;
            }
        }
    }
    panic!(
        "headless Chromium not found: the HTML report test needs it. Install the Debian package `chromium` \
         (apt-get install -y chromium) or point DRIVESCOPE_CHROMIUM at a Chromium binary."
    );
}

/// Runs headless Chromium on `url` with `args` (its profile in `dir`); returns (stdout, stderr).
pub fn run_chromium(dir: &Path, url: &str, args: &[String]) -> (String, String) {
    let profile = dir.join(format!("profile-{}", args.len()));
    let mut cmd = Command::new(chromium());
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
        "--enable-logging=stderr",
        "--v=0",
    ])
    .arg(format!("--user-data-dir={}", profile.display()))
    .args(args)
    .arg(url)
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    let child = cmd.spawn().expect("start chromium");
    let id = child.id();
    let start = Instant::now();
    let waiter = std::thread::spawn(move || child.wait_with_output());
    while !waiter.is_finished() {
        if start.elapsed() > Duration::from_secs(90) {
            // Chromium hung: end it (by its own pid) and fail.
            unsafe_kill(id);
            panic!("chromium did not finish within 90 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = waiter.join().unwrap().expect("chromium output");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn unsafe_kill(pid: u32) {
    let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
}

/// Console messages Chromium logged for the page (`...:CONSOLE...] "message", source: ...`). The report has no
/// scripts, so any message at all (a script error, a refused resource) is a failure.
pub fn console_messages(stderr: &str) -> Vec<&str> {
    stderr.lines().filter(|l| l.contains(":CONSOLE")).collect()
}
