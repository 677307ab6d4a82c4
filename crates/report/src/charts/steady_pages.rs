//! The PTS report's other pages of a steady-state run: the IOPS surface (each R/W mix's IOPS by
//! block size, the measurement window's mean), write saturation (the tracked IOPS against the
//! bytes written since the purge) and host idle recovery (each burst's IOPS against time, the
//! steady rate marked).

use super::{slug, style, Chart};
use crate::doc::Run;
use crate::svg::axis::Scale;
use crate::svg::frame::{self, Axes, Entry, Layout};
use drivescope_record::{Document, SteadyRecord, SteadyRound, SteadyTest};
use drivescope_units::format_size;

const MIX_COLORS: [&str; 7] = [
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
];

/// The rounds a run's numbers are read from: the verdict's window, or the last round.
fn window(r: &SteadyRecord) -> Vec<&SteadyRound> {
    match &r.verdict.window {
        Some(w) => r
            .rounds
            .iter()
            .filter(|x| x.round >= w.first_round && x.round <= w.last_round)
            .collect(),
        None => r.rounds.last().into_iter().collect(),
    }
}

pub fn charts(run: &Run, i: usize) -> Vec<Chart> {
    let Document::Steady(r) = &run.doc else {
        return Vec::new();
    };
    let mut out = Vec::new();
    out.extend(surface(run, r, i));
    out.extend(saturation(run, r, i));
    out.extend(idle_recovery(run, r, i));
    out
}

/// One line per R/W mix: the window's mean IOPS at each block size (two sizes at least).
fn surface(run: &Run, r: &SteadyRecord, i: usize) -> Option<Chart> {
    if r.test != SteadyTest::Iops {
        return None;
    }
    let mut blocks: Vec<u64> = r.matrix.iter().map(|c| c.block_size).collect();
    blocks.sort_unstable();
    blocks.dedup();
    let mut mixes: Vec<u8> = r.matrix.iter().map(|c| c.read_pct).collect();
    mixes.sort_unstable_by(|a, b| b.cmp(a));
    mixes.dedup();
    let rounds = window(r);
    if blocks.len() < 2 || rounds.is_empty() {
        return None;
    }
    let mean = |k: usize| {
        let v: Vec<f64> = rounds
            .iter()
            .filter_map(|x| x.cells.get(k))
            .map(|c| c.iops)
            .collect();
        v.iter().sum::<f64>() / v.len().max(1) as f64
    };
    let lines: Vec<(u8, Vec<(f64, f64)>)> = mixes
        .iter()
        .map(|&m| {
            let pts = r
                .matrix
                .iter()
                .enumerate()
                .filter(|(_, c)| c.read_pct == m)
                .map(|(k, c)| {
                    let at = blocks.iter().position(|&b| b == c.block_size).unwrap_or(0);
                    (at as f64, mean(k))
                })
                .filter(|p| p.1 > 0.0)
                .collect::<Vec<_>>();
            (m, pts)
        })
        .collect();
    let all = lines.iter().flat_map(|l| l.1.iter().map(|p| p.1));
    let (lo, hi) = all.fold((f64::MAX, 0.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    if hi <= 0.0 {
        return None;
    }
    let layout = Layout::new(lines.len());
    let x = Scale::range(-0.3, blocks.len() as f64 - 0.7, layout.left, layout.right);
    let y = Scale::log(lo, hi, layout.bottom, layout.top);
    let title = format!("IOPS by R/W mix and block size — {}", run.label());
    let names: Vec<String> = blocks.iter().map(|&b| format_size(b)).collect();
    let x_fmt = |v: f64| {
        let k = v.round();
        if (v - k).abs() < 1e-6 && k >= 0.0 {
            names.get(k as usize).cloned().unwrap_or_default()
        } else {
            String::new()
        }
    };
    let axes = Axes {
        x_fmt: &x_fmt,
        ..Axes::labelled("Block size", "IOPS (log)")
    };
    let mut s = frame::start(&title, &layout, &x, &y, &axes);
    let mut legend = Vec::new();
    let mut marks = 0;
    for (k, (m, pts)) in lines.iter().enumerate() {
        let color = MIX_COLORS[k % MIX_COLORS.len()];
        let px: Vec<(f64, f64)> = pts.iter().map(|(a, b)| (x.px(*a), y.px(*b))).collect();
        let name = format!("{m}/{} R/W", 100 - m);
        s.data_line(&px, color, false, &name);
        marks += pts.len();
        legend.push(Entry {
            text: name,
            color,
            dashed: false,
        });
    }
    frame::legend(&mut s, &layout, &legend);
    Some(Chart {
        id: format!("steady-surface-{}", slug(run, i)),
        title,
        caption: "Each R/W mix's IOPS at each block size, the mean over the measurement window (the PTS IOPS surface)."
            .into(),
        svg: s.finish(),
        marks,
    })
}

/// The tracked IOPS of every round against the bytes written since the purge.
fn saturation(run: &Run, r: &SteadyRecord, i: usize) -> Option<Chart> {
    if r.test != SteadyTest::WriteSaturation || r.rounds.is_empty() {
        return None;
    }
    let gib = (1u64 << 30) as f64;
    let pts: Vec<(f64, f64)> = r
        .rounds
        .iter()
        .map(|x| (x.total_bytes_written as f64 / gib, x.tracked))
        .collect();
    let layout = Layout::new(1);
    let x0 = r.precondition.written_bytes as f64 / gib;
    let x1 = pts.last().map_or(x0, |p| p.0).max(x0 * 1.01 + 1e-9);
    let x = Scale::linear(0.0, x1, layout.left, layout.right);
    let top = pts.iter().map(|p| p.1).fold(0.0, f64::max) * 1.1;
    let y = Scale::linear(0.0, top.max(1.0), layout.bottom, layout.top);
    let title = format!("Write saturation — {}", run.label());
    let axes = Axes::labelled("Written since the purge (GiB)", "RND4K write IOPS");
    let mut s = frame::start(&title, &layout, &x, &y, &axes);
    let (color, _) = style(run, i);
    let px: Vec<(f64, f64)> = pts.iter().map(|(a, b)| (x.px(*a), y.px(*b))).collect();
    s.data_line(&px, color, false, &run.label());
    frame::legend(
        &mut s,
        &layout,
        &[Entry {
            text: format!("{} (a point per round)", run.legend()),
            color,
            dashed: false,
        }],
    );
    Some(Chart {
        id: format!("steady-saturation-{}", slug(run, i)),
        title,
        caption: "RND4K write IOPS of each round against the bytes written since the purge, preconditioning included."
            .into(),
        svg: s.finish(),
        marks: pts.len(),
    })
}

/// Each burst's IOPS against its time, the steady rate dashed.
fn idle_recovery(run: &Run, r: &SteadyRecord, i: usize) -> Option<Chart> {
    let h = r.idle_recovery.as_ref()?;
    let pts: Vec<(f64, f64)> = h
        .segments
        .iter()
        .flat_map(|s| s.bursts.iter().map(|b| (b.at_ns as f64 / 1e9, b.iops)))
        .collect();
    if pts.is_empty() {
        return None;
    }
    let layout = Layout::new(2);
    let last = pts.iter().map(|p| p.0).fold(0.0, f64::max).max(1e-3);
    let x = Scale::linear(0.0, last, layout.left, layout.right);
    let top = pts.iter().map(|p| p.1).fold(h.baseline_iops, f64::max) * 1.1;
    let y = Scale::linear(0.0, top.max(1.0), layout.bottom, layout.top);
    let title = format!("Host idle recovery — {}", run.label());
    let axes = Axes::labelled("Time since the first burst (s)", "RND4K write IOPS");
    let mut s = frame::start(&title, &layout, &x, &y, &axes);
    let (color, _) = style(run, i);
    let by = y.px(h.baseline_iops);
    s.line(
        layout.left,
        by,
        layout.right,
        by,
        "#888",
        &[("stroke-dasharray", "6 4".into())],
    );
    let px: Vec<(f64, f64)> = pts.iter().map(|(a, b)| (x.px(*a), y.px(*b))).collect();
    s.data_line(&px, color, false, &run.label());
    let waits: Vec<String> = h
        .segments
        .iter()
        .map(|s| format!("WS{}", s.wait_state))
        .collect();
    frame::legend(
        &mut s,
        &layout,
        &[
            Entry {
                text: format!("{}: bursts of {}", run.legend(), waits.join(", ")),
                color,
                dashed: false,
            },
            Entry {
                text: "steady rate before the bursts".into(),
                color: "#888",
                dashed: true,
            },
        ],
    );
    Some(Chart {
        id: format!("steady-idle-{}", slug(run, i)),
        title,
        caption: "Each burst's IOPS at its time; wait states follow one another with longer idle times; the dashed line is the steady rate."
            .into(),
        svg: s.finish(),
        marks: pts.len(),
    })
}

#[cfg(test)]
#[path = "steady_pages_tests.rs"]
mod tests;
