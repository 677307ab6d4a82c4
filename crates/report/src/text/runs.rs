//! The listing of stored runs (`drivescope runs`): one row per run, newest first as the store lists them,
//! with each run's headline result and how long it took, fitted to the terminal's width.

use drivescope_record::{DeviceSummary, Document, Grade};
use drivescope_units::{format_elapsed, format_iops, format_latency, format_rate};

/// A stored run as the listing shows it: the store's columns, and what the document says.
#[derive(Debug, Clone, Default)]
pub struct ListedRun {
    pub id: i64,
    pub kind: String,
    /// How the run ended: `finished`, `interrupted`, `device lost`, `running`.
    pub state: Option<String>,
    pub started_at: Option<String>,
    pub ended_at: Option<String>,
    pub device: DeviceSummary,
    pub target: Option<String>,
    pub host: Option<String>,
    /// The run's headline result (see [`headline`]).
    pub result: Option<String>,
    /// How long the run took, as it measured it (see [`took`]).
    pub took_ns: Option<u64>,
    /// Which drive the run is of ([`drivescope_record::drive_key`]): runs on one kernel name
    /// with different keys are different devices.
    pub drive: Option<String>,
    /// What tells a serial-less device from others under its kernel name (`hdd-7200.img,
    /// 256.0 MiB`), shown beside its name.
    pub facts: Option<String>,
}

/// The number a person tells one run from another by: the mean rate of a scan or soak, the best
/// rate of a bench's first test, a sweep's peak IOPS, a screen's verdicts, the findings of a
/// diagnosis, the median time of a timed command, a capacity's class.
pub fn headline(doc: &Document) -> Option<String> {
    let findings = |n: usize| format!("{n} finding{}", if n == 1 { "" } else { "s" });
    Some(match doc {
        Document::Scan(r) => format_rate(r.mb_per_s.mean),
        Document::Bench(r) => {
            let t = r.tests.first()?;
            format!("{} {} {}", format_rate(t.mb_per_s), t.name, t.rw)
        }
        Document::Sweep(r) => format_iops(r.cells.iter().map(|c| c.iops).reduce(f64::max)?),
        Document::Soak(r) => format_rate(r.mb_per_s),
        Document::Diagnose(r) => findings(r.header.findings.len()),
        Document::Screen(r) => {
            let mut parts = Vec::new();
            for g in [Grade::Pass, Grade::Warn, Grade::Incomplete, Grade::Fail] {
                let n = r
                    .members
                    .iter()
                    .filter(|m| m.verdict.as_ref().is_some_and(|v| v.grade == g))
                    .count();
                if n > 0 {
                    parts.push(format!("{n} {}", g.as_str()));
                }
            }
            if parts.is_empty() {
                return None;
            }
            parts.join(", ")
        }
        Document::Time(r) => {
            let m = r.modes.first()?;
            format!(
                "{} {}",
                m.mode.as_str(),
                format_latency(m.summary.wall_ns.median)
            )
        }
        Document::Multi(r) => {
            let t = r.tests.first()?;
            format!("{} {} {}", format_rate(t.mb_per_s), t.name, t.rw)
        }
        Document::Capacity(r) => r.class?.as_str().replace('_', " "),
        Document::Steady(r) => match r.steady_value {
            Some(v) => format!("{} steady", super::format_tracked(r, v)),
            None => r.verdict.state_label().to_string(),
        },
        Document::Durability(r) => {
            let f = r.data.flush_honesty.as_ref()?;
            format!("flush {}", f.verdict.as_str().replace('_', " "))
        }
        Document::Replay(r) => match r.io_ratio() {
            Some(x) => format!("I/O time x{x:.2} of traced"),
            None => return None,
        },
        Document::Info(_) | Document::Unknown { .. } => return None,
    })
}

/// How long the run took as it measured it, where its record says.
pub fn took(doc: &Document) -> Option<u64> {
    match doc {
        Document::Scan(r) => Some(r.duration_ns),
        Document::Soak(r) => Some(r.duration_ns),
        Document::Diagnose(r) => Some(r.elapsed_ns),
        Document::Screen(r) => Some(r.duration_ns),
        Document::Time(r) => Some(r.duration_ns),
        Document::Replay(r) => Some(r.replayed.wall_ns),
        _ => None,
    }
}

/// Seconds between two RFC 3339 stamps of the store.
fn between(start: &str, end: &str) -> Option<u64> {
    let s = humantime::parse_rfc3339_weak(start).ok()?;
    let e = humantime::parse_rfc3339_weak(end).ok()?;
    e.duration_since(s).ok().map(|d| d.as_secs())
}

/// The duration column: the measured one, else the stamps' difference in whole seconds.
fn duration(r: &ListedRun) -> String {
    if let Some(ns) = r.took_ns {
        return format_elapsed(ns);
    }
    match (r.started_at.as_deref(), r.ended_at.as_deref()) {
        (Some(s), Some(e)) => match between(s, e) {
            Some(0) => "< 1 s".into(),
            Some(secs) => format_elapsed(secs * 1_000_000_000),
            None => "-".into(),
        },
        _ => "-".into(),
    }
}

/// The device as the listing names it: its model and serial, or its kernel name and serial
/// (`vda (overlayblk)`), so a serial never stands alone as if it were a model; a serial-less
/// device by its name and what tells it from others under that name (`loop0 (hdd-7200.img,
/// 256.0 MiB)`); `-` for none.
fn device(d: &DeviceSummary, facts: Option<&str>) -> String {
    if let (None, Some(f)) = (&d.serial, facts) {
        let name = d.name.clone().or_else(|| d.label()).unwrap_or_default();
        return format!("{name} ({f})").trim_start().to_string();
    }
    match (&d.model, &d.name, &d.serial) {
        (Some(_), _, _) => d.label().unwrap_or_default(),
        (None, Some(n), Some(s)) => format!("{n} ({s})"),
        (None, Some(n), None) => n.clone(),
        (None, None, Some(s)) => format!("serial {s}"),
        (None, None, None) => "-".into(),
    }
}

/// `text` cut to `width` characters in its middle (`/mnt/data/…/run.img`), whole when it fits.
pub fn middle(text: &str, width: usize) -> String {
    let n = text.chars().count();
    if n <= width {
        return text.to_string();
    }
    if width <= 1 {
        return "…".chars().take(width).collect();
    }
    let keep = width - 1;
    let head = keep / 2;
    let tail = keep - head;
    let chars: Vec<char> = text.chars().collect();
    let mut out: String = chars[..head].iter().collect();
    out.push('…');
    out.extend(&chars[n - tail..]);
    out
}

/// `text` cut to `width` characters at its end (`1367.9 MB/s SEQ…`), whole when it fits.
fn end(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let mut out: String = text.chars().take(width.saturating_sub(1)).collect();
    out.push('…');
    out
}

const HEADS: [&str; 9] = [
    "run", "kind", "state", "started", "took", "result", "device", "target", "host",
];
/// The columns that give way, narrowest first, when the table is wider than the terminal.
const TARGET: usize = 7;
const DEVICE: usize = 6;
const RESULT: usize = 5;
const HOST: usize = 8;
const NARROWEST: usize = 12;

/// The table: run, kind, state, started, took, result, device, target, host; unknown values as
/// `-`. Each column as wide as its widest value; with `width` (the terminal's), until the rows
/// fit: the target and the device are cut in their middle (down to 12 characters each), the
/// host is left out, and the result is cut at its end (down to 12 characters).
pub fn runs(list: &[ListedRun], width: Option<usize>) -> String {
    let o = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
    let rows: Vec<[String; 9]> = list
        .iter()
        .map(|r| {
            [
                r.id.to_string(),
                r.kind.clone(),
                o(&r.state),
                o(&r.started_at),
                duration(r),
                o(&r.result),
                device(&r.device, r.facts.as_deref()),
                o(&r.target),
                o(&r.host),
            ]
        })
        .collect();
    let mut widths: Vec<usize> = HEADS
        .iter()
        .enumerate()
        .map(|(i, h)| {
            rows.iter()
                .map(|r| r[i].chars().count())
                .chain([h.chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut columns = HEADS.len();
    if let Some(width) = width {
        let total = |w: &[usize]| w.iter().sum::<usize>() + 2 * (w.len() - 1);
        for col in [TARGET, DEVICE, HOST, RESULT] {
            let over = total(&widths[..columns]).saturating_sub(width);
            if over == 0 {
                break;
            }
            if col == HOST {
                // The column a listing on one machine needs least.
                columns = HEADS.len() - 1;
            } else if widths[col] > NARROWEST {
                widths[col] = widths[col].saturating_sub(over).max(NARROWEST);
            }
        }
    }
    let mut out = String::new();
    let mut line = |cells: &[String]| {
        let mut l = String::new();
        for (i, c) in cells.iter().take(columns).enumerate() {
            // A result keeps its number: cut at its end; paths and names in their middle.
            let c = if i == RESULT {
                end(c, widths[i])
            } else {
                middle(c, widths[i])
            };
            let pad = widths[i] - c.chars().count();
            if i > 0 {
                l += "  ";
            }
            // Numbers to the right, words to the left.
            if i == 0 || i == 4 {
                l += &" ".repeat(pad);
                l += &c;
            } else {
                l += &c;
                l += &" ".repeat(pad);
            }
        }
        out += l.trim_end();
        out += "\n";
    };
    line(&HEADS.map(String::from));
    for r in &rows {
        line(r);
    }
    out + &not_the_same(list)
}

/// A line for each target path that held different serial-less devices among the listed runs
/// (lab disks served as /dev/loop0 in turn): their histories are not one device's. Devices with
/// serial numbers say which they are in the device column already.
fn not_the_same(list: &[ListedRun]) -> String {
    let mut paths: Vec<(&str, Vec<&str>)> = Vec::new();
    for r in list.iter().filter(|r| r.device.serial.is_none()) {
        let (Some(path), Some(drive)) = (r.target.as_deref(), r.drive.as_deref()) else {
            continue;
        };
        match paths.iter_mut().find(|(p, _)| *p == path) {
            Some((_, drives)) if !drives.contains(&drive) => drives.push(drive),
            Some(_) => {}
            None => paths.push((path, vec![drive])),
        }
    }
    paths
        .iter()
        .filter(|(_, drives)| drives.len() > 1)
        .map(|(path, drives)| {
            format!(
                "note: {path} held {} different devices in these runs: not the same device, \
                 told apart by the device column\n",
                drives.len()
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan_row() -> ListedRun {
        ListedRun {
            id: 12,
            kind: "scan".into(),
            state: Some("interrupted".into()),
            started_at: Some("2026-11-02T10:00:00Z".into()),
            ended_at: Some("2026-11-02T10:03:12Z".into()),
            device: DeviceSummary {
                model: Some("ACME HD4000".into()),
                serial: Some("S1".into()),
                ..DeviceSummary::default()
            },
            target: Some("/dev/sdb".into()),
            host: Some("lab".into()),
            result: Some("150.7 MB/s".into()),
            took_ns: Some(192_400_000_000),
            drive: Some("S1".into()),
            facts: None,
        }
    }

    #[test]
    fn rows_line_up_and_unknowns_are_dashes() {
        let list = [
            scan_row(),
            ListedRun {
                id: 3,
                kind: "bench".into(),
                ..ListedRun::default()
            },
        ];
        let text = runs(&list, None);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(
            lines[0],
            "run  kind   state        started                 took  result      device            target    host"
        );
        assert_eq!(
            lines[1],
            " 12  scan   interrupted  2026-11-02T10:00:00Z  3m 12s  150.7 MB/s  ACME HD4000 (S1)  /dev/sdb  lab"
        );
        assert_eq!(
            lines[2],
            "  3  bench  -            -                          -  -           -                 -         -"
        );
    }

    #[test]
    fn a_long_target_is_cut_in_its_middle_to_fit_the_width() {
        let mut r = scan_row();
        r.target = Some(format!("/mnt/{}/scratch.img", "deep/".repeat(20)));
        let wide = runs(std::slice::from_ref(&r), None);
        let narrow = runs(std::slice::from_ref(&r), Some(100));
        assert!(wide.lines().nth(1).unwrap().chars().count() > 100);
        for l in narrow.lines() {
            assert!(l.chars().count() <= 100, "{l}");
        }
        let row = narrow.lines().nth(1).unwrap();
        assert!(
            row.contains("  /mnt/") && row.contains("…ch.img  "),
            "{row}"
        );
        assert!(row.ends_with("  lab"), "{row}");
        // Narrower still: the host goes, then the result is cut at its end.
        r.result = Some("1367.9 MB/s SEQ1M Q1T1 read".into());
        let tight = runs(std::slice::from_ref(&r), Some(90));
        let row = tight.lines().nth(1).unwrap();
        assert!(
            !row.ends_with("lab") && row.contains("  1367.9 MB/s…  "),
            "{tight}"
        );
        assert!(!tight.lines().next().unwrap().contains("host"), "{tight}");
    }

    #[test]
    fn a_serial_never_stands_as_a_model_and_durations_come_from_the_stamps() {
        let mut r = scan_row();
        r.device = DeviceSummary {
            serial: Some("overlayblk".into()),
            name: Some("vda".into()),
            ..DeviceSummary::default()
        };
        r.took_ns = None;
        let t = runs(&[r.clone()], None);
        assert!(t.contains("  vda (overlayblk)  "), "{t}");
        assert!(t.contains("  3m 12s  "), "{t}");
        r.ended_at = r.started_at.clone();
        assert!(runs(&[r], None).contains("  < 1 s  "));
        assert_eq!(middle("abcdefghij", 5), "ab…ij");
        assert_eq!(middle("abc", 5), "abc");
    }
}
