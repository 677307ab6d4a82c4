//! Transfer rate by position: a hard disk's outer zones are faster than its inner ones.

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

/// Share of the steps between ten equal stretches of the curve along which the rate falls.
fn falling_share(rates: &[f64]) -> f64 {
    const STRETCHES: usize = 10;
    let n = rates.len() / STRETCHES;
    if n == 0 {
        return 0.0;
    }
    let means: Vec<f64> = rates
        .chunks(n)
        .take(STRETCHES)
        .map(|c| c.iter().sum::<f64>() / c.len() as f64)
        .collect();
    let falls = means.windows(2).filter(|w| w[1] < w[0]).count();
    falls as f64 / (means.len() - 1) as f64
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

/// Inner/outer of a rate-by-position curve: the mean of its last 5 % over the mean of its first 5 %.
pub fn ratio(rates: &[f64]) -> Option<f64> {
    let n = (rates.len() / 20).max(1);
    if rates.len() < 2 * n {
        return None;
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let head = mean(&rates[..n]);
    (head > 0.0).then(|| mean(&rates[rates.len() - n..]) / head)
}

/// A rate-by-position curve (outer to inner) with its inner/outer ratio; `what` names it in the claim.
pub fn judge(ratio: f64, rates: &[f64], what: &str, device: Option<&Identity>) -> Option<Finding> {
    let falling = falling_share(rates);
    let numbers = [("zone_ratio", ratio), ("falling_share", falling)];
    if HDD_RATIO.contains(&ratio) && falling >= 0.6 {
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
