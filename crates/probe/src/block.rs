//! Block devices as sysfs shows them (Documentation/ABI/stable/sysfs-block): the attributes
//! every block device has, and those of partitions, loop, device-mapper, md and zram devices.

use crate::smart::Smart;
use crate::sysfs;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// How the device is attached, or what kind of virtual device it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Transport {
    Sata,
    /// Parallel ATA, or an ATA link whose speed the kernel does not know.
    Ata,
    Sas,
    Scsi,
    Iscsi,
    Usb,
    Nvme,
    Virtio,
    Mmc,
    Loop,
    Zram,
    /// Device-mapper (LVM, dm-crypt, multipath).
    Dm,
    /// Linux software RAID.
    Md,
    /// brd RAM disk.
    Ram,
    /// Network block device.
    Nbd,
    Network,
    Unknown,
}

impl Transport {
    pub fn as_str(self) -> &'static str {
        match self {
            Transport::Sata => "sata",
            Transport::Ata => "ata",
            Transport::Sas => "sas",
            Transport::Scsi => "scsi",
            Transport::Iscsi => "iscsi",
            Transport::Usb => "usb",
            Transport::Nvme => "nvme",
            Transport::Virtio => "virtio",
            Transport::Mmc => "mmc",
            Transport::Loop => "loop",
            Transport::Zram => "zram",
            Transport::Dm => "dm",
            Transport::Md => "md",
            Transport::Ram => "ram",
            Transport::Nbd => "nbd",
            Transport::Network => "network",
            Transport::Unknown => "unknown",
        }
    }
}

/// What a block device is within a stack.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BlockRole {
    /// A whole device with hardware (or a virtual disk) under it.
    Disk,
    Partition,
    Loop,
    Dm,
    Md,
    Zram,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PartitionInfo {
    pub number: Option<u64>,
    /// First sector, in 512-byte units as the kernel counts them.
    pub start_sector: Option<u64>,
    /// The whole device it belongs to.
    pub parent: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LoopInfo {
    /// `loop/backing_file`; `None` when the device is not attached.
    pub backing_file: Option<PathBuf>,
    /// The kernel marked the backing file as deleted.
    pub backing_deleted: bool,
    pub offset: Option<u64>,
    pub sizelimit: Option<u64>,
    pub direct_io: Option<bool>,
    pub autoclear: Option<bool>,
    /// Power-loss protection the backing file declares for its write cache: a lab disk's
    /// `power_loss_protection` beside its `disk.img` (`1` or `0`); `None` elsewhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub power_loss_protection: Option<bool>,
}

/// The file a lab disk declares its write cache's power-loss protection in, beside its image.
pub const LAB_PLP_FILE: &str = "power_loss_protection";

/// A lab disk's declared power-loss protection, from the file beside its `disk.img`.
pub fn lab_power_loss_protection(backing: &Path) -> Option<bool> {
    if backing.file_name()? != "disk.img" {
        return None;
    }
    flag(&backing.parent()?.join(LAB_PLP_FILE))
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DmInfo {
    pub name: Option<String>,
    /// `LVM-…`, `CRYPT-…`, `mpath-…`: tells what made the mapping.
    pub uuid: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MdInfo {
    pub level: Option<String>,
    pub raid_disks: Option<u64>,
    pub chunk_size: Option<u64>,
    pub array_state: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ZramInfo {
    pub comp_algorithm: Option<String>,
    /// 0 while unconfigured.
    pub disksize: Option<u64>,
    pub backing_dev: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SataLink {
    /// `link1`, `link1.2` behind a port multiplier.
    pub link: String,
    /// `sata_spd`: negotiated, Gb/s.
    pub speed_gbps: Option<f64>,
    /// `hw_sata_spd_limit`: the most the drive supports, Gb/s.
    pub drive_max_gbps: Option<f64>,
    /// `sata_spd_limit`: the limit libata imposes, Gb/s.
    pub limit_gbps: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UsbInfo {
    /// The USB device: `2-1`, `1-4.2`.
    pub device: String,
    /// `uas` (command queueing) or `usb-storage` (Bulk-Only: one command at a time).
    pub driver: Option<String>,
    pub queueing: Option<bool>,
    /// `speed` in Mb/s: 480, 5000, 10000, 20000.
    pub speed_mbit: Option<f64>,
    /// `version`: the USB spec the device declares (`3.20`).
    pub usb_version: Option<String>,
    pub vendor_id: Option<String>,
    pub product_id: Option<String>,
    pub manufacturer: Option<String>,
    pub product: Option<String>,
    /// The bridge's own serial (not necessarily the drive's).
    pub bridge_serial: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PcieInfo {
    pub address: String,
    pub generation: Option<u32>,
    pub width: Option<u32>,
    pub speed_gt_s: Option<f64>,
    pub max_generation: Option<u32>,
    pub max_width: Option<u32>,
    pub max_speed_gt_s: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NvmeInfo {
    pub controller: String,
    /// `pcie`, `tcp`, `rdma`, `fc`, `loop`.
    pub transport: Option<String>,
    pub state: Option<String>,
    /// Fabrics controllers: `traddr=…,trsvcid=…`.
    pub address: Option<String>,
}

/// What is known of the hardware under a whole device.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Hardware {
    pub vendor: Option<String>,
    pub model: Option<String>,
    pub serial: Option<String>,
    pub firmware: Option<String>,
    pub wwn: Option<String>,
    /// Nominal rotation rate; 0 means solid state (as smartctl reports it).
    pub rotation_rate_rpm: Option<u32>,
    /// SCSI `device/queue_depth` (for libata the NCQ depth; 1 = no queueing).
    pub queue_depth: Option<u64>,
    /// Native command queueing in use (SATA).
    pub ncq: Option<bool>,
    /// The drive supports NCQ (IDENTIFY word 76).
    pub ncq_supported: Option<bool>,
    pub sata: Option<SataLink>,
    pub usb: Option<UsbInfo>,
    pub pcie: Option<PcieInfo>,
    pub nvme: Option<NvmeInfo>,
    pub smart: Option<Smart>,
}

/// One block device in the chain.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BlockInfo {
    pub name: String,
    pub dev_path: PathBuf,
    pub major_minor: Option<String>,
    /// The device's directory in sysfs, resolved (`/sys/devices/…/block/sda`).
    pub sysfs_path: Option<PathBuf>,
    pub role: BlockRole,
    pub transport: Transport,
    pub size_bytes: Option<u64>,
    pub logical_sector_size: Option<u64>,
    pub physical_sector_size: Option<u64>,
    pub rotational: Option<bool>,
    pub read_only: Option<bool>,
    pub removable: Option<bool>,
    pub scheduler: Option<String>,
    pub nr_requests: Option<u64>,
    /// `queue/write_cache`: `write back` or `write through`.
    pub write_cache: Option<String>,
    /// `queue/fua`: the device takes Force Unit Access writes (the kernel sends them instead of
    /// a write and a flush).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fua: Option<bool>,
    pub holders: Vec<String>,
    pub slaves: Vec<String>,
    pub partitions: Vec<String>,
    pub mount_points: Vec<PathBuf>,
    pub partition: Option<PartitionInfo>,
    #[serde(rename = "loop")]
    pub loop_dev: Option<LoopInfo>,
    pub dm: Option<DmInfo>,
    pub md: Option<MdInfo>,
    pub zram: Option<ZramInfo>,
    pub hardware: Option<Hardware>,
    /// `queue/zoned`: `none`, `host-aware` or `host-managed` (a zoned, shingled disk the host may see as such).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zoned: Option<String>,
    /// `queue/discard_max_bytes`: above 0 where the device takes TRIM/UNMAP.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discard_max_bytes: Option<u64>,
}

fn flag(path: &Path) -> Option<bool> {
    sysfs::read_u64(path).map(|v| v != 0)
}

impl BlockInfo {
    /// A device known by name, role and transport only; everything read from sysfs unknown.
    pub fn new(name: &str, dev_path: PathBuf, role: BlockRole, transport: Transport) -> BlockInfo {
        BlockInfo {
            name: name.to_string(),
            dev_path,
            major_minor: None,
            sysfs_path: None,
            role,
            transport,
            size_bytes: None,
            logical_sector_size: None,
            physical_sector_size: None,
            rotational: None,
            read_only: None,
            removable: None,
            scheduler: None,
            nr_requests: None,
            write_cache: None,
            fua: None,
            zoned: None,
            discard_max_bytes: None,
            holders: Vec::new(),
            slaves: Vec::new(),
            partitions: Vec::new(),
            mount_points: Vec::new(),
            partition: None,
            loop_dev: None,
            dm: None,
            md: None,
            zram: None,
            hardware: None,
        }
    }
}

/// Read what every block device has. `dir` is the device's resolved sysfs directory; `role` and
/// `transport` are refined by the caller.
pub fn read_common(dir: &Path, name: &str, dev_path: PathBuf) -> BlockInfo {
    // Partitions have no queue/ of their own; their disk's applies.
    let qdir = if dir.join("queue").is_dir() {
        dir.to_path_buf()
    } else {
        dir.parent().unwrap_or(dir).to_path_buf()
    };
    let qq = |a: &str| qdir.join("queue").join(a);
    let partitions = sysfs::list(dir)
        .into_iter()
        .filter(|n| n.starts_with(name) && dir.join(n).join("partition").is_file())
        .collect();
    BlockInfo {
        major_minor: sysfs::read(&dir.join("dev")),
        // `size` is always in 512-byte units (include/linux/blk_types.h SECTOR_SHIFT).
        size_bytes: sysfs::read_u64(&dir.join("size")).map(|s| s * 512),
        logical_sector_size: sysfs::read_u64(&qq("logical_block_size")),
        physical_sector_size: sysfs::read_u64(&qq("physical_block_size")),
        rotational: flag(&qq("rotational")),
        read_only: flag(&dir.join("ro")),
        removable: flag(&dir.join("removable")),
        scheduler: sysfs::read(&qq("scheduler")).map(|s| sysfs::bracketed(&s).unwrap_or(s)),
        nr_requests: sysfs::read_u64(&qq("nr_requests")),
        write_cache: sysfs::read(&qq("write_cache")),
        fua: flag(&qq("fua")),
        zoned: sysfs::read(&qq("zoned")),
        discard_max_bytes: sysfs::read_u64(&qq("discard_max_bytes")),
        holders: sysfs::list(&dir.join("holders")),
        slaves: sysfs::list(&dir.join("slaves")),
        partitions,
        ..BlockInfo::new(name, dev_path, BlockRole::Disk, Transport::Unknown)
    }
}

/// `partition` present: a partition of the directory above.
pub fn read_partition(dir: &Path, canon: &Path) -> Option<PartitionInfo> {
    let number = sysfs::read_u64(&dir.join("partition"))?;
    Some(PartitionInfo {
        number: Some(number),
        start_sector: sysfs::read_u64(&dir.join("start")),
        parent: canon.parent().map(sysfs::name_of).unwrap_or_default(),
    })
}

/// `loop/` present once a loop device is attached (drivers/block/loop.c).
pub fn read_loop(dir: &Path) -> Option<LoopInfo> {
    let l = dir.join("loop");
    if !l.is_dir() {
        return None;
    }
    let raw = sysfs::read(&l.join("backing_file"));
    let (backing, deleted) = match raw {
        Some(s) => match s.strip_suffix(" (deleted)") {
            Some(p) => (Some(PathBuf::from(p)), true),
            None => (Some(PathBuf::from(s)), false),
        },
        None => (None, false),
    };
    Some(LoopInfo {
        offset: sysfs::read_u64(&l.join("offset")),
        sizelimit: sysfs::read_u64(&l.join("sizelimit")),
        direct_io: flag(&l.join("dio")),
        autoclear: flag(&l.join("autoclear")),
        power_loss_protection: match (&backing, deleted) {
            (Some(b), false) => lab_power_loss_protection(b),
            _ => None,
        },
        backing_file: backing,
        backing_deleted: deleted,
    })
}

pub fn read_dm(dir: &Path) -> Option<DmInfo> {
    let d = dir.join("dm");
    d.is_dir().then(|| DmInfo {
        name: sysfs::read(&d.join("name")),
        uuid: sysfs::read(&d.join("uuid")),
    })
}

pub fn read_md(dir: &Path) -> Option<MdInfo> {
    let d = dir.join("md");
    d.is_dir().then(|| MdInfo {
        level: sysfs::read(&d.join("level")),
        raid_disks: sysfs::read_u64(&d.join("raid_disks")),
        chunk_size: sysfs::read_u64(&d.join("chunk_size")),
        array_state: sysfs::read(&d.join("array_state")),
    })
}

/// zram (Documentation/admin-guide/blockdev/zram.rst).
pub fn read_zram(dir: &Path) -> Option<ZramInfo> {
    if !dir.join("comp_algorithm").is_file() && !dir.join("disksize").is_file() {
        return None;
    }
    Some(ZramInfo {
        comp_algorithm: sysfs::read(&dir.join("comp_algorithm"))
            .map(|s| sysfs::bracketed(&s).unwrap_or(s)),
        disksize: sysfs::read_u64(&dir.join("disksize")),
        backing_dev: sysfs::read(&dir.join("backing_dev")).filter(|s| s != "none"),
    })
}
