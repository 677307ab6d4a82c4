//! The commit a build comes from, asked of `git`: `48c4e1b`, `48c4e1b-dirty` when tracked
//! files differ from it, `unknown` without git or outside a repository (a source tarball).
//! Used by build.rs; its tests live in the binary's unit tests.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// What `git` (the program `git`) says about the checkout holding `dir`.
pub struct Describe {
    /// The short commit hash, with `-dirty` when tracked files were changed; `unknown`.
    pub commit: String,
    /// Files whose change means the commit may have changed: HEAD, the branch's ref, the
    /// packed refs and the index (for `-dirty`). Only files that exist.
    pub watch: Vec<PathBuf>,
}

pub fn describe(git: &str, dir: &Path) -> Describe {
    let run = |args: &[&str]| -> Option<String> {
        let out = Command::new(git)
            .arg("--no-optional-locks") // status must not rewrite the index it watches
            .args(args)
            .current_dir(dir)
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output()
            .ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
    };
    let unknown = Describe {
        commit: "unknown".into(),
        watch: vec![],
    };
    // The crate must be tracked there: a tarball unpacked inside some other repository is
    // not that repository's commit.
    if run(&["ls-files", "--error-unmatch", "--", "Cargo.toml"]).is_none() {
        return unknown;
    }
    let Some(hash) = run(&["rev-parse", "--short", "HEAD"]) else {
        return unknown;
    };
    let dirty =
        run(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
    let mut watch = vec![];
    if let (Some(git_dir), Some(common)) = (
        run(&["rev-parse", "--absolute-git-dir"]),
        run(&["rev-parse", "--git-common-dir"]),
    ) {
        let git_dir = PathBuf::from(git_dir);
        let common = dir.join(common);
        watch.push(git_dir.join("HEAD"));
        watch.push(git_dir.join("index"));
        watch.push(common.join("packed-refs"));
        if let Some(branch) = run(&["symbolic-ref", "-q", "HEAD"]) {
            watch.push(common.join(branch));
        }
        watch.retain(|p| p.exists());
    }
    Describe {
        commit: if dirty { format!("{hash}-dirty") } else { hash },
        watch,
    }
}
