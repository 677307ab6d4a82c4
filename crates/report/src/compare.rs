//! Runs side by side, one column per run, one row per metric, the best and the worst value of each row
//! marked — a drive review's summary table. This is the model; each format renders it in its own file
//! (`text`, `markdown`, `html`).

use crate::doc::Run;
use crate::metrics::{self, Better, Unit};
use serde::Serialize;

/// How a cell stands in its row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mark {
    Best,
    Worst,
    None,
}

#[derive(Debug, Clone, Serialize)]
pub struct Column {
    pub label: String,
    pub kind: String,
    pub device: String,
    pub date: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Cell {
    pub value: Option<f64>,
    pub text: String,
    pub mark: Mark,
}

#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub key: String,
    pub label: String,
    pub unit: &'static str,
    pub cells: Vec<Cell>,
}

/// The compare table.
#[derive(Debug, Clone, Serialize)]
pub struct Table {
    pub columns: Vec<Column>,
    pub rows: Vec<Row>,
}

/// The mark of the best value of a row where colour cannot show it.
pub const BEST: &str = "▲";
/// The mark of the worst value.
pub const WORST: &str = "▼";

/// Differences smaller than this share of the larger value are noise: not marked.
pub const NOISE_SHARE: f64 = 0.05;

/// What the marks mean, for the line under a compare table.
pub const LEGEND: &str = "▲ best, ▼ worst of a row; a difference under 5 %, or within the runs' \
                          own spread (a bench test's runs), is noise and not marked";

impl Table {
    /// Builds the table: rows in first-seen order over the runs; a run without a row's metric shows "—".
    pub fn new(runs: &[Run]) -> Table {
        let columns = runs
            .iter()
            .map(|r| Column {
                label: r.label(),
                kind: r.kind(),
                device: r.device(),
                date: r.header().map(|h| h.started_at.clone()).unwrap_or_default(),
            })
            .collect();
        let per_run: Vec<Vec<metrics::Metric>> = runs.iter().map(metrics::of).collect();
        let mut order: Vec<(String, String, Unit, Better)> = Vec::new();
        let spread_of = |key: &str| -> f64 {
            per_run
                .iter()
                .flatten()
                .filter(|m| m.key == key)
                .filter_map(|m| m.spread)
                .fold(0.0, f64::max)
        };
        for m in per_run.iter().flatten() {
            if !order.iter().any(|o| o.0 == m.key) {
                order.push((m.key.clone(), m.label.clone(), m.unit, m.better));
            }
        }
        let rows = order
            .into_iter()
            .map(|(key, label, unit, better)| {
                let values: Vec<Option<f64>> = per_run
                    .iter()
                    .map(|ms| ms.iter().find(|m| m.key == key).map(|m| m.value))
                    .collect();
                let marks = marks_beyond_noise(&values, better, spread_of(&key));
                let cells = values
                    .iter()
                    .zip(marks)
                    .map(|(v, mark)| Cell {
                        value: *v,
                        text: v.map_or("—".into(), |v| unit.format(v)),
                        mark,
                    })
                    .collect();
                Row {
                    key,
                    label,
                    unit: unit.suffix(),
                    cells,
                }
            })
            .collect();
        Table { columns, rows }
    }
}

/// [`marks`], where the best and the worst differ by more than noise: [`NOISE_SHARE`] of the
/// larger value, or the largest `spread` of the runs' own repetitions.
pub(crate) fn marks_beyond_noise(values: &[Option<f64>], better: Better, spread: f64) -> Vec<Mark> {
    let present = values.iter().flatten().copied();
    let (min, max) = present.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
        (a.min(v), b.max(v))
    });
    let noise = (NOISE_SHARE * min.abs().max(max.abs())).max(spread);
    if max - min <= noise {
        return vec![Mark::None; values.len()];
    }
    marks(values, better)
}

/// Marks the best and worst values of a row: only where at least two runs have the value and they differ.
/// Ties are all marked.
pub(crate) fn marks(values: &[Option<f64>], better: Better) -> Vec<Mark> {
    let present: Vec<f64> = values.iter().flatten().copied().collect();
    let (min, max) = present
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| {
            (a.min(v), b.max(v))
        });
    if better == Better::Neither || present.len() < 2 || min == max {
        return vec![Mark::None; values.len()];
    }
    let (good, bad) = if better == Better::Higher {
        (max, min)
    } else {
        (min, max)
    };
    values
        .iter()
        .map(|v| match v {
            Some(v) if *v == good => Mark::Best,
            Some(v) if *v == bad => Mark::Worst,
            _ => Mark::None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample;

    #[test]
    fn marks_follow_direction_and_skip_ties() {
        use Mark::*;
        assert_eq!(
            marks(&[Some(1.0), Some(3.0), Some(2.0)], Better::Higher),
            vec![Worst, Best, None]
        );
        assert_eq!(
            marks(&[Some(1.0), Some(3.0), Option::None], Better::Lower),
            vec![Best, Worst, None]
        );
        assert_eq!(
            marks(&[Some(2.0), Some(2.0)], Better::Lower),
            vec![None, None]
        );
        assert_eq!(marks(&[Some(2.0)], Better::Lower), vec![None]);
        assert_eq!(
            marks(&[Some(1.0), Some(2.0)], Better::Neither),
            vec![None, None]
        );
    }

    #[test]
    fn differences_within_the_noise_are_not_marked() {
        use Mark::*;
        // p50 15.9 vs 15.4 µs: 3 %, under the 5 % floor
        assert_eq!(
            marks_beyond_noise(&[Some(15_900.0), Some(15_400.0)], Better::Lower, 0.0),
            vec![None, None]
        );
        // 10 % apart: marked
        assert_eq!(
            marks_beyond_noise(&[Some(100.0), Some(110.0)], Better::Higher, 0.0),
            vec![Worst, Best]
        );
        // 10 % apart, but the runs themselves moved by 12
        assert_eq!(
            marks_beyond_noise(&[Some(100.0), Some(110.0)], Better::Higher, 12.0),
            vec![None, None]
        );
    }

    #[test]
    fn review_table_marks_the_faster_drive() {
        let runs: Vec<Run> = (1..=5)
            .map(|s| Run::new(Some(s as i64), sample::bench(s)))
            .collect();
        let t = Table::new(&runs);
        assert_eq!(t.columns.len(), 5);
        let row = t
            .rows
            .iter()
            .find(|r| r.key == "bench.SEQ1M Q8T1 read.mb_per_s")
            .expect("row");
        let vals: Vec<f64> = row.cells.iter().map(|c| c.value.unwrap()).collect();
        let best = vals.iter().cloned().fold(f64::MIN, f64::max);
        let i = row.cells.iter().position(|c| c.mark == Mark::Best).unwrap();
        assert_eq!(vals[i], best);
        assert_eq!(
            row.cells.iter().filter(|c| c.mark == Mark::Worst).count(),
            1
        );
    }
}
