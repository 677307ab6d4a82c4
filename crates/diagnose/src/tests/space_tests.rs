//! Diagnosis over a space of drawn devices with known truth (see [`super::space`]): a fixed-seed sample of
//! scripted models, every finding scored; and the lab's presets, each a point inside the space.

use super::space::score::Tally;
use super::space::{presets, Space};
use super::support::diagnose;

/// The fixed seed of the sample `cargo test` runs.
const SEED: u64 = 0x5EED_2026_1127;

/// The seed of the `i`th draw of a sample.
pub fn draw_seed(seed: u64, i: u64) -> u64 {
    seed ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// Diagnose draws `from..to` of the sample `seed` from `space` and score them.
pub fn sample_in(space: &Space, seed: u64, from: u64, to: u64) -> Tally {
    let mut t = Tally::default();
    for i in from..to {
        let s = draw_seed(seed, i);
        let spec = space.draw(s);
        let d = diagnose(spec.model(), &spec.options());
        t.score(s, &spec, &d);
    }
    t
}

#[test]
fn every_lab_preset_lies_in_the_space() {
    for (name, spec) in presets::all() {
        assert_eq!(Space::WIDE.outside(&spec), None, "{name}");
    }
    // And the space says so when a device lies outside it.
    let (_, mut s) = presets::all().remove(0);
    (s.outer, s.inner) = (400.0, 200.0);
    assert_eq!(Space::WIDE.outside(&s).as_deref(), Some("outer rate"));
}

#[test]
fn draws_repeat_and_lie_in_the_space() {
    for i in 0..2000 {
        let s = Space::WIDE.draw(draw_seed(SEED, i));
        assert_eq!(s, Space::WIDE.draw(draw_seed(SEED, i)));
        assert_eq!(Space::WIDE.outside(&s), None, "{s:?}");
    }
}

/// The space `cargo test` samples: the wide one, with a per-model budget of 30–60 s on the virtual clock (the
/// command's default is 3 min) so that 1000 models run in a debug build within two minutes.
pub fn quick_space() -> Space {
    Space {
        budget_s: 30..=60,
        ..Space::WIDE
    }
}

/// Models in the fixed-seed sample, in shards that run side by side.
const MODELS: u64 = 1000;
const SHARDS: u64 = 4;

fn shard(k: u64) {
    let from = MODELS / SHARDS * k;
    let t = sample_in(&quick_space(), SEED, from, from + MODELS / SHARDS);
    let failures: Vec<String> = t
        .failures
        .iter()
        .map(|f| format!("{:#x} {}: {}", f.seed, f.behaviour, f.what))
        .collect();
    assert!(t.models as u64 == MODELS / SHARDS);
    assert!(
        failures.is_empty(),
        "{}\n{}",
        t.table(),
        failures.join("\n")
    );
}

#[test]
#[ignore = "5 min on 2 cores; its misses and false claims are listed in docs/accuracy.md"]
fn sample_of_1000_models_shard_0() {
    shard(0);
}
#[test]
#[ignore = "5 min on 2 cores; its misses and false claims are listed in docs/accuracy.md"]
fn sample_of_1000_models_shard_1() {
    shard(1);
}
#[test]
#[ignore = "5 min on 2 cores; its misses and false claims are listed in docs/accuracy.md"]
fn sample_of_1000_models_shard_2() {
    shard(2);
}
#[test]
#[ignore = "5 min on 2 cores; its misses and false claims are listed in docs/accuracy.md"]
fn sample_of_1000_models_shard_3() {
    shard(3);
}

/// The first 100 draws of the fixed-seed sample, in a plain `cargo test`: no behaviour may score worse than
/// the counts recorded in docs/accuracy.md (misses, false claims, numbers outside their tolerance), so a change
/// that adds a wrong claim fails here; one that removes one lowers these counts.
#[test]
fn sample_of_100_models_scores_no_worse_than_recorded() {
    let t = sample_in(&quick_space(), SEED, 0, 100);
    for f in &t.failures {
        eprintln!("{:#x} {}: {}", f.seed, f.behaviour, f.what);
    }
    eprintln!("{}", t.table());
    for (name, missed, false_claims, outside) in RECORDED_100 {
        let r = &t.rows[name];
        let out: usize = r.numbers.values().map(|e| e.outside).sum();
        assert!(
            r.missed <= *missed,
            "{name}: {} misses, {missed} recorded",
            r.missed
        );
        assert!(
            r.false_claims <= *false_claims,
            "{name}: {} false claims, {false_claims} recorded",
            r.false_claims
        );
        assert!(
            out <= *outside,
            "{name}: {out} numbers outside tolerance, {outside} recorded"
        );
    }
}

/// Per behaviour over the first 100 draws: misses, false claims, numbers outside their tolerance.
const RECORDED_100: &[(&str, usize, usize, usize)] = &[
    ("link_cap", 3, 0, 0),
    ("no_queueing", 1, 0, 0),
    ("read_cache", 0, 1, 0),
    ("smr", 3, 0, 0),
    ("throttle", 0, 0, 0),
    ("warm_up", 2, 1, 0),
    ("write_burst", 1, 0, 0),
    ("zones", 3, 0, 2),
];

/// A sample of `SPACE_MODELS` (default 200) from `SPACE_SEED` (default: from the clock, printed) in the wide
/// space, with its table: `bench/space_accuracy.sh` runs it.
#[test]
#[ignore = "a random-seed sample for bench/space_accuracy.sh"]
fn random_sample() {
    let seed = std::env::var("SPACE_SEED")
        .ok()
        .map(|s| u64::from_str_radix(s.trim_start_matches("0x"), 16).unwrap())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
        });
    let n = std::env::var("SPACE_MODELS").map_or(200, |s| s.parse().unwrap());
    println!("seed {seed:#x}, {n} models");
    let t = sample_in(&Space::WIDE, seed, 0, n);
    println!("{}", t.table());
    for f in &t.failures {
        println!("- {:#x} {}: {}", f.seed, f.behaviour, f.what);
    }
}

/// One draw in detail, from `SPACE_SEEDS` (comma-separated, hex): its spec, expectations, findings and outcomes.
#[test]
#[ignore = "a look at chosen draws: SPACE_SEEDS=0x1,0x2"]
fn show_draws() {
    let seeds = std::env::var("SPACE_SEEDS").unwrap_or_default();
    for s in seeds.split(',').filter(|s| !s.is_empty()) {
        let s = u64::from_str_radix(s.trim_start_matches("0x"), 16).unwrap();
        let spec = quick_space().draw(s);
        let d = diagnose(spec.model(), &spec.options());
        eprintln!("== {s:#x}\n{spec:?}");
        for (n, code) in super::space::expect::BEHAVIOURS {
            eprintln!("  expect {n}: {:?}", spec.expect(code));
        }
        for o in &d.rec.outcomes {
            eprintln!("  {:?} {:?}: {}", o.experiment, o.verdict, o.text);
        }
    }
}
