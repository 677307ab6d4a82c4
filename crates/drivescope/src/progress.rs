//! Progress on stderr: on a terminal an indicatif bar redrawn with rate and ETA, otherwise
//! a plain line every 10 s. Reads the run's atomic counters from its own thread; what a line
//! says is [`Status::line`], a pure function of the counters.

use drivescope_core::scan::Progress;
use drivescope_core::units::format_size;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// What 100 % is.
#[derive(Debug, Clone, Copy)]
pub enum Total {
    Bytes(u64),
    Regions(u64),
}

pub struct Display {
    done: Arc<AtomicBool>,
    handle: Option<JoinHandle<()>>,
}

impl Display {
    pub fn finish(mut self) {
        self.done.store(true, Ordering::Relaxed);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

impl Display {
    /// Run `draw` on a thread named `progress` until [`Display::finish`]: `draw(tty, done)` draws for a
    /// terminal (stderr is one) or plain lines, and returns once `done` is set.
    pub fn spawn(draw: impl FnOnce(bool, &AtomicBool) + Send + 'static) -> Display {
        let done = Arc::new(AtomicBool::new(false));
        let d2 = done.clone();
        let tty = std::io::stderr().is_terminal();
        let handle = std::thread::Builder::new()
            .name("progress".into())
            .spawn(move || draw(tty, &d2))
            .ok();
        Display { done, handle }
    }
}

pub fn start(p: Arc<Progress>, total: Total) -> Display {
    Display::spawn(move |tty, done| {
        if tty {
            bar(p, total, done)
        } else {
            lines(&p, total, done)
        }
    })
}

/// Plain lines for logs and scripts: one every 10 s, none at the end.
fn lines(p: &Progress, total: Total, done: &AtomicBool) {
    let t0 = Instant::now();
    let every = Duration::from_secs(10);
    let mut last_line = Instant::now();
    while !done.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(100));
        if last_line.elapsed() >= every {
            eprintln!("{}", Status::of(p, total, t0.elapsed()).line());
            last_line = Instant::now();
        }
    }
}

/// The terminal bar, redrawn every 250 ms and cleared at the end. indicatif draws the bar
/// and wraps or clears the line; the text beside it is [`Status::line`].
fn bar(p: Arc<Progress>, total: Total, done: &AtomicBool) {
    let t0 = Instant::now();
    let all = match total {
        Total::Bytes(n) | Total::Regions(n) => n,
    };
    let pb = ProgressBar::with_draw_target(Some(all.max(1)), ProgressDrawTarget::stderr());
    let counters = p.clone();
    let line = move |_: &ProgressState, w: &mut dyn std::fmt::Write| {
        let _ = w.write_str(&Status::of(&counters, total, t0.elapsed()).line());
    };
    if let Ok(style) = ProgressStyle::with_template("[{bar:30}] {line}") {
        pb.set_style(style.progress_chars("#.").with_key("line", line));
    }
    while !done.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(250));
        // One redraw per tick, also when the position stands still (the ETA moves on).
        pb.set_position(p.position.load(Ordering::Relaxed).min(all));
    }
    pb.finish_and_clear();
}

/// Where a run stands: position against its total, rate and ETA since it started.
#[derive(Debug, Clone)]
pub struct Status {
    pub total: Total,
    /// Bytes or regions done.
    pub done: u64,
    /// Fraction done, 0 to 1.
    pub frac: f64,
    /// MB/s (10^6 B/s) over the whole run so far.
    pub rate_mb_s: f64,
    /// Time left at the rate so far (zero before any progress).
    pub eta: Duration,
    pub slow: u64,
    pub failed: u64,
    /// A full scan's pass (see `Progress::pass`).
    pub pass: u8,
}

impl Status {
    pub fn of(p: &Progress, total: Total, elapsed: Duration) -> Status {
        let done = p.position.load(Ordering::Relaxed);
        let all = match total {
            Total::Bytes(n) | Total::Regions(n) => n,
        };
        let frac = if all > 0 {
            (done as f64 / all as f64).min(1.0)
        } else {
            0.0
        };
        let secs = elapsed.as_secs_f64();
        let bytes = p.bytes.load(Ordering::Relaxed);
        let rate_mb_s = if secs > 0.0 {
            bytes as f64 / 1e6 / secs
        } else {
            0.0
        };
        let eta = if frac > 0.0 {
            Duration::from_secs_f64(secs * (1.0 - frac) / frac)
        } else {
            Duration::ZERO
        };
        Status {
            total,
            done,
            frac,
            rate_mb_s,
            eta,
            slow: p.slow.load(Ordering::Relaxed),
            failed: p.failed.load(Ordering::Relaxed),
            pass: p.pass.load(Ordering::Relaxed),
        }
    }

    /// ` 25.0%  256.0 MiB of 1.0 GiB  26.8 MB/s  slow 3  failed 1  ETA 0:00:30`: the plain
    /// line, and the text beside the bar on a terminal.
    pub fn line(&self) -> String {
        let pos = match self.total {
            Total::Bytes(n) => format!("{} of {}", format_size(self.done), format_size(n)),
            Total::Regions(n) => format!("region {} of {n}", self.done),
        };
        let when = self.when();
        format!(
            "{:5.1}%  {pos}  {:.1} MB/s  slow {}  failed {}  {when}",
            self.frac * 100.0,
            self.rate_mb_s,
            self.slow,
            self.failed,
        )
    }

    /// `ETA 0:00:30`, or after the first pass (the position stands at the end) what the
    /// run is doing instead.
    pub fn when(&self) -> String {
        match self.pass {
            1 => "trimming failed areas".to_string(),
            2 => "scraping failed areas (within --error-budget)".to_string(),
            3 => "retrying failed sectors (within --error-budget)".to_string(),
            _ => format!("ETA {}", hms(self.eta)),
        }
    }
}

/// `1:02:03`
pub fn hms(d: Duration) -> String {
    let s = d.as_secs();
    format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counters(position: u64, bytes: u64, slow: u64, failed: u64) -> Progress {
        let p = Progress::default();
        p.position.store(position, Ordering::Relaxed);
        p.bytes.store(bytes, Ordering::Relaxed);
        p.slow.store(slow, Ordering::Relaxed);
        p.failed.store(failed, Ordering::Relaxed);
        p
    }

    fn line(p: Progress, total: Total, secs: u64) -> String {
        Status::of(&p, total, Duration::from_secs(secs)).line()
    }

    #[test]
    fn lines_say_position_rate_and_eta_from_the_counters() {
        let c = counters;
        // A quarter of 1 GiB in 10 s: 26.8 MB/s, 30 s to go.
        assert_eq!(
            line(c(256 << 20, 256 << 20, 3, 1), Total::Bytes(1 << 30), 10),
            " 25.0%  256.0 MiB of 1.0 GiB  26.8 MB/s  slow 3  failed 1  ETA 0:00:30"
        );
        // Quick scan: position in regions, rate from the bytes read.
        assert_eq!(
            line(c(64, 100_000_000, 0, 0), Total::Regions(256), 4),
            " 25.0%  region 64 of 256  25.0 MB/s  slow 0  failed 0  ETA 0:00:12"
        );
        // Nothing done yet, no time passed: no rate, no ETA.
        assert_eq!(
            line(c(0, 0, 0, 0), Total::Bytes(1 << 30), 0),
            "  0.0%  0 B of 1.0 GiB  0.0 MB/s  slow 0  failed 0  ETA 0:00:00"
        );
        // Past the end is 100 %.
        assert_eq!(
            line(c(2000, 2000, 0, 0), Total::Bytes(1000), 1),
            "100.0%  2.0 KiB of 1000 B  0.0 MB/s  slow 0  failed 0  ETA 0:00:00"
        );
        // After the first pass of a full scan: what it is doing instead of an ETA.
        let p = c(1000, 900, 0, 3);
        p.pass.store(2, Ordering::Relaxed);
        assert_eq!(
            line(p, Total::Bytes(1000), 1),
            "100.0%  1000 B of 1000 B  0.0 MB/s  slow 0  failed 3  scraping failed areas (within --error-budget)"
        );
        // ETA in hours.
        assert_eq!(
            line(c(1, 1, 0, 0), Total::Bytes(1000), 100),
            "  0.1%  1 B of 1000 B  0.0 MB/s  slow 0  failed 0  ETA 27:45:00"
        );
        assert_eq!(
            line(c(1536, 1536, 0, 0), Total::Bytes(3072), 0),
            " 50.0%  1.5 KiB of 3.0 KiB  0.0 MB/s  slow 0  failed 0  ETA 0:00:00"
        );
    }

    #[test]
    fn status_fields() {
        let s = Status::of(
            &counters(512, 1_000_000, 0, 0),
            Total::Bytes(2048),
            Duration::from_secs(2),
        );
        assert_eq!(s.done, 512);
        assert!((s.frac - 0.25).abs() < 1e-12);
        assert!((s.rate_mb_s - 0.5).abs() < 1e-12);
        assert_eq!(s.eta, Duration::from_secs(6));
    }
}
