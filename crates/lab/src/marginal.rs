//! Marginal sectors around a bad spot (`marginal` in a model's `bad` entry): each reads fine
//! the first time and fails every read after that, as the damage of a failing drive grows
//! while it is read. A read command fails when it covers a marginal sector that an earlier
//! successful read covered; a command that succeeds marks every marginal sector it covers as
//! read. Writes do not touch the state.

use crate::model::Model;
use std::collections::HashSet;
use std::sync::Mutex;

/// The lab's logical sector.
const SECTOR: u64 = 512;

/// The margins of a model's bad spots and which of their sectors were read.
#[derive(Debug, Default)]
pub struct Marginal {
    /// `[start, end)` of each margin, sector aligned.
    areas: Vec<(u64, u64)>,
    read: Mutex<HashSet<u64>>,
}

impl Marginal {
    pub fn new(model: &Model) -> Self {
        let mut areas = Vec::new();
        for b in model.bad.iter().filter(|b| b.read && b.marginal > 0) {
            let lo = b.offset.saturating_sub(b.marginal) / SECTOR * SECTOR;
            let hi = (b.offset + b.length + b.marginal).min(model.size);
            let hi = hi.div_ceil(SECTOR) * SECTOR;
            if lo < b.offset {
                areas.push((lo, b.offset));
            }
            let after = b.offset + b.length;
            if after < hi {
                areas.push((after, hi));
            }
        }
        Marginal {
            areas,
            read: Mutex::new(HashSet::new()),
        }
    }

    /// Whether a read of `[offset, offset + len)` fails on a marginal sector; when it does
    /// not, its marginal sectors count as read from now on.
    pub fn read_fails(&self, offset: u64, len: u64) -> bool {
        let end = offset + len;
        let sectors = || {
            self.areas
                .iter()
                .filter(move |&&(lo, hi)| lo < end && offset < hi)
                .flat_map(move |&(lo, hi)| {
                    let from = offset.max(lo) / SECTOR;
                    let to = end.min(hi).div_ceil(SECTOR);
                    from..to
                })
        };
        if self.areas.is_empty() {
            return false;
        }
        let mut read = self.read.lock().expect("marginal sectors");
        if sectors().any(|s| read.contains(&s)) {
            return true;
        }
        read.extend(sectors());
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(toml: &str) -> Model {
        Model::from_toml_str(toml, "test").unwrap()
    }

    #[test]
    fn a_marginal_sector_reads_once_then_fails() {
        let m = model(
            "name='m'\nsize='8M'\nzones={rates_mb_s=[100]}\n\
             bad=[{offset='1M',length='64K',marginal='8K'}]",
        );
        let g = Marginal::new(&m);
        let before = (1 << 20) - 8192;
        assert!(!g.read_fails(before, 4096), "first read of the margin");
        assert!(g.read_fails(before, 512), "read again");
        assert!(g.read_fails(before - 4096, 8192), "a command over it");
        // The untouched half of the margin still reads once.
        assert!(!g.read_fails(before + 4096, 4096));
        assert!(g.read_fails(before + 4096, 4096));
        // Beyond the margin: never.
        for _ in 0..3 {
            assert!(!g.read_fails(before - 65536, 65536));
        }
        // After the spot, the same.
        let after = (1 << 20) + 65536;
        assert!(!g.read_fails(after, 65536), "covers the margin and beyond");
        assert!(g.read_fails(after + 8192 - 512, 512));
        assert!(!g.read_fails(after + 8192, 512));
        assert!(!g.read_fails(after + 8192, 512));
    }

    #[test]
    fn no_margin_no_state() {
        let m = model(
            "name='m'\nsize='8M'\nzones={rates_mb_s=[100]}\nbad=[{offset='1M',length='64K'}]",
        );
        let g = Marginal::new(&m);
        for _ in 0..3 {
            assert!(!g.read_fails((1 << 20) - 4096, 4096));
        }
    }
}
