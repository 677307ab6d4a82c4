//! Network mounts: which server, and which local interface carries the traffic to it.
//! Routes from `/proc/net/route` and `/proc/net/ipv6_route` (the main table; policy routing
//! rules are not consulted), interfaces from `/sys/class/net` (Documentation/ABI/testing/sysfs-class-net).

use crate::sysfs;
use serde::{Deserialize, Serialize};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::path::Path;

/// A local network interface.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NetInterface {
    pub name: String,
    /// Negotiated speed in Mb/s (`speed`); `None` when the driver does not say (virtual NICs,
    /// Wi-Fi, link down).
    pub speed_mbit: Option<u64>,
    pub duplex: Option<String>,
    pub mtu: Option<u64>,
    pub operstate: Option<String>,
    pub driver: Option<String>,
    /// Lives under `/sys/devices/virtual/net` (bridge, bond, VLAN, tunnel, loopback).
    pub is_virtual: bool,
    /// `lower_*` links: the interfaces under a bridge, bond or VLAN.
    pub lower: Vec<String>,
}

/// Read `/sys/class/net/NAME`.
pub fn read_interface(sys_root: &Path, name: &str) -> Option<NetInterface> {
    let dir = sys_root.join("class/net").join(name);
    let canon = std::fs::canonicalize(&dir).ok()?;
    let speed = sysfs::read(&dir.join("speed")).and_then(|s| s.parse::<i64>().ok());
    Some(NetInterface {
        name: name.to_string(),
        speed_mbit: speed.filter(|s| *s > 0).map(|s| s as u64),
        duplex: sysfs::read(&dir.join("duplex")),
        mtu: sysfs::read_u64(&dir.join("mtu")),
        operstate: sysfs::read(&dir.join("operstate")),
        driver: sysfs::link_name(&dir.join("device/driver")),
        is_virtual: canon.components().any(|c| c.as_os_str() == "virtual"),
        lower: sysfs::list(&dir)
            .into_iter()
            .filter_map(|n| n.strip_prefix("lower_").map(str::to_string))
            .collect(),
    })
}

/// The interface of the most specific route to `addr` (loopback addresses: `lo`).
pub fn route_interface(proc_root: &Path, addr: IpAddr) -> Option<String> {
    if addr.is_loopback() {
        return Some("lo".to_string());
    }
    match addr {
        IpAddr::V4(a) => route_v4(
            &std::fs::read_to_string(proc_root.join("net/route")).ok()?,
            a,
        ),
        IpAddr::V6(a) => route_v6(
            &std::fs::read_to_string(proc_root.join("net/ipv6_route")).ok()?,
            a,
        ),
    }
}

/// `/proc/net/route`: Iface, Destination, Gateway, Flags, RefCnt, Use, Metric, Mask, … with
/// addresses as hex of the in-memory (network order) u32, i.e. little-endian on x86.
pub fn route_v4(table: &str, addr: Ipv4Addr) -> Option<String> {
    let target = u32::from_ne_bytes(addr.octets());
    let mut best: Option<(u32, u32, String)> = None; // (prefix length, metric, iface)
    for line in table.lines().skip(1) {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() < 8 {
            continue;
        }
        let (Ok(dest), Ok(flags), Ok(metric), Ok(mask)) = (
            u32::from_str_radix(f[1], 16),
            u32::from_str_radix(f[3], 16),
            f[6].parse::<u32>(),
            u32::from_str_radix(f[7], 16),
        ) else {
            continue;
        };
        const RTF_UP: u32 = 0x1;
        const RTF_REJECT: u32 = 0x200;
        if flags & RTF_UP == 0 || flags & RTF_REJECT != 0 || target & mask != dest & mask {
            continue;
        }
        let plen = mask.count_ones();
        let better = best
            .as_ref()
            .is_none_or(|(bl, bm, _)| plen > *bl || (plen == *bl && metric < *bm));
        if better {
            best = Some((plen, metric, f[0].to_string()));
        }
    }
    best.map(|b| b.2)
}

/// `/proc/net/ipv6_route`: dest, dest prefix length, src, src prefix length, next hop, metric,
/// refcnt, use, flags, iface (hex, network order).
pub fn route_v6(table: &str, addr: Ipv6Addr) -> Option<String> {
    let target = u128::from_be_bytes(addr.octets());
    let mut best: Option<(u32, u32, String)> = None;
    for line in table.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() < 10 {
            continue;
        }
        let (Ok(dest), Ok(plen), Ok(metric), Ok(flags)) = (
            u128::from_str_radix(f[0], 16),
            u32::from_str_radix(f[1], 16),
            u32::from_str_radix(f[5], 16),
            u32::from_str_radix(f[8], 16),
        ) else {
            continue;
        };
        if flags & 0x1 == 0 || flags & 0x200 != 0 || f[9] == "lo" || plen > 128 {
            continue;
        }
        let mask = if plen == 0 {
            0
        } else {
            u128::MAX << (128 - plen)
        };
        if target & mask != dest & mask {
            continue;
        }
        let better = best
            .as_ref()
            .is_none_or(|(bl, bm, _)| plen > *bl || (plen == *bl && metric < *bm));
        if better {
            best = Some((plen, metric, f[9].to_string()));
        }
    }
    best.map(|b| b.2)
}

/// Server and export of a network mount from its source and super options.
/// NFS: `host:/export` or `[v6]:/export`, with `addr=` in the options.
/// SMB: `//host/share`, with `addr=`. SSHFS: `[user@]host:path`.
pub fn split_source(fstype: &str, source: &str) -> (Option<String>, Option<String>) {
    if let Some(rest) = source.strip_prefix("//") {
        let (host, share) = rest.split_once('/').unwrap_or((rest, ""));
        return (Some(host.to_string()), Some(format!("/{share}")));
    }
    let s = if fstype.starts_with("fuse.") {
        source.rsplit_once('@').map_or(source, |(_, h)| h)
    } else {
        source
    };
    if let Some(rest) = s.strip_prefix('[') {
        if let Some((host, path)) = rest.split_once("]:") {
            return (Some(host.to_string()), Some(path.to_string()));
        }
    }
    match s.split_once(':') {
        Some((host, path)) if !host.is_empty() => (Some(host.to_string()), Some(path.to_string())),
        _ => (None, None),
    }
}

/// The protocol of a network file system type, `None` for local ones.
pub fn network_protocol(fstype: &str) -> Option<&'static str> {
    match fstype {
        "nfs" | "nfs4" => Some("nfs"),
        "cifs" | "smb3" | "smbfs" => Some("smb"),
        "fuse.sshfs" | "sshfs" => Some("sshfs"),
        "ceph" => Some("ceph"),
        "fuse.glusterfs" | "glusterfs" => Some("glusterfs"),
        "9p" => Some("9p"),
        "fuse.rclone" => Some("rclone"),
        _ => None,
    }
}

/// Resolve a server name to an address: a literal, or (only when `allow_dns`) the resolver.
pub fn resolve(host: &str, allow_dns: bool) -> Option<IpAddr> {
    if let Ok(a) = host.parse::<IpAddr>() {
        return Some(a);
    }
    if !allow_dns {
        return None;
    }
    use std::net::ToSocketAddrs;
    (host, 0).to_socket_addrs().ok()?.next().map(|s| s.ip())
}

#[cfg(test)]
mod tests {
    use super::*;

    // Default route via 192.168.1.1 on eth0, 192.168.1.0/24 on eth0, 10.8.0.0/16 on wg0.
    const ROUTE: &str =
        "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT
eth0\t00000000\t0101A8C0\t0003\t0\t0\t100\t00000000\t0\t0\t0
eth0\t0001A8C0\t00000000\t0001\t0\t0\t100\t00FFFFFF\t0\t0\t0
wg0\t0000080A\t00000000\t0001\t0\t0\t0\t0000FFFF\t0\t0\t0
";

    #[test]
    fn v4_longest_prefix() {
        let r = |a: &str| route_v4(ROUTE, a.parse().expect("ip"));
        assert_eq!(r("192.168.1.10").as_deref(), Some("eth0"));
        assert_eq!(r("10.8.3.4").as_deref(), Some("wg0"));
        assert_eq!(r("8.8.8.8").as_deref(), Some("eth0"));
    }

    #[test]
    fn v6_longest_prefix() {
        let t = "\
00000000000000000000000000000000 00 00000000000000000000000000000000 00 fe800000000000000000000000000001 00000400 00000001 00000000 00000003 eth0
fd000000000000000000000000000000 08 00000000000000000000000000000000 00 00000000000000000000000000000000 00000100 00000001 00000000 00000001 wg0
";
        assert_eq!(
            route_v6(t, "fd12::5".parse().expect("ip")).as_deref(),
            Some("wg0")
        );
        assert_eq!(
            route_v6(t, "2001:db8::1".parse().expect("ip")).as_deref(),
            Some("eth0")
        );
    }

    #[test]
    fn sources() {
        assert_eq!(
            split_source("nfs4", "nas.lan:/export/data"),
            (Some("nas.lan".into()), Some("/export/data".into()))
        );
        assert_eq!(
            split_source("nfs", "[fd00::5]:/x"),
            (Some("fd00::5".into()), Some("/x".into()))
        );
        assert_eq!(
            split_source("cifs", "//nas/share"),
            (Some("nas".into()), Some("/share".into()))
        );
        assert_eq!(
            split_source("fuse.sshfs", "me@host.lan:/home/me"),
            (Some("host.lan".into()), Some("/home/me".into()))
        );
    }
}
