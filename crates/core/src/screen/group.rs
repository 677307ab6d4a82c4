//! The group's document: its header over every drive, a member per drive, each drive's scan (or
//! why it has none) put into its member as it ends, and whether the group was stopped early.

use super::DriveError;
use crate::scan::ScanRecord;
use crate::target::Target;
use drivescope_probe::Identity;
use drivescope_record::{Header, Kind, Member, ScreenRecord, TargetInfo};

/// The group's header: every target named, their sizes summed, the largest sector size.
pub fn header(specs: &[String], targets: &[Target], started_at: String) -> Header {
    let total: u64 = targets.iter().map(|t| t.size).sum();
    Header::new(
        Kind::Screen,
        TargetInfo {
            path: specs.join(", "),
            kind: targets
                .first()
                .map_or(drivescope_record::TargetType::Null, |t| t.info().kind),
            size: total,
            logical_block_size: targets
                .iter()
                .map(|t| t.logical_block_size)
                .max()
                .unwrap_or(512),
        },
        drivescope_record::hostname(),
        started_at,
    )
}

/// A drive of a new group, before its scan, with the arrays the system shows it in.
pub fn new_member(target: &str) -> Member {
    let roots = drivescope_probe::Roots::default();
    Member {
        arrays: drivescope_probe::arrays_of(std::path::Path::new(target), &roots),
        target: target.to_string(),
        run: None,
        scan: None,
        error: None,
        history: None,
        smart_before: None,
        smart_after: None,
        verdict: None,
    }
}

/// A drive's scan result (or snapshot) into its member: the scan with its device and the run
/// it continues, or why it ended without one (a resumed drive keeps the scan it had).
pub fn set_result(
    m: &mut Member,
    state: Result<ScanRecord, DriveError>,
    device: Option<Identity>,
    continues: Option<i64>,
) {
    match state {
        Ok(mut rec) => {
            rec.header.device = device;
            rec.resumed_from = continues;
            m.run = None;
            m.scan = Some(Box::new(rec));
            m.error = None;
        }
        Err(e) => m.error = Some(e.to_string()),
    }
}

/// The stored scan that a member's resumed scan continues: the member's own run, else the one
/// its scan (a checkpoint's snapshot, not stored by itself) continued.
pub fn continues(prior: Option<&ScanRecord>, m: &Member) -> Option<i64> {
    prior.and_then(|p| m.run.or(p.resumed_from))
}

/// Whether the group was stopped early: a drive's scan was (a lost drive ended, it was not stopped).
pub fn interrupted(rec: &ScreenRecord) -> bool {
    rec.members.iter().any(|m| {
        m.scan
            .as_ref()
            .is_some_and(|s| s.interrupted && s.device_lost.is_none())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::{self, ScanConfig};
    use std::sync::atomic::AtomicBool;

    fn null_scan(size: &str, stopped: bool) -> ScanRecord {
        let t = Target::open_read(size).unwrap();
        let stop = AtomicBool::new(stopped);
        scan::run(
            &crate::engine::Live(&t),
            &t,
            scan::Start::New(&ScanConfig::default()),
            scan::Observer::new(&stop),
        )
        .unwrap()
    }

    #[test]
    fn the_header_names_every_drive_and_sums_their_sizes() {
        let t = [
            Target::open_read("null:1M").unwrap(),
            Target::open_read("null:3M").unwrap(),
        ];
        let specs = vec!["null:1M".to_string(), "null:3M".to_string()];
        let h = header(&specs, &t, "2026-11-25T00:00:00Z".into());
        assert_eq!(h.kind, Kind::Screen);
        assert_eq!(h.target.path, "null:1M, null:3M");
        assert_eq!(h.target.size, 4 << 20);
        assert_eq!(h.started_at, h.ended_at);
    }

    #[test]
    fn a_result_fills_its_member_and_an_error_keeps_a_resumed_drives_scan() {
        let mut m = new_member("null:1M");
        m.run = Some(7);
        set_result(&mut m, Ok(null_scan("null:1M", false)), None, Some(3));
        let s = m.scan.as_ref().unwrap();
        assert_eq!((m.run, s.resumed_from, s.covered), (None, Some(3), 1 << 20));
        set_result(&mut m, Err(DriveError::Panicked), None, None);
        assert!(m.scan.is_some(), "the scan it had stays");
        assert_eq!(
            m.error.as_deref(),
            Some("the drive's scan stopped on an internal error")
        );
    }

    #[test]
    fn a_group_is_interrupted_when_a_drive_was_stopped_not_when_one_was_lost() {
        let member = |s: ScanRecord| Member {
            scan: Some(Box::new(s)),
            ..new_member("null:1M")
        };
        let t = [Target::open_read("null:1M").unwrap()];
        let mut rec = ScreenRecord {
            header: header(&["null:1M".into()], &t, "2026-11-25T00:00:00Z".into()),
            members: vec![member(null_scan("null:1M", false))],
            shared_path: None,
            criteria: Default::default(),
            write: false,
            verify: false,
            interrupted: false,
            duration_ns: 0,
            resumed_from: None,
            checkpoint: None,
        };
        assert!(!interrupted(&rec));
        let mut lost = null_scan("null:1M", true);
        lost.device_lost = Some("gone".into());
        rec.members.push(member(lost));
        assert!(!interrupted(&rec), "a lost drive ended; it was not stopped");
        rec.members.push(member(null_scan("null:1M", true)));
        assert!(interrupted(&rec));
    }
}
