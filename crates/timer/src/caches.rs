//! Cold runs: dirty data written out and the page cache (with dentries and inodes) dropped.

use crate::error::TimerError;

/// Why cold runs cannot be made here, or None when they can (root, and /proc/sys/vm/drop_caches there).
pub fn can_drop_caches() -> Option<String> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Some(
            "cold runs drop the page cache (/proc/sys/vm/drop_caches), which needs root".into(),
        );
    }
    if !std::path::Path::new("/proc/sys/vm/drop_caches").exists() {
        return Some(
            "/proc/sys/vm/drop_caches is missing: the page cache cannot be dropped".into(),
        );
    }
    None
}

/// `sync`, then 3 to /proc/sys/vm/drop_caches (the page cache, dentries and inodes).
pub fn drop_caches() -> Result<(), TimerError> {
    if let Some(why) = can_drop_caches() {
        return Err(TimerError::CannotDropCaches(why));
    }
    // SAFETY: sync(2) has no preconditions.
    unsafe { libc::sync() };
    std::fs::write("/proc/sys/vm/drop_caches", "3").map_err(TimerError::DropCaches)
}
