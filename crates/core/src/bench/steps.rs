//! Steady state and steps in a rate series: where the rate moved by more than a threshold
//! (a cache filling, a warm-up ending, throttling).

use super::record::Step;
use drivescope_stats::SeriesPoint;

/// Mean MB/s of the last 30 % of the points (at least one).
pub fn steady(series: &[SeriesPoint]) -> f64 {
    if series.is_empty() {
        return 0.0;
    }
    let k = (series.len() * 3).div_ceil(10).max(1);
    let tail = &series[series.len() - k..];
    tail.iter().map(|p| p.mb_per_s).sum::<f64>() / tail.len() as f64
}

/// Points where the mean rate of the `w` intervals after differs from the mean of the `w`
/// before by more than `threshold` (0.2 = 20 %). `w` is 5 % of the series, at least 2 and
/// at most 10 intervals. Neighbouring detections are one step, placed where the change is
/// largest.
pub fn find(series: &[SeriesPoint], threshold: f64) -> Vec<Step> {
    let n = series.len();
    let w = (n / 20).clamp(2, 10);
    if n < 2 * w {
        return Vec::new();
    }
    let rates: Vec<f64> = series.iter().map(|p| p.mb_per_s).collect();
    let mean = |a: usize, b: usize| rates[a..b].iter().sum::<f64>() / (b - a) as f64;
    let mut steps: Vec<(usize, f64, f64, f64)> = Vec::new();
    let mut last_hit: Option<usize> = None;
    for i in w..=n - w {
        let before = mean(i - w, i);
        let after = mean(i, i + w);
        // A rate that rises from zero (a stall that ended) is a step too, of no finite ratio:
        // the largest change there is when joining neighbours, none in the document.
        let change = if before > 0.0 {
            after / before - 1.0
        } else if after > 0.0 {
            f64::INFINITY
        } else {
            0.0
        };
        if change.abs() > threshold {
            let joins = last_hit.is_some_and(|j| i <= j + w);
            match steps.last_mut() {
                Some(s) if joins => {
                    if change.abs() > s.3.abs() {
                        *s = (i, before, after, change);
                    }
                }
                _ => steps.push((i, before, after, change)),
            }
            last_hit = Some(i);
        }
    }
    steps
        .into_iter()
        .map(|(i, from, to, change)| Step {
            t_ns: series[i - 1].t_ns,
            from_mb_per_s: from,
            to_mb_per_s: to,
            change: change.is_finite().then_some(change),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn series(rates: &[f64]) -> Vec<SeriesPoint> {
        rates
            .iter()
            .enumerate()
            .map(|(i, &r)| SeriesPoint {
                t_ns: (i as u64 + 1) * 1_000_000_000,
                bytes: (r * 1e6) as u64,
                commands: 1,
                mb_per_s: r,
                iops: 1.0,
                p99_ns: 1,
            })
            .collect()
    }

    #[test]
    fn one_step_up_found_once() {
        let mut r = vec![100.0; 30];
        r.extend(vec![200.0; 30]);
        let s = find(&series(&r), 0.2);
        assert_eq!(s.len(), 1, "{s:?}");
        assert_eq!(s[0].t_ns, 30_000_000_000);
        assert!((s[0].change.unwrap() - 1.0).abs() < 1e-9);
        assert!((steady(&series(&r)) - 200.0).abs() < 1e-9);
    }

    #[test]
    fn noise_below_threshold_is_no_step() {
        let r: Vec<f64> = (0..100)
            .map(|i| if i % 2 == 0 { 95.0 } else { 105.0 })
            .collect();
        assert!(find(&series(&r), 0.2).is_empty());
    }

    #[test]
    fn cache_fill_drop_found() {
        let mut r = vec![1000.0; 10];
        r.extend(vec![300.0; 50]);
        let s = find(&series(&r), 0.2);
        assert_eq!(s.len(), 1);
        assert!(s[0].change.unwrap() < -0.5);
        assert_eq!(s[0].t_ns, 10_000_000_000);
    }

    /// A stall that ends (nothing completed, then the rate comes back) is one step with no
    /// ratio, and it goes through JSON and back: an infinite ratio would be written as null and
    /// the document could not be read again.
    #[test]
    fn a_stall_that_ends_is_a_step_without_a_ratio_that_round_trips() {
        let mut r = vec![0.0; 6];
        r.extend(vec![250.0; 30]);
        let s = find(&series(&r), 0.2);
        assert_eq!(s.len(), 1, "{s:?}");
        assert_eq!(s[0].change, None);
        assert_eq!(s[0].from_mb_per_s, 0.0);
        let text = serde_json::to_string(&s).unwrap();
        let back: Vec<Step> = serde_json::from_str(&text).unwrap();
        assert_eq!(back, s);
    }
}
