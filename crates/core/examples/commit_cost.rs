//! Prints what a commit costs in a directory: every mode, one committer and a group.
//!
//! `cargo run -p drivescope-core --example commit_cost -- DIR [SIZE] [COMMITS] [COMMITTERS...]`

use drivescope_core::durability::commit::matrix;

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = args.next().expect("a directory");
    let size: usize = args.next().map_or(4096, |s| s.parse().expect("size"));
    let commits: u64 = args.next().map_or(200, |s| s.parse().expect("commits"));
    let mut ks: Vec<usize> = args.map(|s| s.parse().expect("committers")).collect();
    if ks.is_empty() {
        ks = vec![1, 4];
    }
    let all = matrix(std::path::Path::new(&dir), size, commits, &ks).expect("measured");
    println!("mode             K  size     count  flushes  p50_us   p99_us   max_us   commits/s");
    for c in all {
        println!(
            "{:<16} {:<2} {:<8} {:<6} {:<8} {:<8.1} {:<8.1} {:<8.1} {:.0}",
            c.mode.as_str(),
            c.committers,
            c.size,
            c.commits,
            c.flushes,
            c.p50_ns() as f64 / 1e3,
            c.p99_ns() as f64 / 1e3,
            c.max_ns() as f64 / 1e3,
            c.commits as f64 / (c.wall_ns.max(1) as f64 / 1e9)
        );
    }
}
