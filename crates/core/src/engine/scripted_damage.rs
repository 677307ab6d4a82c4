//! A space of damaged and vanishing devices for the scripted engine, with their truth.
//!
//! [`DamageModel::draw`] draws a device from ranges as wide as real damage: patches from one
//! sector to hundreds of MiB, one or many, fixed or growing as they are read (each patch's
//! *margin*, 0 to 160 MiB on each side, reads fine once and fails every read after, as the
//! damage of a failing drive spreads), and devices that really go away mid-scan: from a time
//! every command fails with `ENODEV`, or with `EIO` while the kernel removes the device, or
//! with `EIO` and the kernel silent. [`DamageModel::script`] turns a model into the script of a
//! [`Scripted`](super::scripted::Scripted) device; [`DamageModel::hull`] is the truth a scan's
//! map is checked against.
//!
//! Patches lie in slots of their own (the device split in as many equal slots as patches):
//! each patch with its margins fills at most 40 % of its slot, so a device is never mostly
//! damage.

use super::scripted::{Call, Reply};
use crate::rng::Rng;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// A device's script.
pub type Script = Box<dyn FnMut(&Call) -> Reply + Send>;

/// The model's sector.
pub const SECTOR: u64 = 512;
const MIB: u64 = 1 << 20;

/// A damaged patch: `[offset, offset + length)` always fails; `margin` bytes on each side
/// read fine once and fail every read after.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Patch {
    pub offset: u64,
    pub length: u64,
    pub margin: u64,
}

/// How a device goes away, from `at_ns` of the device's time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Vanish {
    /// Every command fails with `ENODEV`.
    Errno { at_ns: u64 },
    /// Every command fails with `EIO`; the kernel removes the block device.
    Kernel { at_ns: u64 },
    /// Every command fails with `EIO`; the kernel says nothing.
    Silent { at_ns: u64 },
}

impl Vanish {
    pub fn at_ns(&self) -> u64 {
        match *self {
            Vanish::Errno { at_ns } | Vanish::Kernel { at_ns } | Vanish::Silent { at_ns } => at_ns,
        }
    }
}

/// One drawn device.
#[derive(Debug, Clone)]
pub struct DamageModel {
    pub size: u64,
    /// The scan's command size for it (a thousandth of the device or so, 64 KiB to 1 MiB).
    pub block_size: u64,
    pub queue_depth: u32,
    pub patches: Vec<Patch>,
    pub vanish: Option<Vanish>,
    /// Latency of a failing command.
    pub fail_ns: u64,
}

/// What a device's script saw, for the test to read after the scan.
#[derive(Debug, Default)]
pub struct Seen {
    /// Commands issued after the device went away.
    pub after_gone: AtomicU64,
    /// Commands issued.
    pub commands: AtomicU64,
}

/// Latency of a command that reads fine: 50 µs and 500 MB/s.
pub fn ok_ns(len: u64) -> u64 {
    50_000 + len * 2
}

fn log_uniform(rng: &mut Rng, lo: u64, hi: u64) -> u64 {
    if hi <= lo {
        return lo;
    }
    let (a, b) = ((lo as f64).ln(), (hi as f64).ln());
    let u = rng.below(1 << 53) as f64 / (1u64 << 53) as f64;
    ((a + (b - a) * u).exp() as u64).clamp(lo, hi)
}

fn sectors(n: u64) -> u64 {
    n / SECTOR * SECTOR
}

impl DamageModel {
    /// A device of `sizes.0..=sizes.1` bytes (log-uniform) with 0 to 30 patches (one per
    /// 224 MiB at most); it goes away
    /// mid-scan with probability `gone`.
    pub fn draw(rng: &mut Rng, sizes: (u64, u64), gone: f64) -> DamageModel {
        let size = log_uniform(rng, sizes.0, sizes.1) / MIB * MIB;
        let block_size = (size / 1000).next_power_of_two().clamp(64 << 10, MIB);
        let queue_depth = [1, 1, 4, 32][rng.below(4) as usize];
        // Many patches only where each slot leaves room far from damage (224 MiB each).
        let most = (size / (224 * MIB)).clamp(1, 30);
        let n = match rng.below(10) {
            0 => 0,
            1..=4 => 1,
            5..=7 => 1 + rng.below(most.min(8)),
            _ => 1 + rng.below(most),
        };
        let mut patches = Vec::new();
        for i in 0..n {
            let slot = size / n;
            let room = slot * 2 / 5;
            let length =
                sectors(log_uniform(rng, SECTOR, (room * 3 / 4).min(400 * MIB))).max(SECTOR);
            let margin = if rng.below(10) < 3 {
                0
            } else {
                sectors(log_uniform(
                    rng,
                    SECTOR,
                    ((room - length) / 2).clamp(SECTOR, 160 * MIB),
                ))
            };
            let span = length + 2 * margin;
            let at = i * slot + rng.below(slot - span.min(slot) + 1);
            patches.push(Patch {
                offset: sectors(at + margin),
                length,
                margin,
            });
        }
        let fail_ns = [5_000_000, 20_000_000, 100_000_000][rng.below(3) as usize];
        let mut m = DamageModel {
            size,
            block_size,
            queue_depth,
            patches,
            vanish: None,
            fail_ns,
        };
        if (rng.below(1000) as f64) < gone * 1000.0 {
            let first_pass = m.first_pass_ns();
            let at_ns = first_pass / 20 + rng.below(first_pass * 9 / 10);
            m.vanish = Some(match rng.below(3) {
                0 => Vanish::Errno { at_ns },
                1 => Vanish::Kernel { at_ns },
                _ => Vanish::Silent { at_ns },
            });
        }
        m
    }

    /// About how long a first pass over the device takes when nothing fails.
    pub fn first_pass_ns(&self) -> u64 {
        self.size / self.block_size * ok_ns(self.block_size)
    }

    /// The device's script; `sysfs` is removed when the device goes away with the kernel's
    /// word ([`Vanish::Kernel`]).
    pub fn script(&self, sysfs: Option<PathBuf>) -> (Script, Arc<Seen>) {
        let seen = Arc::new(Seen::default());
        let m = self.clone();
        let out = seen.clone();
        let mut read = Margins::default();
        let script = Box::new(move |c: &Call| {
            seen.commands.fetch_add(1, Ordering::Relaxed);
            let (lo, hi) = (c.offset, c.offset + c.len as u64);
            if let Some(v) = m.vanish.filter(|v| c.device_ns >= v.at_ns()) {
                seen.after_gone.fetch_add(1, Ordering::Relaxed);
                return match v {
                    Vanish::Errno { .. } => Reply::err(30_000, libc::ENODEV),
                    Vanish::Kernel { .. } => {
                        if let Some(d) = &sysfs {
                            let _ = std::fs::remove_dir_all(d);
                        }
                        Reply::err(30_000, libc::EIO)
                    }
                    Vanish::Silent { .. } => Reply::err(30_000, libc::EIO),
                };
            }
            if c.write {
                return Reply::ok(ok_ns(c.len as u64));
            }
            let touched: Vec<Patch> = m
                .patches
                .iter()
                .filter(|p| p.offset - p.margin < hi && lo < p.offset + p.length + p.margin)
                .copied()
                .collect();
            if touched
                .iter()
                .any(|p| p.offset < hi && lo < p.offset + p.length)
            {
                return Reply::err(m.fail_ns, libc::EIO);
            }
            let margins: Vec<(u64, u64)> = touched
                .iter()
                .flat_map(|p| {
                    [
                        (p.offset - p.margin, p.offset),
                        (p.offset + p.length, p.offset + p.length + p.margin),
                    ]
                })
                .filter_map(|(a, b)| {
                    let (a, b) = (a.max(lo), b.min(hi));
                    (a < b).then_some((a, b))
                })
                .collect();
            if margins.iter().any(|&(a, b)| read.any(a, b)) {
                return Reply::err(m.fail_ns, libc::EIO);
            }
            for (a, b) in margins {
                read.add(a, b);
            }
            Reply::ok(ok_ns(c.len as u64))
        });
        (script, out)
    }

    /// The truth a scan's map is held to: every patch with its margins and `slack` bytes more
    /// on each side, joined where they lie under `join` apart, as `[start, end)` spans.
    pub fn hull(&self, slack: u64, join: u64) -> Vec<(u64, u64)> {
        let mut out: Vec<(u64, u64)> = Vec::new();
        let mut spans: Vec<(u64, u64)> = self
            .patches
            .iter()
            .map(|p| {
                (
                    (p.offset - p.margin).saturating_sub(slack),
                    (p.offset + p.length + p.margin + slack).min(self.size),
                )
            })
            .collect();
        spans.sort();
        for (a, b) in spans {
            match out.last_mut() {
                Some(l) if a <= l.1 + join => l.1 = l.1.max(b),
                _ => out.push((a, b)),
            }
        }
        out
    }

    /// Bytes that always fail.
    pub fn core_bytes(&self) -> u64 {
        self.patches.iter().map(|p| p.length).sum()
    }

    /// The widest margin.
    pub fn widest_margin(&self) -> u64 {
        self.patches.iter().map(|p| p.margin).max().unwrap_or(0)
    }
}

/// Margin sectors read once: `[start, end)` spans, joined.
#[derive(Debug, Default)]
struct Margins(BTreeMap<u64, u64>);

impl Margins {
    fn any(&self, a: u64, b: u64) -> bool {
        self.0.range(..b).next_back().is_some_and(|(_, &e)| e > a)
    }

    fn add(&mut self, mut a: u64, mut b: u64) {
        if let Some((&s, &e)) = self.0.range(..=a).next_back() {
            if e >= a {
                a = s;
                b = b.max(e);
            }
        }
        let inside: Vec<u64> = self.0.range(a..=b).map(|(&s, _)| s).collect();
        for s in inside {
            let e = self.0.remove(&s).expect("a span");
            b = b.max(e);
        }
        self.0.insert(a, b);
    }
}

/// A directory standing in for a vanishing device's sysfs one (its `size` reads 1000 until the script
/// removes it), removed on drop.
pub struct StandInSysfs(pub PathBuf);

impl StandInSysfs {
    /// A fresh one under the temporary directory, named by `tag`, the process and `n`.
    pub fn new(tag: &str, n: usize) -> StandInSysfs {
        let p = std::env::temp_dir().join(format!("drivescope-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        std::fs::write(p.join("size"), "1000\n").unwrap();
        StandInSysfs(p)
    }
}

impl Drop for StandInSysfs {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn margins_join_and_answer_overlaps() {
        let mut m = Margins::default();
        m.add(10, 20);
        m.add(30, 40);
        assert!(m.any(15, 16) && m.any(5, 11) && m.any(39, 50));
        assert!(!m.any(20, 30) && !m.any(0, 10) && !m.any(40, 41));
        m.add(18, 32);
        assert_eq!(m.0.len(), 1);
        assert!(m.any(25, 26));
    }

    #[test]
    fn a_margin_reads_once_and_the_core_never() {
        let m = DamageModel {
            size: 64 * MIB,
            block_size: 65536,
            queue_depth: 1,
            patches: vec![Patch {
                offset: 8 * MIB,
                length: MIB,
                margin: MIB,
            }],
            vanish: None,
            fail_ns: 1,
        };
        let (mut s, _) = m.script(None);
        let call = |offset: u64, len: u32| Call {
            offset,
            len,
            write: false,
            attempt: 0,
            at_ns: 0,
            device_ns: 0,
        };
        assert!(s(&call(7 * MIB, 4096)).result.is_ok());
        assert!(s(&call(7 * MIB, 512)).result.is_err(), "read twice");
        assert!(s(&call(8 * MIB, 512)).result.is_err(), "the core");
        assert!(s(&call(9 * MIB, 512)).result.is_ok());
        assert!(s(&call(10 * MIB, 512)).result.is_ok(), "beyond the margin");
        assert!(s(&call(10 * MIB, 512)).result.is_ok());
        assert_eq!(m.hull(0, 0), vec![(7 * MIB, 10 * MIB)]);
    }

    #[test]
    fn drawn_devices_keep_their_damage_inside_their_slots() {
        let mut rng = Rng::new(7);
        for _ in 0..500 {
            let m = DamageModel::draw(&mut rng, (512 * MIB, 16 << 30), 0.3);
            let n = m.patches.len().max(1) as u64;
            let hull: u64 = m.hull(0, 0).iter().map(|(a, b)| b - a).sum();
            assert!(hull <= m.size * 2 / 5 + n * SECTOR, "{m:?}");
            for p in &m.patches {
                assert!(p.offset >= p.margin && p.offset + p.length + p.margin <= m.size);
                assert_eq!(p.offset % SECTOR, 0);
            }
        }
    }
}
