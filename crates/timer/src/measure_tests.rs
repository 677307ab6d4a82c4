//! A mode's summary: of the file system's device, or of an array's members together.

use super::*;
use drivescope_record::ModeSummary;

/// A tiny generator: runs must not depend on a clock or on the host.
struct Lcg(u64);
impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

fn dev(name: &str, r: &mut Lcg) -> DeviceIo {
    DeviceIo {
        name: name.into(),
        read_bytes: r.below(1 << 30),
        read_ios: r.below(100_000),
        written_bytes: r.below(1 << 28),
        write_ios: r.below(10_000),
        busy_ns: r.below(5_000_000_000),
    }
}

fn run(index: u32, devices: Vec<DeviceIo>) -> TimedRun {
    TimedRun {
        index,
        wall_ns: 5_000_000_000,
        user_ns: 0,
        sys_ns: 0,
        exit_code: Some(0),
        signal: None,
        devices,
        cgroup_io: None,
        outlier: false,
    }
}

fn mode(runs: Vec<TimedRun>) -> ModeResult {
    ModeResult {
        mode: TimeMode::Cold,
        runs,
        summary: ModeSummary::default(),
    }
}

#[test]
fn an_array_s_summary_adds_its_members_and_takes_the_busiest_member_s_busy_time() {
    let mut r = Lcg(0x5eed);
    for case in 0..200 {
        let n = 2 + r.below(5) as usize;
        let members: Vec<String> = (0..n).map(|i| format!("loop{i}")).collect();
        let runs: Vec<TimedRun> = (1..=1 + r.below(4) as u32)
            .map(|i| {
                let mut d: Vec<DeviceIo> = members.iter().map(|m| dev(m, &mut r)).collect();
                d.push(dev("vda", &mut r));
                run(i, d)
            })
            .collect();
        let mean =
            |f: &dyn Fn(&TimedRun) -> f64| runs.iter().map(f).sum::<f64>() / runs.len() as f64;
        let member = |r: &TimedRun| r.devices[..n].to_vec();
        let read = mean(&|r| member(r).iter().map(|d| d.read_bytes as f64).sum());
        let written = mean(&|r| member(r).iter().map(|d| d.written_bytes as f64).sum());
        let busy = mean(&|r| member(r).iter().map(|d| d.busy_ns).max().unwrap() as f64);
        let first = mean(&|r| r.devices[0].read_bytes as f64);
        let watched = vec![members[0].clone()];
        let s = finish(mode(runs.clone()), &watched, &members, false).summary;
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-6 * b.max(1.0);
        assert!(close(s.read_bytes.mean, read), "case {case}: {s:?}");
        assert!(close(s.written_bytes.mean, written), "case {case}: {s:?}");
        assert!(close(s.busy_ns.mean, busy), "case {case}: {s:?}");
        // Its twin, one device behind the directory: that device's counters alone.
        let s = finish(mode(runs), &watched, &[], false).summary;
        assert!(close(s.read_bytes.mean, first), "case {case}: {s:?}");
    }
}

#[test]
fn the_members_counters_are_recorded_beside_the_watched_devices_once() {
    let plan = Plan {
        argv: vec!["true".into()],
        shell: None,
        cwd: "/".into(),
        prepare: None,
        runs: 1,
        warmup: 0,
        modes: vec![TimeMode::Cold],
        ignore_failure: false,
        show_output: false,
        watched: vec!["loop1".into()],
        members: vec!["loop0".into(), "loop1".into(), "loop2".into()],
        notes: Vec::new(),
        trace: None,
    };
    assert_eq!(plan.counted(), ["loop1", "loop0", "loop2"]);
}
