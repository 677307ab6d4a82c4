//! The live view of `screen`: several drives scanned at once, each drawn from its own scan's
//! live counters, with what the group does before its scans (the shared-path reads) and each
//! drive's end as it comes (the others go on). Drawn by [`super::screen_render`].

use super::screen_render;
use super::term::{self, LiveView, Source};
use super::view::{RateWindow, ViewState};
use crate::progress::{Status, Total};
use drivescope_core::scan::live::{Live, Snapshot};
use drivescope_core::scan::{Progress, ScanRecord};
use ratatui::Frame;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// How a drive's scan ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// Its whole range was read (or written).
    Done,
    /// Stopped (q, SIGINT): saved, resumable.
    Stopped,
    /// The device went away mid-run.
    Lost,
    /// The scan could not run or ended on an error.
    Failed,
}

impl End {
    pub fn of<E>(r: &Result<ScanRecord, E>) -> End {
        match r {
            Err(_) => End::Failed,
            Ok(r) if r.device_lost.is_some() => End::Lost,
            Ok(r) if r.interrupted => End::Stopped,
            Ok(_) => End::Done,
        }
    }
}

/// Where a drive stands on a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// The scans have not started (the shared-path reads run).
    Waiting,
    Running,
    Ended(End),
}

/// What the group's threads tell the view: what runs before the scans, when the scans
/// started, and each drive's end.
#[derive(Debug)]
pub struct Group {
    phase: Mutex<Option<String>>,
    started: OnceLock<Instant>,
    ends: Vec<OnceLock<(End, Instant)>>,
}

impl Group {
    /// A group of `drives` drives, none started.
    pub fn new(drives: usize) -> Arc<Group> {
        Arc::new(Group {
            phase: Mutex::new(None),
            started: OnceLock::new(),
            ends: (0..drives).map(|_| OnceLock::new()).collect(),
        })
    }

    /// What runs before the scans, as a line the view shows; `None` once it is over.
    pub fn phase(&self, what: Option<String>) {
        *self.phase.lock().unwrap_or_else(|p| p.into_inner()) = what;
    }

    /// The scans start now (whatever ran before is over).
    pub fn scans_start(&self) {
        self.phase(None);
        let _ = self.started.set(Instant::now());
    }

    /// Drive `i`'s scan ended now.
    pub fn end(&self, i: usize, how: End) {
        if let Some(e) = self.ends.get(i) {
            let _ = e.set((how, Instant::now()));
        }
    }

    fn state(&self, i: usize, now: Instant) -> (State, Duration) {
        let Some(&t0) = self.started.get() else {
            return (State::Waiting, Duration::ZERO);
        };
        match self.ends.get(i).and_then(OnceLock::get) {
            Some(&(how, at)) => (State::Ended(how), at.saturating_duration_since(t0)),
            None => (State::Running, now.saturating_duration_since(t0)),
        }
    }
}

/// One drive of the group as the view reads it.
pub struct Member {
    /// Path, model and serial, as [`super::view::device`] writes them.
    pub device: String,
    pub progress: Arc<Progress>,
    /// Bytes of its range (its 100 %).
    pub total: u64,
}

impl Member {
    /// The drive's scan keeps `live` counters for the view: to call before its scan starts.
    pub fn new(device: String, progress: Arc<Progress>, total: u64, live: Live) -> Member {
        let _ = progress.live.set(live);
        Member {
            device,
            progress,
            total,
        }
    }
}

/// One drive on a frame.
#[derive(Debug, Clone)]
pub struct DriveShown {
    pub device: String,
    pub snap: Snapshot,
    /// Position, mean rate and ETA over the drive's own scan time.
    pub status: Status,
    /// MB/s over the last second or so, while it runs.
    pub current_mb_s: Option<f64>,
    pub state: State,
}

/// One frame of the group.
#[derive(Debug, Clone)]
pub struct GroupShown {
    pub title: String,
    /// What runs before the scans, while it runs.
    pub phase: Option<String>,
    pub elapsed: Duration,
    pub drives: Vec<DriveShown>,
}

/// The group's frames, from each member's counters and the group's news.
pub struct ScreenSource {
    title: String,
    members: Vec<Member>,
    group: Arc<Group>,
    rates: Vec<RateWindow>,
}

impl ScreenSource {
    pub fn new(title: String, members: Vec<Member>, group: Arc<Group>) -> ScreenSource {
        let rates = members.iter().map(|_| RateWindow::default()).collect();
        ScreenSource {
            title,
            members,
            group,
            rates,
        }
    }

    /// The frame at `now`, `elapsed` since the view opened.
    pub fn shown(&mut self, now: Instant, elapsed: Duration) -> GroupShown {
        let drives = self
            .members
            .iter()
            .zip(&mut self.rates)
            .enumerate()
            .filter_map(|(i, (m, rate))| {
                let live = m.progress.live.get()?;
                let (state, ran) = self.group.state(i, now);
                let current = rate.push(now, m.progress.bytes.load(Ordering::Relaxed));
                Some(DriveShown {
                    device: m.device.clone(),
                    snap: live.snapshot(),
                    status: Status::of(&m.progress, Total::Bytes(m.total), ran),
                    current_mb_s: current.filter(|_| state == State::Running),
                    state,
                })
            })
            .collect();
        GroupShown {
            title: self.title.clone(),
            phase: self
                .group
                .phase
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .clone(),
            elapsed,
            drives,
        }
    }
}

impl Source for ScreenSource {
    fn draw(&mut self, f: &mut Frame, v: &ViewState, now: Instant, elapsed: Duration) {
        let s = self.shown(now, elapsed);
        screen_render::draw(f, &s, v);
    }
}

/// Take over the terminal and draw the group until [`LiveView::finish`]; `q` stops every
/// drive as SIGINT does.
pub fn start(
    title: String,
    members: Vec<Member>,
    group: Arc<Group>,
    stop: Arc<AtomicBool>,
) -> std::io::Result<LiveView> {
    term::start_with(ScreenSource::new(title, members, group), stop)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drives_wait_run_and_end_each_on_its_own() {
        let members: Vec<Member> = (0..2)
            .map(|i| {
                Member::new(
                    format!("/dev/loop{i}"),
                    Arc::new(Progress::default()),
                    1 << 20,
                    Live::new(0, 1 << 20, 512),
                )
            })
            .collect();
        let group = Group::new(2);
        let mut src = ScreenSource::new("drivescope screen".into(), members, group.clone());
        group.phase(Some("shared path".into()));
        let s = src.shown(Instant::now(), Duration::ZERO);
        assert_eq!(s.phase.as_deref(), Some("shared path"));
        assert!(s.drives.iter().all(|d| d.state == State::Waiting));
        group.scans_start();
        group.end(1, End::Lost);
        let s = src.shown(Instant::now(), Duration::ZERO);
        assert_eq!(s.phase, None);
        assert_eq!(s.drives[0].state, State::Running);
        assert_eq!(s.drives[1].state, State::Ended(End::Lost));
        assert_eq!(s.drives[1].device, "/dev/loop1");
    }
}
