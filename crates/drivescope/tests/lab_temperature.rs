//! The drive's temperature beside a run, end to end through the lab's `temp1_input`: `diagnose` and
//! `soak` on the cold-start disk (served at 9 °C, warming to ~24 °C) record a rising series and the
//! warm-up finding names the temperatures over its window; a disk without a temperature says once
//! that none could be read. Needs root and FUSE (fails loudly without them).

use common::typed::record_of;
use common::{drivescope_cmd, skip_without_root};
use drivescope_lab::{check_environment, LabDevice, Model};
use drivescope_record::{DiagnoseRecord, Finding, SoakRecord, TemperatureSeries};
use drivescope_testkit as common;

fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|p| p.into_inner())
}

fn start(preset: &str) -> LabDevice {
    if let Err(e) = check_environment(true) {
        panic!("lab tests need root, /dev/fuse (Debian fuse3) and losetup: {e}");
    }
    LabDevice::start_temp(&Model::preset(preset).unwrap(), true).expect("start lab device")
}

fn run(dev: &LabDevice, args: &[&str]) -> std::process::Output {
    let out = drivescope_cmd()
        .args(args)
        .arg(dev.loop_device().unwrap())
        .args(["--quiet", "--no-store"])
        .output()
        .expect("run drivescope");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && !err.contains("panicked"),
        "{args:?}: {err}"
    );
    out
}

/// The series rose from the cold start (served at 9 °C, warming while the run starts) to ~24 °C,
/// read from the lab's file every 5 s.
///
/// The model (start 9 °C, idle 21 °C, busy 24 °C, time constant 6 s) warms on the lab's clock
/// whether or not commands arrive, and heats more the larger the busy share of that time; a busy
/// host delays the first reading and lowers the busy share. So the bounds hold for any share:
/// the first reading at least 3 °C under the last (true while it comes within ~7 s of the disk
/// being served), and the last, over 30 s later, between idle and busy.
fn rising(t: &TemperatureSeries, secs: f64) -> Result<(), String> {
    let source = t.source.as_deref().unwrap_or("");
    if !(source.starts_with("lab ") && source.ends_with("/temp1_input")) {
        return Err(format!("source {source:?}"));
    }
    let n = t.points.len();
    let want = (secs / 5.0) as usize;
    if n < want || t.interval_s != 5.0 {
        return Err(format!(
            "{n} readings every {} s over {secs:.0} s",
            t.interval_s
        ));
    }
    let (first, last) = (t.points[0].celsius, t.points[n - 1].celsius);
    if !(first <= last - 3.0 && (20.5..=24.5).contains(&last)) {
        return Err(format!("{first:.1} → {last:.1} °C: {:?}", t.points));
    }
    if t.points
        .windows(2)
        .any(|w| w[1].celsius < w[0].celsius - 0.2)
    {
        return Err(format!("not rising: {:?}", t.points));
    }
    Ok(())
}

/// The warm-up finding names the temperature at its start and at its end (the start the first
/// reading, below the end by the bound `rising` gives; the end, 20 s of work in, above 20.5 °C
/// whatever the busy share).
fn names_temperatures(f: Option<&Finding>) -> Result<(), String> {
    let f = f.ok_or("no warm-up finding")?;
    let (Some(a), Some(b)) = (
        f.number("temperature_start_c"),
        f.number("temperature_end_c"),
    ) else {
        return Err(format!("no temperatures in {f:?}"));
    };
    let words = format!("drive at {a:.0} °C → {b:.0} °C");
    if !(a <= b - 3.0 && b > 19.0 && f.claim.ends_with(&words)) {
        return Err(format!("{:?}, {a:.1} → {b:.1} °C", f.claim));
    }
    Ok(())
}

fn warm_up(findings: &[Finding]) -> Option<&Finding> {
    findings.iter().find(|f| f.code.as_str() == "warm_up")
}

/// Timing on a loaded host can stray once: one of two tries passes, and a try failed on a busy
/// host is void (`common::busy`).
fn tries(check: impl FnMut() -> Result<(), String>) {
    common::busy::timing_tries(2, |_| {}, check);
}

#[test]
#[ignore = "a timing of lab disks that needs the machine to itself: bench/timed_tests.sh"]
fn diagnose_of_a_cold_disk_names_its_temperature_over_the_warm_up() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
    let _one = one_at_a_time();
    tries(|| {
        let dev = start("cold-start");
        let d: DiagnoseRecord = record_of(&run(&dev, &["diagnose", "--json"]));
        let t = d.temperature.as_ref().ok_or("no temperature series")?;
        rising(t, d.elapsed_ns as f64 / 1e9 - 5.0)?;
        if t.note.is_some() {
            return Err(format!("note {:?}", t.note));
        }
        let f = warm_up(&d.header.findings);
        names_temperatures(f)?;
        // The warm-up's outcome line says the same.
        let claim = &f.unwrap().claim;
        if !d.outcomes.iter().any(|o| &o.text == claim) {
            return Err(format!("outcomes {:?}", d.outcomes));
        }
        Ok(())
    });
}

#[test]
fn soak_of_a_cold_disk_names_its_temperature_over_the_warm_up() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
    let _one = one_at_a_time();
    tries(|| {
        let dev = start("cold-start");
        let args = [
            "soak",
            "--test",
            "SEQ1M Q8T1",
            "--duration",
            "36s",
            "--interval",
            "1s",
            // Over the host's own wobble of the rate (±30 %): the warm-up's step is +100 %.
            "--step",
            "50",
            "--json",
        ];
        let s: SoakRecord = record_of(&run(&dev, &args));
        rising(s.temperature.as_ref().ok_or("no temperature series")?, 35.0)?;
        names_temperatures(warm_up(&s.header.findings))
    });
}

#[test]
fn a_disk_without_a_temperature_says_so_once() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
    let _one = one_at_a_time();
    let dev = start("usb-bridge-hdd");
    let args = ["soak", "--test", "SEQ64K Q1T1", "--duration", "11s"];
    let s: SoakRecord = record_of(&run(&dev, &[&args[..], &["--json"]].concat()));
    let t = s.temperature.expect("a series saying why it is empty");
    assert!(t.points.is_empty() && t.source.is_none(), "{t:?}");
    let note = t.note.expect("the reason");
    assert!(
        note.starts_with("no temperature could be read: loop")
            && note.ends_with("no drive under it reports a temperature"),
        "{note}"
    );
    // The text says it on one line, once for the run.
    let text = String::from_utf8_lossy(&run(&dev, &args).stdout).into_owned();
    let lines: Vec<&str> = text.lines().filter(|l| l.contains("temperature")).collect();
    assert_eq!(lines.len(), 1, "{text}");
    assert!(lines[0]
        .trim_start()
        .starts_with("temp      not read: loop"));
}
