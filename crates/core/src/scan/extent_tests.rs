//! Failed extents and slow regions of scans over scripted devices: extents across command
//! boundaries, an errno change, completions out of order, a dead area of 1 GiB, the cap, a
//! resumed scan, and the extents an older document derives from its lists.

use super::scripted_tests::{scan, target, touches};
use super::{run_inner, ScanConfig, ScanParams, ScanRecord, SequentialScan, EXTENT_LIST_CAP};
use crate::engine::scripted::{Call, Reply, Scripted};
use crate::engine::{DataPattern, Engine, EngineConfig, EngineKind, Reap};
use crate::scan::{ErrorBudget, Event, FailedExtent, Progress};
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

const KIB: u64 = 1024;
const MIB: u64 = 1024 * KIB;
const GIB: u64 = 1024 * MIB;
const TIB: u64 = 1024 * GIB;
const BS: u64 = 64 * KIB;
const SECTOR: u64 = 512;

/// (first LBA, last LBA, errno, count) of each extent, checking offset and length agree.
fn edges(rec: &ScanRecord) -> Vec<(u64, u64, i32, u64)> {
    rec.failed_extents
        .iter()
        .map(|e| {
            assert_eq!(e.offset, e.first_lba * SECTOR, "{e:?}");
            assert_eq!(e.length, (e.last_lba + 1 - e.first_lba) * SECTOR, "{e:?}");
            (e.first_lba, e.last_lba, e.errno, e.count)
        })
        .collect()
}

/// A script: sectors in `bad` fail with their errno, every command takes `lat(call)`.
fn script(
    bad: Vec<(Range<u64>, i32)>,
    lat: impl Fn(&Call) -> u64 + Send,
) -> impl FnMut(&Call) -> Reply + Send {
    move |c: &Call| match bad
        .iter()
        .find(|(r, _)| touches(c.offset, c.len, std::slice::from_ref(r)))
    {
        Some((_, errno)) => Reply::err(lat(c), *errno),
        None => Reply::ok(lat(c)),
    }
}

fn faulty(
    bad: Vec<(Range<u64>, i32)>,
    lat: impl Fn(&Call) -> u64 + Send,
) -> Scripted<impl FnMut(&Call) -> Reply + Send> {
    Scripted::new(script(bad, lat))
}

#[test]
fn a_bad_spot_across_commands_is_one_extent() {
    // LBAs 100..400 span commands 0, 1, 2, 3 (128 sectors each); 1000 alone.
    let dev = faulty(vec![(100..400, libc::EIO), (1000..1001, libc::EIO)], |_| {
        100_000
    });
    let rec = scan(&dev, &target(4 * MIB), &ScanConfig::default());
    assert_eq!(
        edges(&rec),
        vec![(100, 399, libc::EIO, 300), (1000, 1000, libc::EIO, 1)]
    );
    assert_eq!(rec.failed_total, 301);
    assert_eq!(rec.failed_sectors(), 301);
    assert_eq!(rec.failed_extents_cut, None);
}

#[test]
fn an_errno_change_splits_adjacent_extents() {
    let dev = faulty(
        vec![(1000..1010, libc::EIO), (1010..1030, libc::ENODATA)],
        |_| 100_000,
    );
    let rec = scan(&dev, &target(4 * MIB), &ScanConfig::default());
    assert_eq!(
        edges(&rec),
        vec![(1000, 1009, libc::EIO, 10), (1010, 1029, libc::ENODATA, 20)]
    );
}

#[test]
fn completions_out_of_order_at_qd4_give_the_extents_of_qd1() {
    // Sector re-reads of later offsets answer sooner, so at QD4 the failures arrive out of
    // position order; main commands too (odd ones are slower).
    let bad = vec![
        (300..900, libc::EIO),
        (900..905, libc::ENODATA),
        (2000..2001, libc::EIO),
        (2002..2003, libc::EIO),
    ];
    let lat = |c: &Call| {
        if c.len as u64 == SECTOR {
            1_000_000 - c.offset % (64 * SECTOR) * 10
        } else {
            100_000 + (c.offset / BS % 2) * 300_000
        }
    };
    let mut seen = Vec::new();
    for qd in [1u32, 4] {
        let order = Arc::new(Mutex::new(Vec::new()));
        let log = order.clone();
        let dev = faulty(bad.clone(), lat);
        let cfg = ScanConfig {
            queue_depth: qd,
            ..ScanConfig::default()
        };
        let t = target(8 * MIB);
        let mut rec = run_inner(
            &dev,
            &t,
            &cfg,
            None,
            Arc::new(Progress::default()),
            &AtomicBool::new(false),
            Some(Box::new(move |e: &Event| log.lock().unwrap().push(e.lba))),
        )
        .unwrap();
        let order = order.lock().unwrap().clone();
        assert_eq!(
            order.len(),
            607,
            "QD{qd}: every failed sector reached the sink"
        );
        // Each once, though not in position order (trimming reads the far edge backward).
        let lbas: std::collections::BTreeSet<u64> = order.iter().copied().collect();
        let want: std::collections::BTreeSet<u64> =
            bad.iter().flat_map(|(r, _)| r.clone()).collect();
        assert_eq!(lbas, want, "QD{qd}");
        assert!(order.windows(2).any(|w| w[0] > w[1]), "QD{qd}");
        assert_eq!(
            edges(&rec),
            vec![
                (300, 899, libc::EIO, 600),
                (900, 904, libc::ENODATA, 5),
                (2000, 2000, libc::EIO, 1),
                (2002, 2002, libc::EIO, 1)
            ],
            "QD{qd}"
        );
        seen.push(std::mem::take(&mut rec.failed_extents));
    }
    assert_eq!(seen[0], seen[1]);
}

#[test]
fn a_dead_gibibyte_on_a_big_device_is_one_extent_in_bounded_memory() {
    // A 16 TiB device; 1 GiB + 64 MiB scanned from 8 TiB in 1 MiB commands, the GiB from
    // 8 TiB + 32 MiB dead: 2 097 152 sectors re-read one by one, all failing.
    let start = 8 * TIB;
    let dead = start + 32 * MIB..start + 32 * MIB + GIB;
    let bad = dead.start / SECTOR..dead.end / SECTOR;
    let dev = faulty(vec![(bad.clone(), libc::EIO)], |_| 1_000).unlogged();
    let bs = MIB;
    let params = ScanParams {
        start,
        length: GIB + 64 * MIB,
        block_size: bs,
        sector: SECTOR,
        points: 1000,
        slow_ns: u64::MAX,
        interval_ns: 1_000_000_000,
        write: false,
        budget: ErrorBudget::Unlimited,
        retries: 0,
    };
    let engine = EngineConfig {
        kind: EngineKind::Null,
        queue_depth: 4,
        max_len: bs as usize,
        data: DataPattern::Zero,
        reap: Reap::Sleep,
    };
    let mut job = SequentialScan::new(params, Arc::new(Progress::default()));
    let rereads = Arc::new(AtomicU64::new(0));
    let r = rereads.clone();
    job.acc.sink = Some(Box::new(move |e: &Event| {
        assert_eq!(e.errno, Some(libc::EIO));
        r.fetch_add(1, Ordering::Relaxed);
    }));
    let clock = dev.clock();
    dev.run(&engine, 0, &clock, &AtomicBool::new(false), &mut job)
        .unwrap();
    let acc = &job.acc;
    assert_eq!(rereads.load(Ordering::Relaxed), bad.end - bad.start);
    assert_eq!(acc.failed.total(), bad.end - bad.start);
    assert_eq!(acc.failed.items().len(), super::LIST_CAP);
    assert_eq!(
        acc.failed_extents.extents(SECTOR),
        vec![FailedExtent {
            offset: dead.start,
            length: GIB,
            first_lba: bad.start,
            last_lba: bad.end - 1,
            errno: libc::EIO,
            count: bad.end - bad.start,
            ..FailedExtent::default()
        }]
    );
    // The map of what is not known good holds two entries per first-pass failure (the failed
    // command and the skip after it), and the first pass fails at most about a thousand times
    // in a dead area, as its skip reaches a thousandth of the range: bounded by that, not by
    // the dead area's size. At the end the area is one entry.
    let peak = job.passes.map.peak();
    assert!(peak <= 2 * 1000 + 16, "{peak}");
    assert_eq!(job.passes.map.len(), 1);
    assert!(job.finished());
    assert_eq!(acc.failed_commands, GIB / bs);
    assert_eq!(acc.commands, (GIB + 64 * MIB) / bs);
}

#[test]
fn past_the_cap_the_list_stops_and_says_where() {
    // Every other sector bad over 12 000 pairs: 12 000 one-sector extents.
    let n = EXTENT_LIST_CAP as u64 + 2_000;
    let dev = Scripted::new(move |c: &Call| {
        let lba = c.offset / SECTOR;
        let bad = |l: u64| l < 2 * n && l.is_multiple_of(2);
        let any = (lba..(c.offset + c.len as u64) / SECTOR).any(bad);
        if any {
            Reply::err(1_000, libc::EIO)
        } else {
            Reply::ok(1_000)
        }
    })
    .unlogged();
    let rec = scan(&dev, &target(16 * MIB), &ScanConfig::default());
    assert_eq!(rec.failed_extents.len(), EXTENT_LIST_CAP);
    let last = rec.failed_extents.last().unwrap();
    assert_eq!(last.first_lba, 2 * (EXTENT_LIST_CAP as u64 - 1));
    assert_eq!(
        rec.failed_extents_cut,
        Some(2 * EXTENT_LIST_CAP as u64 * SECTOR)
    );
    assert!(rec.failed_extents.iter().all(|e| e.count == 1));
    assert_eq!(rec.failed_total, n);
    assert_eq!(rec.failed_sectors(), n);
}

/// The first part of a scan of `t`, stopped once a main command at `stop_at` is issued.
fn stopped_at(
    stop_at: u64,
    bad: &[(Range<u64>, i32)],
    lat: impl Fn(&Call) -> u64 + Send + Copy,
    t: &crate::target::Target,
) -> ScanRecord {
    let stop = AtomicBool::new(false);
    let mut inner = script(bad.to_vec(), lat);
    let dev = Scripted::new(|c: &Call| {
        if c.len as u64 == BS && c.offset == stop_at {
            stop.store(true, Ordering::Relaxed);
        }
        inner(c)
    });
    run_inner(
        &dev,
        t,
        &ScanConfig::default(),
        None,
        Arc::new(Progress::default()),
        &stop,
        None,
    )
    .unwrap()
}

fn resumed(
    prior: &ScanRecord,
    bad: &[(Range<u64>, i32)],
    lat: impl Fn(&Call) -> u64 + Send,
    t: &crate::target::Target,
) -> ScanRecord {
    let state = prior.resume.clone().unwrap();
    run_inner(
        &faulty(bad.to_vec(), lat),
        t,
        &ScanConfig::of_record(prior),
        Some((prior, &state)),
        Arc::new(Progress::default()),
        &AtomicBool::new(false),
        None,
    )
    .unwrap()
}

#[test]
fn a_resumed_scan_joins_the_extent_across_the_resume_point() {
    // Bad LBAs 1020..1036 straddle 512 KiB (LBA 1024, command 8); the first part stops in
    // its first pass, just after command 7 failed and made the pass skip command 8. Slow
    // commands 2 and 3 (a region) are in the first part, 12 and 13 in the second.
    let bad = vec![(1020..1036, libc::EIO)];
    let lat = |c: &Call| {
        if c.len as u64 == BS && [2, 3, 12, 13].contains(&(c.offset / BS)) {
            60_000_000
        } else {
            100_000
        }
    };
    let t = target(4 * MIB);
    let whole = scan(&faulty(bad.clone(), lat), &t, &ScanConfig::default());
    assert_eq!(edges(&whole), vec![(1020, 1035, libc::EIO, 16)]);

    let first = stopped_at(7 * BS, &bad, lat, &t);
    assert!(first.interrupted);
    let state = first.resume.as_ref().unwrap();
    assert_eq!(state.next_offset, 9 * BS);
    // Known so far: command 7 failed (not yet read sector by sector), command 8 untried.
    assert_eq!(edges(&first), vec![(896, 1023, libc::EIO, 0)]);
    assert_eq!(first.failed_extents[0].unscraped, BS);
    assert_eq!(first.untried_extents.len(), 1);
    assert_eq!(first.untried_extents[0].offset, 8 * BS);
    assert_eq!(state.passes.as_ref().unwrap().areas.len(), 2);

    let rec = resumed(&first, &bad, lat, &t);
    assert!(!rec.interrupted);
    assert_eq!(edges(&rec), vec![(1020, 1035, libc::EIO, 16)]);
    assert_eq!(rec.failed_extents, whole.failed_extents);
    assert!(rec.untried_extents.is_empty());
    assert_eq!(rec.slow_regions, whole.slow_regions);
    assert_eq!(rates(&rec), rates(&whole));
    assert_eq!(
        (
            rec.commands,
            rec.bytes,
            rec.failed_commands,
            rec.failed_total
        ),
        (
            whole.commands,
            whole.bytes,
            whole.failed_commands,
            whole.failed_total
        )
    );
    let (s, w) = (rec.surface.unwrap(), whole.surface.unwrap());
    assert_eq!((s.good, s.failed, s.untried), (w.good, w.failed, w.untried));
    let regions: Vec<(u64, u64, u64)> = rec
        .slow_regions
        .iter()
        .map(|r| (r.offset, r.length, r.count))
        .collect();
    assert_eq!(regions, vec![(2 * BS, 2 * BS, 2), (12 * BS, 2 * BS, 2)]);
}

#[test]
fn a_resumed_scan_continues_from_a_document_before_the_passes() {
    // The first part stops before any failure; written as a document from before the
    // extents, the passes and the bins, it resumes to what a whole scan gives.
    let bad = vec![(1020..1036, libc::EIO)];
    let lat = |c: &Call| {
        if c.len as u64 == BS && [2, 3, 12, 13].contains(&(c.offset / BS)) {
            60_000_000
        } else {
            100_000
        }
    };
    let t = target(4 * MIB);
    let whole = scan(&faulty(bad.clone(), lat), &t, &ScanConfig::default());
    let first = stopped_at(5 * BS, &bad, lat, &t);
    assert_eq!(first.resume.as_ref().unwrap().next_offset, 6 * BS);
    let mut v = serde_json::to_value(&first).unwrap();
    let o = v.as_object_mut().unwrap();
    for k in [
        "failed_extents",
        "slow_regions",
        "untried_extents",
        "surface",
        "error_budget",
    ] {
        o.remove(k);
    }
    let r = o["resume"].as_object_mut().unwrap();
    assert!(r.remove("bins").is_some() && r.remove("passes").is_some());
    let old: ScanRecord = serde_json::from_value(v).unwrap();
    assert!(old.failed_extents.is_empty() && old.slow_regions.is_empty());
    assert_eq!(*old.slow_regions_or_derived(), first.slow_regions[..]);
    let rec = resumed(&old, &bad, lat, &t);
    assert!(!rec.interrupted);
    assert_eq!(rec.failed_extents, whole.failed_extents);
    assert_eq!(rec.slow_regions, whole.slow_regions);
    assert_eq!(rates(&rec), rates(&whole));
    assert_eq!((rec.commands, rec.bytes), (whole.commands, whole.bytes));
}

/// A curve without its whiskers: rates over stretches of time, which start over where a resumed scan does.
fn rates(r: &ScanRecord) -> Vec<(u64, u64, u64, u64, u64)> {
    r.curve
        .iter()
        .map(|p| (p.offset, p.length, p.mb_per_s.to_bits(), p.min_ns, p.max_ns))
        .collect()
}
