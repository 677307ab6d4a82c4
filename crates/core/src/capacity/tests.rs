//! The probe and the journal on in-memory devices that fake their capacity the ways real ones
//! do (the lab's `[fake]` modes, kept sparse so a 4 GiB device costs only what is written).

use super::*;
use drivescope_record::CapacityClass;
use std::collections::{HashMap, VecDeque};
use std::io;

const G: u64 = 4096;

#[derive(Clone, Copy, PartialEq, Debug)]
enum Mode {
    Genuine,
    Wrap,
    Drop,
    Limbo(u64),
    ReadErr,
}

/// A sparse device of `size` bytes keeping `real`; unwritten granules read as a pattern of
/// their own (what the device held before), so a restore that misses one shows.
#[derive(Clone)]
struct Mem {
    size: u64,
    real: u64,
    mode: Mode,
    data: HashMap<u64, Vec<u8>>,
    limbo: VecDeque<u64>,
    limbo_data: HashMap<u64, Vec<u8>>,
    /// Fail every command after this many more writes (a pulled drive, a killed process).
    writes_left: Option<u64>,
}

impl Mem {
    fn new(size: u64, real: u64, mode: Mode) -> Mem {
        Mem {
            size,
            real,
            mode,
            data: HashMap::new(),
            limbo: VecDeque::new(),
            limbo_data: HashMap::new(),
            writes_left: None,
        }
    }

    fn initial(g: u64) -> Vec<u8> {
        (0..G).map(|i| ((g / G) as u8) ^ (i as u8)).collect()
    }

    fn get(&self, at: u64) -> io::Result<Vec<u8>> {
        if at < self.real || self.mode == Mode::Genuine {
            return Ok(self
                .data
                .get(&at)
                .cloned()
                .unwrap_or_else(|| Mem::initial(at)));
        }
        match self.mode {
            Mode::Wrap => self.get(at % self.real),
            Mode::Drop => Ok(vec![0; G as usize]),
            Mode::ReadErr => Err(io::Error::from_raw_os_error(libc::EIO)),
            Mode::Limbo(_) => Ok(self
                .limbo_data
                .get(&at)
                .cloned()
                .unwrap_or_else(|| vec![0; G as usize])),
            Mode::Genuine => unreachable!(),
        }
    }

    fn put(&mut self, at: u64, d: &[u8]) {
        if at < self.real || self.mode == Mode::Genuine {
            self.data.insert(at, d.to_vec());
            return;
        }
        match self.mode {
            Mode::Wrap => {
                let r = self.real;
                self.put(at % r, d)
            }
            Mode::Limbo(cache) => {
                self.limbo.retain(|g| *g != at);
                self.limbo.push_back(at);
                self.limbo_data.insert(at, d.to_vec());
                while self.limbo.len() as u64 > cache / G {
                    let old = self.limbo.pop_front().unwrap();
                    self.limbo_data.remove(&old);
                }
            }
            _ => {}
        }
    }

    /// Granules whose content may differ from a device never written: every one ever
    /// written and a spread of others.
    fn touched(&self) -> Vec<u64> {
        let mut keys: Vec<u64> = self.data.keys().copied().collect();
        keys.extend(self.limbo_data.keys().copied());
        keys.extend((0..self.size).step_by((self.size / 512).max(G) as usize));
        keys
    }

    /// Whether everything reads back as it did on `before` (a copy taken earlier).
    fn same_as(&self, before: &Mem) -> bool {
        let mut keys = self.touched();
        keys.extend(before.touched());
        keys.sort();
        keys.dedup();
        keys.iter()
            .all(|k| self.get(*k).ok() == before.get(*k).ok())
    }
}

impl BlockDevice for Mem {
    fn size(&self) -> u64 {
        self.size
    }
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        if self.writes_left == Some(0) {
            return Err(io::Error::from_raw_os_error(libc::ENODEV));
        }
        for (i, b) in buf.chunks_mut(G as usize).enumerate() {
            b.copy_from_slice(&self.get(offset + i as u64 * G)?);
        }
        Ok(())
    }
    fn write_at(&mut self, offset: u64, data: &[u8]) -> io::Result<()> {
        match &mut self.writes_left {
            Some(0) => return Err(io::Error::from_raw_os_error(libc::ENODEV)),
            Some(n) => *n -= 1,
            None => {}
        }
        for (i, b) in data.chunks(G as usize).enumerate() {
            self.put(offset + i as u64 * G, b);
        }
        Ok(())
    }
    fn sync(&mut self) -> io::Result<()> {
        Ok(())
    }
}

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
