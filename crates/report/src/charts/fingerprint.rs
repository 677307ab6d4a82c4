//! A traced run's charts (`time --trace`): requests by size class as bars, reads and writes side by side,
//! and the queue depth the workload kept over the traced run.

use super::{slug, Chart};
use crate::doc::Run;
use crate::format::thousands;
use crate::svg::axis::Scale;
use crate::svg::frame::{self, Axes, Entry, Layout};
use crate::svg::{n, PALETTE};
use drivescope_record::{size_class_label, Document, IoDirection};

const READ: &str = PALETTE[0];
const WRITE: &str = PALETTE[1];

pub fn charts(run: &Run, i: usize) -> Vec<Chart> {
    let Document::Time(r) = &run.doc else {
        return Vec::new();
    };
    let Some(f) = &r.fingerprint else {
        return Vec::new();
    };
    let mut out = Vec::new();
    // Requests per size class and direction, the patterns together.
    let mut sizes: Vec<u64> = f.classes.iter().map(|c| c.size_max_bytes).collect();
    sizes.sort_unstable();
    sizes.dedup();
    if !sizes.is_empty() {
        let count = |size: u64, dir: IoDirection| -> u64 {
            f.classes
                .iter()
                .filter(|c| c.size_max_bytes == size && c.direction == dir)
                .map(|c| c.requests)
                .sum()
        };
        let top = sizes
            .iter()
            .flat_map(|&s| [count(s, IoDirection::Read), count(s, IoDirection::Write)])
            .max()
            .unwrap_or(1)
            .max(1) as f64;
        let layout = Layout::new(2);
        let y = Scale::linear(0.0, top * 1.1, layout.bottom, layout.top);
        let x = Scale::linear(0.0, sizes.len() as f64, layout.left, layout.right);
        let axes = Axes {
            x_title: "Request size class",
            y_title: "Requests",
            x_fmt: &|_| String::new(),
            y_fmt: &thousands,
        };
        let title = format!("Request sizes of {} — {}", f.run_label(), run.label());
        let mut s = frame::start(&title, &layout, &x, &y, &axes);
        let slot = (layout.right - layout.left) / sizes.len() as f64;
        let mut marks = 0;
        for (k, &size) in sizes.iter().enumerate() {
            let left = layout.left + slot * k as f64;
            s.text(
                left + slot / 2.0,
                layout.bottom + 19.0,
                "middle",
                &[("font-size", "11".into())],
                &size_class_label(size),
            );
            for (j, (dir, color)) in [(IoDirection::Read, READ), (IoDirection::Write, WRITE)]
                .into_iter()
                .enumerate()
            {
                let c = count(size, dir);
                if c == 0 {
                    continue;
                }
                let w = slot * 0.35;
                let x0 = left + slot * 0.15 + w * j as f64;
                let y0 = y.px(c as f64);
                s.open(
                    "rect",
                    &[
                        ("class", "mark".into()),
                        ("x", n(x0)),
                        ("y", n(y0)),
                        ("width", n(w)),
                        ("height", n(layout.bottom - y0)),
                        ("fill", color.to_string()),
                    ],
                );
                let tip = format!(
                    "{} {}s: {} requests",
                    size_class_label(size),
                    dir.as_str(),
                    thousands(c as f64)
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
                    text: "reads".into(),
                    color: READ,
                    dashed: false,
                },
                Entry {
                    text: "writes".into(),
                    color: WRITE,
                    dashed: false,
                },
            ],
        );
        out.push(Chart {
            id: format!("time-sizes-{}", slug(run, i)),
            title,
            caption:
                "Requests of the traced run by size class (above half the size, at most the size), \
                      sequential and random together."
                    .into(),
            svg: s.finish(),
            marks,
        });
    }
    if f.timeline.len() >= 2 {
        let end = f.timeline.last().map_or(1.0, |p| p.t_s + f.timeline_step_s);
        let top = f.timeline.iter().map(|p| p.queue_depth).fold(1.0, f64::max);
        let layout = Layout::new(1);
        let x = Scale::linear(0.0, end, layout.left, layout.right);
        let y = Scale::linear(0.0, top * 1.1, layout.bottom, layout.top);
        let axes = Axes {
            x_title: "Time from the start of the traced run (s)",
            y_title: "Queue depth",
            x_fmt: &|v| format!("{v:.2}"),
            y_fmt: &|v| format!("{v:.1}"),
        };
        let title = format!("Queue depth over {} — {}", f.run_label(), run.label());
        let mut s = frame::start(&title, &layout, &x, &y, &axes);
        let points: Vec<(f64, f64)> = f
            .timeline
            .iter()
            .map(|p| (x.px(p.t_s + f.timeline_step_s / 2.0), y.px(p.queue_depth)))
            .collect();
        s.data_line(&points, READ, false, "queue depth");
        frame::legend(
            &mut s,
            &layout,
            &[Entry {
                text: format!(
                    "requests in flight, time-weighted over {} ms bins",
                    (f.timeline_step_s * 1e3).round()
                ),
                color: READ,
                dashed: false,
            }],
        );
        out.push(Chart {
            id: format!("time-depth-{}", slug(run, i)),
            title,
            caption: "The queue depth the traced run kept on its disks, over time (idle time counts as 0)."
                .into(),
            svg: s.finish(),
            marks: points.len(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use drivescope_record::{
        AccessPattern, Fingerprint, Header, IoClass, IoSource, Kind, TargetInfo, TargetType,
        ThinkTime, TimeMode, TimeRecord, TimelinePoint,
    };

    fn class(direction: IoDirection, size: u64, requests: u64) -> IoClass {
        IoClass {
            direction,
            size_max_bytes: size,
            pattern: AccessPattern::Random,
            requests,
            bytes: requests * size,
            service_ns_mean: 50_000.0,
            service_ns_p50: 50_000,
            service_ns_p99: 90_000,
            queue_depth_mean: 1.0,
        }
    }

    fn record(fingerprint: Option<Fingerprint>) -> Run {
        let target = TargetInfo {
            path: "/srv/db".into(),
            kind: TargetType::File,
            size: 0,
            logical_block_size: 512,
        };
        Run::new(
            Some(7),
            TimeRecord {
                header: Header::now(Kind::Time, target),
                command: vec!["true".into()],
                shell: None,
                prepare: None,
                runs: 1,
                warmup: 0,
                ignore_failure: false,
                devices: vec!["loop0".into()],
                members: Vec::new(),
                io_source: IoSource::Diskstats,
                modes: Vec::new(),
                notes: Vec::new(),
                fingerprint,
                prediction: None,
                interrupted: false,
                duration_ns: 0,
            },
        )
    }

    #[test]
    fn a_traced_run_has_a_size_chart_and_a_depth_chart_and_an_untraced_one_none() {
        let f = Fingerprint {
            mode: TimeMode::Cold,
            run: 1,
            devices: vec!["loop0".into()],
            requests: 130,
            unmatched: 0,
            lost_events: 0,
            wall_ns: 30_000_000,
            busy_ns: 20_000_000,
            classes: vec![
                class(IoDirection::Read, 4096, 100),
                class(IoDirection::Write, 4096, 10),
                class(IoDirection::Read, 131_072, 20),
            ],
            flushes: 0,
            discards: 0,
            sync_requests: 0,
            queue_depth: Vec::new(),
            mean_queue_depth: 1.0,
            think: ThinkTime::default(),
            timeline: (0..3)
                .map(|k| TimelinePoint {
                    t_s: k as f64 * 0.01,
                    queue_depth: 0.5 + k as f64 * 0.2,
                    read_bytes: 0,
                    write_bytes: 0,
                    requests: 40,
                })
                .collect(),
            timeline_step_s: 0.01,
            notes: Vec::new(),
        };
        let got = charts(&record(Some(f)), 0);
        assert_eq!(got.len(), 2);
        assert!(got[0].id.starts_with("time-sizes-"));
        assert_eq!(got[0].marks, 3, "4 KiB reads, 4 KiB writes, 128 KiB reads");
        assert!(got[0].svg.contains("128 KiB reads: 20 requests"));
        assert!(got[1].id.starts_with("time-depth-"));
        assert_eq!(got[1].marks, 3);
        assert!(charts(&record(None), 0).is_empty());
    }
}
