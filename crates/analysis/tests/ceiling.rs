//! A flat ceiling in a diagnosis: reads that top out at one rate whatever their block size, queue depth and
//! position are capped on the path or in the device, named after a link only when a usual link's range holds the
//! rate; a zoned disk and a device whose rate changes with the shape are no ceiling.

use drivescope_analysis::diagnose::{assess, flat_top, media_curve};
use drivescope_record::{
    Confidence, DiagnoseRecord, Document, Experiment, Finding, FindingCode, LinkData, Outcome,
    ShapeRate, StreamData, StreamPoint, Verdict,
};

const MIB: u64 = 1 << 20;
const KIB: u64 = 1 << 10;

/// A diagnosis a real run saved on a lab disk (its identity: a loop device, no link known), with its measurements
/// replaced: a settled warm-up stream over 64 positions whose rate at `offset` is `rate(offset)`, and the link
/// experiment's shapes, as the experiment takes them (none where the top covers under 30 % of the positions).
fn diagnosis(rate: impl Fn(u64) -> f64, shapes: &[(u64, u32, f64)]) -> DiagnoseRecord {
    let text = std::fs::read_to_string(format!(
        "{}/tests/fixtures/diagnose-cold-start.json",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let Document::Diagnose(mut d) = serde_json::from_str(&text).unwrap() else {
        panic!("a diagnosis");
    };
    let region = 256 * MIB;
    let stretch = region / 64;
    let (mut t, mut points) = (0.0f64, Vec::new());
    for i in 0..64 * 6u64 {
        let offset = (i % 64) * stretch;
        let r = rate(offset);
        t += stretch as f64 / (r * 1e6);
        points.push(StreamPoint {
            t_ns: (t * 1e9) as u64,
            offset: offset + stretch / 2,
            bytes: stretch,
            mb_per_s: r,
            pass: (i / 64) as u32,
        });
    }
    d.warm_up = Some(StreamData {
        block_size: MIB,
        queue_depth: 4,
        region,
        duration_ns: (t * 1e9) as u64,
        points,
    });
    let (top, share) = flat_top(&media_curve(&d)).unwrap();
    d.link = Some(LinkData {
        top_mb_per_s: top,
        top_share: share,
        shapes: if share >= 0.3 {
            shapes
                .iter()
                .map(|&(block_size, queue_depth, mb_per_s)| ShapeRate {
                    block_size,
                    queue_depth,
                    mb_per_s,
                })
                .collect()
        } else {
            Vec::new()
        },
        read_to: 0,
    });
    d.zones = None;
    d.queueing = None;
    d.read_cache = None;
    d.write_cache = None;
    d.skipped.clear();
    *d
}

/// The link experiment's finding (if any) and outcome line.
fn link(d: &DiagnoseRecord) -> (Option<Finding>, Outcome) {
    let (found, outcomes) = assess(d);
    let o = outcomes
        .into_iter()
        .find(|o| o.experiment == Experiment::Link)
        .expect("a link outcome");
    let f: Vec<Finding> = found
        .into_iter()
        .filter(|f| f.code == FindingCode::LinkCap)
        .collect();
    assert!(f.len() <= 1, "{f:?}");
    (f.into_iter().next(), o)
}

/// A disk of `outer`–`inner` MB/s in 8 zones behind a cap of `cap` MB/s.
fn capped_disk(outer: f64, inner: f64, cap: f64) -> impl Fn(u64) -> f64 {
    move |o| {
        let zone = (o * 8 / (256 * MIB)) as f64;
        (outer - (outer - inner) * zone / 7.0).min(cap)
    }
}

/// The shapes the experiment reads, all at `rate` with a little noise.
fn shapes_at(rate: f64) -> [(u64, u32, f64); 2] {
    [(512 * KIB, 16, rate * 1.004), (256 * KIB, 32, rate * 0.997)]
}

fn near(what: &str, got: f64, want: f64, tol: f64) {
    assert!(
        (got / want - 1.0).abs() <= tol,
        "{what}: {got}, want {want} ±{tol}"
    );
}

#[test]
fn a_disk_flat_at_a_rate_no_link_delivers_is_capped_on_the_path_or_in_the_device() {
    let d = diagnosis(capped_disk(250.0, 160.0, 180.0), &shapes_at(180.0));
    let (f, o) = link(&d);
    let f = f.expect("a ceiling");
    near(
        "ceiling",
        f.number("ceiling_mb_per_s").unwrap(),
        180.0,
        0.01,
    );
    assert!(f.claim.starts_with("reads top out at 180."), "{}", f.claim);
    assert!(
        f.claim
            .contains("whatever the block size, queue depth or position"),
        "{}",
        f.claim
    );
    assert!(
        f.claim.contains("a ceiling on the path or in the device"),
        "{}",
        f.claim
    );
    assert!(
        f.claim.contains("no usual link delivers that"),
        "{}",
        f.claim
    );
    assert!(!f.claim.contains("matches"), "{}", f.claim);
    // The inner zone falls under the cap: a hard disk, whose media is never flat over most of it.
    assert!(f.claim.contains("a hard disk is not flat"), "{}", f.claim);
    assert_eq!(f.confidence, Confidence::High);
    assert!(f.number("link_low_mb_per_s").is_none());
    near("share", f.number("top_share").unwrap(), 7.0 / 8.0, 0.02);
    assert_eq!(o.verdict, Verdict::Found);
    assert_eq!(o.text, f.claim);
    assert!(!o.text.starts_with("none"), "{}", o.text);
}

#[test]
fn a_disk_flat_at_1_gbe_in_practice_is_named_after_it() {
    for cap in [110.0, 112.0, 117.5] {
        let d = diagnosis(capped_disk(180.0, 100.0, cap), &shapes_at(cap));
        let (f, o) = link(&d);
        let f = f.expect("a ceiling");
        assert!(
            f.claim.contains("matches 1 GbE (105–123 MB/s"),
            "{}",
            f.claim
        );
        assert!(!f.claim.contains("no usual link"), "{}", f.claim);
        near("ceiling", f.number("ceiling_mb_per_s").unwrap(), cap, 0.01);
        assert_eq!(f.number("link_low_mb_per_s"), Some(105.0));
        assert_eq!(f.number("link_high_mb_per_s"), Some(123.0));
        assert_eq!(f.confidence, Confidence::Medium);
        assert_eq!(o.verdict, Verdict::Found);
    }
}

#[test]
fn rates_between_the_ranges_of_usual_links_name_none() {
    // Under USB 2.0's range, between USB 2.0's and 1 GbE's, and between USB 5 Gb/s's and SATA 6 Gb/s's.
    for cap in [25.0, 95.0, 480.0] {
        let d = diagnosis(capped_disk(cap * 1.6, cap * 0.9, cap), &shapes_at(cap));
        let (f, _) = link(&d);
        let f = f.expect("a ceiling");
        assert!(!f.claim.contains("matches"), "{cap}: {}", f.claim);
        assert!(
            f.claim.contains("no usual link delivers that"),
            "{}",
            f.claim
        );
        near("ceiling", f.number("ceiling_mb_per_s").unwrap(), cap, 0.01);
    }
}

#[test]
fn flat_flash_is_a_ceiling_in_the_device_with_less_confidence() {
    // Not rotating, no fall with position: the top may be the device's own, so no hard-disk claim.
    let d = diagnosis(|_| 480.0, &shapes_at(480.0));
    let (f, _) = link(&d);
    let f = f.expect("a ceiling");
    assert_eq!(f.confidence, Confidence::Medium);
    assert!(
        f.claim.contains("a ceiling on the path or in the device"),
        "{}",
        f.claim
    );
    assert!(!f.claim.contains("hard disk"), "{}", f.claim);
}

#[test]
fn one_block_size_gives_less_confidence() {
    // Both shapes at 1 MiB: flat over queue depths alone, which a device serving one command at a time is too.
    let one = [(MIB, 16, 180.5), (MIB, 32, 179.5)];
    let (f, _) = link(&diagnosis(capped_disk(250.0, 160.0, 180.0), &one));
    let f = f.expect("a ceiling");
    assert_eq!(f.confidence, Confidence::Medium);
    assert!(
        f.claim.contains("whatever the queue depth or position"),
        "{}",
        f.claim
    );
    let (f, _) = link(&diagnosis(|_| 480.0, &[(MIB, 16, 480.0), (MIB, 32, 481.0)]));
    assert_eq!(f.expect("a ceiling").confidence, Confidence::Low);
    let one = [(MIB, 16, 110.5), (MIB, 32, 109.5)];
    let (f, _) = link(&diagnosis(capped_disk(180.0, 100.0, 110.0), &one));
    assert_eq!(f.expect("a ceiling").confidence, Confidence::Low);
}

#[test]
fn a_zoned_disk_is_no_ceiling() {
    // 200 falling to 100 MB/s: the top covers one zone of eight; no other shapes are read.
    let d = diagnosis(capped_disk(200.0, 100.0, f64::INFINITY), &shapes_at(200.0));
    let (f, o) = link(&d);
    assert!(f.is_none(), "{f:?}");
    assert_eq!(o.verdict, Verdict::NotFound);
    assert!(o.text.contains("changes with position"), "{}", o.text);
}

#[test]
fn a_top_zone_flat_over_a_third_of_a_disk_that_no_link_fits_is_the_media() {
    // Three zones of eight on top (within 5 %), then a fall: flat over the shapes there, but over too few
    // positions for a ceiling, and no usual link holds 200 MB/s.
    let rate = |o: u64| match o * 8 / (256 * MIB) {
        0..=2 => 200.0,
        z => 180.0 - 10.0 * z as f64,
    };
    let d = diagnosis(rate, &shapes_at(200.0));
    let (f, o) = link(&d);
    assert!(f.is_none(), "{f:?}");
    assert_eq!(o.verdict, Verdict::NotFound);
    assert!(o.text.contains("over only 38 % of positions"), "{}", o.text);
    assert!(o.text.contains("the media's own"), "{}", o.text);
}

#[test]
fn flash_whose_rate_changes_with_the_block_size_is_no_ceiling() {
    let d = diagnosis(|_| 500.0, &[(512 * KIB, 16, 420.0), (256 * KIB, 32, 330.0)]);
    let (f, o) = link(&d);
    assert!(f.is_none(), "{f:?}");
    assert_eq!(o.verdict, Verdict::NotFound);
    assert!(o.text.contains("changes with the shape"), "{}", o.text);
    assert!(!o.text.contains("usual link"), "{}", o.text);
}
