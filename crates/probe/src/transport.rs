//! The hardware under a whole block device, found by walking its resolved sysfs path up
//! towards the CPU: the SCSI device, the ATA link, the USB interface and device, the NVMe
//! controller, the PCIe functions; and the links on that path with their ceilings.

use crate::ata_id::{AtaIdentify, RotationRate};
use crate::block::{Hardware, NvmeInfo, PcieInfo, SataLink, Transport, UsbInfo};
use crate::ceiling::{self, Link};
use crate::sysfs::{self, name_of};
use std::path::{Path, PathBuf};

/// What the walk found.
pub struct Found {
    pub transport: Transport,
    pub hardware: Hardware,
    pub links: Vec<Link>,
    pub notes: Vec<String>,
}

fn is_pci_function(name: &str) -> bool {
    // dddd:bb:dd.f
    let b = name.as_bytes();
    b.len() == 12
        && b[4] == b':'
        && b[7] == b':'
        && b[10] == b'.'
        && name
            .chars()
            .enumerate()
            .all(|(i, c)| matches!(i, 4 | 7 | 10) || c.is_ascii_hexdigit())
}

fn is_ata_port(name: &str) -> bool {
    name.strip_prefix("ata")
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()))
}

fn is_usb_device(dir: &Path) -> bool {
    dir.join("busnum").is_file() && dir.join("devnum").is_file() && dir.join("speed").is_file()
}

fn is_mmc_card(name: &str) -> bool {
    name.starts_with("mmc") && name.contains(':')
}

/// The transport, judged from the nearest telling ancestor.
fn detect(ancestors: &[PathBuf], virtual_root: bool, name: &str) -> Transport {
    if virtual_root {
        return if name.starts_with("ram") {
            Transport::Ram
        } else if name.starts_with("nbd") {
            Transport::Nbd
        } else if name.starts_with("nvme") {
            Transport::Nvme
        } else {
            Transport::Unknown
        };
    }
    for a in ancestors {
        let n = name_of(a);
        if n == "nvme" || n.starts_with("nvme-subsys") {
            return Transport::Nvme;
        }
        if a.join("bInterfaceClass").is_file() {
            return Transport::Usb;
        }
        if is_ata_port(&n) {
            return Transport::Sata; // refined to Ata below when the link has no SATA speed
        }
        if n.starts_with("end_device-") {
            return Transport::Sas;
        }
        if n.starts_with("session") && a.join("iscsi_session").is_dir() {
            return Transport::Iscsi;
        }
        if is_mmc_card(&n) {
            return Transport::Mmc;
        }
        if n.starts_with("virtio") && n[6..].bytes().all(|c| c.is_ascii_digit()) && n.len() > 6 {
            return Transport::Virtio;
        }
    }
    Transport::Unknown
}

/// The SCSI `H:C:T:L` of the nearest SCSI device ancestor.
fn scsi_hctl(ancestors: &[PathBuf]) -> Option<[u64; 4]> {
    ancestors.iter().find_map(|a| {
        let n = name_of(a);
        let v: Vec<u64> = n.split(':').filter_map(|x| x.parse().ok()).collect();
        (v.len() == 4 && n.split(':').count() == 4).then(|| [v[0], v[1], v[2], v[3]])
    })
}

/// Read the hardware under the whole device whose resolved sysfs directory is `canon`.
pub fn probe(sys_canon: &Path, canon: &Path, name: &str) -> Found {
    let devices = sys_canon.join("devices");
    let ancestors = sysfs::ancestors_within(canon, &devices);
    let virtual_root = canon.starts_with(devices.join("virtual"));
    let mut f = Found {
        transport: detect(&ancestors, virtual_root, name),
        hardware: Hardware::default(),
        links: Vec::new(),
        notes: Vec::new(),
    };
    let hw = &mut f.hardware;

    // The SCSI device (`device` link of a SCSI disk): INQUIRY strings, queue depth, VPD.
    let dev_dir = std::fs::canonicalize(canon.join("device")).ok();
    if let Some(d) = dev_dir
        .as_deref()
        .filter(|d| d.join("scsi_level").is_file())
    {
        hw.vendor = sysfs::read(&d.join("vendor"));
        hw.model = sysfs::read(&d.join("model"));
        hw.firmware = sysfs::read(&d.join("rev"));
        hw.queue_depth = sysfs::read_u64(&d.join("queue_depth"));
        hw.wwn = sysfs::read(&d.join("wwid"));
        hw.serial = sysfs::read_raw(&d.join("vpd_pg80")).and_then(|b| vpd_serial(&b));
        hw.rotation_rate_rpm = sysfs::read_raw(&d.join("vpd_pgb1")).and_then(|b| vpd_rotation(&b));
        if f.transport == Transport::Unknown {
            f.transport = Transport::Scsi;
        }
    }
    // Some drivers (virtio_blk, others) expose the serial on the disk itself.
    if hw.serial.is_none() {
        hw.serial = sysfs::read(&canon.join("serial"));
    }
    if hw.wwn.is_none() {
        hw.wwn = sysfs::read(&canon.join("wwid"));
    }

    match f.transport {
        Transport::Sata => ata(&ancestors, &mut f),
        Transport::Usb => usb(&ancestors, &mut f),
        Transport::Nvme => nvme(canon, &devices, &ancestors, &mut f),
        Transport::Mmc => mmc(&ancestors, &mut f),
        Transport::Sas => sas(&ancestors, &mut f),
        Transport::Virtio => {
            f.notes.push(format!(
                "{name} is a virtio disk: its speed is whatever the host gives it, no link ceiling"
            ));
        }
        _ => {}
    }
    if f.transport != Transport::Nvme {
        let pci = pcie_links(&ancestors, &mut f.notes);
        f.links.extend(pci.into_iter().map(|(l, _)| l));
    }
    f
}

/// VPD page 80h: 4-byte header, byte 3 = page length, then the serial in ASCII.
fn vpd_serial(b: &[u8]) -> Option<String> {
    if b.len() < 4 || b[1] != 0x80 {
        return None;
    }
    let len = b[3] as usize;
    let s = String::from_utf8_lossy(b.get(4..4 + len.min(b.len() - 4))?);
    let s = s.trim_matches(|c: char| c.is_whitespace() || c == '\0');
    (!s.is_empty()).then(|| s.to_string())
}

/// VPD page B1h (Block Device Characteristics): bytes 4-5 medium rotation rate,
/// 1 = non-rotating, 0401h-FFFEh = rpm.
fn vpd_rotation(b: &[u8]) -> Option<u32> {
    if b.len() < 6 || b[1] != 0xb1 {
        return None;
    }
    match u16::from_be_bytes([b[4], b[5]]) {
        1 => Some(0),
        r @ 0x0401..=0xfffe => Some(r as u32),
        _ => None,
    }
}

fn gbps(s: Option<String>) -> Option<f64> {
    s.as_deref().and_then(ceiling::leading_number)
}

fn fmt_rate(v: Option<f64>, unit: &str) -> String {
    v.map_or("unknown".to_string(), |v| format!("{v:.1} {unit}"))
}

/// libata: `ataN/linkN[.P]/ata_link/…/sata_spd` and `ataN/linkN/devN.D/ata_device/…/id`.
fn ata(ancestors: &[PathBuf], f: &mut Found) {
    let Some(port) = ancestors.iter().find(|a| is_ata_port(&name_of(a))) else {
        return;
    };
    let port_name = name_of(port);
    let print_id = &port_name[3..];
    let target = scsi_hctl(ancestors).map(|h| h[2]);
    let links: Vec<String> = sysfs::list(port)
        .into_iter()
        .filter(|n| n.starts_with("link"))
        .collect();
    let link = if links.len() == 1 {
        links.first().cloned()
    } else {
        target
            .map(|t| format!("link{print_id}.{t}"))
            .filter(|l| links.contains(l))
    };
    let Some(link) = link else {
        f.notes
            .push(format!("{port_name}: could not tell which ATA link"));
        return;
    };
    let ldir = port.join(&link);
    let lattr = ldir.join("ata_link").join(&link);
    let sata = SataLink {
        link: link.clone(),
        speed_gbps: gbps(sysfs::read(&lattr.join("sata_spd"))),
        drive_max_gbps: gbps(sysfs::read(&lattr.join("hw_sata_spd_limit"))),
        limit_gbps: gbps(sysfs::read(&lattr.join("sata_spd_limit"))),
    };
    // The ATA device behind the link: one for SATA, master/slave for PATA.
    let devs: Vec<String> = sysfs::list(&ldir)
        .into_iter()
        .filter(|n| n.starts_with("dev"))
        .collect();
    let dev = if devs.len() == 1 {
        devs.first().cloned()
    } else {
        target
            .map(|t| format!("dev{print_id}.{t}"))
            .filter(|d| devs.contains(d))
    };
    let hw = &mut f.hardware;
    if let Some(id) = dev
        .as_ref()
        .and_then(|d| sysfs::read(&ldir.join(d).join("ata_device").join(d).join("id")))
        .and_then(|t| AtaIdentify::parse(&t))
    {
        // IDENTIFY has the full strings; SCSI INQUIRY truncates ATA firmware to 4 characters.
        hw.model = id.model().or(hw.model.take());
        hw.serial = id.serial().or(hw.serial.take());
        hw.firmware = id.firmware().or(hw.firmware.take());
        hw.wwn = hw.wwn.take().or(id.wwn());
        hw.ncq_supported = id.ncq_supported();
        if let Some(r) = id.rotation_rate() {
            hw.rotation_rate_rpm = Some(match r {
                RotationRate::NonRotating => 0,
                RotationRate::Rpm(r) => r,
            });
        }
    }
    if hw.vendor.as_deref() == Some("ATA") {
        hw.vendor = None; // libata's placeholder, not a maker
    }
    hw.ncq = hw
        .queue_depth
        .map(|q| q > 1 && hw.ncq_supported != Some(false));
    if sata.speed_gbps.is_none() && sata.drive_max_gbps.is_none() {
        f.transport = Transport::Ata;
    }
    let ceiling = sata.speed_gbps.and_then(ceiling::serial_scsi_ata_mb_per_s);
    let mut detail = format!("SATA {} negotiated", fmt_rate(sata.speed_gbps, "Gb/s"));
    if let Some(m) = sata.drive_max_gbps {
        detail.push_str(&format!(", drive supports {m:.1} Gb/s"));
    }
    if let (Some(s), Some(m)) = (sata.speed_gbps, sata.drive_max_gbps) {
        if s + 0.01 < m {
            f.notes.push(format!(
                "{port_name}: SATA link runs at {s:.1} Gb/s, below the drive's {m:.1} Gb/s (port, cable or libata limit)"
            ));
        }
    }
    f.links.push(Link {
        name: port_name,
        kind: "sata".into(),
        detail,
        ceiling_mb_per_s: ceiling,
    });
    hw.sata = Some(sata);
}

/// SAS: the phys of the port the end device hangs off (`sas_phy/phy-H:N/negotiated_linkrate`).
fn sas(ancestors: &[PathBuf], f: &mut Found) {
    let Some(port) = ancestors.iter().find(|a| name_of(a).starts_with("port-")) else {
        return;
    };
    for phy in sysfs::list(port)
        .into_iter()
        .filter(|n| n.starts_with("phy-"))
    {
        let attr = port.join(&phy).join("sas_phy").join(&phy);
        let rate = sysfs::read(&attr.join("negotiated_linkrate"));
        let g = gbps(rate.clone());
        f.links.push(Link {
            name: phy,
            kind: "sas".into(),
            detail: format!("SAS {}", rate.unwrap_or_else(|| "unknown rate".into())),
            ceiling_mb_per_s: g.and_then(ceiling::serial_scsi_ata_mb_per_s),
        });
    }
}

/// USB: the storage interface (driver uas or usb-storage), its device, and every hub above.
fn usb(ancestors: &[PathBuf], f: &mut Found) {
    let Some(iface) = ancestors
        .iter()
        .find(|a| a.join("bInterfaceClass").is_file())
    else {
        return;
    };
    let driver = sysfs::link_name(&iface.join("driver"));
    let Some(udev) = iface.parent() else {
        return;
    };
    let r = |a: &str| sysfs::read(&udev.join(a));
    let info = UsbInfo {
        device: name_of(udev),
        driver: driver.clone(),
        queueing: driver.as_deref().and_then(|d| match d {
            "uas" => Some(true),
            "usb-storage" => Some(false),
            _ => None,
        }),
        speed_mbit: r("speed").and_then(|s| s.parse().ok()),
        usb_version: r("version"),
        vendor_id: r("idVendor"),
        product_id: r("idProduct"),
        manufacturer: r("manufacturer"),
        product: r("product"),
        bridge_serial: r("serial"),
    };
    if driver.as_deref() == Some("usb-storage") {
        f.notes.push(format!(
            "{}: usb-storage (Bulk-Only Transport) sends one command at a time — no command queueing; a UAS bridge would queue",
            info.device
        ));
    }
    // Each USB device from the storage device up to (not including) the root hub is a link.
    for a in ancestors.iter().filter(|a| is_usb_device(a)) {
        let n = name_of(a);
        if n.starts_with("usb") {
            continue; // root hub: the host controller's own port
        }
        let speed: Option<f64> = sysfs::read(&a.join("speed")).and_then(|s| s.parse().ok());
        let lanes = sysfs::read_u64(&a.join("rx_lanes")).unwrap_or(1) as u32;
        let is_storage = a.as_path() == udev;
        let mut detail = format!(
            "USB {} at {}",
            sysfs::read(&a.join("version")).unwrap_or_else(|| "?".into()),
            speed.map_or("unknown speed".to_string(), |s| format!("{s} Mb/s"))
        );
        if is_storage {
            detail.push_str(&format!(", driver {}", driver.as_deref().unwrap_or("none")));
        } else {
            detail.push_str(", hub");
        }
        f.links.push(Link {
            name: n,
            kind: "usb".into(),
            detail,
            ceiling_mb_per_s: speed.and_then(|s| ceiling::usb_mb_per_s(s, lanes)),
        });
    }
    f.hardware.usb = Some(info);
}

/// NVMe: the controller (`…/nvme/nvmeN`) or, for a multipath head under
/// `/sys/devices/virtual/nvme-subsystem/nvme-subsysN`, the controllers the subsystem links to.
fn nvme(canon: &Path, devices: &Path, ancestors: &[PathBuf], f: &mut Found) {
    let mut controllers: Vec<PathBuf> = ancestors
        .iter()
        .filter(|a| a.parent().is_some_and(|p| name_of(p) == "nvme"))
        .cloned()
        .collect();
    let subsys = canon
        .parent()
        .filter(|p| name_of(p).starts_with("nvme-subsys"));
    if let Some(s) = subsys {
        for n in sysfs::list(s) {
            let is_ctrl = n
                .strip_prefix("nvme")
                .is_some_and(|d| !d.is_empty() && d.bytes().all(|c| c.is_ascii_digit()));
            if is_ctrl {
                if let Ok(c) = std::fs::canonicalize(s.join(&n)) {
                    controllers.push(c);
                }
            }
        }
    }
    let Some(ctrl) = controllers.first().cloned() else {
        f.notes.push("NVMe controller not found in sysfs".into());
        return;
    };
    let attr_dir = subsys
        .map(Path::to_path_buf)
        .unwrap_or_else(|| ctrl.clone());
    let r = |a: &str| sysfs::read(&ctrl.join(a)).or_else(|| sysfs::read(&attr_dir.join(a)));
    let hw = &mut f.hardware;
    hw.model = r("model");
    hw.serial = r("serial");
    hw.firmware = r("firmware_rev");
    hw.rotation_rate_rpm = None;
    let transport = r("transport");
    hw.nvme = Some(NvmeInfo {
        controller: name_of(&ctrl),
        transport: transport.clone(),
        state: r("state"),
        address: r("address"),
    });
    if controllers.len() > 1 {
        f.notes.push(format!(
            "NVMe namespace reached through {} controllers (multipath)",
            controllers.len()
        ));
    }
    if transport.as_deref().is_some_and(|t| t != "pcie") {
        f.notes.push(format!(
            "NVMe over {}: the network path is not resolved here",
            transport.as_deref().unwrap_or("?")
        ));
    }
    let mut seen = Vec::new();
    for c in &controllers {
        let anc = sysfs::ancestors_within(c, devices);
        let links = pcie_links(&anc, &mut f.notes);
        if f.hardware.pcie.is_none() {
            // Nearest first: the first is the NVMe function's own link.
            f.hardware.pcie = links.first().map(|(_, p)| p.clone());
        }
        for (link, _) in links {
            if !seen.contains(&link.name) {
                seen.push(link.name.clone());
                f.links.push(link);
            }
        }
    }
}

/// MMC/SD card attributes (Documentation/mmc/mmc-dev-attrs.rst).
fn mmc(ancestors: &[PathBuf], f: &mut Found) {
    let Some(card) = ancestors.iter().find(|a| is_mmc_card(&name_of(a))) else {
        return;
    };
    let r = |a: &str| sysfs::read(&card.join(a));
    f.hardware.model = r("name");
    f.hardware.serial = r("serial");
    f.hardware.firmware = r("fwrev");
    f.hardware.vendor = r("manfid");
    f.notes.push(format!(
        "{}: the MMC/SD bus mode is not in sysfs (only debugfs ios), so no link ceiling",
        name_of(card)
    ));
}

/// PCIe links on the path, nearest the device first. PCI functions from the host bridge down are root port, then
/// alternately the device on a link and (in a switch) a downstream port. The link attributes
/// of the function below each link describe it (Documentation/ABI/testing/sysfs-bus-pci:
/// current_link_speed, current_link_width, max_link_speed, max_link_width).
/// Functions directly under the host bridge are root ports or integrated endpoints: no link.
pub fn pcie_links(ancestors: &[PathBuf], notes: &mut Vec<String>) -> Vec<(Link, PcieInfo)> {
    let mut funcs: Vec<&PathBuf> = ancestors
        .iter()
        .filter(|a| is_pci_function(&name_of(a)))
        .collect();
    funcs.reverse(); // host bridge side first
    let mut out = Vec::new();
    for (i, func) in funcs.iter().enumerate() {
        if i % 2 == 0 {
            continue;
        }
        let r = |a: &str| sysfs::read(&func.join(a));
        let speed = r("current_link_speed")
            .as_deref()
            .and_then(ceiling::leading_number);
        let width = r("current_link_width").and_then(|w| w.parse::<u32>().ok());
        let max_speed = r("max_link_speed")
            .as_deref()
            .and_then(ceiling::leading_number);
        let max_width = r("max_link_width").and_then(|w| w.parse::<u32>().ok());
        if speed.is_none() && width.is_none() {
            continue;
        }
        let info = PcieInfo {
            address: name_of(func),
            generation: speed.and_then(ceiling::pcie_generation),
            width,
            speed_gt_s: speed,
            max_generation: max_speed.and_then(ceiling::pcie_generation),
            max_width,
            max_speed_gt_s: max_speed,
        };
        let gen = |g: Option<u32>| g.map_or("Gen ?".to_string(), |g| format!("Gen{g}"));
        let detail = format!(
            "PCIe {} {} x{} (max {} {} x{})",
            gen(info.generation),
            fmt_rate(speed, "GT/s"),
            width.map_or("?".into(), |w| w.to_string()),
            gen(info.max_generation),
            fmt_rate(max_speed, "GT/s"),
            max_width.map_or("?".into(), |w| w.to_string()),
        );
        let below = |c: Option<_>, m: Option<_>| matches!((c, m), (Some(c), Some(m)) if c < m);
        if below(
            speed.map(|s| (s * 10.0) as u64),
            max_speed.map(|s| (s * 10.0) as u64),
        ) || below(width.map(u64::from), max_width.map(u64::from))
        {
            notes.push(format!(
                "PCIe link of {} runs below its maximum: {}",
                info.address, detail
            ));
        }
        let ceiling = match (speed.and_then(ceiling::pcie_lane_mb_per_s), width) {
            (Some(l), Some(w)) => Some(l * w as f64),
            _ => None,
        };
        out.push((
            Link {
                name: info.address.clone(),
                kind: "pcie".into(),
                detail,
                ceiling_mb_per_s: ceiling,
            },
            info,
        ));
    }
    out.reverse(); // nearest the device first
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert!(is_pci_function("0000:01:00.0"));
        assert!(!is_pci_function("pci0000:00"));
        assert!(!is_pci_function("0000:01:00"));
        assert!(is_ata_port("ata12"));
        assert!(!is_ata_port("ata_port"));
        assert!(is_mmc_card("mmc0:0001"));
    }

    #[test]
    fn vpd_pages() {
        let mut p80 = vec![0x00, 0x80, 0x00, 0x08];
        p80.extend_from_slice(b"ZFN0ABCD");
        assert_eq!(vpd_serial(&p80).as_deref(), Some("ZFN0ABCD"));
        assert_eq!(vpd_serial(&[0, 0x83, 0, 0]), None);
        let b1 = [0x00, 0xb1, 0x00, 0x3c, 0x1c, 0x20];
        assert_eq!(vpd_rotation(&b1), Some(7200));
        assert_eq!(vpd_rotation(&[0x00, 0xb1, 0x00, 0x3c, 0x00, 0x01]), Some(0));
    }
}
