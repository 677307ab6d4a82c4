//! A lab flash disk's SMART, as `smartctl --json` would print it for a Crucial/Micron SSD: the
//! flash model's current page counters as ATA attributes 246 `Total_LBAs_Written` (the host's
//! pages in 512-byte sectors), 247 `Host_Program_Page_Count` (pages the host wrote) and 248
//! `FTL_Program_Page_Count` (pages the translation layer programmed on its own: the collector's
//! copies, in the foreground or while idle). Its write amplification over an interval is
//! (Δ247 + Δ248) / Δ247, the model's own [`Counters::write_amplification`].
//!
//! The FUSE file system serves it as [`SMART_NAME`] beside the image of a disk with a `flash`
//! section, where the probe reads it for the loop device over that image (smartctl cannot reach
//! a loop device).

use crate::flash::Counters;
use serde_json::json;

/// The file name the document is served under, beside `disk.img`.
pub const SMART_NAME: &str = "smart.json";

/// The served disk's attribute table entry for `id`, `name` with `raw`.
fn attribute(id: u64, name: &str, raw: u64) -> serde_json::Value {
    json!({
        "id": id,
        "name": name,
        "value": 100,
        "worst": 100,
        "thresh": 0,
        "when_failed": "",
        "raw": { "value": raw, "string": raw.to_string() }
    })
}

/// The document for a disk named `name` of `size` bytes with flash pages of `page` bytes, whose
/// model has counted `c` so far.
pub fn document(name: &str, size: u64, page: u64, c: &Counters) -> String {
    let media = c.foreground_media_pages + c.idle_media_pages;
    let v = json!({
        "json_format_version": [1, 0],
        "smartctl": { "version": [7, 3], "argv": ["smartctl", "--json", "-a"], "exit_status": 0 },
        "device": { "name": "disk.img", "type": "lab", "protocol": "ATA" },
        "model_family": "drivescope lab flash model (Crucial/Micron-style attributes)",
        "model_name": name,
        "user_capacity": { "bytes": size },
        "logical_block_size": 512,
        "rotation_rate": 0,
        "smart_status": { "passed": true },
        "ata_smart_attributes": {
            "revision": 16,
            "table": [
                attribute(246, "Total_LBAs_Written", c.host_pages * page / 512),
                attribute(247, "Host_Program_Page_Count", c.host_pages),
                attribute(248, "FTL_Program_Page_Count", media.saturating_sub(c.host_pages)),
            ]
        }
    });
    format!("{v:#}\n")
}

#[cfg(test)]
#[path = "flash_smart_tests.rs"]
mod tests;
