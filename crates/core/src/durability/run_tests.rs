//! A whole run in a directory in memory (/dev/shm), on a short budget: every measurement in its
//! order, the counts adding up, the test files gone, the record carrying it all. No timing is
//! asserted but the order of magnitude of the budget.

use super::*;

struct Dir(PathBuf);

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn dir(tag: &str) -> Dir {
    let base = if std::path::Path::new("/dev/shm").is_dir() {
        PathBuf::from("/dev/shm")
    } else {
        std::env::temp_dir()
    };
    let p = base.join(format!(
        "drivescope-durability-{tag}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&p);
    std::fs::create_dir_all(&p).unwrap();
    Dir(p)
}

#[test]
fn a_run_measures_every_cell_in_order_counts_everything_and_leaves_nothing() {
    let d = dir("run");
    let mut plan = DurabilityPlan::new(Place::Dir(d.0.clone()), 400_000_000);
    plan.region = 64 << 20;
    let mut said = Vec::new();
    let run = run(&plan, &AtomicBool::new(false), &mut |l| said.push(l)).unwrap();
    assert_eq!(said.len(), 2, "{said:?}");
    assert_eq!(
        std::fs::read_dir(&d.0).unwrap().count(),
        0,
        "test files removed"
    );
    let cells = commit_cells(&plan);
    // 3 sizes × 3 modes × 2 committer counts into new files, and the 4 KiB ones into written blocks.
    assert_eq!(cells.len(), 24);
    assert_eq!(run.commits.len(), 24);
    let written = cells
        .iter()
        .filter(|c| c.3 == CommitInto::Written)
        .collect::<Vec<_>>();
    assert_eq!(written.len(), 6);
    assert!(written.iter().all(|c| c.1 == 4096));
    for (c, (mode, size, k, into)) in run.commits.iter().zip(&cells) {
        assert_eq!((c.mode, c.size, c.committers), (*mode, *size, *k));
        assert_eq!(c.into, Some(*into));
        let filled = match into {
            CommitInto::New => 0,
            CommitInto::Written => c.commits.div_ceil(*k as u64) * *k as u64 * *size as u64,
        };
        assert!(
            c.prewritten >= filled,
            "the file is written before its commits"
        );
        // At least one commit each; as many as planned unless the deadline came first.
        assert!(c.commits >= *k as u64, "{c:?}");
        assert_eq!(c.latency.count(), c.commits);
        assert_eq!(c.bytes, c.commits * *size as u64);
        let flushes = if *mode == CommitMode::ODsync {
            0
        } else {
            c.commits
        };
        assert_eq!(c.flushes, flushes);
    }
    assert!(run.region <= 64 << 20 && run.region > 0);
    let f = &run.flush;
    let s = f.sustained.expect("a sustained stream");
    assert!(s.bytes <= run.region && s.bytes > 0);
    let pairs: u64 = f.pairs.iter().map(|p| p.bytes).sum();
    assert_eq!(f.bytes_written, s.bytes + pairs);
    assert_eq!(f.flushes, 2 + f.pairs.len() as u64);
    let commit_bytes: u64 = run.commits.iter().map(|c| c.bytes + c.prewritten).sum();
    assert_eq!(run.bytes_written(), commit_bytes + f.bytes_written);
    // An order of magnitude only: the run keeps near its budget.
    assert!(run.duration_ns < 10 * plan.budget_ns, "{}", run.duration_ns);

    let info = drivescope_record::TargetInfo {
        path: d.0.display().to_string(),
        kind: drivescope_record::TargetType::File,
        size: 0,
        logical_block_size: 512,
    };
    let header = drivescope_record::Header::now(drivescope_record::Kind::Durability, info);
    let (bytes, flushes, pairs) = (run.bytes_written(), run.flushes(), f.pairs.len());
    let rec = run.into_record(header, Default::default(), plan.budget_ns);
    assert_eq!(rec.on, "file");
    assert_eq!(rec.data.commits.len(), 24);
    assert_eq!((rec.bytes_written, rec.flushes), (bytes, flushes));
    assert_eq!(rec.pairs.len(), pairs);
    assert!(
        rec.data.flush_honesty.is_none(),
        "the rule gives the verdict"
    );
}

#[test]
fn a_stopped_run_says_so_and_a_directory_with_no_room_is_refused() {
    let d = dir("stop");
    let plan = DurabilityPlan::new(Place::Dir(d.0.clone()), 200_000_000);
    let run = run(&plan, &AtomicBool::new(true), &mut |_| {}).unwrap();
    assert!(run.commits.is_empty());
    assert!(run.flush.interrupted);
    assert!(run.flush.pairs.is_empty());
    assert_eq!(std::fs::read_dir(&d.0).unwrap().count(), 0);
    let missing = DurabilityPlan::new(Place::Dir(d.0.join("absent")), 200_000_000);
    assert!(super::run(&missing, &AtomicBool::new(false), &mut |_| {}).is_err());
}

#[test]
fn a_device_has_no_file_state_to_measure_twice() {
    let plan = DurabilityPlan::new(
        Place::Device {
            path: "/dev/loop-none".into(),
            size: 1 << 30,
        },
        1,
    );
    let cells = commit_cells(&plan);
    assert_eq!(cells.len(), 18);
    assert!(cells.iter().all(|c| c.3 == CommitInto::New));
}

#[test]
fn each_cell_is_planned_from_its_likest_measured_cell() {
    let cost = |mode, size, k, p50_ns: u64| {
        let mut latency = drivescope_stats::Histogram::new();
        latency.record(p50_ns);
        CommitCost {
            mode,
            committers: k,
            size,
            commits: 1,
            bytes: size as u64,
            flushes: 1,
            device_flushes: None,
            latency,
            wall_ns: p50_ns,
            into: Some(CommitInto::New),
            prewritten: 0,
        }
    };
    use CommitMode::*;
    assert_eq!(
        planned_cost(&[], Fdatasync, 4096, 1),
        None,
        "the probe plans the first"
    );
    let done = [
        cost(Fdatasync, 4096, 1, 50_000),
        cost(Fdatasync, 4096, 4, 200_000),
        cost(ODsync, 4096, 4, 9_000_000), // a stall
    ];
    let near = |want: u64, got: Option<u64>| {
        let g = got.unwrap() as f64;
        assert!((g / want as f64 - 1.0).abs() < 0.02, "{got:?} for {want}");
    };
    // The written 4 KiB fdatasync cell at one committer: its new-file twin, not the stalled cell before it.
    near(50_000, planned_cost(&done, Fdatasync, 4096, 1));
    // 64 KiB fdatasync at four committers: same mode and committers.
    near(200_000, planned_cost(&done, Fdatasync, 65536, 4));
    // Nothing like it yet: the last cell.
    near(9_000_000, planned_cost(&done, Fsync, 4096, 1));
}
