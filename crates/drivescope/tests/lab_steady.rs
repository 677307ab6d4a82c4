//! `drivescope steady` on lab flash disks (FUSE + loop): steady state found in the model's own
//! round (the PTS procedure on the model's virtual clock) ±1, at the truth's steady-state IOPS
//! within 10 %; the purge reaches the model as a discard; a disk whose rounds never settle ends
//! "not reached" at 25 rounds; plain loop devices are refused as not flash; kill -9 and
//! `--resume` go on from the last round. Small disks and short rounds; needs root and FUSE.

mod common;
use common::kill9::TempStore;
use common::typed::record_of_ok;
use common::{drivescope_cmd, skip_without_root, TmpfsLoop};
use drivescope_analysis::steady_state::verdict;
use drivescope_core::rng::Rng;
use drivescope_core::safety::DeviceName;
use drivescope_lab::flash_served::{rounds, Procedure};
use drivescope_lab::Model;
use drivescope_record::{SteadyRecord, SteadyState};
use std::path::Path;
use std::process::Output;
use std::time::{Duration, Instant};

const ROUND_MS: u64 = 400;

fn confirmation(dev: &Path) -> String {
    let id = drivescope_probe::identify(dev, &drivescope_probe::Roots::default()).unwrap();
    DeviceName::of(&id).unwrap().confirmation()
}

fn steady(dev: &Path, extra: &[&str]) -> Output {
    drivescope_cmd()
        .arg("steady")
        .arg(dev)
        .args(["--destructive", "--confirm", &confirmation(dev)])
        .args([
            "--matrix",
            "tracked",
            "--round-time",
            &format!("{ROUND_MS}ms"),
        ])
        .args(["--json", "--quiet"])
        .args(extra)
        .output()
        .expect("run drivescope steady")
}

fn flash(size_mib: u64, spare: f64, mb_s: f64, extra: &str) -> Model {
    let text = format!(
        "name='flash-{size_mib}m-{spare}'\nsize='{size_mib}M'\nzones={{rates_mb_s=[{mb_s}]}}\n\
         overhead='20us'\nflash={{page='4K',block='256K',spare={spare}}}\n{extra}"
    );
    Model::from_toml_str(&text, "test").unwrap()
}

/// The round the model itself reaches steady state in: the PTS procedure on its virtual clock.
fn model_round(m: &Model) -> Option<u32> {
    let p = Procedure {
        precondition_passes: 2,
        block: 4096,
        queue_depth: 32,
        round_ns: ROUND_MS * 1_000_000,
        rounds: 25,
        seed: 1,
    };
    let values: Vec<f64> = rounds(m, &p).iter().map(|r| r.iops).collect();
    verdict(&values, 25).round
}

/// Over lab flash disks drawn with a fixed seed (size, spare area, media rate), steady state is
/// found within a round of the model's, at its truth's IOPS within 10 %, after a purge the model
/// saw as a discard and twice the capacity of preconditioning.
#[test]
fn lab_flash_disks_are_steady_in_the_models_round_at_the_truths_iops() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
    let _one = common::lab::one_at_a_time();
    let mut draw = Rng::new(4401);
    for _ in 0..2 {
        let size = [48u64, 64][draw.below(2) as usize];
        let spare = 0.08 + draw.below(20) as f64 / 100.0;
        let mb_s = 40.0 + draw.below(30) as f64;
        let m = flash(size, spare, mb_s, "");
        let truth = m.truth().flash.unwrap();
        let want_round = model_round(&m).expect("the model settles within 25 rounds");
        common::busy::timing_tries(
            2,
            |_| {},
            || {
                let dev = common::lab::start(&m);
                let t0 = Instant::now();
                let out = steady(dev.target(), &["--no-store"]);
                let took = t0.elapsed();
                let r: SteadyRecord = record_of_ok(&out);
                // Structure first: these hold on any host.
                assert_eq!(r.purge.method.as_deref(), Some("discard"), "{:?}", r.purge);
                assert!(dev.stats().discards >= 1, "the model saw no discard");
                assert_eq!(r.precondition.written_bytes, 2 * m.size);
                assert!(
                    !r.conformant && r.not_conformant.len() == 2,
                    "{:?}",
                    r.not_conformant
                );
                assert!(took < Duration::from_secs(40), "{took:?}");
                let c = dev.flash_counters().unwrap();
                assert!(c.host_pages * 4096 >= r.rounds.last().unwrap().total_bytes_written);
                let name = &m.name;
                if r.verdict.state != SteadyState::Reached {
                    return Err(format!("{name}: {:?}", r.verdict));
                }
                let round = r.verdict.round.unwrap();
                if round.abs_diff(want_round) > 1 {
                    return Err(format!(
                        "{name}: steady at round {round}, the model at {want_round}"
                    ));
                }
                let got = r.steady_value.unwrap();
                let want = truth.rnd4k_steady_write_iops;
                if (got / want - 1.0).abs() > 0.10 {
                    return Err(format!("{name}: steady {got:.0} IOPS, truth {want:.0}"));
                }
                Ok(())
            },
        );
    }
}

/// A flash disk with a spot that stalls for 300 ms, which random writes hit about twice a round:
/// its rounds scatter (from a tenth to three times their mean) and never settle, so the run ends
/// "not reached" at round 25 and says which limits broke.
#[test]
fn a_disk_that_never_settles_ends_not_reached_at_25_rounds() {
    if skip_without_root("serves a FUSE lab disk on a loop device") {
        return;
    }
    let _one = common::lab::one_at_a_time();
    let m = flash(
        32,
        0.25,
        60.0,
        "slow=[{offset='16M',length='64K',latency='300ms'}]",
    );
    let dev = common::lab::start(&m);
    let out = drivescope_cmd()
        .arg("steady")
        .arg(dev.target())
        .args(["--destructive", "--confirm", &confirmation(dev.target())])
        .args(["--matrix", "tracked", "--round-time", "200ms"])
        .args(["--json", "--quiet", "--no-store"])
        .output()
        .unwrap();
    let r: SteadyRecord = record_of_ok(&out);
    assert_eq!(r.rounds.len(), 25);
    assert_eq!(r.verdict.state, SteadyState::NotReached, "{:?}", r.verdict);
    assert!(
        r.verdict.why.starts_with("not reached in 25 rounds"),
        "{}",
        r.verdict.why
    );
    let w = r.verdict.window.as_ref().unwrap();
    assert_eq!((w.first_round, w.last_round), (21, 25));
    assert!(r.steady_value.is_none());
    assert_eq!(out.status.code(), Some(0), "a verdict is a finished run");
}

/// A loop device over a file in memory is not flash: refused before anything is written.
#[test]
fn a_plain_loop_device_is_refused_as_not_flash() {
    if skip_without_root("creates a loop device") {
        return;
    }
    let l = TmpfsLoop::new(16 << 20);
    let dev = l.path().to_path_buf();
    let before = common::checksum(&dev);
    let out = steady(&dev, &["--no-store"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("is not flash: memory (tmpfs)"), "{err}");
    assert_eq!(common::checksum(&dev), before, "nothing written");
}

/// kill -9 after some rounds were checkpointed; `--resume last` goes on from the last saved
/// round (no purge, no second preconditioning) and replaces the run in place.
#[test]
fn a_killed_run_resumes_from_its_last_round() {
    if skip_without_root("serves a FUSE lab disk on a loop device") {
        return;
    }
    let _one = common::lab::one_at_a_time();
    let m = flash(32, 0.12, 60.0, "");
    let dev = common::lab::start(&m);
    let store = TempStore::new("steady-kill9", "resume");
    let confirm = confirmation(dev.target());
    let target = dev.target().to_str().unwrap().to_string();
    let args = [
        target.as_str(),
        "--destructive",
        "--confirm",
        &confirm,
        "--matrix",
        "tracked",
        "--round-time",
        "400ms",
    ];
    let mut child = common::kill9::spawn("steady", &args, &store);
    // Wait for a checkpoint with two rounds, then kill.
    let deadline = Instant::now() + Duration::from_secs(60);
    let saved = loop {
        assert!(Instant::now() < deadline, "no checkpoint with 2 rounds");
        let two = store.runs().into_iter().find_map(|(id, _, d)| match d {
            drivescope_record::Document::Steady(r) if r.rounds.len() >= 2 => Some((id, *r)),
            _ => None,
        });
        if let Some(s) = two {
            break s;
        }
        if let Some(st) = child.try_wait().unwrap() {
            panic!("steady ended before the kill: {st:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    child.kill().unwrap();
    child.wait().unwrap();
    let (id, at_kill) = saved;
    let runs = store.runs();
    assert_eq!(runs.len(), 1);
    let kept = match &runs[0].2 {
        drivescope_record::Document::Steady(r) => r.rounds.len(),
        d => panic!("{d:?}"),
    };
    assert!(kept >= at_kill.rounds.len());
    let discards = dev.stats().discards;
    let out = drivescope_cmd()
        .args([
            "steady",
            "--resume",
            "last",
            "--destructive",
            "--confirm",
            &confirm,
        ])
        .args(["--json", "--quiet", "--store", store.arg()])
        .output()
        .unwrap();
    let r: SteadyRecord = record_of_ok(&out);
    assert_eq!(
        dev.stats().discards,
        discards,
        "a resumed run does not purge"
    );
    assert_eq!(r.precondition.written_bytes, 2 * m.size);
    assert!(r.rounds.len() > kept);
    let numbers: Vec<u32> = r.rounds.iter().map(|x| x.round).collect();
    assert_eq!(numbers, (1..=r.rounds.len() as u32).collect::<Vec<_>>());
    assert_ne!(r.verdict.state, SteadyState::Undecided, "{:?}", r.verdict);
    assert!(r.resume.is_none());
    let after = store.runs();
    assert_eq!(after.len(), 1, "replaced in place");
    assert_eq!(after[0].0, id);
}
