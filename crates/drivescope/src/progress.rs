//! Progress on stderr: a redrawn bar with rate and ETA on a terminal, plain periodic lines
//! otherwise. Reads the run's atomic counters from its own thread.

use drivescope_core::scan::Progress;
use drivescope_core::units::format_size;
use std::io::{IsTerminal, Write};
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

pub fn start(p: Arc<Progress>, total: Total) -> Display {
    let done = Arc::new(AtomicBool::new(false));
    let d2 = done.clone();
    let tty = std::io::stderr().is_terminal();
    let handle = std::thread::Builder::new()
        .name("progress".into())
        .spawn(move || run(p, total, d2, tty))
        .ok();
    Display { done, handle }
}

fn run(p: Arc<Progress>, total: Total, done: Arc<AtomicBool>, tty: bool) {
    let t0 = Instant::now();
    let tick = Duration::from_millis(if tty { 250 } else { 100 });
    let every = Duration::from_secs(10);
    let mut last_line = Instant::now();
    let mut drawn = false;
    while !done.load(Ordering::Relaxed) {
        std::thread::sleep(tick);
        if tty {
            eprint!("\r{}\x1b[K", line(&p, total, t0.elapsed(), true));
            let _ = std::io::stderr().flush();
            drawn = true;
        } else if last_line.elapsed() >= every {
            eprintln!("{}", line(&p, total, t0.elapsed(), false));
            last_line = Instant::now();
        }
    }
    if drawn {
        eprint!("\r\x1b[K");
        let _ = std::io::stderr().flush();
    }
}

fn line(p: &Progress, total: Total, elapsed: Duration, bar: bool) -> String {
    let (done, all) = match total {
        Total::Bytes(n) => (p.position.load(Ordering::Relaxed), n),
        Total::Regions(n) => (p.position.load(Ordering::Relaxed), n),
    };
    let frac = if all > 0 {
        (done as f64 / all as f64).min(1.0)
    } else {
        0.0
    };
    let secs = elapsed.as_secs_f64();
    let bytes = p.bytes.load(Ordering::Relaxed);
    let rate = if secs > 0.0 {
        bytes as f64 / 1e6 / secs
    } else {
        0.0
    };
    let eta = if frac > 0.0 {
        Duration::from_secs_f64(secs * (1.0 - frac) / frac)
    } else {
        Duration::ZERO
    };
    let pos = match total {
        Total::Bytes(n) => format!("{} of {}", format_size(done), format_size(n)),
        Total::Regions(n) => format!("region {done} of {n}"),
    };
    let meter = if bar {
        let w = 30;
        let fill = (frac * w as f64) as usize;
        format!("[{}{}] ", "#".repeat(fill), ".".repeat(w - fill))
    } else {
        String::new()
    };
    format!(
        "{meter}{:5.1}%  {pos}  {rate:.1} MB/s  slow {}  failed {}  ETA {}",
        frac * 100.0,
        p.slow.load(Ordering::Relaxed),
        p.failed.load(Ordering::Relaxed),
        hms(eta)
    )
}

fn hms(d: Duration) -> String {
    let s = d.as_secs();
    format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}
