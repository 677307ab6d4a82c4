//! A group screen: hard disks of one model scanned at once behind one host adapter, one with failed sectors
//! and one with many slow commands, and the shared path they read through. The verdicts and the finding are
//! written as the analysis words them for these numbers.

use super::scan;
use drivescope_probe::{BlockInfo, BlockRole, Hardware, Identity, Transport};
use drivescope_record::{
    Confidence, Criteria, Direction, DriveVerdict, Finding, FindingCode, Grade, Header, Kind,
    Member, Reason, Rule, ScreenRecord, SharedPath, TargetInfo, TargetType,
};

/// Bytes of each drive.
const SIZE: u64 = 1 << 40;

/// Disk `sd{letter}`, model `ACME HD4000`, serial `SCR-SSSS-N`.
fn disk(letter: char, serial: String) -> Identity {
    let name = format!("sd{letter}");
    let mut b = BlockInfo::new(
        &name,
        format!("/dev/{name}").into(),
        BlockRole::Disk,
        Transport::Sata,
    );
    b.size_bytes = Some(SIZE);
    b.logical_sector_size = Some(512);
    b.rotational = Some(true);
    b.hardware = Some(Hardware {
        vendor: Some("ACME".into()),
        model: Some("ACME HD4000".into()),
        serial: Some(serial),
        firmware: Some("01.01A01".into()),
        rotation_rate_rpm: Some(7200),
        ..Hardware::default()
    });
    Identity::of_block(b)
}

fn reason(rule: Rule, grade: Grade, text: String) -> DriveVerdict {
    DriveVerdict {
        grade,
        reasons: vec![Reason { rule, grade, text }],
    }
}

/// `drives` drives `/dev/sdb`, `/dev/sdc`, …: the second (when there are two or more) has 3 failed sectors,
/// the third 25 slow commands; the others 2 slow commands each. Together they read 60 % of their sum alone.
pub fn screen(seed: u64, drives: usize) -> ScreenRecord {
    let mut members = Vec::new();
    for i in 0..drives {
        let letter = (b'b' + i as u8) as char;
        let (slow, failed) = match i {
            1 => (2, 3),
            2 => (25, 0),
            _ => (2, 0),
        };
        let mut s = scan(
            seed * 16 + i as u64,
            SIZE,
            1000,
            slow,
            failed,
            Direction::Read,
        );
        s.header.target.path = format!("/dev/sd{letter}");
        s.header.device = Some(disk(letter, format!("SCR-{seed:04}-{i}")));
        let verdict = match (failed, slow) {
            (0, 0..=10) => DriveVerdict {
                grade: Grade::Pass,
                reasons: Vec::new(),
            },
            (0, n) => reason(
                Rule::SlowCommands,
                Grade::Warn,
                format!(
                    "{n} commands took 50.00 ms or longer, the first at offset {}: more than the 10 allowed",
                    s.slow_regions[0].offset
                ),
            ),
            (n, _) => reason(
                Rule::FailedSectors,
                Grade::Fail,
                format!(
                    "{n} unreadable sectors, the first at offset {} (LBA {}): more than the 0 allowed",
                    s.failed[0].offset, s.failed[0].lba
                ),
            ),
        };
        members.push(Member {
            target: s.header.target.path.clone(),
            run: Some(100 + i as i64),
            scan: Some(Box::new(s)),
            error: None,
            history: None,
            smart_before: None,
            smart_after: None,
            arrays: Vec::new(),
            verdict: Some(verdict),
        });
    }
    let alone: Vec<f64> = members
        .iter()
        .map(|m| m.scan.as_ref().map_or(0.0, |s| s.curve[0].mb_per_s))
        .collect();
    let together: Vec<f64> = alone
        .iter()
        .map(|a| (a * 0.6 * 10.0).round() / 10.0)
        .collect();
    let shared = SharedPath {
        block_size: 1 << 20,
        queue_depth: 8,
        duration_ns: 3_000_000_000,
        alone_mb_per_s: alone,
        together_mb_per_s: together,
        parent: Some("0000:00:17.0".into()),
    };
    let mut header = Header::new(
        Kind::Screen,
        TargetInfo {
            path: members
                .iter()
                .map(|m| m.target.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            kind: TargetType::Block,
            size: SIZE * drives as u64,
            logical_block_size: 512,
        },
        "testhost".into(),
        "2026-11-20T08:00:00Z".into(),
    );
    header.ended_at = "2026-11-20T10:05:00Z".into();
    let (a, t) = (shared.alone_sum(), shared.together_sum());
    if drives >= 2 {
        header.findings.push(Finding::new(
            FindingCode::SharedPath,
            Confidence::Medium,
            format!(
                "{drives} drives together {t:.0} MB/s, {:.0} % of the {a:.0} MB/s alone: a shared path caps them \
                 at ~{t:.0} MB/s; they meet at 0000:00:17.0",
                t * 100.0 / a
            ),
            &[
                ("alone_mb_per_s", a),
                ("together_mb_per_s", t),
                ("ratio", t / a),
                ("ceiling_mb_per_s", t),
                ("drives", drives as f64),
            ],
        ));
    }
    let duration_ns = members
        .iter()
        .filter_map(|m| m.scan.as_ref().map(|s| s.duration_ns))
        .max()
        .unwrap_or(0)
        + 2 * shared.duration_ns * drives as u64;
    ScreenRecord {
        header,
        members,
        shared_path: (drives >= 2).then_some(shared),
        criteria: Criteria::default(),
        write: false,
        verify: false,
        interrupted: false,
        duration_ns,
        resumed_from: None,
        checkpoint: None,
    }
}
