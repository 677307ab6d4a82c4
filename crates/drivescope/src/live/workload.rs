//! The live view of a bench, sweep, soak, diagnosis or steady-state test: the rate over time
//! (of the whole run, or of the test that runs now), the response-time bands and percentiles of
//! the test that runs now, and what has finished so far (bench's tests, sweep's grid, the
//! diagnosis' experiments, the steady-state test's rounds converging). What a frame shows is
//! gathered here; `workload_render` draws it.

use super::term::Source;
use super::view::{RateWindow, ViewState};
use super::workload_render;
use drivescope_core::bench::watch::{Watch, WatchSnap};
use drivescope_core::bench::SweepCell;
use drivescope_report::text::Convergence;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What has finished so far, as the run reports it.
#[derive(Debug, Clone)]
pub enum Done {
    /// A run of one test (a soak): nothing to list.
    Nothing,
    /// Lines of finished tests, or of experiments as they start, as the plain progress prints
    /// them, under `title`.
    Lines { title: String, lines: Vec<String> },
    /// A sweep's grid: rows by threads, columns by queue depth.
    Grid {
        qds: Vec<u32>,
        threads: Vec<u32>,
        cells: Vec<SweepCell>,
    },
    /// A steady-state test's finished rounds and its window against the rule.
    Rounds(Convergence),
}

/// What the rate chart spans.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Span {
    /// The whole run, to its planned end when known.
    Run,
    /// The test that runs now (the watch's phase), from its start to `planned` when known (a
    /// steady-state test's cell time).
    Phase { planned: Option<Duration> },
}

/// The finished part, shared with the run's report callback.
pub type Finished = Arc<Mutex<Done>>;

/// One frame's data.
#[derive(Debug, Clone)]
pub struct WorkShown {
    pub title: String,
    pub snap: WatchSnap,
    pub elapsed: Duration,
    /// How long the whole run is planned to take, when known.
    pub planned: Option<Duration>,
    /// MB/s and commands/s over the last second or so.
    pub now_mb_s: Option<f64>,
    pub now_iops: Option<f64>,
    /// The rate over time so far: (seconds from the start of what the chart spans, MB/s).
    pub history: Vec<(f64, f64)>,
    pub span: Span,
    /// How long the test that runs now has run (what a [`Span::Phase`] chart's axis shows).
    pub phase_elapsed: Duration,
    pub done: Done,
}

impl WorkShown {
    /// MB/s over the whole run so far.
    pub fn mean_mb_s(&self) -> Option<f64> {
        let s = self.elapsed.as_secs_f64();
        (s > 0.0 && self.snap.bytes > 0).then(|| self.snap.bytes as f64 / 1e6 / s)
    }

    /// The run's time left by its plan.
    pub fn left(&self) -> Option<Duration> {
        self.planned.map(|p| p.saturating_sub(self.elapsed))
    }
}

/// Points of the rate over time kept: a day-long run keeps its whole shape in a bounded list.
const MAX_POINTS: usize = 2048;

/// Every two neighbouring points as one: the later time, the mean rate.
fn halve(h: &[(f64, f64)]) -> Vec<(f64, f64)> {
    h.chunks(2)
        .map(|c| {
            let t = c[c.len() - 1].0;
            (t, c.iter().map(|p| p.1).sum::<f64>() / c.len() as f64)
        })
        .collect()
}

/// A view of a run whose workers fill `watch`.
pub struct WorkloadSource {
    pub title: String,
    pub watch: &'static Watch,
    pub planned: Option<Duration>,
    pub finished: Finished,
    /// What the rate chart spans ([`Span::Run`] unless set).
    pub span: Span,
    bytes: RateWindow,
    commands: RateWindow,
    history: Vec<(f64, f64)>,
    /// The phase the history is of, for a [`Span::Phase`] chart.
    phase: u64,
}

impl WorkloadSource {
    pub fn new(
        title: String,
        watch: &'static Watch,
        planned: Option<Duration>,
        finished: Finished,
    ) -> WorkloadSource {
        WorkloadSource {
            title,
            watch,
            planned,
            finished,
            span: Span::Run,
            bytes: RateWindow::default(),
            commands: RateWindow::default(),
            history: Vec::new(),
            phase: 0,
        }
    }

    /// The frame's data at `now`, `elapsed` into the run.
    pub fn shown(&mut self, now: Instant, elapsed: Duration) -> WorkShown {
        let snap = self.watch.snapshot();
        let now_mb_s = self.bytes.push(now, snap.bytes);
        // The window counts in millions: commands/s is its rate times 10^6.
        let now_iops = self.commands.push(now, snap.commands).map(|r| r * 1e6);
        let phase_elapsed = now.saturating_duration_since(snap.phase.since);
        let at = match self.span {
            Span::Run => elapsed,
            Span::Phase { .. } => {
                if snap.phase.number != self.phase {
                    self.phase = snap.phase.number;
                    self.history.clear();
                }
                phase_elapsed
            }
        };
        if let Some(r) = now_mb_s {
            self.history.push((at.as_secs_f64(), r));
            if self.history.len() > MAX_POINTS {
                self.history = halve(&self.history);
            }
        }
        WorkShown {
            title: self.title.clone(),
            snap,
            elapsed,
            planned: self.planned,
            now_mb_s,
            now_iops,
            history: self.history.clone(),
            span: self.span,
            phase_elapsed,
            done: self.finished.lock().expect("finished").clone(),
        }
    }
}

impl Source for WorkloadSource {
    fn draw(&mut self, f: &mut ratatui::Frame, v: &ViewState, now: Instant, elapsed: Duration) {
        let shown = self.shown(now, elapsed);
        workload_render::draw(f, &shown, v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_history_is_kept_bounded_with_its_shape() {
        let mut h: Vec<(f64, f64)> = (0..MAX_POINTS + 1)
            .map(|i| (i as f64, if i < 1000 { 100.0 } else { 50.0 }))
            .collect();
        h = halve(&h);
        assert_eq!(h.len(), MAX_POINTS / 2 + 1);
        assert_eq!(h[0], (1.0, 100.0));
        assert_eq!(h[600], (1201.0, 50.0));
        assert_eq!(h.last().unwrap().0, MAX_POINTS as f64);
    }
}
