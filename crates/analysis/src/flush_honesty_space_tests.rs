//! The flush experiment (`drivescope_core::durability::flush`) and this rule together, on lab
//! models served by their timeline on its virtual clock, over a space of disks drawn with a fixed
//! seed: cache sizes 4 MiB to 1 GiB, media rates 20 MB/s to 3 GB/s, fill rates above them. Each
//! disk comes as six twins: a cache whose flush is ignored, one that writes out only a small
//! share, an honest one, an ignoring one declared protected, a non-volatile tier (an SLC cache),
//! and none. The lab truth says which lie; the twins that do not must never be called early, but
//! the non-volatile tier times as the ignoring cache does, so on solid-state hardware neither is.

use super::*;
use drivescope_core::durability::flush::{self as experiment, FlushDevice, FlushPlan};
use drivescope_lab::model::Model;
use drivescope_lab::timing::{Op, Timeline};
use std::sync::atomic::AtomicBool;

/// A lab model's timeline as the experiment's device, on its virtual clock.
struct Virtual {
    t: Timeline,
    now: u64,
    len: u64,
}

impl FlushDevice for Virtual {
    fn room(&self) -> u64 {
        self.len
    }
    fn write(&mut self, offset: u64, len: usize) -> std::io::Result<()> {
        self.now = self
            .t
            .schedule(Op::Write, offset, len as u64, self.now)
            .done_ns;
        Ok(())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.now = self.t.flush(self.now);
        Ok(())
    }
    fn now_ns(&self) -> u64 {
        self.now
    }
    fn idle(&mut self, ns: u64) {
        self.now += ns;
    }
}

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn unit(rng: &mut u64) -> f64 {
    (splitmix(rng) >> 11) as f64 / (1u64 << 53) as f64
}

fn log_uniform(rng: &mut u64, lo: f64, hi: f64) -> f64 {
    (lo.ln() + unit(rng) * (hi.ln() - lo.ln())).exp()
}

/// The experiment's verdict on `m` within `budget_s` of its virtual time, the stream's bytes, and what the rule
/// was given.
fn verdict_on(m: &Model, budget_s: f64) -> (FlushVerdict, u64, FlushInput) {
    let mut dev = Virtual {
        t: Timeline::new(m),
        now: 1_000_000_000,
        len: 2 << 30,
    };
    let plan = FlushPlan {
        budget_ns: (budget_s * 1e9) as u64,
        ..FlushPlan::default()
    };
    let run = experiment::run(&mut dev, &plan, &AtomicBool::new(false)).unwrap();
    let s = run.sustained.unwrap();
    let input = FlushInput {
        samples: run
            .pairs
            .iter()
            .map(|p| FlushSample {
                bytes: p.bytes,
                write_ns: p.write_ns,
                flush_ns: p.flush_ns,
            })
            .collect(),
        media_bytes_per_s: Some(s.bytes_per_s),
        power_loss_protection: m.truth().flush.is_some_and(|f| f.protected),
        kernel_write_cache: Some(KernelWriteCache::WriteBack),
        device_flushes: None,
    };
    (judge(&input), s.bytes, input)
}

/// The block layer's flush count changes who is said to return flushes early, never whether they are: none
/// counted is the file system's, some counted the device's.
fn attribution_follows_the_count(input: &FlushInput, v: &FlushVerdict, what: &str) {
    for (count, who) in [(Some(0), EarlyBy::NotSent), (Some(40), EarlyBy::Device)] {
        let counted = FlushInput {
            device_flushes: count,
            ..input.clone()
        };
        let w = judge(&counted);
        match v {
            FlushVerdict::Early { .. } => assert!(
                matches!(w, FlushVerdict::Early { by, .. } if by == who),
                "{what}: counted {count:?}: {w:?}"
            ),
            other => assert_eq!(&w, other, "{what}: counted {count:?}"),
        }
    }
}

/// A run's header on an NVMe drive (solid-state hardware).
fn flash_header() -> drivescope_record::Header {
    use drivescope_probe::{BlockInfo, BlockRole, Hardware, Identity, Transport};
    let mut b = BlockInfo::new(
        "nvme0n1",
        "/dev/nvme0n1".into(),
        BlockRole::Disk,
        Transport::Nvme,
    );
    b.rotational = Some(false);
    b.hardware = Some(Hardware::default());
    let mut h = drivescope_record::Header::now(
        drivescope_record::Kind::Durability,
        drivescope_record::TargetInfo {
            path: "/dev/nvme0n1".into(),
            kind: drivescope_record::TargetType::Block,
            size: 1 << 40,
            logical_block_size: 512,
        },
    );
    h.device = Some(Identity::of_block(b));
    h
}

fn twin(media: f64, overhead_us: f64, cache: Option<String>) -> Model {
    let text = format!(
        "name = 'd'\nsize = '4G'\nzones = {{ rates_mb_s = [{media}] }}\noverhead = '{overhead_us}us'\n{}",
        cache.unwrap_or_default()
    );
    Model::from_toml_str(&text, "space").unwrap()
}

#[test]
fn no_false_alarm_on_honest_protected_or_cacheless_twins_and_lies_found_where_visible() {
    let mut rng = 0xd07a_b1e5_u64;
    let (mut visible, mut found, mut cases) = (0, 0, 0);
    for case in 0..40 {
        let media = log_uniform(&mut rng, 20.0, 3000.0);
        let fill = (media * log_uniform(&mut rng, 2.0, 20.0)).min(12_000.0);
        let size_mib = log_uniform(&mut rng, 4.0, 1024.0) as u64;
        let overhead = log_uniform(&mut rng, 5.0, 100.0).round();
        let share = 0.02 + 0.1 * unit(&mut rng);
        let cache = |rest: &str| {
            Some(format!(
                "write_cache = {{ size = '{size_mib}M', rate_mb_s = {fill}{rest} }}"
            ))
        };
        let twins = [
            ("ignored", cache(", flush = 'ignored'")),
            (
                "partial",
                cache(&format!(", flush = 'partial', flushed_share = {share}")),
            ),
            ("honoured", cache("")),
            ("protected", cache(", flush = 'ignored', protected = true")),
            ("non-volatile", cache(", volatile = false")),
            ("none", None),
        ];
        for (name, c) in twins {
            let m = twin(media, overhead, c);
            let (v, stream, input) = verdict_on(&m, 8.0);
            let truth = m.truth().flush;
            let lies = truth.as_ref().is_some_and(|f| f.flushes_early);
            let what = format!(
                "case {case} {name}: media {media:.0} MB/s, cache {size_mib} MiB at {fill:.0} MB/s, \
                 stream {} MiB: {v:?}",
                stream >> 20
            );
            cases += 1;
            attribution_follows_the_count(&input, &v, &what);
            // On solid-state hardware no early verdict stands: a non-volatile tier times as a lying
            // cache does (the same samples), so both are inconclusive there.
            let on_flash = crate::durability::judged(&flash_header(), &input);
            assert!(
                !matches!(on_flash, FlushVerdict::Early { .. }),
                "flash: {what}: {on_flash:?}"
            );
            if matches!(v, FlushVerdict::Early { .. }) {
                assert!(
                    matches!(&on_flash, FlushVerdict::Inconclusive { reason } if reason.contains("SLC")),
                    "flash: {what}: {on_flash:?}"
                );
            }
            if name == "non-volatile" {
                // Timing alone: what the ignoring twin of the same cache would show.
                let ignoring = twin(media, overhead, cache(", flush = 'ignored'"));
                let (w, _, _) = verdict_on(&ignoring, 8.0);
                assert_eq!(
                    std::mem::discriminant(&v),
                    std::mem::discriminant(&w),
                    "{what}"
                );
                continue;
            }
            if !lies {
                assert!(
                    !matches!(v, FlushVerdict::Early { .. }),
                    "false alarm: {what}"
                );
                if name == "protected" {
                    assert_eq!(v, FlushVerdict::Protected, "{what}");
                }
                continue;
            }
            // The stream sees through a cache up to half its size; beyond, nothing can be said.
            // A cache that drains in under 8 ms leaves bounds within the timing noise.
            let drain_ms = (size_mib << 20) as f64 / (media * 1e3);
            if (size_mib << 20) * 2 <= stream && drain_ms >= 8.0 {
                visible += 1;
                if matches!(v, FlushVerdict::Early { .. }) {
                    found += 1;
                } else {
                    eprintln!("missed: {what}");
                }
            }
        }
    }
    eprintln!("{cases} disks; lying caches within reach: {visible}, found {found}");
    assert!(
        visible >= 20,
        "too few visible lying caches drawn: {visible}"
    );
    assert_eq!(found, visible, "every lying cache within reach is found");
}
