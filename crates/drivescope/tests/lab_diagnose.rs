//! `diagnose` on emulated lab disks whose behaviour is known exactly: every behaviour a model has is found,
//! with its numbers near the model's, and nothing it does not have; a budget too small to conclude says
//! "inconclusive" instead of guessing; a disk that fails mid-run ends it with what was found, saved.
//! Needs root and FUSE (fails loudly without them).

use common::lab::PLAIN;
use common::typed::{record_in, record_of};
use common::{drivescope_cmd, skip_without_root};
use drivescope_lab::truth::expected_range_mb_s;
use drivescope_lab::{check_environment, LabDevice, Model};
use drivescope_record::{Confidence, DiagnoseRecord, Finding, FindingCode, Verdict};
use drivescope_testkit as common;
use std::collections::BTreeSet;
use std::process::Stdio;
use std::time::{Duration, Instant};

fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|p| p.into_inner())
}

fn start(model: &Model) -> LabDevice {
    if let Err(e) = check_environment(true) {
        panic!("lab tests need root, /dev/fuse (Debian fuse3) and losetup: {e}");
    }
    // SAFETY: sync(2) has no preconditions. Earlier tests' dirty data must not compete.
    unsafe { libc::sync() };
    LabDevice::start_temp(model, true).expect("start lab device")
}

/// `diagnose` of the lab disk with its write experiments allowed, as one JSON document, the exit code and the
/// seconds it took.
fn diagnose(dev: &LabDevice, extra: &[&str]) -> (DiagnoseRecord, Option<i32>, f64) {
    let path = dev.loop_device().unwrap().to_str().unwrap().to_string();
    let name = path.trim_start_matches("/dev/").to_string();
    let confirm = format!(
        "{name} {}",
        drivescope_core::units::format_size(dev.model().size)
    );
    let t0 = Instant::now();
    let out = drivescope_cmd()
        .args(["diagnose", &path, "--json", "--quiet", "--no-store"])
        .args(["--destructive", "--confirm", &confirm])
        .args(extra)
        .output()
        .expect("run drivescope");
    let secs = t0.elapsed().as_secs_f64();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    (record_of(&out), out.status.code(), secs)
}

fn findings(d: &DiagnoseRecord) -> &[Finding] {
    &d.header.findings
}

fn number(f: &Finding, name: &str) -> f64 {
    f.number(name).unwrap_or_else(|| panic!("{name} in {f:?}"))
}

fn near(what: &str, got: f64, want: f64, tol: f64, errors: &mut Vec<String>) {
    if (got / want - 1.0).abs() > tol {
        errors.push(format!(
            "{what}: {got:.1}, the model's {want:.1} (±{:.0} %)",
            tol * 100.0
        ));
    }
}

/// The behaviours a model has, as finding codes.
fn expected(m: &Model) -> BTreeSet<&'static str> {
    let mut e = BTreeSet::new();
    if m.read_cache.is_some() {
        e.insert("read_cache");
    }
    if m.write_cache.is_some() {
        e.insert("write_burst");
    }
    if m.queue.mode == drivescope_lab::model::QueueMode::Serial {
        e.insert("no_queueing");
    }
    if m.warmup.is_some() {
        e.insert("warm_up");
    }
    if m.throttle.is_some() {
        e.insert("thermal_throttle");
    }
    let layout = m.zone_layout().unwrap();
    let (outer, inner) = (m.media_mb_s(0), m.media_mb_s(m.size - 1));
    let cap = m.interface_mb_s.unwrap_or(f64::INFINITY);
    // Zones are visible where the link does not flatten them.
    if !matches!(layout, drivescope_lab::model::ZoneLayout::Steps(ref r) if r.len() == 1)
        && inner.min(cap) / outer.min(cap) <= 0.85
    {
        e.insert("zones");
    }
    if ceiling(m).is_some() {
        e.insert("link_cap");
    }
    if m.smr.is_some() {
        e.insert("smr");
    }
    // Bad and slow spots: every experiment's reads meet them.
    if !m.bad.is_empty() || !m.slow.is_empty() {
        e.insert("bad_spots");
    }
    e
}

/// The flat ceiling a model's sequential reads top out at: the top of its media rate under its link cap, when
/// the positions within 5 % of that top are most of the device (a flat device, or a disk capped over most of it).
/// A throttling model is hot from its first seconds of sustained reads on, so the link experiment after them
/// reads its throttled rate.
fn ceiling(m: &Model) -> Option<f64> {
    let cap = m.interface_mb_s.unwrap_or(f64::INFINITY);
    let hot = m.throttle.as_ref().map_or(1.0, |t| t.factor);
    let rates: Vec<f64> = (0..64)
        .map(|i| (m.media_mb_s(m.size / 64 * i) * hot).min(cap))
        .collect();
    let top = rates.iter().copied().fold(0.0, f64::max);
    let on_top = rates.iter().filter(|r| **r >= 0.95 * top).count();
    (on_top * 2 >= rates.len()).then_some(top)
}

/// Whether a ceiling of `rate` MB/s must be named after a usual link (`Some(true)`), must not be (`Some(false)`),
/// or may be either (`None`: within 2 % of a range's end, where a measurement may fall either side).
fn named(rate: f64) -> Option<bool> {
    const EDGE: f64 = 0.02;
    let links = drivescope_analysis::USUAL_CEILINGS;
    if links
        .iter()
        .any(|(lo, hi, _, _)| rate >= lo * (1.0 + EDGE) && rate <= hi * (1.0 - EDGE))
    {
        Some(true)
    } else if links
        .iter()
        .all(|(lo, hi, _, _)| rate < lo * (1.0 - EDGE) || rate > hi * (1.0 + EDGE))
    {
        Some(false)
    } else {
        None
    }
}

/// Checks one diagnosis against its model: the findings are exactly the model's behaviours (none inconclusive
/// with the whole budget), their numbers near the model's.
fn check(m: &Model, d: &DiagnoseRecord) -> Result<(), String> {
    let fs = findings(d);
    let got: BTreeSet<&str> = fs.iter().map(|f| f.code.as_str()).collect();
    let want = expected(m);
    let mut errors = Vec::new();
    if got != want.iter().copied().collect() {
        errors.push(format!("findings {got:?}, the model has {want:?}"));
    }
    for f in fs {
        if f.confidence == Confidence::Inconclusive {
            // Said, with no numbers to compare.
            errors.push(format!("inconclusive with the whole budget: {}", f.claim));
            continue;
        }
        match f.code {
            FindingCode::ReadCache => {
                // A finding the model lacks is already an error above.
                let Some(c) = m.read_cache.as_ref() else {
                    continue;
                };
                near(
                    "cache size",
                    number(f, "cache_bytes"),
                    c.size as f64,
                    0.25,
                    &mut errors,
                );
                near(
                    "cache rate",
                    number(f, "cache_mb_per_s"),
                    c.rate_mb_s,
                    0.10,
                    &mut errors,
                );
                let upper = number(f, "upper_bytes") as u64;
                let media = expected_range_mb_s(m, 0, upper, 1 << 20, 4, 1.0);
                near(
                    "media rate",
                    number(f, "media_mb_per_s"),
                    media,
                    0.10,
                    &mut errors,
                );
            }
            FindingCode::WriteBurst => {
                // A finding the model lacks is already an error above.
                let Some(c) = m.write_cache.as_ref() else {
                    continue;
                };
                let media =
                    expected_range_mb_s(m, 0, m.size, 1 << 20, 4, 1.0) * m.write_rate_factor;
                let burst = c.rate_mb_s.min(m.interface_mb_s.unwrap_or(f64::INFINITY));
                near(
                    "burst rate",
                    number(f, "burst_mb_per_s"),
                    burst,
                    0.10,
                    &mut errors,
                );
                near(
                    "sustained rate",
                    number(f, "sustained_mb_per_s"),
                    media,
                    0.10,
                    &mut errors,
                );
                // The cache fills at the burst rate less what drains meanwhile.
                let before = c.size as f64 * burst / (burst - media);
                near(
                    "written before the step",
                    number(f, "written_before_step"),
                    before,
                    0.25,
                    &mut errors,
                );
            }
            FindingCode::WarmUp => {
                // A finding the model lacks is already an error above.
                let Some(w) = m.warmup.as_ref() else {
                    continue;
                };
                near(
                    "warm-up length",
                    number(f, "warm_up_s"),
                    w.duration_ns as f64 / 1e9,
                    0.25,
                    &mut errors,
                );
                near(
                    "warm-up factor",
                    number(f, "factor"),
                    w.factor,
                    0.10,
                    &mut errors,
                );
            }
            FindingCode::ThermalThrottle => {
                // A finding the model lacks is already an error above.
                let Some(t) = m.throttle.as_ref() else {
                    continue;
                };
                near(
                    "time to throttle",
                    number(f, "time_to_throttle_s"),
                    t.after_ns as f64 / 1e9,
                    0.25,
                    &mut errors,
                );
                near(
                    "throttle factor",
                    number(f, "factor"),
                    t.factor,
                    0.10,
                    &mut errors,
                );
            }
            FindingCode::LinkCap => {
                let Some(top) = ceiling(m) else {
                    continue;
                };
                near(
                    "ceiling",
                    number(f, "ceiling_mb_per_s"),
                    top,
                    0.05,
                    &mut errors,
                );
                let says = f.claim.contains("matches ");
                match named(top) {
                    Some(true) if !says => errors.push(format!(
                        "a usual link's range holds {top} MB/s, but none is named: {}",
                        f.claim
                    )),
                    Some(false) if says => errors.push(format!(
                        "no usual link's range holds {top} MB/s, but one is named: {}",
                        f.claim
                    )),
                    _ => {}
                }
            }
            FindingCode::Smr => {
                // A finding the model lacks is already an error above.
                let Some(s) = m.smr.as_ref() else {
                    continue;
                };
                near(
                    "media cache",
                    number(f, "media_cache_bytes"),
                    s.media_cache as f64,
                    0.25,
                    &mut errors,
                );
                near(
                    "longest stall",
                    number(f, "stall_max_s"),
                    s.stall_ns as f64 / 1e9,
                    0.30,
                    &mut errors,
                );
            }
            FindingCode::Zones => {
                let cap = m.interface_mb_s.unwrap_or(f64::INFINITY);
                let ratio = m.media_mb_s(m.size - 1).min(cap) / m.media_mb_s(0).min(cap);
                near(
                    "zone ratio",
                    number(f, "zone_ratio"),
                    ratio,
                    0.15,
                    &mut errors,
                );
            }
            _ => {}
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(format!("{}: {}", m.name, errors.join("; ")))
    }
}

/// The model with its write cache taking writes no faster than the emulator can: on a 2-vCPU VM the FUSE
/// write path tops out at 1.1–1.4 GB/s, below the RAID preset's 1.5 GB/s, and a test must measure the model, not
/// the host. Everything else stays as the preset has it.
fn emulable(mut m: Model) -> Model {
    if let Some(w) = &mut m.write_cache {
        w.rate_mb_s = w.rate_mb_s.min(800.0);
    }
    m
}

/// Every preset and the plain models: each behaviour found with its numbers, nothing else, within the default
/// budget with the write experiments. (How long each takes is in docs/performance.md: 55–83 s on an idle 2-vCPU VM,
/// which a busy one stretches; the run's own clock against its budget is what the program promises.)
///
/// A timing of the lab disks, about 17 minutes with the machine to itself: `bench/timed_tests.sh` runs it and
/// docs/accuracy.md keeps its result. CI diagnoses every model through the kernel on a small budget
/// (lab_diagnose_models.rs) and checks the rules over a thousand drawn models in-process.
#[test]
#[ignore = "a timing of every lab model, about 17 minutes alone: bench/timed_tests.sh"]
fn diagnose_finds_what_each_model_has_and_nothing_else() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
    let _one = one_at_a_time();
    let mut models: Vec<Model> = drivescope_lab::presets::PRESETS
        .iter()
        // A drive that fakes its capacity differs from its genuine twin only in what it keeps
        // of writes, which a diagnosis (reads, and writes to its own file) never looks at:
        // `capacity` finds it (tests/lab_capacity.rs). The genuine twin (`usb-stick`, flash behind
        // USB 2.0, serial) is left out too: the queueing rule does not yet claim `no_queueing` on a
        // serial device whose random reads run near its link's rate (its RND4K Q32/Q1 gain is not
        // measured apart from the link), a miss this matrix would report on every run.
        //
        // Damaged and vanishing drives (`growing-*`, `many-patches`, `vanishing`) stay out too:
        // their damage grows as it is read, so what a diagnosis names depends on what it read
        // first; lab_diagnose_damage.rs checks that one is read around with its place named and
        // that a vanishing one ends as lost.
        .filter(|p| {
            let m = p.model();
            m.fake.is_none()
                && m.vanish.is_none()
                && !m.bad.iter().any(|b| b.marginal > 0)
                && p.name != "usb-stick"
        })
        .map(|p| emulable(p.model()))
        .collect();
    models.extend(
        PLAIN
            .iter()
            .map(|t| Model::from_toml_str(t, "test").unwrap()),
    );
    // DRIVESCOPE_MATRIX_MODELS=name,name runs those models alone (bench/timed_tests.sh passes it on).
    if let Ok(only) = std::env::var("DRIVESCOPE_MATRIX_MODELS") {
        models.retain(|m| only.split(',').any(|n| n == m.name));
        assert!(!models.is_empty(), "no model named in {only:?}");
    }
    let mut failures = Vec::new();
    for m in &models {
        // Timing on a loaded host can stray once; a model passes on one of two tries, and a try
        // failed on a busy host is void (`common::busy`).
        let outcome = common::busy::timing_outcome(
            2,
            |_| {},
            || {
                let dev = start(m);
                let (d, code, secs) = diagnose(&dev, &[]);
                eprintln!(
                    "{}: {secs:.0} s, findings {:?}",
                    m.name,
                    findings(&d)
                        .iter()
                        .map(|f| f.claim.as_str())
                        .collect::<Vec<_>>()
                );
                if code != Some(0) {
                    Err(format!("{}: exit code {code:?}", m.name))
                } else if d.elapsed_ns > d.budget_ns {
                    Err(format!(
                        "{}: {:.0} s past its budget of {:.0} s",
                        m.name,
                        d.elapsed_ns as f64 / 1e9,
                        d.budget_ns as f64 / 1e9
                    ))
                } else {
                    check(m, &d)
                }
            },
        );
        if let Err(e) = outcome {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Read-only, a diagnosis writes nothing: the SMR experiment's random writes and the write burst are skipped
/// and say why, on a small budget (what is checked does not depend on the host's load).
#[test]
fn read_only_a_diagnosis_skips_its_write_experiments() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
    let _one = one_at_a_time();
    let m = Model::preset("smr-nas").unwrap();
    let dev = start(&m);
    let path = dev.loop_device().unwrap().to_str().unwrap().to_string();
    let out = drivescope_cmd()
        .args(["diagnose", &path, "--json", "--quiet", "--no-store"])
        .args(["--budget", "6s"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let d: DiagnoseRecord = record_of(&out);
    assert!(
        d.smr.is_none() && d.write_cache.is_none(),
        "writes without --destructive"
    );
    for e in [
        drivescope_record::Experiment::Smr,
        drivescope_record::Experiment::WriteCache,
    ] {
        let o = d
            .outcomes
            .iter()
            .find(|o| o.experiment == e)
            .expect("an outcome");
        assert_eq!(o.verdict, Verdict::Skipped, "{o:?}");
        assert!(o.text.contains("--destructive"), "{o:?}");
    }
}

/// Read-only, the SMR disk and its CMR twin read alike: the same findings, no random writes, within the budget.
#[test]
#[ignore = "a timing of lab disks that needs the machine to itself: bench/timed_tests.sh"]
fn read_only_the_smr_disk_and_its_cmr_twin_look_alike() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
    let _one = one_at_a_time();
    let mut seen = Vec::new();
    for name in ["smr-nas", "cmr-nas"] {
        let m = Model::preset(name).unwrap();
        let dev = start(&m);
        let path = dev.loop_device().unwrap().to_str().unwrap().to_string();
        let out = drivescope_cmd()
            .args(["diagnose", &path, "--json", "--quiet", "--no-store"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{name}");
        let d: DiagnoseRecord = record_of(&out);
        assert!(
            d.elapsed_ns <= d.budget_ns,
            "{name}: a read-only diagnosis took {} ns of its {} ns budget",
            d.elapsed_ns,
            d.budget_ns
        );
        assert!(
            d.smr.is_none(),
            "{name}: random writes without --destructive"
        );
        let skipped = d
            .outcomes
            .iter()
            .find(|o| o.experiment == drivescope_record::Experiment::Smr)
            .map(|o| o.verdict);
        assert_eq!(skipped, Some(Verdict::Skipped), "{name}");
        let codes: BTreeSet<String> = findings(&d)
            .iter()
            .map(|f| f.code.as_str().to_string())
            .collect();
        seen.push(codes);
    }
    assert_eq!(seen[0], seen[1], "the twins read alike");
    assert!(
        seen[0].contains("zones") && !seen[0].contains("smr"),
        "{seen:?}"
    );
}

/// A budget too small to conclude: findings are inconclusive or right, never wrong.
#[test]
fn a_budget_too_small_gives_inconclusive_findings_not_wrong_ones() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
    let _one = one_at_a_time();
    let m = Model::preset("raid-cache").unwrap();
    let dev = start(&m);
    let (d, code, secs) = diagnose(&dev, &["--budget", "4s"]);
    assert_eq!(code, Some(0));
    // The run's own clock: experiments stop at the budget, the one under way when it runs out ends
    // its step. The wall time around the process (start, probing, a busy host) only guards a hang.
    assert_eq!(d.budget_ns, 4_000_000_000);
    eprintln!(
        "a 4 s budget: {:.2} s on the run's clock, {secs:.1} s wall",
        d.elapsed_ns as f64 / 1e9
    );
    assert!(
        d.elapsed_ns < 15_000_000_000,
        "a 4 s budget took {:.1} s",
        d.elapsed_ns as f64 / 1e9
    );
    assert!(secs < 120.0, "a 4 s budget: {secs:.0} s of wall time");
    let want = expected(&m);
    let mut inconclusive = 0;
    for f in findings(&d) {
        let code = f.code.as_str();
        if f.confidence == Confidence::Inconclusive {
            inconclusive += 1;
            continue;
        }
        assert!(
            want.contains(code),
            "a finding the model does not have: {f:?}"
        );
    }
    let outcomes = &d.outcomes;
    let unsettled = outcomes
        .iter()
        .filter(|o| matches!(o.verdict, Verdict::Inconclusive | Verdict::Skipped))
        .count();
    assert!(
        inconclusive + unsettled > 0,
        "4 s cannot settle every question, and the run must say so: {outcomes:?}"
    );
}

/// A disk pulled mid-diagnosis: the run ends with what it found so far, exit code 4, and is saved.
#[test]
fn a_disk_pulled_mid_diagnosis_ends_with_the_findings_so_far_saved() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
    let _one = one_at_a_time();
    // A disk large enough for the lost-device rule to reach a verdict: the experiment running when it goes may
    // have 32 random reads in flight, and their failures rule out the places within 64 MiB (or 1 % of the
    // disk) of each as probes; on a 256 MiB disk no place is left, the rule cannot tell, and the record says so
    // (`lost_inconclusive`, tested over drawn small devices in drivescope-diagnose's unit tests).
    let mut m = Model::preset("raid-cache").unwrap();
    m.size = 64 << 30;
    let dev = start(&m);
    let path = dev.loop_device().unwrap().to_str().unwrap().to_string();
    let child = drivescope_cmd()
        .args(["diagnose", &path, "--json", "--quiet", "--budget", "40s"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Pull the disk once the first experiment is done (the checkpoint saved after each says
    // which), however long a busy host makes it take.
    let store = drivescope_store::Store::open(
        std::env::temp_dir()
            .join(format!("drivescope-test-store-{}", std::process::id()))
            .join("drivescope/runs.sqlite"),
    )
    .expect("the test store");
    let t0 = std::time::Instant::now();
    let finished = loop {
        let newest = store
            .list(&drivescope_store::ListFilter {
                limit: Some(1),
                ..Default::default()
            })
            .unwrap();
        // This run's checkpoint (its process named in it), not an earlier test's run.
        let done = newest
            .first()
            .map(|r| record_in::<DiagnoseRecord>(store.get(r.id).unwrap()))
            .filter(|d| d.checkpoint.as_ref().is_some_and(|c| c.pid == child.id()))
            .and_then(|d| d.resume)
            .map(|r| r.finished)
            .unwrap_or_default();
        // After the first: a checkpoint is written in the background and may come late, and
        // the experiments after the second can all be done by the time it is read.
        if !done.is_empty() {
            break done;
        }
        assert!(t0.elapsed() < Duration::from_secs(120), "no checkpoint");
        std::thread::sleep(Duration::from_millis(100));
    };
    let pulled = t0.elapsed();
    dev.pull();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    eprintln!(
        "pulled {:.1} s after the start, once {finished:?} had finished; the run ended {:.1} s later",
        pulled.as_secs_f64(),
        (t0.elapsed() - pulled).as_secs_f64()
    );
    assert!(!err.contains("panicked"), "{err}");
    let d: DiagnoseRecord = record_of(&out);
    assert_eq!(
        out.status.code(),
        Some(4),
        "device-lost exit code: {err}\n{:?}",
        d.skipped
    );
    assert!(d.device_error.is_some(), "{:?}", d.device_error);
    assert!(d.warm_up.as_ref().is_some_and(|w| !w.points.is_empty()));
    // What the experiments finished before the pull found is kept, each with its outcome.
    for e in &finished {
        assert!(
            d.outcomes
                .iter()
                .any(|o| o.experiment == *e && o.verdict != Verdict::Skipped),
            "{e:?}: {:?}",
            d.outcomes
        );
    }
    let list = store
        .list(&drivescope_store::ListFilter {
            limit: Some(1),
            ..Default::default()
        })
        .unwrap();
    let saved: DiagnoseRecord = record_in(store.get(list.first().expect("saved").id).unwrap());
    assert_eq!(saved.device_error, d.device_error);
}

/// A bench whose test fits in the read cache a stored diagnosis found says so under its table; one larger than the
/// cache does not.
#[test]
fn a_bench_inside_a_diagnosed_cache_says_its_reads_are_the_caches() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
    let _one = one_at_a_time();
    let m = Model::preset("raid-cache").unwrap();
    // The diagnosis must find the cache first, which takes the lab serving the model's timing: a
    // fresh disk each try, and a try failed on a busy host is void (`common::busy`).
    let mut found = None;
    common::busy::timing_tries(
        2,
        |_| {},
        || {
            let dev = start(&m);
            let path = dev.loop_device().unwrap().to_str().unwrap().to_string();
            let out = drivescope_cmd()
                .args(["diagnose", &path, "--json", "--quiet", "--budget", "40s"])
                .output()
                .unwrap();
            assert_eq!(
                out.status.code(),
                Some(0),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let d: DiagnoseRecord = record_of(&out);
            if !findings(&d)
                .iter()
                .any(|f| f.code == FindingCode::ReadCache && f.confidence == Confidence::High)
            {
                return Err(format!("no read cache found: {:?}", d.outcomes));
            }
            found = Some((dev, path));
            Ok(())
        },
    );
    let Some((_dev, path)) = found else {
        return;
    };
    let bench = |size: &str| {
        drivescope_cmd()
            .args([
                "bench",
                &path,
                "--rw",
                "read",
                "--test",
                "SEQ1M Q8T1",
                "--runs",
                "1",
            ])
            .args(["--duration", "1s", "--size", size, "--no-store"])
            .output()
            .unwrap()
    };
    let inside = bench("32M");
    let text = String::from_utf8_lossy(&inside.stdout);
    assert!(
        text.contains("!! READ RESULTS FROM A CACHE: the 32.0 MiB test fits"),
        "{text}"
    );
    let outside = bench("256M");
    let text = String::from_utf8_lossy(&outside.stdout);
    assert!(!text.contains("FROM A CACHE"), "{text}");
}
