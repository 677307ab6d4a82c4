//! What the device's commands cost, measured with a few commands before the probe's rounds.
//!
//! Eight single blocks far apart (each far from the one before) are read, then a few MiB at
//! the start of the device in 1 MiB commands; then the same blocks and MiB are written with
//! what they were read holding, so the device holds what it held (a block that could not be
//! read is not written). A scattered command costs the median of its eight; a sequential MiB
//! the mean of the MiB after the first (the first one positions).
//! Devices too small to measure are given [`Costs::uniform`].

use super::device::CHUNK;
use super::plan::Costs;
use super::probe::{ProbeError, Prober};

/// Scattered blocks timed.
pub const SCATTERED: u64 = 8;

/// Devices of fewer blocks get uniform costs.
const SMALLEST: u64 = 1024;

fn median(mut v: Vec<u64>) -> f64 {
    v.sort_unstable();
    match v.len() {
        0 => 0.0,
        n => v[n / 2] as f64,
    }
}

/// The i-th scattered place (i from 1): the van der Corput sequence over the device, so each
/// lies far from the one before.
fn place(i: u64, n: u64) -> u64 {
    let (mut f, mut d, mut x) = (0.0f64, 0.5f64, i);
    while x > 0 {
        if x & 1 == 1 {
            f += d;
        }
        d /= 2.0;
        x >>= 1;
    }
    ((f * n as f64) as u64).min(n - 1)
}

/// Measure `pr`'s device: scattered block reads and writes, sequential MiB reads and writes.
pub(super) fn costs(pr: &mut Prober<'_>) -> Result<Costs, ProbeError> {
    let bs = pr.cfg.block;
    let n = pr.size / bs;
    if n < SMALLEST {
        return Ok(Costs::uniform(bs));
    }
    // Sequential: 4 commands of up to 1 MiB at the start, at most an eighth of the device.
    let chunk = (CHUNK as u64).min(pr.size / 32 / bs * bs).max(bs);
    let seq = (0, 4 * chunk);
    let mut places: Vec<u64> = (1..=SCATTERED).map(|i| place(i, n) * bs).collect();
    places.retain(|p| *p >= seq.1);
    places.dedup();

    let mut blocks = Vec::new();
    let mut read_ns = Vec::new();
    for &at in &places {
        let mut b = vec![0u8; bs as usize];
        let t = pr.dev.now_ns();
        let ok = pr.dev.read_at(at, &mut b).is_ok();
        read_ns.push(pr.dev.now_ns().saturating_sub(t));
        pr.out.bytes_read += bs;
        if ok {
            blocks.push((at, b));
        }
    }
    let mut chunks = Vec::new();
    let mut seq_read = Vec::new();
    for i in 0..4 {
        let mut b = vec![0u8; chunk as usize];
        let t = pr.dev.now_ns();
        let ok = pr.dev.read_at(i * chunk, &mut b).is_ok();
        seq_read.push(pr.dev.now_ns().saturating_sub(t));
        pr.out.bytes_read += chunk;
        chunks.push(ok.then_some(b));
    }
    // Each block is written with what it was just read holding: nothing changes on the
    // device, whenever the probe is stopped (no journal needed, nothing to restore).
    let mut write_ns = Vec::new();
    for (at, b) in &blocks {
        let t = pr.dev.now_ns();
        let _ = pr.dev.write_at(*at, b);
        write_ns.push(pr.dev.now_ns().saturating_sub(t));
        pr.count_write(bs);
    }
    let mut seq_write = Vec::new();
    for (i, b) in chunks.iter().enumerate() {
        let Some(b) = b else {
            break;
        };
        let t = pr.dev.now_ns();
        let _ = pr.dev.write_at(i as u64 * chunk, b);
        seq_write.push(pr.dev.now_ns().saturating_sub(t));
        pr.count_write(chunk);
    }
    let read = median(read_ns);
    let write = if write_ns.is_empty() {
        read
    } else {
        median(write_ns)
    };
    let per_mib = |v: &[u64]| match v.len() {
        0 | 1 => None,
        n => Some(
            v[1..].iter().sum::<u64>() as f64 / (n - 1) as f64 * (1u64 << 20) as f64 / chunk as f64,
        ),
    };
    let seq_r = per_mib(&seq_read).unwrap_or(read * (1u64 << 20) as f64 / bs as f64);
    Ok(Costs {
        scattered_write_ns: write,
        scattered_read_ns: read,
        seq_write_mib_ns: per_mib(&seq_write).unwrap_or(seq_r),
        seq_read_mib_ns: seq_r,
    })
}
#[cfg(test)]
mod tests {
    use super::place;

    #[test]
    fn scattered_places_are_distinct_and_far_apart() {
        let n = 1 << 20;
        let p: Vec<u64> = (1..=super::SCATTERED).map(|i| place(i, n)).collect();
        let mut s = p.clone();
        s.sort();
        s.dedup();
        assert_eq!(s.len(), p.len());
        for w in p.windows(2) {
            assert!(w[0].abs_diff(w[1]) >= n / 8, "{p:?}");
        }
    }
}
