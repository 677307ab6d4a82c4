//! A ceiling on the path or in the device: reads that top out at one rate whatever their size, queue depth and
//! position, named after a link only when one fits.

use drivescope_probe::Node;
use drivescope_record::{BenchRecord, Confidence, Direction, Finding, FindingCode, Identity};
use drivescope_units::format_rate;

/// What the usual links deliver in practice when they are the bottleneck, as a range in MB/s (10^6 B/s): its low
/// and high ends, the link's name, and its kind (as the probe names links: `usb`, `sata`, `nic`). The high end is
/// the payload the link can carry after its line coding and protocol; the low end is what common adapters, bridges
/// and file protocols are measured to reach over it.
pub const USUAL_CEILINGS: &[(f64, f64, &str, &str)] = &[
    // 480 Mb/s signalling (60 MB/s); bulk transfers over the mass-storage protocols reach 30–42 MB/s.
    (30.0, 42.0, "USB 2.0", "usb"),
    // 125 MB/s line rate; TCP payload is at most 118.7 MB/s at a 1500-byte MTU and 123.8 with 9000-byte jumbo
    // frames; SMB, NFS and iSCSI reach 105–118 (up to 123 with jumbo frames).
    (105.0, 123.0, "1 GbE", "nic"),
    // 1.5 Gb/s with 8b/10b coding: 150 MB/s of payload; disks and bridges on it reach 125–145.
    (125.0, 150.0, "SATA 1.5 Gb/s", "sata"),
    // 3 Gb/s with 8b/10b coding: 300 MB/s; SSDs on it reach 250–285 (command and frame overhead).
    (250.0, 285.0, "SATA 3 Gb/s", "sata"),
    // 312.5 MB/s line rate; TCP payload at a 1500-byte MTU is at most 294 MB/s; file protocols reach 235–294.
    (235.0, 295.0, "2.5 GbE", "nic"),
    // 5 Gb/s with 8b/10b coding: 500 MB/s; bridges reach 350–450 (UAS near the top, BOT near the bottom).
    (350.0, 450.0, "USB 5 Gb/s", "usb"),
    // 6 Gb/s with 8b/10b coding: 600 MB/s; SATA SSDs top out at 500–570.
    (500.0, 575.0, "SATA 6 Gb/s", "sata"),
    // 10 Gb/s with 128b/132b coding: ~1200 MB/s; bridges to NVMe reach 800–1050.
    (800.0, 1050.0, "USB 10 Gb/s", "usb"),
    // 1250 MB/s line rate; TCP payload at a 1500-byte MTU is at most 1187 MB/s; file protocols reach 900–1187.
    (900.0, 1190.0, "10 GbE", "nic"),
];

/// How flat the tests must be: the slowest within this of the fastest.
const FLAT: f64 = 0.03;

/// The share of positions a flat top must cover to be a ceiling when no link fits: most of the device.
pub const MOST: f64 = 0.5;

/// Rates that all lie within [`FLAT`] of each other (and some at all).
pub(crate) fn is_flat(rates: &[f64]) -> bool {
    let lo = rates.iter().copied().reduce(f64::min);
    let hi = rates.iter().copied().reduce(f64::max);
    matches!((lo, hi), (Some(lo), Some(hi)) if lo > 0.0 && hi / lo - 1.0 <= FLAT)
}

/// The usual links whose range holds a rate, of a kind `kind_ok` accepts.
fn usual_links_of(
    mb_per_s: f64,
    kind_ok: impl Fn(&str) -> bool,
) -> Vec<&'static (f64, f64, &'static str, &'static str)> {
    USUAL_CEILINGS
        .iter()
        .filter(|(lo, hi, _, kind)| (*lo..=*hi).contains(&mb_per_s) && kind_ok(kind))
        .collect()
}

/// The first usual link whose range holds a rate, as (its high end, its name), if any.
pub fn usual_ceiling(mb_per_s: f64) -> Option<(f64, &'static str)> {
    usual_links_of(mb_per_s, |_| true)
        .first()
        .map(|(_, hi, name, _)| (*hi, *name))
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

/// Where the reads were measured along the device, when they were: the share of positions on the flat top, and
/// whether the device is a hard disk (it says it rotates, or its rate falls with position off the top). A hard
/// disk's media cannot be flat over most of its positions.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Positions {
    pub top_share: f64,
    pub hard_disk: bool,
}

/// Sequential reads of at least two shapes (block size or queue depth) that all top out at one rate, named after
/// a link as [`of_rates`] says. A bench knows nothing of position, so a flat rate no link fits is left alone there
/// (a device's own media can be flat over the few positions a bench reads).
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
        "sequential reads",
        None,
    )
}

/// Read rates of several shapes (`block_sizes` of them distinct) that all top out at one rate: a ceiling. Named
/// after the link the target's identity says is slowest when the rate reaches it (`high`), else after the usual
/// links of a kind on the path (any kind when the path is unknown) whose range holds it (`medium`, `low` over one
/// block size: a device slow per command is flat over queue depths when it serves one at a time). When no link
/// fits and the reads were measured along the device (`at`), a flat top over most positions is a ceiling on the
/// path or in the device all the same (`high` on a hard disk, `medium` elsewhere; one step lower over one block
/// size). `what` names the reads in the claim.
pub fn of_rates(
    rates: &[f64],
    block_sizes: usize,
    device: Option<&Identity>,
    what: &str,
    at: Option<Positions>,
) -> Option<Finding> {
    if !is_flat(rates) {
        return None;
    }
    let lo = rates.iter().copied().reduce(f64::min)?;
    let hi = rates.iter().copied().reduce(f64::max)?;
    let rate = (lo + hi) / 2.0;
    let one_size = block_sizes < 2;
    let whatever = match (one_size, at.is_some()) {
        (false, true) => "whatever the block size, queue depth or position",
        (true, true) => "whatever the queue depth or position",
        (false, false) => "whatever the block size and queue depth",
        (true, false) => "whatever the queue depth",
    };
    let mut numbers = vec![
        ("min_mb_per_s", lo),
        ("max_mb_per_s", hi),
        ("ceiling_mb_per_s", rate),
    ];
    if let Some(p) = at {
        numbers.push(("top_share", p.top_share));
    }
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
    let lower = |c: Confidence| match (one_size, c) {
        (false, c) => c,
        (true, Confidence::High) => Confidence::Medium,
        (true, _) => Confidence::Low,
    };
    let (confidence, tail) = if let Some((ceiling, name)) = known {
        numbers.push(("link_mb_per_s", ceiling));
        (
            Confidence::High,
            format!("matches {name} (~{})", format_rate(ceiling)),
        )
    } else {
        let kinds = path_kinds(device);
        let links = usual_links_of(rate, |k| kinds.is_empty() || kinds.iter().any(|p| p == k));
        if let Some((low, high, _, _)) = links.first() {
            numbers.push(("link_low_mb_per_s", *low));
            numbers.push(("link_high_mb_per_s", *high));
            let names: Vec<String> = links
                .iter()
                .map(|(l, h, name, _)| format!("{name} ({l:.0}–{h:.0} MB/s in practice)"))
                .collect();
            (
                lower(Confidence::Medium),
                format!("matches {}", names.join(" or ")),
            )
        } else {
            let p = at.filter(|p| p.top_share >= MOST)?;
            if p.hard_disk {
                (
                    lower(Confidence::High),
                    format!(
                        "a ceiling on the path or in the device, not the media: a hard disk is not flat over {:.0} % \
                         of its positions (no usual link delivers that)",
                        p.top_share * 100.0
                    ),
                )
            } else {
                (
                    lower(Confidence::Medium),
                    "a ceiling on the path or in the device (no usual link delivers that)"
                        .to_string(),
                )
            }
        }
    };
    let claim = format!("{what} top out at {} {whatever}: {tail}", format_rate(rate));
    Some(Finding::new(
        FindingCode::LinkCap,
        confidence,
        claim,
        &numbers,
    ))
}
