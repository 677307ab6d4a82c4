//! A draw as a lab model file (crates/lab's TOML format), so the bench can serve it as a disk through FUSE and a
//! loop device and diagnose it through the real kernel path. The lab has no busy-host noise (the kernel path is
//! the noise), a seek of one length stands for the model's access, and NCQ for its lanes.

use super::{Media, Spec};
use std::fmt::Write;

impl Spec {
    /// The lab model of this draw, named `name`.
    pub fn lab_toml(&self, name: &str) -> String {
        let mut s = String::new();
        let ns = |x: u64| format!("{x}ns");
        writeln!(s, "name = \"{name}\"").unwrap();
        writeln!(s, "description = \"a drawn {:?} device\"", self.media).unwrap();
        writeln!(s, "size = \"{}\"", self.size).unwrap();
        match self.media {
            Media::Hdd => {
                let shape = if self.zones >= 2 {
                    format!("count = {}", self.zones)
                } else {
                    "linear = true".into()
                };
                writeln!(
                    s,
                    "zones = {{ {shape}, outer_mb_s = {:.3}, inner_mb_s = {:.3} }}",
                    self.outer, self.inner
                )
                .unwrap();
                writeln!(
                    s,
                    "seek = {{ min = \"{}\", max = \"{}\" }}",
                    ns(self.access_ns),
                    ns(self.access_ns)
                )
                .unwrap();
            }
            Media::Flash => {
                writeln!(s, "zones = {{ rates_mb_s = [{:.3}] }}", self.outer).unwrap();
                writeln!(s, "overhead = \"{}\"", ns(self.access_ns)).unwrap();
            }
        }
        if self.write_factor != 1.0 {
            writeln!(s, "write_rate_factor = {:.4}", self.write_factor).unwrap();
        }
        if self.lanes <= 1 {
            writeln!(s, "queue = {{ mode = \"serial\" }}").unwrap();
        } else {
            writeln!(
                s,
                "queue = {{ mode = \"parallel\", depth = {} }}",
                self.lanes
            )
            .unwrap();
        }
        if let Some(l) = self.link {
            writeln!(s, "interface_mb_s = {l:.3}").unwrap();
        }
        if let Some((b, r)) = self.read_cache {
            writeln!(s, "read_cache = {{ size = \"{b}\", rate_mb_s = {r:.3} }}").unwrap();
        }
        if let Some((b, r)) = self.write_cache {
            writeln!(s, "write_cache = {{ size = \"{b}\", rate_mb_s = {r:.3} }}").unwrap();
        }
        let secs = |x: f64| ns((x * 1e9) as u64);
        if let Some((d, f)) = self.warm_up {
            writeln!(
                s,
                "warmup = {{ factor = {f:.4}, duration = \"{}\" }}",
                secs(d)
            )
            .unwrap();
        }
        if let Some((a, f, c)) = self.throttle {
            writeln!(
                s,
                "throttle = {{ factor = {f:.4}, after = \"{}\", cooling = \"{}\" }}",
                secs(a),
                secs(c)
            )
            .unwrap();
        }
        if let Some(m) = self.smr {
            writeln!(
                s,
                "smr = {{ media_cache = \"{}\", cache_mb_s = {:.3}, band = \"{}\", stall = \"{}\", idle_after = \"{}\", drain_mb_s = {:.3} }}",
                m.cache,
                m.rate,
                m.band,
                ns(m.stall_ns),
                ns(m.idle_after_ns),
                m.drain
            )
            .unwrap();
        }
        s
    }
}
