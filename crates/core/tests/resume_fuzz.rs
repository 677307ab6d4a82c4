//! Property run over resuming a scan (`Start::Resume`) from stored documents: an interrupted scan of `null:64M` (a
//! real record, `sample`, as the store keeps it) with numbers no scan writes in the fields a
//! resumed scan reads and continues. The scan refuses it with one line or continues to the
//! whole range; it never panics, and its memory does not follow the numbers. Small budget.

use drivescope_core::engine::Live;
use drivescope_core::scan::{self, ResumeState};
use drivescope_core::target::Target;
use drivescope_record::{Direction, Document, EngineKind, ScanRecord, TargetInfo, TargetType};
use drivescope_report::sample;
use drivescope_stats::BinState;
use proptest::prelude::*;
use proptest::sample::Index;
use std::sync::atomic::AtomicBool;

const SIZE: u64 = 64 << 20;

/// An interrupted full scan of `null:64M`, its resume point half way.
fn interrupted() -> ScanRecord {
    let mut r = sample::scan(5, SIZE, 16, 3, 2, Direction::Read);
    r.header.target = TargetInfo {
        path: format!("null:{SIZE}"),
        kind: TargetType::Null,
        size: SIZE,
        logical_block_size: 512,
    };
    r.header.device = None;
    r.engine = EngineKind::Null;
    r.interrupted = true;
    r.covered = SIZE / 2;
    r.resume = Some(ResumeState {
        next_offset: SIZE / 2,
        // the bin before the resume point, complete
        last_bin: Some(BinState {
            index: 7,
            bytes: SIZE / 16,
            commands: SIZE / 16 / 65536,
            busy_ns: 300_000_000,
            min_ns: 200_000,
            max_ns: 9_000_000,
            unpaced_bytes: 0,
            unpaced_ns: 0,
            window_min: 0.0,
            window_max: 0.0,
        }),
        submit_histogram: r.histogram.clone(),
        bins: Vec::new(),
        passes: None,
    });
    r
}

/// The numbers of a stored scan that a resumed scan reads and continues.
#[derive(Debug, Clone, Copy)]
enum Field {
    Interval,
    Points,
    BlockSize,
    Offset,
    Length,
    Covered,
    Bytes,
    Commands,
    FailedCommands,
    Duration,
    SlowTotal,
    FailedTotal,
    Next,
    BinIndex,
    BinBytes,
    BinBusy,
    ExtentOffset,
    ExtentLength,
    ExtentCount,
    RegionOffset,
    RegionLength,
    RegionCount,
    SeriesTime,
    CurveOffset,
    CurveLength,
    BandCount,
    BucketLow,
    BucketHigh,
    BucketCount,
}

const FIELDS: [Field; 29] = {
    use Field::*;
    [
        Interval,
        Points,
        BlockSize,
        Offset,
        Length,
        Covered,
        Bytes,
        Commands,
        FailedCommands,
        Duration,
        SlowTotal,
        FailedTotal,
        Next,
        BinIndex,
        BinBytes,
        BinBusy,
        ExtentOffset,
        ExtentLength,
        ExtentCount,
        RegionOffset,
        RegionLength,
        RegionCount,
        SeriesTime,
        CurveOffset,
        CurveLength,
        BandCount,
        BucketLow,
        BucketHigh,
        BucketCount,
    ]
};

/// Sets `field` (of its `i`-th item, for lists) to `n`.
fn set(r: &mut ScanRecord, field: Field, i: Index, n: u64) {
    let at = |len: usize| i.index(len);
    let (ne, ns, nc, nb) = (
        at(r.failed_extents.len()),
        at(r.slow_regions.len()),
        at(r.curve.len()),
        at(r.histogram.buckets.len()),
    );
    let state = r.resume.as_mut().unwrap();
    let bin = state.last_bin.as_mut().unwrap();
    let e = &mut r.failed_extents[ne];
    let s = &mut r.slow_regions[ns];
    let c = &mut r.curve[nc];
    let b = &mut r.histogram.buckets[nb];
    match field {
        Field::Interval => r.interval_ns = n,
        Field::Points => r.points = n as usize,
        Field::BlockSize => r.block_size = n,
        Field::Offset => r.offset = n,
        Field::Length => r.length = n,
        Field::Covered => r.covered = n,
        Field::Bytes => r.bytes = n,
        Field::Commands => r.commands = n,
        Field::FailedCommands => r.failed_commands = n,
        Field::Duration => r.duration_ns = n,
        Field::SlowTotal => r.slow_total = n,
        Field::FailedTotal => r.failed_total = n,
        Field::Next => state.next_offset = n,
        Field::BinIndex => bin.index = n as usize,
        Field::BinBytes => bin.bytes = n,
        Field::BinBusy => bin.busy_ns = n,
        Field::ExtentOffset => e.offset = n,
        Field::ExtentLength => e.length = n,
        Field::ExtentCount => e.count = n,
        Field::RegionOffset => s.offset = n,
        Field::RegionLength => s.length = n,
        Field::RegionCount => s.count = n,
        Field::SeriesTime => {
            let k = i.index(r.series.len());
            r.series[k].t_ns = n;
        }
        Field::CurveOffset => c.offset = n,
        Field::CurveLength => c.length = n,
        Field::BandCount => {
            let k = i.index(r.bands.len());
            r.bands[k].count = n;
        }
        Field::BucketLow => b.low_ns = n,
        Field::BucketHigh => b.high_ns = n,
        Field::BucketCount => b.count = n,
    }
}

/// Numbers that overflow sums, and numbers that fit: edges of the range, small indexes.
fn number() -> impl Strategy<Value = u64> {
    prop_oneof![
        3 => Just(u64::MAX),
        2 => Just(u64::MAX / 2 + 1),
        2 => any::<u64>(),
        1 => Just(0u64),
        1 => Just(1),
        1 => Just(SIZE),
        1 => Just(SIZE / 2 + 65536),
        1 => 0u64..32,
        1 => 0u64..(1 << 20),
    ]
}

fn resume(prior: &ScanRecord) -> Result<ScanRecord, scan::ScanError> {
    let target = Target::open_read(&format!("null:{SIZE}")).unwrap();
    let stop = AtomicBool::new(false);
    scan::run(
        &Live(&target),
        &target,
        scan::Start::Resume(prior),
        scan::Observer::new(&stop),
    )
}

#[test]
fn the_record_as_written_resumes_to_the_end() {
    let prior = interrupted();
    assert!(!prior.failed_extents.is_empty() && !prior.slow_regions.is_empty());
    // as the store hands it back
    let Document::Scan(prior) = Document::from_value(Document::from(prior).to_value()).unwrap()
    else {
        panic!("not read as a scan")
    };
    let rec = resume(&prior).unwrap();
    assert_eq!((rec.covered, rec.interrupted), (SIZE, false));
}

/// The bin the resume point falls in continues from the stored share of it, whatever it holds.
#[test]
fn a_partly_done_bin_continues_from_any_numbers() {
    let mut prior = interrupted();
    let state = prior.resume.as_mut().unwrap();
    state.next_offset = SIZE / 2 + 65536;
    state.last_bin = Some(BinState {
        index: 8,
        bytes: u64::MAX,
        commands: u64::MAX,
        busy_ns: u64::MAX,
        min_ns: 0,
        max_ns: u64::MAX,
        unpaced_bytes: u64::MAX,
        unpaced_ns: u64::MAX,
        window_min: 0.0,
        window_max: 0.0,
    });
    let rec = resume(&prior).unwrap();
    assert_eq!(rec.covered, SIZE);
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(256),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn resume_from_any_numbers_never_panics(
        changes in prop::collection::vec((prop::sample::select(FIELDS.to_vec()), any::<Index>(), number()), 1..4),
    ) {
        let mut prior = interrupted();
        for (field, i, n) in changes {
            set(&mut prior, field, i, n);
        }
        match resume(&prior) {
            Ok(rec) => {
                prop_assert_eq!(rec.covered, rec.length);
                // one point per interval of at least 1 ms, however short the stored one
                prop_assert!(rec.series.len() <= prior.series.len() + 10_000, "{} points", rec.series.len());
            }
            Err(e) => prop_assert!(!e.to_string().contains('\n'), "{}", e),
        }
    }
}
