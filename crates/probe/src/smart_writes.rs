//! Host and media (NAND) writes from a `smartctl --json` document, and the write amplification
//! between two readings.
//!
//! ATA drives that count both carry them as vendor attributes, recognised here by the names
//! smartmontools' drive database (`drivedb.h`) gives them, each with the unit its name states:
//!
//! | host | media | drives (drivedb families) |
//! |---|---|---|
//! | 247 `Host_Program_Page_Count` | 247 + 248 `FTL_Program_Page_Count` / `Bckgnd_Program_Page_Cnt` | Crucial/Micron client, Micron 5100/52x0/5300/5400, M500DC (NAND pages: the host's, and those the drive's own translation layer programmed) |
//! | 241/225 `Host_Writes_32MiB` | 243 `NAND_Writes_32MiB`, 249 `NAND_Writes_1GiB`, 245 `TLC_Writes_32MiB` | Intel DC S35x0/S3610/S3700/S45x0/S46x0, Intel 520/53x/540/545s, Silicon Motion |
//! | 241 `Lifetime_Writes_GiB`, `Host_Writes_GiB` | 233 `Flash_Writes_GiB`, `Total_NAND_Writes_GiB`, 249 `NAND_Writes_GiB` | Phison (Kingston A400, KC400), SanDisk, Kingston |
//! | 241/246 `Total_LBAs_Written` (logical sectors) | 251 `NAND_Writes`: no unit in the database | Samsung PM863/PM883/PM893 |
//!
//! NVMe's health log counts host writes only (`data_units_written`, units of 1000 × 512 bytes);
//! a drive's media writes live in vendor log pages smartctl does not put in its JSON, so an NVMe
//! drive's reading has a host counter and no media counter.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Host writes smaller than this many units of the counter's resolution leave the write
/// amplification inconclusive: one unit either side would move it by more than 1 %, and the
/// counters' own rounding could not tell a 10 % difference on short intervals.
pub const MIN_HOST_UNITS: u64 = 100;

/// The unit of a counter whose name says "pages": the drive's NAND page, a size it does not state.
pub const PAGE: &str = "NAND page";

/// One cumulative write counter as the document gave it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counter {
    /// Where it came from: `"247 Host_Program_Page_Count"` (ATA attribute id and name) or
    /// `"nvme data_units_written"`.
    pub source: String,
    /// The raw count.
    pub raw: u64,
    /// Bytes in one unit of the count (its resolution); None for NAND pages of a size the drive
    /// does not state.
    pub unit_bytes: Option<u64>,
    /// The unit in words (`"32 MiB"`, `"512-byte logical sector"`, `"NAND page"`).
    pub unit: String,
}

/// What one document says of the drive's cumulative writes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SmartWrites {
    /// True when a document was read (SMART or the lab's file).
    pub read: bool,
    /// Why not, or what the document lacks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Host writes, in the unit the write amplification is taken in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<Counter>,
    /// Host writes in bytes where `host` counts pages (`Total_LBAs_Written` beside 247).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_sectors: Option<Counter>,
    /// Media writes: the sum of these counters (Micron: host pages and the FTL's own pages).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub media: Vec<Counter>,
}

/// The write amplification between two readings, or why it cannot be told.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct WriteInterval {
    /// Host writes over the interval, in bytes (where the counters' unit is known).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_bytes: Option<u64>,
    /// Media writes over the interval, in bytes (where known; for page counters, host bytes × WA).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub media_bytes: Option<u64>,
    /// Growth of the host counter, in its units.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_units: Option<u64>,
    /// Growth of the media counters, in their unit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub media_units: Option<u64>,
    /// Media writes over host writes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wa: Option<f64>,
    /// The counters used, e.g. `"(247 + 248) / 247, NAND pages"`.
    pub counters: String,
    /// Why no write amplification: SMART not read, no media counter, a counter that went back,
    /// too few host units to resolve it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inconclusive: Option<String>,
}

const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;

/// Host counters by name, in the order they are preferred, with bytes per unit (None: logical
/// sectors of the document's `logical_block_size`).
const HOST: [(&str, Option<u64>, &str); 5] = [
    ("Host_Writes_32MiB", Some(32 * MIB), "32 MiB"),
    ("Host_Writes_GiB", Some(GIB), "GiB"),
    ("Lifetime_Writes_GiB", Some(GIB), "GiB"),
    ("Host_Writes_MiB", Some(MIB), "MiB"),
    // Last: Dell's firmware of the Intel S3520 names 241 so and counts it in 32 MiB, as its 225
    // Host_Writes_32MiB beside it shows; the named 32 MiB counter is taken first.
    ("Total_LBAs_Written", None, "logical sector"),
];

/// Media counters by name with bytes per unit (None with `PAGE`: NAND pages; None otherwise: no
/// unit known).
const MEDIA: [(&str, Option<u64>, &str); 9] = [
    ("NAND_Writes_32MiB", Some(32 * MIB), "32 MiB"),
    ("TLC_Writes_32MiB", Some(32 * MIB), "32 MiB"),
    ("Flash_Writes_32MiB", Some(32 * MIB), "32 MiB"),
    ("NAND_Writes_1GiB", Some(GIB), "GiB"),
    ("NAND_Writes_GiB", Some(GIB), "GiB"),
    ("Flash_Writes_GiB", Some(GIB), "GiB"),
    ("Total_NAND_Writes_GiB", Some(GIB), "GiB"),
    ("FTL_Program_Page_Count", None, PAGE),
    ("Bckgnd_Program_Page_Cnt", None, PAGE),
];

/// Media counters whose unit the drive database does not state: seen, not used.
const MEDIA_NO_UNIT: [&str; 1] = ["NAND_Writes"];

/// The NVMe health log's data unit: 1000 sectors of 512 bytes.
pub const NVME_DATA_UNIT: u64 = 512_000;

/// The write counters of a `smartctl --json` document.
pub fn parse(text: &str) -> SmartWrites {
    match serde_json::from_str::<Value>(text) {
        Ok(v) => of_value(&v),
        Err(e) => SmartWrites {
            note: Some(format!("not JSON: {e}")),
            ..SmartWrites::default()
        },
    }
}

/// The write counters of a parsed `smartctl --json` document.
pub fn of_value(v: &Value) -> SmartWrites {
    let mut w = SmartWrites {
        read: true,
        ..SmartWrites::default()
    };
    if let Some(units) = v
        .get("nvme_smart_health_information_log")
        .and_then(|n| n.get("data_units_written"))
        .and_then(Value::as_u64)
    {
        w.host = Some(Counter {
            source: "nvme data_units_written".into(),
            raw: units,
            unit_bytes: Some(NVME_DATA_UNIT),
            unit: "1000 × 512 bytes".into(),
        });
        w.note = Some(
            "NVMe's health log counts host writes only; media writes live in vendor log pages \
             smartctl's JSON does not carry"
                .into(),
        );
        return w;
    }
    let table: Vec<&Value> = v
        .get("ata_smart_attributes")
        .and_then(|a| a.get("table"))
        .and_then(Value::as_array)
        .map(|t| t.iter().collect())
        .unwrap_or_default();
    let sector = v
        .get("logical_block_size")
        .and_then(Value::as_u64)
        .unwrap_or(512);
    let find = |name: &str| -> Option<Counter> {
        // Where two ids carry one name (Intel's 225 and 241), the highest id is the one the
        // database documents for the family.
        let a = table
            .iter()
            .filter(|a| a.get("name").and_then(Value::as_str) == Some(name))
            .max_by_key(|a| a.get("id").and_then(Value::as_u64))?;
        Some(Counter {
            source: format!("{} {name}", a.get("id").and_then(Value::as_u64)?),
            raw: a.get("raw")?.get("value")?.as_u64()?,
            unit_bytes: None,
            unit: String::new(),
        })
    };
    let lbas = find("Total_LBAs_Written").map(|c| Counter {
        unit_bytes: Some(sector),
        unit: format!("{sector}-byte logical sector"),
        ..c
    });
    let pages: Vec<Counter> = MEDIA
        .iter()
        .filter(|m| m.2 == PAGE)
        .filter_map(|m| find(m.0))
        .map(|c| Counter {
            unit: PAGE.into(),
            ..c
        })
        .collect();
    if let Some(host) = find("Host_Program_Page_Count") {
        let host = Counter {
            unit: PAGE.into(),
            ..host
        };
        w.media = std::iter::once(host.clone()).chain(pages).collect();
        if w.media.len() == 1 {
            w.media.clear();
            w.note = Some(format!(
                "{} counts the host's pages, and no counter of the drive's own pages is shown",
                host.source
            ));
        }
        w.host = Some(host);
        w.host_sectors = lbas;
        return w;
    }
    w.host = HOST.iter().find_map(|(name, bytes, unit)| {
        let c = find(name)?;
        Some(match bytes {
            Some(b) => Counter {
                unit_bytes: Some(*b),
                unit: (*unit).into(),
                ..c
            },
            None => lbas.clone()?,
        })
    });
    w.media = MEDIA
        .iter()
        .filter(|m| m.2 != PAGE)
        .find_map(|(name, bytes, unit)| {
            Some(Counter {
                unit_bytes: *bytes,
                unit: (*unit).into(),
                ..find(name)?
            })
        })
        .into_iter()
        .collect();
    if w.media.is_empty() {
        let no_unit = MEDIA_NO_UNIT.iter().find_map(|n| find(n));
        let pages_only = (!pages.is_empty()).then(|| pages[0].source.clone());
        w.note = Some(match (&w.host, no_unit, pages_only) {
            (_, Some(c), _) => format!(
                "{} counts media writes in a unit smartmontools' drive database does not state",
                c.source
            ),
            (_, _, Some(p)) => format!("{p} is shown without the host's page count (247)"),
            (Some(h), _, _) => format!("host writes ({}) and no media write counter", h.source),
            (None, _, _) => "no host or media write counter".into(),
        });
    }
    w
}

fn sum(cs: &[Counter]) -> u64 {
    cs.iter().map(|c| c.raw).sum()
}

/// The write amplification from `before` to `after` (two readings of one drive).
pub fn interval(before: &SmartWrites, after: &SmartWrites) -> WriteInterval {
    let mut out = WriteInterval::default();
    let fail = |mut o: WriteInterval, why: String| {
        o.inconclusive = Some(why);
        o
    };
    for (w, when) in [(before, "before"), (after, "after")] {
        if !w.read {
            let why = w.note.clone().unwrap_or_else(|| "no reading".into());
            return fail(out, format!("SMART not read {when} the rounds: {why}"));
        }
    }
    let (Some(h0), Some(h1)) = (&before.host, &after.host) else {
        let why = after
            .note
            .clone()
            .unwrap_or_else(|| "no host write counter".into());
        return fail(out, why);
    };
    let names = |cs: &[Counter]| -> Vec<String> { cs.iter().map(|c| c.source.clone()).collect() };
    if h0.source != h1.source || names(&before.media) != names(&after.media) {
        return fail(out, "the two readings show different counters".into());
    }
    out.counters = if after.media.is_empty() {
        format!("host {} ({})", h1.source, h1.unit)
    } else {
        format!(
            "({}) / {}, {}",
            names(&after.media).join(" + "),
            h1.source,
            after.media[0].unit
        )
    };
    let backwards = std::iter::once((h0, h1))
        .chain(before.media.iter().zip(after.media.iter()))
        .find(|(a, b)| b.raw < a.raw);
    if let Some((a, b)) = backwards {
        return fail(
            out,
            format!(
                "{} went backwards ({} → {}): a reset counter, or another drive",
                a.source, a.raw, b.raw
            ),
        );
    }
    let host_units = h1.raw - h0.raw;
    out.host_units = Some(host_units);
    out.host_bytes = h1.unit_bytes.map(|b| host_units.saturating_mul(b));
    if let (Some(s0), Some(s1), None) = (&before.host_sectors, &after.host_sectors, h1.unit_bytes) {
        if s1.raw >= s0.raw {
            out.host_bytes = s1.unit_bytes.map(|b| (s1.raw - s0.raw).saturating_mul(b));
        }
    }
    if after.media.is_empty() {
        let why = after
            .note
            .clone()
            .unwrap_or_else(|| "no media write counter".into());
        return fail(out, why);
    }
    let media_units = sum(&after.media) - sum(&before.media);
    out.media_units = Some(media_units);
    let m = &after.media[0];
    if host_units < MIN_HOST_UNITS {
        return fail(
            out,
            format!(
                "host writes grew {host_units} units of {} ({}), fewer than {MIN_HOST_UNITS}: \
                 the counters' resolution cannot tell the write amplification within 10 %",
                h1.unit, h1.source
            ),
        );
    }
    let wa = match (h1.unit_bytes, m.unit_bytes) {
        (Some(hb), Some(mb)) => {
            out.media_bytes = Some(media_units.saturating_mul(mb));
            (media_units as f64 * mb as f64) / (host_units as f64 * hb as f64)
        }
        (None, None) if h1.unit == PAGE && m.unit == PAGE => {
            let wa = media_units as f64 / host_units as f64;
            out.media_bytes = out.host_bytes.map(|b| (b as f64 * wa).round() as u64);
            wa
        }
        _ => {
            return fail(
                out,
                format!(
                    "{} counts in {} and {} in {}: no common unit",
                    h1.source, h1.unit, m.source, m.unit
                ),
            )
        }
    };
    out.wa = Some(wa);
    out
}
