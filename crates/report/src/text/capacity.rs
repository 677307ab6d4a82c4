//! The text of a capacity probe: the one sentence, the evidence, what was written and kept.

use drivescope_record::{CapacityClass, CapacityRecord};
use drivescope_units::format_size;
use std::io::Write;

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
                "  the block at {} read back the data written for {}",
                format_size(e.offset),
                format_size(h)
            )?,
            None => writeln!(
                out,
                "  the block at {} read back: {}",
                format_size(e.offset),
                e.what.replace('_', " ")
            )?,
        }
    }
    if let Some(c) = &r.costs {
        writeln!(
            out,
            "  a scattered {} cost {:.2} ms to write, {:.2} ms to read; a sequential MiB {:.1} ms, {:.1} ms: a run of {} and {} single blocks",
            format_size(r.block_size),
            c.scattered_write_ns as f64 / 1e6,
            c.scattered_read_ns as f64 / 1e6,
            c.seq_write_mib_ns as f64 / 1e6,
            c.seq_read_mib_ns as f64 / 1e6,
            format_size(r.run_blocks * r.block_size),
            r.scattered_blocks
        )?;
    }
    writeln!(
        out,
        "  {} rounds, {} blocks ({}) written, {} read, {} written between writing and checking, {:.1} s",
        r.rounds,
        r.blocks_written,
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
