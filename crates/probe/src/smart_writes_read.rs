//! Reading a target's write counters now: `smartctl --json -a` on its one drive, or, for a loop
//! device over an emulated lab disk (whose loop device smartctl cannot reach), the smartctl-shaped
//! document the lab serves beside the disk's `disk.img`.

use crate::identity::{Identity, Node};
use crate::smart_drive::{self, Source};
use crate::smart_writes::{self, SmartWrites};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The file a lab disk with a flash translation layer serves its SMART document in, beside its
/// image.
pub const LAB_SMART_FILE: &str = "smart.json";

fn not_read(note: String) -> SmartWrites {
    SmartWrites {
        note: Some(note),
        ..SmartWrites::default()
    }
}

/// The lab disk image under `id`'s top loop device, if it is one.
fn lab_image(id: &Identity) -> Option<PathBuf> {
    let lab = id.layers.iter().any(
        |l| matches!(&l.node, Node::Filesystem { source, .. } if source == crate::LAB_FS_NAME),
    );
    let b = id.block_devices().find(|b| b.loop_dev.is_some())?;
    let backing = b.loop_dev.as_ref()?.backing_file.clone()?;
    (lab || backing.file_name()? == "disk.img").then_some(backing)
}

/// A lab disk's SMART document, from the file beside its image: None when it serves none.
pub fn lab_document(image: &Path) -> Option<String> {
    std::fs::read_to_string(image.parent()?.join(LAB_SMART_FILE)).ok()
}

/// `id`'s drive's host and media write counters now.
pub fn read(id: &Identity) -> SmartWrites {
    if let Some(image) = lab_image(id) {
        return match lab_document(&image) {
            Some(text) => smart_writes::parse(&text),
            None => not_read(format!(
                "{} serves no SMART document (a lab disk without a flash section)",
                image.display()
            )),
        };
    }
    match smart_drive::source(id) {
        Source::NotBlock => not_read("not a block device: no drive to ask".into()),
        Source::Virtual { node } => not_read(format!(
            "{}: a virtual block device, no drive's SMART under it",
            node.display()
        )),
        Source::Several(names) => not_read(format!(
            "on {} drives ({}): no one drive's SMART speaks for it",
            names.len(),
            names.join(", ")
        )),
        Source::Drive { node, .. } => smartctl(&node),
    }
}

fn smartctl(dev: &Path) -> SmartWrites {
    let Some(bin) = crate::smart::smartctl_path() else {
        return not_read(crate::smart::NOT_INSTALLED.into());
    };
    match Command::new(bin).arg("--json").arg("-a").arg(dev).output() {
        // Exit status bits 0-1: command line not parsed / device open failed (smartctl(8)).
        Ok(o) if o.status.code().is_some_and(|c| c & 0b11 == 0) => {
            smart_writes::parse(&String::from_utf8_lossy(&o.stdout))
        }
        Ok(o) => not_read(format!(
            "smartctl {}: exit status {:?}",
            dev.display(),
            o.status.code()
        )),
        Err(e) => not_read(format!("smartctl could not be run: {e}")),
    }
}
