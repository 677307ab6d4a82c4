//! The live view's terminal: the alternate screen in raw mode, redrawn a few times a second
//! from the run's counters on a thread of its own, and restored on every way out (the run's
//! end, an error, a panic on either thread).

use super::render;
use super::view::{Action, RateWindow, Shown, ViewState};
use crate::progress::{Status, Total};
use crossterm::event::{self, Event, KeyCode, KeyEventKind, KeyModifiers};
use crossterm::terminal::{
    disable_raw_mode, enable_raw_mode, EnterAlternateScreen, LeaveAlternateScreen,
};
use crossterm::{cursor, execute};
use drivescope_core::scan::Progress;
use ratatui::backend::CrosstermBackend;
use ratatui::{Frame, Terminal};
use std::io::Stdout;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Once};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Redraws a second, at most (keys and resizes redraw at once).
const REDRAW: Duration = Duration::from_millis(250);

/// Set by the panic hook once it has restored the terminal: the view draws no more.
static PANICKED: AtomicBool = AtomicBool::new(false);

/// Puts the terminal back as it was: main screen, cooked mode, cursor shown.
fn restore() {
    let _ = disable_raw_mode();
    let _ = execute!(std::io::stdout(), LeaveAlternateScreen, cursor::Show);
}

/// The terminal in the live view's mode for as long as it lives.
struct Guard(Terminal<CrosstermBackend<Stdout>>);

impl Guard {
    fn new() -> std::io::Result<Guard> {
        // A panic anywhere restores the terminal before its message is printed.
        static HOOK: Once = Once::new();
        HOOK.call_once(|| {
            let previous = std::panic::take_hook();
            std::panic::set_hook(Box::new(move |info| {
                PANICKED.store(true, Ordering::Relaxed);
                restore();
                previous(info);
            }));
        });
        enable_raw_mode()?;
        let mut out = std::io::stdout();
        if let Err(e) = execute!(out, EnterAlternateScreen, cursor::Hide) {
            restore();
            return Err(e);
        }
        match Terminal::new(CrosstermBackend::new(out)) {
            Ok(t) => Ok(Guard(t)),
            Err(e) => {
                restore();
                Err(e)
            }
        }
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        restore();
    }
}

/// A running live view. Ending it (or dropping it) restores the terminal.
pub struct LiveView {
    done: Arc<AtomicBool>,
    handle: Option<JoinHandle<()>>,
}

impl LiveView {
    pub fn finish(self) {}
}

impl Drop for LiveView {
    fn drop(&mut self) {
        self.done.store(true, Ordering::Relaxed);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

/// What a live view draws: one frame of a run from its counters as they are at `now`.
pub trait Source: Send + 'static {
    fn draw(&mut self, f: &mut Frame, v: &ViewState, now: Instant, elapsed: Duration);
}

/// Take over the terminal and draw the run behind `p` (which must have its live counters
/// set) until [`LiveView::finish`]. `q` and Ctrl-C set `stop` as SIGINT does; pressed again
/// while the run is stopping, they end the process as a second SIGINT does.
pub fn start(
    p: Arc<Progress>,
    total: Total,
    title: String,
    stop: Arc<AtomicBool>,
) -> std::io::Result<LiveView> {
    start_with(
        ScanSource {
            p,
            total,
            title,
            rate: RateWindow::default(),
            read_back: None,
        },
        stop,
    )
}

/// Take over the terminal and draw `source` until [`LiveView::finish`]; keys as [`start`].
pub fn start_with(source: impl Source, stop: Arc<AtomicBool>) -> std::io::Result<LiveView> {
    let guard = Guard::new()?;
    let done = Arc::new(AtomicBool::new(false));
    let d2 = done.clone();
    let handle = std::thread::Builder::new()
        .name("live view".into())
        .spawn(move || run(guard, source, &stop, &d2))?;
    Ok(LiveView {
        done,
        handle: Some(handle),
    })
}

/// A scan (full, quick or verified), drawn by position.
struct ScanSource {
    p: Arc<Progress>,
    total: Total,
    title: String,
    rate: RateWindow,
    /// When a verified write scan's read-back pass was first seen (the view's clock).
    read_back: Option<Duration>,
}

impl Source for ScanSource {
    fn draw(&mut self, f: &mut Frame, v: &ViewState, now: Instant, elapsed: Duration) {
        // A verified write scan: the write pass, then the read-back pass on counters of its own
        // (its clock and rates from its start).
        let (p, title, elapsed) = match self.p.read_back.get() {
            Some(r) => {
                let since = *self.read_back.get_or_insert_with(|| {
                    self.rate = RateWindow::default();
                    elapsed
                });
                let title = format!("{}  (reading back)", self.title);
                (r, title, elapsed.saturating_sub(since))
            }
            None => (&self.p, self.title.clone(), elapsed),
        };
        let Some(live) = p.live.get() else {
            return;
        };
        let bytes = p.bytes.load(Ordering::Relaxed);
        let shown = Shown {
            title,
            snap: live.snapshot(),
            status: Status::of(p, self.total, elapsed),
            elapsed,
            current_mb_s: self.rate.push(now, bytes),
        };
        render::draw(f, &shown, v);
    }
}

fn run(mut guard: Guard, mut source: impl Source, stop: &AtomicBool, done: &AtomicBool) {
    let t0 = Instant::now();
    let mut v = ViewState::default();
    let mut next = Instant::now();
    while !done.load(Ordering::Relaxed) && !PANICKED.load(Ordering::Relaxed) {
        let mut now_too = false;
        if event::poll(Duration::from_millis(50)).unwrap_or(false) {
            match event::read() {
                Ok(Event::Key(k)) if k.kind == KeyEventKind::Press => {
                    let c = match k.code {
                        KeyCode::Char('c') if k.modifiers.contains(KeyModifiers::CONTROL) => 'q',
                        KeyCode::Char(c) => c,
                        KeyCode::Esc => '\u{1b}',
                        _ => continue,
                    };
                    match v.key(c) {
                        Action::Stop if stop.load(Ordering::Relaxed) => {
                            // Asked twice: as a second SIGINT, which ends the process.
                            drop(guard);
                            let _ = signal_hook::low_level::raise(signal_hook::consts::SIGINT);
                            return;
                        }
                        Action::Stop => stop.store(true, Ordering::Relaxed),
                        Action::Redraw => now_too = true,
                        Action::None => {}
                    }
                }
                Ok(Event::Resize(..)) => now_too = true,
                _ => {}
            }
        }
        let now = Instant::now();
        if !now_too && now < next {
            continue;
        }
        next = now + REDRAW;
        let elapsed = t0.elapsed();
        if PANICKED.load(Ordering::Relaxed)
            || guard.0.draw(|f| source.draw(f, &v, now, elapsed)).is_err()
        {
            break;
        }
    }
}
