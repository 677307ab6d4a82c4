//! drivescope's output read into the record types: the one document a command prints with
//! `--json`, as the record of the kind the test expects, and the invariants of a scan record.
//! A document of another kind, or of a shape its type cannot read, fails the test.

use drivescope_record::{Document, FromDocument, Kind, ScanRecord, SCHEMA};
use serde::Deserialize;
use std::process::Output;

/// The document on a command's stdout.
pub fn document_of(out: &Output) -> Document {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not one drivescope/1 document ({e}); stderr: {}\n{}",
            String::from_utf8_lossy(&out.stderr),
            String::from_utf8_lossy(&out.stdout[..out.stdout.len().min(2000)])
        )
    })
}

/// The record of type `T` that `doc` is; panics naming the kind it is instead, or why its
/// shape does not read.
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
pub fn record_of<T: FromDocument>(out: &Output) -> T {
    record_in(document_of(out))
}

/// Run drivescope with `--json --quiet`; panics with stderr on failure; stdout as a document.
pub fn drivescope_doc(args: &[&str]) -> Document {
    let mut all: Vec<&str> = args.to_vec();
    all.push("--json");
    all.push("--quiet");
    let out = super::drivescope(&all);
    assert!(
        out.status.success(),
        "drivescope {:?} failed ({:?}): {}",
        args,
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    document_of(&out)
}

/// Run drivescope with `--json --quiet`; panics with stderr on failure; stdout as a `T`.
pub fn drivescope_record<T: FromDocument>(args: &[&str]) -> T {
    record_in(drivescope_doc(args))
}

/// A run as `drivescope runs --json` lists it: the store's columns, not the document (no
/// library type has this shape). Unknown fields are refused, so the listing cannot drift.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListedRun {
    pub id: i64,
    pub kind: Kind,
    /// `finished`, `running`, `interrupted`, `device_lost` (`RunStatus::as_str`).
    pub state: Option<String>,
    pub started_at: Option<String>,
    pub ended_at: Option<String>,
    pub host: Option<String>,
    pub tool_version: Option<String>,
    pub target: Option<String>,
    pub device: ListedDevice,
}

/// The device columns of a listed run.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListedDevice {
    pub model: Option<String>,
    pub serial: Option<String>,
    pub firmware: Option<String>,
    pub capacity: Option<i64>,
    pub transport: Option<String>,
    pub name: Option<String>,
}

/// The list `drivescope runs --json` printed.
pub fn listed_runs(out: &Output) -> Vec<ListedRun> {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not a list of runs ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

/// Assert the invariants every complete scan record must hold.
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
