//! Writes a demo report of sample runs: `cargo run -p drivescope-report --example demo -- OUT_DIR`.

use drivescope_report::{page, png, sample, Run};

fn main() {
    let dir = std::path::PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| "demo-report".into()),
    );
    let docs = vec![
        sample::scan(1, 1 << 40, 1000, 200, 3, "read"),
        sample::scan(1, 1 << 40, 1000, 20, 0, "write"),
        sample::scan(2, 1 << 40, 1000, 5, 0, "read"),
        sample::quick_scan(3, 1 << 40, 256),
        sample::bench(4),
        sample::bench(5),
        sample::sweep(6),
        sample::soak(7, 600),
    ];
    let runs: Vec<Run> = docs
        .into_iter()
        .enumerate()
        .map(|(i, d)| Run::new(Some(i as i64 + 1), d))
        .collect();
    let (html, charts) = page::render(&runs, "drivescope demo report").expect("render");
    std::fs::create_dir_all(&dir).expect("create output directory");
    std::fs::write(dir.join("report.html"), html).expect("write report");
    for p in png::write_all(&charts, &dir).expect("png") {
        println!("{}", p.display());
    }
}
