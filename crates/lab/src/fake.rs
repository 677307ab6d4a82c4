//! A disk that fakes its capacity: it reports `size` but keeps only the first `real` bytes.
//!
//! What happens to data past `real` is the `[fake]` section's `mode`:
//! * `wrap`: addresses wrap around: the byte at `x >= real` is stored at `x mod real`, over
//!   whatever the real area held there (the cheap flash controllers that ignore the high
//!   address bits, at any modulus, not only powers of two);
//! * `drop`: writes past `real` are acknowledged and thrown away; reads there return zeros;
//! * `limbo`: writes past `real` land in a cache that keeps the last `cache` bytes written past
//!   `real` (4 KiB granules, oldest out first); reads there return the cached data while it is
//!   held, zeros once it is gone;
//! * `readerr`: writes past `real` are thrown away; reads there fail with EIO.
//!
//! Zeros are what the fakes this models return for data they never kept (others return 0xff or
//! stale data; any content that is not the data written tells the same story).
//!
//! The data path of the FUSE file system calls [`FakeMedia::read`] and [`FakeMedia::write`]
//! in place of its plain reads and writes of the backing file.

use crate::units::de_size;
use drivescope_record::{CapacityClass, CapacityTruth};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, VecDeque};
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::sync::Mutex;

/// Granule of the limbo cache.
pub const GRANULE: u64 = 4096;

/// What the disk does with data past its real size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FakeMode {
    Wrap,
    Drop,
    Limbo,
    Readerr,
}

/// The `[fake]` section of a model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fake {
    /// Bytes from offset 0 that keep their data.
    #[serde(deserialize_with = "de_size")]
    pub real: u64,
    pub mode: FakeMode,
    /// Limbo: bytes of the latest writes past `real` the cache keeps.
    #[serde(deserialize_with = "de_size", default)]
    pub cache: u64,
}

impl Fake {
    /// Check the section against the disk's size; the reason when it does not fit.
    pub fn check(&self, size: u64) -> Result<(), String> {
        if self.real == 0 || self.real >= size || !self.real.is_multiple_of(GRANULE) {
            return Err("fake.real must be a multiple of 4 KiB, above 0 and below size".into());
        }
        match self.mode {
            FakeMode::Limbo if self.cache == 0 || !self.cache.is_multiple_of(GRANULE) => {
                Err("a limbo fake needs fake.cache, a multiple of 4 KiB".into())
            }
            FakeMode::Limbo => Ok(()),
            _ if self.cache != 0 => Err("fake.cache belongs to mode = \"limbo\" only".into()),
            _ => Ok(()),
        }
    }

    /// The truth a capacity probe must find.
    pub fn truth(&self, size: u64) -> CapacityTruth {
        CapacityTruth {
            nominal: size,
            real: self.real,
            class: match self.mode {
                FakeMode::Wrap => CapacityClass::Wrap,
                FakeMode::Drop => CapacityClass::Drop,
                FakeMode::Limbo => CapacityClass::Limbo,
                FakeMode::Readerr => CapacityClass::ReadErrors,
            },
            modulus: (self.mode == FakeMode::Wrap).then_some(self.real),
            cache: (self.mode == FakeMode::Limbo).then_some(self.cache),
        }
    }
}

/// The limbo cache: granule offset → data, and the order they came in.
#[derive(Default)]
struct Limbo {
    data: HashMap<u64, Vec<u8>>,
    order: VecDeque<u64>,
}

/// A fake disk's data path over its backing file.
pub struct FakeMedia {
    fake: Fake,
    limbo: Mutex<Limbo>,
}

impl FakeMedia {
    pub fn new(fake: &Fake) -> FakeMedia {
        FakeMedia {
            fake: fake.clone(),
            limbo: Mutex::new(Limbo::default()),
        }
    }

    /// Read `buf.len()` bytes at `offset`: Err(EIO) for a read the disk fails.
    pub fn read(&self, backing: &File, offset: u64, buf: &mut [u8]) -> Result<(), i32> {
        let real = self.fake.real;
        let mut pos = 0usize;
        while pos < buf.len() {
            let at = offset + pos as u64;
            if at < real {
                let n = ((real - at) as usize).min(buf.len() - pos);
                backing
                    .read_exact_at(&mut buf[pos..pos + n], at)
                    .map_err(|_| libc::EIO)?;
                pos += n;
                continue;
            }
            match self.fake.mode {
                FakeMode::Wrap => {
                    let phys = at % real;
                    let n = ((real - phys) as usize).min(buf.len() - pos);
                    backing
                        .read_exact_at(&mut buf[pos..pos + n], phys)
                        .map_err(|_| libc::EIO)?;
                    pos += n;
                }
                FakeMode::Drop => {
                    buf[pos..].fill(0);
                    pos = buf.len();
                }
                FakeMode::Readerr => return Err(libc::EIO),
                FakeMode::Limbo => {
                    let g = at / GRANULE * GRANULE;
                    let inner = (at - g) as usize;
                    let n = (GRANULE as usize - inner).min(buf.len() - pos);
                    let limbo = self.limbo.lock().expect("limbo");
                    match limbo.data.get(&g) {
                        Some(d) => buf[pos..pos + n].copy_from_slice(&d[inner..inner + n]),
                        None => buf[pos..pos + n].fill(0),
                    }
                    pos += n;
                }
            }
        }
        Ok(())
    }

    /// Write `data` at `offset` as the fake stores it.
    pub fn write(&self, backing: &File, offset: u64, data: &[u8]) -> std::io::Result<()> {
        let real = self.fake.real;
        let mut pos = 0usize;
        while pos < data.len() {
            let at = offset + pos as u64;
            if at < real {
                let n = ((real - at) as usize).min(data.len() - pos);
                backing.write_all_at(&data[pos..pos + n], at)?;
                pos += n;
                continue;
            }
            match self.fake.mode {
                FakeMode::Wrap => {
                    let phys = at % real;
                    let n = ((real - phys) as usize).min(data.len() - pos);
                    backing.write_all_at(&data[pos..pos + n], phys)?;
                    pos += n;
                }
                FakeMode::Drop | FakeMode::Readerr => pos = data.len(),
                FakeMode::Limbo => {
                    let g = at / GRANULE * GRANULE;
                    let inner = (at - g) as usize;
                    let n = (GRANULE as usize - inner).min(data.len() - pos);
                    self.keep(g, inner, &data[pos..pos + n]);
                    pos += n;
                }
            }
        }
        Ok(())
    }

    /// Put (part of) granule `g` into the limbo cache as its newest entry.
    fn keep(&self, g: u64, inner: usize, bytes: &[u8]) {
        let mut limbo = self.limbo.lock().expect("limbo");
        let mut block = limbo
            .data
            .remove(&g)
            .unwrap_or_else(|| vec![0u8; GRANULE as usize]);
        block[inner..inner + bytes.len()].copy_from_slice(bytes);
        limbo.order.retain(|o| *o != g);
        limbo.order.push_back(g);
        limbo.data.insert(g, block);
        let keep = (self.fake.cache / GRANULE) as usize;
        while limbo.order.len() > keep {
            if let Some(old) = limbo.order.pop_front() {
                limbo.data.remove(&old);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn media(mode: FakeMode, cache: u64) -> (FakeMedia, File) {
        let fake = Fake {
            real: 64 << 10,
            mode,
            cache,
        };
        fake.check(256 << 10).unwrap();
        let f = tempfile_in_tmp();
        f.set_len(256 << 10).unwrap();
        (FakeMedia::new(&fake), f)
    }

    fn tempfile_in_tmp() -> File {
        let path = std::env::temp_dir().join(format!(
            "drivescope-fake-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&path)
            .unwrap();
        std::fs::remove_file(&path).unwrap();
        f
    }

    fn read(m: &FakeMedia, f: &File, at: u64) -> Result<u8, i32> {
        let mut b = [0u8; 4096];
        m.read(f, at, &mut b).map(|_| b[0])
    }

    #[test]
    fn wrap_lands_past_real_on_the_start() {
        let (m, f) = media(FakeMode::Wrap, 0);
        m.write(&f, 8192, &[1u8; 4096]).unwrap();
        m.write(&f, (64 << 10) + 8192, &[2u8; 4096]).unwrap();
        assert_eq!(read(&m, &f, 8192), Ok(2), "overwritten through the wrap");
        assert_eq!(read(&m, &f, (192 << 10) + 8192), Ok(2), "any multiple");
        // A write that crosses the real size splits at it.
        m.write(&f, (64 << 10) - 4096, &[3u8; 8192]).unwrap();
        assert_eq!(read(&m, &f, 0), Ok(3));
    }

    #[test]
    fn drop_and_read_errors_keep_nothing_past_real() {
        let (m, f) = media(FakeMode::Drop, 0);
        m.write(&f, 100 << 10, &[7u8; 4096]).unwrap();
        assert_eq!(read(&m, &f, 100 << 10), Ok(0));
        m.write(&f, 4096, &[7u8; 4096]).unwrap();
        assert_eq!(read(&m, &f, 4096), Ok(7));
        let (m, f) = media(FakeMode::Readerr, 0);
        m.write(&f, 100 << 10, &[7u8; 4096]).unwrap();
        assert_eq!(read(&m, &f, 100 << 10), Err(libc::EIO));
        assert_eq!(read(&m, &f, 0), Ok(0));
    }

    #[test]
    fn limbo_keeps_only_the_latest_writes_past_real() {
        let (m, f) = media(FakeMode::Limbo, 16 << 10);
        for i in 0..8u64 {
            m.write(&f, (64 << 10) + i * 4096, &[i as u8 + 1; 4096])
                .unwrap();
        }
        // 16 KiB kept: the last four granules written.
        for i in 0..8u64 {
            let want = if i >= 4 { i as u8 + 1 } else { 0 };
            assert_eq!(read(&m, &f, (64 << 10) + i * 4096), Ok(want), "{i}");
        }
    }

    #[test]
    fn sections_that_do_not_fit_are_refused() {
        let bad = |real, mode, cache| Fake { real, mode, cache }.check(1 << 20).is_err();
        assert!(bad(0, FakeMode::Wrap, 0));
        assert!(bad(1 << 20, FakeMode::Drop, 0));
        assert!(bad(4095, FakeMode::Drop, 0));
        assert!(bad(4096, FakeMode::Limbo, 0));
        assert!(bad(4096, FakeMode::Wrap, 4096));
        assert!(!bad(4096, FakeMode::Limbo, 8192));
    }
}
