//! `--json` and `--quiet` as a script meets them: stdout holds the document (or nothing more than the
//! results), and stderr stays empty on a run that went well: no text, no progress lines, no
//! `saved as run N`. Targets any user has (`null:`, a scratch file): no root.

use drivescope_testkit as common;

use common::drivescope_cmd;
use drivescope_record::Document;

/// A scratch file of the test's own, removed at the end.
struct Scratch(std::path::PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn scratch(name: &str) -> (Scratch, String) {
    let dir = std::env::temp_dir().join(format!("drivescope-quiet-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("scratch.img");
    std::fs::write(&file, vec![7u8; 16 << 20]).unwrap();
    let f = file.to_str().unwrap().to_string();
    (Scratch(dir), f)
}

/// The commands a newcomer runs first, each short.
fn commands(file: &str) -> Vec<Vec<String>> {
    let c = |s: &str| s.split(' ').map(String::from).collect::<Vec<_>>();
    vec![
        c("scan null:64M --points 64"),
        c(&format!("scan {file} --points 64")),
        c(&format!("info {file}")),
        c(&format!("bench {file} --duration 0.2s --runs 1")),
        c("sweep null:64M --duration 0.05s"),
        c("soak null:64M --duration 1s --interval 0.25s"),
        c(&format!("diagnose {file} --budget 3s")),
        c("screen null:64M null:32M --points 64"),
        c("time --warm --runs 1 -- true"),
    ]
}

#[test]
fn json_leaves_stderr_empty_and_stdout_one_document() {
    let (_d, file) = scratch("json");
    for mut args in commands(&file) {
        let at = args.iter().position(|a| a == "--").unwrap_or(args.len());
        args.insert(at, "--json".into());
        let out = drivescope_cmd().args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
        assert_eq!(err, "", "{args:?} said on stderr");
        let value: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{args:?}: stdout is not one JSON document: {e}"));
        if args[0] != "info" {
            Document::from_value(value).unwrap_or_else(|e| panic!("{args:?}: {e}"));
        }
    }
}

#[test]
fn quiet_leaves_stderr_empty() {
    let (_d, file) = scratch("quiet");
    for mut args in commands(&file) {
        if args[0] == "info" {
            continue; // info has no --quiet: it prints only its result
        }
        let at = args.iter().position(|a| a == "--").unwrap_or(args.len());
        args.insert(at, "--quiet".into());
        let out = drivescope_cmd().args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
        assert_eq!(err, "", "{args:?} said on stderr");
        assert!(!out.stdout.is_empty(), "{args:?}: the results are printed");
    }
}
