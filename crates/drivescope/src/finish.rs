//! The one way out of every measuring command: print the record (its text, or with `--json` its JSON
//! document, on stdout), save it in the store (in place of the run its checkpoints wrote, or
//! of the run it continues), say how to continue a run that stopped early, and exit with the code its
//! outcome calls for.

use crate::opts::store::StoreOpts;
use drivescope_record::{Document, Grade, RunState};
use drivescope_store::RunId;
use std::io::Write;
use std::process::ExitCode;

/// How a command ended, as its exit code tells a script. Commands return one of these (or an
/// error); only [`exit`] turns it into the process's exit code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Everything ran.
    Success,
    /// The run failed, or the input is wrong for the target.
    Failed,
    /// Bad command-line syntax (clap's own exit code for a usage error).
    Usage,
    /// A request refused for safety (e.g. a write to a device).
    Refused,
    /// The device went away during the run; the results so far were printed and saved.
    DeviceLost,
    /// A screen gave a drive a `fail` verdict; a capacity probe found less than the drive reports.
    DriveFailed,
    /// A run stopped by SIGINT/SIGTERM; its partial results were printed.
    Interrupted,
}

impl Outcome {
    /// The process exit code of this outcome, as README documents it.
    pub const fn code(self) -> u8 {
        match self {
            Outcome::Success => 0,
            Outcome::Failed => 1,
            Outcome::Usage => 2,
            Outcome::Refused => 3,
            Outcome::DeviceLost => 4,
            Outcome::DriveFailed => 5,
            Outcome::Interrupted => 130,
        }
    }

    /// What the code means: each command's help, the man pages and README say these words.
    pub const fn meaning(self) -> &'static str {
        match self {
            Outcome::Success => "success",
            Outcome::Failed => {
                "the run failed, or the input is wrong for the target (a missing target, nothing to resume, no store)"
            }
            Outcome::Usage => {
                "bad command-line syntax (an unknown option, a bad number, unit or test name)"
            }
            Outcome::Refused => "refused for safety (one line names the reason)",
            Outcome::DeviceLost => {
                "the device went away during the run (the results so far printed and saved)"
            }
            Outcome::DriveFailed => {
                "a drive failed: a fail verdict of screen, less capacity than it reports, or flushes that return before the data can have reached the media"
            }
            Outcome::Interrupted => {
                "stopped by SIGINT or SIGTERM (the results so far printed and saved)"
            }
        }
    }
}

/// A command, as the table of the exit codes it can end with knows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmd {
    /// `drivescope` itself: every code.
    Drivescope,
    Scan,
    Bench,
    Sweep,
    Soak,
    Diagnose,
    Screen,
    Time,
    Replay,
    Capacity,
    Steady,
    Durability,
    Info,
    Lab,
    Runs,
    Show,
    Compare,
    Export,
    Report,
    Store,
    Serve,
    Completions,
    Manpage,
}

impl Cmd {
    /// Every subcommand (each has a help of its own that ends with its codes).
    pub const SUBCOMMANDS: [Cmd; 22] = [
        Cmd::Scan,
        Cmd::Bench,
        Cmd::Sweep,
        Cmd::Soak,
        Cmd::Diagnose,
        Cmd::Screen,
        Cmd::Time,
        Cmd::Replay,
        Cmd::Capacity,
        Cmd::Steady,
        Cmd::Durability,
        Cmd::Info,
        Cmd::Lab,
        Cmd::Runs,
        Cmd::Show,
        Cmd::Compare,
        Cmd::Export,
        Cmd::Report,
        Cmd::Store,
        Cmd::Serve,
        Cmd::Completions,
        Cmd::Manpage,
    ];

    /// The word that names it on the command line.
    pub const fn name(self) -> &'static str {
        match self {
            Cmd::Drivescope => "drivescope",
            Cmd::Scan => "scan",
            Cmd::Bench => "bench",
            Cmd::Sweep => "sweep",
            Cmd::Soak => "soak",
            Cmd::Diagnose => "diagnose",
            Cmd::Screen => "screen",
            Cmd::Time => "time",
            Cmd::Replay => "replay",
            Cmd::Capacity => "capacity",
            Cmd::Steady => "steady",
            Cmd::Durability => "durability",
            Cmd::Info => "info",
            Cmd::Lab => "lab",
            Cmd::Runs => "runs",
            Cmd::Show => "show",
            Cmd::Compare => "compare",
            Cmd::Export => "export",
            Cmd::Report => "report",
            Cmd::Store => "store",
            Cmd::Serve => "serve",
            Cmd::Completions => "completions",
            Cmd::Manpage => "manpage",
        }
    }

    /// The outcomes the command can end with, in the order of their codes.
    pub fn outcomes(self) -> Vec<Outcome> {
        use Outcome::*;
        let mut all = vec![Success, Failed, Usage];
        all.extend_from_slice(match self {
            Cmd::Drivescope => &[Refused, DeviceLost, DriveFailed, Interrupted],
            Cmd::Scan | Cmd::Bench | Cmd::Sweep | Cmd::Soak => &[Refused, DeviceLost, Interrupted],
            Cmd::Screen | Cmd::Capacity | Cmd::Diagnose => {
                &[Refused, DeviceLost, DriveFailed, Interrupted]
            }
            Cmd::Time | Cmd::Replay | Cmd::Steady => &[Refused, Interrupted],
            Cmd::Durability => &[Refused, DriveFailed, Interrupted],
            Cmd::Serve | Cmd::Lab => &[Refused],
            Cmd::Info
            | Cmd::Runs
            | Cmd::Show
            | Cmd::Compare
            | Cmd::Export
            | Cmd::Report
            | Cmd::Store
            | Cmd::Completions
            | Cmd::Manpage => &[],
        });
        all
    }
}

/// The `Exit codes:` block of a command's help.
pub fn exit_codes_help(command: Cmd) -> String {
    let mut text = String::from("Exit codes:");
    for o in command.outcomes() {
        text += &format!("\n  {:>3}  {}", o.code(), o.meaning());
    }
    text
}

/// The outcome of a command that ended with an error: refused for safety, or failed.
pub fn outcome_of_error(e: &anyhow::Error) -> Outcome {
    if e.downcast_ref::<Refused>().is_some() {
        Outcome::Refused
    } else {
        Outcome::Failed
    }
}

/// An error and its causes in one line, each cause once: a cause whose words its error already
/// says (`{path}: {source}` over the same source) is not said again.
pub fn said(e: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in e.chain() {
        let words = cause.to_string();
        if line.contains(&words) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(&words);
    }
    line
}

/// The one place a command's end becomes the process's exit code: an error is said on stderr
/// (`drivescope: refused: …` for a refusal) and exits 1 or 3; an outcome exits with its code.
pub fn exit(result: anyhow::Result<Outcome>) -> ExitCode {
    let outcome = match result {
        Ok(o) => o,
        Err(e) => {
            let o = outcome_of_error(&e);
            if o == Outcome::Refused {
                eprintln!("drivescope: refused: {}", said(&e));
            } else {
                eprintln!("drivescope: {}", said(&e));
            }
            o
        }
    };
    ExitCode::from(outcome.code())
}

/// How a finished record leaves.
pub struct Finish<'a> {
    /// `--json`: the document on stdout instead of the text.
    pub json: bool,
    pub store: &'a StoreOpts,
    /// The stored run the record takes the place of: the checkpoint it wrote, or the run it continues.
    pub replace: Option<RunId>,
    /// The command that continues a run that stopped early (`scan`, `soak`, …), when it can be.
    pub resume_with: Option<Cmd>,
}

/// What a record's text looks like for people.
pub type Print<'a, T> = &'a dyn Fn(&T, &mut dyn Write) -> std::io::Result<()>;

/// Print `rec` with `print`, save it, and give its outcome.
pub fn finish<T>(mut rec: T, print: Print<T>, f: Finish) -> anyhow::Result<Outcome>
where
    T: drivescope_record::Record,
{
    let memory = rec.header().memory();
    rec.header_mut().memory = memory;
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
            eprintln!(
                "drivescope: continue it with `drivescope {} --resume {id}`",
                command.name()
            );
        }
    }
    Ok(outcome(&doc))
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
        Document::Steady(r) => r.resume.is_some(),
        Document::Screen(_) => true,
        _ => false,
    }
}

/// The outcome of a run that ended as `doc` says: a screen by its drives (a drive stopped early,
/// lost or failed, in that order), any other run by its state.
pub fn outcome(doc: &Document) -> Outcome {
    if let Document::Screen(r) = doc {
        let scans = || r.members.iter().filter_map(|m| m.scan.as_deref());
        return if scans().any(|s| s.interrupted && s.device_lost.is_none()) {
            Outcome::Interrupted
        } else if scans().any(|s| s.device_lost.is_some()) {
            Outcome::DeviceLost
        } else if r
            .members
            .iter()
            .any(|m| m.verdict.as_ref().is_some_and(|v| v.grade == Grade::Fail))
        {
            Outcome::DriveFailed
        } else {
            Outcome::Success
        };
    }
    // Flushes found returning early are the storage's broken promise, whatever else stopped the run.
    let broke = match doc {
        Document::Durability(r) => r.broke_promise(),
        Document::Diagnose(r) => r.broke_promise(),
        _ => false,
    };
    if broke {
        return Outcome::DriveFailed;
    }
    if let Document::Replay(r) = doc {
        return replay_outcome(r);
    }
    if let Document::Capacity(r) = doc {
        if r.class
            .is_some_and(|c| c != drivescope_record::CapacityClass::Genuine)
        {
            return Outcome::DriveFailed;
        }
    }
    match doc.state() {
        Some(RunState::DeviceLost) => Outcome::DeviceLost,
        Some(RunState::Interrupted) => Outcome::Interrupted,
        _ => Outcome::Success,
    }
}

/// The outcome of a replay: interrupted when stopped, failed when a request failed.
pub fn replay_outcome(r: &drivescope_record::ReplayRecord) -> Outcome {
    if r.interrupted {
        Outcome::Interrupted
    } else if r.errors > 0 {
        Outcome::Failed
    } else {
        Outcome::Success
    }
}

/// Print results on stdout: every write of results goes through here. A reader that closed the
/// pipe early (`| head`) is no error: the rest is dropped quietly. The binary's in-process tests
/// take what a command prints here instead (see `capture`).
pub fn print_all(bytes: &[u8]) -> std::io::Result<()> {
    #[cfg(test)]
    if capture::take(bytes) {
        return Ok(());
    }
    write_or_closed(&mut std::io::stdout().lock(), bytes)
}

/// The in-process tests' stdout: what a command running on this thread prints as results.
#[cfg(test)]
pub mod capture {
    use std::cell::RefCell;

    thread_local! {
        static TAKEN: RefCell<Option<Vec<u8>>> = const { RefCell::new(None) };
    }

    /// From now on this thread's results are kept, not printed.
    pub fn start() {
        TAKEN.with(|t| *t.borrow_mut() = Some(Vec::new()));
    }

    /// What was printed since [`start`]; printing goes to stdout again.
    pub fn end() -> Vec<u8> {
        TAKEN.with(|t| t.borrow_mut().take()).unwrap_or_default()
    }

    /// Keep `bytes` when capturing.
    pub(super) fn take(bytes: &[u8]) -> bool {
        TAKEN.with(|t| match t.borrow_mut().as_mut() {
            Some(v) => {
                v.extend_from_slice(bytes);
                true
            }
            None => false,
        })
    }
}

/// Write `bytes` and flush; a closed pipe is no error.
fn write_or_closed(out: &mut dyn Write, bytes: &[u8]) -> std::io::Result<()> {
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

/// A request refused for safety; exits with [`Outcome::Refused`].
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
    use drivescope_core::scan::{self, ScanConfig};
    use drivescope_core::target::Target;
    use drivescope_record::{DriveVerdict, Member, ScanRecord, ScreenRecord};
    use std::sync::atomic::AtomicBool;

    #[test]
    fn a_cause_the_error_already_says_is_said_once() {
        let io = std::io::Error::from_raw_os_error(2);
        let words = io.to_string();
        #[derive(Debug)]
        struct Wraps(std::io::Error);
        impl std::fmt::Display for Wraps {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "/x: {}", self.0)
            }
        }
        impl std::error::Error for Wraps {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                Some(&self.0)
            }
        }
        let e = anyhow::Error::new(Wraps(io)).context("opening");
        assert_eq!(said(&e), format!("opening: /x: {words}"));
        let plain = anyhow::anyhow!("bare").context("outer");
        assert_eq!(said(&plain), "outer: bare");
    }

    fn null_scan(stopped: bool) -> ScanRecord {
        let target = Target::open_read("null:16M").expect("null target");
        let cfg = ScanConfig {
            points: 16,
            ..ScanConfig::default()
        };
        let stop = AtomicBool::new(stopped);
        let live = drivescope_core::engine::Live(&target);
        scan::run(
            &live,
            &target,
            scan::Start::New(&cfg),
            scan::Observer::new(&stop),
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
            arrays: Vec::new(),
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

    /// The codes each command's help lists, as README documents them.
    const DOCUMENTED: &[(Cmd, &[u8])] = &[
        (Cmd::Drivescope, &[0, 1, 2, 3, 4, 5, 130]),
        (Cmd::Scan, &[0, 1, 2, 3, 4, 130]),
        (Cmd::Bench, &[0, 1, 2, 3, 4, 130]),
        (Cmd::Sweep, &[0, 1, 2, 3, 4, 130]),
        (Cmd::Soak, &[0, 1, 2, 3, 4, 130]),
        (Cmd::Diagnose, &[0, 1, 2, 3, 4, 5, 130]),
        (Cmd::Screen, &[0, 1, 2, 3, 4, 5, 130]),
        (Cmd::Time, &[0, 1, 2, 3, 130]),
        (Cmd::Replay, &[0, 1, 2, 3, 130]),
        (Cmd::Capacity, &[0, 1, 2, 3, 4, 5, 130]),
        (Cmd::Steady, &[0, 1, 2, 3, 130]),
        (Cmd::Durability, &[0, 1, 2, 3, 5, 130]),
        (Cmd::Info, &[0, 1, 2]),
        (Cmd::Lab, &[0, 1, 2, 3]),
        (Cmd::Runs, &[0, 1, 2]),
        (Cmd::Show, &[0, 1, 2]),
        (Cmd::Compare, &[0, 1, 2]),
        (Cmd::Export, &[0, 1, 2]),
        (Cmd::Report, &[0, 1, 2]),
        (Cmd::Store, &[0, 1, 2]),
        (Cmd::Serve, &[0, 1, 2, 3]),
        (Cmd::Completions, &[0, 1, 2]),
        (Cmd::Manpage, &[0, 1, 2]),
    ];

    #[test]
    fn every_command_lists_its_documented_codes() {
        assert_eq!(DOCUMENTED.len(), Cmd::SUBCOMMANDS.len() + 1);
        for &(cmd, codes) in DOCUMENTED {
            let listed: Vec<u8> = cmd.outcomes().iter().map(|o| o.code()).collect();
            assert_eq!(listed, codes, "{}", cmd.name());
            let help = exit_codes_help(cmd);
            assert_eq!(help.lines().count(), codes.len() + 1, "{help}");
            for (line, code) in help.lines().skip(1).zip(codes) {
                assert!(line.starts_with(&format!("  {code:>3}  ")), "{line}");
            }
        }
    }

    #[test]
    fn every_outcome_exits_with_its_documented_code() {
        use Outcome::*;
        let all = [
            Success,
            Failed,
            Usage,
            Refused,
            DeviceLost,
            DriveFailed,
            Interrupted,
        ];
        let codes: Vec<u8> = all.iter().map(|o| o.code()).collect();
        assert_eq!(codes, [0, 1, 2, 3, 4, 5, 130]);
        for &(cmd, _) in DOCUMENTED {
            for o in cmd.outcomes() {
                assert_eq!(exit(Ok(o)), ExitCode::from(o.code()), "{cmd:?} {o:?}");
            }
        }
        // The help says the same words as README for each code.
        assert_eq!(
            exit_codes_help(Cmd::Time),
            "Exit codes:\n    0  success\n    1  the run failed, or the input is wrong for the \
             target (a missing target, nothing to resume, no store)\n    2  bad command-line \
             syntax (an unknown option, a bad number, unit or test name)\n    3  refused for \
             safety (one line names the reason)\n  130  stopped by SIGINT or SIGTERM (the results \
             so far printed and saved)"
        );
    }

    #[test]
    fn an_error_exits_1_and_a_refusal_3_even_under_context() {
        let failed = anyhow::anyhow!("no such file");
        assert_eq!(outcome_of_error(&failed), Outcome::Failed);
        let refused = anyhow::Error::from(Refused("a mounted device".into()));
        assert_eq!(outcome_of_error(&refused), Outcome::Refused);
        let wrapped = refused.context("opening /dev/x");
        assert_eq!(outcome_of_error(&wrapped), Outcome::Refused);
        assert_eq!(exit(Err(wrapped)), ExitCode::from(3));
        assert_eq!(exit(Err(failed)), ExitCode::from(1));
    }

    fn replay(interrupted: bool, errors: u64) -> drivescope_record::ReplayRecord {
        let target = Target::open_read("null:16M").expect("null target");
        drivescope_record::ReplayRecord {
            header: drivescope_record::Header::now(drivescope_record::Kind::Replay, target.info()),
            trace: "trace.json".into(),
            traced_command: Vec::new(),
            traced_device: "loop0".into(),
            wrapped: false,
            no_think: false,
            skipped: 0,
            errors,
            original: Default::default(),
            replayed: Default::default(),
            kernel: None,
            classes: Vec::new(),
            notes: Vec::new(),
            interrupted,
        }
    }

    #[test]
    fn a_replay_ends_by_its_requests() {
        let rec = replay;
        assert_eq!(replay_outcome(&rec(false, 0)), Outcome::Success);
        assert_eq!(replay_outcome(&rec(false, 3)), Outcome::Failed);
        assert_eq!(replay_outcome(&rec(true, 3)), Outcome::Interrupted);
    }

    #[test]
    fn a_pipe_whose_reader_closed_takes_the_results_quietly() {
        let (reader, mut writer) = std::io::pipe().expect("a pipe");
        drop(reader);
        // More than a pipe holds, so the write meets the closed end whatever the buffer.
        let bytes = vec![b'x'; 1 << 20];
        assert_eq!(
            writer.write_all(&bytes).map_err(|e| e.kind()),
            Err(std::io::ErrorKind::BrokenPipe),
            "the pipe is closed"
        );
        write_or_closed(&mut writer, &bytes).expect("a closed pipe is no error");
        let mut full = Vec::new();
        write_or_closed(&mut full, b"results\n").expect("written");
        assert_eq!(full, b"results\n");
    }

    #[test]
    fn other_write_errors_are_errors() {
        struct Full;
        impl Write for Full {
            fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
                Err(std::io::Error::from_raw_os_error(28))
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        assert!(write_or_closed(&mut Full, b"results").is_err());
    }

    #[test]
    fn a_scan_that_read_everything_exits_0() {
        let rec = null_scan(false);
        assert!(!rec.interrupted);
        assert_eq!(outcome(&rec.into()), Outcome::Success);
    }

    #[test]
    fn a_stopped_scan_exits_130_and_a_lost_device_4() {
        let rec = null_scan(true);
        assert!(
            rec.interrupted,
            "a scan stopped before it began is interrupted"
        );
        assert_eq!(outcome(&rec.clone().into()), Outcome::Interrupted);
        let lost = ScanRecord {
            device_lost: Some("the device went away (ENODEV)".into()),
            ..rec
        };
        assert_eq!(outcome(&lost.into()), Outcome::DeviceLost);
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
        assert_eq!(outcome(&rec.into()), Outcome::Success);
    }

    #[test]
    fn a_diagnosis_whose_flushes_were_found_early_exits_5_whatever_else_stopped_it() {
        use drivescope_record::{DiagnoseRecord, Experiment, Outcome as Line, Verdict};
        let doc = include_str!("../tests/fixtures/old/92d1a42/diagnose.json");
        let base: DiagnoseRecord = serde_json::from_str(doc).expect("a diagnosis");
        let with = |verdict: Option<Verdict>, interrupted: bool, lost: bool| {
            let mut r = base.clone();
            r.outcomes
                .retain(|o| o.experiment != Experiment::FlushHonesty);
            r.outcomes.extend(verdict.map(|verdict| Line {
                experiment: Experiment::FlushHonesty,
                verdict,
                text: String::new(),
            }));
            r.workload.interrupted = interrupted;
            r.device_error = lost.then(|| "smr: gone".into());
            outcome(&Document::Diagnose(Box::new(r)))
        };
        for (interrupted, lost) in [(false, false), (true, false), (false, true)] {
            assert_eq!(
                with(Some(Verdict::Found), interrupted, lost),
                Outcome::DriveFailed
            );
        }
        let plain = [
            (false, false, Outcome::Success),
            (true, false, Outcome::Interrupted),
        ];
        for verdict in [
            None,
            Some(Verdict::NotFound),
            Some(Verdict::Inconclusive),
            Some(Verdict::Skipped),
        ] {
            for (interrupted, lost, o) in
                plain
                    .into_iter()
                    .chain([(false, true, Outcome::DeviceLost)])
            {
                assert_eq!(with(verdict, interrupted, lost), o, "{verdict:?}");
            }
        }
    }

    #[test]
    fn a_screen_exits_by_its_drives_stopped_then_lost_then_failed() {
        let ok = || member(null_scan(false), Grade::Pass);
        assert_eq!(outcome(&screen(vec![ok(), ok()])), Outcome::Success);
        let warned = member(null_scan(false), Grade::Warn);
        assert_eq!(outcome(&screen(vec![ok(), warned])), Outcome::Success);
        let failed = || member(null_scan(false), Grade::Fail);
        assert_eq!(outcome(&screen(vec![ok(), failed()])), Outcome::DriveFailed);
        let lost = || {
            let mut s = null_scan(true);
            s.device_lost = Some("gone".into());
            member(s, Grade::Fail)
        };
        assert_eq!(
            outcome(&screen(vec![lost(), failed()])),
            Outcome::DeviceLost
        );
        let stopped = member(null_scan(true), Grade::Pass);
        assert_eq!(
            outcome(&screen(vec![stopped, lost(), failed()])),
            Outcome::Interrupted
        );
    }
}
