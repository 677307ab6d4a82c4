//! Where a drive's temperature can be read without disturbing it, and one reading of it.
//!
//! In order of preference: the kernel's hwmon sensor of the drive (`/sys/class/hwmon/*/temp*_input`
//! whose `device` is the drive: nvme registers one under the NVMe controller, drivetemp one under
//! the SCSI disk of a SATA drive); for a loop device over a lab disk, the lab's `temp1_input` beside
//! `disk.img`; else `smartctl --json -A` (smartmontools). Nothing here sends a command of its own.

use crate::identity::{Identity, Node};
use crate::roots::Roots;
use crate::smart;
use crate::sysfs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The file a lab disk serves its temperature in, beside its image (millidegrees Celsius).
pub const LAB_FILE: &str = "temp1_input";
/// The source name of lab mounts in `/proc/self/mountinfo`.
pub const LAB_FS_SOURCE: &str = "drivescope-lab";

/// Why a temperature could not be read.
#[derive(Debug, thiserror::Error)]
pub enum TemperatureError {
    #[error("{}: {error}", path.display())]
    Read {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("{}: {text:?} is no temperature in millidegrees", path.display())]
    Parse { path: PathBuf, text: String },
    #[error("smartctl {}: {why}", dev.display())]
    Smart { dev: PathBuf, why: String },
    /// No sensor speaks for the target: the words say why.
    #[error("{0}")]
    NoSource(String),
}

/// A place a drive's temperature is read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A hwmon `temp*_input` file of the drive (millidegrees).
    Hwmon(PathBuf),
    /// A lab disk's `temp1_input` (millidegrees, the hwmon format).
    Lab(PathBuf),
    /// `smartctl --json -A` on the drive's node.
    Smartctl(PathBuf),
}

impl Source {
    /// How the documents name it.
    pub fn describe(&self) -> String {
        match self {
            Source::Hwmon(p) => format!("hwmon {}", p.display()),
            Source::Lab(p) => format!("lab {}", p.display()),
            Source::Smartctl(d) => format!("smartctl {}", d.display()),
        }
    }

    /// One reading, °C.
    pub fn read(&self) -> Result<f64, TemperatureError> {
        match self {
            Source::Hwmon(p) | Source::Lab(p) => read_millidegrees(p),
            Source::Smartctl(dev) => read_smartctl(dev),
        }
    }
}

/// A hwmon-format file: an integer of millidegrees Celsius and a newline.
pub fn read_millidegrees(path: &Path) -> Result<f64, TemperatureError> {
    let text = std::fs::read_to_string(path).map_err(|error| TemperatureError::Read {
        path: path.to_path_buf(),
        error,
    })?;
    parse_millidegrees(&text).ok_or_else(|| TemperatureError::Parse {
        path: path.to_path_buf(),
        text: text.trim().to_string(),
    })
}

/// `"24000\n"` is 24.0 °C.
pub fn parse_millidegrees(text: &str) -> Option<f64> {
    text.trim().parse::<i64>().ok().map(|m| m as f64 / 1000.0)
}

/// The temperature in a `smartctl --json` document, or why it holds none.
pub fn from_smartctl_json(text: &str) -> Result<f64, String> {
    let s = smart::parse_smartctl_json(text);
    match (s.temperature_c, s.note) {
        (Some(c), _) => Ok(c as f64),
        (None, Some(note)) => Err(note),
        (None, None) => Err("the drive reports no temperature".into()),
    }
}

fn read_smartctl(dev: &Path) -> Result<f64, TemperatureError> {
    let err = |why: String| TemperatureError::Smart {
        dev: dev.to_path_buf(),
        why,
    };
    let bin = smart::smartctl_path().ok_or_else(|| err(smart::NOT_INSTALLED.into()))?;
    // -A: the attributes (or the NVMe health log) only; --nocheck=standby: a sleeping drive is
    // left asleep (the reading is then missing, not forced).
    let out = Command::new(bin)
        .args(["--json", "--nocheck=standby", "-A"])
        .arg(dev)
        .output()
        .map_err(|e| err(format!("could not be run: {e}")))?;
    from_smartctl_json(&String::from_utf8_lossy(&out.stdout)).map_err(|why| {
        let name = format!("{}: ", dev.display());
        err(why.strip_prefix(&name).unwrap_or(&why).to_string())
    })
}

/// The hwmon sensor whose `device` is the block device's own (`BLOCK/device`): drivetemp's under
/// the SCSI disk, nvme's under the NVMe controller (older kernels: under the controller's PCI
/// function). Its `temp1_input`, else its first `temp*_input`.
pub fn hwmon_of(sys: &Path, block_dir: &Path) -> Option<PathBuf> {
    let dev = std::fs::canonicalize(block_dir.join("device")).ok()?;
    let class = sys.join("class/hwmon");
    for name in sysfs::list(&class) {
        let hw = class.join(&name);
        let Ok(owner) = std::fs::canonicalize(hw.join("device")) else {
            continue;
        };
        let kind = sysfs::read(&hw.join("name")).unwrap_or_default();
        // `…/0000:01:00.0/nvme/nvme0`: the controller's PCI function is two levels up.
        let ours =
            owner == dev || (kind == "nvme" && Some(owner.as_path()) == dev.ancestors().nth(2));
        if !ours {
            continue;
        }
        let inputs: Vec<String> = sysfs::list(&hw)
            .into_iter()
            .filter(|f| f.starts_with("temp") && f.ends_with("_input"))
            .collect();
        let pick = inputs
            .iter()
            .find(|f| *f == "temp1_input")
            .or_else(|| inputs.first());
        if let Some(f) = pick {
            return Some(hw.join(f));
        }
    }
    None
}

/// The block devices under the target (the target itself first), by their layers.
fn blocks(id: &Identity) -> Vec<usize> {
    let mut seen = vec![false; id.layers.len()];
    let mut stack = vec![0usize];
    let mut out = Vec::new();
    while let Some(i) = stack.pop() {
        if i >= seen.len() || std::mem::replace(&mut seen[i], true) {
            continue;
        }
        if matches!(id.layers[i].node, Node::Block(_)) {
            out.push(i);
        }
        stack.extend(id.layers[i].below.iter().rev().copied());
    }
    out
}

/// Whether layer `i` has a lab mount under it (a FUSE file system whose source is the lab's).
fn on_lab_mount(id: &Identity, i: usize) -> bool {
    let mut stack = id.layers[i].below.clone();
    let mut seen = vec![false; id.layers.len()];
    while let Some(j) = stack.pop() {
        if j >= seen.len() || std::mem::replace(&mut seen[j], true) {
            continue;
        }
        if let Node::Filesystem { fstype, source, .. } = &id.layers[j].node {
            if fstype.starts_with("fuse") && source == LAB_FS_SOURCE {
                return true;
            }
        }
        stack.extend(id.layers[j].below.iter().copied());
    }
    false
}

/// Where the temperature of `id`'s drive is read, in the order of the module's comment.
/// `smartctl` is tried once here, so a source that is returned gave a reading.
pub fn source(id: &Identity, roots: &Roots) -> Result<Source, TemperatureError> {
    let blocks = blocks(id);
    if blocks.is_empty() {
        return Err(TemperatureError::NoSource(
            "not on a block device: no drive to read a temperature from".into(),
        ));
    }
    let block = |i: usize| match &id.layers[i].node {
        Node::Block(b) => b.as_ref(),
        _ => unreachable!("blocks() keeps block layers"),
    };
    let drives: Vec<usize> = blocks
        .iter()
        .copied()
        .filter(|&i| block(i).hardware.is_some())
        .collect();
    if drives.len() > 1 {
        let names: Vec<&str> = drives.iter().map(|&i| block(i).name.as_str()).collect();
        return Err(TemperatureError::NoSource(format!(
            "on {} drives ({}): no one drive's temperature speaks for it",
            names.len(),
            names.join(", ")
        )));
    }
    if let Some(&d) = drives.first() {
        let b = block(d);
        let dir = b
            .sysfs_path
            .clone()
            .unwrap_or_else(|| roots.class_block(&b.name));
        if let Some(p) = hwmon_of(&roots.sys, &dir) {
            if read_millidegrees(&p).is_ok() {
                return Ok(Source::Hwmon(p));
            }
        }
        let s = Source::Smartctl(b.dev_path.clone());
        return s.read().map(|_| s);
    }
    for &i in &blocks {
        let b = block(i);
        let Some(backing) = b.loop_dev.as_ref().and_then(|l| l.backing_file.clone()) else {
            continue;
        };
        let file = backing.with_file_name(LAB_FILE);
        if on_lab_mount(id, i) && file.is_file() {
            read_millidegrees(&file)?;
            return Ok(Source::Lab(file));
        }
        return Err(TemperatureError::NoSource(format!(
            "{} is a loop device over {}: no drive under it reports a temperature",
            b.name,
            backing.display()
        )));
    }
    let top = block(blocks[0]);
    Err(TemperatureError::NoSource(format!(
        "{} has no drive under it that reports a temperature",
        top.name
    )))
}
