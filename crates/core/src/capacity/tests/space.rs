//! The probe over a space of drives drawn at random with a fixed seed: fakes that wrap (at any
//! modulus, a power of two or not), drop, keep a limbo cache or fail reads, from 1 GiB to 2 TB
//! nominal, and genuine twins of the same sizes and speeds; scattered commands cost 0.1 to
//! 10 ms, transfers run at 10 to 100 MB/s. Every class right, every real size exact (4 KiB
//! blocks over 4 KiB-aligned real sizes), no genuine drive called fake, and the data kept.

use super::mem::{Mem, Mode, Timing, G};
use super::probe_kept;
use crate::capacity::{probe, ProbeConfig};
use crate::rng::Rng;
use drivescope_record::CapacityClass;
use std::sync::atomic::AtomicBool;

/// The seed and the number of drives drawn.
pub const SEED: u64 = 0x0ca9_ac17_2026_1127;
pub const DRAWS: usize = 300;
const MIB: u64 = 1 << 20;

#[derive(Debug)]
pub struct Drawn {
    pub size: u64,
    pub real: u64,
    pub mode: Mode,
    pub timing: Timing,
}

fn unit(rng: &mut Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

fn log_uniform(rng: &mut Rng, lo: f64, hi: f64) -> f64 {
    lo * (hi / lo).powf(unit(rng))
}

/// One drive of the space.
pub fn draw(rng: &mut Rng) -> Drawn {
    let size = log_uniform(rng, (1u64 << 30) as f64, 2e12) as u64 / G * G;
    // Real: a power of two or any 4 KiB multiple, 1/256 of the nominal size (16 MiB at least)
    // up to one block below it.
    let lo = (size / 256).max(16 * MIB);
    let real = if rng.below(2) == 0 {
        let pows: Vec<u64> = (24..45)
            .map(|j| 1u64 << j)
            .filter(|p| (lo..size).contains(p))
            .collect();
        pows[rng.below(pows.len() as u64) as usize]
    } else {
        (log_uniform(rng, lo as f64, size as f64) as u64 / G * G).clamp(lo, size - G)
    };
    let mode = match rng.below(5) {
        0 => Mode::Genuine,
        1 => Mode::Wrap,
        2 => Mode::Drop,
        3 => Mode::Limbo(log_uniform(rng, 64.0 * 1024.0, 8.0 * MIB as f64) as u64 / G * G),
        _ => Mode::ReadErr,
    };
    let ms = log_uniform(rng, 0.1, 10.0);
    let mb_s = log_uniform(rng, 10.0, 100.0);
    // Cheap flash writes slowly where it reads fast: a third of the drives position only writes.
    let mut timing = Timing::scattered_ms(ms, ms * (1.0 + unit(rng)), mb_s);
    if rng.below(3) == 0 {
        timing.read = (0.1e6, 0.1e6);
    }
    Drawn {
        size,
        real: if mode == Mode::Genuine { size } else { real },
        mode,
        timing,
    }
}

fn class_of(mode: Mode) -> CapacityClass {
    match mode {
        Mode::Genuine => CapacityClass::Genuine,
        Mode::Wrap => CapacityClass::Wrap,
        Mode::Drop => CapacityClass::Drop,
        Mode::Limbo(_) => CapacityClass::Limbo,
        Mode::ReadErr => CapacityClass::ReadErrors,
    }
}

/// Drives up to this size are probed with a journal and checked to keep their data.
const KEPT_UP_TO: u64 = 8 << 30;

/// The drives of the space, in the order drawn.
fn drawn() -> Vec<Drawn> {
    let mut rng = Rng::new(SEED);
    (0..DRAWS).map(|_| draw(&mut rng)).collect()
}

/// Probe the drives whose index leaves `part` over `PARTS`: the space is told in `PARTS` tests, which the
/// harness runs side by side (each drive's probe is independent of the others).
const PARTS: usize = 3;

fn probe_part(part: usize) {
    let cfg = ProbeConfig {
        flush: 16 * MIB,
        ..ProbeConfig::default()
    };
    let mut misses = Vec::new();
    let mut kept = 0;
    let mut probed = 0;
    for (i, d) in drawn().into_iter().enumerate().skip(part).step_by(PARTS) {
        probed += 1;
        let mut dev = Mem::new(d.size, d.real, d.mode).with_timing(d.timing);
        let o = if d.size <= KEPT_UP_TO {
            kept += 1;
            probe_kept(&format!("space-{i}"), &mut dev, cfg)
        } else {
            let stop = AtomicBool::new(false);
            probe::probe(&mut dev, cfg, None, &stop, &mut |_| {}).unwrap()
        };
        let want = class_of(d.mode);
        let cache_ok = match d.mode {
            Mode::Limbo(c) => o.cache == Some(c),
            _ => o.cache.is_none(),
        };
        let modulus_ok = match d.mode {
            Mode::Wrap => o.modulus == Some(d.real),
            _ => o.modulus.is_none(),
        };
        if o.class != Some(want) || o.real != Some(d.real) || !cache_ok || !modulus_ok {
            misses.push(format!(
                "draw {i}: {d:?}: {:?} real {:?} modulus {:?} cache {:?} (run {})",
                o.class, o.real, o.modulus, o.cache, o.run_blocks
            ));
        }
    }
    eprintln!(
        "seed {SEED:#x}, part {part} of {PARTS}: {probed} drives, {kept} checked to keep their data, {} missed",
        misses.len()
    );
    assert!(
        misses.is_empty(),
        "{} of {probed}:\n{}",
        misses.len(),
        misses.join("\n")
    );
}

#[test]
fn every_drive_of_the_space_is_told_right_and_keeps_its_data_first_third() {
    probe_part(0);
}

#[test]
fn every_drive_of_the_space_is_told_right_and_keeps_its_data_second_third() {
    probe_part(1);
}

#[test]
fn every_drive_of_the_space_is_told_right_and_keeps_its_data_last_third() {
    probe_part(2);
}

#[test]
fn the_space_draws_every_kind_of_drive() {
    let mut counts = [0usize; 5];
    for d in drawn() {
        counts[class_of(d.mode) as usize] += 1;
    }
    assert!(
        counts.iter().all(|c| *c >= DRAWS / 8),
        "each kind drawn (genuine, wrap, drop, limbo, read errors): {counts:?}"
    );
}
