//! `/proc/self/mountinfo`: which file system holds a path (proc(5), "/proc/pid/mountinfo").

use serde::{Deserialize, Serialize};
use std::path::{Component, Path, PathBuf};

/// One line of mountinfo.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MountEntry {
    pub major: u32,
    pub minor: u32,
    /// The root of the mount within its file system (bind mounts).
    pub root: String,
    pub mount_point: PathBuf,
    pub mount_options: String,
    pub fstype: String,
    pub source: String,
    pub super_options: String,
}

impl MountEntry {
    /// A `key=value` from the super options (`addr=192.168.1.10`), or a bare flag's key.
    pub fn super_option(&self, key: &str) -> Option<&str> {
        self.super_options.split(',').find_map(|o| {
            let (k, v) = o.split_once('=').unwrap_or((o, ""));
            (k == key).then_some(v)
        })
    }
}

/// mountinfo (and /proc/swaps) escape space, tab, newline and backslash as `\ooo` octal.
pub(crate) fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\'
            && i + 4 <= b.len()
            && b[i + 1..i + 4].iter().all(|c| (b'0'..=b'7').contains(c))
        {
            let v = (b[i + 1] - b'0') as u32 * 64
                + (b[i + 2] - b'0') as u32 * 8
                + (b[i + 3] - b'0') as u32;
            if let Ok(v) = u8::try_from(v) {
                out.push(v);
                i += 4;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Parse mountinfo text; malformed lines are skipped.
pub fn parse_mountinfo(text: &str) -> Vec<MountEntry> {
    text.lines().filter_map(parse_line).collect()
}

fn parse_line(line: &str) -> Option<MountEntry> {
    let fields: Vec<&str> = line.split(' ').collect();
    let sep = fields.iter().position(|f| *f == "-")?;
    if sep < 6 || fields.len() < sep + 3 {
        return None;
    }
    let (major, minor) = fields[2].split_once(':')?;
    Some(MountEntry {
        major: major.parse().ok()?,
        minor: minor.parse().ok()?,
        root: unescape(fields[3]),
        mount_point: PathBuf::from(unescape(fields[4])),
        mount_options: fields[5].to_string(),
        fstype: fields[sep + 1].to_string(),
        source: unescape(fields[sep + 2]),
        super_options: fields.get(sep + 3).copied().unwrap_or("").to_string(),
    })
}

/// Read and parse `proc/self/mountinfo` under the proc root.
pub fn read_mountinfo(proc_root: &Path) -> std::io::Result<Vec<MountEntry>> {
    let text = std::fs::read_to_string(proc_root.join("self/mountinfo"))?;
    Ok(parse_mountinfo(&text))
}

/// The mount that holds `path` (absolute, normalised): the longest mount point that is a
/// prefix of it, the later line winning among equals (it is mounted on top). When the file's
/// device is known (`stat`), a mount of that device is preferred, which settles bind mounts
/// and over-mounts.
pub fn mount_for<'a>(
    mounts: &'a [MountEntry],
    path: &Path,
    dev: Option<(u32, u32)>,
) -> Option<&'a MountEntry> {
    let best = |filter: &dyn Fn(&MountEntry) -> bool| {
        let mut best: Option<&MountEntry> = None;
        for m in mounts
            .iter()
            .filter(|m| path.starts_with(&m.mount_point) && filter(m))
        {
            let longer = best.is_none_or(|b| {
                m.mount_point.components().count() >= b.mount_point.components().count()
            });
            if longer {
                best = Some(m);
            }
        }
        best
    };
    if let Some((maj, min)) = dev {
        if let Some(m) = best(&|m: &MountEntry| m.major == maj && m.minor == min) {
            return Some(m);
        }
    }
    best(&|_| true)
}

/// Lexically normalise an absolute path (`.` and `..`), for paths that cannot be
/// canonicalised because they are not reachable from here (a deleted loop backing file).
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::from("/");
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(n) => out.push(n),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "\
22 27 0:21 / /proc rw,relatime - proc proc rw
27 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw,errors=remount-ro
25 24 0:23 / /dev/shm rw,relatime - tmpfs tmpfs rw,size=1024k
30 25 0:27 / /dev/shm rw,relatime - tmpfs tmpfs rw,size=2048k
40 27 0:50 / /mnt/my\\040nas rw,relatime shared:7 - nfs4 nas:/export rw,vers=4.2,addr=192.168.1.10
";

    #[test]
    fn parses_fields_and_escapes() {
        let m = parse_mountinfo(SAMPLE);
        assert_eq!(m.len(), 5);
        assert_eq!(m[1].fstype, "ext4");
        assert_eq!(m[1].source, "/dev/sda1");
        assert_eq!((m[1].major, m[1].minor), (8, 1));
        assert_eq!(m[4].mount_point, PathBuf::from("/mnt/my nas"));
        assert_eq!(m[4].super_option("addr"), Some("192.168.1.10"));
        assert_eq!(m[4].super_option("vers"), Some("4.2"));
        assert_eq!(m[4].super_option("nope"), None);
    }

    #[test]
    fn longest_prefix_and_overmount() {
        let m = parse_mountinfo(SAMPLE);
        let f = mount_for(&m, Path::new("/mnt/my nas/a/b"), None).map(|e| e.fstype.as_str());
        assert_eq!(f, Some("nfs4"));
        let f = mount_for(&m, Path::new("/home/x"), None).map(|e| e.fstype.as_str());
        assert_eq!(f, Some("ext4"));
        // Component-wise: /mnt/my nasty is not under /mnt/my nas.
        let f = mount_for(&m, Path::new("/mnt/my nasty"), None).map(|e| e.fstype.as_str());
        assert_eq!(f, Some("ext4"));
        // Two tmpfs on /dev/shm: the later is on top.
        let e = mount_for(&m, Path::new("/dev/shm/f"), None).map(|e| e.minor);
        assert_eq!(e, Some(27));
        // With the file's device known, that mount wins.
        let e = mount_for(&m, Path::new("/dev/shm/f"), Some((0, 23))).map(|e| e.minor);
        assert_eq!(e, Some(23));
    }

    #[test]
    fn normalizes_lexically() {
        assert_eq!(normalize(Path::new("/a/./b/../c")), PathBuf::from("/a/c"));
        assert_eq!(normalize(Path::new("/../x")), PathBuf::from("/x"));
    }
}
