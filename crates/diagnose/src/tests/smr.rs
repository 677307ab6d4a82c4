//! Drive-managed SMR: random writes fill a media cache, then band cleaning stalls the drive; idle time drains it.
//! Each case has a twin that must stay silent: the same disk without the media cache (CMR), and one whose
//! random writes fall behind a write-back cache without stalls.
//!
//! The device here is a hard disk as [`super::model::hdd`] describes it (200 falling to 100 MB/s, an 8 ms access
//! unless a command continues the last one, one command at a time), with its writes taken as `Writes` says:
//! - `Smr`: a write that continues no stream goes into a media cache of `cache` bytes at `rate` MB/s with no
//!   access; once full, each write waits `stall_ns` per `band` bytes the drive must clean first; after
//!   `idle_after_ns` with no command the drive drains the cache at `drain` MB/s.
//! - `WriteBack`: a write that continues no stream goes into a write-back cache of `cache` bytes at `rate` MB/s that drains at `drain`
//!   MB/s all the time; a write that does not fit waits for room.

use super::model::{Seen, GIB, MIB};
use super::support::{near, writing, Diagnosed};
use crate::{diagnose_on, DiagnoseOptions, DiagnoseRun};
use drivescope_core::engine::scripted::{Call, Reply, Scripted};
use drivescope_core::target::Target;
use drivescope_probe::{BlockInfo, BlockRole, Hardware, Identity, Transport};
use drivescope_record::{Confidence, Document, Experiment, FindingCode, Header, Kind, Verdict};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

#[derive(Clone, Copy)]
enum Writes {
    Plain,
    Smr {
        cache: u64,
        rate: f64,
        band: u64,
        stall_ns: u64,
        idle_after_ns: u64,
        drain: f64,
    },
    WriteBack {
        cache: u64,
        rate: f64,
        drain: f64,
    },
}

/// The SMR disk of these tests: a 256 MiB media cache at 200 MB/s, 500 ms per 2 MiB band cleaned, drained at
/// 200 MB/s after 1 s idle.
fn smr() -> Writes {
    Writes::Smr {
        cache: 256 * MIB,
        rate: 200.0,
        band: 2 * MIB,
        stall_ns: 500_000_000,
        idle_after_ns: 1_000_000_000,
        drain: 200.0,
    }
}

struct Disk {
    writes: Writes,
    /// The media rate at the inner edge (200 at the outer edge).
    inner: f64,
    free: u64,
    last_end: Option<u64>,
    /// Bytes in the cache (media or write-back) at `at`.
    used: f64,
    at: u64,
    last_done: u64,
    seen: Arc<Seen>,
}

fn ns(len: u64, mb_per_s: f64) -> u64 {
    (len as f64 * 1e3 / mb_per_s).round() as u64
}

impl Disk {
    fn media(&mut self, offset: u64, len: u64, start: u64) -> u64 {
        let sequential = self.last_end == Some(offset);
        self.last_end = Some(offset + len);
        let rate = 200.0 - (200.0 - self.inner) * offset as f64 / GIB as f64;
        start + if sequential { 0 } else { 8_000_000 } + ns(len, rate)
    }

    fn answer(&mut self, c: &Call) -> Reply {
        let t = c.device_ns;
        let counter = if c.write {
            &self.seen.writes
        } else {
            &self.seen.reads
        };
        counter.fetch_add(1, Ordering::Relaxed);
        let len = c.len as u64;
        let start = t.max(self.free);
        let done = match self.writes {
            Writes::Smr {
                cache,
                rate,
                band,
                stall_ns,
                idle_after_ns,
                drain,
            } => {
                let from = (self.last_done + idle_after_ns).max(self.at);
                if start > from {
                    self.used = (self.used - (start - from) as f64 * drain * 1e-3).max(0.0);
                    self.at = start;
                }
                if c.write && self.last_end != Some(c.offset) {
                    self.last_end = Some(c.offset + len);
                    let mut stall = 0;
                    while self.used + len as f64 > cache as f64 {
                        self.used = (self.used - band as f64).max(0.0);
                        stall += stall_ns;
                    }
                    self.used += len as f64;
                    start + stall + ns(len, rate)
                } else {
                    self.media(c.offset, len, start)
                }
            }
            Writes::WriteBack { cache, rate, drain }
                if c.write && self.last_end != Some(c.offset) =>
            {
                self.last_end = Some(c.offset + len);
                self.used =
                    (self.used - start.saturating_sub(self.at) as f64 * drain * 1e-3).max(0.0);
                let over = self.used + len as f64 - cache as f64;
                let wait = if over > 0.0 {
                    ns(over as u64, drain)
                } else {
                    0
                };
                self.used = (self.used - wait as f64 * drain * 1e-3).max(0.0) + len as f64;
                self.at = start + wait;
                start + wait + ns(len, rate)
            }
            _ => self.media(c.offset, len, start),
        };
        self.free = done;
        self.last_done = done;
        Reply::ok(done - t)
    }
}

/// Diagnose a 1 GiB disk whose writes go as `writes` says, the target described by `device`.
fn diagnose(writes: Writes, o: &DiagnoseOptions, device: Option<Identity>) -> Diagnosed {
    diagnose_flat(writes, o, device, 100.0)
}

/// The same with the media rate falling to `inner` MB/s at the inner edge (200: flat).
fn diagnose_flat(
    writes: Writes,
    o: &DiagnoseOptions,
    device: Option<Identity>,
    inner: f64,
) -> Diagnosed {
    let seen = Arc::new(Seen::default());
    let mut disk = Disk {
        writes,
        inner,
        free: 0,
        last_end: None,
        used: 0.0,
        at: 0,
        last_done: 0,
        seen: seen.clone(),
    };
    let dev = Scripted::new(move |c: &Call| disk.answer(c)).unlogged();
    let target = Target::open_read(&format!("null:{GIB}")).unwrap();
    let mut header = Header::new(
        Kind::Diagnose,
        target.info(),
        "host".into(),
        "2026-11-25T00:00:00Z".into(),
    );
    header.device = device;
    let mut said = Vec::new();
    let rec = diagnose_on(
        &dev,
        &target,
        header,
        o,
        DiagnoseRun::default(),
        &AtomicBool::new(false),
        &mut |e, _| said.push(e),
    );
    Diagnosed {
        rec,
        seen,
        said,
        device_ns: dev.device_ns(),
    }
}

/// A SATA disk as the probe describes it: `model`, spinning or not, taking TRIM or not, zoned as `zoned` says.
fn identity(model: &str, rotational: bool, discard: bool, zoned: &str) -> Identity {
    let mut b = BlockInfo::new("sdb", "/dev/sdb".into(), BlockRole::Disk, Transport::Sata);
    b.rotational = Some(rotational);
    b.discard_max_bytes = Some(if discard { 2 << 30 } else { 0 });
    b.zoned = Some(zoned.into());
    b.hardware = Some(Hardware {
        model: Some(model.into()),
        ..Hardware::default()
    });
    Identity::of_block(b)
}

#[test]
fn an_smr_disk_shows_its_media_cache_its_stalls_and_the_drain_when_idle() {
    let d = diagnose(smr(), &writing(60), None);
    let code = FindingCode::Smr;
    let f = d.found(code.clone());
    assert_eq!(f.confidence, Confidence::High, "{}", f.claim);
    near(
        "media cache",
        d.number(code.clone(), "media_cache_bytes"),
        256.0 * MIB as f64,
        0.05,
    );
    // 64 KiB into the cache at 200 MB/s; once full, 32 writes and one 500 ms stall per 2 MiB band.
    near(
        "before",
        d.number(code.clone(), "before_mb_per_s"),
        200.0,
        0.03,
    );
    let after = 2.0 * MIB as f64 * 1e3 / (500e6 + 2.0 * MIB as f64 * 1e3 / 200.0);
    near(
        "after",
        d.number(code.clone(), "after_mb_per_s"),
        after,
        0.15,
    );
    near(
        "stall max",
        d.number(code.clone(), "stall_max_s"),
        0.5,
        0.02,
    );
    near(
        "stall p99",
        d.number(code.clone(), "stall_p99_s"),
        0.5,
        0.02,
    );
    assert!(d.number(code.clone(), "stalls") >= 6.0);
    // 3 s idle: 1 s before the drain, then 2 s at 200 MB/s: more than the cache.
    assert_eq!(d.number(code.clone(), "idle_s"), 3.0);
    assert!(d.number(code.clone(), "restored_share") >= 0.99);
    assert_eq!(d.verdict(Experiment::Smr), Verdict::Found);
    assert!(
        f.claim
            .starts_with("drive-managed SMR: random 64.0 KiB writes ran at"),
        "{}",
        f.claim
    );
    assert!(
        f.claim.contains("3 s idle restored 100 % of it"),
        "{}",
        f.claim
    );
    // It stopped once the stalls were seen for a while, not at the end of its window.
    let s = d.rec.smr.as_ref().unwrap();
    assert!(s.fill.duration_ns < 5_000_000_000, "{}", s.fill.duration_ns);
    assert!(d.said.contains(&Experiment::Smr));
    // The sequential write before it went to the bands: no write burst.
    assert!(
        d.finding(FindingCode::WriteBurst).is_none(),
        "{:?}",
        d.codes()
    ); // The document keeps the measurements (as the store does), and the finding reads the same from them.
    let doc: Document = d.rec.clone().into();
    let Document::Diagnose(back) = Document::from_value(doc.to_value()).unwrap() else {
        panic!("a diagnose document")
    };
    assert_eq!(back.smr, d.rec.smr);
    let (again, _) = drivescope_analysis::diagnose::assess(&back);
    assert_eq!(again, d.rec.header.findings);
}

#[test]
fn the_same_disk_without_a_media_cache_makes_no_smr_claim() {
    let d = diagnose(Writes::Plain, &writing(60), None);
    assert!(d.finding(FindingCode::Smr).is_none(), "{:?}", d.codes());
    assert_eq!(d.verdict(Experiment::Smr), Verdict::NotFound);
    let o = &d.outcome(Experiment::Smr).text;
    assert!(o.contains("without a fall"), "{o}");
    let s = d.rec.smr.as_ref().unwrap();
    assert!(
        s.idle_ns.is_none() && s.again.is_none(),
        "no idle without a fall"
    );
    // It wrote for its whole window: 60 s / 8.
    assert!(
        s.fill.duration_ns >= 7_000_000_000,
        "{}",
        s.fill.duration_ns
    );
}

#[test]
fn a_write_back_cache_that_fills_falls_without_stalls_and_is_not_smr() {
    let wb = Writes::WriteBack {
        cache: 256 * MIB,
        rate: 200.0,
        drain: 7.0,
    };
    let d = diagnose(wb, &writing(60), None);
    assert!(d.finding(FindingCode::Smr).is_none(), "{:?}", d.codes());
    assert_eq!(d.verdict(Experiment::Smr), Verdict::NotFound);
    let o = &d.outcome(Experiment::Smr).text;
    assert!(
        o.contains("fell from") && o.contains("not band cleaning"),
        "{o}"
    );
}

#[test]
fn a_media_cache_idle_time_does_not_drain_gives_a_low_confidence_claim() {
    let Writes::Smr {
        cache,
        rate,
        band,
        stall_ns,
        ..
    } = smr()
    else {
        unreachable!()
    };
    // It waits a minute before it drains: the 3 s idle restore nothing.
    let never = Writes::Smr {
        cache,
        rate,
        band,
        stall_ns,
        idle_after_ns: 60_000_000_000,
        drain: 200.0,
    };
    let d = diagnose(never, &writing(60), None);
    let f = d.found(FindingCode::Smr);
    assert_eq!(f.confidence, Confidence::Low, "{}", f.claim);
    assert!(f.claim.contains("did not drain"), "{}", f.claim);
    assert!(d.number(FindingCode::Smr, "restored_share") < 0.05);
}

#[test]
fn what_the_drive_says_raises_or_lowers_the_confidence_never_makes_the_claim() {
    let efax = identity("WDC WD40EFAX-68JH4N0", true, true, "none");
    // Without the idle part (a budget that ran out): medium, raised by a known DM-SMR model that takes TRIM.
    let d = diagnose(smr(), &writing(60), None);
    let mut rec = d.rec.clone();
    let s = rec.smr.as_mut().unwrap();
    (s.idle_ns, s.again) = (None, None);
    let smr_of = |rec: &drivescope_record::DiagnoseRecord| {
        let (found, _) = drivescope_analysis::diagnose::assess(rec);
        found.into_iter().find(|f| f.code == FindingCode::Smr)
    };
    let f = smr_of(&rec).unwrap();
    assert_eq!(f.confidence, Confidence::Medium, "{}", f.claim);
    assert!(f.claim.contains("no idle time was left"), "{}", f.claim);
    rec.header.device = Some(efax.clone());
    let f = smr_of(&rec).unwrap();
    assert_eq!(f.confidence, Confidence::High, "{}", f.claim);
    assert!(
        f.claim
            .contains("WDC WD40EFAX-68JH4N0 is a model sold as drive-managed SMR")
            && f.claim.contains("TRIM though it rotates"),
        "{}",
        f.claim
    );
    // Zoned as the kernel sees it raises it too.
    rec.header.device = Some(identity("some disk", true, false, "host-aware"));
    let f = smr_of(&rec).unwrap();
    assert!(f.claim.contains("zoned (host-aware)"), "{}", f.claim);
    assert_eq!(f.confidence, Confidence::High);
    // The same facts on a CMR disk: no claim.
    let d = diagnose(Writes::Plain, &writing(60), Some(efax));
    assert!(d.finding(FindingCode::Smr).is_none(), "{:?}", d.codes());
    // Flash that stalls alike (it reads flat and says it does not rotate): lowered, from high to medium.
    let ssd = identity("Samsung SSD 870 QVO 1TB", false, true, "none");
    let d = diagnose_flat(smr(), &writing(60), Some(ssd.clone()), 200.0);
    let f = d.found(FindingCode::Smr);
    assert_eq!(f.confidence, Confidence::Medium, "{}", f.claim);
    assert!(f.claim.contains("does not rotate"), "{}", f.claim);
    // Reading as a hard disk does (falling inward), what it says of rotation does not lower it.
    let d = diagnose(smr(), &writing(60), Some(ssd));
    assert_eq!(d.found(FindingCode::Smr).confidence, Confidence::High);
    assert!(drivescope_analysis::diagnose::smr::known_dm_smr(
        "ST8000DM004-2CX188"
    ));
    assert!(!drivescope_analysis::diagnose::smr::known_dm_smr(
        "WDC WD80EFZX-68UW8N0"
    ));
}

#[test]
fn a_read_only_diagnosis_skips_the_random_writes() {
    let d = diagnose(smr(), &super::support::options(60), None);
    assert_eq!(d.seen.writes(), 0);
    assert!(d.rec.smr.is_none());
    assert_eq!(d.verdict(Experiment::Smr), Verdict::Skipped);
    assert!(d.finding(FindingCode::Smr).is_none());
}
