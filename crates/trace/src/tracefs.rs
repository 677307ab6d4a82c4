//! The kernel's tracefs: found (or mounted) at /sys/kernel/tracing, and a tracing instance of drivescope's
//! own under `instances/`, so that other tracers' settings are not touched and two traces do not collide.

use crate::error::CaptureError;
use std::ffi::CString;
use std::path::{Path, PathBuf};

/// Where tracefs is mounted on current kernels.
pub const TRACEFS: &str = "/sys/kernel/tracing";
const TRACEFS_MAGIC: i64 = 0x7472_6163;

/// Whether `path` is a mounted tracefs.
fn is_tracefs(path: &Path) -> bool {
    let Ok(c) = CString::new(path.as_os_str().as_encoded_bytes()) else {
        return false;
    };
    // SAFETY: statfs writes only into the zeroed struct we pass; the path is NUL-terminated.
    unsafe {
        let mut s: libc::statfs = std::mem::zeroed();
        libc::statfs(c.as_ptr(), &mut s) == 0 && s.f_type as i64 == TRACEFS_MAGIC
    }
}

/// The tracefs root, mounted there first when it is not.
pub fn root() -> Result<PathBuf, CaptureError> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Err(CaptureError::NotRoot);
    }
    let path = PathBuf::from(TRACEFS);
    if is_tracefs(&path) {
        return Ok(path);
    }
    let no = |error| CaptureError::NoTracefs {
        path: path.clone(),
        error,
    };
    if !path.is_dir() {
        return Err(no(std::io::Error::from(std::io::ErrorKind::NotFound)));
    }
    let target = CString::new(TRACEFS).expect("no NUL");
    let fstype = CString::new("tracefs").expect("no NUL");
    // SAFETY: all pointers are NUL-terminated strings that outlive the call; no data argument.
    let rc = unsafe {
        libc::mount(
            fstype.as_ptr(),
            target.as_ptr(),
            fstype.as_ptr(),
            0,
            std::ptr::null(),
        )
    };
    if rc != 0 {
        return Err(no(std::io::Error::last_os_error()));
    }
    if !is_tracefs(&path) {
        return Err(no(std::io::Error::other(
            "still not a tracefs after mounting",
        )));
    }
    Ok(path)
}

/// Writes a tracefs control file.
pub fn write(path: &Path, value: &str) -> Result<(), CaptureError> {
    std::fs::write(path, value).map_err(|error| CaptureError::Tracefs {
        path: path.to_path_buf(),
        error,
    })
}

/// Reads a tracefs control file.
pub fn read(path: &Path) -> Result<String, CaptureError> {
    std::fs::read_to_string(path).map_err(|error| CaptureError::Tracefs {
        path: path.to_path_buf(),
        error,
    })
}

/// A tracing instance, removed when dropped.
#[derive(Debug)]
pub struct Instance {
    pub dir: PathBuf,
    removed: bool,
}

impl Instance {
    /// `instances/drivescope-<pid>`, after removing those that processes no longer running left behind.
    pub fn create(root: &Path) -> Result<Instance, CaptureError> {
        let instances = root.join("instances");
        if !instances.is_dir() {
            return Err(CaptureError::NoTracefs {
                path: root.to_path_buf(),
                error: std::io::Error::other("it has no instances directory"),
            });
        }
        remove_stale(&instances);
        let dir = instances.join(format!("drivescope-{}", std::process::id()));
        std::fs::create_dir(&dir).map_err(|error| match error.kind() {
            std::io::ErrorKind::AlreadyExists | std::io::ErrorKind::ResourceBusy => {
                CaptureError::InstanceBusy {
                    path: dir.clone(),
                    error,
                }
            }
            _ => CaptureError::Tracefs {
                path: dir.clone(),
                error,
            },
        })?;
        Ok(Instance {
            dir,
            removed: false,
        })
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.join(rel)
    }

    /// Removes the instance (its files must be closed); the kernel frees its buffers.
    pub fn remove(mut self) -> Result<(), CaptureError> {
        self.removed = true;
        remove_dir(&self.dir)
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        if !self.removed {
            let _ = remove_dir(&self.dir);
        }
    }
}

fn remove_dir(dir: &Path) -> Result<(), CaptureError> {
    // A reader that just closed its files may keep the instance busy for a moment.
    let mut last = None;
    for _ in 0..50 {
        match std::fs::remove_dir(dir) {
            Ok(()) => return Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => last = Some(e),
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    Err(CaptureError::Tracefs {
        path: dir.to_path_buf(),
        error: last.expect("tried"),
    })
}

/// Removes `drivescope-<pid>` instances whose process is gone (a run killed with SIGKILL).
fn remove_stale(instances: &Path) {
    let Ok(entries) = std::fs::read_dir(instances) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix("drivescope-"))
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_dir(e.path());
        }
    }
}
