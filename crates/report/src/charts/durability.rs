//! A durability run's charts: what a commit costs (each mode × committers × size, its median and 99th
//! percentile on a log scale), and the flush-honesty experiment (each flush's time against the bytes written
//! before it, with the least time an honest flush of what could still be pending takes, dashed), so a flush that
//! returned far below its bound stands out.

use super::{slug, Chart};
use crate::doc::Run;
use crate::format::duration_tick;
use crate::svg::axis::Scale;
use crate::svg::frame::{self, Axes, Entry, Layout};
use crate::svg::{n, PALETTE};
use drivescope_record::durability::{CommitModeName, DurabilityRecord};
use drivescope_record::Document;

const P50: &str = PALETTE[0];
const P99: &str = PALETTE[1];
const FLUSH: &str = PALETTE[3];
const BOUND: &str = "#555";

pub fn charts(run: &Run, i: usize) -> Vec<Chart> {
    let Document::Durability(r) = &run.doc else {
        return Vec::new();
    };
    commits(run, i, r)
        .into_iter()
        .chain(flushes(run, i, r))
        .collect()
}

fn mode(m: CommitModeName) -> &'static str {
    match m {
        CommitModeName::Fdatasync => "fdatasync",
        CommitModeName::Fsync => "fsync",
        CommitModeName::ODsync => "O_DSYNC",
    }
}

/// Bars of each commit row's p50 and p99.
fn commits(run: &Run, i: usize, r: &DurabilityRecord) -> Option<Chart> {
    let rows: Vec<_> = r.data.commits.iter().filter(|c| c.count > 0).collect();
    if rows.is_empty() {
        return None;
    }
    let lo = rows
        .iter()
        .map(|c| c.p50_ns.max(1) as f64)
        .fold(f64::MAX, f64::min);
    let hi = rows
        .iter()
        .map(|c| c.p99_ns.max(1) as f64)
        .fold(1.0, f64::max);
    let layout = Layout::new(2);
    let y = Scale::log(lo, hi, layout.bottom, layout.top);
    let frame_x = frame::categories(&layout);
    let axes = Axes {
        x_title: "",
        y_title: "Commit latency",
        x_fmt: &|_| String::new(),
        y_fmt: &duration_tick,
    };
    let title = format!("What a commit costs — {}", run.label());
    let mut s = frame::start(&title, &layout, &frame_x, &y, &axes);
    // Two lines under each pair of bars: the mode, then committers and size.
    let lines: Vec<(String, String)> = rows
        .iter()
        .map(|c| {
            (
                mode(c.mode).to_string(),
                format!(
                    "×{} {}",
                    c.committers,
                    drivescope_units::format_size(c.size)
                ),
            )
        })
        .collect();
    let groups: Vec<String> = lines.iter().map(|(a, b)| format!("{a} {b}")).collect();
    let slot = (layout.right - layout.left) / rows.len() as f64;
    let longest: Vec<String> = lines
        .iter()
        .flat_map(|(a, b)| [a.clone(), b.replace(' ', "\u{a0}")])
        .collect();
    let font = super::bench::label_font(&longest, slot);
    let mut marks = 0;
    for (g, (c, name)) in rows.iter().zip(&groups).enumerate() {
        let x = layout.left + slot * g as f64;
        for (k, text) in [&lines[g].0, &lines[g].1].into_iter().enumerate() {
            s.text(
                x + slot / 2.0,
                layout.bottom + 14.0 + 13.0 * k as f64,
                "middle",
                &[("font-size", n(font))],
                text,
            );
        }
        let bar = slot * 0.4;
        for (k, (v, color, what)) in [(c.p50_ns, P50, "p50"), (c.p99_ns, P99, "p99")]
            .into_iter()
            .enumerate()
        {
            let y0 = y.px(v.max(1) as f64);
            s.open(
                "rect",
                &[
                    ("class", "mark".into()),
                    ("fill", color.to_string()),
                    ("x", n(x + slot * 0.1 + bar * k as f64)),
                    ("y", n(y0)),
                    ("width", n(bar * 0.92)),
                    ("height", n((layout.bottom - y0).max(0.0))),
                ],
            );
            let tip = format!(
                "{name}: {what} {} over {} commits ({} flushes asked{})",
                duration_tick(v as f64),
                c.count,
                c.flushes,
                c.device_flushes
                    .map_or(String::new(), |d| format!(", {d} reached the device"))
            );
            s.leaf("title", &[], Some(&tip));
            s.close("rect");
            marks += 1;
        }
    }
    frame::legend(
        &mut s,
        &layout,
        &[
            Entry {
                text: "median commit".into(),
                color: P50,
                dashed: false,
            },
            Entry {
                text: "99th percentile".into(),
                color: P99,
                dashed: false,
            },
        ],
    );
    Some(Chart {
        id: format!("durability-commits-{}", slug(run, i)),
        title,
        caption: "Each way of making a write durable, at one committer and at several, by bytes per commit: \
                  the median and the 99th percentile of the time from the write to the return of the call."
            .into(),
        svg: s.finish(),
        marks,
    })
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / 1_048_576.0
}

/// Each write-then-flush pair's flush time against the bytes written before it, and the honest bound.
fn flushes(run: &Run, i: usize, r: &DurabilityRecord) -> Option<Chart> {
    if r.pairs.is_empty() {
        return None;
    }
    let bounds: Vec<(f64, f64)> = r
        .data
        .flush_honesty
        .iter()
        .flat_map(|f| &f.sizes)
        .filter(|z| z.bound_ns > 0.0)
        .map(|z| (mib(z.bytes), z.bound_ns))
        .collect();
    let xs = r.pairs.iter().map(|p| mib(p.bytes));
    let (xlo, xhi) = xs.fold((f64::MAX, 1.0f64), |(a, b), x| (a.min(x), b.max(x)));
    let ys = r
        .pairs
        .iter()
        .map(|p| p.flush_ns.max(1) as f64)
        .chain(bounds.iter().map(|b| b.1));
    let (ylo, yhi) = ys.fold((f64::MAX, 1.0f64), |(a, b), v| (a.min(v), b.max(v)));
    let layout = Layout::new(2);
    let x = Scale::log_range(xlo / 1.5, xhi * 1.5, layout.left, layout.right);
    let y = Scale::log(ylo, yhi, layout.bottom, layout.top);
    let axes = Axes {
        x_title: "Written before the flush (MiB)",
        y_title: "Flush time",
        x_fmt: &crate::svg::axis::label,
        y_fmt: &duration_tick,
    };
    let title = format!("Flush honesty — {}", run.label());
    let mut s = frame::start(&title, &layout, &x, &y, &axes);
    if bounds.len() > 1 {
        let pts: Vec<(f64, f64)> = bounds.iter().map(|(b, v)| (x.px(*b), y.px(*v))).collect();
        s.data_line(&pts, BOUND, true, "honest bound");
    }
    let mut marks = 0;
    for p in &r.pairs {
        s.open(
            "circle",
            &[
                ("class", "mark".into()),
                ("cx", n(x.px(mib(p.bytes)))),
                ("cy", n(y.px(p.flush_ns.max(1) as f64))),
                ("r", "4".into()),
                ("fill", FLUSH.to_string()),
            ],
        );
        let tip = format!(
            "after {}: flush {} (the write took {})",
            drivescope_units::format_size(p.bytes),
            duration_tick(p.flush_ns as f64),
            duration_tick(p.write_ns as f64)
        );
        s.leaf("title", &[], Some(&tip));
        s.close("circle");
        marks += 1;
    }
    frame::legend(
        &mut s,
        &layout,
        &[
            Entry {
                text: "a flush after writing that much".into(),
                color: FLUSH,
                dashed: false,
            },
            Entry {
                text: "least time an honest flush of what could still be pending takes".into(),
                color: BOUND,
                dashed: true,
            },
        ],
    );
    Some(Chart {
        id: format!("durability-flushes-{}", slug(run, i)),
        title,
        caption: "Every flush of the experiment against the bytes written just before it; flushes far below the \
                  dashed bound returned before the data can have reached the media."
            .into(),
        svg: s.finish(),
        marks,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use drivescope_record::durability::{CommitCostRow, DurabilityData, FlushPair};
    use drivescope_record::{Header, Kind, TargetInfo, TargetType};

    fn record(commits: Vec<CommitCostRow>, pairs: Vec<FlushPair>) -> Run {
        let header = Header::now(
            Kind::Durability,
            TargetInfo {
                path: "/dev/loop3".into(),
                kind: TargetType::Block,
                size: 256 << 20,
                logical_block_size: 512,
            },
        );
        let r = DurabilityRecord {
            data: DurabilityData {
                commits,
                flush_honesty: None,
            },
            pairs,
            bytes_written: 1,
            flushes: 1,
            budget_ns: 1,
            duration_ns: 1,
            ..DurabilityRecord::empty(header, "device")
        };
        Run::new(Some(3), Document::Durability(Box::new(r)))
    }

    #[test]
    fn one_bar_per_percentile_of_each_commit_row_and_one_dot_per_flush() {
        let rows: Vec<CommitCostRow> = (0..6)
            .map(|k| CommitCostRow {
                mode: [
                    CommitModeName::Fdatasync,
                    CommitModeName::Fsync,
                    CommitModeName::ODsync,
                ][k % 3],
                committers: if k < 3 { 1 } else { 4 },
                size: 4096,
                count: 100,
                bytes: 409_600,
                flushes: 100,
                device_flushes: Some(100),
                p50_ns: 100_000 * (k as u64 + 1),
                p99_ns: 900_000 * (k as u64 + 1),
                max_ns: 2_000_000,
                into: None,
                mean_ns: 0,
            })
            .collect();
        let pairs: Vec<FlushPair> = (0..4)
            .flat_map(|s| {
                (0..3).map(move |_| FlushPair {
                    bytes: 1 << (20 + s),
                    write_ns: 3_000_000 << s,
                    flush_ns: 100_000,
                })
            })
            .collect();
        let c = charts(&record(rows, pairs), 0);
        assert_eq!(
            c.len(),
            2,
            "{:?}",
            c.iter().map(|c| &c.id).collect::<Vec<_>>()
        );
        assert_eq!(c[0].marks, 12);
        assert_eq!(c[0].svg.matches("class=\"mark\"").count(), 12);
        assert!(c[0].svg.contains(">fdatasync<") && c[0].svg.contains(">×1 4.0 KiB<"));
        assert_eq!(c[1].marks, 12);
        assert_eq!(c[1].svg.matches("class=\"mark\"").count(), 12);
        // No pairs (a power-cut check) and no commits: no charts.
        assert!(charts(&record(Vec::new(), Vec::new()), 0).is_empty());
    }
}
