use super::*;
use crate::model::Model;
use crate::timing::{Op, Timeline};
use drivescope_core::rng::Rng;
use drivescope_probe::smart_writes::{interval, parse};

/// Over drawn flash disks and workloads (random and sequential writes, idle gaps the collector
/// cleans in), the served document, read by the probe's own parser, carries the model's counters,
/// and its write amplification between two readings is the model's over that interval.
#[test]
fn the_served_document_carries_the_models_counters() {
    let mut rng = Rng::new(0x5A47);
    let mut idle_seen = false;
    for _ in 0..12 {
        let size_mib = 4 + rng.below(13);
        let spare = 0.05 + rng.below(40) as f64 / 100.0;
        let text = format!(
            "name='f'\nsize='{size_mib}M'\nzones={{rates_mb_s=[200]}}\noverhead='20us'\n\
             flash={{page='4K',block='64K',spare={spare},idle_after='1ms'}}\n"
        );
        let m = Model::from_toml_str(&text, "test").unwrap();
        let page = m.flash.as_ref().unwrap().page;
        let mut t = Timeline::new(&m);
        let mut now = 0u64;
        let mut readings = Vec::new();
        for step in 0..6 {
            let n = 200 + rng.below(3000);
            for i in 0..n {
                let off = if step % 3 == 0 {
                    (i * 4096) % m.size
                } else {
                    rng.below(m.size / 4096) * 4096
                };
                now = t.schedule(Op::Write, off, 4096, now).done_ns;
                if rng.below(400) == 0 {
                    now += 50_000_000;
                }
            }
            let c = t.flash_counters().unwrap();
            let doc = document("f", m.size, page, &c);
            let w = parse(&doc);
            assert_eq!(w.host.as_ref().unwrap().raw, c.host_pages);
            let media: u64 = w.media.iter().map(|x| x.raw).sum();
            assert_eq!(media, c.foreground_media_pages + c.idle_media_pages);
            assert_eq!(
                w.host_sectors.as_ref().unwrap().raw * 512,
                c.host_pages * page
            );
            readings.push((c, w));
        }
        let (c0, w0) = &readings[1];
        let (c1, w1) = &readings[5];
        let got = interval(w0, w1).wa.unwrap();
        let want = c1.since(c0).write_amplification();
        assert!((got - want).abs() < 1e-12, "{got} vs {want}");
        idle_seen |= c1.since(c0).idle_media_pages > 0;
    }
    assert!(idle_seen, "no draw had the collector clean while idle");
}

/// A document's size stays far under the page-sized file the FUSE file system declares.
#[test]
fn the_document_fits_its_file() {
    let c = Counters {
        host_pages: u64::MAX / 8192,
        foreground_media_pages: u64::MAX / 4096,
        idle_media_pages: u64::MAX / 4096,
        erases: 1,
    };
    assert!(document(&"n".repeat(64), u64::MAX, 4096, &c).len() < 4096);
}
