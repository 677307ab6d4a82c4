//! Mean, spread and outliers of a few runs.
//!
//! An outlier is a run far from the others: more than three scaled median absolute deviations from the
//! median (the MAD times 1.4826 estimates the standard deviation of normal data, but one slow run does not
//! inflate it as it does the standard deviation), and more than 5 % of the median away, so that runs within
//! a clock's noise of each other are never flagged however tight the rest are.

use drivescope_record::Spread;

/// The median of `v` (0 for none).
pub fn median(v: &[f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let m = s.len() / 2;
    if s.len() % 2 == 1 {
        s[m]
    } else {
        (s[m - 1] + s[m]) / 2.0
    }
}

/// Mean, sample standard deviation, median, min and max (all 0 for none).
pub fn spread(v: &[f64]) -> Spread {
    if v.is_empty() {
        return Spread::default();
    }
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let sd = if v.len() > 1 {
        (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt()
    } else {
        0.0
    };
    Spread {
        mean,
        sd,
        median: median(v),
        min: v.iter().copied().fold(f64::INFINITY, f64::min),
        max: v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    }
}

/// Which of `v` are outliers (none among fewer than three runs).
pub fn outliers(v: &[f64]) -> Vec<bool> {
    if v.len() < 3 {
        return vec![false; v.len()];
    }
    let med = median(v);
    let dev: Vec<f64> = v.iter().map(|x| (x - med).abs()).collect();
    let mad = 1.4826 * median(&dev);
    dev.iter()
        .map(|d| *d > 3.0 * mad && *d > 0.05 * med.abs())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_of_known_numbers() {
        let s = spread(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]);
        assert_eq!(s.mean, 5.0);
        assert!((s.sd - 2.138_089_935).abs() < 1e-6, "{}", s.sd);
        assert_eq!((s.median, s.min, s.max), (4.5, 2.0, 9.0));
        assert_eq!(spread(&[3.0]).sd, 0.0);
        assert_eq!(spread(&[]), Spread::default());
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
    }

    #[test]
    fn one_slow_run_is_an_outlier_and_noise_is_not() {
        let v = [1.00, 1.02, 0.99, 1.01, 1.60];
        assert_eq!(outliers(&v), [false, false, false, false, true]);
        // Identical runs but one 3 % off: within the 5 % floor.
        assert_eq!(outliers(&[1.0, 1.0, 1.0, 1.03]), [false; 4]);
        // A fast one is as much an outlier as a slow one.
        assert_eq!(
            outliers(&[1.0, 1.01, 0.99, 0.5]),
            [false, false, false, true]
        );
        assert_eq!(outliers(&[1.0, 9.0]), [false, false]);
    }
}
