//! `drivescope scan`: arguments -> ScanConfig -> drivescope_core::scan::run -> outputs.

use crate::{progress, summary};
use anyhow::Context;
use clap::Args;
use drivescope_core::engine::EngineKind;
use drivescope_core::scan::{self, Progress, ScanConfig};
use drivescope_core::target::Target;
use drivescope_core::units::{self, SizeOrPercent};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

#[derive(Args)]
pub struct ScanArgs {
    /// Block device (/dev/sdb, /dev/sdb1, /dev/nvme0n1), regular file, or null:SIZE (e.g. null:4T).
    pub target: String,
    /// Size of each read command (binary units: 64K = 64KiB = 65536 bytes).
    #[arg(long, default_value = "64KiB", value_parser = parse_size)]
    pub block_size: u64,
    /// Commands in flight (1 = back to back, like a hardware tester).
    #[arg(long, default_value_t = 1)]
    pub queue_depth: u32,
    /// Start of the range: bytes with units (1G) or a percentage of the device (50%).
    #[arg(long, value_parser = parse_size_or_percent)]
    pub offset: Option<SizeOrPercent>,
    /// Length of the range: bytes with units or a percentage of the device. Default: to the end.
    #[arg(long, value_parser = parse_size_or_percent)]
    pub length: Option<SizeOrPercent>,
    /// Curve resolution: number of position bins.
    #[arg(long, default_value_t = 1000)]
    pub points: usize,
    /// Commands at or over this latency go to the slow list (e.g. 50ms, 1s).
    #[arg(long, default_value = "50ms", value_parser = parse_duration)]
    pub slow: Duration,
    /// I/O engine.
    #[arg(long, value_enum, default_value = "auto")]
    pub engine: EngineArg,
    /// Quick scan: 256 equal regions, reading --dwell at the head of each (seeks included).
    #[arg(long)]
    pub quick: bool,
    /// Quick scan: time spent reading at the head of each region (3s, 500ms).
    #[arg(long, default_value = "3s", value_parser = parse_duration)]
    pub dwell: Duration,
    /// Quick scan: number of regions.
    #[arg(long, default_value_t = 256, hide = true)]
    pub regions: u32,
    /// Interval of the time series.
    #[arg(long, default_value = "1s", value_parser = parse_duration)]
    pub interval: Duration,
    /// Write scan (destructive): not available yet.
    #[arg(long)]
    pub write: bool,
    /// Print one JSON document (schema drivescope/1) on stdout; human text goes to stderr.
    #[arg(long)]
    pub json: bool,
    /// Write the transfer-rate curve as CSV to FILE.
    #[arg(long, value_name = "FILE")]
    pub curve_csv: Option<std::path::PathBuf>,
    /// No progress display.
    #[arg(long, short)]
    pub quiet: bool,
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum EngineArg {
    Auto,
    #[value(name = "io_uring", alias = "io-uring", alias = "uring")]
    IoUring,
    Psync,
    Null,
}

impl From<EngineArg> for EngineKind {
    fn from(e: EngineArg) -> Self {
        match e {
            EngineArg::Auto => EngineKind::Auto,
            EngineArg::IoUring => EngineKind::IoUring,
            EngineArg::Psync => EngineKind::Psync,
            EngineArg::Null => EngineKind::Null,
        }
    }
}

pub fn parse_size(s: &str) -> Result<u64, String> {
    units::parse_size(s).map_err(|e| e.to_string())
}

pub fn parse_size_or_percent(s: &str) -> Result<SizeOrPercent, String> {
    units::parse_size_or_percent(s).map_err(|e| e.to_string())
}

pub fn parse_duration(s: &str) -> Result<Duration, String> {
    units::parse_duration(s).map_err(|e| e.to_string())
}

pub fn run(args: ScanArgs) -> anyhow::Result<ExitCode> {
    if args.write {
        eprintln!(
            "drivescope: scan --write is refused: destructive write scans are not available yet \
             (they will need --destructive and a confirmation naming the device)"
        );
        return Ok(ExitCode::from(super::EXIT_REFUSED));
    }
    let target = Target::open_read(&args.target)?;
    let cfg = ScanConfig {
        engine: args.engine.into(),
        queue_depth: args.queue_depth,
        block_size: args.block_size,
        offset: args.offset,
        length: args.length,
        points: args.points,
        slow_ns: args.slow.as_nanos() as u64,
        interval_ns: (args.interval.as_nanos() as u64).max(1_000_000),
        quick: args
            .quick
            .then_some((args.regions, args.dwell.as_nanos() as u64)),
    };
    let plan = scan::plan(&cfg, &target)?;
    let stop = Arc::new(AtomicBool::new(false));
    crate::signals::stop_on_interrupt(&stop)?;
    let prog = Arc::new(Progress::default());
    let total = match cfg.quick {
        None => progress::Total::Bytes(plan.length),
        Some((regions, _)) => progress::Total::Regions(regions as u64),
    };
    let display = (!args.quiet).then(|| progress::start(prog.clone(), total));
    let result = scan::run(&target, &cfg, prog, &stop);
    if let Some(d) = display {
        d.finish();
    }
    let rec = result?;
    if rec.interrupted {
        eprintln!(
            "drivescope: interrupted after {} of {}; the results below cover what was read",
            units::format_size(rec.covered),
            units::format_size(rec.length)
        );
    }
    if let Some(path) = &args.curve_csv {
        summary::write_curve_csv(path, &rec)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    if args.json {
        summary::print_scan(&rec, &mut std::io::stderr())?;
        serde_json::to_writer_pretty(std::io::stdout().lock(), &rec)?;
        println!();
    } else {
        summary::print_scan(&rec, &mut std::io::stdout())?;
    }
    Ok(if rec.interrupted {
        ExitCode::from(super::EXIT_INTERRUPTED)
    } else {
        ExitCode::SUCCESS
    })
}
