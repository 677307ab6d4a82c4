//! A link that caps every transfer: reads that top out at one rate whatever their size and queue depth.

use drivescope_probe::Node;
use drivescope_record::{BenchRecord, Confidence, Direction, Finding, FindingCode, Identity};
use drivescope_units::format_rate;

/// What the usual links deliver in practice, MB/s (10^6 B/s), their names, and the kind of link (as the probe
/// names links: `usb`, `sata`, `nic`).
pub const USUAL_CEILINGS: &[(f64, &str, &str)] = &[
    (40.0, "USB 2.0", "usb"),
    (118.0, "1 GbE", "nic"),
    (150.0, "SATA 1.5 Gb/s", "sata"),
    (295.0, "2.5 GbE", "nic"),
    (300.0, "SATA 3 Gb/s", "sata"),
    (450.0, "USB 5 Gb/s", "usb"),
    (600.0, "SATA 6 Gb/s", "sata"),
    (1180.0, "10 GbE", "nic"),
];

/// How close a flat rate must be to a usual ceiling to name it.
const NEAR: f64 = 0.04;
/// How flat the tests must be: the slowest within this of the fastest.
const FLAT: f64 = 0.03;

/// The usual link a rate matches (within 4 %), if any.
pub fn usual_ceiling(mb_per_s: f64) -> Option<(f64, &'static str)> {
    usual_ceiling_of(mb_per_s, |_| true)
}

fn usual_ceiling_of(mb_per_s: f64, kind_ok: impl Fn(&str) -> bool) -> Option<(f64, &'static str)> {
    USUAL_CEILINGS
        .iter()
        .find(|(c, _, kind)| (mb_per_s / c - 1.0).abs() <= NEAR && kind_ok(kind))
        .map(|(c, name, _)| (*c, *name))
}

/// The kinds of link the identity knows on the path (`nic` for a network mount); empty when it knows none (a
/// loop device, an unknown bus).
fn path_kinds(id: Option<&Identity>) -> Vec<String> {
    let Some(id) = id else {
        return Vec::new();
    };
    let mut kinds: Vec<String> = id.links.iter().map(|l| l.kind.clone()).collect();
    if id
        .layers
        .iter()
        .any(|l| matches!(l.node, Node::Network { .. }))
    {
        kinds.push("nic".into());
    }
    kinds
}

/// Sequential reads of at least two shapes (block size or queue depth) that all top out at one rate. Named
/// after the link the target's identity says is slowest when the rate reaches it, else after the usual link of
/// a kind on the path that it matches (any kind when the path is unknown); a flat rate that matches none is left
/// alone (a device's own media can be flat too). Flat over queue depths alone is weaker evidence than flat over
/// block sizes too: a device slow per command is flat over queue depths when it serves one at a time.
pub fn of_bench(b: &BenchRecord) -> Option<Finding> {
    let seq: Vec<_> = b
        .tests
        .iter()
        .filter(|t| t.rw == Direction::Read && t.errors == 0 && t.name.starts_with("SEQ"))
        .collect();
    let block_sizes = {
        let mut b: Vec<u64> = seq.iter().map(|t| t.load.block_size).collect();
        b.sort_unstable();
        b.dedup();
        b.len()
    };
    let shapes = {
        let mut s: Vec<(u64, u32, u32)> = seq
            .iter()
            .map(|t| (t.load.block_size, t.load.queue_depth, t.load.threads))
            .collect();
        s.sort_unstable();
        s.dedup();
        s.len()
    };
    if shapes < 2 {
        return None;
    }
    let rates: Vec<f64> = seq.iter().map(|t| t.mb_per_s).collect();
    of_rates(
        &rates,
        block_sizes,
        b.header.device.as_ref(),
        "every sequential read",
    )
}

/// Sequential read rates of several shapes (`block_sizes` of them distinct) that all top out at one rate: named
/// as [`of_bench`] says. `what` names the reads in the claim.
pub fn of_rates(
    rates: &[f64],
    block_sizes: usize,
    device: Option<&Identity>,
    what: &str,
) -> Option<Finding> {
    let lo = rates.iter().copied().reduce(f64::min)?;
    let hi = rates.iter().copied().reduce(f64::max)?;
    if lo <= 0.0 || hi / lo - 1.0 > FLAT {
        return None;
    }
    let rate = (lo + hi) / 2.0;
    let known = device.and_then(|id| {
        let link = id.bottleneck()?;
        let ceiling = link.ceiling_mb_per_s?;
        (rate >= 0.85 * ceiling && rate <= 1.05 * ceiling).then(|| {
            (
                ceiling,
                format!("the {} link {} ({})", link.kind, link.name, link.detail),
            )
        })
    });
    let (ceiling, name, confidence) = match known {
        Some((c, kind)) => (c, kind, Confidence::High),
        None => {
            let kinds = path_kinds(device);
            let (c, name) =
                usual_ceiling_of(rate, |k| kinds.is_empty() || kinds.iter().any(|p| p == k))?;
            let confidence = if block_sizes >= 2 {
                Confidence::Medium
            } else {
                Confidence::Low
            };
            (c, name.to_string(), confidence)
        }
    };
    let claim = format!(
        "{what} tops out at {lo:.0}–{hi:.0} MB/s, independent of block size and queue depth: \
         matches {name} (~{})",
        format_rate(ceiling)
    );
    Some(Finding::new(
        FindingCode::LinkCap,
        confidence,
        claim,
        &[
            ("min_mb_per_s", lo),
            ("max_mb_per_s", hi),
            ("ceiling_mb_per_s", ceiling),
        ],
    ))
}
