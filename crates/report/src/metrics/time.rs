//! The compare rows of a timed workload: per mode the wall time (mean, sd, median, min, max), the CPU, the
//! disk's busy time and share, and the bytes read and written, so the same command on two disks lines up.

use super::{push, Better, Metric, Unit};
use drivescope_record::TimeRecord;

pub(super) fn rows(r: &TimeRecord, out: &mut Vec<Metric>) {
    use Better::*;
    for m in &r.modes {
        let s = &m.summary;
        let mode = m.mode;
        let mut row = |key: &str, label: &str, unit: Unit, better: Better, v: f64| {
            push(
                out,
                format!("time.{mode}.{key}"),
                format!("{} {label}", capitalised(mode.as_str())),
                unit,
                better,
                Some(v),
            )
        };
        row("wall.mean", "time mean", Unit::Nanos, Lower, s.wall_ns.mean);
        row("wall.sd", "time sd", Unit::Nanos, Lower, s.wall_ns.sd);
        row(
            "wall.median",
            "time median",
            Unit::Nanos,
            Lower,
            s.wall_ns.median,
        );
        row("wall.min", "time min", Unit::Nanos, Lower, s.wall_ns.min);
        row("wall.max", "time max", Unit::Nanos, Lower, s.wall_ns.max);
        row(
            "user.mean",
            "CPU user",
            Unit::Nanos,
            Neither,
            s.user_ns.mean,
        );
        row("sys.mean", "CPU sys", Unit::Nanos, Neither, s.sys_ns.mean);
        row("busy.mean", "disk busy", Unit::Nanos, Lower, s.busy_ns.mean);
        row(
            "busy_share",
            "disk busy share",
            Unit::Ratio,
            Neither,
            s.busy_share,
        );
        row(
            "read_bytes.mean",
            "read",
            Unit::Bytes,
            Neither,
            s.read_bytes.mean,
        );
        row(
            "written_bytes.mean",
            "written",
            Unit::Bytes,
            Neither,
            s.written_bytes.mean,
        );
        row("runs", "runs", Unit::Count, Neither, s.count as f64);
    }
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}
