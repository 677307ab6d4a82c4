//! The model of an emulated disk: what it is (size, zones, caches, spots) and how fast it is.
//!
//! A model is plain data. It is read from TOML (see `docs/lab.md` for the format) or built
//! from a preset, validated once, and then handed to the timing code ([`crate::timing`]) and the
//! ground truth ([`crate::truth`]). Sizes accept `64K`/`1M`/`1G` (binary) or a number of bytes;
//! durations accept `20us`/`8ms`/`30s` or a number of seconds; rates are MB/s (10^6 B/s).

use crate::units::{de_duration_ns, de_size};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Sector size the emulated disk reports and aligns spots to.
pub const SECTOR: u64 = 512;

/// Errors found while reading or checking a model.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    #[error("model file {path}: {error}")]
    Io { path: String, error: std::io::Error },
    #[error("model {origin}: {message}")]
    Parse { origin: String, message: String },
    #[error("model '{name}': {message}")]
    Invalid { name: String, message: String },
    #[error("'{0}' is neither a preset (see `drivescope lab presets`) nor a model file")]
    Unknown(String),
}

/// How the media rate falls from the outer edge (offset 0) to the inner edge (the end).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Zones {
    /// Explicit rates of equal-width zones, outer to inner (MB/s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rates_mb_s: Option<Vec<f64>>,
    /// Number of equal-width zones whose rates step evenly from `outer_mb_s` to `inner_mb_s`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outer_mb_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inner_mb_s: Option<f64>,
    /// With `outer_mb_s`/`inner_mb_s` and no `count`: a continuous linear fall.
    #[serde(default)]
    pub linear: bool,
}

/// The zone layout after validation.
#[derive(Debug, Clone, PartialEq)]
pub enum ZoneLayout {
    /// Equal-width zones with constant rates (MB/s), outer to inner.
    Steps(Vec<f64>),
    /// Rate falls linearly from `outer` at offset 0 to `inner` at the end.
    Linear { outer: f64, inner: f64 },
}

/// Seek time by distance: `min + (max - min) * sqrt(distance / size)` for any non-zero distance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Seek {
    #[serde(deserialize_with = "de_duration_ns", rename = "min")]
    pub min_ns: u64,
    #[serde(deserialize_with = "de_duration_ns", rename = "max")]
    pub max_ns: u64,
}

/// Spindle speed; a non-sequential command waits a rotational latency drawn uniformly from
/// one revolution (average: half a revolution).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rotation {
    pub rpm: f64,
}

/// A range of the disk whose commands take extra time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SlowSpot {
    #[serde(deserialize_with = "de_size")]
    pub offset: u64,
    #[serde(deserialize_with = "de_size", default = "default_spot_len")]
    pub length: u64,
    /// Extra latency of every command that touches the range.
    #[serde(deserialize_with = "de_duration_ns", rename = "latency")]
    pub latency_ns: u64,
}

/// A range that fails with EIO.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BadSpot {
    #[serde(deserialize_with = "de_size")]
    pub offset: u64,
    #[serde(deserialize_with = "de_size", default = "default_spot_len")]
    pub length: u64,
    #[serde(default = "yes")]
    pub read: bool,
    #[serde(default)]
    pub write: bool,
    /// How long a failing command takes before it reports the error.
    #[serde(
        deserialize_with = "de_duration_ns",
        rename = "latency",
        default = "default_bad_latency"
    )]
    pub latency_ns: u64,
    /// Bytes on either side of the spot whose sectors read fine the first time and fail every
    /// read after it: the damage of a failing drive that grows as it is read. 0: none.
    #[serde(deserialize_with = "de_size", default)]
    pub marginal: u64,
}

/// A range whose writes are acknowledged but not stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LostWrites {
    #[serde(deserialize_with = "de_size")]
    pub offset: u64,
    #[serde(deserialize_with = "de_size", default = "default_spot_len")]
    pub length: u64,
}

/// A read cache: reads wholly inside recently read or written data are served at `rate_mb_s`
/// with no positioning. LRU in 64 KiB granules.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReadCache {
    #[serde(deserialize_with = "de_size")]
    pub size: u64,
    pub rate_mb_s: f64,
}

/// A write-back cache: writes are taken at `rate_mb_s` while there is room; dirty data drains
/// to the media at the media write rate; a full cache makes writes wait for the drain. A flush
/// (an `fsync` of the image, which a loop device sends for a flush request) waits for the drain
/// as `flush` says; `protected` declares power-loss protection (the cache survives a power cut).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WriteCache {
    #[serde(deserialize_with = "de_size")]
    pub size: u64,
    pub rate_mb_s: f64,
    #[serde(default)]
    pub flush: FlushPolicy,
    /// With `flush = "partial"`: the share of the dirty data a flush writes out before it returns.
    #[serde(default = "default_flushed_share")]
    pub flushed_share: f64,
    /// Power-loss protection declared: data in the cache survives a power cut.
    #[serde(default)]
    pub protected: bool,
    /// `false`: a non-volatile fast tier (an SSD's SLC cache, an SMR disk's media cache) in front of
    /// slower media: what it took is durable there, so a flush waits for nothing, a power cut loses
    /// nothing, and nothing is declared.
    #[serde(default = "volatile_default")]
    pub volatile: bool,
}

fn volatile_default() -> bool {
    true
}

impl WriteCache {
    /// What it took survives a power cut: declared protected, or not volatile at all.
    pub fn keeps(&self) -> bool {
        self.protected || !self.volatile
    }

    /// What a flush does: a non-volatile tier's returns at once whatever the policy says.
    pub fn flush_policy(&self) -> FlushPolicy {
        if self.volatile {
            self.flush
        } else {
            FlushPolicy::Ignored
        }
    }
}

/// What a write cache does with a flush.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FlushPolicy {
    /// The flush returns once every dirty byte is on the media.
    #[default]
    Honoured,
    /// The flush returns at once; the cache drains in its own time.
    Ignored,
    /// The flush returns once `flushed_share` of the dirty bytes are on the media.
    Partial,
}

impl FlushPolicy {
    pub fn as_str(self) -> &'static str {
        match self {
            FlushPolicy::Honoured => "honoured",
            FlushPolicy::Ignored => "ignored",
            FlushPolicy::Partial => "partial",
        }
    }
}

fn default_flushed_share() -> f64 {
    0.1
}

pub use drivescope_record::QueueMode;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Queue {
    pub mode: QueueMode,
    #[serde(default = "one")]
    pub depth: u32,
}

/// The media runs at `factor` × its rate for the first `duration` after the first command.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Warmup {
    pub factor: f64,
    #[serde(deserialize_with = "de_duration_ns", rename = "duration")]
    pub duration_ns: u64,
}

/// A complete model of an emulated disk.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Model {
    pub name: String,
    #[serde(default)]
    pub description: String,
    #[serde(deserialize_with = "de_size")]
    pub size: u64,
    pub zones: Zones,
    /// Media write rate as a fraction of the read rate (1.0 for disks; < 1 for flash whose
    /// native writes are slower than its reads).
    #[serde(default = "unity")]
    pub write_rate_factor: f64,
    /// Fixed cost of every command (controller, bus protocol, host path).
    #[serde(deserialize_with = "de_duration_ns", rename = "overhead", default)]
    pub overhead_ns: u64,
    /// Host gap bridged on a sequential stream: a command that arrives within this time of the
    /// previous command's completion continues the stream as if it had arrived at once. It
    /// hides the emulator's own FUSE + loop round trip and short stalls of the loop worker.
    #[serde(
        deserialize_with = "de_duration_ns",
        rename = "lookahead",
        default = "default_lookahead"
    )]
    pub lookahead_ns: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seek: Option<Seek>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotation: Option<Rotation>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub slow: Vec<SlowSpot>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bad: Vec<BadSpot>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lost_writes: Vec<LostWrites>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_cache: Option<ReadCache>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_cache: Option<WriteCache>,
    #[serde(default = "serial")]
    pub queue: Queue,
    /// Interface cap in MB/s (USB 2.0 ≈ 40, 1 GbE ≈ 118, SATA II ≈ 280).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interface_mb_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warmup: Option<Warmup>,
    /// The disk's temperature, served as `temp1_input` beside the image (lab/src/temperature.rs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<crate::temperature::Temperature>,
    /// Thermal throttling after sustained work (see [`crate::throttle`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub throttle: Option<crate::throttle::Throttle>,
    /// A drive-managed SMR disk's media cache (see [`crate::smr`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub smr: Option<crate::smr::Smr>,
    /// A flash drive's pages, blocks, spare area and garbage collection (see
    /// [`crate::flash_served`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flash: Option<crate::flash_served::FlashSpec>,
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// A disk that reports `size` but keeps less (see [`crate::fake`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fake: Option<crate::fake::Fake>,
    /// A disk that goes away mid-run (see [`crate::vanish`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vanish: Option<crate::vanish::Vanish>,
    /// Replies the host sees late while the disk goes on (see [`crate::late`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub late_replies: Option<crate::late::LateReplies>,
}

fn default_spot_len() -> u64 {
    4096
}
fn default_bad_latency() -> u64 {
    20_000_000
}
fn default_lookahead() -> u64 {
    8_000_000
}
fn default_seed() -> u64 {
    1
}
fn yes() -> bool {
    true
}
fn one() -> u32 {
    1
}
fn unity() -> f64 {
    1.0
}
fn serial() -> Queue {
    Queue {
        mode: QueueMode::Serial,
        depth: 1,
    }
}

/// A TOML error as one line: where (`line 3, column 1`) and what, without the quoted source
/// lines and caret that `toml` draws under it.
fn one_line(text: &str, e: &toml::de::Error) -> String {
    let what = e
        .message()
        .lines()
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(" ");
    let before = e.span().and_then(|s| text.get(..s.start));
    match before {
        Some(before) => {
            let line = before.matches('\n').count() + 1;
            let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
            format!("line {line}, column {column}: {what}")
        }
        None => what,
    }
}

impl Model {
    /// Parse a TOML model and validate it. `origin` names the source in errors.
    pub fn from_toml_str(text: &str, origin: &str) -> Result<Model, ModelError> {
        let model: Model = toml::from_str(text).map_err(|e| ModelError::Parse {
            origin: origin.to_string(),
            message: one_line(text, &e),
        })?;
        model.validate()?;
        Ok(model)
    }

    /// Read a TOML model file and validate it.
    pub fn from_toml_file(path: &Path) -> Result<Model, ModelError> {
        let text = std::fs::read_to_string(path).map_err(|error| ModelError::Io {
            path: path.display().to_string(),
            error,
        })?;
        Model::from_toml_str(&text, &path.display().to_string())
    }

    /// The same model with another size. Spots beyond the new size are dropped, zones scale;
    /// a fake keeps the same share of its size (4 KiB aligned) and the same cache.
    pub fn with_size(mut self, size: u64) -> Result<Model, ModelError> {
        if let Some(f) = &mut self.fake {
            let real = (f.real as u128 * size as u128 / self.size.max(1) as u128) as u64;
            f.real = (real / crate::fake::GRANULE * crate::fake::GRANULE).max(crate::fake::GRANULE);
        }
        self.size = size;
        self.slow.retain(|s| s.offset + s.length <= size);
        self.bad.retain(|s| s.offset + s.length <= size);
        self.lost_writes.retain(|s| s.offset + s.length <= size);
        self.validate()?;
        Ok(self)
    }

    /// The same disk with its media (zone) rates multiplied by `k`; caches, interface and
    /// latencies stay. Tests use it to keep a model's commands longer than the emulator's own
    /// FUSE + loop round trip on a slow machine.
    pub fn with_rate_scale(mut self, k: f64) -> Result<Model, ModelError> {
        if !(k.is_finite() && k > 0.0) {
            return Err(self.invalid(format!("rate scale {k} must be positive")));
        }
        let z = &mut self.zones;
        if let Some(r) = &mut z.rates_mb_s {
            r.iter_mut().for_each(|v| *v *= k);
        }
        z.outer_mb_s = z.outer_mb_s.map(|v| v * k);
        z.inner_mb_s = z.inner_mb_s.map(|v| v * k);
        self.validate()?;
        Ok(self)
    }

    /// The same disk's shape at rates a slow host can emulate: media rates scaled down so that
    /// no zone exceeds `max_mb_s`, and a lookahead of at least 50 ms, so that a stalled vCPU
    /// costs a sequential stream no time. Zone ratio, spots, seeks and latencies stay.
    pub fn paced(self, max_mb_s: f64) -> Result<Model, ModelError> {
        let k = (max_mb_s / self.peak_media_mb_s()).min(1.0);
        let mut model = self.with_rate_scale(k)?;
        model.lookahead_ns = model.lookahead_ns.max(50_000_000);
        Ok(model)
    }

    /// The fastest media rate of any zone (MB/s).
    pub fn peak_media_mb_s(&self) -> f64 {
        match self.zone_layout() {
            Ok(ZoneLayout::Steps(r)) => r.iter().cloned().fold(0.0, f64::max),
            Ok(ZoneLayout::Linear { outer, inner }) => outer.max(inner),
            Err(_) => 0.0,
        }
    }

    fn invalid(&self, message: impl Into<String>) -> ModelError {
        ModelError::Invalid {
            name: self.name.clone(),
            message: message.into(),
        }
    }

    /// The zone layout, checked.
    pub fn zone_layout(&self) -> Result<ZoneLayout, ModelError> {
        let z = &self.zones;
        let positive = |v: f64| v.is_finite() && v > 0.0;
        if let Some(rates) = &z.rates_mb_s {
            if z.count.is_some() || z.outer_mb_s.is_some() || z.inner_mb_s.is_some() || z.linear {
                return Err(self.invalid(
                    "zones: give either rates_mb_s, or outer_mb_s/inner_mb_s (with count or linear)",
                ));
            }
            if rates.is_empty() || !rates.iter().all(|r| positive(*r)) {
                return Err(self.invalid("zones.rates_mb_s must hold positive rates"));
            }
            return Ok(ZoneLayout::Steps(rates.clone()));
        }
        let (Some(outer), Some(inner)) = (z.outer_mb_s, z.inner_mb_s) else {
            return Err(self.invalid("zones need rates_mb_s, or outer_mb_s and inner_mb_s"));
        };
        if !positive(outer) || !positive(inner) {
            return Err(self.invalid("zone rates must be positive"));
        }
        match (z.count, z.linear) {
            (Some(_), true) => Err(self.invalid("zones: count and linear exclude each other")),
            (Some(0), _) => Err(self.invalid("zones.count must be at least 1")),
            (Some(1), _) => Ok(ZoneLayout::Steps(vec![outer])),
            (Some(n), _) => Ok(ZoneLayout::Steps(
                (0..n)
                    .map(|i| outer + (inner - outer) * i as f64 / (n - 1) as f64)
                    .collect(),
            )),
            (None, true) => Ok(ZoneLayout::Linear { outer, inner }),
            (None, false) if outer == inner => Ok(ZoneLayout::Steps(vec![outer])),
            (None, false) => {
                Err(self
                    .invalid("zones: with outer_mb_s != inner_mb_s say count = N or linear = true"))
            }
        }
    }

    /// Check everything once, so the timing code can trust the model.
    pub fn validate(&self) -> Result<(), ModelError> {
        if self.size < 1 << 20 || !self.size.is_multiple_of(SECTOR) {
            return Err(self.invalid("size must be at least 1 MiB and a multiple of 512"));
        }
        let layout = self.zone_layout()?;
        if let ZoneLayout::Steps(r) = &layout {
            if r.len() as u64 > self.size / SECTOR {
                return Err(self.invalid("more zones than sectors"));
            }
        }
        let pos = |v: f64| v.is_finite() && v > 0.0;
        if !pos(self.write_rate_factor) {
            return Err(self.invalid("write_rate_factor must be positive"));
        }
        if let Some(s) = &self.seek {
            if s.min_ns > s.max_ns {
                return Err(self.invalid("seek.min exceeds seek.max"));
            }
        }
        if let Some(r) = &self.rotation {
            if !pos(r.rpm) {
                return Err(self.invalid("rotation.rpm must be positive"));
            }
        }
        let in_range = |o: u64, l: u64| l > 0 && o.checked_add(l).is_some_and(|e| e <= self.size);
        for s in &self.slow {
            if !in_range(s.offset, s.length) {
                return Err(
                    self.invalid(format!("slow spot at {} lies outside the disk", s.offset))
                );
            }
        }
        for s in &self.bad {
            if !in_range(s.offset, s.length) {
                return Err(self.invalid(format!("bad spot at {} lies outside the disk", s.offset)));
            }
            if !s.read && !s.write {
                return Err(self.invalid("a bad spot must fail reads, writes or both"));
            }
            if s.marginal > 0 && (!s.read || !s.marginal.is_multiple_of(512)) {
                return Err(self.invalid(
                    "a bad spot's margin is whole 512-byte sectors around a spot that fails reads",
                ));
            }
        }
        for s in &self.lost_writes {
            if !in_range(s.offset, s.length) {
                return Err(self.invalid(format!(
                    "lost-write spot at {} lies outside the disk",
                    s.offset
                )));
            }
        }
        if let Some(c) = &self.read_cache {
            if !pos(c.rate_mb_s) || c.size == 0 {
                return Err(self.invalid("read_cache needs a size and a positive rate"));
            }
        }
        if let Some(c) = &self.write_cache {
            if !pos(c.rate_mb_s) || c.size == 0 {
                return Err(self.invalid("write_cache needs a size and a positive rate"));
            }
            if !(c.flushed_share >= 0.0 && c.flushed_share <= 1.0) {
                return Err(self.invalid("write_cache.flushed_share must lie in [0, 1]"));
            }
        }
        if self.queue.depth == 0 || self.queue.depth > 1024 {
            return Err(self.invalid("queue.depth must lie in 1..=1024"));
        }
        if self.queue.mode == QueueMode::Serial && self.queue.depth != 1 {
            return Err(self.invalid("a serial queue has depth 1"));
        }
        if let Some(c) = self.interface_mb_s {
            if !pos(c) {
                return Err(self.invalid("interface_mb_s must be positive"));
            }
        }
        if let Some(w) = &self.warmup {
            if !pos(w.factor) || w.factor > 1.0 {
                return Err(self.invalid("warmup.factor must lie in (0, 1]"));
            }
        }
        if let Some(why) = self.temperature.as_ref().and_then(|t| t.problem()) {
            return Err(self.invalid(why));
        }
        if let Some(t) = &self.throttle {
            t.check().map_err(|m| self.invalid(m))?;
        }
        if let Some(s) = &self.smr {
            s.check().map_err(|m| self.invalid(m))?;
            if self.write_cache.is_some() {
                return Err(self.invalid("smr and write_cache exclude each other"));
            }
        }
        if let Some(f) = &self.flash {
            f.check(self.size).map_err(|m| self.invalid(m))?;
            if self.write_cache.is_some() || self.smr.is_some() || self.fake.is_some() {
                return Err(self.invalid("flash excludes write_cache, smr and fake"));
            }
        }
        if let Some(f) = &self.fake {
            f.check(self.size).map_err(|m| self.invalid(m))?;
        }
        if let Some(v) = &self.vanish {
            v.check(self.size).map_err(|m| self.invalid(m))?;
        }
        if let Some(l) = &self.late_replies {
            l.check().map_err(|m| self.invalid(m))?;
        }
        Ok(())
    }

    /// Media read rate (MB/s) at a byte offset, before caches, cap and warm-up.
    pub fn media_mb_s(&self, offset: u64) -> f64 {
        match self.zone_layout().expect("validated model") {
            ZoneLayout::Steps(r) => r[zone_index(r.len(), self.size, offset)],
            ZoneLayout::Linear { outer, inner } => {
                outer + (inner - outer) * (offset.min(self.size) as f64 / self.size as f64)
            }
        }
    }

    /// Serialize back to TOML-compatible JSON-ish data (used by `lab truth`).
    pub fn as_json(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("model serializes")
    }
}

/// Index of the equal-width zone holding `offset`.
pub fn zone_index(zones: usize, size: u64, offset: u64) -> usize {
    let i = (offset as u128 * zones as u128 / size.max(1) as u128) as usize;
    i.min(zones - 1)
}

/// Start offset of equal-width zone `i`, sector aligned.
pub fn zone_start(zones: usize, size: u64, i: usize) -> u64 {
    let raw = (size as u128 * i as u128).div_ceil(zones as u128) as u64;
    raw.div_ceil(SECTOR) * SECTOR
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINIMAL: &str = r#"
name = "t"
size = "64M"
zones = { count = 4, outer_mb_s = 200, inner_mb_s = 100 }
"#;

    #[test]
    fn pacing_scales_rates_keeps_the_shape_and_bridges_longer_gaps() {
        let m = Model::from_toml_str(MINIMAL, "test").unwrap();
        let p = m.clone().paced(50.0).unwrap();
        assert_eq!(p.peak_media_mb_s(), 50.0);
        let ZoneLayout::Steps(r) = p.zone_layout().unwrap() else {
            panic!("steps")
        };
        let want = [50.0, 125.0 / 3.0, 100.0 / 3.0, 25.0];
        assert!(
            r.iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-9),
            "{r:?}"
        );
        assert_eq!(p.lookahead_ns, 50_000_000);
        // A model already slower than the cap keeps its rates.
        assert_eq!(m.clone().paced(400.0).unwrap().peak_media_mb_s(), 200.0);
        assert!(m.with_rate_scale(0.0).is_err());
    }

    #[test]
    fn minimal_model_parses_with_defaults() {
        let m = Model::from_toml_str(MINIMAL, "test").unwrap();
        assert_eq!(m.size, 64 << 20);
        assert_eq!(m.queue.mode, QueueMode::Serial);
        assert_eq!(m.lookahead_ns, 8_000_000);
        let ZoneLayout::Steps(r) = m.zone_layout().unwrap() else {
            panic!("steps expected")
        };
        let expect = [200.0, 200.0 - 100.0 / 3.0, 100.0 + 100.0 / 3.0, 100.0];
        assert!(
            r.iter().zip(expect).all(|(a, b)| (a - b).abs() < 1e-9),
            "{r:?}"
        );
        assert_eq!(m.media_mb_s(0), 200.0);
        assert_eq!(m.media_mb_s((64 << 20) - 1), 100.0);
    }

    #[test]
    fn full_model_parses() {
        let text = r#"
name = "full"
size = 134217728
zones = { linear = true, outer_mb_s = 150, inner_mb_s = 75 }
overhead = "50us"
seek = { min = "1ms", max = "12ms" }
rotation = { rpm = 5400 }
slow = [{ offset = "10M", length = "64K", latency = "80ms" }]
bad = [{ offset = "20M", read = true, write = true }]
lost_writes = [{ offset = "30M", length = "1M" }]
read_cache = { size = "8M", rate_mb_s = 1000 }
write_cache = { size = "16M", rate_mb_s = 900 }
queue = { mode = "parallel", depth = 8 }
interface_mb_s = 118
warmup = { factor = 0.5, duration = "20s" }
temperature = { start_c = 9, idle_c = 22, busy_c = 26, time_constant = "8s" }
throttle = { factor = 0.45, after = "15s", cooling = "10s" }
seed = 7
"#;
        let m = Model::from_toml_str(text, "test").unwrap();
        assert_eq!(m.overhead_ns, 50_000);
        assert_eq!(m.bad[0].length, 4096);
        assert_eq!(m.bad[0].latency_ns, 20_000_000);
        assert_eq!(m.slow[0].latency_ns, 80_000_000);
        assert_eq!(m.warmup.as_ref().unwrap().duration_ns, 20_000_000_000);
        let t = m.temperature.as_ref().unwrap();
        assert_eq!((t.start(), t.idle_c, t.busy_c), (9.0, 22.0, 26.0));
        assert_eq!(t.time_constant_ns, 8_000_000_000);
        assert_eq!(m.truth().temperature.unwrap().start_c, 9.0);
        let t = m.throttle.as_ref().unwrap();
        assert_eq!(
            (t.factor, t.after_ns, t.cooling_ns),
            (0.45, 15_000_000_000, 10_000_000_000)
        );
        assert!((m.media_mb_s(64 << 20) - 112.5).abs() < 1e-9);
    }

    #[test]
    fn bad_models_are_refused_with_a_reason() {
        for (text, why) in [
            ("name='x'\nsize='64M'\nzones={}", "zones need"),
            (
                "name='x'\nsize='64M'\nzones={rates_mb_s=[100]}\nqueue={mode='serial',depth=4}",
                "serial",
            ),
            (
                "name='x'\nsize='64M'\nzones={rates_mb_s=[100]}\nslow=[{offset='64M',latency='1ms'}]",
                "outside",
            ),
            ("name='x'\nsize='64M'\nzones={rates_mb_s=[100]}\nfoo=1", "unknown field"),
            ("name='x'\nsize='12Q'\nzones={rates_mb_s=[100]}", "suffix"),
            (
                "name='x'\nsize='64M'\nzones={rates_mb_s=[100]}\nthrottle={factor=1.5,after='1s',cooling='1s'}",
                "throttle.factor",
            ),
        ] {
            let e = Model::from_toml_str(text, "t").unwrap_err().to_string();
            assert!(e.contains(why), "{e} should mention {why}");
        }
    }

    #[test]
    fn zones_split_the_disk_evenly() {
        let size = 100 * SECTOR;
        assert_eq!(zone_index(4, size, 0), 0);
        assert_eq!(zone_index(4, size, size - 1), 3);
        assert_eq!(zone_start(4, size, 0), 0);
        assert_eq!(zone_start(4, size, 2), 50 * SECTOR);
        for i in 0..4 {
            assert_eq!(zone_index(4, size, zone_start(4, size, i)), i);
        }
    }
}
