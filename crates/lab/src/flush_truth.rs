//! What a write cache's flush costs: the truth the flush-honesty rule is checked against.
//!
//! Writes enter the cache at the fill rate F (its rate, capped by the interface) while it drains
//! to the media at the drain rate D (the media write rate). From an empty cache, after X bytes
//! written in `write_ns`, the bytes still dirty are `clamp(X − D × write_ns, 0, size)`: exact both
//! while the cache has room and once it is full (the writes then go at D and it stays full). An
//! honoured flush waits for all of them at D, a partial one for its share, an ignored one for none.

use crate::model::{FlushPolicy, Model, WriteCache};
use drivescope_record::FlushTruth;

/// Drain rate of the model's write cache at offset 0 (bytes per ns).
pub fn drain_bytes_per_ns(model: &Model) -> f64 {
    model.media_mb_s(0) * 1e-3 * model.write_rate_factor
}

/// Rate writes enter the cache (bytes per ns): its rate, capped by the interface.
pub fn fill_bytes_per_ns(model: &Model, c: &WriteCache) -> f64 {
    c.rate_mb_s.min(model.interface_mb_s.unwrap_or(f64::MAX)) * 1e-3
}

/// Bytes still dirty after writing `bytes` in `write_ns` from an empty cache (0 without one).
pub fn pending_after(model: &Model, bytes: u64, write_ns: u64) -> f64 {
    let Some(c) = &model.write_cache else {
        return 0.0;
    };
    let drained = drain_bytes_per_ns(model) * write_ns as f64;
    (bytes as f64 - drained).clamp(0.0, c.size as f64)
}

/// The share of the dirty bytes a flush waits for.
pub fn flushed_share(c: &WriteCache) -> f64 {
    match c.flush_policy() {
        FlushPolicy::Honoured => 1.0,
        FlushPolicy::Ignored => 0.0,
        FlushPolicy::Partial => c.flushed_share,
    }
}

/// What a flush costs (ns) after writing `bytes` in `write_ns` from an empty cache.
pub fn flush_ns_after(model: &Model, bytes: u64, write_ns: u64) -> u64 {
    let Some(c) = &model.write_cache else {
        return 0;
    };
    (pending_after(model, bytes, write_ns) * flushed_share(c) / drain_bytes_per_ns(model)).ceil()
        as u64
}

/// Least time (ns) `bytes` take to enter the cache back to back in `chunk` commands: each
/// command's overhead and its transfer at the fill rate, while there is room.
pub fn fill_ns(model: &Model, c: &WriteCache, bytes: u64, chunk: u64) -> u64 {
    let commands = bytes.div_ceil(chunk.max(1));
    commands * model.overhead_ns + (bytes as f64 / fill_bytes_per_ns(model, c)) as u64
}

/// The flush truth of a model with a write cache.
pub fn truth(model: &Model) -> Option<FlushTruth> {
    let c = model.write_cache.as_ref()?;
    let after = |bytes: u64| {
        let write_ns = fill_ns(model, c, bytes, 1 << 20);
        flush_ns_after(model, bytes, write_ns)
    };
    Some(FlushTruth {
        policy: c.flush_policy().as_str().into(),
        flushed_share: flushed_share(c),
        protected: c.protected,
        volatile: c.volatile,
        flushes_early: !c.keeps() && c.flush != FlushPolicy::Honoured,
        cache_bytes: c.size,
        fill_mb_per_s: fill_bytes_per_ns(model, c) * 1e3,
        drain_mb_per_s: drain_bytes_per_ns(model) * 1e3,
        flush_ns_after_1mib: after(1 << 20),
        flush_ns_after_full: after(c.size),
    })
}

#[cfg(test)]
#[path = "flush_truth_tests.rs"]
mod tests;
