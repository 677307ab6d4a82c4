//! One fio job per bench test, sweep cell, soak or scan.

use super::latency::Lat;
use super::section::{ms, Io, Samples, Section};
use super::Ordered;
use drivescope_record::{
    BenchRecord, Direction, EngineKind, ScanRecord, SoakRecord, SweepCell, SweepRecord, TestResult,
};
use drivescope_stats::{LatencySummary, SeriesPoint};
use serde::Serialize;

/// A job as fio json+ writes it (the fields drivescope's records can fill).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Job {
    pub jobname: String,
    pub groupid: u32,
    /// errno of the first failed command, where the record keeps one (0: none).
    pub error: i32,
    /// Seconds.
    pub elapsed: u64,
    #[serde(rename = "job options")]
    pub options: Ordered<String>,
    pub read: Section,
    pub write: Section,
    pub trim: Section,
    pub sync: Sync,
    /// ms.
    pub job_runtime: u64,
}

/// fio's `sync` section: drivescope issues no syncs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Sync {
    pub total_ios: u64,
    pub lat_ns: Lat,
}

/// What one job measured, before it is laid out in fio's shape.
struct Measured {
    name: String,
    dir: Direction,
    io: Io,
    slat: Option<Lat>,
    clat: Lat,
    lat: Option<Lat>,
    samples: Samples,
    error: i32,
    options: Vec<(&'static str, String)>,
}

impl Measured {
    fn job(self, groupid: u32) -> Job {
        let section = Section::measured(self.io, self.slat, self.clat, self.lat, self.samples);
        // A mixed test's record keeps one total for reads and writes together: it goes in `read`.
        let (read, write) = match self.dir {
            Direction::Read | Direction::Mix => (section, Section::zero()),
            Direction::Write => (Section::zero(), section),
        };
        let mut options = vec![("name".to_string(), self.name.clone())];
        options.extend(self.options.into_iter().map(|(k, v)| (k.to_string(), v)));
        Job {
            jobname: self.name,
            groupid,
            error: self.error,
            elapsed: self.io.duration_ns.div_ceil(1_000_000_000),
            options: Ordered(options),
            read,
            write,
            trim: Section::zero(),
            sync: Sync {
                total_ios: 0,
                lat_ns: Lat::zero(),
            },
            job_runtime: ms(self.io.duration_ns),
        }
    }
}

/// fio's name of the access pattern: sequential for SEQ tests and scans, random otherwise.
fn fio_rw(sequential: bool, dir: Direction) -> &'static str {
    match (sequential, dir) {
        (true, Direction::Read) => "read",
        (true, Direction::Write) => "write",
        (true, Direction::Mix) => "rw",
        (false, Direction::Read) => "randread",
        (false, Direction::Write) => "randwrite",
        (false, Direction::Mix) => "randrw",
    }
}

/// The total latency (fio's lat = slat + clat) where every submission took no time (psync and null hand
/// the command over and complete it in one call): it is then the completion latency.
fn total_latency(
    engine: EngineKind,
    slat: Option<&LatencySummary>,
    clat: &LatencySummary,
) -> Option<Lat> {
    let no_submit_time = matches!(engine, EngineKind::Psync | EngineKind::Null)
        || slat.is_some_and(|s| s.count > 0 && s.max_ns == 0);
    no_submit_time.then(|| Lat::stats(clat))
}

/// A run's length as fio's `runtime` option takes it.
fn runtime_option(ns: u64) -> String {
    if ns.is_multiple_of(1_000_000_000) {
        format!("{}", ns / 1_000_000_000)
    } else {
        format!("{}ms", ms(ns))
    }
}

/// "4K", "1M" as test names write block sizes.
fn size_label(bytes: u64) -> String {
    const K: u64 = 1024;
    match bytes {
        b if b >= K * K * K && b.is_multiple_of(K * K * K) => format!("{}G", b / (K * K * K)),
        b if b >= K * K && b.is_multiple_of(K * K) => format!("{}M", b / (K * K)),
        b if b >= K && b.is_multiple_of(K) => format!("{}K", b / K),
        b => format!("{b}B"),
    }
}

fn rates(points: &[SeriesPoint]) -> Vec<(f64, f64)> {
    points.iter().map(|p| (p.mb_per_s, p.iops)).collect()
}

fn common_options(
    rw: &'static str,
    block_size: u64,
    queue_depth: u32,
    engine: EngineKind,
) -> Vec<(&'static str, String)> {
    vec![
        ("rw", rw.to_string()),
        ("bs", block_size.to_string()),
        ("iodepth", queue_depth.to_string()),
        ("ioengine", engine.to_string()),
    ]
}

/// A bench test: its measured runs together (the histogram and `latency` are over all of them).
pub fn bench_test(b: &BenchRecord, t: &TestResult, groupid: u32) -> Job {
    let ios = t.latency.count;
    // `latency` is each command's whole time (submission included); fio's tools read their
    // bins from clat_ns, so that is where it goes (docs/json.md).
    let clat = match &t.histogram {
        Some(h) => Lat::with_histogram(&t.latency, h),
        None => Lat::summary(&t.latency),
    };
    let mut options = common_options(
        fio_rw(t.name.starts_with("SEQ"), t.rw),
        t.load.block_size,
        t.load.queue_depth,
        t.load.engine,
    );
    if let Some(p) = t.read_pct {
        options.push(("rwmixread", p.to_string()));
    }
    options.push(("numjobs", t.load.threads.to_string()));
    options.push(("runtime", runtime_option(b.duration_ns)));
    options.push(("loops", t.runs.len().to_string()));
    Measured {
        name: format!("{} {}", t.name, t.rw),
        dir: t.rw,
        io: Io {
            bytes: ios * t.load.block_size,
            ios,
            duration_ns: t.runs.iter().map(|r| r.duration_ns).sum(),
        },
        slat: Some(Lat::stats(&t.submit_latency)),
        lat: total_latency(t.load.engine, Some(&t.submit_latency), &t.latency),
        clat,
        samples: Samples::from_rates(
            &t.runs
                .iter()
                .map(|r| (r.mb_per_s, r.iops))
                .collect::<Vec<_>>(),
        ),
        error: 0,
        options,
    }
    .job(groupid)
}

/// A sweep cell. The record keeps its rates and two percentiles, not its totals: the amounts are the rates
/// over the cell's duration.
pub fn sweep_cell(s: &SweepRecord, c: &SweepCell, groupid: u32) -> Job {
    let secs = s.duration_ns as f64 / 1e9;
    let ios = (c.iops * secs).round() as u64;
    let mut options = common_options(
        fio_rw(s.pattern.starts_with("SEQ"), s.rw),
        s.block_size,
        c.queue_depth,
        c.engine,
    );
    options.push(("numjobs", c.threads.to_string()));
    options.push(("runtime", runtime_option(s.duration_ns)));
    Measured {
        name: format!("{} Q{}T{} {}", s.pattern, c.queue_depth, c.threads, s.rw),
        dir: s.rw,
        io: Io {
            bytes: (c.mb_per_s * 1e6 * secs).round() as u64,
            ios,
            duration_ns: s.duration_ns,
        },
        slat: None,
        clat: Lat::percentiles_only(ios, c.p50_ns, c.p99_ns),
        lat: None,
        samples: Samples::default(),
        error: 0,
        options,
    }
    .job(groupid)
}

/// A soak: one run, its series intervals as the samples.
pub fn soak(s: &SoakRecord) -> Job {
    let mut options = common_options(
        fio_rw(s.test.starts_with("SEQ"), s.rw),
        s.load.block_size,
        s.load.queue_depth,
        s.load.engine,
    );
    options.push(("numjobs", s.load.threads.to_string()));
    options.push(("runtime", runtime_option(s.duration_ns)));
    Measured {
        name: format!("{} {}", s.test, s.rw),
        dir: s.rw,
        io: Io {
            bytes: s.bytes,
            ios: s.latency.count,
            duration_ns: s.duration_ns,
        },
        slat: None,
        clat: Lat::summary(&s.latency),
        lat: total_latency(s.load.engine, None, &s.latency),
        samples: Samples::from_rates(&rates(&s.series)),
        error: 0,
        options,
    }
    .job(0)
}

/// A scan or quick scan: sequential commands of one size over its range.
pub fn scan(s: &ScanRecord) -> Job {
    let dir = s.direction();
    let mut options = common_options(fio_rw(true, dir), s.block_size, s.queue_depth, s.engine);
    options.push(("offset", s.offset.to_string()));
    options.push(("size", s.length.to_string()));
    Measured {
        name: format!(
            "{} {} Q{}T1 {}",
            s.header.kind,
            size_label(s.block_size),
            s.queue_depth,
            dir
        ),
        dir,
        io: Io {
            bytes: s.bytes,
            ios: s.latency.count,
            duration_ns: s.duration_ns,
        },
        slat: Some(Lat::stats(&s.submit_latency)),
        clat: Lat::with_histogram(&s.latency, &s.histogram),
        lat: total_latency(s.engine, Some(&s.submit_latency), &s.latency),
        samples: Samples::from_rates(&rates(&s.series)),
        error: s.failed.iter().find_map(|e| e.errno).unwrap_or(0),
        options,
    }
    .job(0)
}
