//! Every lab model through the kernel: `diagnose` of each preset (and a plain flat and zoned model), served
//! by FUSE on a loop device with its write experiments allowed, on a small budget. What is checked does not
//! depend on the host's load: the exit code, the run's own clock against its budget, one outcome per
//! experiment, findings that name their experiment's outcome, and the text that prints the record. Whether
//! each model's behaviours are found with their numbers is a timing of the lab disks, measured alone with the
//! default budget by `bench/timed_tests.sh` (`lab_diagnose`'s matrix); the rules behind the findings are
//! checked over a thousand drawn models in-process (`drivescope-diagnose`'s fixed sample). Needs root and FUSE.

use common::lab::PLAIN;
use common::typed::record_of;
use common::{drivescope_cmd, skip_without_root};
use drivescope_lab::{check_environment, LabDevice, Model};
use drivescope_record::{BadSpotKind, DiagnoseRecord, Experiment, FindingCode, Verdict};
use drivescope_testkit as common;
use std::collections::BTreeSet;

/// The budget: long enough that every experiment starts (each gets a share), short enough that fourteen
/// models take about two minutes.
const BUDGET: &str = "6s";
const BUDGET_NS: u64 = 6_000_000_000;

fn models() -> Vec<Model> {
    let mut models: Vec<Model> = drivescope_lab::presets::PRESETS
        .iter()
        // Fakes differ from their twins only in what they keep of writes (`capacity` finds them, in
        // lab_capacity.rs), the 2 TB one is sparse and costs what is written; damaged drives whose
        // damage grows as it is read and a vanishing one have their own test
        // (lab_diagnose_damage.rs).
        .filter(|p| {
            let m = p.model();
            m.fake.is_none() && m.vanish.is_none() && !m.bad.iter().any(|b| b.marginal > 0)
        })
        .map(|p| p.model())
        .collect();
    models.extend(
        PLAIN
            .iter()
            .map(|t| Model::from_toml_str(t, "test").unwrap()),
    );
    models
}

fn check(m: &Model) -> Result<(), String> {
    let dev = LabDevice::start_temp(m, true).map_err(|e| format!("start: {e}"))?;
    let path = dev.loop_device().unwrap().to_str().unwrap().to_string();
    let name = path.trim_start_matches("/dev/").to_string();
    let confirm = format!("{name} {}", drivescope_core::units::format_size(m.size));
    let out = drivescope_cmd()
        .args(["diagnose", &path, "--json", "--quiet", "--no-store"])
        .args(["--destructive", "--confirm", &confirm, "--budget", BUDGET])
        .output()
        .expect("run drivescope");
    let err = String::from_utf8_lossy(&out.stderr);
    if out.status.code() != Some(0) || err.contains("panicked") {
        return Err(format!("exit {:?}: {err}", out.status.code()));
    }
    let d: DiagnoseRecord = record_of(&out);
    let mut errors = Vec::new();
    if d.budget_ns != BUDGET_NS {
        errors.push(format!("budget {} ns", d.budget_ns));
    }
    // The run's own clock: experiments stop at the budget; the step under way when it runs out ends
    // (a random-read burst, a write of a few MiB), which on a slow serial disk takes seconds.
    if d.elapsed_ns > BUDGET_NS + 10_000_000_000 {
        errors.push(format!(
            "{:.1} s on the run's clock for a 6 s budget",
            d.elapsed_ns as f64 / 1e9
        ));
    }
    // One outcome per experiment, none twice, each with its words.
    let seen: Vec<Experiment> = d.outcomes.iter().map(|o| o.experiment).collect();
    let unique: BTreeSet<String> = seen.iter().map(|e| format!("{e:?}")).collect();
    if unique.len() != seen.len() || seen.len() < 8 {
        errors.push(format!("outcomes {seen:?}"));
    }
    if let Some(o) = d.outcomes.iter().find(|o| o.text.trim().is_empty()) {
        errors.push(format!("an outcome without words: {o:?}"));
    }
    // A finding is what its experiment concluded: its claim is one outcome's text, found or
    // inconclusive, never a skipped or not-found one. Bad spots are what every experiment met on
    // the way: their finding stands on the record's spots, which name places inside the device.
    for f in &d.header.findings {
        if f.code == FindingCode::BadSpots {
            let places = d
                .spots
                .as_ref()
                .map(|s| s.places.as_slice())
                .unwrap_or_default();
            // A failed command is the model's doing, whatever the host's load: it lies on one of the
            // model's bad spots (a command's extent overlaps it).
            let stray = places.iter().find(|p| {
                p.offset + p.length > m.size
                    || (p.kind == BadSpotKind::Failed
                        && !m.bad.iter().any(|b| {
                            p.offset < b.offset + b.length && b.offset < p.offset + p.length
                        }))
            });
            if places.is_empty() || stray.is_some() {
                errors.push(format!("{:?} with places {places:?}", f.claim));
            }
            continue;
        }
        let Some(o) = d.outcomes.iter().find(|o| o.text == f.claim) else {
            errors.push(format!("no outcome says {:?}", f.claim));
            continue;
        };
        if matches!(o.verdict, Verdict::Skipped | Verdict::NotFound) {
            errors.push(format!("{:?} from a {:?} outcome", f.claim, o.verdict));
        }
    }
    // The text of the same record prints without error and names every outcome.
    let mut text = Vec::new();
    drivescope_report::text::print_diagnose(&d, &mut text).map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&text);
    if let Some(o) = d.outcomes.iter().find(|o| !text.contains(o.text.as_str())) {
        errors.push(format!("the text leaves out {:?}", o.text));
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(format!("{}: {}", m.name, errors.join("; ")))
    }
}

#[test]
fn every_lab_model_is_diagnosed_through_the_kernel_within_its_budget() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
    if let Err(e) = check_environment(true) {
        panic!("lab tests need root, /dev/fuse (Debian fuse3) and losetup: {e}");
    }
    let models = models();
    assert!(models.len() >= 14, "{} models", models.len());
    // Two at a time: each diagnosis waits on its lab disk most of its budget, and nothing checked here is a
    // rate that a second disk beside it could move.
    let failures: Vec<String> = std::thread::scope(|s| {
        let halves: Vec<_> = (0..2)
            .map(|k| {
                let mine: Vec<&Model> = models.iter().skip(k).step_by(2).collect();
                s.spawn(move || {
                    mine.into_iter()
                        .filter_map(|m| check(m).err())
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        halves.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
