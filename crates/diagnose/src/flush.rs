//! The flush-honesty experiment inside a diagnosis: core's flush run (`drivescope_core::durability::flush`,
//! the one `drivescope durability` runs) on the test file or device region the write experiments use, with a
//! share of the budget, with the flush requests the block layer counted on the device under it around the
//! run (core's `device_flushes`, as `durability` reads them). The verdict is the analysis' rule over what it
//! keeps.

use crate::experiments::Run;
use drivescope_analysis::diagnose::{media_curve, write};
use drivescope_core::durability::device_flushes;
use drivescope_core::durability::file_device::FileFlushDevice;
use drivescope_core::durability::flush::{self, FlushDevice, FlushPlan};
use drivescope_core::engine::{Engine, EngineError};
use drivescope_record::durability::CacheWord;
use drivescope_record::{DiagnoseFlush, DiagnoseRecord, Experiment};
use drivescope_units::format_size;
use std::time::Duration;

/// Opens what the flush experiment writes and flushes: the first `region` bytes of the target, in writes of
/// at most `chunk` bytes; with it, whether those writes bypass the page cache.
pub type OpenFlush = dyn FnMut(u64, usize) -> std::io::Result<(Box<dyn FlushDevice>, bool)> + Send;

/// Reads the flush requests the block layer has counted on the device under the target so far; none where
/// it does not count them.
pub type CountFlushes = dyn FnMut() -> Option<u64> + Send;

/// The device of the flush experiment, opened when it starts, and the block layer's flush count of the
/// device under it, read before and after.
pub struct FlushOpener {
    pub open: Box<OpenFlush>,
    pub count: Box<CountFlushes>,
}

impl FlushOpener {
    /// The file or block device at `path` (the test file drivescope made, or a device the write gate let
    /// through), written with direct I/O where it takes it and flushed with `fdatasync`; the flush requests
    /// counted on the devices `watch` names (core's [`device_flushes::watched`], as `durability` reads them).
    pub fn file(path: &std::path::Path, watch: Vec<String>) -> FlushOpener {
        let path = path.to_path_buf();
        FlushOpener {
            open: Box::new(move |region, chunk| {
                let d = FileFlushDevice::open(&path, region, chunk)?;
                let direct = d.direct;
                Ok((Box::new(d) as Box<dyn FlushDevice>, direct))
            }),
            count: Box::new(move || device_flushes::count(&watch)),
        }
    }
}

impl std::fmt::Debug for FlushOpener {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FlushOpener")
    }
}

/// The least time the experiment is worth starting with (a sustained write, then three rounds of pairs).
pub const LEAST: Duration = Duration::from_secs(2);
/// Most bytes it writes to, from offset 0 (as `durability`).
const MOST_REGION: u64 = 1 << 30;

/// The share of a diagnosis' budget the experiment takes: an eighth, 4 to 15 s.
pub fn share(total: Duration) -> Duration {
    (total / 8).clamp(Duration::from_secs(4), Duration::from_secs(15))
}

/// The smallest budget that keeps the experiment its share (an eighth of it is the least share); under it,
/// the experiment runs on what the others leave.
pub const RESERVED_FROM: Duration = Duration::from_secs(32);

/// The least rest before the experiment (a cache the write experiment filled without a step it could see).
const LEAST_REST: Duration = Duration::from_millis(250);

/// How long a cache the write-cache experiment filled may take to drain: what it held once the writes
/// stepped down to the sustained rate (the bytes written before the step, less what the media wrote
/// meanwhile) at that rate, a quarter more (zero without a step).
pub fn backlog(rec: &DiagnoseRecord) -> Duration {
    let Some(s) = rec
        .write_cache
        .as_ref()
        .and_then(|w| write::step(w, &media_curve(rec)))
    else {
        return Duration::ZERO;
    };
    let rate = s.sustained_mb_per_s * 1e6;
    if !(rate.is_finite() && rate > 0.0) {
        return Duration::ZERO;
    }
    let held = s.written_before as f64 - rate * s.step_ns as f64 / 1e9;
    Duration::from_secs_f64((held / rate).clamp(0.0, 3600.0) * 1.25)
}

impl<E: Engine> Run<'_, '_, E> {
    pub(crate) fn flush_honesty(&mut self, rec: &mut DiagnoseRecord) -> Result<(), EngineError> {
        let e = Experiment::FlushHonesty;
        if !self.o.writes {
            Self::skip(rec, e, self.o.no_writes_why.clone());
            return Ok(());
        }
        let left = self.budget.left();
        if left < LEAST {
            Self::skip(
                rec,
                e,
                "too little budget left for the flush experiment".into(),
            );
            return Ok(());
        }
        let time = share(self.budget.total()).min(left);
        let rest = backlog(rec).clamp(LEAST_REST, time / 4);
        let plan = FlushPlan {
            budget_ns: (time - rest).as_nanos() as u64,
            ..FlushPlan::default()
        };
        let region = self.o.size.min(MOST_REGION) / 4096 * 4096;
        if region < 4 * plan.first {
            Self::skip(
                rec,
                e,
                format!(
                    "the region ({}) is too small for the flush experiment (it needs {})",
                    format_size(region),
                    format_size(4 * plan.first)
                ),
            );
            return Ok(());
        }
        let Some(open) = self.flush.as_mut() else {
            Self::skip(rec, e, "no file or device to write and flush".into());
            return Ok(());
        };
        (self.say)(
            e,
            &format!(
                "a sustained write, then writes of growing size each followed by a timed flush, for up to {:.0} s",
                plan.budget_ns as f64 / 1e9
            ),
        );
        let failed = |err: std::io::Error| EngineError::Io(err);
        let (mut dev, direct) = (open.open)(region, plan.chunk as usize).map_err(failed)?;
        let t0 = dev.now_ns();
        // The experiment takes the device's cache for empty as it starts; the write cache's writes may have
        // left it full, and a cache that ignores flushes keeps it so: it is let drain first.
        dev.idle(rest.as_nanos() as u64);
        // The flush requests that reach the device during the run: none counted while flushes were asked
        // for is a layer above the device that sends none (the rule says whose the early flushes are).
        let counted = (open.count)();
        let run = flush::run(dev.as_mut(), &plan, self.stop).map_err(failed)?;
        let device_flushes = device_flushes::between(counted, (open.count)());
        rec.flush_honesty = Some(DiagnoseFlush {
            region,
            direct,
            cache: CacheWord::of(rec.header.device.as_ref()),
            sustained: run.sustained_record(),
            pairs: run.pair_records(),
            bytes_written: run.bytes_written,
            flushes: run.flushes,
            device_flushes,
            budget_ns: plan.budget_ns,
            rest_ns: rest.as_nanos() as u64,
            duration_ns: dev.now_ns() - t0,
        });
        Ok(())
    }
}
