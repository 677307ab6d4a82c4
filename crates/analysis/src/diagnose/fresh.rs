//! Fresh or steady: a flash drive's writes run fast while its spare blocks are erased, and fall once garbage
//! collection must make room. A diagnosis's write experiment measures the drive as it was (fresh out of the box,
//! or partly used), not the speed it keeps; this note says so where the drive is flash and writes were measured.
//! It is said only where the kernel tells: a drive with hardware behind it that says it does not rotate. A
//! rotating disk, a RAM disk, a loop device (over a file, or a lab disk whose model may be a hard disk) and a drive
//! that does not say: no note.

use drivescope_probe::Identity;
use drivescope_record::DiagnoseRecord;

/// Whether `id` is a flash drive by what the kernel says: hardware that does not rotate, nothing in memory or
/// behind a loop device.
pub fn flash_like(id: &Identity) -> bool {
    use drivescope_probe::block::Transport;
    let mut blocks = id.block_devices().peekable();
    blocks.peek().is_some()
        && id.memory().is_none()
        && blocks.all(|b| {
            !matches!(
                b.transport,
                Transport::Loop | Transport::Zram | Transport::Ram
            ) && b.rotational != Some(true)
        })
        && id
            .block_devices()
            .any(|b| b.hardware.is_some() && b.rotational == Some(false))
}

/// The note on a diagnosis `d` whose write experiment ran on a flash drive; None otherwise.
pub fn note(d: &DiagnoseRecord) -> Option<String> {
    d.write_cache.as_ref()?;
    if !d.header.device.as_ref().is_some_and(flash_like) {
        return None;
    }
    Some(
        "flash: these writes are the drive as it was (fresh, or partly used), not its steady state; \
         `drivescope steady` measures the rate it keeps once garbage collection runs"
            .into(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use drivescope_probe::{BlockInfo, BlockRole, Hardware, Transport};
    use drivescope_record::{Document, WriteData};

    fn diagnosis() -> DiagnoseRecord {
        let text = std::fs::read_to_string(format!(
            "{}/tests/fixtures/diagnose-cold-start.json",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap();
        let Document::Diagnose(d) = serde_json::from_str(&text).unwrap() else {
            panic!("a diagnosis");
        };
        *d
    }

    fn nvme(rotational: Option<bool>, transport: Transport) -> Identity {
        let mut b = BlockInfo::new("nvme0n1", "/dev/nvme0n1".into(), BlockRole::Disk, transport);
        b.size_bytes = Some(1 << 40);
        b.rotational = rotational;
        b.hardware = Some(Hardware::default());
        Identity::of_block(b)
    }

    fn writes() -> WriteData {
        WriteData {
            block_size: 1 << 20,
            queue_depth: 4,
            region: 1 << 30,
            written: 1 << 30,
            duration_ns: 1_000_000_000,
            points: Vec::new(),
        }
    }

    #[test]
    fn a_flash_drive_whose_writes_were_measured_gets_the_note() {
        let mut d = diagnosis();
        d.write_cache = Some(writes());
        d.header.device = Some(nvme(Some(false), Transport::Nvme));
        let n = note(&d).expect("a note");
        assert!(n.contains("drivescope steady"), "{n}");
        let (_, outcomes) = crate::diagnose::assess(&d);
        let w = outcomes
            .iter()
            .find(|o| o.experiment == drivescope_record::Experiment::WriteCache)
            .unwrap();
        assert!(w.text.ends_with(&n), "{}", w.text);
    }

    #[test]
    fn no_note_without_writes_or_on_what_is_not_flash() {
        let mut d = diagnosis();
        d.header.device = Some(nvme(Some(false), Transport::Nvme));
        d.write_cache = None;
        assert_eq!(note(&d), None, "no write experiment");
        d.write_cache = Some(writes());
        for id in [
            nvme(Some(true), Transport::Sata),
            nvme(None, Transport::Nvme),
            nvme(Some(false), Transport::Loop),
            nvme(None, Transport::Zram),
            nvme(None, Transport::Ram),
        ] {
            d.header.device = Some(id);
            assert_eq!(note(&d), None, "{:?}", d.header.device);
        }
        d.header.device = None;
        assert_eq!(note(&d), None, "no identity: cannot tell");
        let (_, outcomes) = crate::diagnose::assess(&d);
        assert!(outcomes
            .iter()
            .all(|o| !o.text.contains("drivescope steady")));
    }
}
