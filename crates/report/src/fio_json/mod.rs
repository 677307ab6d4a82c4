//! fio's `--output-format=json+` shape for drivescope's runs, so that scripts and dashboards built around fio
//! (and fio's own readers, such as `fio_jsonplus_clat2csv`) read them.
//!
//! One job per bench test, sweep cell, soak or scan, each its own group. The direction that did the work has
//! its amounts, rates (`bw` in KiB/s, `bw_bytes` in B/s, `iops`, `runtime` in ms), completion latency
//! (`clat_ns`) and, where the record has them, submission (`slat_ns`) and total (`lat_ns`) latency; the
//! others are zero, as fio writes them. Where the record keeps its latency histogram (scans, bench tests) the
//! completion latency carries fio's full percentile list and `bins`: one bin per non-empty bucket of ours, at
//! the bucket's midpoint (the value our percentiles report), so the counts are exact. See docs/json.md.

mod clock;
mod job;
mod latency;
mod section;
#[cfg(test)]
mod tests;

pub use job::Job;
pub use latency::{bin_value, FIO_PERCENTILES, FIO_TOP_BIN_NS};

use drivescope_record::{Document, Header, Kind};
use serde::ser::{Serialize, SerializeMap, Serializer};

/// A JSON object whose keys keep the order they were given in.
#[derive(Debug, Clone, PartialEq)]
pub struct Ordered<V>(pub Vec<(String, V)>);

impl<V: Serialize> Serialize for Ordered<V> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

/// The top of an fio json+ document.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct FioDocument {
    /// The program that wrote the results: `drivescope-0.1.0`.
    #[serde(rename = "fio version")]
    pub version: String,
    /// When the run ended, Unix seconds.
    pub timestamp: u64,
    pub timestamp_ms: u64,
    /// The same, as a ctime-style line (UTC).
    pub time: String,
    #[serde(rename = "global options")]
    pub global: Ordered<String>,
    pub jobs: Vec<Job>,
}

/// A document fio's shape has no jobs for: an info or lab document, a kind of a newer version, or a run this
/// version cannot read as its record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsupported {
    pub kind: Kind,
    /// Why a document of a run's kind did not read as its record.
    pub why: Option<String>,
}

impl std::fmt::Display for Unsupported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.why {
            Some(why) if is_run(&self.kind) => {
                write!(
                    f,
                    "the {} document does not read as a run record: {why}",
                    self.kind
                )
            }
            _ => write!(
                f,
                "fio json+ export covers bench, sweep, soak and scan runs, not a {} document",
                self.kind
            ),
        }
    }
}

fn is_run(kind: &Kind) -> bool {
    matches!(
        kind,
        Kind::Scan | Kind::QuickScan | Kind::Bench | Kind::Sweep | Kind::Soak
    )
}

impl std::error::Error for Unsupported {}

/// The fio json+ document of a run.
pub fn document(doc: &Document) -> Result<FioDocument, Unsupported> {
    let (header, global, jobs): (&Header, Vec<(&str, String)>, Vec<Job>) = match doc {
        Document::Bench(b) => (
            &b.header,
            workload_options(&b.header, b.workload.size, b.workload.direct),
            b.tests
                .iter()
                .enumerate()
                .map(|(i, t)| job::bench_test(b, t, i as u32))
                .collect(),
        ),
        Document::Sweep(s) => (
            &s.header,
            workload_options(&s.header, s.workload.size, s.workload.direct),
            s.cells
                .iter()
                .enumerate()
                .map(|(i, c)| job::sweep_cell(s, c, i as u32))
                .collect(),
        ),
        Document::Soak(s) => (
            &s.header,
            workload_options(&s.header, s.workload.size, s.workload.direct),
            vec![job::soak(s)],
        ),
        Document::Scan(s) => (
            &s.header,
            vec![("filename", s.header.target.path.clone())],
            vec![job::scan(s)],
        ),
        Document::Info(_) => {
            return Err(Unsupported {
                kind: Kind::Info,
                why: None,
            })
        }
        Document::Diagnose(_) => {
            return Err(Unsupported {
                kind: Kind::Diagnose,
                why: None,
            })
        }
        Document::Screen(_) => {
            return Err(Unsupported {
                kind: Kind::Screen,
                why: None,
            })
        }
        Document::Time(_) => {
            return Err(Unsupported {
                kind: Kind::Time,
                why: None,
            })
        }
        Document::Capacity(_) => {
            return Err(Unsupported {
                kind: Kind::Capacity,
                why: None,
            })
        }
        Document::Steady(_) => {
            return Err(Unsupported {
                kind: Kind::Steady,
                why: None,
            })
        }
        Document::Durability(_) => {
            return Err(Unsupported {
                kind: Kind::Durability,
                why: None,
            })
        }
        Document::Replay(_) => {
            return Err(Unsupported {
                kind: Kind::Replay,
                why: None,
            })
        }
        Document::Multi(_) => {
            return Err(Unsupported {
                kind: Kind::Multi,
                why: None,
            })
        }
        Document::Unknown { kind, why, .. } => {
            return Err(Unsupported {
                kind: kind.clone(),
                why: Some(why.clone()),
            })
        }
    };
    let ms = clock::unix_ms(&header.ended_at)
        .or_else(|| clock::unix_ms(&header.started_at))
        .unwrap_or(0);
    Ok(FioDocument {
        version: format!("{}-{}", header.tool.name, header.tool.version),
        timestamp: ms / 1000,
        timestamp_ms: ms,
        time: clock::ctime(ms),
        global: Ordered(
            global
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
        ),
        jobs,
    })
}

fn workload_options(h: &Header, size: u64, direct: bool) -> Vec<(&'static str, String)> {
    vec![
        ("filename", h.target.path.clone()),
        ("size", size.to_string()),
        ("direct", u8::from(direct).to_string()),
    ]
}

/// The fio json+ document of a run, as text.
pub fn to_string(doc: &Document) -> Result<String, Unsupported> {
    let fio = document(doc)?;
    Ok(serde_json::to_string_pretty(&fio).expect("plain values always serialize") + "\n")
}

/// The fio json+ format: one run as fio's `--output-format=json+` document.
pub struct FioJson;

impl crate::Exporter for FioJson {
    fn export(&self, runs: &[crate::Run], out: &mut dyn std::io::Write) -> crate::Result<()> {
        let run = crate::exporter::one("fio json+", runs)?;
        out.write_all(to_string(&run.doc)?.as_bytes())?;
        Ok(())
    }
}
