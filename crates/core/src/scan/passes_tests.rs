//! The passes of a full scan over scripted devices with a dead area whose failing commands
//! take half a second (a drive's internal retries): the first pass skips ahead and ends before
//! any time is spent inside the area, trimming finds its edges to the sector, scraping and
//! retries keep to the error budget, untried stretches are reported as such, and a resumed
//! scan or a write scan takes the same course.

use super::passes::max_skip;
use super::scripted_tests::{probes_after_failures, scan, target, touches};
use super::{run_inner, ErrorBudget, ScanConfig, ScanRecord};
use crate::engine::scripted::{Call, Reply, Scripted};
use crate::scan::Progress;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

const KIB: u64 = 1024;
const MIB: u64 = 1024 * KIB;
const GIB: u64 = 1024 * MIB;
const BS: u64 = 64 * KIB;
const SECTOR: u64 = 512;
/// How far a probe lies at least from every failure (64 MiB; 1 % of ranges over 6.4 GiB).
const FAR: u64 = super::lost::FAR_MIN;
/// A failing command, whatever its size.
const FAIL_NS: u64 = 500_000_000;
const CMD_NS: u64 = 100_000;
const SECTOR_NS: u64 = 20_000;

/// 8 MiB + 5 sectors of dead LBAs from 300 MiB + 3 sectors: neither edge on a command
/// boundary.
fn dead() -> Range<u64> {
    let first = 300 * MIB / SECTOR + 3;
    first..first + 8 * MIB / SECTOR + 5
}

fn latency(c: &Call) -> u64 {
    if c.len as u64 == SECTOR {
        SECTOR_NS
    } else {
        CMD_NS
    }
}

fn failing(c: &Call) -> bool {
    touches(c.offset, c.len, std::slice::from_ref(&dead()))
}

fn device() -> Scripted<impl FnMut(&Call) -> Reply + Send> {
    Scripted::new(|c: &Call| {
        if failing(c) {
            Reply::err(FAIL_NS, libc::EIO)
        } else {
            Reply::ok(latency(c))
        }
    })
}

fn cfg(budget: ErrorBudget) -> ScanConfig {
    ScanConfig {
        error_budget: budget,
        ..ScanConfig::default()
    }
}

/// The one failed extent, checked to add up.
fn one_extent(rec: &ScanRecord) -> &drivescope_record::FailedExtent {
    assert_eq!(rec.failed_extents.len(), 1, "{:?}", rec.failed_extents);
    let e = &rec.failed_extents[0];
    assert_eq!(
        e.length,
        e.count * SECTOR + e.unscraped + e.untried,
        "{e:?}"
    );
    assert_eq!(e.offset, e.first_lba * SECTOR);
    assert_eq!(e.offset + e.length, (e.last_lba + 1) * SECTOR);
    e
}

/// Good + failed + untried cover the range; failed and untried are what the extents hold.
fn check_surface(rec: &ScanRecord) {
    let s = rec.surface.as_ref().unwrap();
    assert_eq!(s.good + s.failed + s.untried, rec.length);
    let sectors: u64 = rec.failed_extents.iter().map(|e| e.count).sum();
    let unscraped: u64 = rec.failed_extents.iter().map(|e| e.unscraped).sum();
    assert_eq!(s.failed, sectors * SECTOR + unscraped);
    assert_eq!(s.unscraped, unscraped);
    let untried: u64 = rec.untried_extents.iter().map(|u| u.length).sum();
    assert_eq!(s.untried, untried);
    assert_eq!(s.first_pass_ns + s.error_handling_ns, rec.duration_ns);
}

#[test]
fn the_first_pass_skips_over_a_dead_area_and_trimming_finds_its_edges() {
    let dev = device();
    let t = target(GIB);
    let rec = scan(&dev, &t, &cfg(ErrorBudget::Ns(0)));
    let calls = dev.calls();
    let s = rec.surface.clone().unwrap();
    assert!(!rec.interrupted);

    // The first pass: in order, one command skipped after the first failure, two after the
    // next, doubling to the longest skip (a thousandth of the range, at least 1 MiB), back
    // to none once a command reads fine.
    let longest = max_skip(GIB, BS) / BS;
    assert_eq!(longest, 16);
    assert_eq!(max_skip(4 * GIB, BS) / BS, 65);
    assert_eq!(max_skip(256 * MIB, BS) / BS, 16);
    assert_eq!(max_skip(256 * MIB, 4 * MIB), 4 * MIB);
    let first: Vec<u64> = calls
        .iter()
        .filter(|c| c.at_ns < s.first_pass_ns && c.len as u64 == BS)
        .map(|c| c.offset / BS)
        .collect();
    let (d0, d1) = (dead().start * SECTOR / BS, (dead().end * SECTOR - 1) / BS);
    let mut want: Vec<u64> = (0..=d0).collect();
    let (mut k, mut skip) = (d0, 0);
    while k <= d1 {
        skip = if skip == 0 {
            1
        } else {
            (skip * 2).min(longest)
        };
        k += skip + 1;
        want.push(k);
    }
    want.extend(k + 1..GIB / BS);
    assert_eq!(first, want);
    let first_failures = want.iter().filter(|&&k| (d0..=d1).contains(&k)).count();
    assert_eq!(first_failures, 11);
    // Nothing inside the failed commands was read before the first pass ended: the only
    // sector reads were probes of places read fine before, one after each failure.
    let (before, after): (Vec<Call>, Vec<Call>) =
        calls.iter().partition(|c| c.at_ns < s.first_pass_ns);
    assert_eq!(probes_after_failures(&before, failing, FAR), first_failures);
    assert!(before
        .iter()
        .filter(|c| c.len as u64 == SECTOR)
        .all(|c| !failing(c) && !(d0..=d1).contains(&(c.offset / BS))));
    assert_eq!(s.first_pass_ns, {
        let good = (want.len() - first_failures) as u64;
        good * CMD_NS + first_failures as u64 * (FAIL_NS + SECTOR_NS)
    });

    // Trimming: the edges to the sector, with a few failing commands: one sector at each
    // edge, and the runs from the good end back into the area.
    let e = one_extent(&rec);
    assert_eq!((e.first_lba, e.last_lba + 1), (dead().start, dead().end));
    assert_eq!(e.count, 2);
    let later_failures = after.iter().filter(|c| failing(c)).count();
    assert!(
        later_failures <= 2 + 5,
        "{later_failures} failures in trimming"
    );
    assert_eq!(
        probes_after_failures(&calls, failing, FAR),
        first_failures + later_failures
    );
    assert!(s.error_handling_ns < 8 * FAIL_NS, "{}", s.error_handling_ns);
    // No scraping with a budget of 0: between the edges, failed commands and untried
    // stretches, each reported as such; the rest of the range read fine.
    assert!(e.untried > 0 && e.unscraped > 0);
    assert_eq!((s.budget_ns, s.budget_ran_out), (Some(0), true));
    assert_eq!(s.good, GIB - e.length);
    assert!(rec
        .untried_extents
        .iter()
        .all(|u| u.offset > e.offset && u.offset + u.length < e.offset + e.length));
    assert_eq!(rec.failed_total, 2);
    check_surface(&rec);
    // The curve: every point clear of the area at the device's rate, also where the first
    // pass skipped and trimming read later.
    let rate = BS as f64 / CMD_NS as f64 * 1e3;
    let (lo, hi) = (e.offset, e.offset + e.length);
    let clear: Vec<_> = rec
        .curve
        .iter()
        .filter(|p| p.offset + p.length <= lo || p.offset >= hi)
        .collect();
    assert!(clear.len() >= 990);
    for p in clear {
        assert!((p.mb_per_s - rate).abs() < 1e-6 * rate, "{p:?}");
    }
}

#[test]
fn scraping_keeps_to_the_budget_and_none_maps_every_sector() {
    let t = target(GIB);
    let trimmed = scan(&device(), &t, &cfg(ErrorBudget::Ns(0)));
    let trim_ns = trimmed.surface.as_ref().unwrap().error_handling_ns;

    // 10 s: past trimming, scraping stops within one failing command of the budget.
    let rec = scan(&device(), &t, &cfg(ErrorBudget::Ns(10_000_000_000)));
    let s = rec.surface.clone().unwrap();
    assert!(s.budget_ran_out);
    assert!(s.error_handling_ns >= trim_ns + 10_000_000_000);
    assert!(s.error_handling_ns <= trim_ns + 10_000_000_000 + FAIL_NS + SECTOR_NS);
    let e = one_extent(&rec);
    assert_eq!((e.first_lba, e.last_lba + 1), (dead().start, dead().end));
    // What the budget bought: untried stretches read in commands first.
    let before = trimmed.surface.as_ref().unwrap();
    assert!(s.untried < before.untried);
    assert!(s.untried > 0);
    check_surface(&rec);

    // No limit: every dead sector failed on its own and is listed, nothing else is.
    let dev = device();
    let rec = scan(&dev, &t, &cfg(ErrorBudget::Unlimited));
    let s = rec.surface.clone().unwrap();
    assert!(!s.budget_ran_out && s.budget_ns.is_none());
    let e = one_extent(&rec);
    let n = dead().end - dead().start;
    assert_eq!(
        (e.first_lba, e.last_lba + 1, e.count),
        (dead().start, dead().end, n)
    );
    assert_eq!(
        (e.unscraped, e.untried, s.untried, s.unscraped),
        (0, 0, 0, 0)
    );
    // The failed list keeps its first 10 000 (the sink test sees every one).
    assert_eq!(rec.failed_total, n);
    assert!(rec.failed.iter().all(|f| dead().contains(&f.lba)));
    assert!(rec.untried_extents.is_empty());
    assert_eq!(s.good, GIB - n * SECTOR);
    check_surface(&rec);
    // Each dead sector was read alone exactly once.
    let sectors = dev
        .calls()
        .iter()
        .filter(|c| c.len as u64 == SECTOR && failing(c))
        .count() as u64;
    assert_eq!(sectors, n);
}

#[test]
fn a_failed_list_sink_gets_every_failed_sector_once() {
    let t = target(GIB);
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = seen.clone();
    let rec = run_inner(
        &device(),
        &t,
        &cfg(ErrorBudget::Unlimited),
        None,
        Arc::new(Progress::default()),
        &AtomicBool::new(false),
        Some(Box::new(move |e: &super::Event| {
            log.lock().unwrap().push(e.lba)
        })),
    )
    .unwrap();
    let mut seen = seen.lock().unwrap().clone();
    seen.sort();
    assert!(seen == dead().collect::<Vec<_>>(), "{} sectors", seen.len());
    assert_eq!(rec.failed_total, seen.len() as u64);
}

#[test]
fn retries_read_failed_sectors_again_within_the_budget() {
    // 4 MiB; LBAs 1000..1004 fail the first time each is read (alone or in a command),
    // 3000 always.
    let script = |c: &Call| {
        let weak = touches(c.offset, c.len, std::slice::from_ref(&(1000..1004))) && c.attempt == 0;
        if weak || touches(c.offset, c.len, std::slice::from_ref(&(3000..3001))) {
            Reply::err(1_000_000, libc::EIO)
        } else {
            Reply::ok(latency(c))
        }
    };
    let t = target(4 * MIB);
    let lbas = |rec: &ScanRecord| -> Vec<(u64, u64)> {
        rec.failed_extents
            .iter()
            .map(|e| (e.first_lba, e.last_lba))
            .collect()
    };
    let run = |retries: u32, budget: ErrorBudget| {
        let cfg = ScanConfig {
            retries,
            error_budget: budget,
            ..ScanConfig::default()
        };
        scan(&Scripted::new(script), &t, &cfg)
    };
    assert_eq!(
        lbas(&run(0, ErrorBudget::Auto)),
        vec![(1000, 1003), (3000, 3000)]
    );
    assert_eq!(lbas(&run(1, ErrorBudget::Auto)), vec![(3000, 3000)]);
    // The same retry with no budget left does not happen.
    let rec = run(1, ErrorBudget::Ns(0));
    assert_eq!(lbas(&rec), vec![(1000, 1003), (3000, 3000)]);
    assert!(rec.surface.unwrap().budget_ran_out);
    // The sectors that read on a retry stay in the failed list (they failed), not in the
    // extents or the failed total of the surface.
    let rec = run(2, ErrorBudget::Auto);
    assert_eq!(rec.failed_total, 5);
    assert_eq!(rec.surface.as_ref().unwrap().failed, SECTOR);
    assert_eq!(rec.retries, 2);
}

#[test]
fn a_write_scan_takes_the_same_passes_with_writes_and_probes_by_reading() {
    let t = target(GIB);
    let dev = device();
    let cfg = ScanConfig {
        write: true,
        error_budget: ErrorBudget::Unlimited,
        ..ScanConfig::default()
    };
    let rec = scan(&dev, &t, &cfg);
    assert!(rec.write);
    let e = one_extent(&rec);
    let n = dead().end - dead().start;
    assert_eq!((e.first_lba, e.count), (dead().start, n));
    let calls = dev.calls();
    let probes = probes_after_failures(&calls, failing, FAR);
    assert!(probes > 0);
    // Every command over the range is a write; only the probes read.
    assert_eq!(calls.iter().filter(|c| !c.write).count(), probes);
    check_surface(&rec);
}

#[test]
fn at_qd4_the_later_passes_go_one_command_at_a_time_to_the_same_result() {
    let t = target(GIB);
    let whole = scan(&device(), &t, &cfg(ErrorBudget::Ns(0)));
    let dev = device();
    let rec = scan(
        &dev,
        &t,
        &ScanConfig {
            queue_depth: 4,
            ..cfg(ErrorBudget::Ns(0))
        },
    );
    let e = one_extent(&rec);
    assert_eq!((e.first_lba, e.last_lba + 1), (dead().start, dead().end));
    check_surface(&rec);
    let first_end = rec.surface.as_ref().unwrap().first_pass_ns;
    let calls = dev.calls();
    // The first pass kept 4 in flight; after it, each command waited for the last.
    let at_once = |t: u64| {
        calls
            .iter()
            .filter(|c| {
                let lat = if failing(c) { FAIL_NS } else { latency(c) };
                c.at_ns <= t && t < c.at_ns + lat
            })
            .count()
    };
    assert_eq!(at_once(0), 4);
    for c in calls.iter().filter(|c| c.at_ns >= first_end) {
        assert_eq!(at_once(c.at_ns), 1, "{c:?}");
    }
    assert_eq!(
        rec.failed_extents[0].first_lba,
        whole.failed_extents[0].first_lba
    );
}

#[test]
fn a_device_gone_while_trimming_is_told_by_the_probe_and_can_be_resumed() {
    let t = target(GIB);
    let whole = scan(&device(), &t, &cfg(ErrorBudget::Ns(0)));
    let first_end = whole.surface.as_ref().unwrap().first_pass_ns;
    // Everything fails once the first pass is over (from the first sector trimming reads).
    let dev = Scripted::new(|c: &Call| {
        if failing(c) || c.at_ns >= first_end {
            Reply::err(FAIL_NS, libc::EIO)
        } else {
            Reply::ok(latency(c))
        }
    });
    let rec = scan(&dev, &t, &cfg(ErrorBudget::Ns(0)));
    let lost = rec.device_lost.as_deref().expect("device_lost");
    assert!(lost.contains("stopped responding"), "{lost}");
    assert!(rec.interrupted);
    assert_eq!(rec.covered, GIB);
    let state = rec.resume.as_ref().expect("a resume state");
    assert_eq!(state.next_offset, GIB);
    let passes = state.passes.as_ref().unwrap();
    assert_eq!(passes.pass, drivescope_record::Pass::Trim);
    // The sector that failed as the device went is not listed; what the first pass found
    // stands.
    assert_eq!(rec.failed_total, 0);
    assert_eq!(rec.failed_extents.len(), 1);
    assert_eq!(rec.failed_extents[0].count, 0);
    // Resumed on a device that answers again, it ends as one uninterrupted scan would.
    let resumed = run_inner(
        &device(),
        &t,
        &ScanConfig::of_record(&rec),
        Some((&rec, state)),
        Arc::new(Progress::default()),
        &AtomicBool::new(false),
        None,
    )
    .unwrap();
    assert!(!resumed.interrupted);
    assert_eq!(resumed.failed_extents, whole.failed_extents);
    assert_eq!(resumed.untried_extents, whole.untried_extents);
    let (a, b) = (resumed.surface.unwrap(), whole.surface.unwrap());
    assert_eq!((a.good, a.failed, a.untried), (b.good, b.failed, b.untried));
}

#[test]
fn a_scan_stopped_while_scraping_resumes_with_the_budget_it_had_left() {
    let t = target(GIB);
    let budget = ErrorBudget::Ns(20_000_000_000);
    let whole = scan(&device(), &t, &cfg(budget));
    let trim_end = {
        let w = whole.surface.as_ref().unwrap();
        w.first_pass_ns
            + scan(&device(), &t, &cfg(ErrorBudget::Ns(0)))
                .surface
                .unwrap()
                .error_handling_ns
    };
    // Stop 8 s into scraping.
    let stop = AtomicBool::new(false);
    let dev = Scripted::new(|c: &Call| {
        if c.at_ns >= trim_end + 8_000_000_000 {
            stop.store(true, Ordering::Relaxed);
        }
        if failing(c) {
            Reply::err(FAIL_NS, libc::EIO)
        } else {
            Reply::ok(latency(c))
        }
    });
    let first = run_inner(
        &dev,
        &t,
        &cfg(budget),
        None,
        Arc::new(Progress::default()),
        &stop,
        None,
    )
    .unwrap();
    assert!(first.interrupted);
    let state = first.resume.clone().unwrap();
    let p = state.passes.as_ref().unwrap();
    assert_eq!(p.pass, drivescope_record::Pass::Scrape);
    assert!(p.budget_used_ns >= 8_000_000_000 && p.budget_used_ns < 9_000_000_000);
    let rec = run_inner(
        &device(),
        &t,
        &ScanConfig::of_record(&first),
        Some((&first, &state)),
        Arc::new(Progress::default()),
        &AtomicBool::new(false),
        None,
    )
    .unwrap();
    assert!(!rec.interrupted);
    let (a, b) = (rec.surface.clone().unwrap(), whole.surface.clone().unwrap());
    assert!(a.budget_ran_out && b.budget_ran_out);
    // Both parts together scraped for the budget, as the whole scan did (to within one
    // failing command), and got as far.
    let a_budget = a.error_handling_ns - (trim_end - a.first_pass_ns);
    assert!((20_000_000_000..=20_000_000_000 + 2 * FAIL_NS).contains(&a_budget));
    assert!(
        a.untried.abs_diff(b.untried) <= 2 * BS,
        "{} {}",
        a.untried,
        b.untried
    );
    assert_eq!(
        rec.failed_extents[0].first_lba,
        whole.failed_extents[0].first_lba
    );
    check_surface(&rec);
}

#[test]
fn the_curve_has_every_bin_clear_of_the_area_at_the_devices_rate() {
    // 4000 points of 4 commands: the first pass skips whole bins past the area's end, which
    // trimming reads later; each is on the curve at the rate of its commands. A command that
    // does not follow the one before pays an 8 ms seek, which the rate leaves out (the head
    // starts at the range's start).
    let t = target(GIB);
    let mut head = 0;
    let dev = Scripted::new(move |c: &Call| {
        let seek = if c.offset == head { 0 } else { 8_000_000 };
        head = c.offset + c.len as u64;
        if failing(c) {
            Reply::err(FAIL_NS + seek, libc::EIO)
        } else {
            Reply::ok(latency(c) + seek)
        }
    });
    let rec = scan(
        &dev,
        &t,
        &ScanConfig {
            points: 4000,
            ..cfg(ErrorBudget::Ns(0))
        },
    );
    let e = one_extent(&rec);
    let (lo, hi) = (e.offset, e.offset + e.length);
    let bins = drivescope_stats::Curve::new(0, GIB, BS, 4000);
    let want: Vec<(u64, u64)> = (0..4000)
        .map(|i| bins.bin_range(i))
        .filter(|(o, l)| o + l <= lo || *o >= hi)
        .collect();
    let got: Vec<(u64, u64)> = rec
        .curve
        .iter()
        .filter(|p| p.offset + p.length <= lo || p.offset >= hi)
        .map(|p| (p.offset, p.length))
        .collect();
    assert!(got == want, "{} of {} clear bins", got.len(), want.len());
    let rate = BS as f64 / CMD_NS as f64 * 1e3;
    for p in &rec.curve {
        if p.offset + p.length <= lo || p.offset >= hi {
            assert!((p.mb_per_s - rate).abs() < 1e-6 * rate, "{p:?}");
        }
    }
}
