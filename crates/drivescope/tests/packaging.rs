//! What packagers take from the binary: `--version` with the commit, shell completions and
//! man pages. Every command `drivescope --help` lists must be in each of them. (The unit
//! tests of cmd::completions and cmd::manpage check the same against the command-line
//! definitions, nested subcommands included.)

use common::*;
use drivescope_testkit as common;
use std::path::Path;
use std::process::Command;

fn ok(args: &[&str]) -> String {
    let out = drivescope(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// The commands listed under `Commands:` in `drivescope --help`, but `help`.
fn commands() -> Vec<String> {
    let help = ok(&["--help"]);
    let list: Vec<String> = help
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(String::from)
        .collect();
    assert!(list.len() > 10, "{help}");
    list
}

fn installed(program: &str) -> bool {
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .any(|d| d.join(program).is_file())
}

#[test]
fn version_names_the_commit() {
    let v = ok(&["--version"]);
    let v = v.trim_end();
    let rest = v
        .strip_prefix(&format!("drivescope {} (", env!("CARGO_PKG_VERSION")))
        .and_then(|r| r.strip_suffix(')'))
        .unwrap_or_else(|| panic!("{v:?}"));
    let hash = rest.strip_suffix("-dirty").unwrap_or(rest);
    // Built from a checkout (as tests are, unless from a source tarball): the commit is
    // HEAD's, as git says now.
    let head = Command::new("git")
        .args(["rev-parse", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    match head {
        Some(head) => assert!(
            hash.len() >= 7 && head.starts_with(hash),
            "{v:?}: HEAD is {head}"
        ),
        None => assert_eq!(rest, "unknown", "{v:?}"),
    }
    assert_eq!(ok(&["-V"]), format!("{v}\n"));
}

#[test]
fn completions_for_bash_zsh_and_fish() {
    let commands = commands();
    for shell in ["bash", "zsh", "fish"] {
        let script = ok(&["completions", shell]);
        assert!(script.len() > 1000, "{shell}: {script}");
        for c in &commands {
            assert!(script.contains(c.as_str()), "{shell}: no {c}");
        }
    }
    if installed("bash") {
        let script = ok(&["completions", "bash"]);
        let out = Command::new("bash")
            .args(["-n", "-c", &script])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "bash -n: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let out = drivescope(&["completions", "tcsh"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "an unknown shell is a usage error"
    );
}

/// groff's warnings about a page, when groff is installed (otherwise nothing is checked).
fn groff_warnings(page: &Path) -> String {
    if !installed("groff") {
        return String::new();
    }
    let out = Command::new("groff")
        .args(["-k", "-man", "-Tutf8", "-ww", "-z"])
        .arg(page)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn manpage_on_stdout_and_one_per_command_in_a_directory() {
    let commands = commands();
    let page = ok(&["manpage"]);
    assert!(page.contains(".TH drivescope 1"), "{page}");
    for c in &commands {
        assert!(page.contains(&format!("drivescope\\-{c}(1)")), "no {c}");
    }

    let dir = std::env::temp_dir().join(format!("drivescope-manpages-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = drivescope(&["manpage", "--dir", dir.to_str().unwrap()]);
    let cleanup = || {
        let _ = std::fs::remove_dir_all(&dir);
    };
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.is_empty());
    let mut pages = vec![("drivescope".to_string(), dir.join("drivescope.1"))];
    for c in commands.iter().chain([&"lab-serve".to_string()]) {
        pages.push((
            format!("drivescope-{c}"),
            dir.join(format!("drivescope-{c}.1")),
        ));
    }
    for (name, path) in &pages {
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
            cleanup();
            panic!("{}: {e}", path.display())
        });
        let title = format!(".TH {name} 1  \"drivescope {} (", env!("CARGO_PKG_VERSION"));
        let warnings = groff_warnings(path);
        if !text.contains(&title) || !warnings.is_empty() {
            cleanup();
            panic!("{}: title {title:?}; groff: {warnings}", path.display());
        }
    }
    assert_eq!(
        std::fs::read_to_string(dir.join("drivescope.1")).unwrap(),
        page,
        "the page on stdout is drivescope.1"
    );
    cleanup();
}
