//! `identify`: from a target (device, partition, file, directory) down through file systems,
//! loop devices, device-mapper and md stacks to the hardware, or across the network.

use crate::block::{self, BlockInfo, BlockRole, Transport};
use crate::ceiling::{self, Link};
use crate::error::{ProbeError, Result};
use crate::mounts::{self, MountEntry};
use crate::net::{self, NetInterface};
use crate::roots::Roots;
use crate::smart::{self, Smart};
use crate::sysfs;
use crate::transport;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fs;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

/// What the target is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TargetKind {
    /// A whole block device (disk, loop, dm, md, zram).
    BlockDevice,
    Partition,
    File,
    Directory,
    /// The engine's null target: no device at all.
    Null,
}

/// One step of the chain from the target down.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "layer", rename_all = "snake_case")]
pub enum Node {
    File {
        path: PathBuf,
        size_bytes: Option<u64>,
        /// False when the file could not be reached from here (a deleted loop backing file,
        /// another mount namespace) and was resolved by its path alone.
        reachable: bool,
    },
    Directory {
        path: PathBuf,
    },
    Filesystem {
        fstype: String,
        mount_point: PathBuf,
        source: String,
        major_minor: String,
        super_options: String,
    },
    Network {
        protocol: String,
        server: Option<String>,
        address: Option<String>,
        export: Option<String>,
        interface: Option<NetInterface>,
    },
    Block(Box<BlockInfo>),
    Null,
}

/// A node and the indexes (into `Identity::layers`) of the nodes under it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Layer {
    pub below: Vec<usize>,
    #[serde(flatten)]
    pub node: Node,
}

/// Everything drivescope knows about a target and the path from it to the CPU.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Identity {
    pub target: PathBuf,
    pub kind: TargetKind,
    /// `layers[0]` is the target; each layer lists the layers under it.
    pub layers: Vec<Layer>,
    /// Every link between the bottom device(s) and the CPU, nearest the device first.
    pub links: Vec<Link>,
    /// The lowest link ceiling, MB/s (10^6 B/s); `null` when no link's ceiling is known.
    pub path_ceiling_mb_per_s: Option<f64>,
    /// Things worth knowing that have no field: slow links, missing tools, unresolved paths.
    pub notes: Vec<String>,
}

impl Identity {
    /// The identity of a whole block device with nothing known around it: one layer, no links.
    pub fn of_block(block: BlockInfo) -> Identity {
        Identity {
            target: block.dev_path.clone(),
            kind: TargetKind::BlockDevice,
            layers: vec![Layer {
                below: Vec::new(),
                node: Node::Block(Box::new(block)),
            }],
            links: Vec::new(),
            path_ceiling_mb_per_s: None,
            notes: Vec::new(),
        }
    }

    /// The lowest ceiling among the links on the path, MB/s.
    pub fn path_ceiling_mb_per_s(&self) -> Option<f64> {
        ceiling::lowest(&self.links)
    }

    /// The link that sets the ceiling.
    pub fn bottleneck(&self) -> Option<&Link> {
        let c = self.path_ceiling_mb_per_s()?;
        self.links.iter().find(|l| l.ceiling_mb_per_s == Some(c))
    }

    /// Block devices in the chain, top first.
    pub fn block_devices(&self) -> impl Iterator<Item = &BlockInfo> {
        self.layers.iter().filter_map(|l| match &l.node {
            Node::Block(b) => Some(b.as_ref()),
            _ => None,
        })
    }

    /// The bottom devices: those with hardware (or virtual disks) under them.
    pub fn devices(&self) -> impl Iterator<Item = &BlockInfo> {
        self.block_devices().filter(|b| b.hardware.is_some())
    }

    /// The target's own block device, when it is one.
    pub fn target_block(&self) -> Option<&BlockInfo> {
        match &self.layers.first()?.node {
            Node::Block(b) => Some(b),
            _ => None,
        }
    }

    /// What holds the target when it is memory rather than a disk: `tmpfs` or `ramfs` (a file
    /// system in RAM under a directory, a file, or a loop device's file), `zram` (a compressed
    /// RAM disk) or `ram` (brd); `None` when it has a device below it.
    pub fn memory(&self) -> Option<&'static str> {
        self.layers.iter().find_map(|l| match &l.node {
            Node::Filesystem { fstype, .. } => match fstype.as_str() {
                "tmpfs" => Some("tmpfs"),
                "ramfs" => Some("ramfs"),
                _ => None,
            },
            Node::Block(b) => match b.transport {
                Transport::Zram => Some("zram"),
                Transport::Ram => Some("ram"),
                _ => None,
            },
            _ => None,
        })
    }

    /// Why the target is not flash storage whose steady state can be measured, when that is
    /// known: memory (zram, a RAM disk, tmpfs), a loop device over a plain file (its writes land
    /// in that file's file system), or a rotating disk. A loop device over an emulated lab disk
    /// is the lab's model, and may be flash.
    pub fn not_flash(&self) -> Option<String> {
        let lab = self.layers.iter().any(
            |l| matches!(&l.node, Node::Filesystem { source, .. } if source == crate::LAB_FS_NAME),
        );
        if let Some(m) = self.memory().filter(|_| !lab) {
            return Some(format!("memory ({m})"));
        }
        for b in self.block_devices() {
            match b.transport {
                Transport::Loop if !lab => {
                    return Some(
                        "a loop device over a file (its writes land in a file system)".into(),
                    )
                }
                Transport::Zram | Transport::Ram => return Some("memory (a RAM disk)".into()),
                _ if b.rotational == Some(true) && b.hardware.is_some() => {
                    return Some("a rotating disk".into())
                }
                _ => {}
            }
        }
        None
    }

    /// Whether the target lies on solid-state hardware: a real (not virtual, loop or memory) block
    /// device under it says it does not rotate. Such a device may hold what it took in a non-volatile
    /// fast tier (an SLC cache) that timing cannot tell from a volatile cache.
    pub fn solid_state_hardware(&self) -> bool {
        self.block_devices().any(|b| {
            b.hardware.is_some()
                && b.rotational == Some(false)
                && !matches!(
                    b.transport,
                    Transport::Virtio | Transport::Loop | Transport::Zram | Transport::Ram
                )
        })
    }

    /// Whether an offset on the target is a position on a medium, so that the rate by position can show a
    /// disk's zones; else why not. A file's offsets lie wherever its extents do; a loop device's are its
    /// file's (except over an emulated lab disk, whose file is the model's medium); memory has no zones;
    /// and a virtual disk's positions are wherever the host keeps them (its rotational flag says nothing).
    pub fn positions(&self) -> std::result::Result<(), &'static str> {
        match self.kind {
            TargetKind::File | TargetKind::Directory => {
                return Err("a file: its offsets are not the disk's positions")
            }
            TargetKind::Null => return Err("no device"),
            TargetKind::BlockDevice | TargetKind::Partition => {}
        }
        let lab = self.layers.iter().any(
            |l| matches!(&l.node, Node::Filesystem { source, .. } if source == crate::LAB_FS_NAME),
        );
        for b in self.block_devices() {
            match b.transport {
                Transport::Loop if !lab => {
                    return Err("a loop device: its offsets are its file's, not a disk's positions")
                }
                Transport::Zram | Transport::Ram => return Err("memory: it has no zones"),
                Transport::Virtio => {
                    return Err("a virtual disk: its positions are wherever the host keeps them")
                }
                _ => {}
            }
        }
        Ok(())
    }
}

/// How much to find out.
#[derive(Debug, Clone)]
pub struct Options {
    /// Run `smartctl --json -a` on bottom devices (only with the live roots).
    pub smart: bool,
    /// Resolve server names of network mounts through the resolver (only with the live roots).
    pub dns: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            smart: true,
            dns: true,
        }
    }
}

/// Describe `target` with default options (SMART read when smartctl is installed).
pub fn identify(target: &Path, roots: &Roots) -> Result<Identity> {
    identify_with(target, roots, &Options::default())
}

/// Describe `target`.
pub fn identify_with(target: &Path, roots: &Roots, opts: &Options) -> Result<Identity> {
    let mut b = Builder::new(roots, opts)?;
    let kind = b.target(target)?;
    Ok(b.finish(target, kind))
}

/// Every block device in `/sys/block` (whole devices; partitions are listed in each),
/// except loop devices with nothing attached. SMART is not read here.
pub fn list_block_devices(roots: &Roots) -> Result<Vec<Identity>> {
    let dir = roots.sys.join("block");
    let names = sysfs::list(&dir);
    if names.is_empty() && !dir.is_dir() {
        return Err(ProbeError::NotBlockDirectory(dir));
    }
    let opts = Options {
        smart: false,
        dns: false,
    };
    let mut out = Vec::new();
    for name in names {
        if name.starts_with("loop") && !dir.join(&name).join("loop").is_dir() {
            continue;
        }
        let mut b = Builder::new(roots, &opts)?;
        let idx = b.block(&name)?;
        let kind = b.kind_of(idx);
        out.push(b.finish(&roots.dev_node(&name), kind));
    }
    Ok(out)
}

struct Builder<'a> {
    roots: &'a Roots,
    opts: &'a Options,
    sys_canon: PathBuf,
    mounts: Vec<MountEntry>,
    layers: Vec<Layer>,
    links: Vec<Link>,
    notes: Vec<String>,
    by_name: HashMap<String, usize>,
    depth: usize,
}

/// Linux `dev_t` to (major, minor) (glibc's gnu_dev_major/minor encoding).
fn split_dev(dev: u64) -> (u32, u32) {
    let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & !0xfff);
    let minor = (dev & 0xff) | ((dev >> 12) & !0xff);
    (major as u32, minor as u32)
}

/// If `path` is a node directly under the device root (after following symlinks there,
/// as in `/dev/disk/by-id/…` or `/dev/mapper/…`), the kernel name it stands for.
fn dev_name(roots: &Roots, path: &Path) -> Option<String> {
    let dev_canon = fs::canonicalize(&roots.dev).ok()?;
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().ok()?.join(path)
    };
    let canon = fs::canonicalize(&abs).ok()?;
    let rel = canon.strip_prefix(&dev_canon).ok()?;
    if rel.components().count() != 1 {
        return None;
    }
    let name = rel.to_string_lossy().into_owned();
    roots.class_block(&name).exists().then_some(name)
}

/// The kernel name of the block device a `/dev/…` path names, read under `roots` (a path
/// under `/dev` is looked up under the device root): by its device number when it is a
/// device node, else by its name under the device root (fixture trees hold plain files).
pub fn kernel_name(path: &Path, roots: &Roots) -> Option<String> {
    let path = match path.strip_prefix("/dev") {
        Ok(rel) => roots.dev.join(rel),
        Err(_) => path.to_path_buf(),
    };
    match fs::metadata(&path) {
        Ok(md) if md.file_type().is_block_device() => {
            let (maj, min) = split_dev(md.rdev());
            fs::canonicalize(roots.dev_block(maj, min))
                .ok()
                .map(|p| sysfs::name_of(&p))
        }
        _ => dev_name(roots, &path),
    }
}

/// The partitions of the target's block device, each read as the block devices of a chain
/// are (mount points, holders, size); empty when the target is no whole device with
/// partitions. SMART is not read here.
pub fn target_partitions(id: &Identity, roots: &Roots) -> Result<Vec<BlockInfo>> {
    let Some(target) = id.target_block() else {
        return Ok(Vec::new());
    };
    let opts = Options {
        smart: false,
        dns: false,
    };
    let mut b = Builder::new(roots, &opts)?;
    let mut out = Vec::new();
    for name in &target.partitions {
        let idx = b.block(name)?;
        if let Node::Block(info) = &b.layers[idx].node {
            out.push(info.as_ref().clone());
        }
    }
    Ok(out)
}

impl<'a> Builder<'a> {
    fn new(roots: &'a Roots, opts: &'a Options) -> Result<Self> {
        let sys_canon = fs::canonicalize(&roots.sys).map_err(|error| ProbeError::SysfsRoot {
            path: roots.sys.clone(),
            error,
        })?;
        let mut notes = Vec::new();
        let mounts = match mounts::read_mountinfo(&roots.proc) {
            Ok(m) => m,
            Err(e) => {
                notes.push(format!(
                    "{}: {e} — mount points not known",
                    roots.mountinfo().display()
                ));
                Vec::new()
            }
        };
        Ok(Builder {
            roots,
            opts,
            sys_canon,
            mounts,
            layers: Vec::new(),
            links: Vec::new(),
            notes,
            by_name: HashMap::new(),
            depth: 0,
        })
    }

    fn finish(mut self, target: &Path, kind: TargetKind) -> Identity {
        let mut links: Vec<Link> = Vec::new();
        for l in self.links.drain(..) {
            if !links.iter().any(|x| x.kind == l.kind && x.name == l.name) {
                links.push(l);
            }
        }
        let mut notes = Vec::new();
        for n in self.notes.drain(..) {
            if !notes.contains(&n) {
                notes.push(n);
            }
        }
        let mut id = Identity {
            target: target.to_path_buf(),
            kind,
            layers: self.layers,
            links,
            path_ceiling_mb_per_s: None,
            notes,
        };
        id.path_ceiling_mb_per_s = id.path_ceiling_mb_per_s();
        id
    }

    fn kind_of(&self, idx: usize) -> TargetKind {
        match &self.layers[idx].node {
            Node::Block(b) if b.role == BlockRole::Partition => TargetKind::Partition,
            Node::File { .. } => TargetKind::File,
            Node::Directory { .. } => TargetKind::Directory,
            Node::Null => TargetKind::Null,
            _ => TargetKind::BlockDevice,
        }
    }

    fn reserve(&mut self) -> usize {
        self.layers.push(Layer {
            below: Vec::new(),
            node: Node::Null,
        });
        self.layers.len() - 1
    }

    /// The top of the chain.
    fn target(&mut self, target: &Path) -> Result<TargetKind> {
        let spec = target.to_string_lossy();
        let is_null = spec == "null" || spec.starts_with("null:");
        if is_null && fs::symlink_metadata(target).is_err() {
            self.reserve();
            return Ok(TargetKind::Null);
        }
        let idx = match fs::metadata(target) {
            Ok(md) if md.file_type().is_block_device() => {
                let (maj, min) = split_dev(md.rdev());
                let by_dev = fs::canonicalize(self.roots.dev_block(maj, min)).ok();
                let name = by_dev
                    .map(|p| sysfs::name_of(&p))
                    .or_else(|| self.dev_name(target))
                    .ok_or_else(|| ProbeError::NotInSysfs {
                        target: target.to_path_buf(),
                        major: maj,
                        minor: min,
                        sys: self.roots.sys.clone(),
                    })?;
                self.block(&name)?
            }
            Ok(md) => {
                // A node under the device root that names a block device in sysfs (fixture
                // trees hold plain files where devtmpfs holds device nodes).
                if let Some(name) = self.dev_name(target) {
                    self.block(&name)?
                } else if md.is_file() || md.is_dir() {
                    let canon =
                        fs::canonicalize(target).map_err(|error| ProbeError::Unreadable {
                            path: target.to_path_buf(),
                            error,
                        })?;
                    self.path(&canon, Some(md))?
                } else {
                    return Err(ProbeError::NotADevice(target.to_path_buf()));
                }
            }
            Err(e) => {
                // A bare kernel name: `drivescope info sda`.
                let name = target.to_string_lossy();
                if target.components().count() == 1 && self.roots.class_block(&name).exists() {
                    self.block(&name)?
                } else {
                    return Err(ProbeError::Unreadable {
                        path: target.to_path_buf(),
                        error: e,
                    });
                }
            }
        };
        Ok(self.kind_of(idx))
    }

    /// If `path` is a node directly under the device root, the kernel name it stands for.
    fn dev_name(&self, path: &Path) -> Option<String> {
        dev_name(self.roots, path)
    }

    /// A file or directory: it, its file system, and what is under that.
    fn path(&mut self, path: &Path, md: Option<fs::Metadata>) -> Result<usize> {
        let idx = self.reserve();
        let is_dir = md.as_ref().is_some_and(|m| m.is_dir());
        self.layers[idx].node = if is_dir {
            Node::Directory {
                path: path.to_path_buf(),
            }
        } else {
            Node::File {
                path: path.to_path_buf(),
                size_bytes: md.as_ref().map(|m| m.len()),
                reachable: md.is_some(),
            }
        };
        let dev = md.as_ref().map(|m| split_dev(m.dev()));
        let normalized = mounts::normalize(path);
        match mounts::mount_for(&self.mounts, &normalized, dev).cloned() {
            Some(m) => {
                let below = self.filesystem(&m)?;
                self.layers[idx].below.push(below);
            }
            None => self.notes.push(format!(
                "{}: no mount found for it in {}",
                path.display(),
                self.roots.mountinfo().display()
            )),
        }
        Ok(idx)
    }

    /// A mounted file system and what holds it.
    fn filesystem(&mut self, m: &MountEntry) -> Result<usize> {
        let idx = self.reserve();
        self.layers[idx].node = Node::Filesystem {
            fstype: m.fstype.clone(),
            mount_point: m.mount_point.clone(),
            source: m.source.clone(),
            major_minor: format!("{}:{}", m.major, m.minor),
            super_options: m.super_options.clone(),
        };
        if let Some(proto) = net::network_protocol(&m.fstype) {
            let n = self.network(proto, m);
            self.layers[idx].below.push(n);
            return Ok(idx);
        }
        match m.fstype.as_str() {
            "tmpfs" | "ramfs" | "devtmpfs" => {
                self.notes.push(format!(
                    "{} is {}: memory, no device below",
                    m.mount_point.display(),
                    m.fstype
                ));
                return Ok(idx);
            }
            "overlay" => {
                if let Some(upper) = m.super_option("upperdir").filter(|u| !u.is_empty()) {
                    let upper = PathBuf::from(upper);
                    self.notes.push(format!(
                        "{} is an overlay: writes go to its upper directory {}; reads may come from lower layers",
                        m.mount_point.display(),
                        upper.display()
                    ));
                    let md = fs::metadata(&upper).ok();
                    let below = self.path(&upper, md)?;
                    self.layers[idx].below.push(below);
                }
                return Ok(idx);
            }
            _ => {}
        }
        let by_dev = (m.major != 0)
            .then(|| fs::canonicalize(self.roots.dev_block(m.major, m.minor)).ok())
            .flatten()
            .map(|p| sysfs::name_of(&p));
        let by_source = || {
            let rel = m.source.strip_prefix("/dev/")?;
            self.dev_name(&self.roots.dev.join(rel))
        };
        match by_dev.or_else(by_source) {
            Some(name) => {
                let below = self.block(&name)?;
                self.layers[idx].below.push(below);
            }
            None => self.notes.push(format!(
                "{} ({} from {}): no block device found under it",
                m.mount_point.display(),
                m.fstype,
                m.source
            )),
        }
        Ok(idx)
    }

    /// A network mount: server, route, interface, and the NIC's link.
    fn network(&mut self, proto: &str, m: &MountEntry) -> usize {
        let idx = self.reserve();
        let (server, export) = net::split_source(&m.fstype, &m.source);
        let address = m
            .super_option("addr")
            .filter(|a| !a.is_empty())
            .and_then(|a| a.parse().ok())
            .or_else(|| {
                let dns = self.opts.dns && self.roots.is_live();
                server.as_deref().and_then(|s| net::resolve(s, dns))
            });
        let iface_name = address.and_then(|a| net::route_interface(&self.roots.proc, a));
        let iface = iface_name
            .as_deref()
            .and_then(|n| net::read_interface(&self.roots.sys, n));
        match (&address, &iface) {
            (None, _) => self.notes.push(format!(
                "{}: server address of {} not known, so neither is the interface",
                m.mount_point.display(),
                m.source
            )),
            (Some(a), None) => self
                .notes
                .push(format!("no route or interface found for {a}")),
            _ => {}
        }
        if let Some(i) = &iface {
            self.nic_links(i, 0);
        }
        self.layers[idx].node = Node::Network {
            protocol: proto.to_string(),
            server,
            address: address.map(|a| a.to_string()),
            export,
            interface: iface,
        };
        idx
    }

    fn nic_links(&mut self, i: &NetInterface, depth: usize) {
        if i.name == "lo" {
            self.notes
                .push("the server is this machine (loopback): no network link".into());
            return;
        }
        if i.is_virtual && !i.lower.is_empty() && depth < 4 {
            for l in &i.lower {
                if let Some(li) = net::read_interface(&self.roots.sys, l) {
                    self.nic_links(&li, depth + 1);
                }
            }
            return;
        }
        let mut detail = match i.speed_mbit {
            Some(s) => format!("{s} Mb/s"),
            None => "speed not reported".to_string(),
        };
        if let Some(d) = &i.duplex {
            detail.push_str(&format!(" {d} duplex"));
        }
        if let Some(m) = i.mtu {
            detail.push_str(&format!(", MTU {m}"));
        }
        if let Some(d) = &i.driver {
            detail.push_str(&format!(", driver {d}"));
        }
        if i.speed_mbit.is_none() {
            self.notes.push(format!(
                "{}: the driver reports no link speed (virtual NIC, Wi-Fi or link down), so no ceiling",
                i.name
            ));
        }
        self.links.push(Link {
            name: i.name.clone(),
            kind: "nic".into(),
            detail,
            ceiling_mb_per_s: i
                .speed_mbit
                .and_then(|s| ceiling::nic_mb_per_s(s as f64, i.mtu)),
        });
        if let Ok(c) = fs::canonicalize(self.roots.class_net(&i.name)) {
            let anc = sysfs::ancestors_within(&c, &self.sys_canon.join("devices"));
            let pci = transport::pcie_links(&anc, &mut self.notes);
            self.links.extend(pci.into_iter().map(|(l, _)| l));
        }
    }

    /// A block device by kernel name, and everything under it.
    fn block(&mut self, name: &str) -> Result<usize> {
        if let Some(&i) = self.by_name.get(name) {
            return Ok(i);
        }
        self.depth += 1;
        if self.depth > 32 {
            return Err(ProbeError::TooDeep(name.to_string()));
        }
        let dir = self.roots.class_block(name);
        let canon = fs::canonicalize(&dir).map_err(|error| ProbeError::NoBlockDevice {
            name: name.to_string(),
            dir: dir.clone(),
            error,
        })?;
        let idx = self.reserve();
        self.by_name.insert(name.to_string(), idx);
        let mut info = block::read_common(&canon, name, self.roots.dev_node(name));
        info.sysfs_path = canon
            .strip_prefix(&self.sys_canon)
            .ok()
            .map(|r| Path::new("/sys").join(r));
        if let Some(mm) = &info.major_minor {
            info.mount_points = self
                .mounts
                .iter()
                .filter(|m| format!("{}:{}", m.major, m.minor) == *mm)
                .map(|m| m.mount_point.clone())
                .collect();
        }
        let mut below = Vec::new();
        if let Some(p) = block::read_partition(&canon, &canon) {
            info.role = BlockRole::Partition;
            let parent = self.block(&p.parent)?;
            if let Node::Block(pb) = &self.layers[parent].node {
                info.transport = pb.transport;
            }
            below.push(parent);
            info.partition = Some(p);
        } else if canon.join("loop").is_dir() || name.starts_with("loop") {
            info.role = BlockRole::Loop;
            info.transport = Transport::Loop;
            info.loop_dev = block::read_loop(&canon);
            let backing = info.loop_dev.as_ref().and_then(|l| l.backing_file.clone());
            match backing {
                Some(f) => {
                    if info.loop_dev.as_ref().is_some_and(|l| l.backing_deleted) {
                        self.notes.push(format!(
                            "{name}: its backing file {} was deleted",
                            f.display()
                        ));
                    }
                    let md = fs::metadata(&f).ok();
                    if md.is_none() {
                        self.notes.push(format!(
                            "{name}: backing file {} is not reachable from here; resolved by its path",
                            f.display()
                        ));
                    }
                    below.push(self.path(&f, md)?);
                }
                None => self.notes.push(format!("{name}: no backing file attached")),
            }
        } else if let Some(dm) = block::read_dm(&canon) {
            info.role = BlockRole::Dm;
            info.transport = Transport::Dm;
            info.dm = Some(dm);
            for s in info.slaves.clone() {
                below.push(self.block(&s)?);
            }
        } else if let Some(md) = block::read_md(&canon) {
            info.role = BlockRole::Md;
            info.transport = Transport::Md;
            info.md = Some(md);
            for s in info.slaves.clone() {
                below.push(self.block(&s)?);
            }
        } else if name.starts_with("zram") {
            info.role = BlockRole::Zram;
            info.transport = Transport::Zram;
            info.zram = block::read_zram(&canon);
            if info.size_bytes == Some(0) {
                self.notes
                    .push(format!("{name}: zram device not configured (disksize 0)"));
            }
            let bd = info.zram.as_ref().and_then(|z| z.backing_dev.clone());
            if let Some(bd) = bd {
                if let Some(n) = Path::new(&bd).file_name() {
                    below.push(self.block(&n.to_string_lossy())?);
                }
            }
        } else {
            let found = transport::probe(&self.sys_canon, &canon, name);
            info.transport = found.transport;
            let mut hw = found.hardware;
            self.links.extend(found.links);
            self.notes.extend(found.notes);
            hw.smart = self.smart(name);
            if let Some(s) = &hw.smart {
                hw.model = hw.model.take().or(s.model.clone());
                hw.serial = hw.serial.take().or(s.serial.clone());
                hw.firmware = hw.firmware.take().or(s.firmware.clone());
                if hw.rotation_rate_rpm.is_none() {
                    hw.rotation_rate_rpm = s.rotation_rate_rpm.map(|r| r as u32);
                }
            }
            info.hardware = Some(hw);
        }
        self.layers[idx].below = below;
        self.layers[idx].node = Node::Block(Box::new(info));
        self.depth -= 1;
        Ok(idx)
    }

    fn smart(&mut self, name: &str) -> Option<Smart> {
        if !self.opts.smart {
            return None;
        }
        if !self.roots.is_live() {
            return Some(Smart {
                note: Some("SMART not read: the roots are not the live /sys, /proc, /dev".into()),
                ..Smart::default()
            });
        }
        Some(smart::read_smart(&self.roots.dev_node(name)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn disk(name: &str, role: BlockRole, transport: Transport) -> Identity {
        Identity::of_block(BlockInfo::new(
            name,
            PathBuf::from(format!("/dev/{name}")),
            role,
            transport,
        ))
    }

    /// A loop device over a file on a file system whose mount source is `source`.
    fn loop_over(source: &str) -> Identity {
        let mut id = disk("loop0", BlockRole::Loop, Transport::Loop);
        id.layers[0].below = vec![1];
        id.layers.push(Layer {
            below: vec![2],
            node: Node::File {
                path: "/mnt/disk.img".into(),
                size_bytes: None,
                reachable: true,
            },
        });
        id.layers.push(Layer {
            below: Vec::new(),
            node: Node::Filesystem {
                fstype: "fuse".into(),
                mount_point: "/mnt".into(),
                source: source.into(),
                major_minor: "0:55".into(),
                super_options: String::new(),
            },
        });
        id
    }

    #[test]
    fn memory_is_named_and_a_disk_is_not_memory() {
        assert_eq!(
            disk("zram0", BlockRole::Zram, Transport::Zram).memory(),
            Some("zram")
        );
        assert_eq!(
            disk("ram0", BlockRole::Disk, Transport::Ram).memory(),
            Some("ram")
        );
        for t in [Transport::Sata, Transport::Nvme, Transport::Virtio] {
            assert_eq!(disk("sda", BlockRole::Disk, t).memory(), None, "{t:?}");
        }
        // A loop device's file on tmpfs is memory; on an emulated lab disk's FUSE file it is not.
        let mut on_tmpfs = loop_over("tmpfs");
        if let Node::Filesystem { fstype, .. } = &mut on_tmpfs.layers[2].node {
            *fstype = "tmpfs".into();
        }
        assert_eq!(on_tmpfs.memory(), Some("tmpfs"));
        assert_eq!(loop_over(crate::LAB_FS_NAME).memory(), None);
    }

    #[test]
    fn positions_are_a_mediums_on_disks_and_lab_disks_only() {
        for t in [
            Transport::Sata,
            Transport::Nvme,
            Transport::Usb,
            Transport::Sas,
        ] {
            assert_eq!(disk("sda", BlockRole::Disk, t).positions(), Ok(()), "{t:?}");
        }
        assert_eq!(loop_over(crate::LAB_FS_NAME).positions(), Ok(()));
        for (id, why) in [
            (
                disk("vda", BlockRole::Disk, Transport::Virtio),
                "a virtual disk",
            ),
            (disk("zram0", BlockRole::Zram, Transport::Zram), "memory"),
            (disk("ram0", BlockRole::Disk, Transport::Ram), "memory"),
            (loop_over("/dev/vda"), "a loop device"),
        ] {
            let said = id.positions().unwrap_err();
            assert!(said.starts_with(why), "{}: {said}", id.target.display());
        }
        let mut file = disk("sda", BlockRole::Disk, Transport::Sata);
        file.kind = TargetKind::File;
        assert!(file.positions().unwrap_err().starts_with("a file"));
    }

    #[test]
    fn dev_t_split() {
        assert_eq!(split_dev(0xfe00), (254, 0));
        assert_eq!(split_dev(0x0801), (8, 1));
        // major 259 (blkext), minor 0x12345: the high bits live above bit 32 / bit 20.
        let dev = ((259u64 & 0xfff) << 8) | (0x45) | ((0x123u64) << 12 << 8);
        let (maj, _) = split_dev(dev);
        assert_eq!(maj, 259);
    }

    #[test]
    fn refusals_read_as_the_path_and_the_systems_words() {
        let missing = Path::new("/nonexistent-drivescope-target");
        let e = identify_with(missing, &Roots::default(), &Options::default()).unwrap_err();
        assert!(matches!(e, ProbeError::Unreadable { .. }), "{e:?}");
        assert_eq!(
            e.to_string(),
            "/nonexistent-drivescope-target: No such file or directory (os error 2)"
        );
        let empty = Roots::under(Path::new("/nonexistent-drivescope-roots"));
        let e = list_block_devices(&empty).unwrap_err();
        assert_eq!(
            e.to_string(),
            "/nonexistent-drivescope-roots/sys/block: not a sysfs block directory"
        );
        let e = identify_with(Path::new("/"), &empty, &Options::default()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "sysfs root /nonexistent-drivescope-roots/sys: No such file or directory (os error 2)"
        );
        let e = identify_with(
            Path::new("/dev/null"),
            &Roots::default(),
            &Options::default(),
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "/dev/null: not a block device, file or directory"
        );
    }

    #[test]
    fn json_roundtrip_of_layers() {
        let id = Identity {
            target: PathBuf::from("/x"),
            kind: TargetKind::File,
            layers: vec![
                Layer {
                    below: vec![1],
                    node: Node::File {
                        path: PathBuf::from("/x"),
                        size_bytes: Some(3),
                        reachable: true,
                    },
                },
                Layer {
                    below: vec![],
                    node: Node::Filesystem {
                        fstype: "tmpfs".into(),
                        mount_point: PathBuf::from("/"),
                        source: "tmpfs".into(),
                        major_minor: "0:27".into(),
                        super_options: "rw".into(),
                    },
                },
            ],
            links: vec![],
            path_ceiling_mb_per_s: None,
            notes: vec![],
        };
        let j = serde_json::to_value(&id).expect("serialize");
        assert_eq!(j["layers"][0]["layer"], "file");
        assert_eq!(j["layers"][1]["layer"], "filesystem");
        let back: Identity = serde_json::from_value(j).expect("deserialize");
        assert_eq!(back, id);
    }
}
