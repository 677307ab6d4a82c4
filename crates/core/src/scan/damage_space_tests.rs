//! The lost-device rule over a space of drawn devices (see `engine::scripted_damage`):
//! damage from one sector to hundreds of MiB, one patch or up to 30, fixed or growing as it is
//! read (margins of 0 to 160 MiB), and devices that go away mid-scan. A present device is
//! never called lost and its damage is mapped against the truth; a device that goes away is
//! called lost within a few commands. Seeds are fixed, so every run draws the same devices.

use super::scripted_tests::{scan, target};
use super::ScanConfig;
use crate::engine::scripted::Scripted;
use crate::engine::scripted_damage::StandInSysfs as Sysfs;
use crate::engine::scripted_damage::{DamageModel, Vanish};
use crate::rng::Rng;
use std::sync::atomic::Ordering;

const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;

/// What one scan of a drawn device came to.
#[derive(Debug, Default)]
struct Tally {
    models: usize,
    /// Present devices called lost.
    false_lost: Vec<String>,
    /// Devices gone mid-scan not called lost, or called lost too late.
    missed: Vec<String>,
    /// Present devices whose map disagrees with the truth beyond the tolerance.
    map_errors: Vec<String>,
    /// Devices gone mid-scan said to be inconclusive (small ranges only).
    inconclusive: usize,
    /// Present devices ended with the lost verdict inconclusive.
    inconclusive_present: usize,
    /// The most commands issued after a device went away.
    most_after_gone: u64,
    gone: usize,
    growing: usize,
}

/// Merged `[start, end)` spans.
fn merged(mut v: Vec<(u64, u64)>) -> Vec<(u64, u64)> {
    v.sort();
    let mut out: Vec<(u64, u64)> = Vec::new();
    for (a, b) in v {
        match out.last_mut() {
            Some(l) if a <= l.1 => l.1 = l.1.max(b),
            _ => out.push((a, b)),
        }
    }
    out
}

fn inside(span: (u64, u64), of: &[(u64, u64)]) -> bool {
    of.iter().any(|&(a, b)| a <= span.0 && span.1 <= b)
}

/// Scan `m` and account what came of it.
/// `small`: the range may be too small for a verdict, and a device gone may be said to be
/// inconclusive instead of lost.
fn check(m: &DamageModel, n: usize, small: bool, t: &mut Tally) {
    let sysfs = matches!(m.vanish, Some(Vanish::Kernel { .. })).then(|| Sysfs::new("space", n));
    let (script, seen) = m.script(sysfs.as_ref().map(|s| s.0.clone()));
    let mut dev = Scripted::new(script).unlogged();
    if let Some(s) = &sysfs {
        dev = dev.with_sysfs(s.0.clone());
    }
    let cfg = ScanConfig {
        block_size: m.block_size,
        queue_depth: m.queue_depth,
        ..ScanConfig::default()
    };
    let rec = scan(&dev, &target(m.size), &cfg);
    t.models += 1;
    t.growing += usize::from(m.widest_margin() > 0);
    let after = seen.after_gone.load(Ordering::Relaxed);
    let what = || {
        format!(
            "model {n}: {} MiB, QD{}, {} patches ({} B failing, widest margin {} B), {:?}: \
             lost {:?}, {after} commands after it went",
            m.size / MIB,
            m.queue_depth,
            m.patches.len(),
            m.core_bytes(),
            m.widest_margin(),
            m.vanish,
            rec.device_lost
        )
    };
    if m.vanish.is_some() && after > 0 {
        t.gone += 1;
        t.most_after_gone = t.most_after_gone.max(after);
        // The commands in flight when it went, the probes, and the one that failed first.
        let bound = m.queue_depth as u64 + 4;
        let unsure = small && rec.device_lost.is_none() && rec.lost_inconclusive.is_some();
        t.inconclusive += usize::from(unsure);
        if !unsure && (rec.device_lost.is_none() || after > bound) {
            t.missed.push(what());
        }
        return;
    }
    if rec.device_lost.is_some() {
        t.false_lost.push(what());
        return;
    }
    t.inconclusive_present += usize::from(rec.lost_inconclusive.is_some());
    if rec.interrupted || rec.covered != m.size {
        t.map_errors
            .push(format!("{}: not read to the end", what()));
        return;
    }
    if rec.failed_extents_cut.is_some() || rec.untried_extents_cut.is_some() {
        return;
    }
    // Not good: failed extents (with what is untried inside them) and untried stretches.
    let not_good = merged(
        rec.failed_extents
            .iter()
            .map(|e| (e.offset, e.offset + e.length))
            .chain(
                rec.untried_extents
                    .iter()
                    .map(|e| (e.offset, e.offset + e.length)),
            )
            .collect(),
    );
    // Every failing byte is reported failed or untried, never good; what is reported so lies
    // within a patch's margins and one command more on each side (patches closer than two
    // skips of the first pass may be joined by what lies between them).
    let skip = super::max_skip(m.size, m.block_size);
    let hull = m.hull(m.block_size, 2 * skip + 2 * m.block_size);
    for p in &m.patches {
        if !inside((p.offset, p.offset + p.length), &not_good) {
            t.map_errors
                .push(format!("{}: failing {p:?} reported good in part", what()));
            return;
        }
    }
    if let Some(s) = not_good.iter().find(|&&s| !inside(s, &hull)) {
        t.map_errors
            .push(format!("{}: {s:?} reported not good, outside", what()));
    }
}

fn run(seed: u64, models: usize, sizes: (u64, u64), gone: f64) -> Tally {
    let small = sizes.0 < 512 * MIB;
    let mut rng = Rng::new(seed);
    let mut t = Tally::default();
    for n in 0..models {
        let m = DamageModel::draw(&mut rng, sizes, gone);
        check(&m, n, small, &mut t);
    }
    eprintln!(
        "seed {seed:#x}: {} models ({} growing, {} gone mid-scan): {} false lost, {} missed, \
         {} map errors, {} gone said inconclusive, {} present said inconclusive, at most {} \
         commands after a device went",
        t.models,
        t.growing,
        t.gone,
        t.false_lost.len(),
        t.missed.len(),
        t.map_errors.len(),
        t.inconclusive,
        t.inconclusive_present,
        t.most_after_gone
    );
    t
}

fn assert_clean(t: &Tally) {
    let first = |v: &[String]| v.iter().take(5).cloned().collect::<Vec<_>>().join("\n");
    assert!(
        t.false_lost.is_empty(),
        "present, called lost:\n{}",
        first(&t.false_lost)
    );
    assert!(
        t.missed.is_empty(),
        "gone, not called lost:\n{}",
        first(&t.missed)
    );
    assert!(t.map_errors.is_empty(), "maps:\n{}", first(&t.map_errors));
}

#[test]
fn drawn_damaged_devices_are_never_lost_and_their_damage_is_mapped() {
    let t = run(0x5eed_da3a, 200, (512 * MIB, 16 * GIB), 0.0);
    assert_eq!(t.models, 200);
    assert!(t.growing > 100, "{}", t.growing);
    assert_clean(&t);
}

#[test]
fn drawn_devices_that_go_away_mid_scan_are_lost_within_a_few_commands() {
    let t = run(0x5eed_9013, 120, (512 * MIB, 16 * GIB), 1.0);
    assert!(t.gone > 100, "{}", t.gone);
    assert_clean(&t);
}

#[test]
fn on_ranges_too_small_for_a_verdict_a_gone_device_is_said_inconclusive_a_present_one_never_lost() {
    // 32 to 256 MiB: mostly no place lies 64 MiB from a failure.
    let t = run(0x5eed_5a11, 120, (32 * MIB, 256 * MIB), 0.5);
    assert!(t.gone > 30, "{}", t.gone);
    assert_clean(&t);
}
