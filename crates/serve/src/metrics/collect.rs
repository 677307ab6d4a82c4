//! What `/metrics` says, read from the store: per drive the latest scan (and quick scan), bench
//! and diagnosis, and the verdict of the latest screen that scanned it. A drive is known by its
//! serial number, or by the target's path when it has none (a file, a loop device, `null:`).

use super::families::*;
use crate::exposition::Exposition;
use drivescope_record::{
    BenchRecord, Confidence, DeviceSummary, DiagnoseRecord, Document, FromDocument, Grade, Header,
    Kind, RunState, ScanRecord, ScreenRecord,
};
use drivescope_store::{ListFilter, RunId, RunInfo, Store};
use std::collections::{BTreeMap, HashSet};

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

fn read<T: FromDocument>(store: &Store, id: RunId) -> Option<T> {
    let doc: Document = store.get(id).ok()?;
    T::from_document(doc).ok()
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

/// Reads the store's runs (`runs`, as [`listed`] gave them) into a snapshot.
pub(crate) fn collect(store: &Store, runs: &[RunInfo]) -> Snapshot {
    let mut c = Collector {
        out: Exposition::default(),
        ended: Vec::new(),
    };
    c.out.set(&STORE_RUNS, &[], runs.len() as f64);
    // The list is newest first: the first run of each (kind, drive) is its latest. A checkpoint
    // (a run still going, or killed) is passed over.
    let mut seen: HashSet<(String, String)> = HashSet::new();
    let mut drives: HashSet<String> = HashSet::new();
    let mut screens = Vec::new();
    for info in runs {
        if info.state == Some(RunState::Checkpoint) {
            continue;
        }
        let kind = Kind::parse(&info.kind);
        if kind == Kind::Screen {
            screens.push(info.id);
            continue;
        }
        if !matches!(
            kind,
            Kind::Scan | Kind::QuickScan | Kind::Bench | Kind::Diagnose
        ) || !seen.insert((info.kind.clone(), key(info)))
        {
            continue;
        }
        match kind {
            Kind::Scan | Kind::QuickScan => {
                drives.insert(key(info));
                if let Some(r) = read::<ScanRecord>(store, info.id) {
                    c.scan(info.id, &r);
                }
            }
            Kind::Bench => {
                if let Some(r) = read::<BenchRecord>(store, info.id) {
                    c.bench(info.id, &r);
                }
            }
            _ => {
                if let Some(r) = read::<DiagnoseRecord>(store, info.id) {
                    c.diagnose(info.id, &r);
                }
            }
        }
    }
    verdicts(store, &screens, &drives, &mut c);
    Snapshot {
        exposition: c.out,
        ended: c.ended,
    }
}

/// The verdict of each drive's latest screen: screens newest first, until every scanned drive has
/// one or [`SCREENS`] were read.
fn verdicts(store: &Store, screens: &[RunId], drives: &HashSet<String>, c: &mut Collector) {
    let mut given: HashSet<String> = HashSet::new();
    for &id in screens.iter().take(SCREENS) {
        if !drives.is_empty() && drives.iter().all(|d| given.contains(d)) {
            break;
        }
        let Some(r) = read::<ScreenRecord>(store, id) else {
            continue;
        };
        for m in &r.members {
            let Some(v) = &m.verdict else { continue };
            let d = match &m.scan {
                Some(s) => drive(&s.header),
                None => [String::new(), String::new(), m.target.clone()],
            };
            let key = if d[0].is_empty() {
                format!("path:{}", d[2])
            } else {
                format!("serial:{}", d[0])
            };
            if !given.insert(key) {
                continue;
            }
            let g = v.grade;
            let l = [d[0].as_str(), &d[1], &d[2], g.as_str()];
            c.out.set(&SCREEN_VERDICT, &l, grade(g));
            if let Some(t) = epoch(&r.header.ended_at) {
                let labels = [d[0].clone(), d[1].clone(), d[2].clone(), "screen".into()];
                c.ended.push((labels, t));
            }
            c.out
                .set(&RUN_ID, &[&d[0], &d[1], &d[2], "screen"], id.0 as f64);
        }
    }
}
