//! The flush-honesty twins the durability and diagnose lab tests serve: one disk (80 MB/s media, 64 MiB)
//! with an 8 MiB cache taken at 400 MB/s whose flush is ignored, written out in part, honoured, or ignored
//! behind a declared power-loss protection; or none (docs/lab.md shows them).

use drivescope_lab::Model;

/// The disk with `cache` (one of the constants below, or "" for none).
pub fn twin(cache: &str) -> Model {
    let text = format!(
        "name = 'durable'\nsize = '64M'\nzones = {{ rates_mb_s = [80] }}\noverhead = '50us'\n{cache}"
    );
    Model::from_toml_str(&text, "test").unwrap()
}

pub const LYING: &str = "write_cache = { size = '8M', rate_mb_s = 400, flush = 'ignored' }";
pub const PARTIAL: &str =
    "write_cache = { size = '8M', rate_mb_s = 400, flush = 'partial', flushed_share = 0.05 }";
pub const HONEST: &str = "write_cache = { size = '8M', rate_mb_s = 400 }";
pub const PROTECTED: &str =
    "write_cache = { size = '8M', rate_mb_s = 400, flush = 'ignored', protected = true }";
