//! What `/metrics` says, read from the store: per drive the latest scan (and quick scan), bench,
//! capacity probe and diagnosis, and the verdict of the latest screen that scanned it. A drive is known by its
//! serial number, or by the target's path when it has none (a file, a loop device, `null:`); such a
//! path's series are all of the device its newest run was on, never another device's older runs.

use super::families::*;
use crate::exposition::Exposition;
use drivescope_record::durability::{CommitModeName, DurabilityRecord};
use drivescope_record::{
    drive_key, BenchRecord, CapacityClass, CapacityRecord, Confidence, DeviceSummary,
    DiagnoseRecord, Document, FromDocument, Grade, Header, Kind, RunState, ScanRecord,
    ScreenRecord,
};
use drivescope_store::{ListFilter, RunId, RunInfo, Store};
use std::any::Any;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

/// Screens read at most, newest first, looking for each drive's latest verdict.
pub(crate) const SCREENS: usize = 64;

/// The store's state as far as `/metrics` is concerned: it changes whenever a run is saved,
/// replaced or removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Fingerprint {
    runs: usize,
    newest_id: i64,
    newest_saved: String,
}

/// The exposition without the runs' ages, and when each run it names ended (seconds since the
/// epoch), so the ages are worked out at each scrape.
#[derive(Debug, Clone)]
pub(crate) struct Snapshot {
    pub exposition: Exposition,
    /// Labels of [`RUN_AGE`], and the end.
    pub ended: Vec<([String; 4], f64)>,
}

/// The runs listed, and their fingerprint.
pub(crate) fn listed(store: &Store) -> drivescope_store::Result<(Vec<RunInfo>, Fingerprint)> {
    let runs = store.list(&ListFilter::default())?;
    let fp = Fingerprint {
        runs: runs.len(),
        newest_id: runs.iter().map(|r| r.id.0).max().unwrap_or(0),
        newest_saved: runs
            .iter()
            .map(|r| r.saved_at.as_str())
            .max()
            .unwrap_or("")
            .to_string(),
    };
    Ok((runs, fp))
}

/// The drive a listed run is of.
fn key(info: &RunInfo) -> String {
    match info.device_serial.as_deref().map(str::trim) {
        Some(s) if !s.is_empty() => format!("serial:{s}"),
        _ => format!("path:{}", info.target_path.as_deref().unwrap_or("")),
    }
}

/// The drive labels of a run: serial, model, target.
fn drive(header: &Header) -> [String; 3] {
    let d = header
        .device
        .as_ref()
        .map(DeviceSummary::of)
        .unwrap_or_default();
    [
        d.serial.unwrap_or_default(),
        d.model.unwrap_or_default(),
        header.target.path.clone(),
    ]
}

/// Seconds since the Unix epoch of a record's time (RFC 3339, UTC).
fn epoch(t: &str) -> Option<f64> {
    let when = humantime::parse_rfc3339_weak(t.get(..19)?).ok()?;
    Some(
        when.duration_since(std::time::UNIX_EPOCH)
            .ok()?
            .as_secs_f64(),
    )
}

/// What was read of each run the last snapshot used, kept while the run is saved as it was (a run
/// replaced in place is read again): after a new run, a snapshot reads only that run.
#[derive(Default)]
pub(crate) struct Reads(HashMap<i64, (String, Arc<dyn Any + Send + Sync>)>);

/// A snapshot's reads: those it can take from the last snapshot's, and those it made.
struct Reader<'a> {
    store: &'a Store,
    was: &'a mut Reads,
    now: Reads,
}

impl Reader<'_> {
    /// Run `info` made into `T` by `make`, from the last snapshot's reads when it is saved as it was.
    fn get<T: Any + Send + Sync>(
        &mut self,
        info: &RunInfo,
        make: impl FnOnce(Document) -> Option<T>,
    ) -> Option<Arc<T>> {
        let kept = self
            .was
            .0
            .remove(&info.id.0)
            .filter(|(s, _)| *s == info.saved_at);
        let part = match kept {
            Some((_, part)) => part,
            None => {
                let doc: Document = self.store.get(info.id).ok()?;
                Arc::new(make(doc)?) as Arc<dyn Any + Send + Sync>
            }
        };
        self.now
            .0
            .insert(info.id.0, (info.saved_at.clone(), part.clone()));
        part.downcast::<T>().ok()
    }

    fn record<T: FromDocument + Send + Sync + 'static>(
        &mut self,
        info: &RunInfo,
    ) -> Option<Arc<T>> {
        self.get(info, |doc| T::from_document(doc).ok())
    }
}

/// A drive's latest run of a kind `/metrics` has series for.
enum Latest {
    Scan(Arc<ScanRecord>),
    Bench(Arc<BenchRecord>),
    Capacity(Arc<CapacityRecord>),
    Diagnose(Arc<DiagnoseRecord>),
    Durability(Arc<DurabilityRecord>),
}

impl Latest {
    fn read(reader: &mut Reader, kind: Kind, info: &RunInfo) -> Option<Latest> {
        Some(match kind {
            Kind::Scan | Kind::QuickScan => Latest::Scan(reader.record(info)?),
            Kind::Bench => Latest::Bench(reader.record(info)?),
            Kind::Capacity => Latest::Capacity(reader.record(info)?),
            Kind::Durability => Latest::Durability(reader.record(info)?),
            _ => Latest::Diagnose(reader.record(info)?),
        })
    }

    fn header(&self) -> &Header {
        match self {
            Latest::Scan(r) => &r.header,
            Latest::Bench(r) => &r.header,
            Latest::Capacity(r) => &r.header,
            Latest::Diagnose(r) => &r.header,
            Latest::Durability(r) => &r.header,
        }
    }
}

struct Collector {
    out: Exposition,
    ended: Vec<([String; 4], f64)>,
}

impl Collector {
    /// The run's own series: its id and end.
    fn run(&mut self, id: RunId, header: &Header, d: &[String; 3]) {
        let kind = header.kind.as_str();
        self.out
            .set(&RUN_ID, &[&d[0], &d[1], &d[2], kind], id.0 as f64);
        if let Some(t) = epoch(&header.ended_at) {
            let labels = [d[0].clone(), d[1].clone(), d[2].clone(), kind.to_string()];
            self.ended.push((labels, t));
        }
    }

    fn scan(&mut self, id: RunId, r: &ScanRecord) {
        let d = drive(&r.header);
        let direction = if r.write { "write" } else { "read" };
        let l = [
            d[0].as_str(),
            &d[1],
            &d[2],
            r.header.kind.as_str(),
            direction,
        ];
        self.out.set(&SCAN_MEAN, &l, r.mb_per_s.mean * 1e6);
        self.out.set(&SCAN_MIN, &l, r.mb_per_s.min * 1e6);
        if let Some(p99) = r.latency.percentiles_ns.get("99") {
            self.out.set(&SCAN_P99, &l, *p99 as f64 / 1e9);
        }
        self.out.set(&SCAN_SLOW, &l, r.slow_total as f64);
        self.out.set(&SCAN_FAILED, &l, r.failed_total as f64);
        self.run(id, &r.header, &d);
    }

    fn bench(&mut self, id: RunId, r: &BenchRecord) {
        let d = drive(&r.header);
        for t in &r.tests {
            let l = [d[0].as_str(), &d[1], &d[2], &t.name, t.rw.as_str()];
            self.out.set(&BENCH_RATE, &l, t.mb_per_s * 1e6);
            self.out.set(&BENCH_IOPS, &l, t.iops);
            if let Some(p99) = t.latency.percentiles_ns.get("99") {
                self.out.set(&BENCH_P99, &l, *p99 as f64 / 1e9);
            }
        }
        self.run(id, &r.header, &d);
    }

    fn capacity(&mut self, id: RunId, r: &CapacityRecord) {
        let d = drive(&r.header);
        let class = r.class.map(CapacityClass::as_str).unwrap_or("unknown");
        let l = [d[0].as_str(), &d[1], &d[2], class];
        self.out.set(&CAPACITY_REPORTED, &l, r.nominal as f64);
        if let Some(real) = r.real_capacity {
            self.out.set(&CAPACITY_REAL, &l, real as f64);
        }
        if let Some(c) = r.class {
            let fake = if c == CapacityClass::Genuine {
                0.0
            } else {
                1.0
            };
            self.out.set(&CAPACITY_COUNTERFEIT, &l, fake);
        }
        self.run(id, &r.header, &d);
    }

    fn durability(&mut self, id: RunId, r: &DurabilityRecord) {
        let d = drive(&r.header);
        for c in &r.data.commits {
            let mode = match c.mode {
                CommitModeName::Fdatasync => "fdatasync",
                CommitModeName::Fsync => "fsync",
                CommitModeName::ODsync => "o_dsync",
            };
            let (committers, size) = (c.committers.to_string(), c.size.to_string());
            // A directory's 4 KiB commits come in two file states: each its own series.
            let file = match c.into {
                Some(into) => into.as_str(),
                None if r.on == "device" => "device",
                None => "new",
            };
            let l = [d[0].as_str(), &d[1], &d[2], mode, &committers, &size, file];
            self.out
                .set(&DURABILITY_COMMIT_P99, &l, c.p99_ns as f64 / 1e9);
        }
        let verdict = match (&r.power_cut, &r.data.flush_honesty) {
            (Some(_), _) => Some("power_cut"),
            (None, Some(f)) => Some(f.verdict.as_str()),
            _ => None,
        };
        if let Some(v) = verdict {
            let l = [d[0].as_str(), &d[1], &d[2], v];
            let early = if r.broke_promise() { 1.0 } else { 0.0 };
            self.out.set(&DURABILITY_FLUSH_EARLY, &l, early);
        }
        self.run(id, &r.header, &d);
    }

    fn diagnose(&mut self, id: RunId, r: &DiagnoseRecord) {
        let d = drive(&r.header);
        // One series per code: the surest finding of each.
        let mut codes: BTreeMap<&str, Confidence> = BTreeMap::new();
        for f in &r.header.findings {
            let c = codes.entry(f.code.as_str()).or_insert(f.confidence);
            *c = (*c).max(f.confidence);
        }
        for (code, c) in codes {
            let l = [d[0].as_str(), &d[1], &d[2], code, c.as_str()];
            self.out.set(&DIAGNOSE_FINDING, &l, confidence(c));
        }
        self.run(id, &r.header, &d);
    }
}

fn confidence(c: Confidence) -> f64 {
    match c {
        Confidence::Inconclusive => 0.0,
        Confidence::Low => 1.0,
        Confidence::Medium => 2.0,
        Confidence::High => 3.0,
    }
}

fn grade(g: Grade) -> f64 {
    match g {
        Grade::Pass => 0.0,
        Grade::Warn => 1.0,
        Grade::Incomplete => 2.0,
        Grade::Fail => 3.0,
    }
}

/// Reads the store's runs (`runs`, as [`listed`] gave them) into a snapshot; `reads` holds what the last
/// snapshot read, and then what this one did.
pub(crate) fn collect(store: &Store, runs: &[RunInfo], reads: &mut Reads) -> Snapshot {
    let mut reader = Reader {
        store,
        was: reads,
        now: Reads::default(),
    };
    let snapshot = collect_with(&mut reader, runs);
    *reader.was = reader.now;
    snapshot
}

fn collect_with(reader: &mut Reader, runs: &[RunInfo]) -> Snapshot {
    let mut c = Collector {
        out: Exposition::default(),
        ended: Vec::new(),
    };
    c.out.set(&STORE_RUNS, &[], runs.len() as f64);
    // The list is newest first: the first run of each (kind, drive) is its latest. A checkpoint
    // (a run still going, or killed) is passed over. A target without serial numbers is whatever
    // device it last named (`/dev/loop0` holds what was attached last): its newest run says which,
    // and runs of other devices under that name are passed over.
    let mut seen: HashSet<(String, String)> = HashSet::new();
    let mut drives: HashSet<String> = HashSet::new();
    let mut current: HashMap<String, String> = HashMap::new();
    let mut screens = Vec::new();
    for info in runs {
        if info.state == Some(RunState::Checkpoint) {
            continue;
        }
        let kind = Kind::parse(&info.kind);
        if kind == Kind::Screen {
            screens.push(info);
            continue;
        }
        let key = key(info);
        if !matches!(
            kind,
            Kind::Scan
                | Kind::QuickScan
                | Kind::Bench
                | Kind::Diagnose
                | Kind::Capacity
                | Kind::Durability
        ) || seen.contains(&(info.kind.clone(), key.clone()))
        {
            continue;
        }
        let Some(run) = Latest::read(reader, kind, info) else {
            continue;
        };
        if key.starts_with("path:") {
            let device = drive_key(run.header());
            if *current.entry(key.clone()).or_insert_with(|| device.clone()) != device {
                continue;
            }
        }
        seen.insert((info.kind.clone(), key.clone()));
        match run {
            Latest::Scan(r) => {
                drives.insert(key);
                c.scan(info.id, &r);
            }
            Latest::Bench(r) => c.bench(info.id, &r),
            Latest::Capacity(r) => c.capacity(info.id, &r),
            Latest::Diagnose(r) => c.diagnose(info.id, &r),
            Latest::Durability(r) => c.durability(info.id, &r),
        }
    }
    verdicts(reader, &screens, &drives, &current, &mut c);
    Snapshot {
        exposition: c.out,
        ended: c.ended,
    }
}

/// What `/metrics` keeps of a screen: each judged drive's labels and grade, and when it ended (a
/// screen's document holds its drives' whole scans, which are not kept).
struct Judged {
    /// Labels, grade, and which device ([`drive_key`]) the drive's scan ran on.
    drives: Vec<([String; 3], Grade, Option<String>)>,
    ended: Option<f64>,
}

fn judged(r: ScreenRecord) -> Judged {
    let drives = r
        .members
        .iter()
        .filter_map(|m| {
            let v = m.verdict.as_ref()?;
            let (d, device) = match &m.scan {
                Some(s) => (drive(&s.header), Some(drive_key(&s.header))),
                None => ([String::new(), String::new(), m.target.clone()], None),
            };
            Some((d, v.grade, device))
        })
        .collect();
    Judged {
        drives,
        ended: epoch(&r.header.ended_at),
    }
}

/// The verdict of each drive's latest screen: screens newest first, until every scanned drive has
/// one or [`SCREENS`] were read. A target without serial numbers takes only a verdict of the
/// device its newest run was on (`current`, by target key).
fn verdicts(
    reader: &mut Reader,
    screens: &[&RunInfo],
    drives: &HashSet<String>,
    current: &HashMap<String, String>,
    c: &mut Collector,
) {
    let mut given: HashSet<String> = HashSet::new();
    for info in screens.iter().take(SCREENS) {
        if !drives.is_empty() && drives.iter().all(|d| given.contains(d)) {
            break;
        }
        let made = reader.get(info, |doc| {
            ScreenRecord::from_document(doc).ok().map(judged)
        });
        let Some(r) = made else {
            continue;
        };
        for (d, g, device) in &r.drives {
            let key = if d[0].is_empty() {
                format!("path:{}", d[2])
            } else {
                format!("serial:{}", d[0])
            };
            let other = match (current.get(&key), device) {
                (Some(now), Some(then)) => now != then,
                _ => false,
            };
            if other || !given.insert(key) {
                continue;
            }
            let l = [d[0].as_str(), &d[1], &d[2], g.as_str()];
            c.out.set(&SCREEN_VERDICT, &l, grade(*g));
            if let Some(t) = r.ended {
                let labels = [d[0].clone(), d[1].clone(), d[2].clone(), "screen".into()];
                c.ended.push((labels, t));
            }
            c.out
                .set(&RUN_ID, &[&d[0], &d[1], &d[2], "screen"], info.id.0 as f64);
        }
    }
}
