//! The flush-honesty experiment inside a diagnosis, on write caches of virtual time ([`super::flush_model`]): a
//! cache whose flush returns at once is found, whatever its size and rates; its twins (the same cache honouring
//! flushes, no cache, a declared protection, memory) are not. It runs only with writes, in its place in the
//! order, within its share of the budget.

use super::flush_model::{code, rejudged, Asked, Cached, Flush};
use super::model::{ssd, Model, MIB};
use super::space::rng::Rng;
use super::support::*;
use crate::{DiagnoseOptions, DiagnoseRun};
use drivescope_record::{Confidence, Experiment, Verdict};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Diagnose a flash device whose flush experiment runs on `c`.
fn diagnosed(c: Cached, o: &DiagnoseOptions) -> (Diagnosed, Arc<Asked>) {
    diagnosed_on(ssd(), c, o)
}

/// Diagnose the device `m` models, its flush experiment run on `c`.
fn diagnosed_on(m: Model, c: Cached, o: &DiagnoseOptions) -> (Diagnosed, Arc<Asked>) {
    let (open, asked) = c.opener();
    let run = DiagnoseRun {
        flush: Some(open),
        ..DiagnoseRun::default()
    };
    let d = diagnose_with(m, o, run, &AtomicBool::new(false), |_| {});
    (d, asked)
}

/// A 150 MB/s media behind a 64 MiB cache taking 1000 MB/s, whose flush does `flush`.
fn cache(flush: Flush) -> Cached {
    Cached {
        media: 150.0,
        cache: Some((64 * MIB, 1000.0)),
        flush,
    }
}

#[test]
fn a_cache_that_returns_flushes_at_once_is_found_after_the_write_cache_and_before_smr() {
    let (d, asked) = diagnosed(cache(Flush::Ignored), &writing(60));
    let f = d.found(code());
    assert_eq!(f.confidence, Confidence::High, "{f:?}");
    assert!(
        f.claim
            .contains("Flushes return before the data can have reached the media"),
        "{}",
        f.claim
    );
    assert!(f.number("early_sizes").unwrap() >= 3.0, "{f:?}");
    assert_eq!(d.verdict(Experiment::FlushHonesty), Verdict::Found);
    assert_eq!(d.outcome(Experiment::FlushHonesty).text, f.claim);
    // Its place: after the write cache's sustained write, before the SMR random writes.
    let at = |e| d.said.iter().position(|x| *x == e).unwrap();
    assert!(at(Experiment::WriteCache) < at(Experiment::FlushHonesty));
    assert!(at(Experiment::FlushHonesty) < at(Experiment::Smr));
    // What it measured is kept, as the device saw it.
    let h = d.rec.flush_honesty.as_ref().expect("the experiment's data");
    assert_eq!(asked.opened.load(Ordering::Relaxed), 1);
    assert_eq!(h.bytes_written, asked.written.load(Ordering::Relaxed));
    assert_eq!(h.flushes, asked.flushes.load(Ordering::Relaxed));
    assert!(h.pairs.len() >= 9, "{h:?}");
    let rate = h.sustained.as_ref().unwrap().bytes_per_s / 1e6;
    near("media rate", rate, 150.0, 0.1);
    // Within its share of the budget, an eighth of 60 s, a rest first (no write cache filled: the least).
    assert_eq!(h.rest_ns, 250_000_000);
    assert_eq!(h.budget_ns + h.rest_ns, 7_500_000_000);
    assert!(h.duration_ns <= h.budget_ns + h.rest_ns, "{h:?}");
    // The stored document reads back with the same data and findings.
    let json = serde_json::to_string(&d.rec).unwrap();
    let mut back: drivescope_record::DiagnoseRecord = serde_json::from_str(&json).unwrap();
    assert_eq!(back.flush_honesty, d.rec.flush_honesty);
    crate::assess(&mut back);
    assert_eq!(back.header.findings, d.rec.header.findings);
}

/// A 256 MiB write cache the write experiment filled (1000 MB/s over a 200 MB/s media) is let drain before the
/// flush experiment: 256 MiB at 200 MB/s, a quarter more.
#[test]
fn the_cache_the_write_experiment_filled_is_let_drain_first() {
    let m = Model {
        outer: 200.0,
        inner: 200.0,
        write_cache: Some((256 * MIB, 1000.0)),
        ..ssd()
    };
    let (d, _) = diagnosed_on(m.clone(), cache(Flush::Ignored), &writing(60));
    let h = d.rec.flush_honesty.as_ref().unwrap();
    near(
        "rest",
        h.rest_ns as f64 / 1e9,
        256.0 * MIB as f64 / 200e6 * 1.25,
        0.1,
    );
    assert_eq!(h.budget_ns + h.rest_ns, 7_500_000_000);
    // The same with a budget whose share a quarter of which is less: the rest is held to that quarter.
    let (d, _) = diagnosed_on(m, cache(Flush::Ignored), &writing(32));
    let h = d.rec.flush_honesty.as_ref().unwrap();
    assert_eq!(h.rest_ns, 1_000_000_000, "{h:?}");
}

#[test]
fn an_honest_cache_and_no_cache_make_no_flush_claim() {
    for c in [
        cache(Flush::Honoured),
        Cached {
            cache: None,
            ..cache(Flush::Ignored)
        },
    ] {
        let (d, _) = diagnosed(c, &writing(60));
        assert!(d.finding(code()).is_none(), "{c:?}: {:?}", d.codes());
        assert_eq!(
            d.verdict(Experiment::FlushHonesty),
            Verdict::NotFound,
            "{c:?}: {:?}",
            d.outcome(Experiment::FlushHonesty)
        );
        assert!(d.rec.flush_honesty.as_ref().unwrap().pairs.len() >= 9);
    }
}

#[test]
fn a_declared_protection_memory_and_the_kernel_s_write_through_change_what_is_said() {
    let (d, _) = diagnosed(cache(Flush::Ignored), &writing(60));
    let judged = |edit: &dyn Fn(&mut drivescope_record::DiagnoseRecord)| {
        let (f, o, _) = rejudged(&d.rec, edit);
        (f, o)
    };
    // A protected cache keeps what it acknowledged: said in the line, no finding.
    let (f, o) = judged(&|r| {
        r.flush_honesty
            .as_mut()
            .unwrap()
            .cache
            .power_loss_protection = Some(true)
    });
    assert!(f.is_none(), "{f:?}");
    assert_eq!(o.verdict, Verdict::NotFound);
    assert!(o.text.contains("power-loss protection"), "{o:?}");
    // Memory has no media behind it: nothing is said of flushes.
    let (f, o) = judged(&|r| r.header.memory = Some("tmpfs".into()));
    let f = f.unwrap();
    assert_eq!(f.confidence, Confidence::Inconclusive);
    assert_eq!(o.verdict, Verdict::Inconclusive);
    assert_eq!(o.text, f.claim);
    assert!(o.text.contains("memory (tmpfs)"), "{o:?}");
    // The kernel sends no flush to a cache it takes for write-through: the early flushes are its doing.
    let (f, o) = judged(&|r| {
        r.flush_honesty.as_mut().unwrap().cache.write_cache = Some("write through".into())
    });
    let f = f.unwrap();
    assert_eq!(f.confidence, Confidence::High);
    assert!(f
        .claim
        .contains("the kernel treats the cache as write-through"));
    assert_eq!(o.verdict, Verdict::Found);
}

#[test]
fn read_only_or_out_of_budget_it_is_skipped_and_nothing_is_written() {
    let (d, asked) = diagnosed(cache(Flush::Ignored), &options(60));
    assert_eq!(
        d.skipped(Experiment::FlushHonesty),
        Some(options(60).no_writes_why.as_str())
    );
    assert_eq!(d.verdict(Experiment::FlushHonesty), Verdict::Skipped);
    assert_eq!(asked.opened.load(Ordering::Relaxed), 0);
    assert!(d.rec.flush_honesty.is_none() && d.finding(code()).is_none());
    // A budget the experiments before it spend.
    let (d, asked) = diagnosed(cache(Flush::Ignored), &writing(4));
    let why = d.skipped(Experiment::FlushHonesty).expect("skipped");
    assert!(why.contains("budget"), "{why}");
    assert_eq!(asked.opened.load(Ordering::Relaxed), 0);
    assert_eq!(asked.written.load(Ordering::Relaxed), 0);
    // A budget under the one that keeps the experiment its share leaves the others what they had without it.
    let (d, _) = diagnosed(cache(Flush::Ignored), &writing(16));
    let without = diagnose(ssd(), &writing(16));
    assert_eq!(d.rec.read_cache, without.rec.read_cache);
    assert_eq!(d.rec.write_cache, without.rec.write_cache);
    // Without a file or device to flush (a scripted target) it says so.
    let d = diagnose(ssd(), &writing(60));
    assert!(d.skipped(Experiment::FlushHonesty).is_some());
    assert!(d.rec.flush_honesty.is_none());
}

/// Caches drawn over decades of media rate (50 MB/s to 1 GB/s), sizes of 50 to 500 ms of the media's writes
/// and fill rates 3 to 10 times the media's: each that returns flushes at once is found; the same cache
/// honouring them, and the media without it, are not.
#[test]
fn over_drawn_caches_an_ignored_flush_is_found_and_its_twins_stay_silent() {
    let r = &mut Rng::new(0xF1A5);
    for i in 0..8 {
        let lying = Cached::drawn_lying(r);
        let (d, _) = diagnosed(lying, &writing(60));
        let f = d.finding(code());
        assert!(
            f.is_some_and(|f| f.confidence == Confidence::High),
            "draw {i} {lying:?}: {:?}",
            d.outcome(Experiment::FlushHonesty)
        );
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
            let (d, _) = diagnosed(twin, &writing(60));
            assert!(
                d.finding(code()).is_none(),
                "draw {i} {twin:?}: {:?}",
                d.codes()
            );
        }
    }
}
