//! Ground truth: what a correct instrument must find on a model, as data (`drivescope lab truth`).
//!
//! Expected throughput comes from the same service-time formula the emulator schedules with
//! ([`crate::timing`]), evaluated for a steady sequential stream of `block_size` commands:
//! per command `overhead + max(media time, bytes / interface cap)` at QD1 (and on any serial
//! device at any depth); a parallel device at QD > 1 overlaps the overhead and is bound by the
//! media or the interface.
//!
//! The random 4 KiB read rates at QD1 and QD32 come from a deterministic simulation on the same
//! timeline ([`crate::random_reads`]), since a disk that reorders its queue has no closed form.

use crate::model::{zone_start, Model, QueueMode, ZoneLayout, SECTOR};
use crate::random_reads::random_read_iops;
use crate::timing::{media_ns, xfer_ns};
use drivescope_core::scan::MAX_POINTS;
use drivescope_record::{
    Cache, Kind, RateSummary, Spot, ThrottleTruth, Truth, TruthPosition, TruthZone, SCHEMA,
};

/// Block size of the truth's random-read rates (RND4K).
pub const RANDOM_BLOCK: u64 = 4096;

/// Scan block size the truth is stated for unless told otherwise (the scan's default).
pub const DEFAULT_BLOCK: u64 = 64 * 1024;

/// Steady-state nanoseconds per command of `len` bytes at `offset`, at queue depth `qd`,
/// with the media running at `factor` × its rate (warm-up).
pub fn stream_ns_per_command(model: &Model, offset: u64, len: u64, qd: u32, factor: f64) -> f64 {
    let layout = model.zone_layout().expect("validated model");
    stream_ns_in(model, &layout, offset, len, qd, factor)
}

/// [`stream_ns_per_command`] with the model's zone layout already worked out (it is built anew,
/// a vector of zone rates, each time the model is asked for it).
fn stream_ns_in(
    model: &Model,
    layout: &ZoneLayout,
    offset: u64,
    len: u64,
    qd: u32,
    factor: f64,
) -> f64 {
    let media = media_ns(model, layout, offset, len) / factor;
    let bound = match model.interface_mb_s {
        Some(cap) => media.max(xfer_ns(len, cap)),
        None => media,
    };
    let qd1 = model.overhead_ns as f64 + bound;
    match model.queue.mode {
        QueueMode::Serial => qd1,
        QueueMode::Parallel => {
            let n = qd.clamp(1, model.queue.depth) as f64;
            bound.max(qd1 / n)
        }
    }
}

/// Expected MB/s of a sequential read of `[offset, offset + len)` in `block` commands at `qd`.
pub fn expected_range_mb_s(
    model: &Model,
    offset: u64,
    len: u64,
    block: u64,
    qd: u32,
    factor: f64,
) -> f64 {
    let end = (offset + len).min(model.size);
    // Sample at most 4096 commands evenly; exact for ranges up to 4096 blocks.
    let commands = (end - offset).div_ceil(block).max(1);
    let step = commands.div_ceil(4096).max(1);
    let layout = model.zone_layout().expect("validated model");
    let (mut bytes, mut ns) = (0f64, 0f64);
    let mut i = 0;
    while i < commands {
        let o = offset + i * block;
        let l = block.min(end - o);
        let weight = step.min(commands - i) as f64;
        bytes += l as f64 * weight;
        ns += stream_ns_in(model, &layout, o, l, qd, factor) * weight;
        i += step;
    }
    bytes * 1e3 / ns
}

impl Model {
    /// Ground truth at the scan's default block size and 100 positions.
    pub fn truth(&self) -> Truth {
        self.truth_with(DEFAULT_BLOCK, 100)
    }

    /// Ground truth for `block` commands, with `points` equal-width positions.
    pub fn truth_with(&self, block: u64, points: usize) -> Truth {
        let block = block.clamp(SECTOR, self.size);
        let size = self.size;
        let rate = |o: u64, l: u64, qd: u32, f: f64| expected_range_mb_s(self, o, l, block, qd, f);
        let zone_bounds: Vec<(u64, u64)> = match self.zone_layout().expect("validated") {
            ZoneLayout::Steps(r) => (0..r.len())
                .map(|i| {
                    let s = zone_start(r.len(), size, i);
                    let e = if i + 1 == r.len() {
                        size
                    } else {
                        zone_start(r.len(), size, i + 1)
                    };
                    (s, e - s)
                })
                .collect(),
            ZoneLayout::Linear { .. } => vec![(0, size)],
        };
        let zones = zone_bounds
            .iter()
            .enumerate()
            .map(|(index, &(offset, length))| TruthZone {
                index,
                offset,
                length,
                media_mb_per_s: self.media_mb_s(offset),
                mb_per_s: rate(offset, length, 1, 1.0),
            })
            .collect();
        let points = points.clamp(1, (size / block).min(MAX_POINTS as u64) as usize);
        let positions: Vec<TruthPosition> = (0..points)
            .map(|i| {
                let offset = (size as u128 * i as u128 / points as u128) as u64 / SECTOR * SECTOR;
                let end =
                    (size as u128 * (i + 1) as u128 / points as u128) as u64 / SECTOR * SECTOR;
                let length = end - offset;
                TruthPosition {
                    offset,
                    length,
                    media_mb_per_s: self.media_mb_s(offset),
                    mb_per_s: rate(offset, length, 1, 1.0),
                    mb_per_s_qd32: rate(offset, length, 32, 1.0),
                    mb_per_s_cold: self
                        .warmup
                        .as_ref()
                        .map(|w| rate(offset, length, 1, w.factor)),
                }
            })
            .collect();
        let mean = rate(0, size, 1, 1.0);
        let tail = (size / 20).max(block);
        let zone_ratio = rate(size - tail, tail, 1, 1.0) / rate(0, tail, 1, 1.0);
        let rnd = RANDOM_BLOCK.min(size);
        let qd1_iops = random_read_iops(self, rnd, 1);
        let qd32_iops = random_read_iops(self, rnd, 32);
        let spot = |offset: u64, length: u64| Spot {
            offset,
            lba: offset / SECTOR,
            length,
            latency_ns: None,
            read: None,
            write: None,
            marginal: None,
        };
        Truth {
            schema: SCHEMA.into(),
            kind: Kind::LabTruth,
            model: self.name.clone(),
            description: self.description.clone(),
            size,
            logical_block_size: SECTOR,
            block_size: block,
            queue_mode: self.queue.mode,
            queue_depth: self.queue.depth,
            interface_mb_per_s: self.interface_mb_s,
            overhead_ns: self.overhead_ns,
            lookahead_ns: self.lookahead_ns,
            seek_min_ns: self.seek.as_ref().map(|s| s.min_ns),
            seek_max_ns: self.seek.as_ref().map(|s| s.max_ns),
            rpm: self.rotation.as_ref().map(|r| r.rpm),
            avg_rotation_ns: self.rotation.as_ref().map(|r| (30e9 / r.rpm) as u64),
            mb_per_s: RateSummary {
                mean,
                min: positions
                    .iter()
                    .map(|p| p.mb_per_s)
                    .fold(f64::MAX, f64::min),
                max: positions.iter().map(|p| p.mb_per_s).fold(0.0, f64::max),
                without_errors: None,
                error_ns: None,
            },
            zone_ratio,
            scan_ns: (size as f64 * 1e3 / mean) as u64,
            zones,
            positions,
            slow: self
                .slow
                .iter()
                .map(|s| Spot {
                    latency_ns: Some(s.latency_ns),
                    ..spot(s.offset, s.length)
                })
                .collect(),
            bad: self
                .bad
                .iter()
                .map(|s| Spot {
                    latency_ns: Some(s.latency_ns),
                    read: Some(s.read),
                    write: Some(s.write),
                    marginal: (s.marginal > 0).then_some(s.marginal),
                    ..spot(s.offset, s.length)
                })
                .collect(),
            lost_writes: self
                .lost_writes
                .iter()
                .map(|s| spot(s.offset, s.length))
                .collect(),
            read_cache: self.read_cache.as_ref().map(|c| Cache {
                size: c.size,
                mb_per_s: c.rate_mb_s,
            }),
            write_cache: self.write_cache.as_ref().map(|c| Cache {
                size: c.size,
                mb_per_s: c.rate_mb_s,
            }),
            write_rate_factor: self.write_rate_factor,
            warmup_factor: self.warmup.as_ref().map(|w| w.factor),
            warmup_ns: self.warmup.as_ref().map(|w| w.duration_ns),
            seed: self.seed,
            rnd4k_qd1_iops: Some(qd1_iops),
            rnd4k_qd32_iops: Some(qd32_iops),
            rnd4k_queueing_gain: Some(qd32_iops / qd1_iops),
            bus_mb_per_s: None,
            temperature: self.temperature.as_ref().map(|t| t.truth()),
            throttle: self.throttle.as_ref().map(|t| ThrottleTruth {
                factor: t.factor,
                after_ns: t.after_ns,
                cooling_ns: t.cooling_ns,
            }),
            smr: self.smr.as_ref().map(|s| crate::smr::truth(self, s)),
            flash: self
                .flash
                .as_ref()
                .map(|f| crate::flash_served::truth(self, f)),
            capacity: self.fake.as_ref().map(|f| f.truth(size)),
            vanish: self.vanish.as_ref().map(|v| v.truth()),
            flush: crate::flush_truth::truth(self),
        }
    }

    /// Ground truth of this model as one device on a shared bus of `bus_mb_s` (see
    /// [`crate::bus`]): alone on the bus it behaves as if its interface cap were the lower of
    /// its own and the bus rate, so the rates are stated for that; `bus_mb_per_s` names the bus,
    /// which caps the aggregate of all devices on it; `interface_mb_per_s` stays the model's.
    pub fn truth_on_bus(&self, block: u64, points: usize, bus_mb_s: f64) -> Truth {
        let mut alone = self.clone();
        alone.interface_mb_s = Some(self.interface_mb_s.map_or(bus_mb_s, |c| c.min(bus_mb_s)));
        let mut t = alone.truth_with(block, points);
        t.interface_mb_per_s = self.interface_mb_s;
        t.bus_mb_per_s = Some(bus_mb_s);
        t
    }
}

/// Expected aggregate MB/s of devices streaming at `alone_mb_s` each (their rates alone, e.g.
/// from [`Model::truth_on_bus`]) on one shared bus of `bus_mb_s`: the sum, capped by the bus.
pub fn bus_aggregate_mb_s(alone_mb_s: &[f64], bus_mb_s: f64) -> f64 {
    alone_mb_s.iter().sum::<f64>().min(bus_mb_s)
}

#[cfg(test)]
mod tests {
    use crate::timing::{xfer_ns, Op, Timeline};
    use crate::Model;

    #[test]
    fn truth_matches_the_timeline_it_describes() {
        // Drive the timeline the way a QD1 scan does and compare with the truth's zones.
        let m = Model::preset("hdd-7200").unwrap();
        let t = m.truth();
        let mut tl = Timeline::new(&m);
        let bs = t.block_size;
        for z in t.zones.iter().step_by(5) {
            // Skip the first command (it seeks), then time 64 commands.
            let mut now = 1_000_000_000_000u64;
            let o = tl.schedule(Op::Read, z.offset, bs, now);
            now = o.done_ns + 50_000;
            let begin = o.done_ns;
            let mut last = begin;
            for i in 1..65 {
                let o = tl.schedule(Op::Read, z.offset + i * bs, bs, now);
                last = o.done_ns;
                now = o.done_ns + 50_000;
            }
            let r = (64 * bs) as f64 * 1e3 / (last - begin) as f64;
            assert!(
                (r / z.mb_per_s - 1.0).abs() < 1e-3,
                "zone {}: {r} vs {}",
                z.index,
                z.mb_per_s
            );
        }
    }

    #[test]
    fn truth_on_a_bus_matches_the_device_alone_on_it() {
        let m = Model::preset("hdd-7200").unwrap();
        let t = m.truth_on_bus(65536, 100, 120.0);
        assert_eq!(t.bus_mb_per_s, Some(120.0));
        assert_eq!(
            t.interface_mb_per_s, m.interface_mb_s,
            "the model's own cap"
        );
        // The outer zones (200 MB/s media) are held to the bus; the inner ones (100) are not.
        assert!(t.zones[0].mb_per_s < 120.0 && t.zones[0].mb_per_s > 110.0);
        let last = t.zones.last().unwrap();
        assert!((last.mb_per_s / m.truth().zones.last().unwrap().mb_per_s - 1.0).abs() < 1e-9);
        let bus = crate::Bus::new(120.0).unwrap();
        let mut tl = Timeline::on_bus(&m, bus);
        let bs = t.block_size;
        let mut now = 1_000_000_000_000u64;
        for z in t.zones.iter().step_by(5) {
            let o = tl.schedule(Op::Read, z.offset, bs, now);
            now = o.done_ns + 50_000;
            let begin = o.done_ns;
            let mut last = begin;
            for i in 1..65 {
                let o = tl.schedule(Op::Read, z.offset + i * bs, bs, now);
                last = o.done_ns;
                now = o.done_ns + 50_000;
            }
            let r = (64 * bs) as f64 * 1e3 / (last - begin) as f64;
            assert!(
                (r / z.mb_per_s - 1.0).abs() < 1e-3,
                "zone {}: {r} vs {}",
                z.index,
                z.mb_per_s
            );
        }
        assert!(serde_json::to_value(m.truth())
            .unwrap()
            .get("bus_mb_per_s")
            .is_none());
        assert_eq!(super::bus_aggregate_mb_s(&[60.0; 4], 120.0), 120.0);
        assert_eq!(super::bus_aggregate_mb_s(&[60.0; 2], 150.0), 120.0);
    }

    #[test]
    fn truth_of_hdd_7200() {
        let t = Model::preset("hdd-7200").unwrap().truth();
        assert_eq!(t.zones.len(), 16);
        assert_eq!(t.positions.len(), 100);
        // 64 KiB at 200 MB/s is 327.7 µs, plus 15 µs overhead.
        let first = 65536.0 * 1e3 / (15_000.0 + 65536.0 * 1e3 / 200.0);
        assert!((t.zones[0].mb_per_s - first).abs() < 1e-6);
        assert!((t.zone_ratio - 0.52).abs() < 0.02, "{}", t.zone_ratio);
        assert_eq!(t.slow.len(), 2);
        assert_eq!(t.bad[0].lba, (130 << 20) / 512);
        let json = serde_json::to_value(&t).unwrap();
        assert_eq!(json["schema"], "drivescope/1");
        assert_eq!(json["queue_mode"], "parallel");
    }

    #[test]
    fn caps_and_queues_in_the_truth() {
        let usb = Model::preset("usb-bridge-hdd").unwrap().truth();
        assert!(usb.mb_per_s.max < 40.0 && usb.mb_per_s.min > 30.0);
        assert!(
            (usb.zone_ratio - 1.0).abs() < 1e-9,
            "the cap hides the zones"
        );
        for p in &usb.positions {
            assert_eq!(
                p.mb_per_s, p.mb_per_s_qd32,
                "serial: no gain from queue depth"
            );
        }
        let ssd = Model::preset("ssd-slc").unwrap().truth();
        assert!(ssd.positions[0].mb_per_s_qd32 > 1.3 * ssd.positions[0].mb_per_s);
        let nas = Model::preset("nas-1gbe").unwrap().truth();
        assert!(nas.positions[0].mb_per_s_qd32 <= 118.0 + 1e-9);
    }

    #[test]
    fn random_read_rates_by_queueing() {
        let gain = |name: &str| {
            let t = Model::preset(name).unwrap().truth();
            let (q1, q32) = (t.rnd4k_qd1_iops.unwrap(), t.rnd4k_qd32_iops.unwrap());
            assert_eq!(t.rnd4k_queueing_gain, Some(q32 / q1));
            (q1, q32, q32 / q1)
        };
        for p in crate::presets::PRESETS {
            let (q1, q32, g) = gain(p.name);
            eprintln!("{:16} QD1 {q1:8.1} QD32 {q32:9.1} gain {g:.2}", p.name);
        }
        // NCQ: 7200 rpm, seeks 0.8-16 ms: about 76 IOPS at QD1, twice that at QD32.
        let (q1, _, g) = gain("hdd-7200");
        assert!(
            (70.0..85.0).contains(&q1) && (1.5..=2.5).contains(&g),
            "{q1} {g}"
        );
        // A bridge without command queueing: the same at any depth.
        let (_, _, g) = gain("usb-bridge-hdd");
        assert!((g - 1.0).abs() < 0.01, "{g}");
        // Flash: 60 us + 8.5 us at QD1; the media (4 KiB at 480 MB/s) bounds QD32.
        let (q1, q32, _) = gain("ssd-slc");
        let media = xfer_ns(4096, 480.0);
        assert!((q1 * (60_000.0 + media) / 1e9 - 1.0).abs() < 0.01, "{q1}");
        assert!((q32 * media / 1e9 - 1.0).abs() < 0.01, "{q32}");
    }
}
