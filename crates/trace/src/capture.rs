//! A block trace of chosen devices while a command runs: tracefs set up, the per-CPU ring buffers read by
//! a thread, issues matched with completions, each request handed to a [`Sink`], everything removed after.

use crate::devices;
use crate::error::CaptureError;
use crate::events::{Event, Layout};
use crate::file::TraceDevice;
use crate::matcher::Matcher;
use crate::ring::{self, PageLayout};
use crate::tracefs::{self, Instance};
use crate::Request;
use std::fs::File;
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// Where the requests of a capture go, in completion order, as they are read.
pub trait Sink: Send + 'static {
    fn request(&mut self, r: &Request);
}

impl<F: FnMut(&Request) + Send + 'static> Sink for F {
    fn request(&mut self, r: &Request) {
        self(r)
    }
}

/// The ring buffers of all CPUs together, in KiB: at about 70 bytes an event, a machine with few CPUs
/// (where a busy host starves the reader most) keeps some 240 000 events a CPU between two reads, two
/// seconds of a RAM disk's 4 KiB reads at depth one.
const BUFFERS_KB: u32 = 64 * 1024;
/// Each CPU's ring buffer at least and at most, in KiB.
const BUFFER_KB: (u32, u32) = (4096, 16 * 1024);

/// The ring buffer of each of `cpus` CPUs, in KiB.
fn buffer_kb(cpus: usize) -> u32 {
    (BUFFERS_KB / cpus.max(1) as u32).clamp(BUFFER_KB.0, BUFFER_KB.1)
}
/// How often the reader looks at the buffers: seldom enough that it mostly takes whole pages (a partly
/// written page is copied event by event), often enough that the buffer never fills (some 10 MB/s of
/// events at 130 000 requests per second is 0.5 MiB a look).
const POLL: Duration = Duration::from_millis(50);
/// Events are handed on only when older than this: an event of another CPU may still be on its way.
const SETTLE_NS: u64 = 2_000_000;

/// How a capture went.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CaptureStats {
    /// Requests handed to the sink.
    pub requests: u64,
    /// Completions whose issue came before the start, and issues with no completion by the stop.
    pub unmatched: u64,
    /// Requests issued again while in flight (the driver requeued them); each counts once.
    pub requeues: u64,
    /// Events the kernel dropped because its buffer was full (the fingerprint misses requests).
    pub lost_events: u64,
    /// Start to stop.
    pub wall_ns: u64,
}

/// What the reader thread hands back: the sink, the matcher's counts, the requests delivered.
type ReaderEnd<S> = (S, Matcher, u64);

/// A running capture; [`Capture::stop`] or [`Capture::finish`] ends it (dropping it ends it too, and still
/// removes the tracing instance).
pub struct Capture<S: Sink> {
    instance: Option<Instance>,
    devices: Vec<TraceDevice>,
    stop: Arc<AtomicBool>,
    reader: Option<JoinHandle<Result<ReaderEnd<S>, CaptureError>>>,
    t0: u64,
}

/// CLOCK_MONOTONIC in nanoseconds: the instance's `mono` trace clock.
pub fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes only into the timespec we pass.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

impl<S: Sink> Capture<S> {
    /// Starts tracing `devices` (whole disks: the block events name the disk, not the partition), sending
    /// each request to `sink`.
    pub fn start(devices: &[TraceDevice], sink: S) -> Result<Capture<S>, CaptureError> {
        if devices.is_empty() {
            return Err(CaptureError::NoDevices);
        }
        let root = tracefs::root()?;
        let events = root.join("events/block");
        let format = |event: &'static str| {
            std::fs::read_to_string(events.join(event).join("format"))
                .map_err(|_| CaptureError::EventMissing { event })
        };
        let layout = Layout::parse(&format("block_rq_issue")?, &format("block_rq_complete")?)?;
        let page = PageLayout::parse(&tracefs::read(&root.join("events/header_page"))?);
        let instance = Instance::create(&root)?;
        tracefs::write(&instance.path("trace_clock"), "mono")?;
        // the kernel keeps a buffer for each CPU it lists, whatever this process may run on
        let cpus = std::fs::read_dir(instance.path("per_cpu")).map_or(1, |d| d.count());
        tracefs::write(
            &instance.path("buffer_size_kb"),
            &buffer_kb(cpus).to_string(),
        )?;
        let filter = devices
            .iter()
            .map(|d| format!("dev == {}", d.dev))
            .collect::<Vec<_>>()
            .join(" || ");
        for e in ["block_rq_issue", "block_rq_complete"] {
            tracefs::write(&instance.path(&format!("events/block/{e}/filter")), &filter)?;
        }
        let subbuf_kb = tracefs::read(&instance.path("buffer_subbuf_size_kb"))
            .ok()
            .and_then(|s| s.trim().parse::<usize>().ok())
            .unwrap_or(4);
        let pipes = open_pipes(&instance)?;
        let t0 = monotonic_ns();
        for e in ["block_rq_issue", "block_rq_complete"] {
            tracefs::write(&instance.path(&format!("events/block/{e}/enable")), "1")?;
        }
        tracefs::write(&instance.path("tracing_on"), "1")?;
        let stop = Arc::new(AtomicBool::new(false));
        let reader = Reader {
            pipes,
            page_bytes: subbuf_kb * 1024,
            page,
            layout,
            stop: stop.clone(),
            t0,
        };
        let handle = std::thread::Builder::new()
            .name("drivescope-trace".into())
            .spawn(move || reader.run(sink))
            .map_err(|e| CaptureError::Reader(e.to_string()))?;
        Ok(Capture {
            instance: Some(instance),
            devices: devices.to_vec(),
            stop,
            reader: Some(handle),
            t0,
        })
    }

    /// Stops, reads what is left, removes the instance; the requests went to the sink.
    pub fn stop(self) -> Result<CaptureStats, CaptureError> {
        self.finish().map(|(_, s)| s)
    }

    /// Stops as [`Capture::stop`] does, and hands back the sink. A device that went away during the
    /// capture is an error: its trace is incomplete.
    pub fn finish(mut self) -> Result<(S, CaptureStats), CaptureError> {
        let instance = self.instance.take().expect("running");
        let wall_ns = monotonic_ns().saturating_sub(self.t0);
        for e in ["block_rq_issue", "block_rq_complete"] {
            let _ = tracefs::write(&instance.path(&format!("events/block/{e}/enable")), "0");
        }
        self.stop.store(true, Ordering::Relaxed);
        let joined = self
            .reader
            .take()
            .expect("running")
            .join()
            .map_err(|_| CaptureError::Reader("the reader thread panicked".into()));
        let lost = lost_events(&instance);
        instance.remove()?;
        let (sink, matcher, requests) = joined??;
        for d in &self.devices {
            if let Some(why) = devices::gone(d) {
                return Err(CaptureError::DeviceGone {
                    name: d.name.clone(),
                    why,
                });
            }
        }
        let stats = CaptureStats {
            requests,
            unmatched: matcher.orphans + matcher.in_flight(),
            requeues: matcher.requeues,
            lost_events: lost,
            wall_ns,
        };
        Ok((sink, stats))
    }
}

impl<S: Sink> Drop for Capture<S> {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(h) = self.reader.take() {
            let _ = h.join();
        }
        // The instance's own Drop removes it.
    }
}

fn open_pipes(instance: &Instance) -> Result<Vec<File>, CaptureError> {
    let per_cpu = instance.path("per_cpu");
    let entries = std::fs::read_dir(&per_cpu).map_err(|error| CaptureError::Tracefs {
        path: per_cpu.clone(),
        error,
    })?;
    let mut pipes = Vec::new();
    for e in entries.flatten() {
        if !e.file_name().to_string_lossy().starts_with("cpu") {
            continue;
        }
        let path = e.path().join("trace_pipe_raw");
        let f = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&path)
            .map_err(|error| CaptureError::Tracefs { path, error })?;
        pipes.push(f);
    }
    Ok(pipes)
}

/// Events the kernel could not keep: overwritten (`overrun`) or refused (`dropped events`), all CPUs.
fn lost_events(instance: &Instance) -> u64 {
    let Ok(entries) = std::fs::read_dir(instance.path("per_cpu")) else {
        return 0;
    };
    let mut lost = 0;
    for e in entries.flatten() {
        let Ok(text) = std::fs::read_to_string(e.path().join("stats")) else {
            continue;
        };
        for line in text.lines() {
            if let Some(v) = line
                .strip_prefix("overrun:")
                .or_else(|| line.strip_prefix("dropped events:"))
            {
                lost += v.trim().parse::<u64>().unwrap_or(0);
            }
        }
    }
    lost
}

struct Reader {
    pipes: Vec<File>,
    page_bytes: usize,
    page: PageLayout,
    layout: Layout,
    stop: Arc<AtomicBool>,
    t0: u64,
}

impl Reader {
    /// Reads until told to stop, then once more to the end. Events of all CPUs are put in time order
    /// before matching; those younger than [`SETTLE_NS`] wait for the next round.
    fn run<S: Sink>(mut self, mut sink: S) -> Result<ReaderEnd<S>, CaptureError> {
        let mut matcher = Matcher::new(self.t0);
        let mut pending: Vec<(u64, u8, Event)> = Vec::new();
        let mut buf = vec![0u8; self.page_bytes];
        let mut requests = 0u64;
        loop {
            let last = self.stop.load(Ordering::Relaxed);
            let horizon = if last {
                u64::MAX
            } else {
                monotonic_ns().saturating_sub(SETTLE_NS)
            };
            for pipe in &mut self.pipes {
                drain(pipe, &mut buf, &self.page, &self.layout, &mut pending)?;
            }
            pending.sort_unstable_by_key(|&(t, kind, _)| (t, kind));
            let ready = pending.partition_point(|&(t, _, _)| t <= horizon);
            for (t, _, e) in pending.drain(..ready) {
                matcher.event(t, &e, &mut |r| {
                    requests += 1;
                    sink.request(r)
                });
            }
            if last {
                return Ok((sink, matcher, requests));
            }
            std::thread::sleep(POLL);
        }
    }
}

/// Reads one CPU's buffer until it is empty.
fn drain(
    pipe: &mut File,
    buf: &mut [u8],
    page: &PageLayout,
    layout: &Layout,
    out: &mut Vec<(u64, u8, Event)>,
) -> Result<(), CaptureError> {
    loop {
        match pipe.read(buf) {
            Ok(0) => return Ok(()),
            Ok(n) => ring::for_each_event(&buf[..n], page, |t, data| {
                if let Some(e) = layout.decode(data) {
                    // Completions before issues of the same instant.
                    let kind = u8::from(matches!(e, Event::Issue { .. }));
                    out.push((t, kind, e));
                }
            }),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(CaptureError::Reader(format!("reading the trace: {e}"))),
        }
    }
}

/// Whether tracing can be started here, without starting it: `None` when it can, else why not.
pub fn unavailable() -> Option<CaptureError> {
    match tracefs::root() {
        Err(e) => Some(e),
        Ok(root)
            if !Path::new(&root)
                .join("events/block/block_rq_issue")
                .is_dir() =>
        {
            Some(CaptureError::EventMissing {
                event: "block_rq_issue",
            })
        }
        Ok(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::buffer_kb;

    #[test]
    fn few_cpus_get_large_buffers_and_many_keep_the_total_bounded() {
        assert_eq!(buffer_kb(0), 16 * 1024);
        assert_eq!(buffer_kb(2), 16 * 1024);
        assert_eq!(buffer_kb(8), 8 * 1024);
        assert_eq!(buffer_kb(16), 4096);
        assert_eq!(buffer_kb(256), 4096, "never below the old size");
        for cpus in 4..=16 {
            assert!(buffer_kb(cpus) * cpus as u32 <= 64 * 1024);
        }
    }
}
