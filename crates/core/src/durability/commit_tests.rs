//! Commit costs on a real file system: counts, bytes, flush calls, the file removed, the
//! percentiles in order. Timing values themselves are never asserted.

use super::*;
use std::path::Path;

/// A fresh empty directory on the disk's file system, removed when dropped.
struct Dir(PathBuf);

impl Dir {
    fn new(tag: &str) -> Dir {
        let p =
            std::env::temp_dir().join(format!("drivescope-commit-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        Dir(p)
    }
    fn entries(&self) -> usize {
        std::fs::read_dir(&self.0).unwrap().count()
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn check(c: &CommitCost, mode: CommitMode, committers: usize, size: usize, n: u64) {
    let total = n * committers as u64;
    assert_eq!(c.mode, mode);
    assert_eq!(c.committers, committers);
    assert_eq!(c.commits, total);
    assert_eq!(c.latency.count(), total);
    assert_eq!(c.bytes, total * size as u64);
    let flushes = if mode == CommitMode::ODsync { 0 } else { total };
    assert_eq!(c.flushes, flushes, "{mode:?}");
    assert!(c.latency.min().unwrap() > 0);
    assert!(c.p50_ns() <= c.p99_ns(), "{c:?}");
    assert!(c.p99_ns() <= c.max_ns(), "{c:?}");
    // Order of magnitude only: no commit outlasts the whole measurement (1 % histogram slack).
    assert!(c.latency.min().unwrap() as f64 <= c.wall_ns as f64 * 1.01);
    let row = c.to_row();
    assert_eq!(
        (row.count, row.bytes, row.flushes),
        (total, c.bytes, flushes)
    );
    assert_eq!(row.committers as usize, committers);
    assert!(row.p50_ns <= row.p99_ns && row.p99_ns <= row.max_ns);
}

#[test]
fn every_mode_at_qd1_and_grouped_counts_exactly_and_leaves_nothing() {
    let dir = Dir::new("matrix");
    let (size, n) = (4096, 12);
    let all = matrix(&dir.0, size, n, &[1, 4]).unwrap();
    assert_eq!(all.len(), 6);
    for (c, (mode, k)) in all.iter().zip(
        CommitMode::ALL
            .iter()
            .flat_map(|m| [(*m, 1usize), (*m, 4usize)]),
    ) {
        check(c, mode, k, size, n);
    }
    assert_eq!(dir.entries(), 0, "the test file is removed");
}

#[test]
fn odd_sizes_and_many_committers() {
    let dir = Dir::new("odd");
    for (size, k, n) in [(1usize, 3usize, 5u64), (12_345, 8, 3), (65_536, 2, 4)] {
        let c = measure(&CommitPlan {
            dir: dir.0.clone(),
            mode: CommitMode::Fdatasync,
            size,
            commits: n,
            committers: k,
            until: None,
            into: CommitInto::New,
        })
        .unwrap();
        check(&c, CommitMode::Fdatasync, k, size, n);
        assert_eq!(dir.entries(), 0);
    }
}

#[test]
fn each_committer_fills_its_own_region_with_its_own_bytes() {
    let dir = Dir::new("content");
    for mode in CommitMode::ALL {
        let plan = CommitPlan {
            dir: dir.0.clone(),
            mode,
            size: 3000,
            commits: 4,
            committers: 3,
            until: None,
            into: CommitInto::New,
        };
        let file = TestFile::create(&dir.0, plan.file_bytes()).unwrap();
        let c = commit_on(&plan, file.path()).unwrap();
        check(&c, mode, 3, 3000, 4);
        let data = std::fs::read(file.path()).unwrap();
        assert_eq!(data.len() as u64, plan.file_bytes());
        let region = plan.size * plan.commits as usize;
        for (at, b) in data.iter().enumerate() {
            let (k, n, i) = (
                at / region,
                at % region / plan.size,
                at % region % plan.size,
            );
            let want = if i % 512 < STAMP {
                stamp_word(k as u64, n as u64, (i / 512) as u64).to_le_bytes()[i % 512]
            } else {
                pattern(k as u64, i)
            };
            assert_eq!(*b, want, "{mode:?} byte {at}");
        }
        // No two commits' data alike.
        let blocks: std::collections::HashSet<&[u8]> = data.chunks(plan.size).collect();
        assert_eq!(
            blocks.len(),
            (plan.commits * plan.committers as u64) as usize
        );
        drop(file);
        assert_eq!(dir.entries(), 0);
    }
}

#[test]
fn empty_plans_and_missing_directories_are_refused() {
    let dir = Dir::new("refused");
    let plan = CommitPlan {
        dir: dir.0.clone(),
        mode: CommitMode::Fsync,
        size: 4096,
        commits: 0,
        committers: 1,
        until: None,
        into: CommitInto::New,
    };
    assert!(matches!(measure(&plan), Err(TargetError::BadSpec(_))));
    let none = CommitPlan {
        dir: Path::new(&dir.0).join("absent"),
        commits: 1,
        ..plan.clone()
    };
    assert!(matches!(measure(&none), Err(TargetError::NotFound(_))));
    assert_eq!(dir.entries(), 0);
}

#[test]
fn committers_stop_at_the_deadline_after_one_commit_each() {
    let dir = Dir::new("until");
    let c = measure(&CommitPlan {
        dir: dir.0.clone(),
        mode: CommitMode::Fdatasync,
        size: 4096,
        commits: 1000,
        committers: 3,
        until: Some(std::time::Instant::now()),
        into: CommitInto::New,
    })
    .unwrap();
    assert_eq!(c.commits, 3, "one each, the deadline already past");
    assert_eq!((c.flushes, c.latency.count()), (3, 3));
    assert_eq!(c.bytes, 3 * 4096);
    assert_eq!(dir.entries(), 0);
}

#[test]
fn commits_into_written_blocks_fill_the_file_first_and_say_so() {
    let dir = Dir::new("written");
    for (mode, k, size, n) in [
        (CommitMode::Fdatasync, 1usize, 4096usize, 7u64),
        (CommitMode::ODsync, 3, 3000, 4),
        (CommitMode::Fsync, 2, 1 << 20, 3),
    ] {
        let plan = CommitPlan {
            dir: dir.0.clone(),
            mode,
            size,
            commits: n,
            committers: k,
            until: None,
            into: CommitInto::Written,
        };
        let c = measure(&plan).unwrap();
        check(&c, mode, k, size, n);
        assert_eq!(c.into, Some(CommitInto::Written));
        assert_eq!(
            c.prewritten,
            plan.file_bytes(),
            "the whole file is written first"
        );
        assert_eq!(c.to_row().into, Some(CommitInto::Written));
        let new = measure(&CommitPlan {
            into: CommitInto::New,
            ..plan.clone()
        })
        .unwrap();
        assert_eq!((new.into, new.prewritten), (Some(CommitInto::New), 0));
        assert_eq!(dir.entries(), 0, "the test files are removed");
    }
}

#[test]
fn commit_data_do_not_compress() {
    // What zram or a compressing file system would make of one commit: a 4 KiB buffer's distinct
    // 8-byte words, and its bytes' spread.
    for region in [0u64, 1, 7, 1000] {
        let buf: Vec<u8> = (0..4096).map(|i| pattern(region, i)).collect();
        let words: std::collections::HashSet<&[u8]> = buf.chunks(8).collect();
        assert_eq!(words.len(), 512, "committer {region}: every word differs");
        let mut seen = [0u32; 256];
        for b in &buf {
            seen[*b as usize] += 1;
        }
        assert!(
            seen.iter().all(|&n| n < 64),
            "committer {region}: bytes spread"
        );
    }
    let a: Vec<u8> = (0..64).map(|i| pattern(0, i)).collect();
    let b: Vec<u8> = (0..64).map(|i| pattern(1, i)).collect();
    assert_ne!(a, b, "committers write unlike data");
}
