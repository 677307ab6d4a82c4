//! The parameters of a run, as every format lists them: what it was asked to do, not what it measured.

use drivescope_record::{DataPattern, Document};
use serde_json::Value;

/// The parameters of a run: what it was asked to do, not what it measured.
pub fn of(doc: &Document) -> Vec<(String, String)> {
    let mut p: Vec<(&str, String)> = Vec::new();
    match doc {
        Document::Scan(r) => {
            p.push(("block_size", r.block_size.to_string()));
            p.push(("queue_depth", r.queue_depth.to_string()));
            p.push(("offset", r.offset.to_string()));
            p.push(("length", r.length.to_string()));
            p.push(("engine", r.engine.to_string()));
            p.push(("reap", r.reap.to_string()));
            p.push(("slow_threshold_ns", r.slow_threshold_ns.to_string()));
            if let Some(d) = r.dwell_ns {
                p.push(("dwell_ns", d.to_string()));
            }
            p.push(("points", r.points.to_string()));
            p.push(("interval_ns", r.interval_ns.to_string()));
            p.push(("write", r.write.to_string()));
            p.push(("interrupted", r.interrupted.to_string()));
            if let Some(from) = r.resumed_from {
                p.push(("resumed_from", from.to_string()));
            }
        }
        Document::Bench(r) => {
            p.push(("profile", r.profile.clone()));
            p.push(("runs", r.runs.to_string()));
            p.push(("duration_ns", r.duration_ns.to_string()));
            p.push(("pause_ns", r.pause_ns.to_string()));
        }
        Document::Sweep(r) => {
            p.push(("pattern", r.pattern.clone()));
            p.push(("rw", r.rw.to_string()));
            p.push(("block_size", r.block_size.to_string()));
            p.push(("duration_ns", r.duration_ns.to_string()));
        }
        Document::Soak(r) => {
            p.push(("test", r.test.clone()));
            p.push(("rw", r.rw.to_string()));
            p.push(("block_size", r.load.block_size.to_string()));
            p.push(("queue_depth", r.load.queue_depth.to_string()));
            p.push(("threads", r.load.threads.to_string()));
            p.push(("engine", r.load.engine.to_string()));
            p.push(("reap", r.load.reap.to_string()));
            p.push(("duration_ns", r.duration_ns.to_string()));
            p.push(("interval_ns", r.interval_ns.to_string()));
        }
        Document::Diagnose(r) => {
            p.push(("budget_ns", r.budget_ns.to_string()));
            p.push(("size", r.workload.size.to_string()));
            p.push(("writes", r.writes.to_string()));
        }
        Document::Screen(r) => {
            p.push(("targets", r.members.len().to_string()));
            if let Some(s) = r.members.iter().find_map(|m| m.scan.as_ref()) {
                p.push(("block_size", s.block_size.to_string()));
                p.push(("queue_depth", s.queue_depth.to_string()));
                p.push(("engine", s.engine.to_string()));
                p.push(("slow_threshold_ns", s.slow_threshold_ns.to_string()));
            }
            p.push(("write", r.write.to_string()));
            p.push(("verify", r.verify.to_string()));
            p.push(("interrupted", r.interrupted.to_string()));
            if let Some(from) = r.resumed_from {
                p.push(("resumed_from", from.to_string()));
            }
            let c = &r.criteria;
            p.push(("max_failed_sectors", c.max_failed_sectors.to_string()));
            p.push(("max_verify_errors", c.max_verify_errors.to_string()));
            p.push(("max_slow_commands", c.max_slow_commands.to_string()));
            p.push(("max_latency_ns", c.max_latency_ns.to_string()));
            p.push(("below_siblings_pct", c.below_siblings_pct.to_string()));
            p.push(("below_stretch_pct", c.below_stretch_pct.to_string()));
            p.push(("below_history_pct", c.below_history_pct.to_string()));
        }
        Document::Time(r) => {
            p.push(("command", r.command_line()));
            p.push(("shell", r.shell.is_some().to_string()));
            if let Some(prep) = &r.prepare {
                p.push(("prepare", prep.clone()));
            }
            p.push(("cwd", r.header.target.path.clone()));
            let modes: Vec<&str> = r.modes.iter().map(|m| m.mode.as_str()).collect();
            p.push(("modes", modes.join(",")));
            p.push(("runs", r.runs.to_string()));
            p.push(("warmup", r.warmup.to_string()));
            p.push(("ignore_failure", r.ignore_failure.to_string()));
            p.push(("devices", r.devices.join(",")));
            p.push(("io_source", format!("{:?}", r.io_source).to_lowercase()));
            p.push(("interrupted", r.interrupted.to_string()));
        }
        Document::Multi(r) => {
            p.push(("command", r.command.clone()));
            p.push(("target", r.target_template.clone()));
            p.push(("ranks", r.ranks.to_string()));
            p.push(("stonewall", r.stonewall.to_string()));
            p.push(("profile", r.profile.clone()));
            p.push(("runs", r.runs.to_string()));
            p.push(("duration_ns", r.duration_ns.to_string()));
            p.push(("interrupted", r.interrupted.to_string()));
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
        p.push(("size", w.size.to_string()));
        p.push((
            "data",
            match w.data {
                DataPattern::Random => "random",
                DataPattern::Zero => "zero",
            }
            .into(),
        ));
        p.push(("direct", w.direct.to_string()));
        p.push(("interrupted", w.interrupted.to_string()));
    }
    p.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
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
        .map(|(k, v)| {
            (
                k.clone(),
                v.as_str().map_or_else(|| v.to_string(), str::to_string),
            )
        })
        .collect()
}
