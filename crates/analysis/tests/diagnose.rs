//! The diagnosis rules over measurements built from the record types: each behaviour found with its numbers,
//! its absence said, and an unsettled question called inconclusive.

use drivescope_analysis::diagnose::{flat_top, stream, working_set, write};
use drivescope_record::{
    Confidence, FindingCode, PositionRate, StreamData, StreamPoint, Verdict, WorkingSetData,
    WorkingSetPoint, WriteData,
};

const MIB: u64 = 1 << 20;

/// A sequential stream over `region` in 64 stretches, pass after pass, for `secs`, where the rate at time `t`
/// and position `offset` is `rate(t, offset)` MB/s.
fn stream_of(region: u64, secs: f64, rate: impl Fn(f64, u64) -> f64) -> StreamData {
    let stretch = region / 64;
    let (mut t, mut points, mut i) = (0.0f64, Vec::new(), 0u64);
    while t < secs {
        let offset = (i % 64) * stretch;
        let r = rate(t, offset);
        t += stretch as f64 / (r * 1e6);
        points.push(StreamPoint {
            t_ns: (t * 1e9) as u64,
            offset: offset + stretch / 2,
            bytes: stretch,
            mb_per_s: r,
            pass: (i / 64) as u32,
        });
        i += 1;
    }
    StreamData {
        block_size: MIB,
        queue_depth: 4,
        region,
        duration_ns: (t * 1e9) as u64,
        points,
    }
}

/// A hard disk's zones: 200 MB/s outer to 100 MB/s inner over 256 MiB.
fn zoned(offset: u64) -> f64 {
    200.0 - 100.0 * offset as f64 / (256 * MIB) as f64
}

#[test]
fn a_slow_start_is_a_warm_up_with_its_length_and_factor() {
    let s = stream_of(256 * MIB, 30.0, |t, o| {
        zoned(o) * if t < 12.0 { 0.5 } else { 1.0 }
    });
    let curve = stream::curve(&s);
    assert_eq!(curve.len(), 64);
    let (f, o) = stream::warm_up(&s, &curve);
    let f = f.expect("a warm-up");
    assert_eq!(f.code, FindingCode::WarmUp);
    assert_eq!(f.confidence, Confidence::High);
    assert_eq!(o.verdict, Verdict::Found);
    let secs = f.number("warm_up_s").unwrap();
    assert!((11.0..=13.0).contains(&secs), "{secs}");
    let factor = f.number("factor").unwrap();
    assert!((0.45..=0.55).contains(&factor), "{factor}");
}

#[test]
fn zones_alone_are_no_warm_up_and_give_the_curve() {
    let s = stream_of(256 * MIB, 30.0, |_, o| zoned(o));
    let curve = stream::curve(&s);
    let (f, o) = stream::warm_up(&s, &curve);
    assert!(f.is_none(), "{f:?}");
    assert_eq!(o.verdict, Verdict::NotFound);
    // The curve is the zones: outer ~200, inner ~100, and the media rate of a stretch is their harmonic mean.
    assert!((curve[0].mb_per_s - 199.2).abs() < 1.0, "{:?}", curve[0]);
    assert!((curve[63].mb_per_s - 100.8).abs() < 1.0, "{:?}", curve[63]);
    let half = stream::media_rate(&curve, 128 * MIB).unwrap();
    assert!((half - 173.3).abs() < 2.0, "{half}");
}

#[test]
fn a_warm_up_still_going_when_the_window_ends_is_inconclusive() {
    let s = stream_of(256 * MIB, 30.0, |t, o| {
        zoned(o) * if t < 25.0 { 0.5 } else { 1.0 }
    });
    let curve = stream::curve(&s);
    let (f, o) = stream::warm_up(&s, &curve);
    assert_eq!(f.expect("said").confidence, Confidence::Inconclusive);
    assert_eq!(o.verdict, Verdict::Inconclusive);
}

#[test]
fn a_region_faster_the_second_time_is_a_cache_not_a_warm_up() {
    // 64 MiB at 100 MB/s the first time, from a cache at 1000 MB/s after.
    let s = stream_of(64 * MIB, 10.0, |t, _| if t < 0.64 { 100.0 } else { 1000.0 });
    let curve = stream::curve(&s);
    let (f, o) = stream::warm_up(&s, &curve);
    assert!(f.is_none(), "{f:?}");
    assert_ne!(o.verdict, Verdict::Found, "{o:?}");
}

fn ws(size_mib: u64, again: f64) -> WorkingSetPoint {
    WorkingSetPoint {
        size: size_mib * MIB,
        first_mb_per_s: 88.0,
        again_mb_per_s: again,
        media_mb_per_s: Some(88.0),
    }
}

fn ws_data(points: Vec<WorkingSetPoint>) -> WorkingSetData {
    WorkingSetData {
        block_size: MIB,
        queue_depth: 4,
        limit: 256 * MIB,
        start: 0,
        points,
    }
}

#[test]
fn a_step_in_the_working_set_curve_is_a_read_cache_of_that_size() {
    let d = ws_data(vec![
        ws(8, 1190.0),
        ws(16, 1195.0),
        ws(32, 1200.0),
        ws(64, 1189.0),
        ws(128, 86.0),
        ws(90, 87.0),
        ws(76, 86.5),
    ]);
    let (f, o) = working_set::assess(&d);
    let f = f.expect("a cache");
    assert_eq!(f.code, FindingCode::ReadCache);
    assert_eq!(f.confidence, Confidence::High);
    assert_eq!(o.verdict, Verdict::Found);
    let size = f.number("cache_bytes").unwrap() / MIB as f64;
    assert!((69.0..=70.5).contains(&size), "{size}");
    assert_eq!(f.number("cache_mb_per_s").unwrap(), 1195.0);
    assert_eq!(f.number("media_mb_per_s").unwrap(), 86.5);
    assert_eq!(f.number("upper_bytes").unwrap(), (76 * MIB) as f64);
}

#[test]
fn no_step_is_no_cache_and_a_cut_short_one_is_inconclusive() {
    let (f, o) = working_set::assess(&ws_data(vec![ws(8, 90.0)]));
    assert!(f.is_none());
    assert_eq!(o.verdict, Verdict::NotFound);
    let (f, o) = working_set::assess(&ws_data(vec![ws(8, 1190.0), ws(16, 1195.0)]));
    assert_eq!(f.expect("said").confidence, Confidence::Inconclusive);
    assert_eq!(o.verdict, Verdict::Inconclusive);
    let (f, _) = working_set::assess(&ws_data(vec![ws(128, 1190.0), ws(256, 1195.0)]));
    assert_eq!(
        f.expect("said").confidence,
        Confidence::Low,
        "cached up to the whole region"
    );
}

/// The whole region re-read fast while the first reads, half of each set read before, run at under twice the media
/// rate: a cache of at least the region. The same re-reads where a first read ran at 4.9× the media rate measured
/// before (a throttle that cooled since the stream measured 107 MB/s of a 290 MB/s disk) say nothing of a cache;
/// the rule said "a read cache of at least 256 MiB" there.
#[test]
fn a_media_rate_that_changed_since_it_was_measured_is_no_cache_of_the_whole_region() {
    let doubling = |first: &[f64]| {
        let sizes = [8u64, 16, 32, 64, 128, 256];
        ws_data(
            sizes
                .iter()
                .zip(first)
                .map(|(&s, &f)| WorkingSetPoint {
                    size: s * MIB,
                    first_mb_per_s: f,
                    again_mb_per_s: 2000.0,
                    media_mb_per_s: Some(107.0),
                })
                .collect(),
        )
    };
    let cached = doubling(&[107.0, 200.0, 200.0, 200.0, 200.0, 200.0]);
    let (f, o) = working_set::assess(&cached);
    assert_eq!(f.expect("a cache").confidence, Confidence::Low);
    assert_eq!(o.verdict, Verdict::Found);
    let changed = doubling(&[107.0, 528.8, 290.0, 290.0, 290.0, 290.0]);
    let (f, o) = working_set::assess(&changed);
    let f = f.expect("said");
    assert_eq!(f.confidence, Confidence::Inconclusive, "{}", f.claim);
    assert_eq!(o.verdict, Verdict::Inconclusive);
    assert!(f.claim.contains("the media's rate changed"), "{}", f.claim);
    assert!(f.number("lower_bytes").is_none());
}

/// A sustained write over 256 MiB, wrapping, where the rate at `written` bytes and position `offset` is given.
fn write_of(secs: f64, rate: impl Fn(u64, u64) -> f64) -> WriteData {
    let region = 256 * MIB;
    let stretch = MIB;
    let (mut t, mut written, mut points) = (0.0f64, 0u64, Vec::new());
    while t < secs {
        let offset = written % region;
        let r = rate(written, offset);
        t += stretch as f64 / (r * 1e6);
        written += stretch;
        points.push(StreamPoint {
            t_ns: (t * 1e9) as u64,
            offset,
            bytes: stretch,
            mb_per_s: r,
            pass: (written / region) as u32,
        });
    }
    WriteData {
        block_size: MIB,
        queue_depth: 4,
        region,
        written,
        duration_ns: (t * 1e9) as u64,
        points,
    }
}

fn zoned_curve() -> Vec<PositionRate> {
    (0..64)
        .map(|i| PositionRate {
            offset: i * 4 * MIB,
            length: 4 * MIB,
            mb_per_s: zoned(i * 4 * MIB + 2 * MIB),
        })
        .collect()
}

#[test]
fn a_write_that_steps_down_is_a_burst_then_the_sustained_rate() {
    // 1500 MB/s into a cache that takes 68 MiB, then the zones' rate.
    let d = write_of(5.0, |w, o| if w < 68 * MIB { 1500.0 } else { zoned(o) });
    let s = write::step(&d, &zoned_curve()).expect("a step");
    assert!((s.burst_mb_per_s / 1500.0 - 1.0).abs() < 0.05, "{s:?}");
    assert!(
        (s.written_before as f64 / (68 * MIB) as f64 - 1.0).abs() < 0.05,
        "{s:?}"
    );
    assert!(write::settled(&s));
    let (f, o) = write::assess(&d, &zoned_curve());
    assert_eq!(f.expect("a finding").code, FindingCode::WriteBurst);
    assert_eq!(o.verdict, Verdict::Found);
}

#[test]
fn zones_in_a_write_are_no_step() {
    // A plain disk written over its zones, pass after pass: the rate falls and rises with position only.
    let d = write_of(8.0, |_, o| zoned(o));
    assert_eq!(write::step(&d, &zoned_curve()), None);
    let (f, o) = write::assess(&d, &zoned_curve());
    assert!(f.is_none());
    assert_eq!(o.verdict, Verdict::NotFound);
}

#[test]
fn a_flat_top_is_flat_and_zones_are_not() {
    let flat: Vec<PositionRate> = (0..64)
        .map(|i| PositionRate {
            offset: i * MIB,
            length: MIB,
            // A link cap with measurement noise, and the inner zone a little under it.
            mb_per_s: if i < 56 {
                118.0 + (i % 3) as f64 - 1.0
            } else {
                110.0
            },
        })
        .collect();
    let (top, share) = flat_top(&flat).unwrap();
    assert!((top - 118.0).abs() <= 1.0, "{top}");
    assert!(share >= 0.8, "{share}");
    let (_, share) = flat_top(&zoned_curve()).unwrap();
    assert!(share < 0.3, "{share}");
}

/// Diagnoses saved by real runs on lab presets, read back as documents: the rules find what the models have.
fn saved(name: &str) -> drivescope_record::Document {
    let text = std::fs::read_to_string(format!(
        "{}/tests/fixtures/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    serde_json::from_str(&text).unwrap()
}

fn codes_of(doc: &drivescope_record::Document) -> Vec<FindingCode> {
    drivescope_analysis::findings(doc)
        .into_iter()
        .map(|f| f.code)
        .collect()
}

#[test]
fn a_saved_cold_start_diagnosis_shows_its_20_s_warm_up() {
    let doc = saved("diagnose-cold-start.json");
    let f = drivescope_analysis::findings(&doc);
    let w = f
        .iter()
        .find(|f| f.code == FindingCode::WarmUp)
        .expect("the warm-up");
    assert_eq!(w.confidence, Confidence::High, "{}", w.claim);
    let secs = w.number("warm_up_s").unwrap();
    assert!((19.0..=21.5).contains(&secs), "{secs}");
    let factor = w.number("factor").unwrap();
    assert!((0.45..=0.55).contains(&factor), "{factor}");
    assert_eq!(codes_of(&doc), [FindingCode::WarmUp, FindingCode::Zones]);
}

#[test]
fn a_saved_raid_cache_diagnosis_shows_both_caches_and_the_zones() {
    let doc = saved("diagnose-raid-cache.json");
    assert_eq!(
        codes_of(&doc),
        [
            FindingCode::Zones,
            FindingCode::ReadCache,
            FindingCode::WriteBurst
        ]
    );
}

#[test]
fn dips_after_a_warm_up_do_not_move_its_end() {
    // Host stalls after the step: a second at 0.8× twice.
    let s = stream_of(256 * MIB, 36.0, |t, o| {
        let dip = (16.0..17.0).contains(&t) || (22.0..23.0).contains(&t);
        zoned(o)
            * if t < 12.0 {
                0.5
            } else if dip {
                0.8
            } else {
                1.0
            }
    });
    let curve = stream::curve(&s);
    let (f, _) = stream::warm_up(&s, &curve);
    let f = f.expect("a warm-up");
    assert_eq!(f.confidence, Confidence::High, "{}", f.claim);
    let secs = f.number("warm_up_s").unwrap();
    assert!((11.0..=13.0).contains(&secs), "{secs}");
}
