//! The flush truth against the timeline the emulator serves, on its virtual clock: write X bytes
//! back to back from an empty cache, flush, and compare with what the truth says, over models
//! drawn at random (fixed seed) from wide ranges.

use super::*;
use crate::model::Model;
use crate::timing::{Op, Timeline};

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Uniform in [lo, hi) on a log scale.
fn log_uniform(rng: &mut u64, lo: f64, hi: f64) -> f64 {
    let u = (splitmix(rng) >> 11) as f64 / (1u64 << 53) as f64;
    (lo.ln() + u * (hi.ln() - lo.ln())).exp()
}

fn model(media_mb_s: f64, cache: Option<(u64, f64, &str, bool)>) -> Model {
    let cache = match cache {
        Some((size, rate, flush, protected)) => format!(
            "write_cache = {{ size = {size}, rate_mb_s = {rate}, flush = \"{flush}\", protected = {protected} }}"
        ),
        None => String::new(),
    };
    let text = format!(
        "name = 't'\nsize = '4G'\nzones = {{ rates_mb_s = [{media_mb_s}] }}\noverhead = '20us'\n{cache}"
    );
    Model::from_toml_str(&text, "test").unwrap()
}

/// Writes `bytes` in 1 MiB commands back to back from `t0`, then flushes: (write_ns, flush_ns).
fn write_then_flush(t: &mut Timeline, t0: u64, bytes: u64) -> (u64, u64) {
    let chunk = 1u64 << 20;
    let mut now = t0;
    let mut off = 0;
    while off < bytes {
        let len = chunk.min(bytes - off);
        now = t.schedule(Op::Write, off, len, now).done_ns;
        off += len;
    }
    let flushed = t.flush(now);
    (now - t0, flushed - now)
}

#[test]
fn a_flush_costs_what_the_truth_says_for_every_policy_over_a_space_of_models() {
    let mut rng = 0x005e_edf1_u64;
    for case in 0..120 {
        let media = log_uniform(&mut rng, 20.0, 3000.0);
        let fill = media * log_uniform(&mut rng, 1.2, 20.0);
        let size = (log_uniform(&mut rng, 4.0, 1024.0) as u64) << 20;
        let policy = ["honoured", "ignored", "partial"][case % 3];
        let protected = splitmix(&mut rng).is_multiple_of(2);
        let m = model(media, Some((size, fill, policy, protected)));
        // Half a cache, just a full one and twice one.
        for x in [size / 2, size, 2 * size] {
            let mut t = Timeline::new(&m);
            let (write_ns, flush_ns) = write_then_flush(&mut t, 1_000_000_000, x);
            let want = flush_ns_after(&m, x, write_ns);
            let commands = x.div_ceil(1 << 20);
            let slack = m.overhead_ns + commands + 1_000;
            assert!(
                flush_ns.abs_diff(want) <= slack,
                "case {case} {policy}: {media:.0} MB/s, cache {size} at {fill:.0} MB/s, X {x}: \
                 flush {flush_ns} ns, truth {want} ns"
            );
            if policy == "ignored" {
                assert_eq!(flush_ns, 0);
            }
            if policy == "honoured" {
                // An honoured flush leaves nothing dirty, and costs at least X/D − write time.
                assert_eq!(t.dirty_bytes(), 0);
                let d = drain_bytes_per_ns(&m);
                assert!(flush_ns as f64 + 1.0 >= x as f64 / d - write_ns as f64);
            }
        }
    }
}

#[test]
fn without_a_cache_a_flush_is_instant_and_there_is_no_flush_truth() {
    let m = model(150.0, None);
    let mut t = Timeline::new(&m);
    let (_, flush_ns) = write_then_flush(&mut t, 0, 64 << 20);
    assert_eq!(flush_ns, 0);
    assert_eq!(flush_ns_after(&m, 64 << 20, 0), 0);
    assert!(m.truth().flush.is_none());
}

#[test]
fn the_truth_names_the_policy_and_who_flushes_early() {
    for (flush, protected, early, share) in [
        ("honoured", false, false, 1.0),
        ("ignored", false, true, 0.0),
        ("partial", false, true, 0.1),
        ("ignored", true, false, 0.0),
        ("honoured", true, false, 1.0),
    ] {
        let m = model(100.0, Some((64 << 20, 500.0, flush, protected)));
        let t = m.truth().flush.expect("a write cache states its flush");
        assert_eq!(t.policy, flush);
        assert_eq!((t.protected, t.flushes_early), (protected, early));
        assert_eq!(t.flushed_share, share);
        assert_eq!(t.cache_bytes, 64 << 20);
        assert_eq!((t.fill_mb_per_s, t.drain_mb_per_s), (500.0, 100.0));
        // 64 MiB full: 64 MiB less what drained while it filled (at 500 MB/s), at 100 MB/s.
        let fill_ns = fill_ns(&m, m.write_cache.as_ref().unwrap(), 64 << 20, 1 << 20);
        let pending = (64u64 << 20) as f64 - 0.1 * fill_ns as f64;
        let want = (pending * share / 0.1).ceil() as u64;
        assert_eq!(t.flush_ns_after_full, want, "{flush}");
        assert!(t.flush_ns_after_1mib < t.flush_ns_after_full || share == 0.0);
    }
}

#[test]
fn the_model_file_spells_the_flush_and_refuses_nonsense() {
    let base = "name='t'\nsize='64M'\nzones={rates_mb_s=[100]}\n";
    let m = Model::from_toml_str(
        &format!("{base}write_cache={{size='8M',rate_mb_s=400}}"),
        "t",
    )
    .unwrap();
    let c = m.write_cache.unwrap();
    assert_eq!((c.flush, c.protected), (FlushPolicy::Honoured, false));
    let m = Model::from_toml_str(
        &format!("{base}write_cache={{size='8M',rate_mb_s=400,flush='partial',flushed_share=0.3,protected=true}}"),
        "t",
    )
    .unwrap();
    let c = m.write_cache.unwrap();
    assert_eq!(
        (c.flush, c.flushed_share, c.protected),
        (FlushPolicy::Partial, 0.3, true)
    );
    for (extra, why) in [
        ("flush='sometimes'", "unknown variant"),
        ("flushed_share=1.5", "flushed_share"),
    ] {
        let e = Model::from_toml_str(
            &format!("{base}write_cache={{size='8M',rate_mb_s=400,{extra}}}"),
            "t",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains(why), "{e}");
    }
}

#[test]
fn a_non_volatile_tier_returns_flushes_at_once_and_keeps_what_it_took() {
    let base = "name='t'\nsize='64M'\nzones={rates_mb_s=[100]}\n";
    for flush in ["honoured", "ignored", "partial"] {
        let m = Model::from_toml_str(
            &format!(
                "{base}write_cache={{size='8M',rate_mb_s=400,flush='{flush}',volatile=false}}"
            ),
            "t",
        )
        .unwrap();
        let c = m.write_cache.as_ref().unwrap();
        assert!(!c.volatile && c.keeps() && !c.protected, "{flush}");
        assert_eq!(c.flush_policy(), FlushPolicy::Ignored);
        let t = m.truth().flush.unwrap();
        assert_eq!(
            (t.volatile, t.flushes_early, t.protected),
            (false, false, false)
        );
        assert_eq!((t.flushed_share, t.flush_ns_after_full), (0.0, 0));
        // Its timeline: a flush after filling the tier completes at once.
        let mut tl = crate::timing::Timeline::new(&m);
        let done = tl
            .schedule(crate::timing::Op::Write, 0, 4 << 20, 1_000_000)
            .done_ns;
        assert_eq!(tl.flush(done), done);
    }
    // The default is a volatile cache, and a volatile honoured one waits.
    let m = Model::from_toml_str(
        &format!("{base}write_cache={{size='8M',rate_mb_s=400}}"),
        "t",
    )
    .unwrap();
    let c = m.write_cache.as_ref().unwrap();
    assert!(c.volatile && !c.keeps());
    let mut tl = crate::timing::Timeline::new(&m);
    let done = tl
        .schedule(crate::timing::Op::Write, 0, 4 << 20, 1_000_000)
        .done_ns;
    assert!(tl.flush(done) > done);
    assert!(Model::preset("ssd-slc")
        .unwrap()
        .write_cache
        .unwrap()
        .keeps());
}
