//! The probe and the journal on in-memory devices that fake their capacity the ways real ones
//! do (the lab's `[fake]` modes, kept sparse so a 4 GiB device costs only what is written).

use super::*;
use drivescope_record::CapacityClass;

mod mem;
mod space;

use mem::{Mem, Mode, Timing, G};

fn header(size: u64) -> JournalHeader {
    JournalHeader {
        device: "mem".into(),
        size,
        block_size: G,
        confirm: None,
        started_at: "2026-11-26T00:00:00Z".into(),
    }
}

fn journal_path(name: &str) -> std::path::PathBuf {
    let p = std::env::temp_dir().join(format!(
        "drivescope-capacity-{}-{name}.journal",
        std::process::id()
    ));
    let _ = std::fs::remove_file(&p);
    p
}

fn probe_kept(name: &str, dev: &mut Mem, cfg: ProbeConfig) -> Outcome {
    let before = dev.clone();
    let path = journal_path(name);
    let stop = AtomicBool::new(false);
    let h = header(dev.size);
    let r = run(dev, cfg, Some((&path, &h)), &stop, &mut |_| {}).unwrap();
    assert!(dev.same_as(&before), "{name}: data kept");
    let restored = r.restored.unwrap();
    assert_eq!(restored.mismatches, 0, "{name}");
    assert!(journal::read(&path).unwrap().restored, "{name}");
    std::fs::remove_file(&path).unwrap();
    r.outcome
}

const MIB: u64 = 1 << 20;

fn small() -> ProbeConfig {
    ProbeConfig {
        flush: 16 * MIB,
        ..ProbeConfig::default()
    }
}

#[test]
fn a_genuine_device_keeps_all_its_capacity() {
    for size in [128 * MIB, 4096 * MIB, 40 * G] {
        let mut dev = Mem::new(size, size, Mode::Genuine);
        let o = probe_kept("genuine", &mut dev, small());
        assert_eq!(o.class, Some(CapacityClass::Genuine), "{size}");
        assert_eq!(o.real, Some(size));
        assert!(o.evidence.is_empty());
    }
}

#[test]
fn wrap_around_is_found_at_any_modulus_exactly() {
    for (real, size) in [
        (48 * MIB, 128 * MIB),
        (64 * MIB, 128 * MIB),
        (3000 * MIB, 4096 * MIB),
        (4000 * MIB, 4096 * MIB),
        (4096 * MIB - 8 * G, 4096 * MIB),
        (12 * G, 64 * G),
    ] {
        let mut dev = Mem::new(size, real, Mode::Wrap);
        let o = probe_kept("wrap", &mut dev, small());
        assert_eq!(o.class, Some(CapacityClass::Wrap), "{real} of {size}");
        assert_eq!(o.real, Some(real), "{real} of {size}");
        assert_eq!(o.modulus, Some(real));
        assert_eq!(o.rounds, 1, "one round, no flush");
        let e = &o.evidence[0];
        assert_eq!(e.offset - e.holds.unwrap(), real);
    }
}

#[test]
fn dropped_writes_and_read_errors_are_found_within_one_block() {
    for (mode, class) in [
        (Mode::Drop, CapacityClass::Drop),
        (Mode::ReadErr, CapacityClass::ReadErrors),
    ] {
        for (real, size) in [(64 * MIB, 128 * MIB), (777 * MIB + 12 * G, 1024 * MIB)] {
            let mut dev = Mem::new(size, real, mode);
            let o = probe_kept("drop", &mut dev, small());
            assert_eq!(o.class, Some(class), "{real} of {size}");
            assert_eq!(o.real, Some(real), "{real} of {size}");
        }
    }
}

#[test]
fn a_limbo_cache_is_seen_through_and_measured() {
    let (real, size, cache) = (32 * MIB, 128 * MIB, 8 * MIB);
    let mut dev = Mem::new(size, real, Mode::Limbo(cache));
    let o = probe_kept("limbo", &mut dev, small());
    assert_eq!(o.class, Some(CapacityClass::Limbo));
    assert_eq!(o.real, Some(real));
    assert_eq!(o.cache, Some(cache));
    assert!(o.flush_bytes >= 16 * MIB);
    // A cache larger than the flush hides the small real area: the flush must be larger.
    let mut dev = Mem::new(size, real, Mode::Limbo(cache));
    let o = probe_kept(
        "limbo-big",
        &mut dev,
        ProbeConfig {
            flush: 4 * MIB,
            ..small()
        },
    );
    assert_ne!(o.real, Some(real), "a 4 MiB flush cannot see through 8 MiB");
}

#[test]
fn a_device_smaller_than_one_block_is_refused() {
    let mut dev = Mem::new(2048, 2048, Mode::Genuine);
    let stop = AtomicBool::new(false);
    let e = run(&mut dev, small(), None, &stop, &mut |_| {}).unwrap_err();
    assert!(
        e.to_string().contains("smaller than one probe block"),
        "{e}"
    );
}

#[test]
fn a_probe_cut_off_anywhere_is_undone_by_its_journal() {
    for mode in [Mode::Genuine, Mode::Wrap, Mode::Limbo(8 * MIB)] {
        for cut in [0, 1, 2, 5, 17, 40, 200] {
            let mut dev = Mem::new(128 * MIB, 48 * MIB, mode);
            let before = dev.clone();
            let path = journal_path("cut");
            dev.writes_left = Some(cut);
            let stop = AtomicBool::new(false);
            let _ = run(
                &mut dev,
                small(),
                Some((&path, &header(128 * MIB))),
                &stop,
                &mut |_| {},
            );
            // The drive comes back; the journal puts it back as it was.
            dev.writes_left = None;
            let restored = restore_file(&mut dev, &path).unwrap();
            assert!(dev.same_as(&before), "{mode:?}: cut after {cut} writes");
            assert_eq!(restored.mismatches, 0);
            std::fs::remove_file(&path).unwrap();
        }
    }
}

#[test]
fn a_torn_journal_entry_is_left_out() {
    let path = journal_path("torn");
    let mut j = Journal::create(&path, &header(1 << 20)).unwrap();
    j.append(0, &[1u8; 4096]).unwrap();
    j.append(4096, &[2u8; 4096]).unwrap();
    j.commit().unwrap();
    drop(j);
    let len = std::fs::metadata(&path).unwrap().len();
    let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    f.set_len(len - 100).unwrap();
    let saved = journal::read(&path).unwrap();
    assert_eq!(saved.entries.len(), 1);
    assert!(!saved.restored);
    // Marked restored, the half entry is cut off first, so the mark reads back.
    journal::mark_restored(&path, saved.end).unwrap();
    let again = journal::read(&path).unwrap();
    assert!(again.restored);
    assert_eq!(again.entries, saved.entries);
    assert!(matches!(
        Journal::create(&path, &header(1 << 20)),
        Err(JournalError::Exists(_))
    ));
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn a_stopped_probe_still_restores() {
    let mut dev = Mem::new(128 * MIB, 64 * MIB, Mode::Drop);
    let before = dev.clone();
    let path = journal_path("stop");
    let stop = AtomicBool::new(true);
    let r = run(
        &mut dev,
        small(),
        Some((&path, &header(128 * MIB))),
        &stop,
        &mut |_| {},
    )
    .unwrap();
    assert!(r.outcome.interrupted);
    assert_eq!(r.outcome.class, None);
    assert!(dev.same_as(&before));
    std::fs::remove_file(&path).unwrap();
}

/// The modelled time (the device's virtual clock) of a whole run, restore included.
fn timed(
    name: &str,
    size: u64,
    real: u64,
    mode: Mode,
    t: Timing,
    cfg: ProbeConfig,
) -> (Outcome, f64) {
    let mut dev = Mem::new(size, real, mode).with_timing(t);
    let o = probe_kept(name, &mut dev, cfg);
    let secs = dev.now_ns() as f64 / 1e9;
    eprintln!(
        "{name} {mode:?}: {:?} real {:?}, {secs:.1} s modelled, run {} blocks, {} single, {} rounds",
        o.class, o.real, o.run_blocks, o.scattered_blocks, o.rounds
    );
    (o, secs)
}

fn all_kinds() -> [Mode; 5] {
    [
        Mode::Genuine,
        Mode::Wrap,
        Mode::Drop,
        Mode::Limbo(8 * MIB),
        Mode::ReadErr,
    ]
}

#[test]
fn a_4gib_drive_with_scattered_commands_of_5_to_10_ms_takes_under_30_s() {
    let t = Timing::scattered_ms(5.0, 10.0, 50.0);
    let (size, real) = (4096 * MIB, 3000 * MIB);
    for mode in all_kinds() {
        let (o, secs) = timed("4g", size, real, mode, t, ProbeConfig::default());
        let want = if mode == Mode::Genuine { size } else { real };
        assert_eq!(o.real, Some(want), "{mode:?}");
        assert!(
            secs < 30.0,
            "{mode:?}: {secs:.1} s, run of {} blocks",
            o.run_blocks
        );
        assert!(o.run_blocks > 1024, "{mode:?}: a longer run than sqrt(n)");
    }
    // The square-root grid (a run of sqrt(n) blocks, as many single blocks) misses it.
    let sqrt = ProbeConfig {
        run: Some(1024),
        ..ProbeConfig::default()
    };
    for mode in [Mode::Genuine, Mode::Drop] {
        let (_, secs) = timed("4g-sqrt", size, real, mode, t, sqrt);
        assert!(secs > 30.0, "{mode:?}, the square-root grid: {secs:.1} s");
    }
}

#[test]
fn a_2tb_drive_holding_32gib_at_50_mb_s_takes_under_2_minutes() {
    // A USB stick's commands: 0.5 ms to position (its overhead and the host's path), 50 MB/s.
    let t = Timing::scattered_ms(0.5, 0.5, 50.0);
    let (size, real) = (2_000_000_000_000, 32 << 30);
    for mode in [Mode::Genuine, Mode::Wrap, Mode::Drop] {
        let (o, secs) = timed("2t", size, real, mode, t, ProbeConfig::default());
        let want = if mode == Mode::Genuine { size } else { real };
        assert_eq!(o.real, Some(want), "{mode:?}");
        assert!(
            secs < 120.0,
            "{mode:?}: {secs:.1} s, run of {} blocks",
            o.run_blocks
        );
    }
}

#[test]
fn the_costs_are_measured_before_the_rounds() {
    let t = Timing::scattered_ms(5.0, 10.0, 50.0);
    let mut dev = Mem::new(4096 * MIB, 4096 * MIB, Mode::Genuine).with_timing(t);
    let o = probe_kept("costs", &mut dev, ProbeConfig::default());
    let c = o.costs.unwrap();
    // 4 KiB at 50 MB/s is 82 us; positioning 5 to 10 ms by distance.
    for ns in [c.scattered_read_ns, c.scattered_write_ns] {
        assert!((5.0e6..10.1e6).contains(&ns), "{c:?}");
    }
    for ns in [c.seq_read_mib_ns, c.seq_write_mib_ns] {
        assert!((ns - 20.97e6).abs() < 0.1e6, "{c:?}");
    }
}
