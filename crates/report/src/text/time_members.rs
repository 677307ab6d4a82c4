//! A timed workload on a file system over several members: what each member read and how long it was busy,
//! so a person sees whether the members worked side by side or one at a time.

use crate::format::bytes;
use drivescope_record::{ModeResult, TimedRun};

/// `cold by member: loop0 9.3 MiB read, busy 68 %; loop1 …`, the means over the mode's runs that count (those
/// that succeeded, or all where none did); none without members or runs.
pub fn line(m: &ModeResult, members: &[String]) -> Option<String> {
    if members.is_empty() {
        return None;
    }
    let ok: Vec<&TimedRun> = m.runs.iter().filter(|r| r.succeeded()).collect();
    let runs = if ok.is_empty() {
        m.runs.iter().collect()
    } else {
        ok
    };
    if runs.is_empty() {
        return None;
    }
    let n = runs.len() as f64;
    let wall = runs.iter().map(|r| r.wall_ns as f64).sum::<f64>() / n;
    let parts: Vec<String> = members
        .iter()
        .map(|name| {
            let of = |f: &dyn Fn(&drivescope_record::DeviceIo) -> u64| {
                runs.iter()
                    .filter_map(|r| r.device(name))
                    .map(|d| f(d) as f64)
                    .sum::<f64>()
                    / n
            };
            let (read, busy) = (of(&|d| d.read_bytes), of(&|d| d.busy_ns));
            format!(
                "{name} {} read, busy {:.0} %",
                bytes(read),
                100.0 * (busy / wall.max(1.0)).min(1.0)
            )
        })
        .collect();
    Some(format!("{} by member: {}", m.mode, parts.join("; ")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use drivescope_record::{DeviceIo, ModeSummary, TimeMode};

    fn run(exit: i32, devs: &[(&str, u64, u64)]) -> TimedRun {
        TimedRun {
            index: 1,
            wall_ns: 2_000_000_000,
            user_ns: 0,
            sys_ns: 0,
            exit_code: Some(exit),
            signal: None,
            devices: devs
                .iter()
                .map(|&(name, read, busy)| DeviceIo {
                    name: name.into(),
                    read_bytes: read,
                    busy_ns: busy,
                    ..DeviceIo::default()
                })
                .collect(),
            cgroup_io: None,
            outlier: false,
        }
    }

    #[test]
    fn each_member_s_mean_read_and_busy_share_over_the_runs_that_succeeded() {
        let m = ModeResult {
            mode: TimeMode::Cold,
            runs: vec![
                run(0, &[("loop0", 10 << 20, 1_000_000_000), ("loop1", 0, 0)]),
                run(0, &[("loop0", 30 << 20, 1_800_000_000), ("loop1", 0, 0)]),
                run(
                    1,
                    &[("loop0", 99 << 20, 2_000_000_000), ("loop1", 99 << 20, 0)],
                ),
            ],
            summary: ModeSummary::default(),
        };
        let members = ["loop0".to_string(), "loop1".to_string()];
        assert_eq!(
            line(&m, &members).unwrap(),
            "cold by member: loop0 20.0 MiB read, busy 70 %; loop1 0 B read, busy 0 %"
        );
        assert_eq!(line(&m, &[]), None);
    }
}
