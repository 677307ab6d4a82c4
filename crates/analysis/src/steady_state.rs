//! Steady state as SNIA's Solid State Storage Performance Test Specification (PTS) defines it.
//!
//! A test runs in rounds and tracks one variable per round (e.g. the IOPS of a round). After each
//! round, the measurement window is the last [`WINDOW_ROUNDS`] rounds. The drive is in steady state
//! when, over the window,
//!
//! - (a) the range of the values, `max − min`, is within [`RANGE_FRACTION`] of the window's average, and
//! - (b) the excursion of the least-squares best-fit line, `|slope| × (window − 1)` (the line's value at
//!   the last round minus at the first), is within [`EXCURSION_FRACTION`] of the window's average.
//!
//! The first round at which both hold is where steady state is reached. A test that has not reached it
//! after [`MAX_ROUNDS`] rounds ends "not reached", with the limit(s) its last window broke and by how much.

/// Rounds in the measurement window.
pub const WINDOW_ROUNDS: usize = 5;
/// Largest allowed range (max − min) of the window, as a fraction of its average.
pub const RANGE_FRACTION: f64 = 0.20;
/// Largest allowed excursion of the best-fit line across the window, as a fraction of its average.
pub const EXCURSION_FRACTION: f64 = 0.10;
/// Rounds after which a test that has not reached steady state ends.
pub const MAX_ROUNDS: usize = 25;

/// Relative slack for comparing a ratio with its limit, so a value exactly at a limit (20 % from
/// decimal inputs) is not rejected by the last bit of floating-point rounding.
const SLACK: f64 = 1e-9;

/// The rule's parameters; [`Default`] gives the PTS values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rule {
    pub window_rounds: usize,
    pub range_fraction: f64,
    pub excursion_fraction: f64,
    pub max_rounds: usize,
}

impl Default for Rule {
    fn default() -> Self {
        Rule {
            window_rounds: WINDOW_ROUNDS,
            range_fraction: RANGE_FRACTION,
            excursion_fraction: EXCURSION_FRACTION,
            max_rounds: MAX_ROUNDS,
        }
    }
}

/// One measurement window and its statistics.
#[derive(Debug, Clone, PartialEq)]
pub struct Window {
    /// First and last round of the window, counted from 1.
    pub first_round: usize,
    pub last_round: usize,
    pub values: Vec<f64>,
    pub average: f64,
    /// max − min.
    pub range: f64,
    /// Least-squares slope per round.
    pub slope: f64,
    /// |slope| × (rounds − 1).
    pub excursion: f64,
}

impl Window {
    /// The window of `values` (rounds `first_round..`), at least two values.
    pub fn of(first_round: usize, values: &[f64]) -> Window {
        let n = values.len();
        assert!(n >= 2, "a window needs two rounds for a slope");
        let average = values.iter().sum::<f64>() / n as f64;
        let max = values.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let min = values.iter().cloned().fold(f64::INFINITY, f64::min);
        let x_mean = (n - 1) as f64 / 2.0;
        let (mut sxy, mut sxx) = (0.0, 0.0);
        for (i, &y) in values.iter().enumerate() {
            let dx = i as f64 - x_mean;
            sxy += dx * (y - average);
            sxx += dx * dx;
        }
        let slope = sxy / sxx;
        Window {
            first_round,
            last_round: first_round + n - 1,
            values: values.to_vec(),
            average,
            range: max - min,
            slope,
            excursion: slope.abs() * (n - 1) as f64,
        }
    }

    /// Range as a fraction of the average (infinite when the average is not positive).
    pub fn range_ratio(&self) -> f64 {
        ratio(self.range, self.average)
    }

    /// Excursion as a fraction of the average (infinite when the average is not positive).
    pub fn excursion_ratio(&self) -> f64 {
        ratio(self.excursion, self.average)
    }

    /// The limits this window breaks under `rule` (empty: steady).
    pub fn broken(&self, rule: &Rule) -> Vec<Broken> {
        let mut out = Vec::new();
        let range = self.range_ratio();
        if !within(range, rule.range_fraction) {
            out.push(Broken {
                limit: Limit::Range,
                ratio: range,
                allowed: rule.range_fraction,
            });
        }
        let excursion = self.excursion_ratio();
        if !within(excursion, rule.excursion_fraction) {
            out.push(Broken {
                limit: Limit::Excursion,
                ratio: excursion,
                allowed: rule.excursion_fraction,
            });
        }
        out
    }
}

fn within(ratio: f64, allowed: f64) -> bool {
    ratio <= allowed * (1.0 + SLACK)
}

fn ratio(x: f64, average: f64) -> f64 {
    if average > 0.0 && x.is_finite() {
        x / average
    } else {
        f64::INFINITY
    }
}

/// Which of the two limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// (a) max − min of the window.
    Range,
    /// (b) the best-fit line's excursion across the window.
    Excursion,
}

/// A limit a window broke: its ratio to the window's average and the ratio allowed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Broken {
    pub limit: Limit,
    pub ratio: f64,
    pub allowed: f64,
}

impl Broken {
    /// How far over the limit, in fractions of the average (0.001 = 0.1 percentage points).
    pub fn over_by(&self) -> f64 {
        self.ratio - self.allowed
    }
}

/// What the rounds so far say.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Too few rounds for a window, or no steady window yet and rounds remain.
    Undecided {
        rounds: usize,
        /// The latest window, once there is one.
        latest: Option<Window>,
    },
    /// Steady state at round `round` (the window's last round).
    Reached { round: usize, window: Window },
    /// No steady window within the round limit: the last window and the limits it broke.
    NotReached {
        rounds: usize,
        window: Window,
        broken: Vec<Broken>,
    },
}

impl Verdict {
    pub fn reached_round(&self) -> Option<usize> {
        match self {
            Verdict::Reached { round, .. } => Some(*round),
            _ => None,
        }
    }
}

impl Rule {
    /// The verdict on `values`, one per round in order; rounds past the limit are not looked at.
    pub fn judge(&self, values: &[f64]) -> Verdict {
        assert!(self.window_rounds >= 2 && self.max_rounds >= self.window_rounds);
        let rounds = values.len().min(self.max_rounds);
        let w = self.window_rounds;
        if rounds < w {
            return Verdict::Undecided {
                rounds,
                latest: None,
            };
        }
        let mut latest = None;
        for end in w..=rounds {
            let window = Window::of(end - w + 1, &values[end - w..end]);
            if window.broken(self).is_empty() {
                return Verdict::Reached { round: end, window };
            }
            latest = Some(window);
        }
        let window = latest.expect("at least one window");
        if rounds == self.max_rounds {
            let broken = window.broken(self);
            Verdict::NotReached {
                rounds,
                window,
                broken,
            }
        } else {
            Verdict::Undecided {
                rounds,
                latest: Some(window),
            }
        }
    }
}

/// [`Rule::judge`] with the PTS defaults.
pub fn judge(values: &[f64]) -> Verdict {
    Rule::default().judge(values)
}

/// The verdict on `values` as a record states it (`max_rounds` in place of the PTS's 25 when a
/// run asks for fewer), with its window and one sentence of why.
pub fn verdict(values: &[f64], max_rounds: u32) -> drivescope_record::SteadyVerdict {
    use drivescope_record::{SteadyState, SteadyVerdict};
    let rule = Rule {
        max_rounds: (max_rounds as usize).max(WINDOW_ROUNDS),
        ..Rule::default()
    };
    let pct = |x: f64| x * 100.0;
    match rule.judge(values) {
        Verdict::Reached { round, window } => SteadyVerdict {
            state: SteadyState::Reached,
            round: Some(round as u32),
            why: format!(
                "steady at round {round}: over rounds {}–{} the range is {:.1} % of the average \
                 (at most {:.0} %) and the best-fit line moves {:.1} % (at most {:.0} %)",
                window.first_round,
                window.last_round,
                pct(window.range_ratio()),
                pct(rule.range_fraction),
                pct(window.excursion_ratio()),
                pct(rule.excursion_fraction)
            ),
            window: Some(window_record(&window, &rule)),
        },
        Verdict::NotReached {
            rounds,
            window,
            broken,
        } => SteadyVerdict {
            state: SteadyState::NotReached,
            round: None,
            why: format!(
                "not reached in {rounds} rounds: the last window (rounds {}–{}) {}",
                window.first_round,
                window.last_round,
                broken
                    .iter()
                    .map(|b| format!(
                        "{} {:.1} % of the average (at most {:.0} %)",
                        match b.limit {
                            Limit::Range => "has a range of",
                            Limit::Excursion => "has a best-fit line that moves",
                        },
                        pct(b.ratio),
                        pct(b.allowed)
                    ))
                    .collect::<Vec<_>>()
                    .join(" and ")
            ),
            window: Some(window_record(&window, &rule)),
        },
        Verdict::Undecided { rounds, latest } => SteadyVerdict {
            state: SteadyState::Undecided,
            round: None,
            why: match &latest {
                None => format!(
                    "{rounds} of at least {} rounds; no window yet",
                    rule.window_rounds
                ),
                Some(w) => format!(
                    "not steady yet after {rounds} rounds: the latest window's range is {:.1} % \
                     and its line moves {:.1} %",
                    pct(w.range_ratio()),
                    pct(w.excursion_ratio())
                ),
            },
            window: latest.map(|w| window_record(&w, &rule)),
        },
    }
}

fn window_record(w: &Window, rule: &Rule) -> drivescope_record::SteadyWindow {
    drivescope_record::SteadyWindow {
        first_round: w.first_round as u32,
        last_round: w.last_round as u32,
        values: w.values.clone(),
        average: w.average,
        range: w.range,
        slope: w.slope,
        excursion: w.excursion,
        range_ratio: w.range_ratio(),
        range_allowed: rule.range_fraction,
        excursion_ratio: w.excursion_ratio(),
        excursion_allowed: rule.excursion_fraction,
    }
}

#[cfg(test)]
#[path = "steady_state_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "steady_state_flash_tests.rs"]
mod flash_tests;
