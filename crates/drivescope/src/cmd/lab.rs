//! `drivescope lab`: emulated reference disks with known ground truth.

use crate::finish::Outcome;
use anyhow::{Context, Result};
use drivescope_core::units::format_size;
use drivescope_lab::fuse_fs::Stats;
use drivescope_lab::{presets, LabGroup, Model};
use drivescope_record::{LabPreset, LabPresets, LabServed};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

#[derive(clap::Args)]
#[command(
    after_help = "MODEL is a preset name (`drivescope lab presets`) or a model file (TOML, see docs/lab.md)."
)]
pub struct LabArgs {
    #[command(subcommand)]
    command: LabCommand,
}

#[derive(clap::Subcommand)]
enum LabCommand {
    /// Serve MODEL as the FUSE file DIR/disk.img until interrupted (needs root and /dev/fuse);
    /// several models as DIR/0/disk.img, DIR/1/disk.img, ... (one line each, in order).
    Serve(ServeLab),
    /// Print the ground truth of MODEL as JSON: rates by position and zone, spots, caches, cap.
    Truth(TruthLab),
    /// List the built-in models (or print one as a model file with --toml).
    Presets {
        /// Print this preset's model file (a starting point for your own).
        #[arg(long, value_name = "NAME")]
        toml: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Unmount lab file systems and detach their loop devices left behind by crashed runs.
    Cleanup,
}

#[derive(clap::Args)]
struct ServeLab {
    /// Preset name or model file; repeat for several disks (the same name may repeat).
    #[arg(value_name = "MODEL", required = true, num_args = 1..)]
    models: Vec<String>,
    /// Mount directory (created if missing).
    #[arg(long, value_name = "DIR")]
    mount: PathBuf,
    /// Also attach the file read-write to a loop device (direct I/O) and print its path.
    #[arg(long = "loop")]
    with_loop: bool,
    /// Override the model's size (binary units: 64M, 1G).
    #[arg(long, value_parser = crate::opts::args::parse_positive_size)]
    size: Option<u64>,
    /// Put all disks behind one shared bus of this many MB/s (10^6 B/s): together they
    /// move no more than this.
    #[arg(long, value_name = "MB/s", value_parser = parse_bus_rate)]
    bus: Option<f64>,
    /// Print one JSON line {image, loop_device} per disk instead of the bare path.
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
struct TruthLab {
    /// Preset name or model file.
    model: String,
    /// Override the model's size (binary units: 64M, 1G).
    #[arg(long, value_parser = crate::opts::args::parse_positive_size)]
    size: Option<u64>,
    /// Command size the expected rates are stated for.
    #[arg(long, default_value = "64K", value_parser = crate::opts::args::parse_block_size)]
    block_size: u64,
    /// Number of equal-width positions (at most 100000).
    #[arg(long, default_value_t = 100, value_parser = clap::builder::RangedU64ValueParser::<usize>::new()
            .range(1..=drivescope_core::scan::MAX_POINTS as u64))]
    points: usize,
    /// State the truth of the device on a shared bus of this many MB/s: its rates alone
    /// on the bus, and the bus rate that caps all devices on it together.
    #[arg(long, value_name = "MB/s", value_parser = parse_bus_rate)]
    bus: Option<f64>,
    /// Accepted for symmetry with other commands: the truth is always JSON.
    #[arg(long)]
    json: bool,
}

fn parse_bus_rate(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(r) if r.is_finite() && r > 0.0 => Ok(r),
        _ => Err(format!("'{s}' is not a positive rate in MB/s")),
    }
}

fn load(model: &str, size: Option<u64>) -> Result<Model> {
    let m = Model::load(model)?;
    Ok(match size {
        Some(s) => m.with_size(s)?,
        None => m,
    })
}

pub fn run(args: LabArgs) -> Result<Outcome> {
    match args.command {
        LabCommand::Presets { toml, json } => presets_cmd(toml, json),
        LabCommand::Truth(t) => truth_cmd(t),
        LabCommand::Serve(a) => {
            let models = a.models.iter().map(|m| load(m, a.size));
            let models = models.collect::<Result<Vec<_>>>()?;
            serve(&models, a.mount, a.with_loop, a.bus, a.json)
        }
        LabCommand::Cleanup => {
            for line in drivescope_lab::cleanup_stale() {
                eprintln!("{line}");
            }
            Ok(Outcome::Success)
        }
    }
}

/// `lab truth`: the model's truth as JSON, alone or as one device of a shared bus.
fn truth_cmd(a: TruthLab) -> Result<Outcome> {
    let _always_json = a.json;
    let m = load(&a.model, a.size)?;
    let t = match a.bus {
        Some(rate) => m.truth_on_bus(a.block_size, a.points, rate),
        None => m.truth_with(a.block_size, a.points),
    };
    crate::finish::print_all(format!("{}\n", serde_json::to_string_pretty(&t)?).as_bytes())?;
    Ok(Outcome::Success)
}

fn presets_cmd(toml: Option<String>, json: bool) -> Result<Outcome> {
    if let Some(name) = toml {
        let text = presets::preset_toml(&name)
            .with_context(|| format!("no preset '{name}' (see `drivescope lab presets`)"))?;
        crate::finish::print_all(text.as_bytes())?;
        return Ok(Outcome::Success);
    }
    if json {
        let list = presets::PRESETS
            .iter()
            .map(|p| LabPreset {
                name: p.name.to_string(),
                summary: p.summary.to_string(),
                size: p.model().size,
            })
            .collect();
        crate::finish::print_json(&LabPresets::new(list))?;
    } else {
        // A reader that stops early (`| head`) is no error.
        let mut text = String::new();
        for p in presets::PRESETS {
            let size = format_size(p.model().size);
            text += &format!("{:<16} {size:>9}  {}\n", p.name, p.summary);
        }
        crate::finish::print_all(text.as_bytes())?;
    }
    Ok(Outcome::Success)
}

fn serve(
    models: &[Model],
    mount: PathBuf,
    with_loop: bool,
    bus_rate: Option<f64>,
    json: bool,
) -> Result<Outcome> {
    let stop = Arc::new(AtomicBool::new(false));
    crate::signals::stop_on_hangup_or_interrupt(&stop)?;
    let group = LabGroup::start(models, &mount, with_loop, bus_rate)?;
    let (devs, several) = (group.devices(), models.len() > 1);
    let mut out = Vec::new();
    for dev in devs {
        let model = dev.model();
        if json {
            let doc = LabServed::new(
                model.name.clone(),
                model.size,
                dev.image().to_path_buf(),
                dev.loop_device().map(Path::to_path_buf),
                dev.bus().map(|b| b.rate_mb_s()),
            );
            writeln!(out, "{}", serde_json::to_string(&doc)?)?;
        } else {
            writeln!(out, "{}", dev.target().display())?;
        }
    }
    crate::finish::print_all(&out)?;
    for dev in devs {
        let model = dev.model();
        eprintln!(
            "drivescope lab: serving '{}' ({}) at {}{}{}; Ctrl-C to stop",
            model.name,
            format_size(model.size),
            dev.image().display(),
            dev.loop_device()
                .map(|l| format!(" on {}", l.display()))
                .unwrap_or_default(),
            dev.bus()
                .map(|b| format!(" behind a shared bus of {} MB/s", b.rate_mb_s()))
                .unwrap_or_default()
        );
    }
    while !stop.load(Ordering::SeqCst) {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    for dev in devs {
        // Several disks: each line names its disk.
        let who = match several {
            true => format!("{}: ", dev.target().display()),
            false => String::new(),
        };
        summarize(&who, &dev.stats());
    }
    if let Some(b) = group.bus() {
        let s = b.stats();
        eprintln!(
            "drivescope lab: the shared bus ({} MB/s) carried {} in {} transfers, {} held up by other disks' transfers",
            s.rate_mb_per_s,
            format_size(s.bytes),
            s.transfers,
            s.waited
        );
    }
    group.stop()?;
    Ok(Outcome::Success)
}

/// The stopping summary of one disk; `who` names it when several are served.
fn summarize(who: &str, s: &Stats) {
    let commands = s.reads + s.writes;
    if s.host_bound * 100 > commands {
        eprintln!(
            "drivescope lab: {who}warning: {} of {commands} commands arrived after the model would have \
             finished them: this machine's FUSE + loop round trip, not the model, set their pace; \
             lower the model's rates (or use a larger block size) to measure the model",
            s.host_bound
        );
    }
    eprintln!(
        "drivescope lab: {who}stopping after {} reads ({}), {} writes ({}), {} errors; replies up to {} late; request sizes {:?}",
        s.reads,
        format_size(s.bytes_read),
        s.writes,
        format_size(s.bytes_written),
        s.errors,
        drivescope_core::units::format_ns(s.max_late_ns),
        s.request_sizes
    );
}
