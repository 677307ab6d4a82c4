//! The verdicts of a group screen over scans really run by drivescope-core: small files in /dev/shm (their rate
//! curves then set to a known profile where a case compares rates, so load on the machine cannot decide it), an
//! emulated lab disk with a bad and a slow spot (a real failing device), and a write scan with its read-back.

#[path = "../../testkit/src/root.rs"]
mod root;

use drivescope_analysis::screen::{judge, shared_path, verdict};
use drivescope_core::engine::Live;
use drivescope_core::scan::{self, ScanConfig};
use drivescope_core::target::Target;
use drivescope_core::testfile::TestFile;
use drivescope_record::{
    Confidence, Criteria, Document, FindingCode, Grade, Header, History, Kind, Member, Rule,
    ScanRecord, ScreenRecord, SharedPath, TargetInfo, TargetType,
};
use drivescope_report::sample;
use root::skip_without_root;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

const MIB: u64 = 1 << 20;
/// 16 MiB in 128 bins of 128 KiB (two 64 KiB commands each): one bin is 0.78 % of the drive, so the default
/// stretch of 2 % takes three.
const SIZE: u64 = 16 * MIB;
const BINS: usize = 128;

/// A file in /dev/shm, removed when dropped.
struct ShmFile(PathBuf);

impl ShmFile {
    fn new(size: u64) -> ShmFile {
        static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let p = PathBuf::from(format!(
            "/dev/shm/drivescope-screen-test-{}-{n}",
            std::process::id()
        ));
        let f = std::fs::File::create(&p).unwrap();
        f.set_len(size).unwrap();
        ShmFile(p)
    }
}

impl Drop for ShmFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn run(target: &Target, cfg: &ScanConfig, stop: bool) -> ScanRecord {
    let stop = AtomicBool::new(stop);
    let observer = scan::Observer::new(&stop);
    scan::run(&Live(target), target, scan::Start::New(cfg), observer).expect("scan")
}

fn cfg() -> ScanConfig {
    ScanConfig {
        points: BINS,
        ..ScanConfig::default()
    }
}

/// A real read scan of a 16 MiB file, as drive `seed` (model `ACME HD400{seed % 10}`).
fn real_scan(seed: u64) -> ScanRecord {
    let f = ShmFile::new(SIZE);
    let t = Target::open_read(f.0.to_str().unwrap()).expect("O_DIRECT on /dev/shm");
    let mut s = run(&t, &cfg(), false);
    assert!(
        !s.interrupted && s.failed_total == 0,
        "a clean file scans clean"
    );
    assert_eq!(s.curve.len(), BINS);
    s.header.device = Some(sample::device(seed, SIZE));
    s
}

/// Sets the scan's rate at each bin to `rate(bin)` MB/s (and its summary to match).
fn profile(s: &mut ScanRecord, rate: impl Fn(usize) -> f64) {
    for (i, p) in s.curve.iter_mut().enumerate() {
        p.mb_per_s = rate(i);
    }
    let rates: Vec<f64> = s.curve.iter().map(|p| p.mb_per_s).collect();
    s.mb_per_s.mean = rates.len() as f64 / rates.iter().map(|r| 1.0 / r).sum::<f64>();
    s.mb_per_s.min = rates.iter().copied().fold(f64::MAX, f64::min);
    s.mb_per_s.max = rates.iter().copied().fold(0.0, f64::max);
}

/// A slow drive's zones: 0.2 MB/s outer to 0.1 MB/s inner, so that a bin of 128 KiB takes 0.65 to 1.3 s
/// (a slower stretch must last a second to count).
fn zoned(i: usize) -> f64 {
    0.2 - 0.1 * i as f64 / BINS as f64
}

/// A zoned drive whose bins `dip` read at half speed.
fn drive(seed: u64, dip: std::ops::Range<usize>) -> ScanRecord {
    let mut s = real_scan(seed);
    profile(&mut s, |i| {
        zoned(i) * if dip.contains(&i) { 0.5 } else { 1.0 }
    });
    s
}

fn member(s: ScanRecord) -> Member {
    Member {
        target: s.header.target.path.clone(),
        run: None,
        scan: Some(Box::new(s)),
        error: None,
        history: None,
        smart_before: None,
        smart_after: None,
        verdict: None,
        arrays: Vec::new(),
    }
}

fn group(members: Vec<Member>, shared: Option<SharedPath>) -> ScreenRecord {
    let size = members
        .iter()
        .filter_map(|m| m.scan.as_ref())
        .map(|s| s.header.target.size)
        .sum();
    let names: Vec<&str> = members.iter().map(|m| m.target.as_str()).collect();
    let header = Header::new(
        Kind::Screen,
        TargetInfo {
            path: names.join(", "),
            kind: TargetType::File,
            size,
            logical_block_size: 4096,
        },
        "testhost".into(),
        "2026-11-23T10:00:00Z".into(),
    );
    ScreenRecord {
        header,
        members,
        shared_path: shared,
        criteria: Criteria::default(),
        write: false,
        verify: false,
        interrupted: false,
        duration_ns: 1,
        resumed_from: None,
        checkpoint: None,
    }
}

/// The verdict of member `i` of a group judged with the default criteria.
fn judged(members: Vec<Member>, i: usize) -> drivescope_record::DriveVerdict {
    let mut g = group(members, None);
    judge(&mut g);
    g.members[i].verdict.clone().unwrap()
}

fn rules(v: &drivescope_record::DriveVerdict) -> Vec<Rule> {
    v.reasons.iter().map(|r| r.rule.clone()).collect()
}

#[test]
fn drives_alike_pass() {
    let mut g = group((1..=3).map(|_| member(drive(1, 0..0))).collect(), None);
    judge(&mut g);
    for m in &g.members {
        let v = m.verdict.as_ref().unwrap();
        assert_eq!(v.grade, Grade::Pass, "{v:?}");
        assert!(v.reasons.is_empty(), "{v:?}");
    }
    assert!(g.header.findings.is_empty());
}

#[test]
fn a_drive_slower_than_its_siblings_over_a_stretch_warns_and_says_where() {
    // Four bins (3.1 % of the drive) at half speed from bin 40.
    let slow = drive(1, 40..44);
    let v = judged(
        vec![member(slow), member(drive(1, 0..0)), member(drive(1, 0..0))],
        0,
    );
    assert_eq!(v.grade, Grade::Warn, "{v:?}");
    assert_eq!(rules(&v), vec![Rule::BelowSiblings]);
    let t = &v.reasons[0].text;
    let (from, to) = (40 * SIZE / BINS as u64, 44 * SIZE / BINS as u64);
    let median = (40..44).map(zoned).sum::<f64>() / 4.0;
    assert!(
        t.starts_with(&format!(
            "from offset {from} to {to} (31.2-34.4 % of the drive) it read {:.1} MB/s against {median:.1} MB/s \
             on its 2 siblings of the same model (ACME HD4001), 50 % below",
            median / 2.0
        )),
        "{t}"
    );
    // The siblings are fine: each has the slow drive and the other sibling, whose median is not below.
    let mut g = group(
        vec![
            member(drive(1, 40..44)),
            member(drive(1, 0..0)),
            member(drive(1, 0..0)),
        ],
        None,
    );
    judge(&mut g);
    assert_eq!(g.members[1].verdict.as_ref().unwrap().grade, Grade::Pass);
}

#[test]
fn a_stretch_shorter_than_the_criterion_does_not_warn() {
    // Two bins: 1.6 % of the drive, under the 2 % the criteria ask for; two separate dips of two bins each are
    // two stretches, not one.
    let v = judged(vec![member(drive(1, 40..42)), member(drive(1, 0..0))], 0);
    assert_eq!(v.grade, Grade::Pass, "{v:?}");
    let mut s = real_scan(1);
    profile(&mut s, |i| {
        zoned(i)
            * if [40, 41, 43, 44].contains(&i) {
                0.5
            } else {
                1.0
            }
    });
    let v = judged(vec![member(s), member(drive(1, 0..0))], 0);
    assert_eq!(v.grade, Grade::Pass, "{v:?}");
    // Four bins at half speed, but at a thousand times the rate: over in 13 ms, a stall of the host.
    let mut fast = real_scan(1);
    profile(&mut fast, |i| {
        1e3 * zoned(i) * if (40..44).contains(&i) { 0.5 } else { 1.0 }
    });
    let mut fast_sibling = real_scan(1);
    profile(&mut fast_sibling, |i| 1e3 * zoned(i));
    let v = judged(vec![member(fast), member(fast_sibling)], 0);
    assert_eq!(v.grade, Grade::Pass, "{v:?}");
    // A dip of 25 % is within the 30 % allowed, however long.
    let mut s = real_scan(1);
    profile(&mut s, |i| zoned(i) * if i < 64 { 0.75 } else { 1.0 });
    let v = judged(vec![member(s), member(drive(1, 0..0))], 0);
    assert_eq!(v.grade, Grade::Pass, "{v:?}");
}

#[test]
fn siblings_of_another_model_or_unfinished_are_not_compared() {
    // Model ACME HD4002 against two HD4001s: no sibling of its model, nothing to compare.
    let v = judged(
        vec![
            member(drive(2, 40..44)),
            member(drive(1, 0..0)),
            member(drive(1, 0..0)),
        ],
        0,
    );
    assert_eq!(v.grade, Grade::Pass, "{v:?}");
    // A sibling whose identity names no model is compared.
    let mut other = drive(1, 0..0);
    other.header.device = None;
    let v = judged(vec![member(drive(2, 40..44)), member(other)], 0);
    assert_eq!(rules(&v), vec![Rule::BelowSiblings], "{v:?}");
    // A sibling whose scan was interrupted is no yardstick.
    let mut cut = drive(1, 0..0);
    cut.interrupted = true;
    let v = judged(vec![member(drive(1, 40..44)), member(cut)], 0);
    assert!(!rules(&v).contains(&Rule::BelowSiblings), "{v:?}");
}

#[test]
fn siblings_of_another_size_are_compared_at_the_same_fraction_of_the_drive() {
    // A 32 MiB sibling in 128 bins of 256 KiB: the same zones by fraction of the drive.
    let f = ShmFile::new(2 * SIZE);
    let t = Target::open_read(f.0.to_str().unwrap()).unwrap();
    let mut big = run(&t, &cfg(), false);
    big.header.device = Some(sample::device(1, 2 * SIZE));
    profile(&mut big, zoned);
    let v = judged(vec![member(drive(1, 0..0)), member(big.clone())], 0);
    assert_eq!(v.grade, Grade::Pass, "{v:?}");
    let v = judged(vec![member(drive(1, 100..104)), member(big)], 0);
    assert_eq!(rules(&v), vec![Rule::BelowSiblings], "{v:?}");
    assert!(
        v.reasons[0].text.contains("(78.1-81.2 % of the drive)"),
        "{v:?}"
    );
}

#[test]
fn a_real_bad_spot_fails_and_a_slow_spot_warns() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
    // An emulated disk (FUSE + loop) of 8 MiB at 400 MB/s with a bad 4 KiB at 4 MiB and 1 MiB at 1 MiB whose
    // commands take 80 ms more: sixteen 64 KiB commands over the 50 ms slow threshold.
    let model = drivescope_lab::Model::from_toml_str(
        r#"
name = "screen-test"
size = "8M"
zones = { rates_mb_s = [400] }
bad = [{ offset = "4M", length = "4K" }]
slow = [{ offset = "1M", length = "1M", latency = "80ms" }]
"#,
        "test",
    )
    .unwrap();
    drivescope_lab::check_environment(true)
        .unwrap_or_else(|e| panic!("needs root, /dev/fuse and losetup: {e}"));
    let dev = drivescope_lab::LabDevice::start_temp(&model, true).expect("lab disk");
    let path = dev.loop_device().unwrap().to_str().unwrap().to_string();
    let t = Target::open_read(&path).unwrap();
    let s = run(&t, &ScanConfig::default(), false);
    drop(t);
    dev.stop().unwrap();
    assert_eq!(s.failed_sectors(), 8, "4 KiB of 512-byte sectors");
    // The report's table counts them as the rule does.
    assert_eq!(drivescope_report::screen::failed_sectors(&s), 8);
    assert!(s.slow_total >= 16, "{}", s.slow_total);

    let c = Criteria {
        max_latency_ns: 60_000_000,
        ..Criteria::default()
    };
    let v = verdict(&member(s.clone()), &[], &c);
    assert_eq!(v.grade, Grade::Fail, "{v:?}");
    assert_eq!(
        rules(&v),
        vec![Rule::FailedSectors, Rule::SlowCommands, Rule::MaxLatency]
    );
    assert_eq!(
        v.reasons[0].text,
        "8 unreadable sectors, the first at offset 4194304 (LBA 8192): more than the 0 allowed"
    );
    assert!(
        v.reasons[1].text.starts_with(&format!(
            "{} commands took 50.00 ms or longer, the first at offset ",
            s.slow_total
        )),
        "{}",
        v.reasons[1].text
    );
    let slowest = s.latency.max_ns;
    assert!(slowest >= 80_000_000, "{slowest}");
    assert!(
        v.reasons[2].text.contains(&format!(
            " commands took 60.00 ms or longer, the slowest {}",
            drivescope_units::format_ns(slowest)
        )),
        "{}",
        v.reasons[2].text
    );
    // Allowing the sectors and the slow commands leaves the latency limit: a warning.
    let lenient = Criteria {
        max_failed_sectors: 8,
        max_slow_commands: 1000,
        ..c
    };
    let v = verdict(&member(s), &[], &lenient);
    assert_eq!((v.grade, rules(&v)), (Grade::Warn, vec![Rule::MaxLatency]));
}

#[test]
fn an_interrupted_scan_is_incomplete_and_a_failure_found_so_far_still_fails() {
    let f = ShmFile::new(SIZE);
    let t = Target::open_read(f.0.to_str().unwrap()).unwrap();
    let s = run(&t, &cfg(), true);
    assert!(s.interrupted && s.device_lost.is_none());
    let v = verdict(&member(s.clone()), &[], &Criteria::default());
    assert_eq!(v.grade, Grade::Incomplete, "{v:?}");
    assert_eq!(rules(&v), vec![Rule::Incomplete]);
    assert!(
        v.reasons[0].text.starts_with(&format!(
            "the scan stopped after {} of 16.0 MiB (",
            drivescope_units::format_size(s.covered)
        )),
        "{v:?}"
    );
    // Slow commands found so far warn, but the verdict is incomplete, and says so first.
    let mut slow = s.clone();
    slow.slow_total = 11;
    let v = verdict(&member(slow), &[], &Criteria::default());
    assert_eq!(v.grade, Grade::Incomplete);
    assert_eq!(rules(&v), vec![Rule::Incomplete, Rule::SlowCommands]);
    let mut bad = s;
    bad.failed_total = 1;
    bad.failed_extents = vec![sample::failed_extent(8, 1)];
    let v = verdict(&member(bad), &[], &Criteria::default());
    assert_eq!(v.grade, Grade::Fail);
    assert_eq!(rules(&v), vec![Rule::FailedSectors, Rule::Incomplete]);
}

#[test]
fn a_lost_drive_fails_and_says_where() {
    let mut s = real_scan(1);
    s.interrupted = true;
    s.covered = SIZE / 4;
    s.device_lost = Some("the device reported ENODEV".into());
    let v = verdict(&member(s), &[], &Criteria::default());
    assert_eq!((v.grade, rules(&v)), (Grade::Fail, vec![Rule::DeviceLost]));
    assert_eq!(
        v.reasons[0].text,
        "the drive went away after 4.0 MiB of 16.0 MiB (25.0 %): the device reported ENODEV"
    );
    // A drive that could not be scanned at all.
    let none = Member {
        target: "/dev/sdq".into(),
        run: None,
        scan: None,
        error: Some("permission denied".into()),
        history: None,
        smart_before: None,
        smart_after: None,
        verdict: None,
        arrays: Vec::new(),
    };
    let v = verdict(&none, &[], &Criteria::default());
    assert_eq!((v.grade, rules(&v)), (Grade::Fail, vec![Rule::Error]));
}

#[test]
fn a_drive_slower_than_the_history_of_its_model_warns() {
    let mut m = member(drive(1, 0..0));
    let mean = m.scan.as_ref().unwrap().mb_per_s.mean;
    let history = |rates: &[f64]| History {
        model: "ACME HD4001".into(),
        runs: (1..=rates.len() as i64).collect(),
        mean_mb_per_s: rates.to_vec(),
    };
    // Median of the earlier scans 1.3 × this one: 23 % below, over the 20 % allowed.
    m.history = Some(history(&[mean * 1.2, mean * 1.3, mean * 1.4]));
    let v = verdict(&m, &[], &Criteria::default());
    assert_eq!(
        (v.grade, rules(&v)),
        (Grade::Warn, vec![Rule::BelowHistory])
    );
    assert_eq!(
        v.reasons[0].text,
        format!(
            "its mean rate {mean:.1} MB/s is 23 % below the median {:.1} MB/s of 3 earlier scans of ACME HD4001 \
             (the limit is 20 % below)",
            mean * 1.3
        )
    );
    // 1.2 ×: 17 % below, within the limit; no history, nothing to compare.
    m.history = Some(history(&[mean * 1.2]));
    assert_eq!(verdict(&m, &[], &Criteria::default()).grade, Grade::Pass);
    m.history = Some(history(&[]));
    assert_eq!(verdict(&m, &[], &Criteria::default()).grade, Grade::Pass);
}

#[test]
fn a_write_scan_with_read_back_errors_fails() {
    let file = TestFile::create(std::path::Path::new("/dev/shm"), 4 * MIB).unwrap();
    let t = Target::open_test_file(&file, false).expect("O_DIRECT on /dev/shm");
    let cfg = ScanConfig {
        write: true,
        verify: Some(7),
        ..ScanConfig::default()
    };
    let mut s = run(&t, &cfg, false);
    let v = s.verify.clone().expect("a read-back");
    assert!(
        v.complete && v.totals.wrong == 0 && v.totals.ok > 0,
        "{v:?}"
    );
    assert_eq!(
        verdict(&member(s.clone()), &[], &Criteria::default()).grade,
        Grade::Pass
    );
    // Two sectors come back with the wrong data, one could not be written.
    let report = s.verify.as_mut().unwrap();
    report.totals.wrong = 2;
    report.wrong = vec![drivescope_record::Extent {
        offset: 8192,
        lba: 2,
        length: 8192,
        holds_offset: None,
    }];
    s.failed_total = 1;
    s.failed_extents = vec![drivescope_record::FailedExtent {
        offset: 65536,
        length: 4096,
        first_lba: 16,
        last_lba: 16,
        errno: 5,
        count: 1,
        ..Default::default()
    }];
    let v = verdict(&member(s), &[], &Criteria::default());
    assert_eq!(v.grade, Grade::Fail);
    assert_eq!(rules(&v), vec![Rule::FailedSectors, Rule::VerifyErrors]);
    assert_eq!(
        v.reasons[0].text,
        "1 unwritable sector, the first at offset 65536 (LBA 16): more than the 0 allowed"
    );
    assert_eq!(
        v.reasons[1].text,
        "the read-back found 2 sectors wrong, 0 misplaced and 0 lost, the first at offset 8192 (LBA 2): more \
         than the 0 allowed"
    );
}

fn shared(alone: &[f64], together: &[f64]) -> SharedPath {
    SharedPath {
        block_size: MIB,
        queue_depth: 8,
        duration_ns: 3_000_000_000,
        alone_mb_per_s: alone.to_vec(),
        together_mb_per_s: together.to_vec(),
        parent: None,
    }
}

#[test]
fn drives_capped_together_share_a_path() {
    // Three SSDs of ~600 MB/s behind one link of ~1.1 GB/s.
    let mut sp = shared(&[610.0, 590.0, 600.0], &[370.0, 365.0, 375.0]);
    sp.parent = Some("0000:00:17.0".into());
    let f = shared_path(&sp, 3).expect("a shared path");
    assert_eq!(f.code, FindingCode::SharedPath);
    assert_eq!(
        f.claim,
        "3 drives together 1.1 GB/s, 62 % of the 1.8 GB/s alone: a shared path caps them at ~1.1 GB/s; they \
         meet at 0000:00:17.0"
    );
    assert_eq!(f.number("ceiling_mb_per_s"), Some(1110.0));
    assert_eq!(f.number("alone_mb_per_s"), Some(1800.0));
    assert!((f.number("ratio").unwrap() - 1110.0 / 1800.0).abs() < 1e-12);
    assert_eq!(f.confidence, Confidence::Medium);
    // Half: high; 75 %: low.
    let half = shared_path(&shared(&[200.0, 200.0], &[100.0, 100.0]), 2).unwrap();
    assert_eq!(half.confidence, Confidence::High);
    let near = shared_path(&shared(&[200.0, 200.0], &[150.0, 150.0]), 2).unwrap();
    assert_eq!(near.confidence, Confidence::Low);
    // A drive that could not be read is left out of both sums.
    let f = shared_path(&shared(&[200.0, 200.0, 0.0], &[100.0, 100.0, 0.0]), 3).unwrap();
    assert!(
        f.claim
            .starts_with("2 of the 3 drives together 200 MB/s, 50 % of the 400 MB/s alone"),
        "{}",
        f.claim
    );
}

#[test]
fn independent_drives_share_nothing() {
    assert!(shared_path(&shared(&[610.0, 590.0], &[600.0, 570.0]), 2).is_none());
    assert!(shared_path(&shared(&[200.0, 200.0], &[161.0, 161.0]), 2).is_none());
    // One drive that reads is no group.
    assert!(shared_path(&shared(&[600.0, 0.0], &[300.0, 0.0]), 2).is_none());
}

#[test]
fn judging_a_group_fills_the_verdicts_and_the_shared_path_finding() {
    let sp = shared(&[200.0, 200.0], &[100.0, 100.0]);
    let mut g = group(
        vec![member(drive(1, 10..20)), member(drive(1, 0..0))],
        Some(sp),
    );
    judge(&mut g);
    let grades: Vec<Grade> = g
        .members
        .iter()
        .map(|m| m.verdict.as_ref().unwrap().grade)
        .collect();
    assert_eq!(grades, vec![Grade::Warn, Grade::Pass]);
    assert_eq!(g.header.findings.len(), 1);
    assert_eq!(g.header.findings[0].code, FindingCode::SharedPath);
    // `annotate` gives the same findings from the document.
    let doc = Document::from(g.clone());
    assert_eq!(drivescope_analysis::findings(&doc), g.header.findings);
    // The verdicts survive the document's round trip.
    let back = Document::from_value(doc.to_value()).unwrap();
    let Document::Screen(back) = back else {
        panic!("a screen")
    };
    assert_eq!(back.members[0].verdict, g.members[0].verdict);
}

#[test]
fn the_report_sample_words_its_verdicts_as_the_rules_do() {
    // The report's sample screen writes its verdicts and finding by hand: the rules give the same.
    let sample = sample::screen(1, 4);
    let mut g = sample.clone();
    judge(&mut g);
    for (a, b) in g.members.iter().zip(&sample.members) {
        assert_eq!(a.verdict, b.verdict, "{}", a.target);
    }
    let claims = |r: &ScreenRecord| -> Vec<String> {
        r.header.findings.iter().map(|f| f.claim.clone()).collect()
    };
    assert_eq!(claims(&g), claims(&sample));
}
