//! Counts and IOPS: whole numbers grouped by thousands with a space (`1 567 592`), which keeps
//! columns readable and is not mistaken for a decimal point.

/// A count for people: rounded to a whole number, grouped by thousands (`1 567 592`, `-1 024`).
pub fn format_count(v: f64) -> String {
    if !v.is_finite() {
        return format!("{v}");
    }
    let s = format!("{:.0}", v.abs());
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(' ');
        }
        out.push(c);
    }
    if v.round() < 0.0 {
        format!("-{out}")
    } else {
        out
    }
}

/// IOPS for people: the grouped count and the unit (`531 550 IOPS`).
pub fn format_iops(iops: f64) -> String {
    format!("{} IOPS", format_count(iops))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_grouped_by_thousands() {
        assert_eq!(format_count(0.0), "0");
        assert_eq!(format_count(999.0), "999");
        assert_eq!(format_count(1024.0), "1 024");
        assert_eq!(format_count(531_550.4), "531 550");
        assert_eq!(format_count(1_567_592.0), "1 567 592");
        assert_eq!(format_count(-1024.0), "-1 024");
        assert_eq!(format_count(-0.2), "0");
        assert_eq!(format_iops(531_550.0), "531 550 IOPS");
    }
}
