//! The parameters of a run, as every format lists them: what it was asked to do, not what it measured.

use drivescope_record::{DataPattern, Document};
use drivescope_units::{format_duration, format_rate, format_size};
use serde_json::Value;

/// The parameters of a run: what it was asked to do, not what it measured. Each is a name in
/// words and its value in units a person reads (`budget 3m`, `size 256.0 MiB`): JSON and CSV
/// keep the stored numbers.
pub fn of(doc: &Document) -> Vec<(String, String)> {
    let mut p: Vec<(&str, String)> = Vec::new();
    match doc {
        Document::Scan(r) => {
            p.push(("block size", format_size(r.block_size)));
            p.push(("queue depth", r.queue_depth.to_string()));
            p.push(("offset", format_size(r.offset)));
            p.push(("length", format_size(r.length)));
            p.push(("engine", r.engine.to_string()));
            p.push(("reap", r.reap.to_string()));
            p.push(("slow threshold", format_duration(r.slow_threshold_ns)));
            if let Some(d) = r.dwell_ns {
                p.push(("dwell", format_duration(d)));
            }
            p.push(("points", r.points.to_string()));
            p.push(("interval", format_duration(r.interval_ns)));
            p.push(("write", yes_no(r.write)));
            p.push(("interrupted", yes_no(r.interrupted)));
            if let Some(from) = r.resumed_from {
                p.push(("resumed from run", from.to_string()));
            }
        }
        Document::Bench(r) => {
            p.push(("profile", r.profile.clone()));
            p.push(("runs", r.runs.to_string()));
            p.push(("duration", format_duration(r.duration_ns)));
            p.push(("pause", format_duration(r.pause_ns)));
        }
        Document::Sweep(r) => {
            p.push(("pattern", r.pattern.clone()));
            p.push(("rw", r.rw.to_string()));
            p.push(("block size", format_size(r.block_size)));
            p.push(("duration", format_duration(r.duration_ns)));
        }
        Document::Soak(r) => {
            p.push(("test", r.test.clone()));
            p.push(("rw", r.rw.to_string()));
            p.push(("block size", format_size(r.load.block_size)));
            p.push(("queue depth", r.load.queue_depth.to_string()));
            p.push(("threads", r.load.threads.to_string()));
            p.push(("engine", r.load.engine.to_string()));
            p.push(("reap", r.load.reap.to_string()));
            p.push(("duration", format_duration(r.duration_ns)));
            p.push(("interval", format_duration(r.interval_ns)));
        }
        Document::Diagnose(r) => {
            p.push(("budget", format_duration(r.budget_ns)));
            p.push(("size", format_size(r.workload.size)));
            p.push(("writes", yes_no(r.writes)));
        }
        Document::Screen(r) => {
            p.push(("targets", r.members.len().to_string()));
            if let Some(s) = r.members.iter().find_map(|m| m.scan.as_ref()) {
                p.push(("block size", format_size(s.block_size)));
                p.push(("queue depth", s.queue_depth.to_string()));
                p.push(("engine", s.engine.to_string()));
                p.push(("slow threshold", format_duration(s.slow_threshold_ns)));
            }
            p.push(("write", yes_no(r.write)));
            p.push(("verify", yes_no(r.verify)));
            p.push(("interrupted", yes_no(r.interrupted)));
            if let Some(from) = r.resumed_from {
                p.push(("resumed from run", from.to_string()));
            }
            let c = &r.criteria;
            p.push(("max failed sectors", c.max_failed_sectors.to_string()));
            p.push(("max verify errors", c.max_verify_errors.to_string()));
            p.push(("max slow commands", c.max_slow_commands.to_string()));
            p.push(("max latency", format_duration(c.max_latency_ns)));
            p.push(("below siblings", percent(c.below_siblings_pct)));
            p.push(("below stretch", percent(c.below_stretch_pct)));
            p.push(("below history", percent(c.below_history_pct)));
        }
        Document::Steady(r) => {
            p.push(("test", r.test.as_str().to_string()));
            p.push(("cell time", format_duration(r.round_time_ns)));
            p.push(("cells a round", r.matrix.len().to_string()));
            p.push(("queue depth", r.queue_depth.to_string()));
            p.push(("threads", r.threads.to_string()));
            p.push((
                "purge",
                r.purge.method.clone().unwrap_or_else(|| "none".into()),
            ));
            p.push(("conformant", yes_no(r.conformant)));
        }
        Document::Replay(r) => {
            p.push(("trace", r.trace.clone()));
            p.push(("traced device", r.traced_device.clone()));
            p.push(("wrap", yes_no(r.wrapped)));
            p.push(("think time", yes_no(!r.no_think)));
        }
        Document::Durability(r) => {
            p.push(("on", r.on.clone()));
            p.push(("budget", format_duration(r.budget_ns)));
        }
        Document::Capacity(r) => {
            p.push(("probe block", format_size(r.block_size)));
            p.push(("flush", format_size(r.flush_bytes)));
            p.push(("backup", yes_no(!r.destructive)));
        }
        Document::Time(r) => {
            p.push(("command", r.command_line()));
            p.push(("shell", yes_no(r.shell.is_some())));
            if let Some(prep) = &r.prepare {
                p.push(("prepare", prep.clone()));
            }
            p.push(("directory", r.header.target.path.clone()));
            let modes: Vec<&str> = r.modes.iter().map(|m| m.mode.as_str()).collect();
            p.push(("modes", modes.join(", ")));
            p.push(("runs", r.runs.to_string()));
            p.push(("warm-up runs", r.warmup.to_string()));
            p.push(("ignore failures", yes_no(r.ignore_failure)));
            p.push(("devices", r.devices.join(", ")));
            p.push(("I/O source", format!("{:?}", r.io_source).to_lowercase()));
            p.push(("interrupted", yes_no(r.interrupted)));
        }
        Document::Multi(r) => {
            p.push(("command", r.command.clone()));
            p.push(("target", r.target_template.clone()));
            p.push(("ranks", r.ranks.to_string()));
            p.push(("stonewall", yes_no(r.stonewall)));
            p.push(("profile", r.profile.clone()));
            p.push(("runs", r.runs.to_string()));
            p.push(("duration", format_duration(r.duration_ns)));
            p.push(("interrupted", yes_no(r.interrupted)));
        }
        Document::Info(_) => {}
        Document::Unknown { doc, .. } => return unknown_params(doc),
    }
    if let Document::Bench(_) | Document::Sweep(_) | Document::Soak(_) = doc {
        let w = match doc {
            Document::Bench(r) => &r.workload,
            Document::Sweep(r) => &r.workload,
            Document::Soak(r) => &r.workload,
            _ => unreachable!(),
        };
        p.push(("size", format_size(w.size)));
        p.push((
            "data",
            match w.data {
                DataPattern::Random => "random",
                DataPattern::Zero => "zero",
            }
            .into(),
        ));
        p.push(("direct", yes_no(w.direct)));
        p.push(("interrupted", yes_no(w.interrupted)));
    }
    p.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

/// The parameters in one line: `budget 3m, size 256.0 MiB, writes no`.
pub fn line(params: &[(String, String)]) -> String {
    let p: Vec<String> = params.iter().map(|(k, v)| format!("{k} {v}")).collect();
    p.join(", ")
}

fn yes_no(b: bool) -> String {
    if b { "yes" } else { "no" }.to_string()
}

fn percent(v: f64) -> String {
    format!("{v}%")
}

/// The parameters of a document of a kind this version does not know: its top-level scalars.
fn unknown_params(doc: &Value) -> Vec<(String, String)> {
    const NOT_PARAMS: &[&str] = &["schema", "kind", "host", "started_at", "ended_at"];
    let Some(obj) = doc.as_object() else {
        return Vec::new();
    };
    obj.iter()
        .filter(|(k, v)| {
            !NOT_PARAMS.contains(&k.as_str()) && !v.is_object() && !v.is_array() && !v.is_null()
        })
        .map(|(k, v)| unknown_param(k, v))
        .collect()
}

/// A scalar of an unknown document: its name in words, and its value in units where the name
/// says which (`_ns`, `_bytes`, `_mb_per_s`).
fn unknown_param(key: &str, v: &Value) -> (String, String) {
    let words = |k: &str| k.replace('_', " ");
    if let Some(n) = v.as_u64() {
        if let Some(k) = key.strip_suffix("_ns") {
            return (words(k), format_duration(n));
        }
        if let Some(k) = key.strip_suffix("_bytes") {
            return (words(k), format_size(n));
        }
    }
    if let (Some(k), Some(x)) = (key.strip_suffix("_mb_per_s"), v.as_f64()) {
        return (words(k), format_rate(x));
    }
    let value = v.as_str().map_or_else(|| v.to_string(), str::to_string);
    (words(key), value)
}
