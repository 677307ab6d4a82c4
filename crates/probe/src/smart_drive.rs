//! Whose SMART a target has: the one drive under a block device (the disk itself, a partition's disk, the
//! single disk under a device-mapper or md volume). Only block-to-block links are followed: a loop device's
//! backing file lies on some other drive whose SMART says nothing of the loop device.

use crate::identity::{Identity, Node};
use crate::smart::{self, Smart};
use std::path::PathBuf;

/// Where the SMART of a target comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// Not a block device (a file, a directory, a network path, `null`): no drive to ask.
    NotBlock,
    /// One drive with hardware under the target; its identity may hold a reading already.
    Drive {
        node: PathBuf,
        reading: Option<Box<Smart>>,
    },
    /// A block device with no hardware under it (loop, zram): smartctl is asked, and says why it cannot.
    Virtual { node: PathBuf },
    /// The target lies on several drives: no one drive's SMART speaks for it.
    Several(Vec<String>),
}

/// The source of `id`'s SMART.
pub fn source(id: &Identity) -> Source {
    let Some(Node::Block(top)) = id.layers.first().map(|l| &l.node) else {
        return Source::NotBlock;
    };
    let mut seen = vec![false; id.layers.len()];
    let mut stack = vec![0usize];
    let mut drives = Vec::new();
    while let Some(i) = stack.pop() {
        if std::mem::replace(&mut seen[i], true) {
            continue;
        }
        let Node::Block(b) = &id.layers[i].node else {
            continue;
        };
        if let Some(hw) = &b.hardware {
            drives.push((
                b.name.clone(),
                b.dev_path.clone(),
                hw.smart.clone().map(Box::new),
            ));
        }
        stack.extend(id.layers[i].below.iter().copied());
    }
    match drives.len() {
        0 => Source::Virtual {
            node: top.dev_path.clone(),
        },
        1 => {
            let (_, node, reading) = drives.remove(0);
            Source::Drive { node, reading }
        }
        _ => Source::Several(drives.into_iter().map(|d| d.0).collect()),
    }
}

/// The SMART of `id`'s drive: the identity's own reading when `reuse` and it holds one, else read now.
/// None when the target is not a block device.
pub fn read(id: &Identity, reuse: bool) -> Option<Smart> {
    match source(id) {
        Source::NotBlock => None,
        Source::Drive { node, reading } => match reading.filter(|_| reuse) {
            Some(r) => Some(*r),
            None => Some(smart::read_smart(&node)),
        },
        Source::Virtual { node } => Some(smart::read_smart(&node)),
        Source::Several(names) => Some(Smart {
            note: Some(format!(
                "on {} drives ({}): no one drive's SMART speaks for it",
                names.len(),
                names.join(", ")
            )),
            ..Smart::default()
        }),
    }
}
