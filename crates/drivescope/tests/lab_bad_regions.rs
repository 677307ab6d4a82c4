//! Scans of emulated lab disks (FUSE + loop) with a bad range whose failing reads take half a
//! second each, as a drive's internal retries do: the default scan stays bounded and maps the
//! range's edges; `--error-budget none` maps every sector. Needs root and FUSE; fails loudly
//! without them.

use common::lab::{one_at_a_time, start};
use common::typed::record_of;
use common::*;
use drivescope_lab::{Model, Truth};
use drivescope_record::{Pass, ScanRecord};
use drivescope_testkit as common;
use std::collections::BTreeSet;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

const MIB: u64 = 1 << 20;
const SECTOR: u64 = 512;

/// `drivescope ARGS`, under `chrt -f 10` when available, so that other processes on a small
/// machine do not stall the scanner between commands.
fn realtime(args: &[&str]) -> Output {
    let rt = Command::new("chrt")
        .args(["-f", "10", "true"])
        .status()
        .is_ok_and(|s| s.success());
    let mut cmd = drivescope_cmd();
    if rt {
        let bin = cmd.get_program().to_owned();
        let env: Vec<_> = cmd
            .get_envs()
            .filter_map(|(k, v)| Some((k.to_owned(), v?.to_owned())))
            .collect();
        cmd = Command::new("chrt");
        cmd.arg("-f").arg("10").arg(bin).envs(env);
    }
    cmd.args(args).output().expect("run drivescope")
}

/// Bytes over time of the curve points wholly inside `[lo, hi)` (a zone's mean rate, as a
/// host stall slowing one point and the emulator's catch-up speeding the next cancel out).
/// The median rate of the curve's bins within [lo, hi): the rate most of the stretch was read
/// at, which a stall of the machine in one bin or two does not move.
fn median_rate(doc: &ScanRecord, lo: u64, hi: u64) -> Option<f64> {
    let mut rates: Vec<f64> = doc
        .curve
        .iter()
        .filter(|p| p.offset >= lo && p.offset + p.length <= hi)
        .map(|p| p.mb_per_s)
        .collect();
    rates.sort_by(f64::total_cmp);
    rates.get(rates.len() / 2).copied()
}

#[test]
fn a_default_scan_maps_a_slow_bad_range_in_under_two_minutes() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
    let _one = one_at_a_time();
    // 256 MiB in two zones; 16 MiB from 100 MiB + 3 sectors fail, each failing read after
    // 0.5 s. A scan re-reading every sector of it would take 4.5 hours.
    let bad_at = 100 * MIB + 3 * SECTOR;
    let toml = format!(
        "name = \"bad-range\"\nsize = \"256M\"\nzones = {{ rates_mb_s = [300, 150] }}\n\
         overhead = \"5us\"\nbad = [{{ offset = {bad_at}, length = \"16M\", latency = \"500ms\" }}]\n"
    );
    let model = Model::from_toml_str(&toml, "test").unwrap();
    // The map (extents, counts, text) does not depend on the host's load and is checked on every
    // try; the zones' rates and the two minutes are the lab's timing, which a busy host stretches
    // or, as the emulator catches up, compresses: those pass on one of two tries, and a try
    // failed on a busy host is void (`common::busy`).
    common::busy::timing_tries(2, |_| {}, || slow_bad_range_scan(&model));
}

fn slow_bad_range_scan(model: &Model) -> Result<(), String> {
    let truth: Truth = model.truth();
    let dev = start(model);
    let path = dev.loop_device().unwrap().to_str().unwrap().to_string();
    let t0 = Instant::now();
    let out = realtime(&["scan", &path, "--json", "--no-store", "--quiet"]);
    let took = t0.elapsed();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "{err}");
    let d: ScanRecord = record_of(&out);
    assert!(!d.interrupted);
    let s = d.surface.as_ref().expect("a surface");
    eprintln!(
        "bad range: scan {took:?}, first pass {} ms, error handling {} ms, untried {} B",
        s.first_pass_ns / 1_000_000,
        s.error_handling_ns / 1_000_000,
        s.untried
    );

    // One failed extent, its edges within a sector of the truth's.
    let spot = &truth.bad[0];
    let extents = &d.failed_extents;
    assert_eq!(extents.len(), 1, "{extents:?}");
    let e = &extents[0];
    let (first, last) = (e.first_lba, e.last_lba);
    let last_truth = spot.lba + spot.length / SECTOR - 1;
    assert!(
        first.abs_diff(spot.lba) <= 1,
        "first LBA {first} vs {}",
        spot.lba
    );
    assert!(
        last.abs_diff(last_truth) <= 1,
        "last LBA {last} vs {last_truth}"
    );
    // Everything else read fine; what was not read inside the range is said to be untried.
    let size = 256 * MIB;
    let (good, failed, untried) = (s.good, s.failed, s.untried);
    assert_eq!(good + failed + untried, size);
    assert_eq!(failed + untried, e.length);
    assert_eq!(good, size - e.length);
    let listed: u64 = d
        .untried_extents
        .iter()
        .map(|x| {
            let (o, l) = (x.offset, x.length);
            assert!(o > e.offset && o + l < e.offset + e.length);
            l
        })
        .sum();
    assert_eq!(listed, untried);
    // The text the scan prints without --json.
    let mut text = Vec::new();
    drivescope_report::text::print_scan(&d, &mut text).unwrap();
    let text = String::from_utf8_lossy(&text);
    if untried > 0 {
        assert!(
            text.contains("untried (neither good nor failed): "),
            "the summary says what was untried: {text}"
        );
    }
    assert!(text.contains("\n  surface   readable "), "{text}");
    assert!(text.contains("\n  errors    first pass "), "{text}");

    // The curve: points over the whole range but the bad one, no gap, no overlap; each
    // zone's rate (the median of its bins: a stall of a shared machine in a bin or two is not
    // the zone's rate) within 10 % of the truth's over the points clear of the range, and
    // within 25 % from the range to the end of its zone: the first pass skipped ahead from
    // the range (how far depends on how long the failing reads took) and a later pass read
    // that stretch, not in one sequential run with the rest of the zone.
    let points: Vec<(u64, u64)> = d.curve.iter().map(|p| (p.offset, p.length)).collect();
    assert_eq!(points.first().map(|p| p.0), Some(0));
    assert_eq!(points.last().map(|p| p.0 + p.1), Some(size));
    let (lo, hi) = (spot.offset - 65536, spot.offset + spot.length + 65536);
    for w in points.windows(2) {
        let (a, b) = (w[0], w[1]);
        if a.0 + a.1 != b.0 {
            assert!(a.0 + a.1 > lo && b.0 < hi, "a gap between {a:?} and {b:?}");
        }
    }
    let mut timing = Vec::new();
    if took >= Duration::from_secs(120) {
        timing.push(format!("took {took:?}"));
    }
    for z in &truth.zones {
        let end = z.offset + z.length;
        let holds_range = z.offset < hi && lo < end;
        let parts = [
            (z.offset, end.min(lo), 0.10),
            (z.offset.max(hi), end, if holds_range { 0.25 } else { 0.10 }),
        ];
        for (a, b, tol) in parts.into_iter().filter(|(a, b, _)| a < b) {
            let r = median_rate(&d, a, b).expect("curve points there");
            if (r / z.mb_per_s - 1.0).abs() >= tol {
                timing.push(format!(
                    "zone {} [{a}, {b}): {r:.1} MB/s vs {:.1}",
                    z.index, z.mb_per_s
                ));
            }
        }
    }
    if timing.is_empty() {
        Ok(())
    } else {
        Err(timing.join("; "))
    }
}

#[test]
fn with_no_error_budget_every_bad_sector_is_mapped_and_listed() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
    let _one = one_at_a_time();
    // 24 sectors across the command boundary at 5 MiB, failing after 0.5 s each.
    let bad_at = 5 * MIB - 10 * SECTOR;
    let toml = format!(
        "name = \"bad-sectors\"\nsize = \"32M\"\nzones = {{ rates_mb_s = [500] }}\n\
         overhead = \"5us\"\nbad = [{{ offset = {bad_at}, length = {}, latency = \"500ms\" }}]\n",
        24 * SECTOR
    );
    let model = Model::from_toml_str(&toml, "test").unwrap();
    let dev = start(&model);
    let path = dev.loop_device().unwrap().to_str().unwrap().to_string();
    let dir = std::env::temp_dir().join(format!("drivescope-bad-list-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let list = dir.join("failed.csv");
    let out = realtime(&[
        "scan",
        &path,
        "--error-budget",
        "none",
        "--failed-list",
        list.to_str().unwrap(),
        "--json",
        "--no-store",
        "--quiet",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let d: ScanRecord = record_of(&out);
    let want: BTreeSet<u64> = (bad_at / SECTOR..bad_at / SECTOR + 24).collect();
    let extents = &d.failed_extents;
    assert_eq!(extents.len(), 1, "{extents:?}");
    let e = &extents[0];
    assert_eq!(
        (e.first_lba, e.last_lba, e.count),
        (bad_at / SECTOR, bad_at / SECTOR + 23, 24)
    );
    // Written only when not zero: nothing left to scrape or untried in the extent.
    assert!(e.unscraped == 0 && e.untried == 0, "{e:?}");
    let s = d.surface.as_ref().expect("a surface");
    assert_eq!((s.failed, s.untried), (24 * SECTOR, 0));
    assert_eq!(s.unscraped, 0);
    assert!(!s.budget_ran_out);
    assert!(s.budget_ns.is_none(), "no limit: {s:?}");
    assert!(d.untried_extents.is_empty());
    assert_eq!(d.failed_total, 24);
    // The failed list has each of them once.
    let text = std::fs::read_to_string(&list).unwrap();
    let rows: Vec<u64> = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(rows.len(), 24);
    assert_eq!(rows.into_iter().collect::<BTreeSet<u64>>(), want);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_scan_stopped_while_scraping_resumes_there_and_keeps_its_edges() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
    let _one = one_at_a_time();
    // 1 MiB from 8 MiB + 5 sectors fails after 0.3 s; first pass and trimming take about
    // 2.5 s, then scraping has a 10 s budget. SIGINT at 6 s stops it in scraping.
    let bad_at = 8 * MIB + 5 * SECTOR;
    let toml = format!(
        "name = \"bad-resume\"\nsize = \"32M\"\nzones = {{ rates_mb_s = [500] }}\n\
         overhead = \"5us\"\nbad = [{{ offset = {bad_at}, length = \"1M\", latency = \"300ms\" }}]\n"
    );
    let model = Model::from_toml_str(&toml, "test").unwrap();
    let dev = start(&model);
    let path = dev.loop_device().unwrap().to_str().unwrap().to_string();
    // A busy host stretches the first pass and trimming: where the stop came before scraping, or
    // before any of its budget was spent, the scan runs again and is stopped later.
    let mut tries = Vec::new();
    let out = loop {
        let wait = [6, 9, 12][tries.len()];
        let child = drivescope_cmd()
            .args(["scan", &path, "--error-budget", "10s", "--json", "--quiet"])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_secs(wait));
        // SAFETY: signalling our own child.
        unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
        let out = child.wait_with_output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(130),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let r: ScanRecord = record_of(&out);
        let at = r.resume.as_ref().and_then(|x| x.passes.as_ref());
        match at {
            Some(p) if p.pass == Pass::Scrape && p.budget_used_ns > 0 => break out,
            _ if tries.len() < 2 => tries.push(format!("{wait} s: {at:?}")),
            _ => panic!("never stopped while scraping: {tries:?}, then {at:?}"),
        }
    };
    if !tries.is_empty() {
        eprintln!("stopped while scraping after {tries:?}");
    }
    let first: ScanRecord = record_of(&out);
    assert!(first.interrupted);
    // The first pass and trimming were over: the edges are known already.
    assert_eq!(first.covered, 32 * MIB);
    let resume = first.resume.as_ref().expect("a resume point");
    assert_eq!(resume.next_offset, 32 * MIB);
    let p = resume.passes.as_ref().expect("the passes' state");
    assert_eq!(p.pass, Pass::Scrape);
    let used = p.budget_used_ns;
    assert!(used > 0 && used < 10_000_000_000, "{used}");

    let out = drivescope(&["scan", "--resume", "last", "--json", "--quiet"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let d: ScanRecord = record_of(&out);
    assert!(!d.interrupted);
    assert!(
        d.resumed_from.is_some_and(|r| r >= 0),
        "{:?}",
        d.resumed_from
    );
    let e = &d.failed_extents[0];
    assert_eq!(
        (e.first_lba, e.last_lba),
        (bad_at / SECTOR, (bad_at + MIB) / SECTOR - 1)
    );
    let s = d.surface.as_ref().expect("a surface");
    assert_eq!(s.good + s.failed + s.untried, 32 * MIB);
    assert_eq!(s.good, 31 * MIB);
    // Both parts together kept to the budget (to within a failing read and its probe, which a
    // busy host can stretch: the bound is a guard, three seconds past the budget of ten).
    assert_eq!(s.budget_ns, Some(10_000_000_000));
    assert!(s.budget_ran_out);
    let trimming = p.error_handling_ns - p.budget_used_ns;
    let spent = s.error_handling_ns - trimming;
    assert!(
        (10_000_000_000..13_000_000_000).contains(&spent),
        "{spent} ns within the budget"
    );
    assert_eq!(s.first_pass_ns, p.first_pass_ns);
}
