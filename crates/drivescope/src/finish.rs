//! The one way out of every measuring command: print the record (its text, or with `--json` its JSON
//! document, on stdout), save it in the store (in place of the run its checkpoints wrote, or
//! of the run it continues), say how to continue a run that stopped early, and exit with the code its
//! outcome calls for.

use crate::opts::store::StoreOpts;
use drivescope_record::{Document, Grade, RunState};
use drivescope_store::RunId;
use std::io::Write;
use std::process::ExitCode;

/// A run that failed: bad input, a device error.
pub const EXIT_FAILURE: u8 = 1;
/// A request refused for safety (e.g. a write to a device).
pub const EXIT_REFUSED: u8 = 3;
/// The device went away during the run; the results so far were printed and saved.
pub const EXIT_DEVICE_LOST: u8 = 4;
/// A screen gave a drive a `fail` verdict; a capacity probe found less than the drive reports.
pub const EXIT_DRIVE_FAILED: u8 = 5;
/// A run stopped by SIGINT/SIGTERM; its partial results were printed.
pub const EXIT_INTERRUPTED: u8 = 130;

/// Bad command-line syntax (clap's own exit code for a usage error).
pub const EXIT_USAGE: u8 = 2;

/// Every exit code and what it means: each command's help, the man pages and README say these words.
pub const EXIT_CODES: &[(u8, &str)] = &[
    (0, "success"),
    (
        EXIT_FAILURE,
        "the run failed, or the input is wrong for the target (a missing target, nothing to resume, no store)",
    ),
    (
        EXIT_USAGE,
        "bad command-line syntax (an unknown option, a bad number, unit or test name)",
    ),
    (EXIT_REFUSED, "refused for safety (one line names the reason)"),
    (
        EXIT_DEVICE_LOST,
        "the device went away during the run (the results so far printed and saved)",
    ),
    (
        EXIT_DRIVE_FAILED,
        "a drive failed: a fail verdict of screen, or less capacity than it reports",
    ),
    (
        EXIT_INTERRUPTED,
        "stopped by SIGINT or SIGTERM (the results so far printed and saved)",
    ),
];

/// The exit codes a command can end with (`drivescope`: all of them).
pub fn exit_codes_of(command: &str) -> Vec<u8> {
    if command == "drivescope" {
        return EXIT_CODES.iter().map(|(c, _)| *c).collect();
    }
    let mut codes = vec![0, EXIT_FAILURE, EXIT_USAGE];
    match command {
        "scan" | "bench" | "sweep" | "soak" | "diagnose" => {
            codes.extend([EXIT_REFUSED, EXIT_DEVICE_LOST, EXIT_INTERRUPTED])
        }
        "screen" => codes.extend([
            EXIT_REFUSED,
            EXIT_DEVICE_LOST,
            EXIT_DRIVE_FAILED,
            EXIT_INTERRUPTED,
        ]),
        "capacity" => codes.extend([
            EXIT_REFUSED,
            EXIT_DEVICE_LOST,
            EXIT_DRIVE_FAILED,
            EXIT_INTERRUPTED,
        ]),
        "time" | "replay" => codes.extend([EXIT_REFUSED, EXIT_INTERRUPTED]),
        "serve" | "lab" => codes.push(EXIT_REFUSED),
        _ => {}
    }
    codes
}

/// The `Exit codes:` block of a command's help.
pub fn exit_codes_help(command: &str) -> String {
    let mut text = String::from("Exit codes:");
    for code in exit_codes_of(command) {
        let (_, what) = EXIT_CODES
            .iter()
            .find(|(c, _)| *c == code)
            .expect("every code is described");
        text += &format!("\n  {code:>3}  {what}");
    }
    text
}

/// How a finished record leaves.
pub struct Finish<'a> {
    /// `--json`: the document on stdout instead of the text.
    pub json: bool,
    pub store: &'a StoreOpts,
    /// The stored run the record takes the place of: the checkpoint it wrote, or the run it continues.
    pub replace: Option<RunId>,
    /// The command that continues a run that stopped early (`scan`, `soak`, …), when it can be.
    pub resume_with: Option<&'static str>,
}

/// What a record's text looks like for people.
pub type Print<'a, T> = &'a dyn Fn(&T, &mut dyn Write) -> std::io::Result<()>;

/// Print `rec` with `print`, save it, and give the exit code of its outcome.
pub fn finish<T>(rec: T, print: Print<T>, f: Finish) -> anyhow::Result<ExitCode>
where
    T: drivescope_record::Record,
{
    if f.json {
        print_json(&rec)?;
    } else {
        let mut text = Vec::new();
        print(&rec, &mut text)?;
        print_all(&text)?;
    }
    let doc: Document = rec.into();
    // Saved after the results are out, so a store problem never costs a measurement.
    let saved = f.store.save_over(&doc, f.replace);
    if let (Some(id), Some(command)) = (saved, f.resume_with) {
        if doc.state() == Some(RunState::Interrupted) && resumable(&doc) {
            eprintln!("drivescope: continue it with `drivescope {command} --resume {id}`");
        }
    }
    Ok(ExitCode::from(exit_code(&doc)))
}

/// `print`, then the record's findings (for the kinds whose text leaves them out).
pub fn and_findings<T: drivescope_record::Record>(
    print: fn(&T, &mut dyn Write) -> std::io::Result<()>,
) -> impl Fn(&T, &mut dyn Write) -> std::io::Result<()> {
    move |rec, out| {
        print(rec, out)?;
        drivescope_report::text::print_findings(&rec.header().findings, out)
    }
}

/// Whether a stopped run kept what `--resume` needs.
fn resumable(doc: &Document) -> bool {
    match doc {
        Document::Scan(r) => r.resume.is_some(),
        Document::Soak(r) => r.resume.is_some(),
        Document::Diagnose(r) => r.resume.is_some(),
        Document::Screen(_) => true,
        _ => false,
    }
}

/// The exit code of a run that ended as `doc` says: a screen by its drives (a drive stopped early,
/// lost or failed, in that order), any other run by its state.
pub fn exit_code(doc: &Document) -> u8 {
    if let Document::Screen(r) = doc {
        let scans = || r.members.iter().filter_map(|m| m.scan.as_deref());
        return if scans().any(|s| s.interrupted && s.device_lost.is_none()) {
            EXIT_INTERRUPTED
        } else if scans().any(|s| s.device_lost.is_some()) {
            EXIT_DEVICE_LOST
        } else if r
            .members
            .iter()
            .any(|m| m.verdict.as_ref().is_some_and(|v| v.grade == Grade::Fail))
        {
            EXIT_DRIVE_FAILED
        } else {
            0
        };
    }
    if let Document::Capacity(r) = doc {
        if r.class
            .is_some_and(|c| c != drivescope_record::CapacityClass::Genuine)
        {
            return EXIT_DRIVE_FAILED;
        }
    }
    match doc.state() {
        Some(RunState::DeviceLost) => EXIT_DEVICE_LOST,
        Some(RunState::Interrupted) => EXIT_INTERRUPTED,
        _ => 0,
    }
}

/// Print generated text on stdout; a reader that closed the pipe early (`| head`) is no error.
pub fn print_all(bytes: &[u8]) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|_| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => r,
    }
}

/// Print a document as pretty JSON on stdout (a reader that closed the pipe early is no error).
pub fn print_json<T: serde::Serialize>(doc: &T) -> anyhow::Result<()> {
    let mut bytes = serde_json::to_vec_pretty(doc)?;
    bytes.push(b'\n');
    Ok(print_all(&bytes)?)
}

/// A request refused for safety; exits with [`EXIT_REFUSED`].
#[derive(Debug)]
pub struct Refused(pub String);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refused {}

#[cfg(test)]
mod tests {
    //! Exit codes of records made by real runs on `null:` targets (no root needed).
    use super::*;
    use drivescope_core::scan::{self, Progress, ScanConfig};
    use drivescope_core::target::Target;
    use drivescope_record::{DriveVerdict, Member, ScanRecord, ScreenRecord};
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;

    fn null_scan(stopped: bool) -> ScanRecord {
        let target = Target::open_read("null:16M").expect("null target");
        let cfg = ScanConfig {
            points: 16,
            ..ScanConfig::default()
        };
        let stop = AtomicBool::new(stopped);
        scan::run(
            &target,
            &cfg,
            Arc::new(Progress::default()),
            &stop,
            None,
            None,
        )
        .expect("scan")
    }

    fn member(scan: ScanRecord, grade: Grade) -> Member {
        Member {
            target: scan.header.target.path.clone(),
            run: None,
            scan: Some(Box::new(scan)),
            error: None,
            history: None,
            smart_before: None,
            smart_after: None,
            verdict: Some(DriveVerdict {
                grade,
                reasons: Vec::new(),
            }),
        }
    }

    fn screen(members: Vec<Member>) -> Document {
        let first = members[0].scan.as_ref().expect("a scan");
        let header = drivescope_record::Header::now(
            drivescope_record::Kind::Screen,
            first.header.target.clone(),
        );
        Document::Screen(Box::new(ScreenRecord {
            header,
            interrupted: members
                .iter()
                .any(|m| m.scan.as_ref().is_some_and(|s| s.interrupted)),
            members,
            shared_path: None,
            criteria: Default::default(),
            write: false,
            verify: false,
            duration_ns: 0,
            resumed_from: None,
            checkpoint: None,
        }))
    }

    #[test]
    fn a_scan_that_read_everything_exits_0() {
        let rec = null_scan(false);
        assert!(!rec.interrupted);
        assert_eq!(exit_code(&rec.into()), 0);
    }

    #[test]
    fn a_stopped_scan_exits_130_and_a_lost_device_4() {
        let rec = null_scan(true);
        assert!(
            rec.interrupted,
            "a scan stopped before it began is interrupted"
        );
        assert_eq!(exit_code(&rec.clone().into()), EXIT_INTERRUPTED);
        let lost = ScanRecord {
            device_lost: Some("the device went away (ENODEV)".into()),
            ..rec
        };
        assert_eq!(exit_code(&lost.into()), EXIT_DEVICE_LOST);
    }

    #[test]
    fn a_checkpoint_is_no_outcome_of_its_own() {
        let mut rec = null_scan(true);
        rec.checkpoint = Some(drivescope_record::Checkpoint {
            pid: std::process::id(),
            process_start: 0,
            boot_id: String::new(),
            every_ns: 1_000_000_000,
        });
        assert_eq!(exit_code(&rec.into()), 0);
    }

    #[test]
    fn a_screen_exits_by_its_drives_stopped_then_lost_then_failed() {
        let ok = || member(null_scan(false), Grade::Pass);
        assert_eq!(exit_code(&screen(vec![ok(), ok()])), 0);
        let warned = member(null_scan(false), Grade::Warn);
        assert_eq!(exit_code(&screen(vec![ok(), warned])), 0);
        let failed = || member(null_scan(false), Grade::Fail);
        assert_eq!(exit_code(&screen(vec![ok(), failed()])), EXIT_DRIVE_FAILED);
        let lost = || {
            let mut s = null_scan(true);
            s.device_lost = Some("gone".into());
            member(s, Grade::Fail)
        };
        assert_eq!(exit_code(&screen(vec![lost(), failed()])), EXIT_DEVICE_LOST);
        let stopped = member(null_scan(true), Grade::Pass);
        assert_eq!(
            exit_code(&screen(vec![stopped, lost(), failed()])),
            EXIT_INTERRUPTED
        );
    }
}
