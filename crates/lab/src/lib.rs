//! drivescope-lab: emulated reference disks whose behaviour is known exactly.
//!
//! A [`Model`] says what a disk is (size, zones, caches, slow and bad spots, queueing, interface
//! cap, warm-up); [`Model::truth`] states what a correct instrument must find on it; and
//! [`LabDevice::start`] serves it as a FUSE file `DIR/disk.img` whose every read and write takes
//! the time the model says (see [`timing`]), optionally attached to a loop device so that any
//! tool sees a real block device. Several devices may share one [`Bus`] (an HBA, a hub): together
//! they move no more than its rate ([`LabDevice::start_on`]).

pub mod array;
pub mod bus;
pub mod cache;
pub mod fake;
pub mod flash;
pub mod flash_cells;
pub mod flash_idle;
pub mod flash_served;
pub mod flash_smart;
pub mod flush_truth;
pub mod fuse_fs;
pub mod group;
pub mod late;
pub mod marginal;
pub mod model;
pub mod power_cut;
pub mod presets;
pub mod random_reads;
pub mod serve;
pub mod smr;
pub mod temperature;
pub mod throttle;
pub mod timing;
pub mod truth;
mod units;
pub mod vanish;

pub use bus::Bus;
pub use group::{GroupError, LabGroup};
pub use model::{Model, ModelError, QueueMode};

pub use drivescope_record::Truth;
pub use serve::{check_environment, cleanup_stale, LabDevice, LabError};
