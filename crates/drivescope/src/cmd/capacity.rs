//! `drivescope capacity`: a drive's real capacity (counterfeit flash), keeping its data.

use crate::finish::{Cmd, Outcome, Refused};
use crate::opts::destructive::{self, DestructiveOpts};
use crate::opts::store::StoreOpts;
use crate::plan::capacity::CapacityPlan;
use crate::runner::{Measure, Measured, Session};
use anyhow::{bail, Context};
use clap::Args;
use drivescope_core::capacity::{self, journal, FileDevice, JournalHeader, ProbeConfig};
use drivescope_core::safety::{confirmation_example, DeviceName};
use drivescope_core::units::parse_size;
use drivescope_record::{CapacityRecord, Header, Kind};
use drivescope_report::text::print_capacity;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(Args)]
#[command(after_help = "Examples:\n  \
    drivescope capacity /dev/sdX --confirm SERIAL\n  \
    drivescope capacity /dev/sdX --confirm SERIAL --backup /root/sdX.journal\n  \
    drivescope capacity --restore /root/sdX.journal\n\n\
    The probe writes stamped blocks (a few MiB, plus --flush bytes per round) and reads them back. \
    Before each write it saves what was there in a journal and puts it all back at the end; after \
    Ctrl-C, kill -9 or a pulled drive, --restore FILE finishes the job. A drive whose real capacity \
    is below what it reports exits with code 5.")]
pub struct CapacityArgs {
    /// The block device to probe.
    #[arg(value_name = "DEVICE", required_unless_present = "restore")]
    pub target: Option<String>,
    #[arg(long, value_name = "SERIAL", help = confirm_help())]
    pub confirm: Option<String>,
    /// Where to save the data the probe overwrites (a new file, not on DEVICE). Default: a
    /// file beside the results store.
    #[arg(long, value_name = "FILE")]
    pub backup: Option<PathBuf>,
    /// Save nothing: the probe blocks stay on the device (its data there is lost).
    #[arg(long, conflicts_with = "backup")]
    pub destructive: bool,
    /// With --destructive: write even over a partition table or file-system signature.
    #[arg(long, requires = "destructive")]
    pub force: bool,
    /// Put back what an earlier probe's journal saved (after Ctrl-C, kill -9, a pulled drive).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["target", "destructive", "backup"])]
    pub restore: Option<PathBuf>,
    /// Bytes written between writing and reading back the probe blocks, to see through a
    /// cache up to that size.
    #[arg(long, value_name = "SIZE", default_value = "64M", value_parser = parse_size)]
    pub flush: u64,
    /// Probe block size: the precision of the real capacity.
    #[arg(long, value_name = "SIZE", default_value = "4K", value_parser = crate::opts::args::parse_probe_block)]
    pub block: u64,
    /// Print the run's JSON document on stdout instead of the text; stderr then carries only warnings
    /// and errors.
    #[arg(long)]
    pub json: bool,
    /// Only warnings and errors on stderr (no progress lines, no `saved as run N`).
    #[arg(long, short = 'q')]
    pub quiet: bool,
    #[command(flatten)]
    pub store: StoreOpts,
}

fn confirm_help() -> String {
    format!(
        "Name the device: its serial number, or, for a device without one, its model and size \
         as `drivescope info` shows them (\"{}\"); the probe writes, so it always asks",
        confirmation_example()
    )
}

/// The journal's default place: beside the results store.
fn default_backup(store: &StoreOpts, spec: &str) -> anyhow::Result<PathBuf> {
    let dir = match store.named() {
        Some(drivescope_store::Location::Sqlite(p)) => p.parent().map(Path::to_path_buf),
        _ => None,
    }
    .or_else(|| {
        drivescope_store::Store::default_path()
            .ok()
            .and_then(|p| p.parent().map(Path::to_path_buf))
    })
    .context("no directory for the backup journal; name one with --backup FILE")?;
    let name = Path::new(spec)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "device".into());
    let stamp = drivescope_record::now_rfc3339().replace(':', "");
    Ok(dir.join(format!("capacity-{name}-{stamp}.journal")))
}

pub fn plan(a: CapacityArgs) -> anyhow::Result<CapacityPlan> {
    let target = a.target.clone().context("name the DEVICE to probe")?;
    let backup = match (&a.backup, a.destructive) {
        (_, true) => None,
        (Some(p), false) => Some(p.clone()),
        (None, false) => Some(default_backup(&a.store, &target)?),
    };
    Ok(CapacityPlan {
        target,
        cfg: ProbeConfig {
            block: a.block,
            flush: a.flush,
            ..ProbeConfig::default()
        },
        backup,
        backup_named: a.backup.is_some(),
        gate: DestructiveOpts {
            destructive: true,
            confirm: a.confirm,
            force: a.force || !a.destructive,
        },
        store: a.store,
        json: a.json,
    })
}

pub fn run(a: CapacityArgs) -> anyhow::Result<Outcome> {
    if let Some(path) = &a.restore {
        return restore(path, crate::say::quiet());
    }
    crate::runner::main(plan(a)?)
}

/// The device must exist and be a block device before the gate looks at it.
fn block_device(spec: &str) -> anyhow::Result<()> {
    let meta = std::fs::metadata(spec).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => anyhow::anyhow!("{spec}: no such file or device"),
        _ => anyhow::anyhow!("{spec}: {e}"),
    })?;
    if !std::os::unix::fs::FileTypeExt::is_block_device(&meta.file_type()) {
        return Err(Refused(format!(
            "{spec}: capacity writes only to block devices (drivescope never writes to an existing file)"
        ))
        .into());
    }
    Ok(())
}

impl Measure for CapacityPlan {
    type Record = CapacityRecord;
    const CMD: Cmd = Cmd::Capacity;

    fn measure(self, s: &Session) -> anyhow::Result<Measured<CapacityRecord>> {
        let plan = self;
        let spec = plan.target.clone();
        block_device(&spec)?;
        if let Some(b) = &plan.backup {
            if b.exists() {
                bail!(
                    "{}: exists already; name a new --backup file (or restore it with --restore)",
                    b.display()
                );
            }
        }
        let identity = s.device(&spec);
        let target = destructive::open(&spec, &plan.gate, &plan.protected())?;
        // The default journal's directory (beside the store) is made once the gate has let the
        // probe through: building the plan creates nothing.
        if let (Some(dir), false) = (
            plan.backup.as_ref().and_then(|b| b.parent()),
            plan.backup_named,
        ) {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        if target.size < plan.cfg.block {
            bail!(
                "{spec}: {} bytes is smaller than one probe block ({} bytes)",
                target.size,
                plan.cfg.block
            );
        }
        let stop = s.stop();
        let mut header = Header::now(Kind::Capacity, target.info());
        header.device = identity.clone();
        let jh = JournalHeader {
            device: spec.clone(),
            size: target.size,
            block_size: plan.cfg.block,
            confirm: identity
                .as_ref()
                .and_then(DeviceName::of)
                .map(|n| n.confirmation()),
            started_at: header.started_at.clone(),
        };
        let mut dev = FileDevice::new(&target)?;
        let quiet = crate::say::quiet();
        let mut say = |line: String| {
            if !quiet {
                eprintln!("drivescope: {line}");
            }
        };
        let begin = Instant::now();
        let backup = plan.backup.as_deref().map(|p| (p, &jh));
        let done = capacity::run(&mut dev, plan.cfg, backup, stop, &mut say)?;
        let o = done.outcome;
        header.end_now();
        let mut rec = CapacityRecord {
            header,
            block_size: plan.cfg.block,
            nominal: target.size,
            real_capacity: o.real,
            class: o.class,
            modulus: o.modulus,
            cache: o.cache,
            flush_bytes: o.flush_bytes,
            blocks_written: o.blocks_written,
            bytes_written: o.bytes_written,
            bytes_read: o.bytes_read,
            rounds: o.rounds,
            costs: o.costs.map(|c| drivescope_record::CapacityCosts {
                scattered_write_ns: c.scattered_write_ns as u64,
                scattered_read_ns: c.scattered_read_ns as u64,
                seq_write_mib_ns: c.seq_write_mib_ns as u64,
                seq_read_mib_ns: c.seq_read_mib_ns as u64,
            }),
            run_blocks: o.run_blocks,
            scattered_blocks: o.scattered_blocks,
            modelled_genuine_ns: o.modelled_genuine_ns,
            modelled_worst_ns: o.modelled_worst_ns,
            evidence: o.evidence,
            backup: plan.backup.as_ref().map(|p| p.display().to_string()),
            restored: done.restored.is_some(),
            restore_mismatches: done.restored.map_or(0, |r| r.mismatches),
            destructive: plan.backup.is_none(),
            interrupted: o.interrupted,
            duration_ns: begin.elapsed().as_nanos() as u64,
        };
        rec.header.findings = drivescope_analysis::capacity::findings(&rec);
        // A journal restored in full is no longer needed unless the user named it.
        if let (Some(p), true) = (&plan.backup, done.restored.is_some()) {
            if rec.restore_mismatches == 0 && !plan.backup_named {
                let _ = std::fs::remove_file(p);
                rec.backup = None;
            }
        }
        Ok(Measured::new(
            rec,
            print_capacity,
            plan.json,
            plan.store,
            None,
        ))
    }
}

/// `--restore FILE`: put back what a journal saved, on the device it names.
fn restore(path: &Path, quiet: bool) -> anyhow::Result<Outcome> {
    let saved = journal::read(path)?;
    if saved.restored {
        eprintln!(
            "drivescope: {}: already restored; nothing to do",
            path.display()
        );
        return Ok(Outcome::Success);
    }
    let spec = saved.header.device.clone();
    block_device(&spec)?;
    let gate = DestructiveOpts {
        destructive: true,
        force: true,
        confirm: saved.header.confirm.clone(),
    };
    let target = destructive::open(&spec, &gate, &[path.to_path_buf()])?;
    let mut dev = FileDevice::new(&target)?;
    if !quiet {
        eprintln!(
            "drivescope: writing back {} saved extents to {spec}",
            saved.entries.len()
        );
    }
    let r = capacity::restore_file(&mut dev, path)?;
    let line = format!(
        "restored {} ({}) to {spec}{}\n",
        drivescope_units::count(r.entries as u64, "extent"),
        drivescope_core::units::format_size(r.bytes),
        match r.mismatches {
            0 => ", read back equal".to_string(),
            n => format!(", {n} read back different (not kept by the drive)"),
        }
    );
    crate::finish::print_all(line.as_bytes())?;
    Ok(Outcome::Success)
}
