//! `drivescope durability --power-cut | --verify | --listen`: the guided power-cut test. The
//! writing, logging and checking are `drivescope_core::durability::power_cut*`; this maps the
//! arguments, refuses what must not run, and says what happened.

use super::durability::DurabilityArgs;
use crate::finish::{finish, Finish, Outcome, Refused};
use crate::opts::destructive;
use drivescope_core::durability::power_cut::{parse_log, LogHeader, FILE_NAME, RECORD_BYTES};
use drivescope_core::durability::power_cut_log::{serve_one, AckSink, FileLog, NetLog};
use drivescope_core::durability::power_cut_verify::verify as check_records;
use drivescope_core::durability::power_cut_write::{self as writer, Stopped};
use drivescope_record::durability::DurabilityRecord;
use drivescope_record::{Header, Kind, TargetInfo, TargetType};
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The guided power-cut test's arguments.
#[derive(clap::Args)]
pub struct PowerCutArgs {
    /// The guided power-cut test: write numbered, checksummed 4 KiB records to TARGET, each
    /// flushed and then acknowledged to --log before the next; cut the power meanwhile, then
    /// run --verify after the restart.
    #[arg(long, requires = "log", conflicts_with_all = ["verify", "listen"])]
    pub power_cut: bool,
    /// After a power cut: check every record the log acknowledged on TARGET; lost or torn ones
    /// exit with code 5.
    #[arg(long, requires = "log", conflicts_with = "listen")]
    pub verify: bool,
    /// Keep the acknowledgements of a power-cut writer on another machine: listen on ADDR
    /// (HOST:PORT) and append them to --log, synced, before each answer.
    #[arg(long, value_name = "ADDR", requires = "log")]
    pub listen: Option<String>,
    /// The acknowledgement log: a new file on storage other than TARGET, or HOST:PORT of a
    /// `drivescope durability --listen` on another machine.
    #[arg(long, value_name = "FILE|HOST:PORT")]
    pub log: Option<String>,
    /// With --power-cut: stop after this many records (default: until interrupted, or until
    /// the power goes).
    #[arg(long, value_name = "N", requires = "power_cut")]
    pub records: Option<u64>,
    /// With --power-cut: the size of the record area written round and round (binary units:
    /// 64M, 1G; default 64 MiB, at most the device).
    #[arg(long, value_name = "SIZE", requires = "power_cut", value_parser = crate::opts::args::parse_positive_size)]
    pub size: Option<u64>,
}

impl PowerCutArgs {
    /// Whether the arguments ask for part of the power-cut test.
    pub fn asked(&self) -> bool {
        self.power_cut || self.verify || self.listen.is_some() || self.log.is_some()
    }
}

/// The record area when `--size` is not given.
const DEFAULT_AREA: u64 = 64 << 20;

/// Run whichever of the three the arguments ask for.
pub fn run(a: DurabilityArgs) -> anyhow::Result<Outcome> {
    let log = a.power.log.clone().unwrap_or_default();
    if let Some(addr) = &a.power.listen {
        return listen(addr, Path::new(&log));
    }
    let target = a.target.clone().unwrap_or_default();
    if a.power.verify {
        return verify(&a, &target, &log);
    }
    if !a.power.power_cut {
        anyhow::bail!("--log goes with --power-cut, --verify or --listen");
    }
    write(&a, &target, &log)
}

/// A `--log` that names a listener (HOST:PORT, no slash) rather than a file.
fn is_address(log: &str) -> bool {
    !log.contains('/')
        && log
            .rsplit_once(':')
            .is_some_and(|(host, port)| !host.is_empty() && port.parse::<u16>().is_ok())
}

/// Refuse a log on the storage under test: it would go down with it.
fn refuse_log_on_target(
    log: &str,
    target: &str,
    target_meta: &std::fs::Metadata,
) -> anyhow::Result<()> {
    let same = drivescope_core::durability::power_cut_log::on_target(Path::new(log), target_meta)
        .map_err(|e| anyhow::anyhow!("{log}: {e}"))?;
    if same {
        return Err(Refused(format!(
            "{log}: on the storage under test ({target}); the log must survive the cut: put it \
             on another device, or on another machine with --log HOST:PORT"
        ))
        .into());
    }
    Ok(())
}

fn metadata(spec: &str) -> anyhow::Result<std::fs::Metadata> {
    std::fs::metadata(spec).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => anyhow::anyhow!("{spec}: no such directory or device"),
        _ => anyhow::anyhow!("{spec}: {e}"),
    })
}

/// Where the records go: the test file made in a directory, or the device through the gate.
/// Returns the path written and the record area's size.
fn place(
    a: &DurabilityArgs,
    spec: &str,
    meta: &std::fs::Metadata,
) -> anyhow::Result<(PathBuf, u64)> {
    let area = a.power.size.unwrap_or(DEFAULT_AREA) / RECORD_BYTES * RECORD_BYTES;
    if area == 0 {
        anyhow::bail!("--size: at least one record ({} bytes)", RECORD_BYTES);
    }
    if meta.is_dir() {
        if !drivescope_core::durability::writable_dir(Path::new(spec)) {
            return Err(Refused(format!(
                "{spec}: read-only; the power-cut test writes its records to a test file there"
            ))
            .into());
        }
        let file = Path::new(spec).join(FILE_NAME);
        if file.exists() {
            return Err(Refused(format!(
                "{}: left by an earlier power-cut test; check it with --verify, or remove it",
                file.display()
            ))
            .into());
        }
        let path = writer::make_test_file(Path::new(spec), area)
            .map_err(|e| anyhow::anyhow!("making {}: {e}", file.display()))?;
        return Ok((path, area));
    }
    if !meta.file_type().is_block_device() {
        return Err(Refused(format!(
            "{spec}: the power-cut test writes to a directory (a test file it makes) or a block \
             device, never to an existing file"
        ))
        .into());
    }
    let target = destructive::open(spec, &a.gate, &a.store.protected())?;
    Ok((
        PathBuf::from(spec),
        area.min(target.size / RECORD_BYTES * RECORD_BYTES),
    ))
}

fn write(a: &DurabilityArgs, spec: &str, log: &str) -> anyhow::Result<Outcome> {
    let meta = metadata(spec)?;
    let net = is_address(log);
    if !net {
        refuse_log_on_target(log, spec, &meta)?;
        if Path::new(log).exists() {
            return Err(Refused(format!(
                "{log}: exists; the power-cut log is always a new file"
            ))
            .into());
        }
    }
    let (path, area) = place(a, spec, &meta)?;
    let header = LogHeader::new(spec, 0, area / RECORD_BYTES);
    let sink: anyhow::Result<Box<dyn AckSink>> = if net {
        NetLog::connect(log, &header)
            .map(|l| Box::new(l) as Box<dyn AckSink>)
            .map_err(anyhow::Error::msg)
    } else {
        FileLog::create(Path::new(log), &header)
            .map(|l| Box::new(l) as Box<dyn AckSink>)
            .map_err(|e| anyhow::anyhow!("{log}: {e}"))
    };
    let mut sink = match sink {
        Ok(s) => s,
        Err(e) => {
            if meta.is_dir() {
                let _ = std::fs::remove_file(&path);
            }
            return Err(e);
        }
    };
    let stop = Arc::new(AtomicBool::new(false));
    crate::signals::stop_on_interrupt(&stop)?;
    crate::note!(
        "power-cut test on {spec}: {} records of 4 KiB round {}, each flushed, then logged to {log} \
         before the next",
        header.slots,
        drivescope_units::format_size(area)
    );
    crate::note!(
        "cut the power at any moment; after the restart run: drivescope durability --verify {spec} \
         --log {log}"
    );
    let mut last = Instant::now();
    let written = writer::write(
        &path,
        &header,
        a.power.records,
        sink.as_mut(),
        &stop,
        &mut |n| {
            if last.elapsed() >= Duration::from_secs(5) {
                last = Instant::now();
                crate::note!("{n} records acknowledged");
            }
        },
    )
    .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let held = format!(
        "the log holds records 0 to {} ({} acknowledged)",
        written.acknowledged.saturating_sub(1),
        written.acknowledged
    );
    let held = if written.acknowledged == 0 {
        "no record was acknowledged".to_string()
    } else {
        held
    };
    Ok(match written.stopped {
        Stopped::Count => {
            crate::note!("wrote {} records; {held}", written.written);
            Outcome::Success
        }
        Stopped::Interrupted => {
            crate::note!("stopped; {held}");
            Outcome::Interrupted
        }
        Stopped::Target(why) | Stopped::Log(why) => {
            eprintln!("drivescope: stopped: {why}; {held}");
            Outcome::Failed
        }
    })
}

fn verify(a: &DurabilityArgs, spec: &str, log: &str) -> anyhow::Result<Outcome> {
    let started = Instant::now();
    let meta = metadata(spec)?;
    let text = std::fs::read_to_string(log).map_err(|e| anyhow::anyhow!("{log}: {e}"))?;
    let parsed = parse_log(&text).map_err(|e| anyhow::anyhow!("{log}: {e}"))?;
    let (path, kind, on) = if meta.is_dir() {
        let f = Path::new(spec).join(FILE_NAME);
        if !f.exists() {
            anyhow::bail!("{spec}: no power-cut test file ({FILE_NAME}) to check");
        }
        (f, TargetType::File, "file")
    } else if meta.file_type().is_block_device() {
        (PathBuf::from(spec), TargetType::Block, "device")
    } else {
        anyhow::bail!("{spec}: give the directory or the device the power-cut test wrote to");
    };
    if parsed.header.target != spec {
        crate::note!(
            "the log was written for {}; checking {spec} as that target",
            parsed.header.target
        );
    }
    let check = check_records(&path, &parsed, log).map_err(anyhow::Error::msg)?;
    let info = TargetInfo {
        path: spec.into(),
        kind,
        size: 0,
        logical_block_size: 512,
    };
    let mut header = Header::now(Kind::Durability, info);
    header.device = crate::identity::of(spec);
    let cache = drivescope_record::durability::CacheWord::of(header.device.as_ref());
    header.end_now();
    let broken = check.broken();
    let mut rec = DurabilityRecord {
        cache,
        duration_ns: started.elapsed().as_nanos() as u64,
        power_cut: Some(check),
        ..DurabilityRecord::empty(header, on)
    };
    drivescope_analysis::durability::assess(&mut rec);
    if on == "file" && !broken {
        // Nothing to show: the test file goes, as every test file does.
        let _ = std::fs::remove_file(&path);
    }
    let print = crate::finish::and_findings(drivescope_report::text::print_durability);
    finish(
        rec,
        &print,
        Finish {
            json: a.json,
            store: &a.store,
            replace: None,
            resume_with: None,
        },
    )
}

fn listen(addr: &str, log: &Path) -> anyhow::Result<Outcome> {
    if log.exists() {
        return Err(Refused(format!(
            "{}: exists; the power-cut log is always a new file",
            log.display()
        ))
        .into());
    }
    let listener = std::net::TcpListener::bind(addr)
        .map_err(|e| anyhow::anyhow!("listening on {addr}: {e}"))?;
    let bound = listener
        .local_addr()
        .map_or(addr.to_string(), |a| a.to_string());
    crate::note!(
        "listening on {bound}: a power-cut writer's acknowledgements go to {}",
        log.display()
    );
    let done = serve_one(&listener, log).map_err(anyhow::Error::msg)?;
    if done.ended {
        crate::note!(
            "the writer at {} stopped after {} records; {} holds them",
            done.peer,
            done.records,
            log.display()
        );
    } else {
        crate::note!(
            "the connection from {} ended after {} records (the power cut?); {} holds every \
             acknowledged one",
            done.peer,
            done.records,
            log.display()
        );
    }
    Ok(Outcome::Success)
}
