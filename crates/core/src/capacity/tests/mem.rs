//! An in-memory device that fakes its capacity the ways real ones do (the lab's `[fake]` modes,
//! kept sparse so a 2 TB device costs only what is written), on a virtual clock: each command
//! costs its transfer at `mb_s`, and a command that does not continue the previous one also a
//! positioning time that grows with the distance (as the lab's seek).

use super::super::BlockDevice;
use std::collections::{HashMap, VecDeque};
use std::io;

pub const G: u64 = 4096;

#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Mode {
    Genuine,
    Wrap,
    Drop,
    Limbo(u64),
    ReadErr,
}

/// What commands cost: positioning (ns, at the smallest and at the whole-device distance) for
/// reads and for writes, and the transfer rate.
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct Timing {
    pub read: (f64, f64),
    pub write: (f64, f64),
    pub mb_s: f64,
}

impl Timing {
    /// A USB flash stick: 0.2 ms a scattered command, 50 MB/s.
    pub fn flash() -> Timing {
        Timing {
            read: (0.2e6, 0.2e6),
            write: (0.2e6, 0.2e6),
            mb_s: 50.0,
        }
    }

    /// Scattered commands of `lo` to `hi` ms by distance (a disk, or cheap flash), `mb_s`.
    pub fn scattered_ms(lo: f64, hi: f64, mb_s: f64) -> Timing {
        Timing {
            read: (lo * 1e6, hi * 1e6),
            write: (lo * 1e6, hi * 1e6),
            mb_s,
        }
    }
}

/// A sparse device of `size` bytes keeping `real`; unwritten granules read as a pattern of
/// their own (what the device held before), so a restore that misses one shows.
#[derive(Clone)]
pub struct Mem {
    pub size: u64,
    real: u64,
    mode: Mode,
    pub timing: Timing,
    /// Virtual time (ns) and where the last command ended.
    clock: u64,
    head: u64,
    data: HashMap<u64, Vec<u8>>,
    limbo: VecDeque<u64>,
    limbo_data: HashMap<u64, Vec<u8>>,
    /// Fail every command after this many more writes (a pulled drive, a killed process).
    pub writes_left: Option<u64>,
}

impl Mem {
    pub fn new(size: u64, real: u64, mode: Mode) -> Mem {
        Mem {
            size,
            real,
            mode,
            timing: Timing::flash(),
            clock: 0,
            head: 0,
            data: HashMap::new(),
            limbo: VecDeque::new(),
            limbo_data: HashMap::new(),
            writes_left: None,
        }
    }

    fn initial(g: u64, out: &mut [u8]) {
        for (i, b) in out.iter_mut().enumerate() {
            *b = ((g / G) as u8) ^ (i as u8);
        }
    }

    /// What the granule at `at` reads as, into `out` (one granule).
    fn get_into(&self, at: u64, out: &mut [u8]) -> io::Result<()> {
        if at < self.real || self.mode == Mode::Genuine {
            match self.data.get(&at) {
                Some(d) => out.copy_from_slice(d),
                None => Mem::initial(at, out),
            }
            return Ok(());
        }
        match self.mode {
            Mode::Wrap => self.get_into(at % self.real, out),
            Mode::Drop => {
                out.fill(0);
                Ok(())
            }
            Mode::ReadErr => Err(io::Error::from_raw_os_error(libc::EIO)),
            Mode::Limbo(_) => {
                match self.limbo_data.get(&at) {
                    Some(d) => out.copy_from_slice(d),
                    None => out.fill(0),
                }
                Ok(())
            }
            Mode::Genuine => unreachable!(),
        }
    }

    fn get(&self, at: u64) -> io::Result<Vec<u8>> {
        let mut out = vec![0; G as usize];
        self.get_into(at, &mut out)?;
        Ok(out)
    }

    fn put(&mut self, at: u64, d: &[u8]) {
        if at < self.real || self.mode == Mode::Genuine {
            match self.data.get_mut(&at) {
                Some(old) => old.copy_from_slice(d),
                None => {
                    self.data.insert(at, d.to_vec());
                }
            }
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
    pub fn same_as(&self, before: &Mem) -> bool {
        let mut keys = self.touched();
        keys.extend(before.touched());
        keys.sort();
        keys.dedup();
        keys.iter()
            .all(|k| self.get(*k).ok() == before.get(*k).ok())
    }
}

impl Mem {
    pub fn with_timing(mut self, t: Timing) -> Mem {
        self.timing = t;
        self
    }

    /// Lay one command on the virtual clock.
    fn tick(&mut self, write: bool, offset: u64, len: u64) {
        let (lo, hi) = if write {
            self.timing.write
        } else {
            self.timing.read
        };
        if offset != self.head {
            let f = (offset.abs_diff(self.head) as f64 / self.size as f64).sqrt();
            self.clock += (lo + (hi - lo) * f) as u64;
        }
        self.clock += (len as f64 * 1e3 / self.timing.mb_s) as u64;
        self.head = offset + len;
    }
}

impl BlockDevice for Mem {
    fn now_ns(&self) -> u64 {
        self.clock
    }
    fn size(&self) -> u64 {
        self.size
    }
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        if self.writes_left == Some(0) {
            return Err(io::Error::from_raw_os_error(libc::ENODEV));
        }
        self.tick(false, offset, buf.len() as u64);
        for (i, b) in buf.chunks_mut(G as usize).enumerate() {
            self.get_into(offset + i as u64 * G, b)?;
        }
        Ok(())
    }
    fn write_at(&mut self, offset: u64, data: &[u8]) -> io::Result<()> {
        match &mut self.writes_left {
            Some(0) => return Err(io::Error::from_raw_os_error(libc::ENODEV)),
            Some(n) => *n -= 1,
            None => {}
        }
        self.tick(true, offset, data.len() as u64);
        for (i, b) in data.chunks(G as usize).enumerate() {
            self.put(offset + i as u64 * G, b);
        }
        Ok(())
    }
    fn sync(&mut self) -> io::Result<()> {
        Ok(())
    }
}
