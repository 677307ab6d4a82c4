//! Transfer rate by position: a hard disk's outer zones are faster than its inner ones.

use crate::middle::middle;
use drivescope_record::{Confidence, Finding, FindingCode, Identity, ScanRecord};

/// The inner/outer ratios a hard disk shows: zoned recording puts fewer sectors on the inner tracks.
const HDD_RATIO: std::ops::RangeInclusive<f64> = 0.35..=0.85;

/// True when the target's bottom device says it rotates; unknown where its offsets are no medium's positions
/// (a loop device over a file, a virtual disk: their rotational flag says nothing about a medium).
pub(crate) fn rotational(id: Option<&Identity>) -> Option<bool> {
    let id = id?;
    if id.positions().is_err() {
        return None;
    }
    let mut devices = id.devices();
    devices.next().and_then(|d| {
        d.hardware
            .as_ref()
            .and_then(|h| h.rotation_rate_rpm.map(|r| r > 0))
            .or(d.rotational)
    })
}

/// A step between stretches counts as a fall when the inner one reads this much under the outer one: a flat
/// curve's noise falls half its steps by chance, a hard disk's zones fall at least 2 % a tenth.
const STEP: f64 = 0.01;

/// The steps between ten equal stretches of the curve, each stretch its median (a few positions read through a
/// cache, or slowed by a busy host, do not make it): how many fall, and how many rise.
fn steps(rates: &[f64]) -> Option<(usize, usize, usize)> {
    const STRETCHES: usize = 10;
    let n = rates.len() / STRETCHES;
    if n == 0 {
        return None;
    }
    let mids: Vec<f64> = rates.chunks(n).take(STRETCHES).map(middle).collect();
    let falls = mids
        .windows(2)
        .filter(|w| w[1] < w[0] * (1.0 - STEP))
        .count();
    let rises = mids
        .windows(2)
        .filter(|w| w[1] > w[0] * (1.0 + STEP))
        .count();
    Some((falls, rises, mids.len() - 1))
}

/// Share of the steps between ten equal stretches of the curve along which the rate falls.
fn falling_share(rates: &[f64]) -> f64 {
    steps(rates).map_or(0.0, |(falls, _, n)| falls as f64 / n as f64)
}

/// The curve falls from outer to inner as zones do: along most of its steps, or along several and never rising
/// (zones wider than a tenth, or a ceiling flattening the outer ones, leave steps flat). A single step down is
/// not zones: a device that slowed while it was read (a throttle) shows one.
fn falls_steadily(rates: &[f64]) -> bool {
    steps(rates).is_some_and(|(falls, rises, n)| {
        falls as f64 >= 0.6 * n as f64 || (rises == 0 && falls >= 3)
    })
}

/// A full scan: zones that fall steadily from outer to inner are a hard disk's; a rotating disk without them
/// is unusual. A flat curve on a device that does not rotate says nothing, and neither does a scan of a file:
/// its offsets are not the disk's positions (its extents lie anywhere, with the file system between).
pub fn of_scan(s: &ScanRecord) -> Option<Finding> {
    if s.is_quick()
        || s.write
        || s.curve.len() < 20
        || s.interrupted
        || s.header.positions().is_err()
    {
        return None;
    }
    let ratio = s.zone_ratio?;
    let rates: Vec<f64> = s.curve.iter().map(|p| p.mb_per_s).collect();
    judge(
        ratio,
        &rates,
        &format!("a {}-point scan", s.curve.len()),
        s.header.device.as_ref(),
    )
}

/// A position read this much faster than the middle of its fifth of the curve was served by a cache (the outer
/// zone of a disk reads at most a few percent faster than the positions just inward of it).
const CACHED: f64 = 1.3;

/// The middle of the first `n` rates of `fifth` that are not read through a cache.
fn uncached_median(fifth: &[f64], n: usize) -> f64 {
    let mid = middle(fifth);
    let kept: Vec<f64> = fifth
        .iter()
        .copied()
        .filter(|r| *r <= CACHED * mid)
        .take(n)
        .collect();
    middle(&kept)
}

/// Inner/outer of a rate-by-position curve: the median of its last 5 % over the median of its first 5 %. A
/// median, as a quick scan's regions are read once each: one slowed by a busy host's late completion would move
/// a mean of a dozen. Positions that read far faster than the rest of their fifth (a read cache holding what an
/// earlier experiment read there) are left out.
pub fn ratio(rates: &[f64]) -> Option<f64> {
    let n = (rates.len() / 20).max(1);
    if rates.len() < 2 * n {
        return None;
    }
    let fifth = (rates.len() / 5).max(n);
    let head = uncached_median(&rates[..fifth], n);
    let tail: Vec<f64> = rates[rates.len() - fifth..].iter().rev().copied().collect();
    (head > 0.0).then(|| uncached_median(&tail, n) / head)
}

/// A rate-by-position curve (outer to inner) with its inner/outer ratio; `what` names it in the claim.
pub fn judge(ratio: f64, rates: &[f64], what: &str, device: Option<&Identity>) -> Option<Finding> {
    let falling = falling_share(rates);
    let numbers = [("zone_ratio", ratio), ("falling_share", falling)];
    if HDD_RATIO.contains(&ratio) && falls_steadily(rates) {
        let confidence = if falling >= 0.8 {
            Confidence::High
        } else {
            Confidence::Medium
        };
        return Some(Finding::new(
            FindingCode::Zones,
            confidence,
            format!("inner/outer {ratio:.2} over {what}, falling steadily: typical of a hard disk"),
            &numbers,
        ));
    }
    if rotational(device) == Some(true) && ratio >= 0.9 {
        return Some(Finding::new(
            FindingCode::Zones,
            Confidence::Medium,
            format!(
                "inner/outer {ratio:.2} on a rotating disk: the inner zone is as fast as the outer, which a plain \
                 hard disk is not (a capped link, a cache, or a disk that is not what it says)"
            ),
            &numbers,
        ));
    }
    None
}
