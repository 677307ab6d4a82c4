//! Progress of several drives at once on stderr: on a terminal one indicatif bar per drive,
//! each with its target, rate, position, slow and failed counts and ETA; otherwise a block of
//! plain lines (one per drive) every 10 s. Each line is [`Status::line`] of the drive's counters.

use crate::progress::{Display, Status, Total};
use drivescope_core::scan::Progress;
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// One drive's counters, its name on the display, and its 100 %.
pub struct Shown {
    pub name: String,
    pub progress: Arc<Progress>,
    pub total: u64,
}

pub fn start(drives: Vec<Shown>) -> Display {
    Display::spawn(move |tty, done| {
        if tty {
            bars(&drives, done)
        } else {
            lines(&drives, done)
        }
    })
}

/// The width every name is padded to.
fn width(drives: &[Shown]) -> usize {
    drives.iter().map(|d| d.name.len()).max().unwrap_or(0)
}

fn lines(drives: &[Shown], done: &AtomicBool) {
    let t0 = Instant::now();
    let every = Duration::from_secs(10);
    let mut last = Instant::now();
    let w = width(drives);
    while !done.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(100));
        if last.elapsed() >= every {
            let mut block = String::new();
            for d in drives {
                let s = Status::of(&d.progress, Total::Bytes(d.total), t0.elapsed());
                block += &format!("{:<w$}  {}\n", d.name, s.line());
            }
            eprint!("{block}");
            last = Instant::now();
        }
    }
}

fn bars(drives: &[Shown], done: &AtomicBool) {
    let t0 = Instant::now();
    let multi = MultiProgress::with_draw_target(ProgressDrawTarget::stderr());
    let w = width(drives);
    let bars: Vec<ProgressBar> = drives
        .iter()
        .map(|d| {
            let pb = multi.add(ProgressBar::new(d.total.max(1)));
            let (counters, total) = (d.progress.clone(), d.total);
            let line = move |_: &ProgressState, out: &mut dyn std::fmt::Write| {
                let s = Status::of(&counters, Total::Bytes(total), t0.elapsed());
                let _ = out.write_str(&s.line());
            };
            let template = format!("{{prefix:<{w}}} [{{bar:20}}] {{line}}");
            if let Ok(style) = ProgressStyle::with_template(&template) {
                pb.set_style(style.progress_chars("#.").with_key("line", line));
            }
            pb.set_prefix(d.name.clone());
            pb
        })
        .collect();
    while !done.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(250));
        for (pb, d) in bars.iter().zip(drives) {
            pb.set_position(d.progress.position.load(Ordering::Relaxed).min(d.total));
        }
    }
    for pb in &bars {
        pb.finish_and_clear();
    }
    let _ = multi.clear();
}
