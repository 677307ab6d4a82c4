//! `/proc/swaps`: the block devices in use as swap (proc(5)).

use crate::identity::kernel_name;
use crate::mounts::unescape;
use crate::roots::Roots;
use std::path::Path;

/// Kernel names of the block devices (`partition` lines) in use as swap, read under the proc
/// root; swap files are left out. Empty when the file cannot be read.
pub fn swap_devices(roots: &Roots) -> Vec<String> {
    let text = std::fs::read_to_string(roots.proc.join("swaps")).unwrap_or_default();
    parse_swaps(&text)
        .into_iter()
        .filter_map(|p| kernel_name(Path::new(&p), roots))
        .collect()
}

/// The paths of the block devices in `/proc/swaps` text (its first line is a header).
pub fn parse_swaps(text: &str) -> Vec<String> {
    text.lines()
        .skip(1)
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            let path = f.next()?;
            (f.next()? == "partition").then(|| unescape(path))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_devices_only() {
        let text = "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n\
                    /dev/dm-1                               partition\t8388604\t\t0\t\t-2\n\
                    /swap\\040file                           file\t\t1048572\t\t0\t\t-3\n\
                    /dev/zram0                              partition\t4194300\t\t0\t\t100\n";
        assert_eq!(parse_swaps(text), ["/dev/dm-1", "/dev/zram0"]);
        assert!(parse_swaps("").is_empty());
    }
}
