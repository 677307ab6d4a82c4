//! `drivescope --version`: the package version and the commit the binary was built from
//! (`drivescope 0.1.0 (48c4e1b)`, `48c4e1b-dirty`, or `unknown`; build.rs asks git).

pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (",
    env!("DRIVESCOPE_GIT_COMMIT"),
    ")"
);

#[cfg(test)]
#[path = "../build/git_commit.rs"]
mod git_commit;

#[cfg(test)]
mod tests {
    use super::git_commit::describe;
    use std::path::{Path, PathBuf};
    use std::process::Command;

    fn git(dir: &Path, args: &[&str]) -> String {
        let out = Command::new("git")
            .args([
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "-c",
                "init.defaultBranch=main",
            ])
            .args(args)
            .current_dir(dir)
            .output()
            .expect("run git");
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    fn git_installed() -> bool {
        let ok = Command::new("git")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
        if !ok {
            eprintln!("git is not installed: only the fallback was checked");
        }
        ok
    }

    struct TempDir(PathBuf);
    impl TempDir {
        fn new(name: &str) -> Self {
            let d = std::env::temp_dir()
                .join(format!("drivescope-version-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&d);
            std::fs::create_dir_all(&d).unwrap();
            TempDir(d)
        }
    }
    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn unknown_without_git_or_outside_a_repository() {
        let d = TempDir::new("plain");
        std::fs::write(d.0.join("Cargo.toml"), "[package]\n").unwrap();
        let no_git = describe("drivescope-test-no-such-git", &d.0);
        assert_eq!(no_git.commit, "unknown");
        assert!(no_git.watch.is_empty());
        if git_installed() {
            assert_eq!(describe("git", &d.0).commit, "unknown");
        }
    }

    #[test]
    fn a_tarball_unpacked_inside_another_repository_is_unknown() {
        if !git_installed() {
            return;
        }
        let d = TempDir::new("nested");
        git(&d.0, &["init", "-q"]);
        std::fs::write(d.0.join("README"), "x").unwrap();
        git(&d.0, &["add", "README"]);
        git(&d.0, &["commit", "-qm", "x"]);
        let unpacked = d.0.join("drivescope-0.1.0");
        std::fs::create_dir(&unpacked).unwrap();
        std::fs::write(unpacked.join("Cargo.toml"), "[package]\n").unwrap();
        assert_eq!(describe("git", &unpacked).commit, "unknown");
    }

    #[test]
    fn the_commit_and_dirty_in_a_repository() {
        if !git_installed() {
            return;
        }
        let d = TempDir::new("repo");
        git(&d.0, &["init", "-q"]);
        std::fs::write(d.0.join("Cargo.toml"), "[package]\n").unwrap();
        git(&d.0, &["add", "Cargo.toml"]);
        git(&d.0, &["commit", "-qm", "one"]);
        let short = git(&d.0, &["rev-parse", "--short", "HEAD"]);
        let clean = describe("git", &d.0);
        assert_eq!(clean.commit, short);
        let git_dir = d.0.join(".git");
        assert!(
            clean.watch.contains(&git_dir.join("HEAD")),
            "{:?}",
            clean.watch
        );
        assert!(
            clean.watch.contains(&git_dir.join("refs/heads/main")),
            "{:?}",
            clean.watch
        );
        assert!(
            clean.watch.contains(&git_dir.join("index")),
            "{:?}",
            clean.watch
        );

        // Untracked files leave it clean; a changed tracked file makes it dirty.
        std::fs::write(d.0.join("new.txt"), "x").unwrap();
        assert_eq!(describe("git", &d.0).commit, short);
        std::fs::write(d.0.join("Cargo.toml"), "[package]\nname = \"x\"\n").unwrap();
        assert_eq!(describe("git", &d.0).commit, format!("{short}-dirty"));

        // A new commit is seen.
        git(&d.0, &["commit", "-qam", "two"]);
        let second = describe("git", &d.0).commit;
        assert_ne!(second, short);
        assert_eq!(second, git(&d.0, &["rev-parse", "--short", "HEAD"]));
    }
}
