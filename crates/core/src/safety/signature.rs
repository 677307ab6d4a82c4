//! Partition-table and file-system signatures at the start (and a GPT backup header at the
//! end) of a device: a write over one needs `--force`.

use crate::aligned::AlignedBuffers;
use std::fs::OpenOptions;
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::io::AsRawFd;
use std::path::Path;

/// What a look at the device's first and last sectors found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Signature {
    /// Not looked for (`--force`, or a state read from a fixture tree).
    NotRead,
    /// Nothing known there.
    Clean,
    /// `what` (such as "an ext2/3/4 file system") at byte `offset`.
    Found { what: String, offset: u64 },
    /// The sectors could not be read.
    Unreadable(String),
}

/// Magic numbers of partition tables and file systems: (offset, bytes, name).
const SIGNATURES: &[(u64, &[u8], &str)] = &[
    (0, b"XFSB", "an XFS file system"),
    (0, b"LUKS\xba\xbe", "a LUKS header"),
    (3, b"NTFS    ", "an NTFS file system"),
    (54, b"FAT1", "a FAT file system"),
    (82, b"FAT32   ", "a FAT32 file system"),
    (510, b"\x55\xaa", "an MBR partition table or boot sector"),
    (512, b"EFI PART", "a GPT partition table"),
    (512, b"LABELONE", "an LVM physical volume label"),
    (1080, b"\x53\xef", "an ext2/3/4 file system"),
    (4086, b"SWAPSPACE2", "a swap signature"),
    (4086, b"SWAP-SPACE", "a swap signature"),
    (4096, b"EFI PART", "a GPT partition table"),
    (4096, b"\xfc\x4e\x2b\xa9", "an md RAID superblock"),
    (32769, b"CD001", "an ISO 9660 file system"),
    (65600, b"_BHRfS_M", "a btrfs file system"),
];

/// Look for a signature in the first 128 KiB of the device at `path` (`size` bytes), and for
/// a GPT backup header in its last sector. Opens it read-only.
pub fn scan(path: &Path, size: u64) -> Signature {
    match scan_inner(path, size) {
        Ok(Some((what, offset))) => Signature::Found { what, offset },
        Ok(None) => Signature::Clean,
        Err(e) => Signature::Unreadable(e),
    }
}

fn scan_inner(path: &Path, size: u64) -> Result<Option<(String, u64)>, String> {
    let f = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECT | libc::O_CLOEXEC)
        .open(path)
        .map_err(|e| format!("reading its first sectors: {e}"))?;
    let head_len = (128 * 1024u64).min(size / 4096 * 4096) as usize;
    let mut bufs = AlignedBuffers::new(1, 128 * 1024, 4096);
    let head = read_at(&f, &mut bufs, 0, head_len)?;
    if let Some((what, off)) = find(&head) {
        return Ok(Some((what.to_string(), off)));
    }
    if size >= 8192 {
        let tail = read_at(&f, &mut bufs, size - 4096, 4096)?;
        for o in [4096 - 512, 0] {
            if tail.get(o..o + 8) == Some(b"EFI PART".as_slice()) {
                return Ok(Some((
                    "a GPT backup partition table".into(),
                    size - 4096 + o as u64,
                )));
            }
        }
    }
    Ok(None)
}

/// The first known signature in `head` (the device's first bytes).
pub fn find(head: &[u8]) -> Option<(&'static str, u64)> {
    SIGNATURES.iter().find_map(|(off, magic, name)| {
        let o = *off as usize;
        (head.get(o..o + magic.len()) == Some(*magic)).then_some((*name, *off))
    })
}

fn read_at(
    f: &std::fs::File,
    bufs: &mut AlignedBuffers,
    off: u64,
    len: usize,
) -> Result<Vec<u8>, String> {
    // SAFETY: the buffer holds at least `len` (≤ 128 KiB) bytes, aligned for O_DIRECT.
    let n = unsafe {
        libc::pread(
            f.as_raw_fd(),
            bufs.ptr(0) as *mut libc::c_void,
            len,
            off as libc::off_t,
        )
    };
    if n < 0 {
        return Err(format!(
            "reading its sectors at {off}: {}",
            std::io::Error::last_os_error()
        ));
    }
    Ok(bufs.slice(0)[..n as usize].to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_magic_is_found() {
        let mut head = vec![0u8; 128 * 1024];
        assert_eq!(find(&head), None);
        head[1080..1082].copy_from_slice(b"\x53\xef");
        assert_eq!(find(&head), Some(("an ext2/3/4 file system", 1080)));
        head[510..512].copy_from_slice(b"\x55\xaa");
        assert_eq!(find(&head).map(|f| f.1), Some(510));
        // a head shorter than a magic's end is no match, and no panic
        assert_eq!(
            find(&head[..1081]),
            Some(("an MBR partition table or boot sector", 510))
        );
        assert_eq!(find(&[]), None);
    }
}
