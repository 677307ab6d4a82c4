//! drivescope-probe: device identity and the path to it.
//!
//! For any target (block device, partition, file, directory) [`identify`] resolves the file
//! system, its mount, and the device(s) under it through partitions, loop devices, md and dm
//! stacks, or the server and local interface of a network mount; it reads the hardware's
//! identity from sysfs (and SMART through `smartctl --json` when installed), and lists every
//! link between the device and the CPU with its payload ceiling.
//!
//! All kernel views are read under [`Roots`], so tests run on fixture trees. Nothing here
//! opens a device, let alone for writing.

pub mod array;
mod array_missing;
pub mod array_of;
pub mod array_zfs;
pub mod ata_id;
pub mod block;
pub mod ceiling;
pub mod error;
pub mod identity;
pub mod mounts;
pub mod net;
pub mod roots;
pub mod shared_parent;
pub mod smart;
pub mod smart_drive;
pub mod smart_writes;
pub mod smart_writes_read;
pub mod swaps;
pub mod sysfs;
pub mod temperature;
pub mod temperature_poll;
pub mod transport;

pub use array::{members, named, Array, ArrayKind, Member};
pub use array_of::arrays_of;
pub use block::{BlockInfo, BlockRole, Hardware, LoopInfo, Transport};
pub use ceiling::Link;
pub use error::ProbeError;
pub use identity::{
    identify, identify_with, kernel_name, list_block_devices, target_partitions, Identity, Layer,
    Node, Options, TargetKind,
};
pub use roots::Roots;

/// The source name of the FUSE file systems that serve emulated lab disks: a loop device over a file on one
/// is a model of a disk, whose offsets are the model's positions.
pub const LAB_FS_NAME: &str = "drivescope-lab";
pub use smart::Smart;
