//! A scan's transfer-rate curve as CSV (`scan --curve-csv FILE`): one row per position bin with its LBA.

use drivescope_record::ScanRecord;
use std::io::Write;
use std::path::Path;

/// Write the curve as CSV: offset,length,lba,mb_per_s,min_ns,max_ns.
pub fn write_curve_csv(path: &Path, r: &ScanRecord) -> std::io::Result<()> {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path)?);
    writeln!(f, "offset,length,lba,mb_per_s,min_ns,max_ns")?;
    let lbs = r.header.target.logical_block_size.max(1) as u64;
    for p in &r.curve {
        writeln!(
            f,
            "{},{},{},{:.3},{},{}",
            p.offset,
            p.length,
            p.offset / lbs,
            p.mb_per_s,
            p.min_ns,
            p.max_ns
        )?;
    }
    f.flush()
}
