//! Durability: what the storage keeps once it acknowledged it, and what making a write durable costs.

pub mod commit;
pub mod device_flushes;
pub mod file_device;
pub mod flush;
pub mod power_cut;
pub mod power_cut_log;
pub mod power_cut_verify;
pub mod power_cut_write;
pub mod run;

/// Whether drivescope may make test files in `dir`: it is writable and not on a read-only mount.
pub fn writable_dir(dir: &std::path::Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = std::ffi::CString::new(dir.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: `c` is a valid NUL-terminated path; access only reads it.
    unsafe { libc::access(c.as_ptr(), libc::W_OK) == 0 }
}
