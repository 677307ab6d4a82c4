//! Host and media writes from real drives' `smartctl --json` documents (fixtures/smartctl/README.md
//! names each source), and the write amplification over before/after pairs made from one real
//! document by growing only its write counters.

use drivescope_core::rng::Rng;
use drivescope_probe::smart_writes::{interval, parse, SmartWrites, MIN_HOST_UNITS};
use serde_json::Value;

fn text(name: &str) -> String {
    let p = format!(
        "{}/tests/fixtures/smartctl/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
}

/// A counter's source and raw count.
type Named = (String, u64);

fn raws(w: &SmartWrites) -> (Option<Named>, Vec<Named>) {
    (
        w.host.as_ref().map(|c| (c.source.clone(), c.raw)),
        w.media.iter().map(|c| (c.source.clone(), c.raw)).collect(),
    )
}

fn s(x: &str) -> String {
    x.to_string()
}

/// The same document with ATA attributes `id` set to `raw` (value and printed string).
fn with_attrs(doc: &str, set: &[(u64, u64)]) -> String {
    let mut v: Value = serde_json::from_str(doc).unwrap();
    let table = v["ata_smart_attributes"]["table"].as_array_mut().unwrap();
    for &(id, raw) in set {
        let a = table
            .iter_mut()
            .find(|a| a["id"].as_u64() == Some(id))
            .unwrap_or_else(|| panic!("no attribute {id}"));
        a["raw"]["value"] = raw.into();
        a["raw"]["string"] = raw.to_string().into();
    }
    serde_json::to_string(&v).unwrap()
}

fn attr(doc: &str, id: u64) -> u64 {
    let v: Value = serde_json::from_str(doc).unwrap();
    v["ata_smart_attributes"]["table"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["id"].as_u64() == Some(id))
        .unwrap()["raw"]["value"]
        .as_u64()
        .unwrap()
}

#[test]
fn each_fixture_gives_the_counters_its_document_shows() {
    let micron = parse(&text("ata_micron_5300.json"));
    assert_eq!(
        raws(&micron),
        (
            Some((s("247 Host_Program_Page_Count"), 429271075)),
            vec![
                (s("247 Host_Program_Page_Count"), 429271075),
                (s("248 Bckgnd_Program_Page_Cnt"), 33907658)
            ]
        )
    );
    let lbas = micron.host_sectors.as_ref().unwrap();
    assert_eq!((lbas.raw, lbas.unit_bytes), (13081275632, Some(512)));
    assert_eq!(micron.host.as_ref().unwrap().unit_bytes, None, "pages");

    let intel = parse(&text("ata_intel_s4510.json"));
    assert_eq!(
        raws(&intel),
        (
            Some((s("241 Host_Writes_32MiB"), 2575247)),
            vec![(s("243 NAND_Writes_32MiB"), 12186490)]
        )
    );
    assert_eq!(intel.media[0].unit_bytes, Some(32 << 20));

    let kingston = parse(&text("ata_kingston_a400.json"));
    assert_eq!(
        raws(&kingston),
        (
            Some((s("241 Lifetime_Writes_GiB"), 398)),
            vec![(s("233 Flash_Writes_GiB"), 979)]
        )
    );

    let smi = parse(&text("ata_smi_ts32g.json"));
    assert_eq!(
        raws(&smi),
        (
            Some((s("241 Host_Writes_32MiB"), 30245)),
            vec![(s("245 TLC_Writes_32MiB"), 136733)]
        )
    );

    // Dell's firmware names 241 Total_LBAs_Written but counts 32 MiB there, as its 225 shows.
    let dell = parse(&text("ata_intel_s3520_dell.json"));
    assert_eq!(
        raws(&dell),
        (Some((s("225 Host_Writes_32MiB"), 129493)), vec![])
    );
    assert!(dell
        .note
        .as_ref()
        .unwrap()
        .contains("no media write counter"));

    let samsung = parse(&text("ata_samsung_pm893.json"));
    assert_eq!(
        raws(&samsung),
        (Some((s("241 Total_LBAs_Written"), 652566252)), vec![])
    );
    assert_eq!(samsung.host.as_ref().unwrap().unit_bytes, Some(512));
    assert!(samsung.note.as_ref().unwrap().contains("251 NAND_Writes"));

    let nvme = parse(&text("nvme_crucial_p2.json"));
    assert_eq!(
        raws(&nvme),
        (Some((s("nvme data_units_written"), 1002900)), vec![])
    );
    assert_eq!(nvme.host.as_ref().unwrap().unit_bytes, Some(512_000));
    let nvme2 = parse(&text("nvme_healthy.json"));
    assert!(nvme2.media.is_empty() && nvme2.host.is_some());

    // A hard disk's document: read, no write counters at all.
    let hdd = parse(&text("ata_failing.json"));
    assert!(hdd.read && hdd.host.is_none() && hdd.media.is_empty());
    assert!(!parse("not json").read);
}

#[test]
fn micron_pages_give_the_ratio_and_bytes_from_the_host_sectors() {
    let doc = text("ata_micron_5300.json");
    let (h, m, l) = (attr(&doc, 247), attr(&doc, 248), attr(&doc, 246));
    let before = parse(&doc);
    // 1000 host pages of 4 KiB (8000 sectors); the drive's own copies 500 pages more.
    let after = parse(&with_attrs(
        &doc,
        &[(247, h + 1000), (248, m + 500), (246, l + 8000)],
    ));
    let i = interval(&before, &after);
    assert_eq!(i.wa, Some(1.5), "{i:?}");
    assert_eq!((i.host_units, i.media_units), (Some(1000), Some(1500)));
    assert_eq!(
        (i.host_bytes, i.media_bytes),
        (Some(4_096_000), Some(6_144_000))
    );
    assert_eq!(i.counters, "(247 Host_Program_Page_Count + 248 Bckgnd_Program_Page_Cnt) / 247 Host_Program_Page_Count, NAND page");
}

#[test]
fn at_and_beside_the_resolution_limit() {
    let doc = text("ata_intel_s4510.json");
    let (h, m) = (attr(&doc, 241), attr(&doc, 243));
    let before = parse(&doc);
    let under = MIN_HOST_UNITS - 1;
    let i = interval(
        &before,
        &parse(&with_attrs(&doc, &[(241, h + under), (243, m + 150)])),
    );
    assert_eq!(i.wa, None);
    assert!(
        i.inconclusive.as_ref().unwrap().contains("fewer than 100"),
        "{i:?}"
    );
    let at = MIN_HOST_UNITS;
    let i = interval(
        &before,
        &parse(&with_attrs(&doc, &[(241, h + at), (243, m + 150)])),
    );
    assert_eq!(i.wa, Some(1.5), "{i:?}");
    assert_eq!(i.host_bytes, Some(100 * (32 << 20)));
    assert_eq!(i.media_bytes, Some(150 * (32 << 20)));
    // Kingston's GiB counters, the same way.
    let doc = text("ata_kingston_a400.json");
    let (h, m) = (attr(&doc, 241), attr(&doc, 233));
    let i = interval(
        &parse(&doc),
        &parse(&with_attrs(&doc, &[(241, h + 200), (233, m + 500)])),
    );
    assert_eq!(i.wa, Some(2.5), "{i:?}");
}

#[test]
fn a_counter_that_went_back_or_a_missing_media_counter_is_inconclusive() {
    let doc = text("ata_intel_s4510.json");
    let (h, m) = (attr(&doc, 241), attr(&doc, 243));
    let i = interval(
        &parse(&doc),
        &parse(&with_attrs(&doc, &[(241, h + 5000), (243, m - 1)])),
    );
    assert!(i.wa.is_none());
    assert!(i
        .inconclusive
        .unwrap()
        .contains("243 NAND_Writes_32MiB went backwards"));
    let i = interval(&parse(&doc), &parse(&with_attrs(&doc, &[(241, 0)])));
    assert!(i.inconclusive.unwrap().contains("went backwards"));

    for (name, id, says) in [
        ("ata_intel_s3520_dell.json", 225, "225 Host_Writes_32MiB"),
        ("ata_samsung_pm893.json", 241, "251 NAND_Writes"),
    ] {
        let doc = text(name);
        let h = attr(&doc, id);
        let i = interval(&parse(&doc), &parse(&with_attrs(&doc, &[(id, h + 10_000)])));
        assert!(i.wa.is_none(), "{name}");
        assert_eq!(i.host_units, Some(10_000), "{name}");
        assert!(
            i.inconclusive.as_ref().unwrap().contains(says),
            "{name}: {i:?}"
        );
    }
    let doc = text("nvme_crucial_p2.json");
    let mut v: Value = serde_json::from_str(&doc).unwrap();
    v["nvme_smart_health_information_log"]["data_units_written"] = (1002900u64 + 5000).into();
    let i = interval(&parse(&doc), &parse(&v.to_string()));
    assert_eq!(i.host_bytes, Some(5000 * 512_000));
    assert!(i.inconclusive.unwrap().contains("NVMe"));
    // SMART not read on either side.
    let none = SmartWrites::default();
    assert!(interval(&none, &parse(&doc))
        .inconclusive
        .unwrap()
        .starts_with("SMART not read before"));
}

/// Random counter pairs over wide ranges with a known write amplification: the result is within the
/// counters' rounding of the truth whenever the host grew 100 units or more, and never a number when
/// it grew fewer (the false-alarm twin).
#[test]
fn drawn_counter_pairs_give_the_truth_within_the_rounding() {
    let mut rng = Rng::new(0x3A44);
    let micron = text("ata_micron_5300.json");
    let intel = text("ata_intel_s4510.json");
    for n in 0..2000 {
        let pages = n % 2 == 0;
        let (doc, hid, mid) = if pages {
            (&micron, 247, 248)
        } else {
            (&intel, 241, 243)
        };
        let h0 = rng.below(1 << 40);
        let m0 = rng.below(1 << 40);
        let dh = if n % 5 == 0 {
            rng.below(MIN_HOST_UNITS)
        } else {
            MIN_HOST_UNITS + rng.below(10_000_000)
        };
        let truth = 1.0 + rng.below(9000) as f64 / 1000.0;
        // Micron's media is the host's pages plus the drive's own: 248 grows by (WA - 1) × host.
        let extra = if pages { truth - 1.0 } else { truth };
        let dm = (dh as f64 * extra).round() as u64;
        let before = parse(&with_attrs(doc, &[(hid, h0), (mid, m0)]));
        let after = parse(&with_attrs(doc, &[(hid, h0 + dh), (mid, m0 + dm)]));
        let i = interval(&before, &after);
        if dh < MIN_HOST_UNITS {
            assert!(i.wa.is_none() && i.inconclusive.is_some(), "{i:?}");
            continue;
        }
        let got = i.wa.unwrap_or_else(|| panic!("{i:?}"));
        assert!(
            (got - truth).abs() <= 0.5 / dh as f64 + 1e-12,
            "host +{dh}, truth {truth}, got {got}"
        );
    }
}
