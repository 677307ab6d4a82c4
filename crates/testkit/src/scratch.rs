//! A directory of a test's own, and the built binary run as a user runs it.

use std::path::PathBuf;

/// A directory of the test's own under the temp dir, removed when dropped.
pub struct TestDir(pub PathBuf);

impl TestDir {
    /// `drivescope-<tag>-<pid>-<name>`, empty.
    pub fn new(tag: &str, name: &str) -> TestDir {
        let d =
            std::env::temp_dir().join(format!("drivescope-{tag}-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        TestDir(d)
    }

    /// The path of `name` in it.
    pub fn file(&self, name: &str) -> String {
        self.0.join(name).to_str().unwrap().to_string()
    }
}

impl Drop for TestDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Exit code, stdout and stderr of `drivescope ARGS`.
pub fn run(args: &[&str]) -> (i32, String, String) {
    let out = super::drivescope_cmd()
        .args(args)
        .output()
        .expect("run drivescope");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
