//! The block layer's flush count around a diagnosis' flush experiment, and the promise its verdict judges: the
//! count read before and after the run is kept; early flushes the device was counted to receive are the
//! device's, early flushes it was sent none of are the layer above's (as `durability` says them); the count
//! never changes whether flushes are early. Only flushes found early break the storage's promise
//! ([`DiagnoseRecord::broke_promise`]); an honest cache, no cache, a declared protection, memory and a skipped
//! experiment do not.

use super::flush_model::{code, rejudged, Cached, Counted, Flush};
use super::model::{ssd, MIB};
use super::space::rng::Rng;
use super::support::*;
use crate::{DiagnoseOptions, DiagnoseRun};
use drivescope_record::{Confidence, DiagnoseRecord, Experiment, Verdict};
use std::sync::atomic::{AtomicBool, Ordering};

/// What the rule says when the device returns early flushes, and when it was sent none.
const BY_DEVICE: &str = "(the device returns them)";
const NOT_SENT: &str = "the device was sent none";

/// Diagnose a flash device whose flush experiment runs on `c`, its flushes counted as `counted` says; with
/// the flushes the cache was asked for.
fn diagnosed(c: Cached, counted: Counted, o: &DiagnoseOptions) -> (Diagnosed, u64) {
    let (open, asked) = c.opener_counted(counted);
    let run = DiagnoseRun {
        flush: Some(open),
        ..DiagnoseRun::default()
    };
    let d = diagnose_with(ssd(), o, run, &AtomicBool::new(false), |_| {});
    (d, asked.flushes.load(Ordering::Relaxed))
}

/// A 150 MB/s media behind a 64 MiB cache taking 1000 MB/s, whose flush does `flush`.
fn cache(flush: Flush) -> Cached {
    Cached {
        media: 150.0,
        cache: Some((64 * MIB, 1000.0)),
        flush,
    }
}

/// `rec` judged again with the block layer's count `count`: its flush finding and outcome.
fn recounted(
    rec: &DiagnoseRecord,
    count: Option<u64>,
) -> (Option<drivescope_record::Finding>, Verdict, DiagnoseRecord) {
    let (f, o, rec) = rejudged(rec, &|r| {
        r.flush_honesty.as_mut().unwrap().device_flushes = count
    });
    (f, o.verdict, rec)
}

#[test]
fn the_count_around_the_run_is_kept_and_names_whose_the_early_flushes_are() {
    // Flushes that reach the device, and 3 of other programs' between the readings.
    let (d, asked) = diagnosed(
        cache(Flush::Ignored),
        Counted::Sent { others: 3 },
        &writing(60),
    );
    let h = d.rec.flush_honesty.as_ref().unwrap();
    assert_eq!(h.flushes, asked);
    assert_eq!(h.device_flushes, Some(asked + 3), "{h:?}");
    let f = d.found(code());
    assert!(f.claim.contains(BY_DEVICE), "{}", f.claim);
    assert_eq!(f.number("device_flushes"), Some((asked + 3) as f64));
    assert!(d.rec.broke_promise());
    // None reached the device: the file system above it sent none.
    let (d, asked) = diagnosed(cache(Flush::Ignored), Counted::NotSent, &writing(60));
    assert!(asked > 0);
    assert_eq!(
        d.rec.flush_honesty.as_ref().unwrap().device_flushes,
        Some(0)
    );
    let f = d.found(code());
    assert_eq!(f.confidence, Confidence::High);
    assert!(f.claim.contains(NOT_SENT), "{}", f.claim);
    assert_eq!(f.number("device_flushes"), Some(0.0));
    assert_eq!(d.verdict(Experiment::FlushHonesty), Verdict::Found);
    assert!(
        d.rec.broke_promise(),
        "the layer above breaks it all the same"
    );
    // Not counted (an older kernel, no device known): the device's, as before, with no count in evidence.
    let (d, _) = diagnosed(cache(Flush::Ignored), Counted::Not, &writing(60));
    assert_eq!(d.rec.flush_honesty.as_ref().unwrap().device_flushes, None);
    let f = d.found(code());
    assert!(f.claim.contains(BY_DEVICE), "{}", f.claim);
    assert_eq!(f.number("device_flushes"), None);
    // The stored document keeps the count; one from before it was kept reads as not counted.
    let json = serde_json::to_string(&d.rec).unwrap();
    assert!(!json.contains("device_flushes"), "none is not written");
    let (_, _, counted) = recounted(&d.rec, Some(7));
    let json = serde_json::to_string(&counted).unwrap();
    let back: DiagnoseRecord = serde_json::from_str(&json).unwrap();
    assert_eq!(back.flush_honesty.as_ref().unwrap().device_flushes, Some(7));
    let old = json.replace("\"device_flushes\":7,", "");
    assert_ne!(old, json);
    let back: DiagnoseRecord = serde_json::from_str(&old).unwrap();
    assert_eq!(back.flush_honesty.as_ref().unwrap().device_flushes, None);
}

/// Lying caches drawn over decades of media rate, cache size and fill rate (as the flush-honesty space test
/// draws them), counted with other programs' flushes beside: the count kept is what reached the device, and
/// judged again with every count the early verdict stands, its attribution following the count (none: the
/// layer above; some: the device); the honest and cache-less twins, counted however, stay silent and keep
/// the promise.
#[test]
fn over_drawn_caches_the_count_changes_who_returns_flushes_early_never_whether() {
    let r = &mut Rng::new(0xC0_4E7);
    for i in 0..6 {
        let lying = Cached::drawn_lying(r);
        let others = r.int(0, 50);
        let (d, asked) = diagnosed(lying, Counted::Sent { others }, &writing(60));
        let h = d.rec.flush_honesty.as_ref().unwrap();
        assert_eq!(h.device_flushes, Some(asked + others), "draw {i} {lying:?}");
        assert!(d.rec.broke_promise(), "draw {i} {lying:?}");
        for count in [Some(0), Some(r.int(1, 10_000)), None] {
            let (f, v, rec) = recounted(&d.rec, count);
            let f = f.unwrap_or_else(|| panic!("draw {i} {lying:?} {count:?}: no finding"));
            assert_eq!(f.confidence, Confidence::High, "draw {i} {count:?}");
            assert_eq!(v, Verdict::Found, "draw {i} {count:?}");
            assert!(rec.broke_promise(), "draw {i} {count:?}");
            let who = if count == Some(0) {
                NOT_SENT
            } else {
                BY_DEVICE
            };
            assert!(f.claim.contains(who), "draw {i} {count:?}: {}", f.claim);
            assert_eq!(f.number("device_flushes"), count.map(|n| n as f64));
        }
        for twin in [
            Cached {
                flush: Flush::Honoured,
                ..lying
            },
            Cached {
                cache: None,
                ..lying
            },
        ] {
            let counted = match r.int(0, 2) {
                0 => Counted::Not,
                1 => Counted::NotSent,
                _ => Counted::Sent { others },
            };
            let (d, _) = diagnosed(twin, counted, &writing(60));
            assert!(
                d.finding(code()).is_none(),
                "draw {i} {twin:?} {counted:?}: {:?}",
                d.outcome(Experiment::FlushHonesty)
            );
            assert_eq!(d.verdict(Experiment::FlushHonesty), Verdict::NotFound);
            assert!(!d.rec.broke_promise(), "draw {i} {twin:?} {counted:?}");
        }
    }
}

/// The promise is broken by early flushes alone, whoever returns them: an honest cache, writes that left
/// nothing pending, a declared protection, memory (inconclusive) and a skipped experiment keep it.
#[test]
fn only_early_flushes_break_the_promise() {
    let (lying, _) = diagnosed(cache(Flush::Ignored), Counted::Not, &writing(60));
    assert!(lying.rec.broke_promise());
    let edited = |edit: &dyn Fn(&mut DiagnoseRecord)| {
        let mut rec = lying.rec.clone();
        edit(&mut rec);
        crate::assess(&mut rec);
        rec
    };
    // The kernel that sends no flush to a cache it takes for write-through: still early.
    let through = edited(&|r| {
        r.flush_honesty.as_mut().unwrap().cache.write_cache = Some("write through".into())
    });
    assert!(through.broke_promise());
    let outcome = |rec: &DiagnoseRecord| {
        rec.outcomes
            .iter()
            .find(|o| o.experiment == Experiment::FlushHonesty)
            .cloned()
            .unwrap()
    };
    // Honest: flushes take what the pending data need.
    let (honest, _) = diagnosed(cache(Flush::Honoured), Counted::NotSent, &writing(60));
    assert!(honest
        .outcome(Experiment::FlushHonesty)
        .text
        .contains("flushes took at least"));
    // Nothing pending: no cache, writes at the media rate.
    let (plain, _) = diagnosed(
        Cached {
            cache: None,
            ..cache(Flush::Ignored)
        },
        Counted::NotSent,
        &writing(60),
    );
    assert!(plain
        .outcome(Experiment::FlushHonesty)
        .text
        .contains("nothing was pending"));
    // Protected: the same lying cache behind a declared power-loss protection.
    let protected = edited(&|r| {
        r.flush_honesty
            .as_mut()
            .unwrap()
            .cache
            .power_loss_protection = Some(true)
    });
    assert!(outcome(&protected).text.contains("power-loss protection"));
    // Inconclusive: memory, where nothing lies behind a cache.
    let memory = edited(&|r| r.header.memory = Some("tmpfs".into()));
    assert_eq!(outcome(&memory).verdict, Verdict::Inconclusive);
    // Skipped: read-only.
    let (skipped, _) = diagnosed(cache(Flush::Ignored), Counted::NotSent, &options(60));
    assert_eq!(skipped.verdict(Experiment::FlushHonesty), Verdict::Skipped);
    for (what, rec) in [
        ("honest", &honest.rec),
        ("nothing pending", &plain.rec),
        ("protected", &protected),
        ("memory", &memory),
        ("skipped", &skipped.rec),
    ] {
        assert!(!rec.broke_promise(), "{what}: {:?}", outcome(rec));
    }
}
