//! The I/O layer stays below the workloads: the engine (`src/engine/`), the target (`src/target.rs`)
//! and what they share (`src/gone.rs`, `src/aligned.rs`, `src/rng.rs`, `src/testfile.rs`) name no
//! module of the crate above them (scan, screen, bench, ...). Read from the source, so an import
//! that runs back up fails here before it becomes a circle.

use std::path::{Path, PathBuf};

/// The modules of the I/O layer.
const LOWER: &[&str] = &["aligned", "engine", "gone", "rng", "target", "testfile"];

/// The crate's own modules above the I/O layer: every module `src/lib.rs` declares, but those.
fn upper_modules() -> Vec<String> {
    let lib = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs");
    let lib = std::fs::read_to_string(lib).expect("src/lib.rs");
    lib.lines()
        .filter_map(|l| {
            l.trim()
                .strip_prefix("pub mod")
                .or(l.trim().strip_prefix("mod"))
        })
        .map(|m| m.trim().trim_end_matches(';').to_string())
        .filter(|m| !LOWER.contains(&m.as_str()))
        .collect()
}

/// The first segment of each path after `crate::` or `super::` in `line`, comments aside
/// (`crate::scan::lost` and `super::super::scan` name `scan`).
fn named_modules(line: &str) -> Vec<String> {
    let code = line.split("//").next().unwrap_or("");
    let mut out = Vec::new();
    for root in ["crate::", "super::"] {
        for (at, _) in code.match_indices(root) {
            if code[..at].ends_with("super::") || code[..at].ends_with('$') {
                continue;
            }
            let mut rest = &code[at + root.len()..];
            while let Some(r) = rest.strip_prefix("super::") {
                rest = r;
            }
            out.extend(segments(rest));
        }
    }
    out.retain(|m| !m.is_empty());
    out
}

/// The first segment of each path a `use` tail names: `scan::lost` or `{engine::Job, scan::lost}`.
fn segments(tail: &str) -> Vec<String> {
    let Some(list) = tail.strip_prefix('{') else {
        return vec![first_segment(tail)];
    };
    let mut depth = 0;
    let mut out = vec![first_segment(list)];
    for (at, c) in list.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => out.push(first_segment(list[at + 1..].trim_start())),
            _ => {}
        }
    }
    out
}

fn first_segment(path: &str) -> String {
    path.chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect()
}

/// The files of the I/O layer.
fn lower_files() -> Vec<PathBuf> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files: Vec<PathBuf> = std::fs::read_dir(src.join("engine"))
        .expect("src/engine")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .collect();
    for root in [
        "target.rs",
        "gone.rs",
        "aligned.rs",
        "rng.rs",
        "testfile.rs",
    ] {
        files.push(src.join(root));
    }
    files
}

/// Every line of the I/O layer that names a crate module above it.
fn upward_imports() -> Vec<String> {
    let upper = upper_modules();
    let mut found = Vec::new();
    for path in lower_files() {
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
        for (n, line) in text.lines().enumerate() {
            for module in named_modules(line) {
                if upper.contains(&module) {
                    found.push(format!(
                        "{}:{}: {module}: {}",
                        path.display(),
                        n + 1,
                        line.trim()
                    ));
                }
            }
        }
    }
    found
}

#[test]
fn engine_and_target_import_nothing_from_the_layers_above() {
    let found = upward_imports();
    assert!(
        found.is_empty(),
        "the I/O layer imports from above it:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_layers_are_read_from_the_source() {
    let names: Vec<String> = lower_files()
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    for needed in [
        "mod.rs",
        "scripted.rs",
        "uring.rs",
        "psync.rs",
        "target.rs",
        "gone.rs",
    ] {
        assert!(
            names.iter().any(|n| n == needed),
            "{needed} not read: {names:?}"
        );
    }
    let upper = upper_modules();
    for above in ["scan", "screen", "bench", "steady", "checkpoint"] {
        assert!(
            upper.iter().any(|m| m == above),
            "{above} not above: {upper:?}"
        );
    }
    assert!(
        !upper.iter().any(|m| m == "engine" || m == "gone"),
        "{upper:?}"
    );
}

#[test]
fn an_import_from_the_scan_is_seen_in_each_spelling() {
    let upper = upper_modules();
    let above = |line: &str| named_modules(line).iter().any(|m| upper.contains(m));
    for line in [
        "use crate::scan::lost::GoneCheck;",
        "    gone: crate::scan::lost::GoneCheck,",
        "pub use crate::screen::Plan;",
        "use crate::{engine::Job, scan::lost};",
        "use super::super::scan::lost;",
        "use super::scan::lost;",
    ] {
        assert!(above(line), "missed: {line}");
    }
    for line in [
        "use super::scripted::{Call, Reply};",
        "use crate::target::Target;",
        "use crate::gone::GoneCheck;",
        "// the scan's rule (crate::scan::lost) asks",
        "use super::*;",
        "use super::{resolve_reap, Cmd, Reap};",
        "use crate::{aligned::AlignedBuffers, target::Target};",
    ] {
        assert!(!above(line), "false alarm: {line}");
    }
}
