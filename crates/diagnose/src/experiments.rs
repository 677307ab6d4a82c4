//! The experiments, each sized to what it sees and to the time left.

use crate::stream::{stream_watched, StreamSpec, Streamed};
use crate::watched::Watch;
use crate::{Budget, DiagnoseOptions};
use drivescope_analysis::diagnose::{
    flat_top, media_curve, median, position_curve, stream as stream_rules, working_set, write,
    FLAT_SHARE,
};
use drivescope_core::engine::{Engine, EngineError};
use drivescope_core::scan::{self, ScanConfig};
use drivescope_core::target::Target;
use drivescope_record::{
    CurveSource, DiagnoseRecord, Experiment, LinkData, PositionRate, QueueingData, ShapeRate,
    Skipped, StreamData, StreamPoint, WorkingSetData, WorkingSetPoint, WriteData, ZoneData,
};
use drivescope_units::{format_rate, format_size};
use std::cell::RefCell;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

const MIB: u64 = 1 << 20;
/// The largest region the streams cover (a pass over it takes seconds on a hard disk).
const STREAM_REGION: u64 = 1 << 30;
/// Kept free for the short experiments that follow the long ones.
const SHORT_RESERVE: Duration = Duration::from_secs(6);
/// Positions the stream region is cut into (as the analysis cuts it).
const SLOTS: u64 = drivescope_analysis::diagnose::stream::SLOTS;

pub(crate) struct Run<'a, 'b, E: Engine> {
    pub dev: &'a E,
    pub target: &'a Target,
    pub o: &'a DiagnoseOptions,
    pub budget: &'a Budget<E::Clock>,
    pub stop: &'a AtomicBool,
    pub say: &'b mut dyn FnMut(Experiment, &str),
    /// The lost-device rule and what failed or was slow, over every experiment.
    pub watch: RefCell<Watch>,
    /// Opens what the flush experiment writes and flushes (none: it is skipped).
    pub flush: Option<crate::flush::FlushOpener>,
}

/// The media rate over `size` bytes from `start` of a `region`, wrapping to its head.
fn wrapped_media_rate(
    curve: &[PositionRate],
    (region, start, size): (u64, u64, u64),
) -> Option<f64> {
    let tail = size.min(region.saturating_sub(start));
    let parts = [(start, tail), (0, size - tail)];
    let secs: Option<f64> = parts
        .iter()
        .filter(|(_, len)| *len > 0)
        .map(|&(from, len)| Some(len as f64 / stream_rules::media_rate_in(curve, from, len)?))
        .sum();
    secs.filter(|s| *s > 0.0).map(|s| size as f64 / s)
}

fn secs(d: Duration) -> String {
    format!("{:.0} s", d.as_secs_f64())
}

impl<E: Engine> Run<'_, '_, E> {
    /// Block size and region of the streams: 1 MiB commands (smaller on a small region) over up to 1 GiB, a
    /// whole number of slots.
    fn geometry(&self) -> (u64, u64) {
        let size = self.o.size.min(STREAM_REGION);
        let bs = (size / SLOTS / 4).clamp(4096, MIB) / 4096 * 4096;
        let region = size / (SLOTS * bs) * SLOTS * bs;
        (bs, region)
    }

    /// Kept for the write experiments: the write cache's and the flush experiment's share.
    fn write_reserve(&self) -> Duration {
        if self.o.writes {
            (self.budget.total() / 5).min(Duration::from_secs(20)) + self.flush_reserve()
        } else {
            Duration::ZERO
        }
    }

    /// Kept for the flush experiment after the write cache (when writes are allowed, it can run, and the budget
    /// is large enough that its share leaves the others theirs: a smaller one runs it on what they leave).
    fn flush_reserve(&self) -> Duration {
        let total = self.budget.total();
        if self.o.writes && self.flush.is_some() && total >= crate::flush::RESERVED_FROM {
            crate::flush::share(total)
        } else {
            Duration::ZERO
        }
    }

    pub(crate) fn skip(rec: &mut DiagnoseRecord, e: Experiment, why: String) {
        rec.skipped.push(Skipped { experiment: e, why });
    }

    pub fn experiment(
        &mut self,
        e: Experiment,
        rec: &mut DiagnoseRecord,
    ) -> Result<(), EngineError> {
        let (bs, region) = self.geometry();
        if region == 0 {
            Self::skip(
                rec,
                e,
                format!("the region ({}) is too small", format_size(self.o.size)),
            );
            return Ok(());
        }
        if self.budget.left().is_zero() {
            Self::skip(
                rec,
                e,
                format!("the {} budget was spent", secs(self.budget.total())),
            );
            return Ok(());
        }
        self.watch.get_mut().seen.begin(e);
        match e {
            Experiment::WarmUp => self.warm_up(rec, bs, region),
            Experiment::Throttle => self.throttle(rec),
            Experiment::Zones => self.zones(rec, bs),
            Experiment::Link => self.link(rec, region),
            Experiment::Queueing => self.queueing(rec),
            Experiment::ReadCache => self.read_cache(rec, bs, region),
            Experiment::WriteCache => self.write_cache(rec, bs, region),
            Experiment::FlushHonesty => self.flush_honesty(rec),
            Experiment::Smr => self.smr(rec),
            // Run on its own, before these (`array_step`).
            Experiment::Array => Ok(()),
        }
    }

    pub(crate) fn stream(
        &self,
        spec: StreamSpec,
        enough: &mut dyn FnMut(&[StreamPoint]) -> bool,
    ) -> Result<Streamed, EngineError> {
        let mut watch = self.watch.borrow_mut();
        let s = stream_watched(
            self.dev,
            self.target,
            (self.o.engine, self.o.data),
            spec,
            self.stop,
            250_000_000,
            enough,
            &mut watch,
        )?;
        match watch.lost_error() {
            Some(e) => Err(e),
            None => Ok(s),
        }
    }

    fn warm_up(
        &mut self,
        rec: &mut DiagnoseRecord,
        bs: u64,
        region: u64,
    ) -> Result<(), EngineError> {
        let window = (self.budget.total() / 5)
            .clamp(Duration::from_secs(2), Duration::from_secs(36))
            .min(self.budget.left());
        (self.say)(
            Experiment::WarmUp,
            &format!(
                "sequential reads over {} for {}",
                format_size(region),
                secs(window)
            ),
        );
        let s = self.stream(
            StreamSpec {
                region,
                start: 0,
                block_size: bs,
                queue_depth: 4,
                write: false,
                stretch: region / SLOTS,
                max_ns: window.as_nanos() as u64,
                max_bytes: u64::MAX,
            },
            &mut |_| false,
        )?;
        rec.warm_up = Some(StreamData {
            block_size: bs,
            queue_depth: 4,
            region,
            duration_ns: s.duration_ns,
            points: s.points,
        });
        Ok(())
    }

    fn zones(&mut self, rec: &mut DiagnoseRecord, bs: u64) -> Result<(), EngineError> {
        if !self.o.block_device {
            Self::skip(
                rec,
                Experiment::Zones,
                "a file: its positions are not the device's".into(),
            );
            return Ok(());
        }
        // The stream's rate by position is the device's zone curve only where the stream covers the device: on a
        // disk larger than the stream region it is the outer edge alone, and a quick scan reaches the rest. The
        // region is a whole number of slots, which leaves up to a fifth of a small disk's inner edge unread.
        let (_, region) = self.geometry();
        if self.o.whole_device && region as f64 >= 0.97 * self.o.size as f64 {
            let curve = media_curve(rec);
            if !curve.is_empty() {
                rec.zones = Some(ZoneData {
                    source: CurveSource::Stream,
                    curve,
                });
                return Ok(());
            }
        }
        let share = (self.budget.total() / 6).min(self.budget.left().saturating_sub(SHORT_RESERVE));
        let dwell = (share / 256).clamp(Duration::from_millis(20), Duration::from_secs(3));
        if share < Duration::from_secs(5) {
            Self::skip(
                rec,
                Experiment::Zones,
                "too little budget left for a quick scan".into(),
            );
            return Ok(());
        }
        (self.say)(
            Experiment::Zones,
            &format!("quick scan of 256 regions, {} ms each", dwell.as_millis()),
        );
        // Read as the stream reads (its command size, four in flight): a busy host's time per command is a
        // smaller share of a larger one, and the curve's rates are the stream's, which the link's top shares.
        let cfg = ScanConfig {
            quick: Some((256, dwell.as_nanos() as u64)),
            engine: self.o.engine,
            block_size: bs,
            queue_depth: 4,
            ..ScanConfig::default()
        };
        let scan = scan::run(
            self.dev,
            self.target,
            scan::Start::New(&cfg),
            scan::Observer::new(self.stop),
        )
        .map_err(|e| EngineError::Io(std::io::Error::other(e.to_string())))?;
        let watch = self.watch.get_mut();
        watch.seen.scan(Experiment::Zones, &scan);
        if let Some(why) = scan.device_lost.clone() {
            watch.lost.set_lost(why);
            return Err(watch.lost_error().expect("lost"));
        }
        // A quick scan's rate by position is its regions' rates (it keeps no curve of bins).
        let regions = scan.regions.unwrap_or_default();
        let spacing = scan.length / regions.len().max(1) as u64;
        rec.zones = Some(ZoneData {
            source: CurveSource::QuickScan,
            curve: regions
                .iter()
                .map(|r| PositionRate {
                    offset: r.offset,
                    length: spacing,
                    mb_per_s: r.mb_per_s,
                })
                .collect(),
        });
        Ok(())
    }

    fn link(&mut self, rec: &mut DiagnoseRecord, region: u64) -> Result<(), EngineError> {
        // The top is the stream's (the shapes are read as it was); the share of positions on it is over the whole
        // device (a quick scan, read in a shape of its own, where the stream covered only part of it).
        let top = flat_top(&media_curve(rec)).map(|(top, _)| top);
        let share = flat_top(&position_curve(rec)).map(|(_, share)| share);
        let (Some(top), Some(share)) = (top, share) else {
            Self::skip(
                rec,
                Experiment::Link,
                "no rate by position was measured".into(),
            );
            return Ok(());
        };
        let mut data = LinkData {
            top_mb_per_s: top,
            top_share: share,
            shapes: Vec::new(),
            read_to: 0,
        };
        if share >= FLAT_SHARE {
            (self.say)(
                Experiment::Link,
                &format!(
                    "{} over {:.0} % of positions: reads of other shapes",
                    format_rate(top),
                    share * 100.0
                ),
            );
            // Commands of at most 512 KiB: larger ones reach many devices split in two (the block layer's largest
            // request), which a path that serves one request at a time may not stream.
            // Each shape begins where the one before stopped: re-reading what it read, a read cache would serve it.
            let mut start = 0;
            for (block_size, queue_depth) in [(512 << 10, 16), (256 << 10, 32)] {
                let block_size = block_size.min(region / SLOTS);
                // Stretches of about 0.15 s at the top rate, a dozen in the run however slow the device (a slot of
                // a slow device's region outlasts the whole run, and its rate was a part-filled stretch's).
                let stretch = ((top * 1e6 * 0.15) as u64 / block_size)
                    .clamp(1, region / SLOTS / block_size)
                    * block_size;
                let s = self.stream(
                    StreamSpec {
                        region,
                        start: start / block_size * block_size,
                        block_size,
                        queue_depth,
                        write: false,
                        stretch,
                        max_ns: 1_500_000_000,
                        max_bytes: u64::MAX,
                    },
                    &mut |_| false,
                )?;
                start = (start + s.bytes) % region;
                data.read_to = start;
                // The median stretch after the first: neither the start-up (a seek from where the last experiment
                // left the head, the queue filling) nor a stall of the host is the link's.
                let rates = s.points.iter().skip(1).map(|p| p.mb_per_s).collect();
                let Some(mb_per_s) = median(rates) else {
                    continue;
                };
                data.shapes.push(ShapeRate {
                    block_size,
                    queue_depth,
                    mb_per_s,
                });
            }
        }
        rec.link = Some(data);
        Ok(())
    }

    fn queueing(&mut self, rec: &mut DiagnoseRecord) -> Result<(), EngineError> {
        (self.say)(Experiment::Queueing, "RND4K at Q1 and Q32");
        let region = self.o.size / 4096 * 4096;
        let d = 1_500_000_000;
        // Each run reads offsets of its own: the deep one re-reading the first one's would be served by a read
        // cache in front of the media, and look like queueing.
        let q1 = self.random_reads(4096, 1, region, d, 0x5EED)?;
        let deep = self.random_reads(4096, 32, region, d, 0xD11B_5EED)?;
        // Bad spots here and there are read around; where most reads fail there is no rate to compare.
        if let Some(r) = [q1, deep].iter().find(|r| r.errors * 2 > r.commands) {
            Self::skip(
                rec,
                Experiment::Queueing,
                format!(
                    "{} of {} random reads failed: no rate to compare (bad spots; `drivescope scan` maps them)",
                    r.errors, r.commands
                ),
            );
            return Ok(());
        }
        let (q1, deep) = (q1.iops(), deep.iops());
        rec.queueing = Some(QueueingData {
            block_size: 4096,
            queue_depth: 32,
            q1_iops: q1,
            deep_iops: deep,
            deep_mb_per_s: deep * 4096.0 / 1e6,
        });
        Ok(())
    }

    /// Read `size` bytes from `start` of the `region` (wrapping to its head) once and again: the point, or
    /// None when the time ran out first.
    fn working_set(
        &mut self,
        bs: u64,
        (region, start, size): (u64, u64, u64),
        curve: &[PositionRate],
        until: Duration,
    ) -> Result<Option<WorkingSetPoint>, EngineError> {
        let mut rates = Vec::new();
        for _ in 0..2 {
            let left = self.budget.left().saturating_sub(until);
            let s = self.stream(
                StreamSpec {
                    region,
                    start,
                    block_size: bs,
                    queue_depth: 4,
                    write: false,
                    stretch: size,
                    max_ns: left.as_nanos() as u64,
                    max_bytes: size,
                },
                &mut |_| false,
            )?;
            if s.bytes + s.errors * bs < size || s.duration_ns == 0 {
                return Ok(None);
            }
            rates.push(s.bytes as f64 * 1e3 / s.duration_ns as f64);
        }
        Ok(Some(WorkingSetPoint {
            size,
            first_mb_per_s: rates[0],
            again_mb_per_s: rates[1],
            media_mb_per_s: wrapped_media_rate(curve, (region, start, size)),
        }))
    }

    fn read_cache(
        &mut self,
        rec: &mut DiagnoseRecord,
        bs: u64,
        region: u64,
    ) -> Result<(), EngineError> {
        let curve = media_curve(rec);
        let until = self.write_reserve();
        // Past what the link's shapes read last (a read cache may hold it: the first read of a working set
        // there would be the cache's too), wrapping to the region's head.
        let read_to = rec.link.as_ref().map_or(0, |l| l.read_to);
        let start = read_to / bs * bs % region;
        let limit = region;
        let mut data = WorkingSetData {
            block_size: bs,
            queue_depth: 4,
            limit,
            start,
            points: Vec::new(),
        };
        (self.say)(Experiment::ReadCache, "working sets read twice, doubling");
        let align = |s: u64| (s / bs).max(4) * bs;
        let mut size = align((8 * MIB).min(region / 8));
        let result = (|| -> Result<(), EngineError> {
            // Double until a working set is not cached (or the region is reached)...
            loop {
                let Some(p) = self.working_set(bs, (region, start, size), &curve, until)? else {
                    return Ok(());
                };
                data.points.push(p);
                if !working_set::cached(&p, &data.points) || size >= limit {
                    break;
                }
                size = (size * 2).min(limit);
            }
            // ...then narrow the step between the last cached and the first uncached one.
            loop {
                let (Some(lo), Some(hi)) = working_set::bracket(&data.points) else {
                    return Ok(());
                };
                if hi.size as f64 / lo.size as f64 <= working_set::REFINED {
                    return Ok(());
                }
                let mid = align(((lo.size as f64) * (hi.size as f64)).sqrt() as u64);
                if mid <= lo.size || mid >= hi.size {
                    return Ok(());
                }
                let Some(p) = self.working_set(bs, (region, start, mid), &curve, until)? else {
                    return Ok(());
                };
                data.points.push(p);
            }
        })();
        rec.read_cache = Some(data);
        result
    }

    fn write_cache(
        &mut self,
        rec: &mut DiagnoseRecord,
        bs: u64,
        region: u64,
    ) -> Result<(), EngineError> {
        if !self.o.writes {
            Self::skip(rec, Experiment::WriteCache, self.o.no_writes_why.clone());
            return Ok(());
        }
        let curve = media_curve(rec);
        let window = self
            .budget
            .left()
            .saturating_sub(self.flush_reserve())
            .min(Duration::from_secs(30));
        (self.say)(
            Experiment::WriteCache,
            &format!(
                "sequential writes over {} for up to {}",
                format_size(region),
                secs(window)
            ),
        );
        let stretch = (region / 256 / bs).max(1) * bs;
        let view = |points: &[StreamPoint]| WriteData {
            block_size: bs,
            queue_depth: 4,
            region,
            written: points.iter().map(|p| p.bytes).sum(),
            duration_ns: points.last().map_or(0, |p| p.t_ns),
            points: points.to_vec(),
        };
        let mut enough = |points: &[StreamPoint]| {
            let d = view(points);
            match write::step(&d, &curve) {
                Some(s) => write::settled(&s),
                None => d.duration_ns >= 5_000_000_000 && d.written >= region,
            }
        };
        let s = self.stream(
            StreamSpec {
                region,
                start: 0,
                block_size: bs,
                queue_depth: 4,
                write: true,
                stretch,
                max_ns: window.as_nanos() as u64,
                max_bytes: u64::MAX,
            },
            &mut enough,
        )?;
        let mut d = view(&s.points);
        d.duration_ns = s.duration_ns;
        rec.write_cache = Some(d);
        Ok(())
    }
}
