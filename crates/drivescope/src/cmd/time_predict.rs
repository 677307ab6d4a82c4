//! `time --predict-on RUN|DEVICE`: the traced run's I/O time predicted on another disk, from a stored
//! bench, sweep or diagnose run of it, or from a short bench of the shapes the fingerprint needs.

use crate::opts::store::StoreOpts;
use anyhow::{bail, Context};
use drivescope_analysis::predict::{self, Point};
use drivescope_record::{AccessPattern, BenchRecord, Document, Fingerprint, TimeRecord};
use std::io::Write;
use std::path::Path;

#[derive(clap::Args, Debug, Clone, Default)]
pub struct PredictArgs {
    /// Predict the traced run's time on another disk: stored bench, sweep or diagnose runs of it
    /// (numbers, comma-separated), or a device or directory to measure now with a short read bench of
    /// the shapes the workload needs. Implies --trace.
    #[arg(long, value_name = "RUN|DEVICE", value_delimiter = ',')]
    pub predict_on: Vec<String>,
    /// Seconds each shape of the short bench runs (with --predict-on DEVICE).
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 2,
        value_parser = crate::opts::args::parse_count,
        requires = "predict_on"
    )]
    pub predict_seconds: u32,
}

impl PredictArgs {
    pub fn wanted(&self) -> bool {
        !self.predict_on.is_empty()
    }
}

/// Adds the prediction to a traced time record; where it cannot be made, one line says why and the
/// record stays as it is.
pub fn apply(a: &PredictArgs, store: &StoreOpts, rec: &mut TimeRecord) -> anyhow::Result<()> {
    if !a.wanted() {
        return Ok(());
    }
    let Some(fp) = rec.fingerprint.as_ref() else {
        let why = "no prediction: the run has no fingerprint (its block requests were not traced)";
        eprintln!("drivescope: {why}");
        rec.notes.push(why.into());
        return Ok(());
    };
    let (points, on, device, runs) = if a.predict_on.iter().all(|r| is_run(r)) {
        stored_points(&a.predict_on, store)?
    } else if let [path] = a.predict_on.as_slice() {
        measured_points(path, fp, a.predict_seconds)?
    } else {
        bail!("--predict-on takes stored runs, or one device or directory");
    };
    match predict::predict(fp, &points, &on) {
        Ok(mut p) => {
            p.device = device;
            p.runs = runs;
            rec.prediction = Some(p);
        }
        Err(e) => {
            eprintln!("drivescope: no prediction: {e}");
            rec.notes.push(format!("no prediction: {e}"));
        }
    }
    Ok(())
}

/// A run number or `last`, as opposed to a path.
fn is_run(s: &str) -> bool {
    s == "last" || s.parse::<i64>().is_ok()
}

type Points = (Vec<Point>, String, Option<String>, Vec<i64>);

fn device_name(doc: &Document) -> Option<String> {
    Some(doc.header()?.target.path.clone())
}

fn stored_points(runs: &[String], store: &StoreOpts) -> anyhow::Result<Points> {
    let store = store.open_store()?;
    let mut points = Vec::new();
    let mut ids = Vec::new();
    let mut device = None;
    for r in runs {
        let id = crate::opts::store::resolve(&store, r)?;
        let doc = store.get(id)?;
        let got = predict::points_of(&doc, Some(id.0));
        if got.is_empty() {
            bail!(
                "--predict-on {r}: run {} is a {} run with no service times to read (give a bench, sweep \
                 or diagnose run)",
                id.0,
                doc.kind()
            );
        }
        device = device.or_else(|| device_name(&doc));
        points.extend(got);
        ids.push(id.0);
    }
    let on = format!(
        "run{} {}",
        if ids.len() > 1 { "s" } else { "" },
        ids.iter()
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    Ok((points, on, device, ids))
}

/// The bench tests that measure the shapes the fingerprint's classes need (reads; a write class is
/// predicted from reads of its shape, as the prediction's note says).
pub fn shapes(fp: &Fingerprint) -> Vec<String> {
    let total: f64 = fp
        .classes
        .iter()
        .map(|c| c.requests as f64 * c.service_ns_mean)
        .sum();
    let mut tests = Vec::new();
    for c in &fp.classes {
        if c.requests == 0 || (c.requests as f64 * c.service_ns_mean) < 0.01 * total {
            continue;
        }
        let bs = (c.bytes / c.requests).div_ceil(4096).max(1) * 4;
        let pat = match c.pattern {
            AccessPattern::Sequential => "SEQ",
            AccessPattern::Random => "RND",
        };
        let q = c.queue_depth_mean.max(1.0);
        let lo = (q.log2().floor() as u32).min(8);
        for d in [1u32 << lo, 1u32 << (q.log2().ceil() as u32).min(8)] {
            let t = format!("{pat}{bs}K Q{d}T1");
            if !tests.contains(&t) {
                tests.push(t);
            }
        }
    }
    tests
}

fn measured_points(path: &str, fp: &Fingerprint, seconds: u32) -> anyhow::Result<Points> {
    let tests = shapes(fp);
    if tests.is_empty() {
        bail!("no prediction: the traced run has no requests with data");
    }
    crate::note!(
        "measuring {} on {path} for the prediction ({seconds} s each)",
        tests.join(", ")
    );
    let exe = std::env::current_exe().context("finding drivescope itself")?;
    let mut cmd = std::process::Command::new(exe);
    cmd.args([
        "bench",
        "--rw",
        "read",
        "--runs",
        "1",
        "--no-store",
        "--json",
        "--quiet",
    ])
    .args(["--duration", &format!("{seconds}s")]);
    if Path::new(path).is_dir() {
        cmd.args(["--size", "256M"]);
    }
    for t in &tests {
        cmd.args(["--test", t]);
    }
    let out = cmd.arg(path).output().context("running the short bench")?;
    if !out.status.success() {
        bail!(
            "the short bench on {path} failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    let doc: Document =
        serde_json::from_slice(&out.stdout).context("reading the bench's document")?;
    let b: BenchRecord = doc
        .try_into()
        .map_err(|_| anyhow::anyhow!("the short bench did not give a bench document"))?;
    let device = device_name(&b.clone().into());
    let points = predict::points_of_bench(&b, None);
    Ok((points, path.to_string(), device, Vec::new()))
}

/// The time record's text, its prediction included.
pub fn print(r: &TimeRecord, out: &mut dyn Write) -> std::io::Result<()> {
    drivescope_report::text::print_time(r, out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use drivescope_record::{IoClass, IoDirection, ThinkTime, TimeMode};

    fn class(pattern: AccessPattern, bytes: u64, n: u64, svc: f64, qd: f64) -> IoClass {
        IoClass {
            direction: IoDirection::Read,
            size_max_bytes: bytes.next_power_of_two(),
            pattern,
            requests: n,
            bytes: n * bytes,
            service_ns_mean: svc,
            service_ns_p50: svc as u64,
            service_ns_p99: svc as u64,
            queue_depth_mean: qd,
        }
    }

    #[test]
    fn the_short_bench_measures_each_class_that_matters_at_the_depths_around_its_own() {
        let fp = Fingerprint {
            mode: TimeMode::Cold,
            run: 1,
            devices: vec!["loop0".into()],
            requests: 3,
            unmatched: 0,
            lost_events: 0,
            wall_ns: 1,
            busy_ns: 1,
            classes: vec![
                class(AccessPattern::Random, 4096, 1000, 10_000.0, 1.0),
                class(AccessPattern::Sequential, 131_072, 100, 100_000.0, 4.5),
                class(AccessPattern::Random, 8192, 1, 10_000.0, 1.0),
            ],
            flushes: 0,
            discards: 0,
            sync_requests: 0,
            queue_depth: Vec::new(),
            mean_queue_depth: 1.0,
            think: ThinkTime::default(),
            timeline: Vec::new(),
            timeline_step_s: 1.0,
            notes: Vec::new(),
        };
        let fp = serde_json::from_value::<Fingerprint>(serde_json::to_value(&fp).unwrap()).unwrap();
        assert_eq!(
            shapes(&fp),
            ["RND4K Q1T1", "SEQ128K Q4T1", "SEQ128K Q8T1"],
            "the 8 KiB class holds under 1 % of the service time"
        );
        for t in shapes(&fp) {
            drivescope_core::bench::TestSpec::parse(&t).unwrap();
        }
    }
}
