//! SMART through `smartctl --json` (smartmontools). drivescope never sends SMART commands itself.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// What SMART said, or why it was not read. Fields a document of an older version lacks read as none.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Smart {
    /// True when smartctl produced health data for the device.
    pub read: bool,
    /// Why SMART was not read, or what smartctl complained about.
    pub note: Option<String>,
    pub model: Option<String>,
    pub serial: Option<String>,
    pub firmware: Option<String>,
    /// `rotation_rate`: 0 for solid state, else rpm.
    pub rotation_rate_rpm: Option<u64>,
    /// Overall health assessment (`smart_status.passed`).
    pub passed: Option<bool>,
    pub temperature_c: Option<i64>,
    pub power_on_hours: Option<u64>,
    /// ATA attribute 5, raw value.
    pub reallocated_sectors: Option<u64>,
    /// ATA attribute 197, raw value.
    pub pending_sectors: Option<u64>,
    /// ATA attribute 198 (`Offline_Uncorrectable`), raw value: sectors the drive's own offline scan could not
    /// read.
    pub offline_uncorrectable: Option<u64>,
    /// ATA attribute 199 (`UDMA_CRC_Error_Count`), raw value: transfers the link garbled (a cable or
    /// connector, not the medium).
    pub crc_errors: Option<u64>,
    /// NVMe health log.
    pub media_errors: Option<u64>,
    pub percentage_used: Option<u64>,
    /// NVMe health log `critical_warning`: a bit set per warning (0 spare below threshold, 1 temperature,
    /// 2 reliability degraded, 3 read only, 4 volatile memory backup failed, 5 persistent memory read only).
    pub critical_warning: Option<u64>,
}

pub const NOT_INSTALLED: &str =
    "smartctl not installed (apt install smartmontools) — SMART not read";

/// Is `smartctl` on PATH?
pub fn smartctl_path() -> Option<std::path::PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("smartctl"))
        .find(|p| p.is_file())
}

/// Run `smartctl --json -a DEV` (read-only: it only sends identify and log reads).
pub fn read_smart(dev: &Path) -> Smart {
    let Some(bin) = smartctl_path() else {
        return Smart {
            note: Some(NOT_INSTALLED.to_string()),
            ..Smart::default()
        };
    };
    let out = match Command::new(bin).arg("--json").arg("-a").arg(dev).output() {
        Ok(o) => o,
        Err(e) => {
            return Smart {
                note: Some(format!("smartctl could not be run: {e}")),
                ..Smart::default()
            }
        }
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let mut smart = parse_smartctl_json(&text);
    // Exit status bits 0-1: command line not parsed / device open failed (smartctl(8)).
    let code = out.status.code().unwrap_or(-1);
    if code < 0 || code & 0b11 != 0 {
        let why = smart
            .note
            .take()
            .unwrap_or_else(|| format!("exit status {code}"));
        // smartctl's messages often name the device already.
        let dev = dev.display().to_string();
        let why = why.strip_prefix(&format!("{dev}: ")).unwrap_or(&why);
        smart.note = Some(format!("smartctl {dev}: {why}"));
    }
    smart
}

fn u(v: &Value, path: &[&str]) -> Option<u64> {
    path.iter().try_fold(v, |v, k| v.get(k))?.as_u64()
}

fn i(v: &Value, path: &[&str]) -> Option<i64> {
    path.iter().try_fold(v, |v, k| v.get(k))?.as_i64()
}

fn s(v: &Value, key: &str) -> Option<String> {
    v.get(key)?.as_str().map(|s| s.trim().to_string())
}

/// Parse smartctl's JSON output (keys as documented by smartmontools' JSON format).
pub fn parse_smartctl_json(text: &str) -> Smart {
    let v: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            return Smart {
                note: Some(format!("smartctl output is not JSON: {e}")),
                ..Smart::default()
            }
        }
    };
    let attr = |id: u64| -> Option<u64> {
        v.get("ata_smart_attributes")?
            .get("table")?
            .as_array()?
            .iter()
            .find(|a| a.get("id").and_then(Value::as_u64) == Some(id))
            .and_then(raw_count)
    };
    let nvme = v.get("nvme_smart_health_information_log");
    let errors: Vec<String> = v
        .get("smartctl")
        .and_then(|s| s.get("messages"))
        .and_then(Value::as_array)
        .map(|m| {
            m.iter()
                .filter(|m| m.get("severity").and_then(Value::as_str) == Some("error"))
                .filter_map(|m| m.get("string").and_then(Value::as_str).map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let mut smart = Smart {
        read: false,
        note: (!errors.is_empty()).then(|| errors.join("; ")),
        model: s(&v, "model_name"),
        serial: s(&v, "serial_number"),
        firmware: s(&v, "firmware_version"),
        rotation_rate_rpm: u(&v, &["rotation_rate"]),
        passed: v
            .get("smart_status")
            .and_then(|s| s.get("passed"))
            .and_then(Value::as_bool),
        temperature_c: i(&v, &["temperature", "current"])
            .or_else(|| nvme.and_then(|n| i(n, &["temperature"]))),
        power_on_hours: u(&v, &["power_on_time", "hours"])
            .or_else(|| nvme.and_then(|n| u(n, &["power_on_hours"]))),
        reallocated_sectors: attr(5),
        pending_sectors: attr(197),
        offline_uncorrectable: attr(198),
        crc_errors: attr(199),
        media_errors: nvme.and_then(|n| u(n, &["media_errors"])),
        percentage_used: nvme.and_then(|n| u(n, &["percentage_used"])),
        critical_warning: nvme.and_then(|n| u(n, &["critical_warning"])),
    };
    smart.read = smart.passed.is_some()
        || smart.temperature_c.is_some()
        || smart.power_on_hours.is_some()
        || smart.reallocated_sectors.is_some()
        || smart.media_errors.is_some();
    smart
}

/// An attribute's count: the raw value as smartctl prints it when that is a plain number, else the raw
/// 48-bit value. Some firmware packs more into the raw bytes (`"2111 (12437 0)"`); the printed leading number is
/// the count smartctl's own table shows.
fn raw_count(a: &Value) -> Option<u64> {
    let raw = a.get("raw")?;
    let printed = raw
        .get("string")
        .and_then(Value::as_str)
        .and_then(|s| s.split_whitespace().next())
        .and_then(|n| n.parse::<u64>().ok());
    printed.or_else(|| raw.get("value")?.as_u64())
}
