//! Transfer rate vs position: every scan's curve in one chart (read and write of a device, and several runs,
//! overlaid for comparison).

use super::{position_unit, style, Chart};
use crate::doc::Run;
use crate::svg::axis::Scale;
use crate::svg::frame::{self, Axes, Entry, Layout};
use crate::svg::n;
use drivescope_record::{Document, ScanRecord};

/// A run's index, the run, and its (position, MB/s) points.
type Curve<'a> = (usize, &'a Run, Vec<(f64, f64)>);

pub fn chart(runs: &[Run]) -> Option<Chart> {
    let curves: Vec<Curve<'_>> = runs
        .iter()
        .enumerate()
        .filter_map(|(i, r)| {
            let Document::Scan(s) = &r.doc else {
                return None;
            };
            let pts: Vec<(f64, f64)> = s
                .curve
                .iter()
                .map(|c| (c.offset as f64 + c.length as f64 / 2.0, c.mb_per_s))
                .collect();
            (!pts.is_empty()).then_some((i, r, pts))
        })
        .collect();
    if curves.is_empty() {
        return None;
    }
    let max_pos = curves
        .iter()
        .flat_map(|c| c.2.iter().map(|p| p.0))
        .fold(0.0, f64::max);
    let ends = runs.iter().filter_map(|r| match &r.doc {
        Document::Scan(s) => Some(s.offset as f64 + s.length as f64),
        _ => None,
    });
    let max_pos = ends.fold(max_pos, f64::max);
    let max_rate = curves
        .iter()
        .flat_map(|c| c.2.iter().map(|p| p.1))
        .fold(0.0, f64::max);
    let layout = Layout::new(curves.len());
    // Positions are scaled in the display unit (GiB, TiB) so ticks fall on round numbers of it.
    let (div, unit) = position_unit(max_pos);
    let x = Scale::range(0.0, max_pos / div, layout.left, layout.right);
    let y = Scale::linear(0.0, max_rate * 1.05, layout.bottom, layout.top);
    let title = "Transfer rate vs position";
    let x_title = format!("Position ({unit})");
    let mut s = frame::start(title, &layout, &x, &y, &Axes::rate(&x_title));
    let mut marks = 0;
    let mut legend = Vec::new();
    for (i, run, pts) in &curves {
        let (color, dashed) = style(run, *i);
        let px: Vec<(f64, f64)> = pts
            .iter()
            .map(|(p, r)| (x.px(*p / div), y.px(*r)))
            .collect();
        s.data_line(&px, color, dashed, &run.label());
        marks += px.len();
        legend.push(Entry {
            text: format!("{} ({} points)", run.legend(), pts.len()),
            color,
            dashed,
        });
    }
    for (_, run, _) in &curves {
        let Document::Scan(scan) = &run.doc else {
            continue;
        };
        marks += fault_marks(&mut s, scan, &x, &y, div);
    }
    frame::legend(&mut s, &layout, &legend);
    Some(Chart {
        id: "curve".into(),
        title: title.into(),
        caption: "Mean transfer rate of each position bin; writes dashed. Failed extents are marked red on \
                  the curve, regions of slow commands orange, each as wide as it is."
            .into(),
        svg: s.finish(),
        marks,
    })
}

/// Red marks for the failed extents and orange ones for the slow regions of `scan`, on its curve
/// at their positions (at least 3 px wide); each names what it marks in a tooltip. Returns the
/// marks drawn: one per extent and region.
fn fault_marks(
    s: &mut crate::svg::Svg,
    scan: &ScanRecord,
    x: &Scale,
    y: &Scale,
    div: f64,
) -> usize {
    let rate_at = |pos: u64| {
        scan.curve
            .iter()
            .find(|c| c.offset <= pos && pos < c.offset + c.length)
            .map_or(0.0, |c| c.mb_per_s)
    };
    let lbs = (scan.header.target.logical_block_size as u64).max(1);
    let mut drawn = 0;
    let failed = scan.failed_extents_or_derived();
    let slow = scan.slow_regions_or_derived();
    let items = slow
        .iter()
        .map(|g| {
            (
                "slow_region",
                "#e67e22",
                g.offset,
                g.length,
                format!(
                    "slow: LBA {}-{}, {} commands, slowest {}",
                    g.offset / lbs,
                    (g.offset + g.length).div_ceil(lbs).saturating_sub(1),
                    g.count,
                    drivescope_units::format_ns(g.max_latency_ns)
                ),
            )
        })
        .chain(failed.iter().map(|e| {
            (
                "failed_extent",
                "#d62728",
                e.offset,
                e.length,
                format!(
                    "failed: LBA {}-{}, errno {}, {} sectors",
                    e.first_lba, e.last_lba, e.errno, e.count
                ),
            )
        }));
    for (kind, color, offset, length, tip) in items {
        let x0 = x.px(offset as f64 / div);
        let x1 = x.px((offset + length) as f64 / div);
        let w = (x1 - x0).max(3.0);
        let cy = y.px(rate_at(offset + length / 2));
        s.open(
            "rect",
            &[
                ("class", "mark".into()),
                ("data-kind", kind.into()),
                ("data-offset", offset.to_string()),
                ("data-length", length.to_string()),
                ("x", n(x0 - (w - (x1 - x0)) / 2.0)),
                ("y", n(cy - 6.0)),
                ("width", n(w)),
                ("height", "12".into()),
                ("fill", color.into()),
                ("fill-opacity", "0.7".into()),
            ],
        );
        s.leaf("title", &[], Some(&tip));
        s.close("rect");
        drawn += 1;
    }
    drawn
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample;
    use drivescope_record::{Direction, FailedExtent, SlowRegion};

    #[test]
    fn failed_extents_and_slow_regions_are_marked_at_their_positions() {
        let mut r = sample::scan(3, 1 << 30, 100, 0, 0, Direction::Read);
        r.failed_extents = vec![FailedExtent {
            offset: 512 << 20,
            length: 1 << 20,
            first_lba: 1 << 20,
            last_lba: (1 << 20) + 2047,
            errno: 5,
            count: 2048,
            ..Default::default()
        }];
        r.slow_regions = vec![
            SlowRegion {
                offset: 0,
                length: 128 << 10,
                count: 2,
                max_latency_ns: 70_000_000,
            },
            SlowRegion {
                offset: 1000 << 20,
                length: 64 << 10,
                count: 1,
                max_latency_ns: 60_000_000,
            },
        ];
        let curve_y = |pos: u64| {
            r.curve
                .iter()
                .find(|c| c.offset <= pos && pos < c.offset + c.length)
                .unwrap()
                .mb_per_s
        };
        let marks = [
            ("slow_region", 0u64, 128u64 << 10),
            ("slow_region", 1000 << 20, 64 << 10),
            ("failed_extent", 512 << 20, 1 << 20),
        ];
        let max_rate = r.curve.iter().map(|c| c.mb_per_s).fold(0.0, f64::max);
        let want: Vec<(f64, f64)> = marks
            .iter()
            .map(|&(_, off, len)| {
                let mid = off + len / 2;
                ((mid as f64) / (1u64 << 20) as f64, curve_y(mid))
            })
            .collect();
        let c = chart(&[Run::new(Some(1), Document::from(r))]).unwrap();
        assert_eq!(c.marks, 100 + 3);
        let rects: Vec<&str> = c.svg.split("<rect class=\"mark\"").skip(1).collect();
        assert_eq!(rects.len(), 3, "{}", c.svg);
        let attr = |tag: &str, name: &str| -> f64 {
            let k = format!(" {name}=\"");
            let start = tag.find(&k).unwrap() + k.len();
            tag[start..start + tag[start..].find('"').unwrap()]
                .parse()
                .unwrap()
        };
        // The chart's scales: 0..1024 MiB across, 0..1.05 × the top rate up.
        let layout = Layout::new(1);
        let x = Scale::range(0.0, 1024.0, layout.left, layout.right);
        let y = Scale::linear(0.0, max_rate * 1.05, layout.bottom, layout.top);
        for (i, tag) in rects.iter().enumerate() {
            let (kind, off, len) = marks[i];
            assert!(tag.contains(&format!("data-kind=\"{kind}\"")), "{tag}");
            assert_eq!(attr(tag, "data-offset") as u64, off, "{tag}");
            let w = attr(tag, "width");
            let span = x.px((off + len) as f64 / 1048576.0) - x.px(off as f64 / 1048576.0);
            assert!((w - span.max(3.0)).abs() < 0.01, "{i}: {tag}");
            assert!(
                (attr(tag, "x") + w / 2.0 - x.px(want[i].0)).abs() < 0.01,
                "{i}: {tag}"
            );
            assert!(
                (attr(tag, "y") + 6.0 - y.px(want[i].1)).abs() < 0.01,
                "{i}: {tag}"
            );
        }
        assert!(c
            .svg
            .contains("<title>failed: LBA 1048576-1050623, errno 5, 2048 sectors</title>"));
    }
}
