//! Reading a [`DeviceState`]: the one place the gate looks at the system, through the probe
//! (under [`Roots`], so fixture trees stand in for the kernel's views).

use super::refusal::Refusal;
use super::rules::{DeviceState, WriteRequest};
use super::signature::{self, Signature};
use drivescope_probe::swaps::swap_devices;
use drivescope_probe::{identify_with, target_partitions, Options, Roots, TargetKind};
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::Path;

impl DeviceState {
    /// Read what the rules look at for `spec`: its identity and its partitions' (no SMART),
    /// the block devices in use as swap, and, on the running system (live roots), the file
    /// systems holding `/` and the protected paths, and the device's first sectors unless
    /// `force` (a fixture tree has no device to read).
    pub fn read(spec: &str, roots: &Roots, req: &WriteRequest) -> Result<DeviceState, Refusal> {
        let other = |msg: String| Refusal::Other {
            dev: spec.into(),
            msg,
        };
        let path = Path::new(spec);
        let opts = Options {
            smart: false,
            dns: false,
        };
        let identity = identify_with(path, roots, &opts).map_err(|e| {
            let special = std::fs::metadata(path).is_ok_and(|m| {
                let t = m.file_type();
                !(t.is_block_device() || t.is_file() || t.is_dir())
            });
            if special {
                Refusal::NotBlockDevice(spec.into())
            } else {
                other(format!("{e:#}"))
            }
        })?;
        let partitions =
            target_partitions(&identity, roots).map_err(|e| other(format!("{e:#}")))?;
        let live = roots.is_live();
        let root = live
            .then(|| std::fs::metadata("/").ok().map(|m| dev_text(m.dev())))
            .flatten();
        let protected = if live {
            req.protect
                .iter()
                .filter_map(|p| Some((p.clone(), dev_text(fs_dev(p)?))))
                .collect()
        } else {
            Vec::new()
        };
        let block = matches!(
            identity.kind,
            TargetKind::BlockDevice | TargetKind::Partition
        );
        let size = identity.target_block().and_then(|b| b.size_bytes);
        let signature = match size {
            Some(size) if live && block && size > 0 && !req.force => signature::scan(path, size),
            _ => Signature::NotRead,
        };
        Ok(DeviceState {
            spec: spec.into(),
            swap: swap_devices(roots),
            identity,
            partitions,
            root,
            protected,
            signature,
        })
    }
}

fn dev_text(dev: u64) -> String {
    format!("{}:{}", libc::major(dev), libc::minor(dev))
}

/// The device of the file system that holds `p` (or would hold it: the nearest existing
/// ancestor).
fn fs_dev(p: &Path) -> Option<u64> {
    p.ancestors()
        .find_map(|c| std::fs::metadata(c).ok())
        .map(|m| m.dev())
}
