//! A terminal for live-view tests: a tmux server of the test's own, one session running a shell
//! command, read back with `capture-pane`. Needs tmux (Debian `tmux`); fails loudly without it.

use std::process::Command;
use std::time::{Duration, Instant};

/// A tmux server of the test's own, killed on drop.
pub struct Tmux(String);

impl Tmux {
    /// `shell` in a new session of a server named for `name` and this process, `w` × `h`.
    pub fn session(name: &str, shell: &str, w: u16, h: u16) -> Tmux {
        assert!(
            Command::new("tmux").arg("-V").output().is_ok(),
            "this test drives the live view in tmux (Debian: apt-get install tmux)"
        );
        let tmux = Tmux(format!("drivescope-{name}-{}", std::process::id()));
        let started = tmux
            .cmd()
            .args([
                "new-session",
                "-d",
                "-x",
                &w.to_string(),
                "-y",
                &h.to_string(),
            ])
            .arg(shell)
            .status()
            .unwrap();
        assert!(started.success());
        tmux
    }

    pub fn cmd(&self) -> Command {
        let mut c = Command::new("tmux");
        c.env("LANG", "C.UTF-8").args(["-u", "-L", &self.0]);
        c
    }

    pub fn pane(&self) -> String {
        let out = self.cmd().args(["capture-pane", "-p"]).output().unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The pane with up to `lines` rows scrolled off above it.
    pub fn history(&self, lines: u32) -> String {
        let from = format!("-{lines}");
        let out = self
            .cmd()
            .args(["capture-pane", "-p", "-S", &from])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Whether the pane shows the terminal's alternate screen.
    pub fn alternate(&self) -> bool {
        let out = self
            .cmd()
            .args(["display-message", "-p", "#{alternate_on}"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).trim() == "1"
    }

    /// Whether the terminal shows its cursor.
    pub fn cursor_shown(&self) -> bool {
        let out = self
            .cmd()
            .args(["display-message", "-p", "#{cursor_flag}"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).trim() == "1"
    }

    pub fn keys(&self, keys: &str) {
        assert!(self
            .cmd()
            .args(["send-keys", keys])
            .status()
            .unwrap()
            .success());
    }

    /// The pane once `ok` holds for it, within `limit`.
    pub fn wait_for(&self, limit: Duration, ok: impl Fn(&str) -> bool) -> String {
        let t0 = Instant::now();
        loop {
            let p = self.pane();
            if ok(&p) {
                return p;
            }
            assert!(
                t0.elapsed() < limit,
                "waited {limit:?}; the pane shows:\n{p}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.cmd().arg("kill-server").status();
    }
}

/// Whether `s` holds part of a braille curve.
pub fn braille(s: &str) -> bool {
    s.chars().any(|c| ('\u{2801}'..='\u{28ff}').contains(&c))
}
