//! The middle of a set of numbers, as the rules that report a typical value take it.

/// The middle value, the mean of the two middle ones of an even count; 0 for no values.
pub(crate) fn middle(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

#[cfg(test)]
mod tests {
    use super::middle;

    #[test]
    fn odd_even_and_empty() {
        assert_eq!(middle(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(middle(&[4.0, 1.0, 3.0, 2.0]), 2.5);
        assert_eq!(middle(&[]), 0.0);
    }
}
