//! drivescope-analysis: findings over run records.
//!
//! Each rule is a pure function over a record (a scan, a bench, a sweep, a soak): it says what the numbers
//! show and why, with the numbers behind the claim and how sure it is, or says nothing. Rules never guess: where
//! the measurements cannot settle a question they stay silent (or say `inconclusive`), so the same rules run on a
//! fresh run and on any stored one alike.

pub mod array;
pub mod array_degraded;
pub mod array_writes;
pub mod cache_fit;
pub mod capacity;
pub mod diagnose;
pub mod durability;
pub mod durability_unflushed;
pub mod fingerprint;
pub mod flush_honesty;
mod link;
mod middle;
pub mod multi;
pub mod power_cut;
pub mod predict;
mod queueing;
pub mod screen;
mod soak;
pub mod steady_state;
pub mod temperature;
pub mod time;
mod zones;

pub use link::{usual_ceiling, USUAL_CEILINGS};

use drivescope_record::{Document, Finding, Record};

/// Every finding the record's numbers support, in a stable order.
pub fn findings(doc: &Document) -> Vec<Finding> {
    let mut out = Vec::new();
    match doc {
        Document::Scan(s) => {
            out.extend(zones::of_scan(s));
            out.extend(diagnose::throttle::of_scan(s));
            temperature::annotate_with_outcomes(&mut out, &mut [], s.temperature.as_ref());
            out.extend(capacity::of_scan(s));
        }
        Document::Bench(b) => {
            out.extend(link::of_bench(b));
            out.extend(queueing::of_bench(b));
        }
        Document::Sweep(s) => out.extend(queueing::of_sweep(s)),
        Document::Soak(s) => {
            out.extend(soak::write_burst(s));
            out.extend(soak::warm_up(s));
            out.extend(diagnose::throttle::of_soak(s));
            temperature::annotate_with_outcomes(&mut out, &mut [], s.temperature.as_ref());
        }
        Document::Diagnose(d) => out.extend(diagnose::assess(d).0),
        Document::Screen(s) => out.extend(screen::findings(s)),
        Document::Time(t) => out.extend(time::findings(t)),
        Document::Multi(m) => out.extend(multi::findings(m)),
        Document::Capacity(c) => out.extend(capacity::findings(c)),
        Document::Steady(_) | Document::Replay(_) => {}
        Document::Durability(d) => out.extend(durability::findings(d)),
        Document::Info(_) | Document::Unknown { .. } => {}
    }
    out
}

/// Adds the findings its numbers support to a run record (replacing any it had).
pub fn annotate<R: Record>(rec: &mut R) {
    rec.header_mut().findings = findings(&rec.clone().into());
}
