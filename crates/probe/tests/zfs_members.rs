//! Member discovery of ZFS pools on the running system: zfs-fuse (Debian's `zfs-fuse`) pools over loop devices
//! on tmpfs files, a mirror of three, a stripe of three and the mirror with one member taken offline; a pool
//! of one device is the twin that is no array. The test starts the zfs-fuse daemon when none runs and stops
//! what it started; each pool is destroyed and its devices detached on drop, also when a check fails. Needs
//! root, zpool and zfs-fuse (fails loudly without them in CI).

#[path = "../../testkit/src/root.rs"]
mod root;

use drivescope_core::loopdev::LoopDevice;
use drivescope_probe::{members, ArrayKind, Roots};
use root::skip_without_root;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::Duration;

/// zfs-fuse serves every pool of the host: one test at a time.
static ONE: Mutex<()> = Mutex::new(());

fn run(cmd: &mut Command) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{cmd:?}: {e} (is zfs-fuse installed?)"));
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr).trim()
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The zfs-fuse daemon: the one already running, or one this test started (stopped on drop).
struct Daemon {
    pidfile: Option<PathBuf>,
}

fn daemon_running() -> bool {
    Command::new("pgrep")
        .args(["-x", "zfs-fuse"])
        .output()
        .is_ok_and(|o| o.status.success())
}

impl Daemon {
    fn start() -> Daemon {
        if daemon_running() {
            return Daemon { pidfile: None };
        }
        let pidfile =
            std::env::temp_dir().join(format!("drivescope-zfs-fuse-{}.pid", std::process::id()));
        run(Command::new("zfs-fuse").arg("--pidfile").arg(&pidfile));
        // The daemon answers zpool once it has opened its socket.
        for _ in 0..100 {
            if Command::new("zpool")
                .arg("list")
                .output()
                .is_ok_and(|o| o.status.success())
            {
                return Daemon {
                    pidfile: Some(pidfile),
                };
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("zfs-fuse started but zpool cannot reach it");
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let Some(pidfile) = &self.pidfile else {
            return;
        };
        if let Ok(pid) = std::fs::read_to_string(pidfile) {
            let _ = Command::new("kill").arg(pid.trim()).status();
            for _ in 0..100 {
                if !daemon_running() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        }
        let _ = std::fs::remove_file(pidfile);
    }
}

/// A pool over loop devices on tmpfs files, mounted on a fresh directory.
struct Pool {
    name: String,
    files: Vec<PathBuf>,
    loops: Vec<LoopDevice>,
    mnt: PathBuf,
    made: bool,
}

impl Pool {
    /// `layout` before the devices: `["mirror"]`, `[]` for a stripe.
    fn new(tag: &str, n: usize, layout: &[&str]) -> Pool {
        let name = format!("dstest{tag}{}", std::process::id());
        let mut p = Pool {
            mnt: std::env::temp_dir().join(&name),
            name,
            files: Vec::new(),
            loops: Vec::new(),
            made: false,
        };
        for i in 0..n {
            let f = PathBuf::from(format!("/dev/shm/{}-{i}.img", p.name));
            std::fs::File::create(&f)
                .and_then(|h| h.set_len(128 << 20))
                .expect("a sparse image in /dev/shm");
            p.files.push(f.clone());
            p.loops
                .push(LoopDevice::attach(&f, false, false).expect("losetup (needs root)"));
        }
        run(Command::new("zpool")
            .args(["create", "-f", "-m"])
            .arg(&p.mnt)
            .arg(&p.name)
            .args(layout)
            .args(p.devices()));
        p.made = true;
        p
    }

    fn devices(&self) -> Vec<PathBuf> {
        self.loops.iter().map(|l| l.path().to_path_buf()).collect()
    }

    fn names(&self) -> Vec<String> {
        let mut v: Vec<String> = self
            .devices()
            .iter()
            .map(|d| d.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        if self.made {
            let _ = Command::new("zpool")
                .args(["destroy", "-f", &self.name])
                .output();
        }
        let _ = std::fs::remove_dir(&self.mnt);
        for l in self.loops.drain(..) {
            let _ = l.detach();
        }
        for f in &self.files {
            let _ = std::fs::remove_file(f);
        }
    }
}

fn member_names(target: &Path) -> (drivescope_probe::Array, Vec<String>) {
    let a = members(target, &Roots::default())
        .unwrap_or_else(|e| panic!("members of {}: {e}", target.display()));
    let names = a.members.iter().map(|m| m.name.clone()).collect();
    (a, names)
}

#[test]
fn a_zfs_mirror_and_stripe_name_exactly_their_devices_and_layout_and_one_device_is_no_array() {
    if skip_without_root("attaches loop devices and makes zfs-fuse pools") {
        return;
    }
    let _one = ONE.lock().unwrap_or_else(|p| p.into_inner());
    let _d = Daemon::start();
    {
        let m = Pool::new("m", 3, &["mirror"]);
        let (a, names) = member_names(&m.mnt);
        assert_eq!((a.kind, a.name.as_str()), (ArrayKind::Zfs, m.name.as_str()));
        assert_eq!(names, m.names(), "{a:?}");
        assert_eq!(a.level.as_deref(), Some("raid1c3"));
        assert!(a.missing.is_empty() && a.is_array(), "{a:?}");
        // Each member names the pool it belongs to (what `screen` says of a drive).
        let of = drivescope_probe::arrays_of(&m.devices()[0], &Roots::default());
        assert!(of.contains(&format!("zfs {} (mirror)", m.name)), "{of:?}");
        // A file on the pool leads to the same members.
        std::fs::write(m.mnt.join("f"), b"x").unwrap();
        assert_eq!(member_names(&m.mnt.join("f")).1, m.names());
    }
    {
        let s = Pool::new("s", 3, &[]);
        let (a, names) = member_names(&s.mnt);
        assert_eq!(names, s.names(), "{a:?}");
        assert_eq!(a.level.as_deref(), Some("raid0"));
    }
    {
        let one = Pool::new("o", 1, &[]);
        let (a, names) = member_names(&one.mnt);
        assert_eq!(names, one.names(), "{a:?}");
        assert!(!a.is_array(), "{a:?}");
    }
}

#[test]
fn a_zfs_mirror_with_a_member_offline_names_it_missing_and_reads_the_others() {
    if skip_without_root("attaches loop devices and makes zfs-fuse pools") {
        return;
    }
    let _one = ONE.lock().unwrap_or_else(|p| p.into_inner());
    let _d = Daemon::start();
    let m = Pool::new("d", 3, &["mirror"]);
    let off = m.devices()[2].clone();
    run(Command::new("zpool").args(["offline", &m.name]).arg(&off));
    let (a, names) = member_names(&m.mnt);
    let off_name = off.file_name().unwrap().to_string_lossy().into_owned();
    let left: Vec<String> = m.names().into_iter().filter(|n| *n != off_name).collect();
    assert_eq!(names, left, "{a:?}");
    assert_eq!(a.missing, [format!("{off_name} (OFFLINE)")], "{a:?}");
    assert!(
        a.notes.iter().any(|n| n.contains("DEGRADED")),
        "{:?}",
        a.notes
    );
}
