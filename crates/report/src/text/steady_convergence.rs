//! How a running steady-state test converges, as its live view shows it: the tracked variable of
//! every finished round (in the test's unit: IOPS, or mean latency for the latency test), the
//! rounds of the current measurement window, the window's average, its range and best-fit
//! excursion against what the rule allows, and where the run stands ("steady from round K",
//! "not reached" at the round limit). A pure function of the record: the view draws it, tests
//! build it from constructed records.

use drivescope_record::{SteadyRecord, SteadyState, SteadyWindow};
use drivescope_units::{format_iops, format_latency};

/// One finished round's tracked value.
#[derive(Debug, Clone, PartialEq)]
pub struct RoundMark {
    pub round: u32,
    /// In the test's unit: IOPS, or nanoseconds of mean latency.
    pub value: f64,
    /// The value as a person reads it (`31 250 IOPS`, `812.4 µs`).
    pub label: String,
    /// Whether the round is in the current measurement window.
    pub in_window: bool,
}

/// The current window's figures, as percentages of its average.
#[derive(Debug, Clone, PartialEq)]
pub struct WindowFigures {
    pub first_round: u32,
    pub last_round: u32,
    pub average: f64,
    pub average_label: String,
    pub range_pct: f64,
    pub range_allowed_pct: f64,
    pub excursion_pct: f64,
    pub excursion_allowed_pct: f64,
}

impl WindowFigures {
    fn of(w: &SteadyWindow, label: &dyn Fn(f64) -> String) -> WindowFigures {
        WindowFigures {
            first_round: w.first_round,
            last_round: w.last_round,
            average: w.average,
            average_label: label(w.average),
            range_pct: w.range_ratio * 100.0,
            range_allowed_pct: w.range_allowed * 100.0,
            excursion_pct: w.excursion_ratio * 100.0,
            excursion_allowed_pct: w.excursion_allowed * 100.0,
        }
    }

    /// Whether the range is over what the rule allows (as the rule compares: 0.1 % of slack
    /// for a window at its limit is not "over" on the screen either).
    pub fn range_over(&self) -> bool {
        over(self.range_pct, self.range_allowed_pct)
    }

    pub fn excursion_over(&self) -> bool {
        over(self.excursion_pct, self.excursion_allowed_pct)
    }

    /// `range 14.2 % of 20 % allowed, excursion 3.1 % of 10 % allowed`, a limit that is broken
    /// marked `(over)`.
    pub fn limits(&self) -> String {
        let mark = |o: bool| if o { " (over)" } else { "" };
        format!(
            "range {} of {:.0} % allowed{}, excursion {} of {:.0} % allowed{}",
            pct(self.range_pct),
            self.range_allowed_pct,
            mark(self.range_over()),
            pct(self.excursion_pct),
            self.excursion_allowed_pct,
            mark(self.excursion_over())
        )
    }
}

fn over(pct: f64, allowed: f64) -> bool {
    pct.is_nan() || pct > allowed * (1.0 + 1e-9)
}

fn pct(p: f64) -> String {
    if p.is_finite() {
        format!("{p:.1} %")
    } else {
        "∞ %".into()
    }
}

/// Where the run stands by the rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Standing {
    /// Fewer finished rounds than a window holds.
    NoWindow { rounds: u32, window_rounds: u32 },
    /// A window, not steady yet, rounds left.
    Converging { rounds: u32 },
    /// Steady at `round` (the last round of its window).
    Reached { round: u32 },
    /// No steady window within the round limit.
    NotReached { rounds: u32 },
}

/// The convergence panel's data.
#[derive(Debug, Clone, PartialEq)]
pub struct Convergence {
    /// The tracked variable's name (`RND4K write IOPS`).
    pub tracked: String,
    /// Whether it is a latency (lower is better) rather than IOPS.
    pub latency: bool,
    pub rounds: Vec<RoundMark>,
    pub max_rounds: u32,
    pub window: Option<WindowFigures>,
    pub standing: Standing,
}

/// The panel's data of `r`, a run of at most `max_rounds` rounds judged over windows of
/// `window_rounds`.
pub fn convergence(r: &SteadyRecord, max_rounds: u32, window_rounds: u32) -> Convergence {
    let latency = r.test.tracks_latency();
    let label = |v: f64| {
        if latency {
            format_latency(v)
        } else {
            format_iops(v)
        }
    };
    let w = r.verdict.window.as_ref();
    let in_window = |round: u32| w.is_some_and(|w| (w.first_round..=w.last_round).contains(&round));
    let n = r.rounds.len() as u32;
    let standing = match (r.verdict.state, r.verdict.round) {
        (SteadyState::Reached, Some(round)) => Standing::Reached { round },
        (SteadyState::Reached, None) => Standing::Reached {
            round: w.map_or(n, |w| w.last_round),
        },
        (SteadyState::NotReached, _) => Standing::NotReached { rounds: n },
        (SteadyState::Undecided, _) if w.is_none() => Standing::NoWindow {
            rounds: n,
            window_rounds,
        },
        (SteadyState::Undecided, _) => Standing::Converging { rounds: n },
    };
    Convergence {
        tracked: r.tracked.clone(),
        latency,
        rounds: r
            .rounds
            .iter()
            .map(|x| RoundMark {
                round: x.round,
                value: x.tracked,
                label: label(x.tracked),
                in_window: in_window(x.round),
            })
            .collect(),
        max_rounds,
        window: w.map(|w| WindowFigures::of(w, &label)),
        standing,
    }
}

impl Convergence {
    /// Before the first round: nothing finished.
    pub fn none(tracked: String, latency: bool, max_rounds: u32, window_rounds: u32) -> Self {
        Convergence {
            tracked,
            latency,
            rounds: Vec::new(),
            max_rounds,
            window: None,
            standing: Standing::NoWindow {
                rounds: 0,
                window_rounds,
            },
        }
    }

    /// The window's line: its rounds and average, or when the first window comes.
    pub fn window_line(&self) -> String {
        match (&self.window, self.standing) {
            (Some(w), _) => format!(
                "window rounds {}–{}: average {}",
                w.first_round, w.last_round, w.average_label
            ),
            (
                None,
                Standing::NoWindow {
                    rounds,
                    window_rounds,
                },
            ) => {
                format!("the first window after {window_rounds} rounds ({rounds} finished so far)")
            }
            (None, _) => "no window".into(),
        }
    }

    /// The window's range and excursion against the rule's limits (empty before a window).
    pub fn limits_line(&self) -> String {
        self.window.as_ref().map_or(String::new(), |w| w.limits())
    }

    /// Where the run stands: `steady from round K`, `not reached in 25 rounds`, or the rounds
    /// so far of the most.
    pub fn standing_line(&self) -> String {
        match self.standing {
            Standing::Reached { round } => format!("steady from round {round}"),
            Standing::NotReached { rounds } => {
                format!("steady state not reached in {rounds} rounds")
            }
            Standing::Converging { rounds } | Standing::NoWindow { rounds, .. } => format!(
                "not steady yet: {rounds} of at most {} rounds finished",
                self.max_rounds
            ),
        }
    }

    /// The panel's text lines under its bars: the window, its limits, the standing.
    pub fn lines(&self) -> Vec<String> {
        vec![self.window_line(), self.limits_line(), self.standing_line()]
    }
}

#[cfg(test)]
#[path = "steady_convergence_tests.rs"]
mod tests;
