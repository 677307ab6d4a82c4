//! Small, forgiving readers for sysfs attributes: a missing or unreadable attribute is `None`,
//! never an error, because what the kernel exposes differs by driver and version.

use std::fs;
use std::path::{Path, PathBuf};

/// The attribute's text, trimmed; `None` when missing, unreadable or empty.
pub fn read(path: &Path) -> Option<String> {
    let bytes = fs::read(path).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let t = text.trim_matches(|c: char| c.is_whitespace() || c == '\0');
    if t.is_empty() {
        None
    } else {
        Some(t.to_string())
    }
}

/// The attribute as an unsigned integer (decimal, or hex with `0x`).
pub fn read_u64(path: &Path) -> Option<u64> {
    let s = read(path)?;
    parse_u64(&s)
}

/// Parse decimal or `0x` hex.
pub fn parse_u64(s: &str) -> Option<u64> {
    let s = s.trim();
    if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        u64::from_str_radix(h, 16).ok()
    } else {
        s.parse().ok()
    }
}

/// Raw bytes of a binary attribute (VPD pages).
pub fn read_raw(path: &Path) -> Option<Vec<u8>> {
    fs::read(path).ok().filter(|b| !b.is_empty())
}

/// The last component of a symlink's target (`driver` -> `.../drivers/uas` gives `uas`).
pub fn link_name(path: &Path) -> Option<String> {
    let target = fs::read_link(path).ok()?;
    target.file_name().map(|n| n.to_string_lossy().into_owned())
}

/// Entry names of a directory, sorted; empty when it does not exist.
pub fn list(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = match fs::read_dir(dir) {
        Ok(rd) => rd
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect(),
        Err(_) => Vec::new(),
    };
    names.sort();
    names
}

/// The scheduler in use: `none [mq-deadline] kyber` gives `mq-deadline`.
pub fn bracketed(s: &str) -> Option<String> {
    let start = s.find('[')?;
    let end = s[start..].find(']')? + start;
    Some(s[start + 1..end].to_string())
}

/// Ancestors of `path` that are still inside `stop` (nearest first, `path` itself included).
pub fn ancestors_within(path: &Path, stop: &Path) -> Vec<PathBuf> {
    path.ancestors()
        .take_while(|p| p.starts_with(stop) && *p != stop)
        .map(Path::to_path_buf)
        .collect()
}

/// File name as a String ("" when there is none).
pub fn name_of(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bracketed_picks_the_active_choice() {
        assert_eq!(
            bracketed("none [mq-deadline] kyber bfq").as_deref(),
            Some("mq-deadline")
        );
        assert_eq!(bracketed("[none] mq-deadline").as_deref(), Some("none"));
        assert_eq!(bracketed("none"), None);
    }

    #[test]
    fn parse_hex_and_decimal() {
        assert_eq!(parse_u64("0x1af4"), Some(0x1af4));
        assert_eq!(parse_u64("512"), Some(512));
        assert_eq!(parse_u64("x"), None);
    }
}
