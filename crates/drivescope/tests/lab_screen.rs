//! `drivescope screen` on emulated lab disks (FUSE + loop) with known truth: the shared-path
//! finding appears with the bus's ceiling when the disks share one and not when they do not;
//! verdicts land on the right drives; a drive that goes away does not stop the others; SIGINT
//! stops the group and `--resume` finishes it. Needs root and FUSE; fails loudly without them.

use common::typed::record_of;
use common::*;
use drivescope_lab::{check_environment, Bus, LabDevice, Model};
use drivescope_record::{Document, FindingCode, Grade, Rule, ScreenRecord};
use drivescope_testkit as common;
use std::process::{Output, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

const MIB: u64 = 1 << 20;

/// Lab timing tests run one at a time: four FUSE disks already fill a small machine.
fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|p| p.into_inner())
}

fn model(extra: &str, rate: f64, size: &str) -> Model {
    let text = format!(
        "name = 'screen'\nsize = '{size}'\nzones = {{ rates_mb_s = [{rate}] }}\noverhead = '5us'\nlookahead = '50ms'\n{extra}"
    );
    Model::from_toml_str(&text, "test").unwrap()
}

fn start(models: &[Model], bus: Option<&Arc<Bus>>) -> Vec<LabDevice> {
    if let Err(e) = check_environment(true) {
        panic!("lab tests need root, /dev/fuse (Debian fuse3) and losetup: {e}");
    }
    models
        .iter()
        .map(|m| LabDevice::start_temp_on(m, true, bus.cloned()).expect("start lab device"))
        .collect()
}

fn paths(devs: &[LabDevice]) -> Vec<String> {
    devs.iter()
        .map(|d| d.loop_device().unwrap().to_str().unwrap().to_string())
        .collect()
}

fn screen(devs: &[LabDevice], extra: &[&str]) -> (Output, Option<ScreenRecord>) {
    let p = paths(devs);
    let mut args: Vec<&str> = vec!["screen"];
    args.extend(p.iter().map(String::as_str));
    args.extend_from_slice(&["--json", "--quiet"]);
    args.extend_from_slice(extra);
    let out = drivescope(&args);
    // A screen document when stdout holds one; `ok` says what came instead.
    let doc = serde_json::from_slice::<Document>(&out.stdout)
        .ok()
        .and_then(|d| ScreenRecord::try_from(d).ok());
    (out, doc)
}

fn ok(out: &Output, doc: Option<ScreenRecord>) -> ScreenRecord {
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    doc.unwrap_or_else(|| panic!("no screen document ({:?}): {err}", out.status))
}

fn within(got: f64, want: f64, tol: f64) -> bool {
    (got / want - 1.0).abs() <= tol
}

/// Up to three tries on fresh devices: the shared-path reads compare rates over two seconds, and a
/// busy 2-core host can stall the loop worker within them; a wrong emulator or rule fails all three,
/// and a try failed on a busy host is void (`common::busy`).
fn tries(check: impl FnMut() -> Result<(), String>) {
    common::busy::timing_tries(
        3,
        // SAFETY: sync(2) has no preconditions.
        |_| unsafe { libc::sync() },
        check,
    );
}

#[test]
fn a_shared_bus_shows_as_a_shared_path_with_its_ceiling_and_independent_disks_do_not() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
    let _one = one_at_a_time();
    // Four disks of 60 MB/s: behind a 120 MB/s bus together they move the bus's rate.
    let disks: Vec<Model> = (0..4).map(|_| model("", 60.0, "256M")).collect();
    let args = ["--shared-path", "2s", "--length", "4M", "--no-store"];
    tries(|| {
        let bus = Bus::new(120.0).unwrap();
        let devs = start(&disks, Some(&bus));
        let (out, doc) = screen(&devs, &args);
        drop(devs);
        let g = ok(&out, doc);
        let sp = g.shared_path.as_ref().expect("shared-path reads");
        let mut e = Vec::new();
        for a in &sp.alone_mb_per_s {
            if !within(*a, 60.0, 0.10) {
                e.push(format!("alone {a:.1} MB/s, each disk's rate is 60"));
            }
        }
        if !within(sp.together_sum(), 120.0, 0.10) {
            e.push(format!("together {:.1}", sp.together_sum()));
        }
        let Some(f) = g
            .header
            .findings
            .iter()
            .find(|f| f.code == FindingCode::SharedPath)
        else {
            return Err(format!(
                "no shared-path finding: {:?}; {e:?}",
                g.header.findings
            ));
        };
        let ceiling = f
            .number("ceiling_mb_per_s")
            .expect("the ceiling in the evidence");
        if !within(ceiling, 120.0, 0.10) {
            e.push(format!("ceiling {ceiling:.1}: {}", f.claim));
        }
        if e.is_empty() {
            Ok(())
        } else {
            Err(e.join("; "))
        }
    });

    // The same four disks, each on its own path: they add up, and nothing is said.
    tries(|| {
        let devs = start(&disks, None);
        let (out, doc) = screen(&devs, &args);
        drop(devs);
        let g = ok(&out, doc);
        let sp = g.shared_path.as_ref().expect("shared-path reads");
        let mut e = Vec::new();
        if !within(sp.together_sum(), 240.0, 0.10) {
            e.push(format!("together {:.1}", sp.together_sum()));
        }
        if g.header
            .findings
            .iter()
            .any(|f| f.code == FindingCode::SharedPath)
        {
            e.push(format!(
                "independent disks share no path: {:?}",
                g.header.findings
            ));
        }
        if e.is_empty() {
            Ok(())
        } else {
            Err(e.join("; "))
        }
    });
}

#[test]
fn verdicts_pass_pass_warn_fail_land_on_their_drives() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
    let _one = one_at_a_time();
    // Twelve slow spots (more than the default 10 slow commands) on the third disk; one bad
    // sector on the fourth.
    let slow: Vec<String> = (1..=12)
        .map(|i| {
            format!(
                "{{ offset = '{}M', length = '4K', latency = '80ms' }}",
                i * 4
            )
        })
        .collect();
    let disks = [
        model("", 60.0, "64M"),
        model("", 60.0, "64M"),
        model(&format!("slow = [{}]\n", slow.join(", ")), 60.0, "64M"),
        model(
            "bad = [{ offset = '40M', length = '4K', latency = '1ms' }]\n",
            60.0,
            "64M",
        ),
    ];
    // The slow spots count as slow commands only when the host serves them on the model's time
    // (after a stall of the host the emulator catches up, and an 80 ms spot can come back sooner):
    // fresh disks each try, and a try failed on a busy host is void.
    let mut kept = None;
    tries(|| {
        let devs = start(&disks, None);
        let (out, doc) = screen(&devs, &["--shared-path", "0", "--no-store"]);
        drop(devs);
        let g = ok(&out, doc);
        assert_eq!(out.status.code(), Some(5), "a failed drive: exit 5");
        let grades: Vec<Grade> = g
            .members
            .iter()
            .map(|m| m.verdict.as_ref().expect("a verdict").grade)
            .collect();
        if grades != [Grade::Pass, Grade::Pass, Grade::Warn, Grade::Fail] {
            return Err(format!(
                "{grades:?}: {:#?}",
                g.members.iter().map(|m| &m.verdict).collect::<Vec<_>>()
            ));
        }
        kept = Some(g);
        Ok(())
    });
    // Inconclusive on a busy host: nothing more to check.
    let Some(g) = kept else {
        return;
    };
    let rules = |i: usize| -> Vec<Rule> {
        g.members[i]
            .verdict
            .as_ref()
            .unwrap()
            .reasons
            .iter()
            .map(|r| r.rule.clone())
            .collect()
    };
    assert!(rules(2).contains(&Rule::SlowCommands), "{:?}", rules(2));
    assert!(rules(3).contains(&Rule::FailedSectors), "{:?}", rules(3));
    let bad = g.members[3].scan.as_ref().unwrap();
    assert_eq!(bad.failed_total, 8, "one 4 KiB bad spot: 8 sectors");
    // The table (the text screen prints without --json): a column per drive, the verdicts in their columns.
    let mut printed = Vec::new();
    drivescope_report::text::print_screen(&g, &mut printed).unwrap();
    let text = String::from_utf8_lossy(&printed);
    let verdict_row = text
        .lines()
        .find(|l| l.trim_start().starts_with("verdict"))
        .unwrap_or_else(|| panic!("no verdict row in:\n{text}"));
    let words: Vec<&str> = verdict_row.split_whitespace().collect();
    let order: Vec<&str> = words
        .iter()
        .copied()
        .filter(|w| ["pass", "warn", "fail"].iter().any(|g| w.contains(g)))
        .collect();
    assert_eq!(order.len(), 4, "{verdict_row}");
    for (w, want) in order.iter().zip(["pass", "pass", "warn", "fail"]) {
        assert!(w.contains(want), "{verdict_row}");
    }
    // Worst of each row marked `!` on the drive that is worst at it, and on no other.
    let cells = |label: &str| -> Vec<String> {
        let row = text
            .lines()
            .find_map(|l| l.strip_prefix(label).filter(|r| r.starts_with(' ')))
            .unwrap_or_else(|| panic!("no {label} row in:\n{text}"));
        // A unit (`ms`) belongs to the number before it.
        let mut cells: Vec<String> = Vec::new();
        for w in row.split_whitespace() {
            match cells.last_mut() {
                Some(last) if !w.starts_with(|c: char| c.is_ascii_digit()) => *last += w,
                _ => cells.push(w.to_string()),
            }
        }
        cells
    };
    // (Not the maximum latency: on a small machine serving four FUSE disks, the host now and
    // then stalls a command of any drive for longer than the slow spots' 80 ms.)
    for (label, worst) in [("failed sectors", 3), ("slow commands", 2)] {
        let c = cells(label);
        let marked: Vec<usize> = (0..c.len()).filter(|&i| c[i].ends_with('!')).collect();
        assert_eq!(marked, [worst], "{label}: {c:?}");
    }
    let c = cells("failed sectors");
    assert_eq!(c[3], "8!", "{c:?}");
}

#[test]
fn a_drive_that_goes_away_does_not_stop_the_others() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
    let _one = one_at_a_time();
    // 64 MiB at 20 MB/s: about 3.4 s a scan; the third disk, 1 GiB at 300 MB/s (large enough
    // to have places 64 MiB from a failure to probe), is pulled once 64 MiB of it have been read.
    let mut disks: Vec<Model> = (0..2).map(|_| model("", 20.0, "64M")).collect();
    disks.push(model("", 300.0, "1G"));
    let devs = start(&disks, None);
    let p = paths(&devs);
    let pressure = common::busy::Pressure::start();
    let child = drivescope_cmd()
        .args([
            "screen",
            &p[0],
            &p[1],
            &p[2],
            "--json",
            "--quiet",
            "--shared-path",
            "0",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    common::lab::await_read(&[&devs[2]], 0, 64 * MIB);
    devs[2].pull();
    let out = child.wait_with_output().unwrap();
    drop(devs);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "device-lost exit code: {err}");
    let g: ScreenRecord = record_of(&out);
    for m in &g.members[..2] {
        let s = m.scan.as_ref().unwrap();
        assert_eq!(
            (s.covered, s.bytes),
            (64 * MIB, 64 * MIB),
            "{} finished",
            m.target
        );
        common::verdicts::assert_pass(m.verdict.as_ref().unwrap(), &pressure, &m.target);
    }
    let lost = &g.members[2];
    assert!(lost.scan.as_ref().unwrap().device_lost.is_some());
    let v = lost.verdict.as_ref().unwrap();
    assert_eq!(v.grade, Grade::Fail);
    assert!(
        v.reasons.iter().any(|r| r.rule == Rule::DeviceLost),
        "{v:?}"
    );
    // Everything saved: each drive's scan and the group naming them.
    let runs: Vec<i64> = g.members.iter().map(|m| m.run.expect("stored")).collect();
    let store = test_store();
    for id in runs {
        assert!(matches!(
            store.get(drivescope_store::RunId(id)).unwrap(),
            Document::Scan(_)
        ));
    }
}

fn test_store() -> drivescope_store::Store {
    let path = std::env::temp_dir()
        .join(format!("drivescope-test-store-{}", std::process::id()))
        .join("drivescope/runs.sqlite");
    drivescope_store::Store::open(&path).expect("open the test store")
}

#[test]
fn sigint_stops_the_group_and_resume_finishes_every_drive() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
    let _one = one_at_a_time();
    let disks: Vec<Model> = (0..3).map(|_| model("", 20.0, "64M")).collect();
    let devs = start(&disks, None);
    let p = paths(&devs);
    let pressure = common::busy::Pressure::start();
    let child = drivescope_cmd()
        .args([
            "screen",
            &p[0],
            &p[1],
            &p[2],
            "--json",
            "--quiet",
            "--shared-path",
            "0",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Stopped once every drive has read a few MiB of its 64, however long a busy host took to start.
    common::lab::await_read(&devs.iter().collect::<Vec<_>>(), 0, 4 * MIB);
    // SAFETY: kill has no memory preconditions; the pid is our child's.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let t0 = Instant::now();
    let out = child.wait_with_output().unwrap();
    // That the signal stopped the group shows in the record (interrupted, less than each drive
    // covered); the bound only catches a stop that waits for the scans to end on their own.
    assert!(
        t0.elapsed() < Duration::from_secs(30),
        "stopped {:?} after SIGINT",
        t0.elapsed()
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(err.contains("screen --resume"), "{err}");
    let first: ScreenRecord = record_of(&out);
    assert!(first.interrupted);
    for m in &first.members {
        let s = m.scan.as_ref().unwrap();
        assert!(
            s.interrupted && s.covered < 64 * MIB,
            "{}: {} covered",
            m.target,
            s.covered
        );
        assert_eq!(m.verdict.as_ref().unwrap().grade, Grade::Incomplete);
    }

    let out = drivescope(&["screen", "--resume", "last", "--json", "--quiet"]);
    drop(devs);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let done: ScreenRecord = record_of(&out);
    assert!(!done.interrupted);
    assert!(done.resumed_from.is_some());
    assert_eq!(done.members.len(), 3);
    for (m, before) in done.members.iter().zip(&first.members) {
        let s = m.scan.as_ref().unwrap();
        assert!(!s.interrupted);
        assert_eq!((s.covered, s.length), (64 * MIB, 64 * MIB), "{}", m.target);
        assert_eq!(
            s.resumed_from, before.run,
            "{}: continues its own stored scan",
            m.target
        );
        common::verdicts::assert_pass(m.verdict.as_ref().unwrap(), &pressure, &m.target);
    }
}
