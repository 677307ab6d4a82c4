//! The listing of stored runs (`drivescope runs`): one row per run, newest first as the store lists them.

use drivescope_record::DeviceSummary;
use std::fmt::Write as _;

/// A stored run as the listing shows it: the store's columns, not the document.
#[derive(Debug, Clone, Default)]
pub struct ListedRun {
    pub id: i64,
    pub kind: String,
    /// How the run ended: `finished`, `interrupted`, `device lost`, `running`.
    pub state: Option<String>,
    pub started_at: Option<String>,
    pub device: DeviceSummary,
    pub target: Option<String>,
    pub host: Option<String>,
}

/// The table: run, kind, state, started, device, target, host; unknown values as `-`.
pub fn runs(list: &[ListedRun]) -> String {
    let mut out = format!(
        "{:>5}  {:<10}  {:<11}  {:<20}  {:<36}  {:<16}  host\n",
        "run", "kind", "state", "started", "device", "target"
    );
    for r in list {
        let device = r.device.label().unwrap_or_else(|| "-".into());
        let o = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
        let _ = writeln!(
            out,
            "{:>5}  {:<10}  {:<11}  {:<20}  {:<36}  {:<16}  {}",
            r.id,
            r.kind,
            o(&r.state),
            o(&r.started_at),
            device,
            o(&r.target),
            o(&r.host)
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_line_up_and_unknowns_are_dashes() {
        let list = [
            ListedRun {
                id: 12,
                kind: "scan".into(),
                state: Some("interrupted".into()),
                started_at: Some("2026-11-02T10:00:00Z".into()),
                device: DeviceSummary {
                    model: Some("ACME HD4000".into()),
                    serial: Some("S1".into()),
                    ..DeviceSummary::default()
                },
                target: Some("/dev/sdb".into()),
                host: Some("lab".into()),
            },
            ListedRun {
                id: 3,
                kind: "bench".into(),
                ..ListedRun::default()
            },
        ];
        let text = runs(&list);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(
            lines[1],
            "   12  scan        interrupted  2026-11-02T10:00:00Z  ACME HD4000 (S1)                      /dev/sdb          lab"
        );
        assert_eq!(
            lines[2],
            "    3  bench       -            -                     -                                     -                 -"
        );
        let host = |l: &str| l.find("host").or_else(|| l.rfind("lab"));
        assert_eq!(host(lines[0]), host(lines[1]));
    }
}
