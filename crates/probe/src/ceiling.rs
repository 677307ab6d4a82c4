//! Theoretical payload ceilings of the links between a device and the CPU, in MB/s (10^6 B/s).
//!
//! Each figure is the line rate less the line coding, before protocol overhead (frame headers,
//! command phases), so a measured rate can approach it but not pass it. The sources are listed
//! in docs/info.md.

use serde::{Deserialize, Serialize};

/// One link on the path from the device to the CPU.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Link {
    /// The kernel's name for the link's device side: `ata1`, `2-1`, `0000:01:00.0`, `eth0`.
    pub name: String,
    /// `sata`, `sas`, `usb`, `pcie`, `nic`.
    pub kind: String,
    /// The negotiated mode in words: `6.0 Gb/s (device max 6.0 Gb/s)`, `8.0 GT/s x4`.
    pub detail: String,
    /// Payload limit in MB/s; `None` when the mode is unknown.
    pub ceiling_mb_per_s: Option<f64>,
}

/// SATA and SAS up to 12 Gb/s use 8b/10b coding: 10 line bits per payload byte.
/// SAS-4 (22.5 Gb/s) uses 128b/150b.
pub fn serial_scsi_ata_mb_per_s(gbit_per_s: f64) -> Option<f64> {
    if gbit_per_s.is_nan() || gbit_per_s <= 0.0 {
        return None;
    }
    if gbit_per_s > 20.0 {
        Some(gbit_per_s * 1e9 * 128.0 / 150.0 / 8.0 / 1e6)
    } else {
        Some(gbit_per_s * 100.0)
    }
}

/// USB by the `speed` the kernel reports (Mb/s) and the lane count (`rx_lanes`, 1 if unknown).
pub fn usb_mb_per_s(speed_mbit: f64, lanes: u32) -> Option<f64> {
    let lanes = lanes.max(1) as f64;
    match speed_mbit {
        s if s <= 0.0 => None,
        // Low speed: no bulk transfers at all, so no storage.
        s if s < 2.0 => None,
        // Full speed: at most 19 bulk packets of 64 bytes per 1 ms frame.
        s if s < 20.0 => Some(19.0 * 64.0 * 1000.0 / 1e6),
        // High speed: the bus allows 13 x 512-byte bulk packets per 125 us microframe
        // (53.2 MB/s), but real bridges top out near 40 MB/s, and the ceiling is the practical figure.
        s if s < 1000.0 => Some(40.0),
        // SuperSpeed Gen 1: 5 Gb/s with 8b/10b per lane (Gen 1x2 reports 10000 with 2 lanes).
        s if s < 6000.0 => Some(500.0 * lanes),
        s if s < 15000.0 && lanes >= 2.0 => Some(1000.0),
        // SuperSpeed+ Gen 2: 10 Gb/s per lane, 128b/132b.
        s => Some(s * 1e6 * 128.0 / 132.0 / 8.0 / 1e6),
    }
}

/// PCIe per-lane payload by transfer rate: Gen 1/2 use 8b/10b, Gen 3-5 128b/130b, Gen 6 FLIT
/// mode (242 payload bytes in 256).
pub fn pcie_lane_mb_per_s(gt_per_s: f64) -> Option<f64> {
    let bytes_per_s = if gt_per_s.is_nan() || gt_per_s <= 0.0 {
        return None;
    } else if gt_per_s < 6.0 {
        gt_per_s * 1e9 * 8.0 / 10.0 / 8.0
    } else if gt_per_s < 40.0 {
        gt_per_s * 1e9 * 128.0 / 130.0 / 8.0
    } else {
        gt_per_s * 1e9 / 8.0 * 242.0 / 256.0
    };
    Some(bytes_per_s / 1e6)
}

/// The PCIe generation for a transfer rate.
pub fn pcie_generation(gt_per_s: f64) -> Option<u32> {
    let gens = [
        (2.5, 1),
        (5.0, 2),
        (8.0, 3),
        (16.0, 4),
        (32.0, 5),
        (64.0, 6),
    ];
    gens.iter()
        .find(|(r, _)| (gt_per_s - r).abs() < 0.01)
        .map(|(_, g)| *g)
}

/// TCP payload over Ethernet: per frame of `mtu` bytes, 52 bytes are IP + TCP headers with
/// timestamps and 38 bytes of Ethernet framing (header 14, FCS 4, preamble 8, gap 12) are on
/// the wire around it. 1 Gb/s at MTU 1500 gives 117.7 MB/s.
pub fn nic_mb_per_s(speed_mbit: f64, mtu: Option<u64>) -> Option<f64> {
    if speed_mbit.is_nan() || speed_mbit <= 0.0 {
        return None;
    }
    let mtu = mtu.unwrap_or(1500).max(576) as f64;
    Some(speed_mbit * 1e6 / 8.0 * (mtu - 52.0) / (mtu + 38.0) / 1e6)
}

/// The lowest known ceiling among `links`.
pub fn lowest(links: &[Link]) -> Option<f64> {
    links
        .iter()
        .filter_map(|l| l.ceiling_mb_per_s)
        .fold(None, |acc: Option<f64>, c| {
            Some(acc.map_or(c, |a| a.min(c)))
        })
}

/// Parse a rate such as `6.0 Gbps`, `3.0 Gbit`, `8.0 GT/s PCIe`, `2.5 GT/s` to its number.
pub fn leading_number(s: &str) -> Option<f64> {
    let num: String = s
        .trim()
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    num.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: Option<f64>, b: f64, tol: f64) -> bool {
        a.is_some_and(|a| (a - b).abs() <= tol)
    }

    #[test]
    fn sata_generations() {
        assert!(close(serial_scsi_ata_mb_per_s(1.5), 150.0, 1e-9));
        assert!(close(serial_scsi_ata_mb_per_s(3.0), 300.0, 1e-9));
        assert!(close(serial_scsi_ata_mb_per_s(6.0), 600.0, 1e-9));
        assert!(close(serial_scsi_ata_mb_per_s(12.0), 1200.0, 1e-9));
        assert!(close(serial_scsi_ata_mb_per_s(22.5), 2400.0, 1e-6));
        assert_eq!(serial_scsi_ata_mb_per_s(0.0), None);
    }

    #[test]
    fn usb_modes() {
        assert!(close(usb_mb_per_s(12.0, 1), 1.216, 1e-9));
        assert!(close(usb_mb_per_s(480.0, 1), 40.0, 1e-9));
        assert!(close(usb_mb_per_s(5000.0, 1), 500.0, 1e-9));
        assert!(close(usb_mb_per_s(10000.0, 1), 1212.12, 0.01));
        assert!(close(usb_mb_per_s(10000.0, 2), 1000.0, 1e-9));
        assert!(close(usb_mb_per_s(20000.0, 2), 2424.24, 0.01));
        assert_eq!(usb_mb_per_s(1.5, 1), None);
    }

    #[test]
    fn pcie_lanes() {
        assert!(close(pcie_lane_mb_per_s(2.5), 250.0, 1e-9));
        assert!(close(pcie_lane_mb_per_s(5.0), 500.0, 1e-9));
        assert!(close(pcie_lane_mb_per_s(8.0), 984.615, 0.001));
        assert!(close(pcie_lane_mb_per_s(16.0), 1969.23, 0.01));
        assert!(close(pcie_lane_mb_per_s(32.0), 3938.46, 0.01));
        assert!(close(pcie_lane_mb_per_s(64.0), 7562.5, 0.01));
        assert_eq!(pcie_generation(8.0), Some(3));
        assert_eq!(pcie_generation(7.0), None);
    }

    #[test]
    fn nic_payload() {
        assert!(close(nic_mb_per_s(1000.0, Some(1500)), 117.7, 0.05));
        assert!(close(nic_mb_per_s(10000.0, Some(9000)), 1237.55, 0.01));
        assert_eq!(nic_mb_per_s(-1.0, Some(1500)), None);
    }

    #[test]
    fn lowest_ignores_unknown() {
        let l = |c| Link {
            name: "x".into(),
            kind: "k".into(),
            detail: String::new(),
            ceiling_mb_per_s: c,
        };
        assert_eq!(
            lowest(&[l(Some(600.0)), l(None), l(Some(500.0))]),
            Some(500.0)
        );
        assert_eq!(lowest(&[l(None)]), None);
    }

    #[test]
    fn numbers_from_kernel_strings() {
        assert_eq!(leading_number("6.0 Gbps"), Some(6.0));
        assert_eq!(leading_number("8.0 GT/s PCIe"), Some(8.0));
        assert_eq!(leading_number("2.5 GT/s"), Some(2.5));
        assert_eq!(leading_number("<unknown>"), None);
        assert_eq!(leading_number("Unknown"), None);
    }
}
