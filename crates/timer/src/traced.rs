//! The traced run of `time --trace`: a block trace of the devices behind the working directory around one
//! timed run, reduced to the workload's fingerprint as it is read, and kept in a file when asked.
//!
//! Tracing is an addition to the timing, never a condition of it: whatever stops the trace (not root, no
//! tracefs, an instance in use, a device gone) becomes one line, and the runs are timed all the same.

use drivescope_record::{Fingerprint, TimeMode};
use drivescope_trace::devices::resolve;
use drivescope_trace::{Capture, Reducer, Request, Sink, TraceHeader, TraceWriter, TracedRun};
use std::fs::File;
use std::io::BufWriter;
use std::path::PathBuf;

/// What to trace: asked for with `--trace`, the kept trace's file with `--keep-trace`.
#[derive(Debug, Clone, Default)]
pub struct TracePlan {
    pub keep: Option<PathBuf>,
}

/// The reducer, and the kept trace's writer, fed by the capture's reader.
struct Feed {
    reducer: Reducer,
    keep: Option<TraceWriter<BufWriter<File>>>,
    keep_error: Option<String>,
}

impl Sink for Feed {
    fn request(&mut self, r: &Request) {
        self.reducer.push(r);
        if let Some(w) = &mut self.keep {
            if let Err(e) = w.write(r) {
                self.keep_error = Some(e.to_string());
                self.keep = None;
            }
        }
    }
}

/// A trace being taken.
pub(crate) struct Tracing {
    capture: Capture<Feed>,
    devices: Vec<String>,
    keep: Option<PathBuf>,
}

/// Starts the trace of `watched` (the devices behind the working directory, an array's members among them);
/// `Err` says why not.
pub(crate) fn start(
    plan: &TracePlan,
    watched: &[String],
    argv: &[String],
) -> Result<Tracing, String> {
    let devices = resolve(watched).map_err(|e| e.to_string())?;
    if devices.is_empty() {
        return Err("no block device is behind the working directory".into());
    }
    let keep = match &plan.keep {
        Some(path) => {
            let f =
                File::create(path).map_err(|e| format!("--keep-trace {}: {e}", path.display()))?;
            let header = TraceHeader {
                devices: devices.clone(),
                command: argv.to_vec(),
                started: drivescope_record::now_rfc3339(),
                tool_version: env!("CARGO_PKG_VERSION").to_string(),
            };
            Some(
                TraceWriter::new(BufWriter::with_capacity(1 << 20, f), &header)
                    .map_err(|e| format!("--keep-trace {}: {e}", path.display()))?,
            )
        }
        None => None,
    };
    let feed = Feed {
        reducer: Reducer::new(),
        keep,
        keep_error: None,
    };
    let capture = Capture::start(&devices, feed).map_err(|e| e.to_string())?;
    Ok(Tracing {
        capture,
        devices: devices.into_iter().map(|d| d.name).collect(),
        keep: plan.keep.clone(),
    })
}

/// Stops the trace of run `run` of `mode`: its fingerprint, or why there is none.
pub(crate) fn stop(t: Tracing, mode: TimeMode, run: u32) -> Result<Fingerprint, String> {
    let (feed, stats) = t.capture.finish().map_err(|e| e.to_string())?;
    let mut notes = Vec::new();
    if let Some(path) = &t.keep {
        let finished = feed.keep.map(|w| w.finish().map_err(|e| e.to_string()));
        let error = match (feed.keep_error, finished) {
            (Some(e), _) | (None, Some(Err(e))) => Some(e),
            _ => None,
        };
        if let Some(e) = error {
            notes.push(format!(
                "the kept trace {} is incomplete: {e}",
                path.display()
            ));
        }
    }
    let mut f = feed.reducer.finish(TracedRun {
        mode,
        run,
        devices: t.devices,
        wall_ns: stats.wall_ns,
        unmatched: stats.unmatched,
        lost_events: stats.lost_events,
    });
    if stats.requeues > 0 {
        f.notes.push(format!(
            "{} requests were requeued by the driver and count once, from their last issue",
            stats.requeues
        ));
    }
    f.notes.extend(notes);
    Ok(f)
}
