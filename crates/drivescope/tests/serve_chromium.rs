//! `drivescope serve` in a real browser (headless Chromium): the runs page, the runs filtered, a
//! run's page, and the comparison the runs page's form asks for when two runs are ticked. Each
//! page loads without console messages (no script error, no refused resource), its charts are
//! drawn with a line per run, and a screenshot of each is kept under the target directory.

#[path = "../../report/tests/browser/mod.rs"]
mod browser;
use drivescope_testkit as common;

use browser::{console_messages, run_chromium};
use common::serve::{chart_lines as lines_of, filled, serve};

#[test]
fn runs_filter_run_and_compare_in_chromium() {
    let f = filled("chromium");
    let s = serve(&["--store", &f.store, "--listen", "127.0.0.1:0"]);
    let base = format!("http://{}", s.addr);
    let shots = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("serve-screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    let profile = f.dir.join("chromium");
    std::fs::create_dir_all(&profile).unwrap();
    // (page, what it must hold)
    let pages = [
        ("runs", "/".to_string()),
        ("filtered", "/?kind=scan&sort=oldest".to_string()),
        ("run", "/runs/1".to_string()),
        // What the runs page's form submits with runs 1 and 2 ticked.
        ("compare", "/compare?run=1&run=2".to_string()),
    ];
    for (name, path) in &pages {
        let url = format!("{base}{path}");
        let (dom, stderr) = run_chromium(&profile, &url, &["--dump-dom".into()]);
        assert!(
            dom.contains("</html>"),
            "{name}: no DOM; chromium said:\n{stderr}"
        );
        let msgs = console_messages(&stderr);
        assert!(
            msgs.is_empty(),
            "{name}: console messages:\n{}",
            msgs.join("\n")
        );
        match *name {
            "runs" => assert_eq!(dom.matches(r#"name="run" value=""#).count(), 5, "{name}"),
            "filtered" => {
                let rows: Vec<&str> = dom
                    .split(r#"name="run" value=""#)
                    .skip(1)
                    .map(|r| r.split('"').next().unwrap())
                    .collect();
                assert_eq!(rows, vec!["1", "2", "5"], "{name}");
            }
            "run" => assert_eq!(lines_of(&dom, "curve"), 1, "{name}"),
            _ => {
                assert_eq!(lines_of(&dom, "curve"), 2, "{name}: a line per run");
                assert!(dom.contains(r#"class="compare""#), "{name}: the table");
            }
        }
        let shot = shots.join(format!("{name}.png"));
        let _ = std::fs::remove_file(&shot);
        let (_, stderr) = run_chromium(
            &profile,
            &url,
            &[
                format!("--screenshot={}", shot.display()),
                "--window-size=1200,1600".into(),
            ],
        );
        let len = std::fs::metadata(&shot)
            .unwrap_or_else(|e| panic!("{name}: no screenshot ({e}); chromium said:\n{stderr}"))
            .len();
        assert!(len > 10_000, "{name}: a screenshot of {len} bytes");
    }
}
