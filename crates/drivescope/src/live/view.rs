//! What one frame of the live view shows, gathered from the run's counters, and what the
//! keys change. Pure: the terminal loop (`term`) feeds it, the renderer (`render`) draws it.

use crate::progress::{Status, Total};
use drivescope_core::scan::live::Snapshot;
use drivescope_probe::Identity;
use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// The view's own state, changed by keys.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ViewState {
    /// The response-time histogram's bars on a log scale.
    pub log: bool,
    /// The help overlay is shown.
    pub help: bool,
}

/// What a key does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Stop the run as SIGINT does (results kept, saved, resumable).
    Stop,
    Redraw,
    None,
}

impl ViewState {
    /// `q` (or Ctrl-C, which the loop maps to `q`) stops; `l` toggles the log scale; `?`
    /// toggles help; Esc closes help.
    pub fn key(&mut self, c: char) -> Action {
        match c {
            'q' | 'Q' => Action::Stop,
            'l' | 'L' => {
                self.log = !self.log;
                Action::Redraw
            }
            '?' | 'h' => {
                self.help = !self.help;
                Action::Redraw
            }
            '\u{1b}' if self.help => {
                self.help = false;
                Action::Redraw
            }
            _ => Action::None,
        }
    }
}

/// One frame's data.
#[derive(Debug, Clone)]
pub struct Shown {
    /// The command and the device, on the title line.
    pub title: String,
    pub snap: Snapshot,
    pub status: Status,
    pub elapsed: Duration,
    /// MB/s over the last second or so, once there is one.
    pub current_mb_s: Option<f64>,
}

impl Shown {
    /// A quick scan: regions read here and there, counted by region.
    pub fn quick(&self) -> bool {
        matches!(self.status.total, Total::Regions(_))
    }

    /// The lowest rate of a bin the scan has gone past (a quick scan: of any bin read), in
    /// MB/s.
    pub fn min_mb_s(&self) -> Option<f64> {
        let reached = if self.quick() {
            u64::MAX
        } else {
            self.snap.start + self.status.done
        };
        (0..self.snap.bins.len())
            .filter(|&i| self.snap.bin_range(i).1 <= reached)
            .filter_map(|i| self.snap.bins[i].mb_s())
            .min_by(f64::total_cmp)
    }

    /// Absolute offset the scan has reached, and its LBA (of a full scan).
    pub fn position(&self) -> (u64, u64) {
        let at = self.snap.start + self.status.done;
        (at, at / self.snap.sector.max(1))
    }
}

/// The span a current rate is taken over.
const RATE_WINDOW: Duration = Duration::from_secs(1);

/// The rate over the last second or so, from a byte counter read at each redraw.
#[derive(Debug, Default)]
pub struct RateWindow {
    seen: VecDeque<(Instant, u64)>,
}

impl RateWindow {
    /// The counter read `bytes` at `now`: MB/s since about a second ago, once 0.2 s have been
    /// seen.
    pub fn push(&mut self, now: Instant, bytes: u64) -> Option<f64> {
        self.seen.push_back((now, bytes));
        while self.seen.len() > 2 && now - self.seen[1].0 >= RATE_WINDOW {
            self.seen.pop_front();
        }
        self.seen.front().and_then(|&(t, b)| {
            let dt = (now - t).as_secs_f64();
            (dt >= 0.2).then(|| bytes.saturating_sub(b) as f64 / 1e6 / dt)
        })
    }
}

/// `scan /dev/sdb — Samsung SSD 870 EVO 1TB, serial S6P…`: what the title line says
/// (`command`: scan, quick scan, verify).
pub fn title(command: &str, spec: &str, id: Option<&Identity>) -> String {
    format!("drivescope {command} {}", device(spec, id))
}

/// `/dev/sdb — Samsung SSD 870 EVO 1TB, serial S6P…`: the device as a title names it.
pub fn device(spec: &str, id: Option<&Identity>) -> String {
    let hw = id.and_then(|id| id.block_devices().find_map(|b| b.hardware.as_ref()));
    let mut t = spec.to_string();
    if let Some(h) = hw {
        let name: Vec<&str> = [h.vendor.as_deref(), h.model.as_deref()]
            .into_iter()
            .flatten()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect();
        if !name.is_empty() {
            t.push_str(&format!(" — {}", name.join(" ")));
        }
        if let Some(s) = h.serial.as_deref().filter(|s| !s.is_empty()) {
            t.push_str(&format!(", serial {s}"));
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_stop_toggle_log_and_help() {
        let mut v = ViewState::default();
        assert_eq!(v.key('l'), Action::Redraw);
        assert!(v.log);
        assert_eq!(v.key('l'), Action::Redraw);
        assert!(!v.log);
        assert_eq!(v.key('?'), Action::Redraw);
        assert!(v.help);
        assert_eq!(v.key('\u{1b}'), Action::Redraw);
        assert!(!v.help);
        assert_eq!(v.key('\u{1b}'), Action::None);
        assert_eq!(v.key('x'), Action::None);
        assert_eq!(v.key('q'), Action::Stop);
    }
}
