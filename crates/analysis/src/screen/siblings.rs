//! The comparison rules: a drive slower than its siblings (drives of the same model in the same group) over a
//! stretch of its surface, or slower on average than the stored scans of its model.

use super::reason;
use drivescope_record::{
    Criteria, DeviceSummary, Grade, History, Member, Reason, Rule, ScanRecord,
};
use drivescope_stats::CurvePoint;

/// The middle value; the mean of the two middle ones for an even count (with two siblings, neither alone is
/// the yardstick). None for no values.
pub fn middle(mut v: Vec<f64>) -> Option<f64> {
    v.retain(|x| x.is_finite());
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(v[n / 2]),
        _ => Some((v[n / 2 - 1] + v[n / 2]) / 2.0),
    }
}

/// The model of the drive a scan read, when its identity names one.
pub fn model(s: &ScanRecord) -> Option<String> {
    s.header
        .device
        .as_ref()
        .and_then(|d| DeviceSummary::of(d).model)
}

/// A finished scan: neither interrupted nor cut short by a lost drive.
fn finished(s: &ScanRecord) -> bool {
    !s.interrupted && s.device_lost.is_none()
}

/// The position of byte `offset` of the scan's range as a fraction of it.
fn fraction(s: &ScanRecord, offset: u64) -> f64 {
    offset.saturating_sub(s.offset) as f64 / s.length.max(1) as f64
}

/// The rate of the curve bin that holds fraction `x` of the scan's range.
fn rate_at(s: &ScanRecord, x: f64) -> Option<f64> {
    let i = s
        .curve
        .partition_point(|p| fraction(s, p.offset + p.length) <= x);
    let p = s.curve.get(i)?;
    (fraction(s, p.offset) <= x).then_some(p.mb_per_s)
}

/// The siblings a drive is compared with: other drives whose scans finished, in the same direction, of the
/// same model when both identities name one.
fn peers<'a>(m: &Member, s: &ScanRecord, siblings: &[&'a Member]) -> Vec<&'a ScanRecord> {
    let own = model(s);
    siblings
        .iter()
        .filter(|o| !std::ptr::eq(**o, m) && o.error.is_none())
        .filter_map(|o| o.scan.as_deref())
        .filter(|p| finished(p) && !p.curve.is_empty() && p.write == s.write)
        .filter(|p| match (&own, model(p)) {
            (Some(a), Some(b)) => *a == b,
            _ => true,
        })
        .collect()
}

/// A stretch of consecutive curve bins below the siblings: its bins' index range, and their rates and the
/// siblings' medians.
struct Stretch {
    first: usize,
    last: usize,
    bytes: u64,
    /// Time the drive took over the stretch (ns).
    ns: f64,
    rate_sum: f64,
    median_sum: f64,
}

/// The least time a slower stretch must last: shorter ones are a stall of the host (a scheduler, a
/// page-cache flush), not the drive's surface. Only small devices have stretches this short.
pub const MIN_STRETCH_NS: f64 = 1e9;

/// Warn when the drive's rate is more than `below_siblings_pct` below the median of its siblings' rates at the
/// same fraction of the range, over consecutive positions covering `below_stretch_pct` of the range or more.
pub(super) fn below_siblings(
    m: &Member,
    s: &ScanRecord,
    siblings: &[&Member],
    c: &Criteria,
) -> Option<Reason> {
    let peers = peers(m, s, siblings);
    if peers.is_empty() || s.curve.is_empty() {
        return None;
    }
    let factor = 1.0 - c.below_siblings_pct / 100.0;
    let mut best: Option<Stretch> = None;
    let mut cur: Option<Stretch> = None;
    let mut prev: Option<&CurvePoint> = None;
    for (i, p) in s.curve.iter().enumerate() {
        let mid = fraction(s, p.offset + p.length / 2);
        let median = middle(peers.iter().filter_map(|q| rate_at(q, mid)).collect());
        let adjacent = prev.is_some_and(|q| q.offset + q.length == p.offset);
        if !adjacent {
            keep_longer(&mut best, cur.take());
        }
        match median {
            Some(med) if p.mb_per_s < med * factor => {
                let st = cur.get_or_insert(Stretch {
                    first: i,
                    last: i,
                    bytes: 0,
                    ns: 0.0,
                    rate_sum: 0.0,
                    median_sum: 0.0,
                });
                st.last = i;
                st.bytes += p.length;
                st.ns += p.length as f64 * 1e3 / p.mb_per_s.max(f64::MIN_POSITIVE);
                st.rate_sum += p.mb_per_s;
                st.median_sum += med;
            }
            _ => keep_longer(&mut best, cur.take()),
        }
        prev = Some(p);
    }
    keep_longer(&mut best, cur);
    let st = best?;
    let share = st.bytes as f64 * 100.0 / s.length.max(1) as f64;
    if share < c.below_stretch_pct || st.ns < MIN_STRETCH_NS {
        return None;
    }
    let bins = (st.last - st.first + 1) as f64;
    let (rate, median) = (st.rate_sum / bins, st.median_sum / bins);
    let (a, b) = (&s.curve[st.first], &s.curve[st.last]);
    let end = b.offset + b.length;
    let whom = match (model(s), peers.len()) {
        (Some(model), 1) => format!("its sibling of the same model ({model})"),
        (Some(model), n) => format!("its {n} siblings of the same model ({model})"),
        (None, 1) => "the other drive".to_string(),
        (None, n) => format!("the {n} other drives"),
    };
    let verb = if s.write { "wrote" } else { "read" };
    Some(reason(
        Rule::BelowSiblings,
        Grade::Warn,
        format!(
            "from offset {} to {end} ({:.1}-{:.1} % of the drive) it {verb} {rate:.1} MB/s against {median:.1} MB/s \
             on {whom}, {:.0} % below (the limit is {} % below over {} % of the drive and at least 1 s)",
            a.offset,
            fraction(s, a.offset) * 100.0,
            fraction(s, end) * 100.0,
            (1.0 - rate / median) * 100.0,
            c.below_siblings_pct,
            c.below_stretch_pct
        ),
    ))
}

fn keep_longer(best: &mut Option<Stretch>, cand: Option<Stretch>) {
    if let Some(c) = cand {
        if best.as_ref().is_none_or(|b| c.bytes > b.bytes) {
            *best = Some(c);
        }
    }
}

/// Warn when the drive's mean rate is more than `below_history_pct` below the median of the mean rates of the
/// stored scans of its model (a finished scan only: a partial mean is not comparable).
pub(super) fn below_history(s: &ScanRecord, h: &History, c: &Criteria) -> Option<Reason> {
    if !finished(s) {
        return None;
    }
    let earlier: Vec<f64> = h
        .mean_mb_per_s
        .iter()
        .copied()
        .filter(|r| *r > 0.0)
        .collect();
    let n = earlier.len();
    let median = middle(earlier)?;
    let mean = s.mb_per_s.mean;
    if mean >= median * (1.0 - c.below_history_pct / 100.0) {
        return None;
    }
    Some(reason(
        Rule::BelowHistory,
        Grade::Warn,
        format!(
            "its mean rate {mean:.1} MB/s is {:.0} % below the median {median:.1} MB/s of {n} earlier scan{} of \
             {} (the limit is {} % below)",
            (1.0 - mean / median) * 100.0,
            if n == 1 { "" } else { "s" },
            h.model,
            c.below_history_pct
        ),
    ))
}
