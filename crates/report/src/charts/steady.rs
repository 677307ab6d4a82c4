//! A steady-state run's convergence, as the PTS report draws it: the tracked variable round by
//! round, the measurement window's average, and the band of ±10 % around it that the window's
//! best-fit line must stay in.

use super::{slug, style, Chart};
use crate::doc::Run;
use crate::svg::axis::Scale;
use crate::svg::frame::{self, Axes, Entry, Layout};
use drivescope_record::Document;

pub fn chart(run: &Run, i: usize) -> Option<Chart> {
    let Document::Steady(r) = &run.doc else {
        return None;
    };
    if r.rounds.is_empty() {
        return None;
    }
    let pts: Vec<(f64, f64)> = r
        .rounds
        .iter()
        .map(|x| (x.round as f64, x.tracked))
        .collect();
    let layout = Layout::new(2);
    let last = pts.last().map_or(1.0, |p| p.0).max(5.0);
    let x = Scale::range(1.0, last, layout.left, layout.right);
    let top = pts.iter().map(|p| p.1).fold(0.0, f64::max) * 1.1;
    let y = Scale::linear(0.0, top.max(1.0), layout.bottom, layout.top);
    let title = format!("Convergence of {} — {}", r.tracked, run.label());
    let axes = Axes::labelled("Round", &r.tracked);
    let mut s = frame::start(&title, &layout, &x, &y, &axes);
    let mut legend = Vec::new();
    if let Some(w) = &r.verdict.window {
        let (x0, x1) = (x.px(w.first_round as f64), x.px(w.last_round as f64));
        for (v, dash, color) in [
            (w.average, "8 4", "#2ca02c"),
            (w.average * (1.0 + w.excursion_allowed), "2 3", "#888"),
            (w.average * (1.0 - w.excursion_allowed), "2 3", "#888"),
        ] {
            let py = y.px(v);
            s.line(x0, py, x1, py, color, &[("stroke-dasharray", dash.into())]);
        }
        legend.push(Entry {
            text: format!(
                "window, rounds {}–{}: average and ±{:.0} %",
                w.first_round,
                w.last_round,
                w.excursion_allowed * 100.0
            ),
            color: "#2ca02c",
            dashed: true,
        });
    }
    let (color, _) = style(run, i);
    let px: Vec<(f64, f64)> = pts.iter().map(|(a, b)| (x.px(*a), y.px(*b))).collect();
    s.data_line(&px, color, false, &run.label());
    legend.insert(
        0,
        Entry {
            text: format!(
                "{} ({}: {})",
                run.legend(),
                r.verdict.state_label(),
                r.rounds.len()
            ),
            color,
            dashed: false,
        },
    );
    frame::legend(&mut s, &layout, &legend);
    Some(Chart {
        id: format!("steady-{}", slug(run, i)),
        title,
        caption: format!(
            "{} per round; the green dashed line is the measurement window's average, the grey ones ±{:.0} % of it.",
            r.tracked,
            r.verdict.window.as_ref().map_or(10.0, |w| w.excursion_allowed * 100.0)
        ),
        svg: s.finish(),
        marks: pts.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_convergence_draws_every_round_and_the_window() {
        let values = [5000.0, 2700.0, 2800.0, 2750.0, 2820.0, 2790.0];
        let run = Run::new(Some(7), crate::sample::steady(1, &values));
        let c = chart(&run, 0).unwrap();
        assert_eq!(c.marks, 6);
        assert!(
            c.title.starts_with("Convergence of RND4K write IOPS"),
            "{}",
            c.title
        );
        assert!(c.svg.contains("rounds 2–6"), "the window's legend");
        let mut text = Vec::new();
        crate::text::print_steady(
            match &run.doc {
                Document::Steady(r) => r,
                _ => unreachable!(),
            },
            &mut text,
        )
        .unwrap();
        let text = String::from_utf8(text).unwrap();
        assert_eq!(text.matches("*round").count(), 5, "{text}");
        assert!(text.contains("measurement window, rounds 2–6"), "{text}");
        assert!(
            text.contains("steady-state RND4K write IOPS: 2 772 IOPS"),
            "{text}"
        );
    }
}
