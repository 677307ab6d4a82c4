//! The temperature line of a diagnosis, soak or scan: lowest → highest reading, or why none was
//! read (once).

use drivescope_record::TemperatureSeries;

/// `temp      11 → 24 °C (min → max; 7 readings every 5 s, lab …/temp1_input)`, or
/// `temp      not read: …`; none when the run kept no series (the null target, older documents).
pub fn line(s: Option<&TemperatureSeries>) -> Option<String> {
    let s = s?;
    let Some((lo, hi)) = s.min_max() else {
        let why = s.note.as_deref().unwrap_or("no reading");
        let why = why
            .strip_prefix("no temperature could be read: ")
            .unwrap_or(why);
        return Some(format!("temp      not read: {why}"));
    };
    let from = s
        .source
        .as_deref()
        .map(|x| format!(", {x}"))
        .unwrap_or_default();
    let note = s
        .note
        .as_deref()
        .map(|n| format!("; {n}"))
        .unwrap_or_default();
    Some(format!(
        "temp      {lo:.0} → {hi:.0} °C (min → max; {} every {:.0} s{from}){note}",
        drivescope_units::count(s.points.len() as u64, "reading"),
        s.interval_s
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use drivescope_record::TemperaturePoint;

    #[test]
    fn readings_show_min_to_max_and_none_say_why_once() {
        let s = TemperatureSeries {
            source: Some("hwmon /sys/class/hwmon/hwmon1/temp1_input".into()),
            interval_s: 5.0,
            points: [31.0, 36.6, 34.0]
                .iter()
                .enumerate()
                .map(|(i, &c)| TemperaturePoint {
                    t_s: i as f64 * 5.0,
                    celsius: c,
                })
                .collect(),
            note: None,
        };
        assert_eq!(
            line(Some(&s)).unwrap(),
            "temp      31 → 37 °C (min → max; 3 readings every 5 s, \
             hwmon /sys/class/hwmon/hwmon1/temp1_input)"
        );
        let none = TemperatureSeries {
            note: Some("no temperature could be read: loop0 is a loop device".into()),
            ..TemperatureSeries::default()
        };
        assert_eq!(
            line(Some(&none)).unwrap(),
            "temp      not read: loop0 is a loop device"
        );
        assert_eq!(line(None), None);
    }
}
