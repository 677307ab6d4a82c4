//! `drivescope info` as text: a target's path down to the device with each layer, the devices' hardware,
//! the links with their ceilings and the notes; or the listing of every block device, one row each.

use drivescope_probe::block::{BlockInfo, BlockRole};
use drivescope_probe::{Identity, Node};
use drivescope_record::InfoRecord;
use drivescope_units::{format_rate, format_size};
use std::fmt::Write as _;

/// The text of an info record: the description of its target, or the listing of its devices.
pub fn info(rec: &InfoRecord) -> String {
    let mut out = String::new();
    if let Some(id) = &rec.identity {
        out += &describe(id);
    }
    if let Some(list) = &rec.devices {
        out += &table(list);
    }
    out
}

fn opt<T: std::fmt::Display>(v: &Option<T>) -> String {
    v.as_ref().map_or("—".to_string(), |v| v.to_string())
}

fn mbps(v: Option<f64>) -> String {
    v.map_or("unknown".to_string(), format_rate)
}

fn size(v: Option<u64>) -> String {
    v.map_or("—".to_string(), |b| {
        format!("{} ({b} bytes)", format_size(b))
    })
}

fn list_or_dash(v: &[String]) -> String {
    if v.is_empty() {
        "—".into()
    } else {
        v.join(", ")
    }
}

/// One line for a layer of the chain.
fn node_line(n: &Node) -> String {
    match n {
        Node::File {
            path,
            size_bytes,
            reachable,
        } => {
            let mut s = format!("file {}", path.display());
            if let Some(b) = size_bytes {
                let _ = write!(s, " ({})", format_size(*b));
            }
            if !reachable {
                s.push_str(" (not reachable from here; resolved by path)");
            }
            s
        }
        Node::Directory { path } => format!("directory {}", path.display()),
        Node::Filesystem {
            fstype,
            mount_point,
            source,
            major_minor,
            ..
        } => format!(
            "{fstype} mounted on {} (source {source}, dev {major_minor})",
            mount_point.display()
        ),
        Node::Network {
            protocol,
            server,
            address,
            export,
            interface,
        } => {
            let mut s = format!("{protocol} server {}", opt(server));
            if let Some(a) = address {
                let _ = write!(s, " ({a})");
            }
            if let Some(e) = export {
                let _ = write!(s, " export {e}");
            }
            if let Some(i) = interface {
                let _ = write!(
                    s,
                    " via {} ({})",
                    i.name,
                    i.speed_mbit
                        .map_or("speed unknown".to_string(), |v| format!("{v} Mb/s"))
                );
            }
            s
        }
        Node::Block(b) => block_line(b),
        Node::Null => "null target: no device, measures the instrument itself".into(),
    }
}

fn block_line(b: &BlockInfo) -> String {
    let mut s = format!(
        "{} ({}) {} {}",
        b.name,
        b.dev_path.display(),
        match b.role {
            BlockRole::Disk => "disk",
            BlockRole::Partition => "partition",
            BlockRole::Loop => "loop device",
            BlockRole::Dm => "device-mapper",
            BlockRole::Md => "md RAID",
            BlockRole::Zram => "zram",
        },
        b.size_bytes.map_or("size unknown".into(), format_size)
    );
    if b.role == BlockRole::Disk {
        let _ = write!(s, ", {}", b.transport.as_str());
    }
    if let Some(p) = &b.partition {
        let _ = write!(s, ", #{} of {}", opt(&p.number), p.parent);
    }
    if let Some(l) = &b.loop_dev {
        let _ = write!(
            s,
            ", direct I/O {}",
            l.direct_io.map_or("?", |d| if d { "on" } else { "off" })
        );
    }
    if let Some(d) = &b.dm {
        let _ = write!(s, ", name {}", opt(&d.name));
    }
    if let Some(m) = &b.md {
        let _ = write!(s, ", {}", opt(&m.level));
    }
    if let Some(z) = &b.zram {
        let _ = write!(s, ", {}", opt(&z.comp_algorithm));
    }
    if !b.mount_points.is_empty() {
        let mps: Vec<String> = b
            .mount_points
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        let _ = write!(s, ", mounted on {}", mps.join(", "));
    }
    s
}

fn chain(id: &Identity, i: usize, depth: usize, out: &mut String, seen: &mut Vec<usize>) {
    let Some(layer) = id.layers.get(i) else {
        return;
    };
    let prefix = if depth == 0 {
        String::new()
    } else {
        format!("{}└─ ", "   ".repeat(depth - 1))
    };
    let _ = writeln!(out, "  {prefix}{}", node_line(&layer.node));
    if seen.contains(&i) {
        return;
    }
    seen.push(i);
    for &b in &layer.below {
        chain(id, b, depth + 1, out, seen);
    }
}

/// What each block device in the chain says of its write cache: the kernel's `queue/write_cache`
/// and `queue/fua`, and a power-loss protection where something declares one.
fn cache_word(id: &Identity, out: &mut String) {
    let said: Vec<&BlockInfo> = id
        .block_devices()
        .filter(|b| b.write_cache.is_some() || b.fua.is_some())
        .collect();
    if said.is_empty() {
        return;
    }
    let _ = writeln!(out, "\nwrite cache (the kernel's word):");
    for b in said {
        let plp = match b.loop_dev.as_ref().and_then(|l| l.power_loss_protection) {
            Some(true) => ", power-loss protection declared",
            Some(false) => ", no power-loss protection declared",
            None => "",
        };
        let _ = writeln!(
            out,
            "  {}: {}, FUA {}{plp}",
            b.name,
            b.write_cache.as_deref().unwrap_or("unknown"),
            match b.fua {
                Some(true) => "yes",
                Some(false) => "no",
                None => "unknown",
            }
        );
    }
}

fn device_block(b: &BlockInfo, out: &mut String) {
    let Some(hw) = &b.hardware else { return };
    let mut rows: Vec<(&str, String)> = vec![
        ("device", b.dev_path.display().to_string()),
        ("transport", b.transport.as_str().to_string()),
        ("vendor", opt(&hw.vendor)),
        ("model", opt(&hw.model)),
        ("serial", opt(&hw.serial)),
        ("firmware", opt(&hw.firmware)),
        ("wwn", opt(&hw.wwn)),
        ("capacity", size(b.size_bytes)),
        (
            "sectors",
            format!(
                "logical {} B, physical {} B",
                opt(&b.logical_sector_size),
                opt(&b.physical_sector_size)
            ),
        ),
        (
            "rotational",
            match (b.rotational, hw.rotation_rate_rpm) {
                (_, Some(0)) => "no (solid state)".into(),
                (_, Some(r)) => format!("yes, {r} rpm"),
                (Some(true), None) => "yes (rate unknown)".into(),
                (Some(false), None) => "no".into(),
                (None, None) => "—".into(),
            },
        ),
        ("queue depth", opt(&hw.queue_depth)),
        ("nr_requests", opt(&b.nr_requests)),
        (
            "NCQ",
            match (hw.ncq, hw.ncq_supported) {
                (Some(on), sup) => format!(
                    "{}{}",
                    if on { "on" } else { "off" },
                    match sup {
                        Some(true) => " (drive supports it)",
                        Some(false) => " (drive lacks it)",
                        None => "",
                    }
                ),
                (None, _) => "—".into(),
            },
        ),
        ("scheduler", opt(&b.scheduler)),
        ("write cache", opt(&b.write_cache)),
        (
            "FUA",
            match b.fua {
                Some(true) => "yes".into(),
                Some(false) => "no".into(),
                None => "—".into(),
            },
        ),
    ];
    if let Some(p) = b.loop_dev.as_ref().and_then(|l| l.power_loss_protection) {
        let said = if p {
            "declared (lab disk)"
        } else {
            "none declared (lab disk)"
        };
        rows.push(("power-loss protection", said.into()));
    }
    if let Some(s) = &hw.sata {
        rows.push((
            "SATA link",
            format!(
                "{}: {} Gb/s (drive max {} Gb/s)",
                s.link,
                opt(&s.speed_gbps),
                opt(&s.drive_max_gbps)
            ),
        ));
    }
    if let Some(u) = &hw.usb {
        rows.push((
            "USB",
            format!(
                "{} {} {}: {} Mb/s, USB {}, driver {} ({})",
                u.device,
                opt(&u.manufacturer),
                opt(&u.product),
                opt(&u.speed_mbit),
                opt(&u.usb_version),
                opt(&u.driver),
                match u.queueing {
                    Some(true) => "command queueing",
                    Some(false) => "no command queueing",
                    None => "queueing unknown",
                }
            ),
        ));
    }
    if let Some(p) = &hw.pcie {
        rows.push((
            "PCIe",
            format!(
                "{}: Gen{} x{} (max Gen{} x{})",
                p.address,
                opt(&p.generation),
                opt(&p.width),
                opt(&p.max_generation),
                opt(&p.max_width)
            ),
        ));
    }
    if let Some(n) = &hw.nvme {
        rows.push((
            "NVMe",
            format!(
                "controller {}, transport {}, state {}",
                n.controller,
                opt(&n.transport),
                opt(&n.state)
            ),
        ));
    }
    rows.push(("partitions", list_or_dash(&b.partitions)));
    rows.push(("holders", list_or_dash(&b.holders)));
    match &hw.smart {
        Some(s) if s.read => {
            rows.push((
                "SMART",
                format!(
                    "health {}, {} °C, {} power-on hours",
                    s.passed
                        .map_or("unknown", |p| if p { "passed" } else { "FAILED" }),
                    opt(&s.temperature_c),
                    opt(&s.power_on_hours)
                ),
            ));
            if s.reallocated_sectors.is_some() || s.pending_sectors.is_some() {
                rows.push((
                    "",
                    format!(
                        "reallocated sectors {}, pending sectors {}",
                        opt(&s.reallocated_sectors),
                        opt(&s.pending_sectors)
                    ),
                ));
            }
            if s.media_errors.is_some() || s.percentage_used.is_some() {
                rows.push((
                    "",
                    format!(
                        "media errors {}, percentage used {} %",
                        opt(&s.media_errors),
                        opt(&s.percentage_used)
                    ),
                ));
            }
        }
        Some(s) => rows.push(("SMART", opt(&s.note))),
        None => rows.push(("SMART", "not read (--no-smart)".into())),
    }
    let _ = writeln!(out, "\n{}:", b.name);
    for (k, v) in rows {
        let _ = writeln!(out, "  {k:<12} {v}");
    }
}

/// The human description of one identity.
pub fn describe(id: &Identity) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} ({})",
        id.target.display(),
        serde_json::to_value(id.kind)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default()
            .replace('_', " ")
    );
    let _ = writeln!(out, "\npath:");
    chain(id, 0, 0, &mut out, &mut Vec::new());
    for b in id.devices() {
        device_block(b, &mut out);
    }
    cache_word(id, &mut out);
    let _ = writeln!(out, "\nlinks (nearest the device first):");
    if id.links.is_empty() {
        let _ = writeln!(out, "  none known");
    }
    let nw = id.links.iter().map(|l| l.name.len()).max().unwrap_or(0);
    for l in &id.links {
        let _ = writeln!(
            out,
            "  {:<nw$}  {:<5} {:>14}  {}",
            l.name,
            l.kind,
            mbps(l.ceiling_mb_per_s),
            l.detail
        );
    }
    let _ = writeln!(
        out,
        "\npath ceiling: {}{}",
        mbps(id.path_ceiling_mb_per_s),
        id.bottleneck().map_or(String::new(), |l| format!(
            " (set by {} {})",
            l.kind, l.name
        ))
    );
    if !id.notes.is_empty() {
        let _ = writeln!(out, "\nnotes:");
        for n in &id.notes {
            let _ = writeln!(out, "  - {n}");
        }
    }
    out
}

/// The listing: one row per block device.
pub fn table(list: &[Identity]) -> String {
    let header = [
        "NAME",
        "SIZE",
        "TRANSPORT",
        "ROTA",
        "MODEL",
        "SERIAL",
        "CEILING",
    ];
    let mut rows: Vec<[String; 7]> = vec![header.map(String::from)];
    for id in list {
        let Some(b) = id.target_block() else { continue };
        let hw = b.hardware.as_ref();
        rows.push([
            b.name.clone(),
            b.size_bytes.map_or("—".into(), format_size),
            b.transport.as_str().to_string(),
            b.rotational
                .map_or("—".into(), |r| if r { "1" } else { "0" }.to_string()),
            hw.map_or("—".into(), |h| opt(&h.model)),
            hw.map_or("—".into(), |h| opt(&h.serial)),
            id.path_ceiling_mb_per_s
                .map_or("—".into(), |c| format!("{c:.0} MB/s")),
        ]);
    }
    let mut w = [0usize; 7];
    for r in &rows {
        for (i, c) in r.iter().enumerate() {
            w[i] = w[i].max(c.chars().count());
        }
    }
    let mut out = String::new();
    for r in &rows {
        let mut line = String::new();
        for (i, c) in r.iter().enumerate() {
            let pad = w[i] - c.chars().count();
            line.push_str(c);
            if i + 1 < r.len() {
                line.push_str(&" ".repeat(pad + 2));
            }
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample;

    #[test]
    fn listing_lines_up_one_row_per_device() {
        let rec =
            InfoRecord::of_devices(vec![sample::device(1, 1 << 40), sample::device(2, 4 << 40)]);
        let text = info(&rec);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert!(
            lines[0].starts_with("NAME  SIZE     TRANSPORT  ROTA  MODEL"),
            "{text}"
        );
        let col = lines[0].find("MODEL").unwrap();
        assert_eq!(lines[1].find("ACME HD4001"), Some(col), "{text}");
        assert_eq!(lines[2].find("ACME HD4002"), Some(col), "{text}");
        assert!(
            lines[2].contains(" 4.0 TiB ") && lines[2].ends_with("—"),
            "{text}"
        );
    }

    #[test]
    fn description_names_the_path_the_hardware_and_the_ceiling() {
        let text = info(&InfoRecord::of_target(sample::device(3, 1 << 40)));
        for line in [
            "/dev/sdx (block device)\n\npath:\n  sdx (/dev/sdx) disk 1.0 TiB, sata\n",
            "\nsdx:\n  device       /dev/sdx\n  transport    sata\n  vendor       ACME\n",
            "\n  model        ACME HD4003\n  serial       SAMPLE-0003\n",
            "\n  capacity     1.0 TiB (1099511627776 bytes)\n",
            "\n  rotational   yes, 7200 rpm\n",
            "\n  SMART        not read (--no-smart)\n",
            "\nlinks (nearest the device first):\n  none known\n\npath ceiling: unknown\n",
        ] {
            assert!(text.contains(line), "{line:?} not in\n{text}");
        }
    }
}
