//! The CSV tables of a timed workload: one row per run, and one row per device per run.

use drivescope_record::TimeRecord;
use serde_json::{json, Value};

/// One row per timed run: mode, index, times, how it ended, whether an outlier, and the file system's
/// device's numbers (the first watched device).
pub fn run_rows(r: &TimeRecord) -> Vec<Value> {
    let main = r.devices.first();
    r.modes
        .iter()
        .flat_map(|m| {
            m.runs.iter().map(move |run| {
                let dev = main
                    .and_then(|n| run.device(n))
                    .cloned()
                    .unwrap_or_default();
                json!({
                    "mode": m.mode,
                    "index": run.index,
                    "wall_ns": run.wall_ns,
                    "user_ns": run.user_ns,
                    "sys_ns": run.sys_ns,
                    "exit_code": run.exit_code,
                    "signal": run.signal,
                    "outlier": run.outlier,
                    "device": main,
                    "busy_ns": dev.busy_ns,
                    "read_bytes": dev.read_bytes,
                    "written_bytes": dev.written_bytes,
                })
            })
        })
        .collect()
}

/// One row per device per run: every device watched or with I/O.
pub fn device_rows(r: &TimeRecord) -> Vec<Value> {
    let mut out = Vec::new();
    for m in &r.modes {
        for run in &m.runs {
            for d in &run.devices {
                let mut row = serde_json::to_value(d).expect("records serialize");
                row["mode"] = json!(m.mode);
                row["index"] = json!(run.index);
                out.push(row);
            }
        }
    }
    out
}
