//! The text of a capacity probe: the one sentence, the evidence, what was written and kept.

use drivescope_record::{CapacityClass, CapacityRecord};
use drivescope_units::format_size;
use std::io::Write;

/// Where a probe block lies, in words that cannot put it past the end: a block near the end of
/// the device, whose offset would round up to the device's size (`at 128.0 MiB` on a 128 MiB
/// device), is named by its distance from the end and its byte.
fn block_at(offset: u64, nominal: u64) -> String {
    let shown = format_size(offset);
    let to_end = nominal.saturating_sub(offset);
    if to_end > 0 && (shown == format_size(nominal) || to_end <= nominal / 1000) {
        format!("{} before the end (byte {offset})", format_size(to_end))
    } else {
        format!("at {shown}")
    }
}

pub fn print_capacity(r: &CapacityRecord, out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(
        out,
        "capacity of {} ({} reported, {} probe blocks)",
        r.header.target.path,
        format_size(r.nominal),
        format_size(r.block_size)
    )?;
    writeln!(out, "  {}", r.verdict())?;
    if let (Some(class), Some(real)) = (r.class, r.real_capacity) {
        if class != CapacityClass::Genuine {
            writeln!(
                out,
                "  real capacity {} ({} bytes): {}",
                format_size(real),
                real,
                class.describe()
            )?;
        }
    }
    for e in r.evidence.iter().take(4) {
        match e.holds {
            Some(h) => writeln!(
                out,
                "  the block {} read back the data written for {}",
                block_at(e.offset, r.nominal),
                format_size(h)
            )?,
            None => writeln!(
                out,
                "  the block {} read back: {}",
                block_at(e.offset, r.nominal),
                e.what.replace('_', " ")
            )?,
        }
    }
    if let Some(c) = &r.costs {
        writeln!(
            out,
            "  a scattered {} cost {:.2} ms to write, {:.2} ms to read; a sequential MiB {:.1} ms, {:.1} ms: a run of {} and {}",
            format_size(r.block_size),
            c.scattered_write_ns as f64 / 1e6,
            c.scattered_read_ns as f64 / 1e6,
            c.seq_write_mib_ns as f64 / 1e6,
            c.seq_read_mib_ns as f64 / 1e6,
            format_size(r.run_blocks * r.block_size),
            drivescope_units::count(r.scattered_blocks, "single block")
        )?;
    }
    writeln!(
        out,
        "  {}, {} ({}) written, {} read, {} written between writing and checking, {:.1} s",
        drivescope_units::count(r.rounds as u64, "round"),
        drivescope_units::count(r.blocks_written, "block"),
        format_size(r.bytes_written),
        format_size(r.bytes_read),
        format_size(r.flush_bytes),
        r.duration_ns as f64 / 1e9
    )?;
    if r.destructive {
        writeln!(
            out,
            "  --destructive: the probe blocks were left on the device"
        )?;
    } else if r.restored {
        writeln!(
            out,
            "  data kept: every overwritten block was written back{}",
            match r.restore_mismatches {
                0 => " and read back equal".to_string(),
                n => format!(" ({n} read back different: not kept by the drive)"),
            }
        )?;
    }
    if let Some(b) = &r.backup {
        writeln!(out, "  backup journal: {b}")?;
    }
    if r.interrupted {
        writeln!(out, "  stopped early")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::block_at;

    #[test]
    fn a_block_near_the_end_is_never_named_at_the_end() {
        const MIB: u64 = 1 << 20;
        for nominal in [128 * MIB, 7 * MIB + 4096, 64 << 30] {
            for block in [4096u64, 65536] {
                let last = nominal - block;
                let said = block_at(last, nominal);
                let end = format!("at {}", super::format_size(nominal));
                assert_ne!(said, end);
                if said.contains("before the end") {
                    assert!(said.contains(&format!("byte {last}")), "{said}");
                }
            }
        }
        assert_eq!(
            block_at(128 * MIB - 4096, 128 * MIB),
            "4.0 KiB before the end (byte 134213632)"
        );
        assert_eq!(block_at(57 * MIB, 128 * MIB), "at 57.0 MiB");
        assert_eq!(block_at(0, 128 * MIB), "at 0 B");
    }
}
