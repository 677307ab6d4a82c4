//! The Prometheus text exposition format (version 0.0.4): families of gauges, each written once
//! with its HELP and TYPE lines, families in name order and their samples in label order, label
//! values and help text escaped as the format asks.

use std::collections::BTreeMap;
use std::fmt::Write;

/// The media type of the text format.
pub(crate) const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// A metric family: its name, what a person reads about it, and its label names in order.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Family {
    pub name: &'static str,
    pub help: &'static str,
    pub labels: &'static [&'static str],
}

/// Samples by family, and by label values within one.
#[derive(Debug, Default, Clone)]
pub(crate) struct Exposition {
    families: BTreeMap<&'static str, (&'static Family, BTreeMap<Vec<String>, f64>)>,
}

impl Exposition {
    /// Sets the sample of `family` with these label values (one per label name, in order); a
    /// second value for the same labels replaces the first, so a family never repeats a series.
    pub fn set(&mut self, family: &'static Family, values: &[&str], value: f64) {
        assert_eq!(
            family.labels.len(),
            values.len(),
            "{}: label values for {:?}",
            family.name,
            family.labels
        );
        let (def, samples) = self
            .families
            .entry(family.name)
            .or_insert_with(|| (family, BTreeMap::new()));
        assert_eq!(*def, family, "two families named {}", family.name);
        samples.insert(values.iter().map(|v| v.to_string()).collect(), value);
    }

    /// The document: each family that has samples, HELP and TYPE first.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for (name, (family, samples)) in &self.families {
            let _ = writeln!(out, "# HELP {name} {}", escape_help(family.help));
            let _ = writeln!(out, "# TYPE {name} gauge");
            for (values, value) in samples {
                out.push_str(name);
                if !values.is_empty() {
                    out.push('{');
                    for (i, (label, v)) in family.labels.iter().zip(values).enumerate() {
                        if i > 0 {
                            out.push(',');
                        }
                        let _ = write!(out, "{label}=\"{}\"", escape_value(v));
                    }
                    out.push('}');
                }
                let _ = writeln!(out, " {}", number(*value));
            }
        }
        out
    }
}

/// A label value: backslash, double quote and line feed escaped.
fn escape_value(v: &str) -> String {
    let mut out = String::with_capacity(v.len());
    for c in v.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out
}

/// Help text: backslash and line feed escaped.
fn escape_help(v: &str) -> String {
    v.replace('\\', "\\\\").replace('\n', "\\n")
}

/// A sample value as the format writes floats.
fn number(v: f64) -> String {
    if v.is_nan() {
        "NaN".into()
    } else if v.is_infinite() {
        if v > 0.0 { "+Inf" } else { "-Inf" }.into()
    } else {
        format!("{v}")
    }
}

/// Whether `name` is a valid metric name (`[a-zA-Z_:][a-zA-Z0-9_:]*`), or with `colon` false a
/// valid label name.
#[cfg(test)]
pub(crate) fn valid_name(name: &str, colon: bool) -> bool {
    let ok = |c: char, first: bool| {
        c.is_ascii_alphabetic() || c == '_' || (colon && c == ':') || (!first && c.is_ascii_digit())
    };
    let mut chars = name.chars();
    chars.next().is_some_and(|c| ok(c, true)) && chars.all(|c| ok(c, false))
}

#[cfg(test)]
mod tests {
    use super::*;

    static RATE: Family = Family {
        name: "x_rate_bytes_per_second",
        help: "A rate.\nSecond line with a \\ in it.",
        labels: &["serial", "target"],
    };
    static AGE: Family = Family {
        name: "x_age_seconds",
        help: "An age.",
        labels: &[],
    };

    #[test]
    fn label_values_are_escaped() {
        let mut e = Exposition::default();
        e.set(&RATE, &["a\"b\\c\nd", "/dev/sda"], 1.5);
        let text = e.render();
        assert!(
            text.contains(r#"x_rate_bytes_per_second{serial="a\"b\\c\nd",target="/dev/sda"} 1.5"#),
            "{text}"
        );
        assert!(
            text.contains(
                "# HELP x_rate_bytes_per_second A rate.\\nSecond line with a \\\\ in it.\n"
            ),
            "{text}"
        );
        assert_eq!(text.lines().count(), 3, "{text}");
    }

    #[test]
    fn one_help_and_type_per_family_in_name_then_label_order() {
        let mut e = Exposition::default();
        e.set(&RATE, &["S2", "/dev/sdb"], 2.0);
        e.set(&AGE, &[], 60.0);
        e.set(&RATE, &["S1", "/dev/sda"], 1.0);
        e.set(&RATE, &["S1", "/dev/sda"], 3.0); // replaces
        let text = e.render();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines,
            vec![
                "# HELP x_age_seconds An age.",
                "# TYPE x_age_seconds gauge",
                "x_age_seconds 60",
                "# HELP x_rate_bytes_per_second A rate.\\nSecond line with a \\\\ in it.",
                "# TYPE x_rate_bytes_per_second gauge",
                r#"x_rate_bytes_per_second{serial="S1",target="/dev/sda"} 3"#,
                r#"x_rate_bytes_per_second{serial="S2",target="/dev/sdb"} 2"#,
            ]
        );
        assert_eq!(text.matches("# TYPE").count(), 2);
    }

    #[test]
    fn special_values_and_empty_document() {
        assert_eq!(Exposition::default().render(), "");
        assert_eq!(number(f64::NAN), "NaN");
        assert_eq!(number(f64::INFINITY), "+Inf");
        assert_eq!(number(f64::NEG_INFINITY), "-Inf");
        assert_eq!(number(1e-7), "0.0000001");
        assert_eq!(number(123456789.0), "123456789");
    }

    #[test]
    #[should_panic(expected = "two families named x_age_seconds")]
    fn a_name_is_one_family() {
        static OTHER: Family = Family {
            name: "x_age_seconds",
            help: "Something else.",
            labels: &[],
        };
        let mut e = Exposition::default();
        e.set(&AGE, &[], 1.0);
        e.set(&OTHER, &[], 2.0);
    }

    #[test]
    fn names_are_checked() {
        assert!(valid_name("drivescope_scan_mean_bytes_per_second", true));
        assert!(valid_name("a:b", true) && !valid_name("a:b", false));
        assert!(!valid_name("9x", true) && !valid_name("", true) && !valid_name("a-b", true));
    }
}
