//! drivescope: the binary is glue. Arguments -> validated config -> library calls.

mod cache_check;
mod checkpoints;
mod cmd;
mod finish;
mod identity;
#[cfg(test)]
mod inproc;
mod live;
#[cfg(feature = "mpi")]
mod mpi;
mod opts;
mod plan;
mod progress;
mod progress_group;
mod resume;
mod runner;
mod say;
mod signals;
mod temperature;
mod usage;
mod version;

use clap::{FromArgMatches, Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "drivescope",
    version = version::VERSION,
    about = "Measure how a disk, SSD, RAID set, USB enclosure or NAS share really performs, and why.",
    after_help = "Sizes are binary: 64K = 64KiB = 65536 bytes, 1M = 1MiB, 1G = 1GiB. Rates are MB/s = 10^6 B/s."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Read a whole device or range in order, timing every command (surface scan).
    Scan(cmd::scan::ScanArgs),
    /// CrystalDiskMark-style tests: SEQ1M Q8T1, RND4K Q32T1, … (profiles or custom).
    Bench(cmd::bench::BenchArgs),
    /// Queue depth × threads grid of IOPS, MB/s and p99, and the queueing gain.
    Sweep(cmd::sweep::SweepArgs),
    /// One test sustained over time: rate per interval, steady state, steps.
    Soak(cmd::soak::SoakArgs),
    /// Explain a device's numbers: bounded experiments for caches, write bursts, queueing, link caps, zones
    /// and warm-up, printed as findings with their evidence.
    Diagnose(cmd::diagnose::DiagnoseArgs),
    /// Scan several drives at the same time: a verdict for each (pass, warn, fail), a side-by-side
    /// table, and whether a path they share caps them.
    Screen(cmd::screen::ScreenArgs),
    /// Time a real workload (a command) cold and warm, and how much of it was the disk.
    Time(cmd::time::TimeArgs),
    /// Issue a trace kept by `time --keep-trace` again on a device or in a directory, closed-loop, and
    /// compare its times with the trace's.
    Replay(cmd::replay::ReplayArgs),
    /// Find a drive's real capacity (counterfeit flash: wrap-around, dropped writes, a cache),
    /// keeping its data.
    Capacity(cmd::capacity::CapacityArgs),
    /// An SSD's steady state by the SNIA PTS method: purge, precondition, rounds until the
    /// steady-state rule holds (writes the whole device many times).
    Steady(cmd::steady::SteadyArgs),
    /// What a commit (write + fdatasync, fsync, O_DSYNC) costs, and whether flushes reach the
    /// media or return early from a cache.
    Durability(cmd::durability::DurabilityArgs),
    /// Describe a device, file or directory and the path to it.
    Info(cmd::info::InfoArgs),
    /// Emulated reference disks with known ground truth.
    Lab(cmd::lab::LabArgs),
    /// List stored runs, newest first (filter by device, kind, date).
    Runs(cmd::runs::RunsArgs),
    /// Print a stored run as it was printed when it ran.
    Show(cmd::show::ShowArgs),
    /// Put stored runs side by side, best and worst of each row marked.
    Compare(cmd::compare::CompareArgs),
    /// Export a stored run as JSON, CSV or Markdown.
    Export(cmd::export::ExportArgs),
    /// Write an HTML report with charts (and PNGs) of stored runs.
    Report(cmd::report::ReportArgs),
    /// Look after results stores: copy runs from one to another (SQLite, PostgreSQL).
    Store(cmd::store::StoreArgs),
    /// Browse the results store in a web browser: runs, reports, comparisons, a drive's trend
    /// (read-only; loopback unless --token).
    Serve(cmd::serve::ServeArgs),
    /// Print the shell completion script for bash, zsh, fish, elvish or powershell.
    Completions(cmd::completions::CompletionsArgs),
    /// Print the man page (roff), or write one page per command with --dir.
    Manpage(cmd::manpage::ManpageArgs),
}

/// The command line as help, the man pages and the completions show it: each command's help ends
/// with its exit codes.
pub fn cli() -> clap::Command {
    use clap::CommandFactory;
    fn with_codes(c: clap::Command, command: finish::Cmd) -> clap::Command {
        let codes = finish::exit_codes_help(command);
        let text = match c.get_after_help() {
            Some(h) => format!("{h}\n\n{codes}"),
            None => codes,
        };
        c.after_help(text)
    }
    // A value that starts with a dash (`--length -1`) reaches the option's own check, which says
    // what is wrong with it, rather than being taken for an unknown option.
    fn dashed_values(c: clap::Command) -> clap::Command {
        c.mut_args(|a| {
            if a.get_action().takes_values() && !a.is_positional() {
                a.allow_negative_numbers(true)
            } else {
                a
            }
        })
        .mut_subcommands(dashed_values)
    }
    let cli = finish::Cmd::SUBCOMMANDS.iter().fold(
        with_codes(Cli::command(), finish::Cmd::Drivescope),
        |cli, &sub| cli.mut_subcommand(sub.name(), |c| with_codes(c, sub)),
    );
    dashed_values(cli)
}

impl Command {
    /// `--json` or `--quiet`: stderr carries only warnings and errors.
    fn quiet(&self) -> bool {
        match self {
            Command::Scan(a) => a.json || a.quiet,
            Command::Bench(cmd::bench::BenchArgs { w, .. })
            | Command::Sweep(cmd::sweep::SweepArgs { w, .. })
            | Command::Soak(cmd::soak::SoakArgs { w, .. })
            | Command::Diagnose(cmd::diagnose::DiagnoseArgs { w, .. }) => w.json || w.quiet,
            Command::Screen(a) => a.json || a.quiet,
            Command::Time(a) => a.json || a.quiet,
            Command::Replay(a) => a.json || a.quiet,
            Command::Capacity(a) => a.json || a.quiet,
            Command::Steady(a) => a.json || a.quiet,
            Command::Durability(a) => a.json || a.quiet,
            Command::Info(a) => a.json,
            Command::Runs(a) => a.json,
            Command::Show(a) => a.json,
            _ => false,
        }
    }
}

/// Run a plan in this process, or, under an MPI launcher, on every rank (decided here, once).
#[cfg(feature = "mpi")]
macro_rules! ranks {
    ($plan:expr, $one:path, $many:path) => {
        $plan.and_then(|p| if mpi::launched() { $many(p) } else { $one(p) })
    };
}
#[cfg(not(feature = "mpi"))]
macro_rules! ranks {
    ($plan:expr, $one:path, $many:path) => {
        $plan.and_then($one)
    };
}

fn main() -> ExitCode {
    let cli = match cli()
        .try_get_matches()
        .and_then(|mut m| Cli::from_arg_matches_mut(&mut m))
    {
        Ok(cli) => cli,
        Err(e) => return finish::exit(Ok(usage::said(e))),
    };
    say::set_quiet(cli.command.quiet());
    finish::exit(run(cli.command))
}

/// Run the command and give how it ended.
fn run(command: Command) -> anyhow::Result<finish::Outcome> {
    match command {
        Command::Scan(a) => ranks!(cmd::scan::plan(a), runner::main, mpi::scan::run),
        Command::Bench(a) => ranks!(cmd::bench::plan(a), runner::main, mpi::bench::run),
        Command::Sweep(a) => ranks!(cmd::sweep::plan(a), runner::main, mpi::sweep::run),
        Command::Soak(a) => ranks!(cmd::soak::plan(a), runner::main, mpi::soak::run),
        Command::Diagnose(a) => runner::main(a),
        Command::Screen(a) => runner::main(a),
        Command::Time(a) => runner::main(a),
        Command::Replay(a) => runner::main(a),
        Command::Capacity(a) => cmd::capacity::run(a),
        Command::Steady(a) => cmd::steady::plan(a).and_then(runner::main),
        Command::Durability(a) => cmd::durability::run(a),
        Command::Info(a) => cmd::info::run(a),
        Command::Lab(a) => cmd::lab::run(a),
        Command::Runs(a) => cmd::runs::run(a),
        Command::Show(a) => cmd::show::run(a),
        Command::Compare(a) => cmd::compare::run(a),
        Command::Export(a) => cmd::export::run(a),
        Command::Report(a) => cmd::report::run(a),
        Command::Store(a) => cmd::store::run(a),
        Command::Serve(a) => cmd::serve::run(a),
        Command::Completions(a) => cmd::completions::run(a),
        Command::Manpage(a) => cmd::manpage::run(a),
    }
}

#[cfg(test)]
mod tests {
    //! Property run over the whole command line: any argv gets a parse or a clap error,
    //! never a panic (clap panics on inconsistent definitions, which this also catches).
    use super::Cli;
    use clap::{CommandFactory, Parser};
    use proptest::prelude::*;

    #[test]
    fn definitions_are_consistent() {
        Cli::command().debug_assert();
    }

    /// Every command is in the exit-code table, and its help ends with its own codes.
    #[test]
    fn every_command_help_ends_with_its_exit_codes() {
        use crate::finish::{exit_codes_help, Cmd};
        let mut cli = super::cli();
        let names: Vec<String> = Cli::command()
            .get_subcommands()
            .map(|c| c.get_name().to_string())
            .collect();
        let known: Vec<&str> = Cmd::SUBCOMMANDS.iter().map(|c| c.name()).collect();
        assert_eq!(names, known);
        let top = cli.render_long_help().to_string();
        assert!(
            top.trim_end().ends_with(&exit_codes_help(Cmd::Drivescope)),
            "{top}"
        );
        for cmd in Cmd::SUBCOMMANDS {
            let sub = cli.find_subcommand_mut(cmd.name()).expect("a subcommand");
            let help = sub.render_long_help().to_string();
            assert!(help.trim_end().ends_with(&exit_codes_help(cmd)), "{help}");
        }
    }

    fn word() -> impl Strategy<Value = String> {
        prop_oneof![
            prop::sample::select(vec![
                "scan",
                "bench",
                "sweep",
                "soak",
                "info",
                "time",
                "--cold",
                "--warm",
                "--shell",
                "lab",
                "runs",
                "show",
                "compare",
                "export",
                "report",
                "completions",
                "manpage",
                "bash",
                "zsh",
                "--dir",
                "serve",
                "presets",
                "truth",
                "--write",
                "--verify",
                "--destructive",
                "--confirm",
                "--force",
                "--resume",
                "--quick",
                "--json",
                "--block-size",
                "--queue-depth",
                "--offset",
                "--length",
                "--points",
                "--slow",
                "--dwell",
                "--interval",
                "--engine",
                "--size",
                "--rw",
                "--mix",
                "--profile",
                "--store",
                "--no-store",
                "--threads",
                "--duration",
                "-q",
                "--",
                "null:1G",
                "/dev/null",
                "last",
            ])
            .prop_map(String::from),
            "[0-9]{0,8}[KMGTkmgt%]?(iB|s|ms|us)?",
            any::<String>(),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 600, failure_persistence: None, ..ProptestConfig::default() })]

        #[test]
        fn any_argv_parses_or_errors(words in prop::collection::vec(word(), 0..8)) {
            let argv = std::iter::once("drivescope".to_string()).chain(words);
            let _ = Cli::try_parse_from(argv);
        }
    }
}
