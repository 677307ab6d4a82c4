//! A group screen side by side: one column per drive, one row per number (size, rates, latencies, bands,
//! slow commands, failed sectors, read-back errors, SMART, duration, verdict), the best and the worst of each row
//! marked. This is the model; the text, HTML and CSV render it.

use crate::compare::{marks, marks_beyond_noise, Cell, Mark};
use crate::metrics::Better;
use drivescope_probe::Smart;
use drivescope_record::{DeviceSummary, Grade, Member, ScanRecord, ScreenRecord};
use drivescope_units::{format_ns, format_size};
use serde::Serialize;

/// The head of a drive's column.
#[derive(Debug, Clone, Serialize)]
pub struct Head {
    /// The target as given.
    pub target: String,
    pub model: Option<String>,
    pub serial: Option<String>,
    pub grade: Option<Grade>,
}

/// One row: a number of every drive.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// Stable key (`mean_mb_per_s`, `band.<1ms`, …), the column name in CSV.
    pub key: String,
    /// Row label for people (unit included: the cells are bare numbers).
    pub label: String,
    pub cells: Vec<Cell>,
}

/// The side-by-side table of a screen.
#[derive(Debug, Clone, Serialize)]
pub struct Sheet {
    pub heads: Vec<Head>,
    pub rows: Vec<Row>,
}

/// Failed sectors as the verdict counts them: those that failed on their own, those of failed commands not
/// read one by one, and (a write scan's read-back) those that could not be read back.
pub fn failed_sectors(s: &ScanRecord) -> u64 {
    let lbs = (s.header.target.logical_block_size as u64).max(1);
    let single = s.failed_sectors();
    let unscraped = s.surface.as_ref().map_or_else(
        || {
            s.failed_extents_or_derived()
                .iter()
                .map(|e| e.unscraped)
                .sum()
        },
        |f| f.unscraped.max(f.failed.saturating_sub(single * lbs)),
    );
    let unreadable = s
        .verify
        .as_ref()
        .map_or(0, |v| v.totals.unreadable * v.unit.max(1) / lbs);
    single + unscraped.div_ceil(lbs) + unreadable
}

/// Sectors the read-back found wrong, misplaced or lost.
pub fn verify_errors(s: &ScanRecord) -> Option<u64> {
    let v = s.verify.as_ref()?;
    let per = (v.unit / (s.header.target.logical_block_size as u64).max(1)).max(1);
    Some((v.totals.wrong + v.totals.misplaced + v.totals.lost) * per)
}

/// A duration for a table cell, as every output writes a measured duration (`21.38 ms`, `45.20 s`,
/// `12m 30s`).
pub fn duration(ns: u64) -> String {
    drivescope_units::format_elapsed(ns)
}

impl Head {
    pub fn of(m: &Member) -> Head {
        let d = m
            .scan
            .as_ref()
            .and_then(|s| s.header.device.as_ref())
            .map(DeviceSummary::of)
            .unwrap_or_default();
        Head {
            target: m.target.clone(),
            model: d.model,
            serial: d.serial,
            grade: m.verdict.as_ref().map(|v| v.grade),
        }
    }
}

/// A row's value of one drive, and its text.
type Value = Option<(f64, String)>;

struct Builder<'a> {
    scans: Vec<Option<&'a ScanRecord>>,
    rows: Vec<Row>,
}

impl Builder<'_> {
    fn row(&mut self, key: &str, label: &str, better: Better, f: impl Fn(&ScanRecord) -> Value) {
        let values: Vec<Value> = self.scans.iter().map(|s| s.and_then(&f)).collect();
        self.push(key, label, better, values);
    }

    fn push(&mut self, key: &str, label: &str, better: Better, values: Vec<Value>) {
        // Values that print alike are alike: a difference the cells do not show is not marked.
        let nums: Vec<Option<f64>> = values
            .iter()
            .map(|v| {
                let (_, text) = v.as_ref()?;
                values.iter().flatten().find(|o| o.1 == *text).map(|o| o.0)
            })
            .collect();
        // Measured rows (rates, latencies, commands per band) are marked only beyond compare's
        // noise rule: 57.6 against 57.9 MB/s is the same drive twice. Counts of errors are
        // exact, and any difference in them is marked.
        let exact = key == "failed_sectors"
            || key == "verify_errors"
            || key == "band.failed"
            || key == "verdict"
            || key.starts_with("smart");
        let marked = if exact {
            marks(&nums, better)
        } else {
            marks_beyond_noise(&nums, better, 0.0)
        };
        let cells = values
            .into_iter()
            .zip(marked)
            .map(|(v, mark)| Cell {
                value: v.as_ref().map(|v| v.0),
                text: v.map_or("—".into(), |v| v.1),
                mark,
            })
            .collect();
        self.rows.push(Row {
            key: key.into(),
            label: label.into(),
            cells,
        });
    }
}

fn count(n: u64) -> Value {
    Some((n as f64, crate::format::thousands(n as f64)))
}

fn rate(v: f64) -> Value {
    Some((v, format!("{v:.1}")))
}

fn ns(v: u64) -> Value {
    Some((v as f64, format_ns(v)))
}

impl Sheet {
    pub fn new(r: &ScreenRecord) -> Sheet {
        use Better::*;
        let mut b = Builder {
            scans: r.members.iter().map(|m| m.scan.as_deref()).collect(),
            rows: Vec::new(),
        };
        let size = |s: &ScanRecord| Some((s.length as f64, format_size(s.length)));
        b.row("size", "size", Neither, size);
        b.row("mean_mb_per_s", "mean MB/s", Higher, |s| {
            rate(s.mb_per_s.mean)
        });
        b.row("min_mb_per_s", "min MB/s", Higher, |s| rate(s.mb_per_s.min));
        // Only where offsets are a medium's positions (a disk, not a file, memory or null); the row
        // is left out where no drive has one.
        let zone = |s: &ScanRecord| {
            s.zone_ratio
                .filter(|_| s.header.positions().is_ok())
                .map(|z| (z, format!("{z:.2}")))
        };
        if b.scans.iter().flatten().any(|s| zone(s).is_some()) {
            b.row("zone_ratio", "zone ratio", Neither, zone);
        }
        let pct = |s: &ScanRecord, q: &str| s.latency.percentiles_ns.get(q).copied();
        b.row("p50_ns", "p50", Lower, |s| ns(pct(s, "50")?));
        b.row("p99_ns", "p99", Lower, |s| ns(pct(s, "99")?));
        b.row("max_ns", "max latency", Lower, |s| ns(s.latency.max_ns));
        let labels: Vec<String> = r
            .members
            .iter()
            .filter_map(|m| m.scan.as_ref())
            .flat_map(|s| s.bands.iter().map(|b| b.label.clone()))
            .fold(Vec::new(), |mut v, l| {
                if !v.contains(&l) {
                    v.push(l);
                }
                v
            });
        for (i, l) in labels.iter().enumerate() {
            let better = if i == 0 { Higher } else { Lower };
            let label = if l == "failed" { "failed cmds" } else { l };
            b.row(&format!("band.{l}"), label, better, |s| {
                count(s.bands.iter().find(|b| b.label == *l)?.count)
            });
        }
        b.row("slow_commands", "slow commands", Lower, |s| {
            count(s.slow_total)
        });
        b.row("failed_sectors", "failed sectors", Lower, |s| {
            count(failed_sectors(s))
        });
        if r.verify
            || r.members
                .iter()
                .any(|m| m.scan.as_ref().is_some_and(|s| s.verify.is_some()))
        {
            b.row("verify_errors", "verify errors", Lower, |s| {
                count(verify_errors(s)?)
            });
        }
        smart_rows(&mut b, r);
        b.row("duration_ns", "duration", Neither, |s| {
            Some((s.duration_ns as f64, duration(s.duration_ns)))
        });
        let grades: Vec<Value> = r
            .members
            .iter()
            .map(|m| {
                let g = m.verdict.as_ref()?.grade;
                Some((g as u8 as f64, g.as_str().to_string()))
            })
            .collect();
        b.push("verdict", "verdict", Lower, grades);
        Sheet {
            heads: r.members.iter().map(Head::of).collect(),
            rows: b.rows,
        }
    }

    /// True when some cell of the sheet is marked best or worst.
    pub fn marked(&self) -> bool {
        self.rows
            .iter()
            .any(|r| r.cells.iter().any(|c| c.mark != Mark::None))
    }
}

/// The SMART counts a screen reads before and after each scan, as table rows: key, label, field.
/// A count of a SMART reading.
type Count = fn(&Smart) -> Option<u64>;

const SMART_COUNTS: [(&str, &str, Count); 6] = [
    ("smart.reallocated_sectors", "reallocated", |s| {
        s.reallocated_sectors
    }),
    ("smart.pending_sectors", "pending", |s| s.pending_sectors),
    ("smart.offline_uncorrectable", "uncorrectable", |s| {
        s.offline_uncorrectable
    }),
    ("smart.crc_errors", "CRC errors", |s| s.crc_errors),
    ("smart.media_errors", "media errors", |s| s.media_errors),
    ("smart.critical_warning", "crit. warning", |s| {
        s.critical_warning
    }),
];

/// SMART of each drive, when the screen read it: whether it was read (a drive SMART could not reach says
/// `not read` here, once), then each count some drive reported, after the scan (`before → after` when it
/// changed).
fn smart_rows(b: &mut Builder, r: &ScreenRecord) {
    let read = |m: &Member| m.smart_before.is_some() || m.smart_after.is_some();
    if !r.members.iter().any(read) {
        return;
    }
    let status = r
        .members
        .iter()
        .map(|m| match (read(m), m.smart_latest()) {
            (false, _) => None,
            (true, Some(_)) => Some((1.0, "read".to_string())),
            (true, None) => Some((0.0, "not read".to_string())),
        })
        .collect();
    b.push("smart", "SMART", Better::Neither, status);
    for (key, label, field) in SMART_COUNTS {
        let values: Vec<Value> = r
            .members
            .iter()
            .map(|m| {
                let now = field(m.smart_latest()?)?;
                let was = m.smart_before.as_ref().filter(|s| s.read).and_then(field);
                let text = match was {
                    Some(w) if w != now => format!("{w} → {now}"),
                    _ if key == "smart.critical_warning" => format!("{now:#04x}"),
                    _ => crate::format::thousands(now as f64),
                };
                Some((now as f64, text))
            })
            .collect();
        if values.iter().any(Option::is_some) {
            b.push(key, label, Better::Lower, values);
        }
    }
}

/// The CSV rows of the drives: one per drive, the sheet's numbers by their keys, and the drive's identity
/// and verdict (its grade and the rule that decided it).
pub fn member_rows(r: &ScreenRecord) -> Vec<serde_json::Value> {
    member_table(r).1
}

/// The columns of [`member_rows`] in the order the text shows them (bands from the fastest up),
/// and the rows.
pub fn member_table(r: &ScreenRecord) -> (Vec<String>, Vec<serde_json::Value>) {
    let sheet = Sheet::new(r);
    let mut cols: Vec<String> = ["index", "target", "run", "model", "serial", "error"]
        .iter()
        .map(|c| c.to_string())
        .collect();
    cols.extend(
        sheet
            .rows
            .iter()
            .filter(|r| r.key != "verdict")
            .map(|r| r.key.clone()),
    );
    cols.extend(["grade".to_string(), "rule".to_string()]);
    (cols, member_values(r, &sheet))
}

/// A whole number as an integer (counts, bytes, nanoseconds: `1024`, not `1024.0`).
fn number(v: Option<f64>) -> serde_json::Value {
    match v {
        Some(x) if x.fract() == 0.0 && x.abs() < 9.0e15 => serde_json::Value::from(x as i64),
        other => other.into(),
    }
}

fn member_values(r: &ScreenRecord, sheet: &Sheet) -> Vec<serde_json::Value> {
    r.members
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let h = &sheet.heads[i];
            let mut o = serde_json::Map::new();
            o.insert("index".into(), i.into());
            o.insert("target".into(), m.target.clone().into());
            o.insert("run".into(), m.run.into());
            o.insert("model".into(), h.model.clone().into());
            o.insert("serial".into(), h.serial.clone().into());
            o.insert("error".into(), m.error.clone().into());
            for row in &sheet.rows {
                if row.key == "verdict" {
                    continue;
                }
                o.insert(row.key.clone(), number(row.cells[i].value));
            }
            let v = m.verdict.as_ref();
            o.insert("grade".into(), v.map(|v| v.grade.as_str()).into());
            let rule = v
                .and_then(|v| v.reasons.first())
                .and_then(|r| serde_json::to_value(&r.rule).ok());
            o.insert("rule".into(), rule.unwrap_or_default());
            serde_json::Value::Object(o)
        })
        .collect()
}

/// The CSV rows of the shared path: each drive alone and together.
pub fn shared_rows(sp: &drivescope_record::SharedPath, r: &ScreenRecord) -> Vec<serde_json::Value> {
    r.members
        .iter()
        .enumerate()
        .map(|(i, m)| {
            serde_json::json!({
                "index": i,
                "target": m.target,
                "alone_mb_per_s": sp.alone_mb_per_s.get(i),
                "together_mb_per_s": sp.together_mb_per_s.get(i),
            })
        })
        .collect()
}
