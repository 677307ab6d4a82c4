//! The confirmation that names a device: what drivescope shows the user (in `--help`, at the
//! prompt, in a refusal, in the README) and what it accepts back, both from [`DeviceName`].

use crate::units::{format_size, ShownSize};
use drivescope_probe::{BlockInfo, Identity, Layer, Node};

/// What names a device in a confirmation: its serial, or without one its model (its kernel
/// name when it has no model) and its size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceName {
    pub serial: Option<String>,
    /// Model, or the kernel name when the device reports none.
    pub model: String,
    /// Size in bytes.
    pub size: u64,
}

/// The example that `--help` and the README show: a 1 GiB loop device, which has no serial.
pub fn confirmation_example() -> String {
    DeviceName {
        serial: None,
        model: "loop3".into(),
        size: 1 << 30,
    }
    .confirmation()
}

impl DeviceName {
    /// The name of the target's device in `identity`: the first serial and model found on
    /// the block devices under it (a partition's are its disk's; an md or dm device's, its
    /// members'), its own kernel name without a model, and its size. The disk under a loop
    /// device's backing file names that disk, not the loop device, so the search stops at
    /// files and file systems. None when the target is no block device or its size is unknown.
    pub fn of(identity: &Identity) -> Option<DeviceName> {
        let target = identity.target_block()?;
        let (mut serial, mut model) = (None, None);
        for h in block_stack(identity)
            .into_iter()
            .filter_map(|b| b.hardware.as_ref())
        {
            let given = |s: &Option<String>| {
                s.as_deref()
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(String::from)
            };
            serial = serial.or_else(|| given(&h.serial));
            model = model.or_else(|| given(&h.model));
        }
        Some(DeviceName {
            serial,
            model: model.unwrap_or_else(|| target.name.clone()),
            size: target.size_bytes?,
        })
    }

    /// The text to type: the serial, or the model and the size as `drivescope info` shows it
    /// (`loop3 1.0 GiB`). Every place that shows a confirmation shows this.
    pub fn confirmation(&self) -> String {
        match &self.serial {
            Some(s) => s.clone(),
            None => format!("{} {}", self.model, format_size(self.size)),
        }
    }

    /// [`Self::confirmation`] as a shell word: quoted when it has spaces.
    pub fn confirmation_arg(&self) -> String {
        let c = self.confirmation();
        if c.chars().any(|ch| ch.is_whitespace() || ch == '\'') {
            format!("\"{c}\"")
        } else {
            c
        }
    }

    /// What the confirmation is, in words.
    pub fn kind(&self) -> &'static str {
        if self.serial.is_some() {
            "the device's serial number"
        } else {
            "the device's model (kernel name when it has none) and size, as `drivescope info` shows them"
        }
    }

    /// One line that names the device.
    pub fn describe(&self) -> String {
        let size = format_size(self.size);
        match &self.serial {
            Some(s) => format!("{}, serial {s}, {size}", self.model),
            None => format!("{}, no serial, {size}", self.model),
        }
    }

    /// The question to ask on a terminal before writing to `spec`.
    pub fn prompt(&self, spec: &str) -> String {
        format!(
            "drivescope: this DESTROYS ALL DATA on {spec} ({}).\nType {} ({}) to go on: ",
            self.describe(),
            self.confirmation_arg(),
            self.kind()
        )
    }

    /// Whether `given` names this device. Case and runs of white space do not matter, nor
    /// quotes around it. With a serial: the serial, alone or followed by the size. Without
    /// one: the model (or kernel name), a space, and the size in any usual spelling (`1 GiB`,
    /// `1.0 GiB`, `1.00 GiB`, `1GiB`, `1 gib`, `1024 MiB`), which must be the device's size at
    /// the precision written and show as the same text (see [`ShownSize::names`]).
    pub fn accepts(&self, given: &str) -> bool {
        let g = normalize(unquote(given));
        if g.is_empty() {
            return false;
        }
        match &self.serial {
            Some(serial) => {
                let s = normalize(serial);
                g == s || self.name_and_size(&g, &s)
            }
            None => self.name_and_size(&g, &normalize(&self.model)),
        }
    }

    /// `given` is `name`, one space, and a size that names this device's size.
    fn name_and_size(&self, given: &str, name: &str) -> bool {
        given
            .strip_prefix(name)
            .and_then(|rest| rest.strip_prefix(' '))
            .and_then(|size| ShownSize::parse(size).ok())
            .is_some_and(|size| size.names(self.size))
    }
}

/// The target's block device and the block devices directly under it, top first: the chain
/// from layer 0 through block layers only.
fn block_stack(identity: &Identity) -> Vec<&BlockInfo> {
    let mut out: Vec<(usize, &BlockInfo)> = Vec::new();
    let mut next = vec![0usize];
    while let Some(i) = next.pop() {
        if out.iter().any(|(j, _)| *j == i) {
            continue;
        }
        if let Some(Layer {
            node: Node::Block(b),
            below,
        }) = identity.layers.get(i)
        {
            out.push((i, b));
            next.extend(below.iter().rev());
        }
    }
    out.into_iter().map(|(_, b)| b).collect()
}

/// White space runs collapsed, case ignored (some tools show serials in upper case).
fn normalize(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// Without one pair of quotes around it (copied from the prompt or a refusal).
fn unquote(s: &str) -> &str {
    let t = s.trim();
    for q in ['"', '\''] {
        if let Some(inner) = t.strip_prefix(q).and_then(|r| r.strip_suffix(q)) {
            return inner;
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const GIB: u64 = 1 << 30;

    fn loop3(size: u64) -> DeviceName {
        DeviceName {
            serial: None,
            model: "loop3".into(),
            size,
        }
    }

    #[test]
    fn the_example_is_the_loop_device_spelling() {
        assert_eq!(confirmation_example(), "loop3 1.0 GiB");
        assert!(loop3(GIB).accepts(&confirmation_example()));
        assert_eq!(loop3(GIB).confirmation_arg(), "\"loop3 1.0 GiB\"");
    }

    #[test]
    fn spellings_of_the_same_name_and_size_are_accepted() {
        let d = loop3(GIB);
        for ok in [
            "loop3 1.0 GiB",
            "loop3 1 GiB",
            "loop3 1.00 GiB",
            "loop3 1GiB",
            "loop3 1.0GiB",
            "loop3 1.0 gib",
            "loop3 1.0 GIB",
            "LOOP3 1.0 GiB",
            "  loop3   1.0   GiB ",
            "loop3 1 G",
            "loop3 1024 MiB",
            "loop3 1073741824",
            "\"loop3 1.0 GiB\"",
            "'loop3 1 GiB'",
        ] {
            assert!(d.accepts(ok), "{ok:?} should name {}", d.describe());
        }
        // 1.5 GiB, shown as 1.5 GiB
        let d = loop3(3 * GIB / 2);
        for ok in [
            "loop3 1.5 GiB",
            "loop3 1.50 GiB",
            "loop3 1536 MiB",
            "loop3 1.5G",
        ] {
            assert!(d.accepts(ok), "{ok:?} should name {}", d.describe());
        }
    }

    #[test]
    fn other_names_and_sizes_are_refused() {
        let d = loop3(GIB);
        for bad in [
            "",
            "   ",
            "loop3",
            "1.0 GiB",
            "loop31.0 GiB",
            "loop31 1.0 GiB",
            "loop 1.0 GiB",
            "loop9 1.0 GiB",
            "loop3 2 GiB",
            "loop3 1.1 GiB",
            "loop3 0.9 GiB",
            "loop3 1.01 GiB",
            "loop3 1 MiB",
            "loop3 1 TiB",
            "loop3 1073741823",
            "loop3 1.0 GiB extra",
            "loop3 1.0 parsecs",
            "loop3 GiB",
            "\"loop3 1.0 GiB",
        ] {
            assert!(!d.accepts(bad), "{bad:?} should not name {}", d.describe());
        }
        // 1.5 GiB rounds to 2 at whole GiB, but it is shown as 1.5 GiB: 2 GiB is another size
        let d = loop3(3 * GIB / 2);
        for bad in [
            "loop3 2 GiB",
            "loop3 1 GiB",
            "loop3 1.0 GiB",
            "loop3 1.4 GiB",
        ] {
            assert!(!d.accepts(bad), "{bad:?} should not name {}", d.describe());
        }
        // 1.04 GiB is shown as 1.0 GiB; 1.00 GiB claims a second decimal that is wrong
        let d = loop3(GIB + GIB / 25);
        assert!(d.accepts("loop3 1.0 GiB") && d.accepts("loop3 1 GiB"));
        assert!(!d.accepts("loop3 1.00 GiB"));
    }

    #[test]
    fn a_device_with_a_serial_takes_its_serial() {
        let d = DeviceName {
            serial: Some("ZFN0ABCD".into()),
            model: "ST4000DM004-2CV104".into(),
            size: 4_000_787_030_016,
        };
        assert_eq!(d.confirmation(), "ZFN0ABCD");
        assert_eq!(d.confirmation_arg(), "ZFN0ABCD");
        for ok in [
            "ZFN0ABCD",
            "zfn0abcd",
            " ZFN0ABCD ",
            "ZFN0ABCD 3.6 TiB",
            "\"ZFN0ABCD\"",
        ] {
            assert!(d.accepts(ok), "{ok:?}");
        }
        // the model and size do not tell two drives of one model apart: the serial does
        for bad in [
            "ST4000DM004-2CV104 3.6 TiB",
            "ZFN0ABC",
            "ZFN0ABCDE",
            "ZFN0ABCD 3.7 TiB",
            "ZFN0ABCD 4 TB",
            "WD-WCAZA1234567",
        ] {
            assert!(!d.accepts(bad), "{bad:?}");
        }
    }

    #[test]
    fn a_model_with_spaces() {
        let d = DeviceName {
            serial: None,
            model: "QEMU HARDDISK".into(),
            size: 20 * GIB,
        };
        assert_eq!(d.confirmation(), "QEMU HARDDISK 20.0 GiB");
        assert!(d.accepts("qemu harddisk 20 GiB"));
        assert!(!d.accepts("QEMU 20 GiB"));
        assert!(!d.accepts("HARDDISK 20 GiB"));
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 1000, failure_persistence: None, ..ProptestConfig::default() })]

        /// What drivescope shows is always accepted back, whatever the device.
        #[test]
        fn the_shown_confirmation_is_accepted(
            model in "[A-Za-z][A-Za-z0-9 _.-]{0,24}",
            serial in proptest::option::of("[A-Z0-9][A-Z0-9-]{3,19}"),
            size in 1u64..(1 << 55),
        ) {
            let d = DeviceName { serial, model: model.trim().to_string(), size };
            prop_assert!(d.accepts(&d.confirmation()), "{:?} refuses {:?}", d, d.confirmation());
            prop_assert!(d.accepts(&d.confirmation_arg()));
        }

        /// A device of another shown size is refused with this one's confirmation.
        #[test]
        fn another_size_is_refused(a in 1u64..(1 << 50), b in 1u64..(1 << 50)) {
            if format_size(a) != format_size(b) {
                prop_assert!(!loop3(b).accepts(&loop3(a).confirmation()));
            }
        }
    }
}
