//! One run of the command: fork and exec, wall time around it, and the child's CPU time from `wait4`.

use crate::error::TimerError;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

/// How a run went.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outcome {
    pub wall_ns: u64,
    pub user_ns: u64,
    pub sys_ns: u64,
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    /// The end of what the command wrote to stderr (when its output was hidden).
    pub stderr_tail: String,
}

const TAIL: usize = 2048;

fn tv_ns(t: libc::timeval) -> u64 {
    t.tv_sec as u64 * 1_000_000_000 + t.tv_usec as u64 * 1000
}

/// Runs `argv` in `cwd` once. `show_output`: the command's stdin, stdout and stderr are drivescope's;
/// otherwise stdin and stdout are /dev/null and the end of stderr is kept. `cgroup_procs`: a descriptor of a
/// `cgroup.procs` file the child joins before it execs.
pub fn run_once(
    argv: &[String],
    cwd: &Path,
    show_output: bool,
    cgroup_procs: Option<i32>,
) -> Result<Outcome, TimerError> {
    let (prog, args) = argv.split_first().ok_or(TimerError::NoCommand)?;
    let mut cmd = Command::new(prog);
    cmd.args(args).current_dir(cwd);
    if !show_output {
        cmd.stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
    }
    if let Some(fd) = cgroup_procs {
        // SAFETY: between fork and exec only write(2), which is async-signal-safe, is called.
        unsafe {
            cmd.pre_exec(move || {
                if libc::write(fd, b"0".as_ptr().cast(), 1) != 1 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
    let t0 = Instant::now();
    let mut child = cmd.spawn().map_err(|error| TimerError::Spawn {
        prog: prog.clone(),
        error,
    })?;
    let tail = child.stderr.take().map(|mut err| {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut kept = Vec::new();
            let mut buf = [0u8; 4096];
            while let Ok(n) = err.read(&mut buf) {
                if n == 0 {
                    break;
                }
                kept.extend_from_slice(&buf[..n]);
                if kept.len() > 2 * TAIL {
                    kept.drain(..kept.len() - TAIL);
                }
            }
            let _ = tx.send(kept);
        });
        rx
    });
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value to be overwritten.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: pid is our own child; status and ru are valid for writes.
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut ru) };
        if r == pid {
            break;
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(TimerError::Wait(e));
        }
    }
    let wall_ns = t0.elapsed().as_nanos() as u64;
    // The child is reaped: std must not wait for it again.
    std::mem::forget(child);
    let kept = tail
        .and_then(|rx| rx.recv_timeout(std::time::Duration::from_millis(200)).ok())
        .unwrap_or_default();
    let from = kept.len().saturating_sub(TAIL);
    let exited = libc::WIFEXITED(status);
    Ok(Outcome {
        wall_ns,
        user_ns: tv_ns(ru.ru_utime),
        sys_ns: tv_ns(ru.ru_stime),
        exit_code: exited.then(|| libc::WEXITSTATUS(status)),
        signal: libc::WIFSIGNALED(status).then(|| libc::WTERMSIG(status)),
        stderr_tail: String::from_utf8_lossy(&kept[from..]).into_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(cmd: &str) -> Outcome {
        let argv = ["sh", "-c", cmd].map(String::from);
        run_once(&argv, Path::new("/"), false, None).unwrap()
    }

    #[test]
    fn exit_codes_signals_and_stderr_come_back() {
        assert_eq!(sh("true").exit_code, Some(0));
        let o = sh("echo oops >&2; exit 7");
        assert_eq!((o.exit_code, o.signal), (Some(7), None));
        assert_eq!(o.stderr_tail, "oops\n");
        let k = sh("kill -9 $$");
        assert_eq!((k.exit_code, k.signal), (None, Some(9)));
    }

    #[test]
    fn a_command_that_cannot_start_says_which_and_why() {
        let e = run_once(&[], Path::new("/"), false, None).unwrap_err();
        assert_eq!(e.to_string(), "no command to run");
        let argv = ["/nonexistent-drivescope-command".to_string()];
        let e = run_once(&argv, Path::new("/"), false, None).unwrap_err();
        assert!(matches!(e, TimerError::Spawn { .. }), "{e:?}");
        assert_eq!(
            e.to_string(),
            "cannot run \"/nonexistent-drivescope-command\": No such file or directory (os error 2)"
        );
    }

    #[test]
    fn wall_and_cpu_time_are_the_childs() {
        // What a busy machine does not move: a sleep lasts at least its time and spends almost no CPU;
        // a busy loop spends CPU, never more than the wall time it ran (a loaded host only stretches
        // the wall time, so no bound on it from above but a hang guard).
        let s = sh("sleep 0.2");
        assert!((200_000_000..20_000_000_000).contains(&s.wall_ns), "{s:?}");
        assert!(s.user_ns + s.sys_ns < 50_000_000, "{s:?}");
        let b = sh("i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done");
        let cpu = b.user_ns + b.sys_ns;
        assert!(
            cpu > 50_000_000 && cpu > 4 * (s.user_ns + s.sys_ns),
            "{b:?}"
        );
        // Clock ticks round CPU time to 10 ms per process.
        assert!(cpu <= b.wall_ns + 20_000_000, "{b:?}");
    }
}
