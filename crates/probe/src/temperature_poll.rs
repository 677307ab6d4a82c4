//! Polling a drive's temperature beside a measurement: a thread of its own that reads the source
//! no faster than every [`MIN_INTERVAL`], so the measurement's threads never wait for it, and that
//! says once why it could not read, never once per reading.

use crate::temperature::{Source, TemperatureError};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The shortest time between two readings: SMART polling heats some drives (and wakes others).
pub const MIN_INTERVAL: Duration = Duration::from_secs(5);

/// What a poll gathered: readings as (seconds from the start, °C), and the one note.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Readings {
    pub source: Option<String>,
    pub interval_s: f64,
    pub points: Vec<(f64, f64)>,
    pub note: Option<String>,
}

/// A running poll; [`Poller::finish`] stops it and hands over the readings.
pub struct Poller {
    stop: Arc<(Mutex<bool>, Condvar)>,
    thread: Option<JoinHandle<Readings>>,
    /// Set when there is no thread: no source, or the thread could not start.
    done: Option<Readings>,
}

impl Poller {
    /// Start reading `source` every `every` (at least [`MIN_INTERVAL`]) from now; a missing source
    /// gives no thread, only the note saying why.
    pub fn start(source: Result<Source, TemperatureError>, every: Duration) -> Poller {
        let every = every.max(MIN_INTERVAL);
        let stop = Arc::new((Mutex::new(false), Condvar::new()));
        let source = match source {
            Ok(s) => s,
            Err(e) => {
                return Poller {
                    stop,
                    thread: None,
                    done: Some(Readings {
                        interval_s: every.as_secs_f64(),
                        note: Some(format!("no temperature could be read: {e}")),
                        ..Readings::default()
                    }),
                }
            }
        };
        let s = stop.clone();
        let name = source.describe();
        let spawned = std::thread::Builder::new()
            .name("temperature".into())
            .spawn(move || poll(&source, every, &s));
        match spawned {
            Ok(t) => Poller {
                stop,
                thread: Some(t),
                done: None,
            },
            Err(e) => Poller {
                stop,
                thread: None,
                done: Some(Readings {
                    source: Some(name),
                    interval_s: every.as_secs_f64(),
                    note: Some(format!("the temperature thread could not start: {e}")),
                    ..Readings::default()
                }),
            },
        }
    }

    /// Stop polling (at once: a wait between readings is cut short) and return the readings.
    pub fn finish(mut self) -> Readings {
        if let Some(r) = self.done.take() {
            return r;
        }
        let (lock, wake) = &*self.stop;
        *lock.lock().unwrap_or_else(|e| e.into_inner()) = true;
        wake.notify_all();
        match self.thread.take().map(JoinHandle::join) {
            Some(Ok(r)) => r,
            _ => Readings {
                note: Some("the temperature thread failed".into()),
                ..Readings::default()
            },
        }
    }
}

impl Drop for Poller {
    fn drop(&mut self) {
        let (lock, wake) = &*self.stop;
        *lock.lock().unwrap_or_else(|e| e.into_inner()) = true;
        wake.notify_all();
    }
}

fn poll(source: &Source, every: Duration, stop: &(Mutex<bool>, Condvar)) -> Readings {
    let start = Instant::now();
    let mut out = Readings {
        source: Some(source.describe()),
        interval_s: every.as_secs_f64(),
        ..Readings::default()
    };
    let (lock, wake) = stop;
    let mut next = start;
    loop {
        let t = start.elapsed().as_secs_f64();
        match source.read() {
            Ok(c) => out.points.push((t, c)),
            // The first failure is said; later ones would only repeat it.
            Err(e) if out.note.is_none() => {
                out.note = Some(format!("a temperature reading failed at {t:.0} s: {e}"))
            }
            Err(_) => {}
        }
        next += every;
        let mut stopped = lock.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if *stopped {
                return out;
            }
            let now = Instant::now();
            if now >= next {
                break;
            }
            stopped = wake
                .wait_timeout(stopped, next - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }
}
