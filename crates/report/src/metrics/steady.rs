//! The compare rows of a steady-state run: the tracked variable's steady value and the rounds it took, each
//! cell of the measurement window (its mean over the window's rounds: IOPS, or mean latency for the latency
//! test) where the rule reached steady state, and the write amplification SMART gave over the rounds, so two
//! drives' steady states line up cell by cell.

use super::{push, Better, Metric, Unit};
use drivescope_record::{SteadyRecord, SteadyState};
use drivescope_units::format_size;

pub(super) fn rows(s: &SteadyRecord, out: &mut Vec<Metric>) {
    let latency = s.test.tracks_latency();
    if latency {
        push(
            out,
            "steady.mean_latency".into(),
            "Steady-state RND4K write mean latency".into(),
            Unit::Nanos,
            Better::Lower,
            s.steady_value,
        );
    } else {
        push(
            out,
            "steady.iops".into(),
            "Steady-state IOPS".into(),
            Unit::Iops,
            Better::Higher,
            s.steady_value,
        );
    }
    push(
        out,
        "steady.rounds".into(),
        "Rounds".into(),
        Unit::Count,
        Better::Lower,
        Some(s.rounds.len() as f64),
    );
    if s.verdict.state == SteadyState::Reached {
        if let Some(w) = &s.verdict.window {
            let rounds: Vec<_> = s
                .rounds
                .iter()
                .filter(|x| x.round >= w.first_round && x.round <= w.last_round)
                .collect();
            for (i, c) in s.matrix.iter().enumerate() {
                let cells: Vec<_> = rounds.iter().filter_map(|x| x.cells.get(i)).collect();
                if cells.is_empty() {
                    continue;
                }
                let n = cells.len() as f64;
                let shape = format!(
                    "{}/{} {}",
                    c.read_pct,
                    100u8.saturating_sub(c.read_pct),
                    format_size(c.block_size)
                );
                if latency {
                    push(
                        out,
                        format!("steady.cell.{}.{}.mean", c.read_pct, c.block_size),
                        format!("Steady {shape} mean latency"),
                        Unit::Nanos,
                        Better::Lower,
                        Some(cells.iter().map(|c| c.mean_ns).sum::<f64>() / n),
                    );
                } else {
                    push(
                        out,
                        format!("steady.cell.{}.{}.iops", c.read_pct, c.block_size),
                        format!("Steady {shape} IOPS"),
                        Unit::Iops,
                        Better::Higher,
                        Some(cells.iter().map(|c| c.iops).sum::<f64>() / n),
                    );
                }
            }
        }
    }
    let wa = s
        .write_amplification
        .as_ref()
        .and_then(|w| w.interval.as_ref())
        .and_then(|i| i.wa);
    push(
        out,
        "steady.wa".into(),
        "Write amplification (SMART)".into(),
        Unit::Ratio,
        Better::Lower,
        wa,
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample;
    use drivescope_probe::smart_writes::WriteInterval;
    use drivescope_record::SteadyWriteAmplification;

    fn value(out: &[Metric], key: &str) -> Option<f64> {
        out.iter().find(|m| m.key == key).map(|m| m.value)
    }

    #[test]
    fn the_window_s_cells_and_smart_s_write_amplification_line_up_and_an_unsteady_run_gives_no_cells(
    ) {
        let values = [90e3, 60e3, 41e3, 40e3, 39e3, 40e3, 41e3];
        let mut r = sample::steady(1, &values);
        let mut out = Vec::new();
        rows(&r, &mut out);
        let mean = values[2..].iter().sum::<f64>() / 5.0;
        let cell = value(&out, "steady.cell.0.4096.iops").expect("the window's cell");
        assert!((cell - mean).abs() < 1e-6, "{cell} vs {mean}");
        assert_eq!(value(&out, "steady.rounds"), Some(7.0));
        assert_eq!(value(&out, "steady.wa"), None, "no SMART reading, no row");
        r.write_amplification = Some(SteadyWriteAmplification {
            interval: Some(WriteInterval {
                wa: Some(2.6),
                ..WriteInterval::default()
            }),
            ..SteadyWriteAmplification::default()
        });
        let mut out = Vec::new();
        rows(&r, &mut out);
        assert_eq!(value(&out, "steady.wa"), Some(2.6));
        // Not reached: the last window is no steady state to put beside another drive's.
        r.verdict.state = SteadyState::NotReached;
        let mut out = Vec::new();
        rows(&r, &mut out);
        assert_eq!(value(&out, "steady.cell.0.4096.iops"), None);
    }
}
