//! Bench results as grouped bars: one group per test (name and read/write), one bar per run.

use super::{style, Chart};
use crate::doc::Run;
use crate::svg::axis::Scale;
use crate::svg::frame::{self, Axes, Entry, Layout};
use crate::svg::n;
#[cfg(test)]
use drivescope_record::Direction;
use drivescope_record::{BenchRecord, Document, TestResult};

/// A character's width as a share of the font size, for the sans-serif faces charts are drawn
/// in (digits and capitals are the widest).
pub(crate) const CHAR_EM: f64 = 0.62;

/// The font size of the group labels: each label goes one word to a line under its group
/// (`SEQ1M` / `Q8T1` / `read`), and the size shrinks until the longest word fits its slot, so
/// neighbours never run into each other however many tests there are.
pub(crate) fn label_font(groups: &[String], slot: f64) -> f64 {
    let longest = groups
        .iter()
        .flat_map(|g| g.split(' '))
        .map(|w| w.chars().count())
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    (slot * 0.9 / (longest * CHAR_EM)).clamp(5.0, 11.0)
}

pub fn chart(runs: &[Run]) -> Option<Chart> {
    let benches: Vec<(usize, &Run, &BenchRecord)> = runs
        .iter()
        .enumerate()
        .filter_map(|(i, r)| match &r.doc {
            Document::Bench(b) if !b.tests.is_empty() => Some((i, r, b.as_ref())),
            _ => None,
        })
        .collect();
    if benches.is_empty() {
        return None;
    }
    let name = |t: &TestResult| format!("{} {}", t.name, t.rw);
    let mut groups: Vec<String> = Vec::new();
    for (_, _, b) in &benches {
        for t in &b.tests {
            let g = name(t);
            if !groups.contains(&g) {
                groups.push(g);
            }
        }
    }
    let max = benches
        .iter()
        .flat_map(|(_, _, b)| b.tests.iter().map(|t| t.mb_per_s))
        .fold(0.0, f64::max);
    let layout = Layout::new(benches.len());
    let y = Scale::linear(0.0, max * 1.05, layout.bottom, layout.top);
    // The x axis is categorical; a unit scale only places the frame.
    let x = Scale {
        lo: 0.0,
        hi: groups.len() as f64,
        log: false,
        p0: layout.left,
        p1: layout.right,
    };
    let axes = Axes {
        x_fmt: &|_| String::new(),
        ..Axes::rate("")
    };
    let frame_x = Scale {
        lo: 0.0,
        hi: 0.0,
        ..x
    };
    let mut s = frame::start("Bench results", &layout, &frame_x, &y, &axes);
    let slot = (layout.right - layout.left) / groups.len() as f64;
    let bar = slot * 0.8 / benches.len() as f64;
    let mut marks = 0;
    let mut legend = Vec::new();
    let font = label_font(&groups, slot);
    for (g, gname) in groups.iter().enumerate() {
        for (row, word) in gname.split(' ').enumerate() {
            s.text(
                layout.left + slot * (g as f64 + 0.5),
                layout.bottom + 15.0 + row as f64 * (font + 1.0),
                "middle",
                &[("font-size", n(font))],
                word,
            );
        }
    }
    for (k, (i, run, b)) in benches.iter().enumerate() {
        let (color, _) = style(run, *i);
        s.open("g", &[("fill", color.to_string())]);
        for t in &b.tests {
            let v = t.mb_per_s;
            let Some(g) = groups.iter().position(|g| *g == name(t)) else {
                continue;
            };
            let x0 = layout.left + slot * g as f64 + slot * 0.1 + bar * k as f64;
            let y0 = y.px(v);
            s.open(
                "rect",
                &[
                    ("class", "mark".into()),
                    ("x", n(x0)),
                    ("y", n(y0)),
                    ("width", n(bar * 0.92)),
                    ("height", n(layout.bottom - y0)),
                ],
            );
            s.leaf(
                "title",
                &[],
                Some(&format!("{}: {} {v:.1} MB/s", run.label(), name(t))),
            );
            s.close("rect");
            marks += 1;
        }
        s.close("g");
        legend.push(Entry {
            text: run.legend(),
            color,
            dashed: false,
        });
    }
    frame::legend(&mut s, &layout, &legend);
    Some(Chart {
        id: "bench".into(),
        title: "Bench results".into(),
        caption: "Mean MB/s of each test, one bar per run.".into(),
        svg: s.finish(),
        marks,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample;
    use crate::svg::frame::Layout;

    /// The group labels of a bench chart: (x, y, font size, text).
    fn labels(svg: &str) -> Vec<(f64, f64, f64, String)> {
        let bottom = Layout::new(0).bottom;
        let attr = |head: &str, name: &str| -> Option<f64> {
            let from = head.find(&format!(" {name}=\""))? + name.len() + 3;
            head[from..].split('"').next()?.parse().ok()
        };
        svg.split("<text")
            .skip(1)
            .filter_map(|t| {
                let (head, rest) = t.split_once('>')?;
                let y = attr(head, "y")?;
                let font = attr(head, "font-size")?;
                (y > bottom && y < bottom + 50.0 && head.contains("middle")).then(|| {
                    (
                        attr(head, "x").unwrap(),
                        y,
                        font,
                        rest.split('<').next().unwrap().to_string(),
                    )
                })
            })
            .collect()
    }

    /// However many tests a bench has (the default profile's 8, a long list of 24), no two
    /// labels on a line overlap, and every label ends above the legend.
    #[test]
    fn group_labels_never_overlap() {
        for extra in [0usize, 4, 16] {
            let mut b = sample::bench(3);
            let base = b.tests.clone();
            for i in 0..extra {
                let mut t = base[i % base.len()].clone();
                t.name = format!("RND{}K Q32T16", 4 << (i % 5));
                t.rw = [Direction::Read, Direction::Write, Direction::Mix][i % 3];
                b.tests.push(t);
            }
            let runs = [Run::new(Some(1), Document::from(b))];
            let c = chart(&runs).unwrap();
            let got = labels(&c.svg);
            assert!(!got.is_empty(), "{}", c.svg);
            let legend_top = Layout::new(1).bottom + 58.0 - 12.0;
            let mut rows: Vec<f64> = got.iter().map(|l| l.1).collect();
            rows.sort_by(f64::total_cmp);
            rows.dedup();
            for y in rows {
                assert!(
                    y < legend_top,
                    "label row at {y} runs into the legend at {legend_top}"
                );
                let mut row: Vec<&(f64, f64, f64, String)> =
                    got.iter().filter(|l| l.1 == y).collect();
                row.sort_by(|a, b| a.0.total_cmp(&b.0));
                for w in row.windows(2) {
                    let half = |l: &(f64, f64, f64, String)| {
                        l.3.chars().count() as f64 * CHAR_EM * l.2 / 2.0
                    };
                    assert!(
                        w[0].0 + half(w[0]) < w[1].0 - half(w[1]),
                        "{extra} extra tests: '{}' and '{}' overlap",
                        w[0].3,
                        w[1].3
                    );
                }
            }
        }
    }
}
