//! drivescope's output read back into the record types: a command's document as the record of the kind
//! the test expects (a document of another kind, or of a shape its type cannot read, fails the test), the
//! invariants of a complete scan checked on a [`ScanRecord`], and the rows of `runs --json` and
//! `store copy --json`, which no library type describes (read here with unknown fields refused, so a
//! drifted shape fails).

use super::drivescope;
use drivescope_record::{Document, FromDocument, Kind, RunStatus, ScanRecord, SCHEMA};
use serde::{Deserialize, Deserializer, Serialize};
use std::process::Output;

/// The document on a command's stdout.
pub fn document(stdout: &[u8]) -> Document {
    serde_json::from_slice(stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not one drivescope/1 document ({e}): {}",
            String::from_utf8_lossy(&stdout[..stdout.len().min(2000)])
        )
    })
}

/// The document on a command's stdout; its stderr is shown when it is none.
pub fn document_of(out: &Output) -> Document {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not one drivescope/1 document ({e}); stderr: {}\n{}",
            String::from_utf8_lossy(&out.stderr),
            String::from_utf8_lossy(&out.stdout[..out.stdout.len().min(2000)])
        )
    })
}

/// The record of type `T` that `doc` is; panics naming the kind it is instead, or why its shape
/// does not read.
pub fn record_in<T: FromDocument>(doc: Document) -> T {
    T::from_document(doc).unwrap_or_else(|other| match other {
        Document::Unknown { kind, why, .. } => {
            panic!("a {kind} document this version cannot read: {why}")
        }
        other => panic!(
            "a {} document, not the {} expected",
            other.kind(),
            T::kind().map_or("record".into(), |k| k.to_string())
        ),
    })
}

/// The record of type `T` on a command's stdout.
pub fn record<T: FromDocument>(stdout: &[u8]) -> T {
    record_in(document(stdout))
}

/// The record of type `T` on a command's stdout, whatever its exit code.
pub fn record_of<T: FromDocument>(out: &Output) -> T {
    record_in(document_of(out))
}

/// The record of a command that succeeded; panics with its stderr otherwise.
pub fn record_of_ok<T: FromDocument>(out: &Output) -> T {
    assert!(
        out.status.success(),
        "drivescope failed ({:?}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    record_of(out)
}

/// Run drivescope with `--json --quiet`; panics with stderr on failure; stdout as a document.
pub fn drivescope_doc(args: &[&str]) -> Document {
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--json", "--quiet"]);
    let out = drivescope(&all);
    assert!(
        out.status.success(),
        "drivescope {:?} failed ({:?}): {}",
        args,
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    document_of(&out)
}

/// Run drivescope with `--json --quiet`; the record it printed (it must succeed).
pub fn drivescope_record<T: FromDocument>(args: &[&str]) -> T {
    record_in(drivescope_doc(args))
}

/// True when two records hold the same values, as they are written out (and stored).
pub fn same<A: Serialize, B: Serialize>(a: &A, b: &B) -> bool {
    serde_json::to_value(a).unwrap() == serde_json::to_value(b).unwrap()
}

/// The scan record of a document; panics when it is another kind.
pub fn scan_of(doc: &Document) -> &ScanRecord {
    match doc {
        Document::Scan(r) => r,
        other => panic!("a {:?} document, not a scan", other.kind()),
    }
}

/// The invariants every complete scan record holds.
pub fn check_scan(d: &ScanRecord) {
    let (offset, length, bs) = (d.offset, d.length, d.block_size);
    let lbs = u64::from(d.header.target.logical_block_size);
    let (commands, failed_cmds) = (d.commands, d.failed_commands);
    assert_eq!(d.header.schema, SCHEMA);
    assert_eq!(
        commands,
        length.div_ceil(bs),
        "one command per block of the range"
    );
    if failed_cmds == 0 {
        assert_eq!(d.bytes, length, "bytes == range length");
    }
    // histogram count == successful commands; bands sum to all commands
    let hist: u64 = d.histogram.buckets.iter().map(|b| b.count).sum();
    assert_eq!(hist, commands - failed_cmds, "histogram count");
    assert_eq!(d.latency.count, commands - failed_cmds);
    assert_eq!(
        d.submit_latency.count, commands,
        "every command's submission is timed"
    );
    assert_eq!(d.bands.len(), 9);
    assert_eq!(d.bands[8].label, "failed");
    assert_eq!(d.bands[8].count, failed_cmds);
    let band_sum: u64 = d.bands.iter().map(|b| b.count).sum();
    assert_eq!(band_sum, commands, "bands sum to the command count");
    // the curve covers the range with no gap and no overlap, on command boundaries
    let points = d.curve.len() as u64;
    assert!(points >= 1 && points <= commands);
    let mut next = offset;
    for p in &d.curve {
        assert_eq!(p.offset, next, "curve gap or overlap at {next}");
        assert_eq!((p.offset - offset) % bs, 0, "bin on a command boundary");
        assert!(p.length > 0);
        assert!(p.mb_per_s > 0.0);
        assert!(p.min_ns <= p.max_ns);
        next += p.length;
    }
    assert_eq!(next, offset + length, "curve ends at the end of the range");
    assert_eq!(offset % lbs, 0);
    assert!(!d.interrupted);
}

/// One row of `drivescope runs --json`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListedRun {
    pub id: i64,
    pub kind: Kind,
    #[serde(deserialize_with = "status")]
    pub state: Option<RunStatus>,
    pub started_at: Option<String>,
    pub ended_at: Option<String>,
    pub host: Option<String>,
    pub tool_version: Option<String>,
    pub target: Option<String>,
    pub device: ListedDevice,
    /// Which drive the run is of: its serial numbers, else its path and what tells the device
    /// from others under that path; absent for a document this version cannot read.
    pub drive: Option<String>,
}

/// The device columns of a row of `drivescope runs --json`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListedDevice {
    pub model: Option<String>,
    pub serial: Option<String>,
    pub firmware: Option<String>,
    pub capacity: Option<u64>,
    pub transport: Option<String>,
    pub name: Option<String>,
}

/// A run status by the name `runs --json` writes; a name no status has is refused.
fn status<'de, D: Deserializer<'de>>(d: D) -> Result<Option<RunStatus>, D::Error> {
    let Some(name) = Option::<String>::deserialize(d)? else {
        return Ok(None);
    };
    [
        RunStatus::Finished,
        RunStatus::Running,
        RunStatus::Interrupted,
        RunStatus::DeviceLost,
    ]
    .into_iter()
    .find(|s| s.as_str() == name)
    .map(Some)
    .ok_or_else(|| serde::de::Error::custom(format!("no run status is named {name:?}")))
}

/// The rows of `drivescope runs --json` (ARGS added), newest first.
pub fn listed_runs(args: &[&str]) -> Vec<ListedRun> {
    let out = drivescope(&[&["runs", "--json"][..], args].concat());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    listed_runs_in(&out)
}

/// The rows a `drivescope runs --json` printed.
pub fn listed_runs_in(out: &Output) -> Vec<ListedRun> {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "runs --json is not a list of runs ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

/// What `drivescope store copy --json` prints.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StoreCopied {
    pub schema: String,
    pub from: String,
    pub to: String,
    pub copied: usize,
    pub skipped: usize,
    pub unreadable: Vec<Unreadable>,
}

/// A run `store copy` could not read.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Unreadable {
    pub run: i64,
    pub error: String,
}
