//! `drivescope steady`: an SSD's steady state by the SNIA PTS method. The work is
//! `drivescope_core::steady` (purge, precondition, rounds, checkpoints) and
//! `drivescope_analysis::steady_state` (the rule); this maps arguments to a plan and finishes.

use crate::finish::{Cmd, Refused};
use crate::live::workload::{Done, Span};
use crate::opts::args::{parse_positive_duration, Every};
use crate::opts::destructive::{self, DestructiveOpts};
use crate::opts::store::StoreOpts;
use crate::opts::workload::{self, View, Watching};
use crate::plan::steady::SteadyPlan;
use crate::runner::{Measure, Measured, Session};
use clap::{Args, ValueEnum};
use drivescope_analysis::steady_state::WINDOW_ROUNDS;
use drivescope_core::bench::Common;
use drivescope_core::engine::{DataPattern, EngineKind, Reap};
use drivescope_core::steady::{self, purge, Matrix, SteadyOptions, SteadyRun};
use drivescope_probe::block::Transport;
use drivescope_probe::smart_writes::SmartWrites;
use drivescope_record::{Kind, SteadyRecord, SteadyTest};
use drivescope_report::text::{convergence, print_steady, Convergence};
use drivescope_store::RunId;
use std::time::Duration;

#[derive(Clone, Copy, ValueEnum)]
pub enum TestArg {
    /// Rounds of the IOPS matrix; tracks RND4K 100 % write IOPS.
    Iops,
    /// Rounds of random 4 KiB writes only; IOPS against the bytes written.
    WriteSaturation,
    /// Rounds of 4 and 8 KiB random at QD1 for 100/0, 65/35, 0/100; tracks RND4K write mean latency.
    Latency,
    /// Rounds of random 4 KiB writes to steady state, then bursts between growing idle times.
    HostIdleRecovery,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum MatrixArg {
    /// Every R/W mix (100/0 … 0/100) × block size (1 MiB … 512 B): 56 cells a round.
    Full,
    /// 100/0, 65/35, 0/100 × 64 KiB, 4 KiB: 6 cells a round.
    Reduced,
    /// RND4K 0/100 alone (the tracked cell).
    Tracked,
}

#[derive(Args)]
#[command(after_help = "Examples:\n  \
    drivescope steady /dev/nvme1n1 --destructive --confirm SERIAL\n  \
    drivescope steady /dev/sdX --destructive --confirm SERIAL --test write-saturation\n  \
    drivescope steady --resume last --destructive --confirm SERIAL\n\n\
    It writes the whole device many times over (its data is lost): a purge (a discard of the \
    whole device), twice its capacity in 128 KiB sequential writes, then rounds of the test until \
    the SNIA PTS steady-state rule holds over five rounds, or 25 rounds end it as not reached. \
    Each round is saved as a checkpoint: after kill -9 or a crash, --resume continues it.")]
pub struct SteadyArgs {
    /// The SSD (a block device) to measure.
    #[arg(value_name = "DEVICE", required_unless_present = "resume")]
    pub target: Option<String>,
    #[command(flatten)]
    pub gate: DestructiveOpts,
    /// The PTS test the rounds run.
    #[arg(long, value_enum, default_value = "iops")]
    pub test: TestArg,
    /// The cells of each IOPS round. Default: full on devices of 64 GiB or more, else reduced
    /// (named in the result as not conformant).
    #[arg(long, value_enum)]
    pub matrix: Option<MatrixArg>,
    /// Time per cell. The specification's is 60s; a shorter one is named in the result as not
    /// conformant.
    #[arg(long, value_name = "DURATION", default_value = "60s", value_parser = parse_positive_duration)]
    pub round_time: Duration,
    /// Commands in flight per thread.
    #[arg(long, default_value = "32", value_parser = crate::opts::args::parse_count)]
    pub queue_depth: u32,
    /// Worker threads.
    #[arg(long, default_value = "1", value_parser = crate::opts::args::parse_count)]
    pub threads: u32,
    /// Host idle recovery: bursts per wait state (the specification's 360; fewer is named in the
    /// result as not conformant). Each burst is the round time ÷ 12.
    #[arg(long, default_value = "360", value_parser = crate::opts::args::parse_count)]
    pub bursts: u32,
    /// Start without purging the drive (the result says it is not conformant).
    #[arg(long)]
    pub no_purge: bool,
    /// Continue the stopped steady run RUN (a stored run number, or `last`) on its device, from
    /// its last checkpoint (the end of its last round), with its settings.
    #[arg(long, value_name = "RUN", conflicts_with_all = ["test", "matrix", "round_time", "queue_depth", "threads", "no_purge", "bursts"])]
    pub resume: Option<String>,
    /// Print the run's JSON document on stdout instead of the text; stderr then carries only
    /// warnings and errors.
    #[arg(long)]
    pub json: bool,
    /// Only warnings and errors on stderr (no progress lines, no `saved as run N`).
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// On a terminal, plain progress lines instead of the full-screen live view.
    #[arg(long)]
    pub no_live: bool,
    #[command(flatten)]
    pub store: StoreOpts,
}

pub fn plan(a: SteadyArgs) -> anyhow::Result<SteadyPlan> {
    Ok(SteadyPlan {
        target: a.target.unwrap_or_default(),
        test: match a.test {
            TestArg::Iops => SteadyTest::Iops,
            TestArg::WriteSaturation => SteadyTest::WriteSaturation,
            TestArg::Latency => SteadyTest::Latency,
            TestArg::HostIdleRecovery => SteadyTest::HostIdleRecovery,
        },
        matrix: a.matrix.map(|m| match m {
            MatrixArg::Full => Matrix::Full,
            MatrixArg::Reduced => Matrix::Reduced,
            MatrixArg::Tracked => Matrix::Tracked,
        }),
        cell_time: a.round_time,
        queue_depth: a.queue_depth,
        threads: a.threads,
        no_purge: a.no_purge,
        bursts: a.bursts,
        resume: a.resume,
        gate: a.gate,
        store: a.store,
        json: a.json,
        no_live: a.no_live || a.quiet,
    })
}

impl Measure for SteadyPlan {
    type Record = SteadyRecord;
    const CMD: Cmd = Cmd::Steady;
    const RESUMABLE: bool = true;

    fn measure(mut self, s: &Session) -> anyhow::Result<Measured<SteadyRecord>> {
        let p = &mut self;
        let prior = match &p.resume {
            Some(run) => Some(load_resumable(s, p, run)?),
            None => None,
        };
        if let Some((_, r)) = &prior {
            if p.target.is_empty() {
                p.target = r.header.target.path.clone();
            }
        }
        let spec = p.target.clone();
        block_device(&spec)?;
        let device = s.device(&spec);
        if let Some((id, r)) = &prior {
            crate::resume::check_same_target(
                &r.header,
                &r.header.target.path,
                &spec,
                &device,
                id.0,
            )?;
        }
        if let Some(why) = device.as_ref().and_then(|d| d.not_flash()) {
            return Err(Refused(format!(
                "{spec} is not flash: {why}; it has no garbage collection to reach a steady state"
            ))
            .into());
        }
        let target = destructive::open(&spec, &p.gate, &p.protected())?;
        let stop = s.stop();
        let common = Common {
            engine: EngineKind::Auto,
            reap: Reap::Auto,
            data: DataPattern::Random,
            size: target.size,
            seed: 0x0057_EAD1,
            watch: None,
        };
        let mut o = match &prior {
            Some((_, r)) => steady::options_of(r, common),
            None => {
                let matrix = p.matrix_for(target.size);
                let mut not_conformant = p.not_conformant(matrix);
                // A block smaller than the device's sector cannot be written.
                let sector = target.logical_block_size as u64;
                let (cells, small): (Vec<_>, Vec<_>) = matrix
                    .cells(p.test)
                    .into_iter()
                    .partition(|c| c.block_size >= sector);
                if !small.is_empty() {
                    not_conformant.push(format!(
                        "{} cells of blocks smaller than the device's {sector}-byte sectors left out",
                        small.len()
                    ));
                }
                let (queue_depth, threads) = steady::queue_of(p.test, p.queue_depth, p.threads);
                SteadyOptions {
                    common,
                    test: p.test,
                    matrix: cells,
                    queue_depth,
                    threads,
                    cell_time: p.cell_time,
                    precondition_passes: 2,
                    max_rounds: drivescope_analysis::steady_state::MAX_ROUNDS as u32,
                    not_conformant,
                    idle: p.idle_plan(),
                }
            }
        };
        let over = prior.as_ref().map(|(id, _)| *id);
        if let Some((id, r)) = &prior {
            say(format!(
                "resuming steady run {} after {} round{}",
                id.0,
                r.rounds.len(),
                if r.rounds.len() == 1 { "" } else { "s" }
            ));
        }
        let max_rounds = o.max_rounds;
        let rounds_so_far =
            move |r: &SteadyRecord| Done::Rounds(convergence(r, max_rounds, WINDOW_ROUNDS as u32));
        let done = match &prior {
            Some((_, r)) => rounds_so_far(r),
            None => Done::Rounds(Convergence::none(
                steady::tracked_name(o.test),
                o.test.tracks_latency(),
                o.max_rounds,
                WINDOW_ROUNDS as u32,
            )),
        };
        let view = View {
            off: p.no_live || p.json,
            planned: None,
            span: Span::Phase {
                planned: Some(o.cell_time),
            },
        };
        let live = workload::watch_target(&spec, "steady", view, done, stop);
        o.common.watch = live.as_ref().map(|l| l.watch);
        let round = o.cell_time * o.matrix.len().max(1) as u32;
        let mut cuts = {
            let device = device.clone();
            let stamp = move |mut rec: SteadyRecord, me| {
                rec.header.device = device.clone();
                rec.checkpoint = Some(me);
                rec.into()
            };
            s.checkpoints(Every(Some(round)), &p.store, true, over, "steady", stamp)
        };
        let mut checkpoints = cuts.take();
        let on = |t: &[Transport]| {
            device
                .as_ref()
                .is_some_and(|d| d.block_devices().any(|b| t.contains(&b.transport)))
        };
        let bus = purge::Bus {
            nvme: on(&[Transport::Nvme]),
            ata: on(&[Transport::Sata, Transport::Ata]),
        };
        let no_purge = p.no_purge;
        let mut do_purge = || {
            if no_purge {
                purge::skipped()
            } else {
                if live.is_none() {
                    say("purging: a discard of the whole device".into());
                }
                purge::purge(&target, bus)
            }
        };
        let judge = |v: &[f64], max: u32| drivescope_analysis::steady_state::verdict(v, max);
        let mut snapshot = |r: &SteadyRecord| {
            progress(live.as_ref(), r, rounds_so_far(r));
            if let Some(c) = checkpoints.as_mut() {
                (c.save)(r.clone());
            }
        };
        let mut smart = || smart_writes(device.as_ref());
        let run = SteadyRun {
            prior: prior.map(|(_, r)| r),
            purge: &mut do_purge,
            judge: &judge,
            snapshot: &mut snapshot,
            smart: &mut smart,
        };
        let result = steady::steady(&target, &o, run, stop);
        if let Some(l) = live {
            l.finish();
        }
        drop(checkpoints);
        let written = cuts.finish();
        let mut rec = result?;
        rec.header.device = device;
        let (json, store) = (self.json, self.store);
        let replace = written.run.or(over);
        Ok(Measured::new(rec, print_steady, json, store, replace))
    }
}

fn say(line: String) {
    if !crate::say::quiet() {
        eprintln!("drivescope: {line}");
    }
}

/// The device's SMART write counters now.
fn smart_writes(device: Option<&drivescope_probe::Identity>) -> SmartWrites {
    match device {
        Some(id) => drivescope_probe::smart_writes_read::read(id),
        None => SmartWrites {
            note: Some("the device was not identified".into()),
            ..SmartWrites::default()
        },
    }
}

/// Where the run stands at each checkpoint: the live view's rounds (`rounds`), or a line.
fn progress(live: Option<&Watching>, r: &SteadyRecord, rounds: Done) {
    match live {
        Some(l) => l.set(rounds),
        None => {
            if let Some(line) = drivescope_report::text::steady_progress(r) {
                say(line);
            }
        }
    }
}

/// The device must exist and be a block device before the gate looks at it.
fn block_device(spec: &str) -> anyhow::Result<()> {
    let meta = std::fs::metadata(spec).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => anyhow::anyhow!("{spec}: no such file or device"),
        _ => anyhow::anyhow!("{spec}: {e}"),
    })?;
    if !std::os::unix::fs::FileTypeExt::is_block_device(&meta.file_type()) {
        return Err(Refused(format!(
            "{spec}: steady writes only to block devices (drivescope never writes to an existing file)"
        ))
        .into());
    }
    Ok(())
}

/// The stored steady run to continue, checked to have stopped before its verdict.
fn load_resumable(s: &Session, p: &SteadyPlan, run: &str) -> anyhow::Result<(RunId, SteadyRecord)> {
    s.resumable(
        &p.store,
        run,
        Some(Kind::Steady),
        "a steady run",
        |r: &SteadyRecord| {
            r.resume
                .is_none()
                .then(|| "ran to its verdict; nothing to resume".into())
        },
    )
}
