//! The cached ATA IDENTIFY DEVICE data that libata exposes as `ata_device/devX.Y/id`
//! (Documentation/ABI/testing/sysfs-ata): 256 16-bit words in hex, eight to a line.
//! Word meanings from ATA8-ACS 7.16 (IDENTIFY DEVICE data).

/// Parsed IDENTIFY data.
#[derive(Debug, Clone)]
pub struct AtaIdentify {
    words: Vec<u16>,
}

/// The nominal media rotation rate (word 217).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RotationRate {
    NonRotating,
    Rpm(u32),
}

impl AtaIdentify {
    /// Parse the sysfs text; `None` unless it holds exactly 256 words.
    pub fn parse(text: &str) -> Option<Self> {
        let words: Option<Vec<u16>> = text
            .split_whitespace()
            .map(|w| u16::from_str_radix(w, 16).ok())
            .collect();
        let words = words?;
        (words.len() == 256).then_some(AtaIdentify { words })
    }

    fn word(&self, i: usize) -> u16 {
        self.words[i]
    }

    /// ATA strings hold two characters per word, the first in the high byte.
    fn string(&self, start: usize, len: usize) -> Option<String> {
        let mut bytes = Vec::with_capacity(len * 2);
        for &w in &self.words[start..start + len] {
            bytes.push((w >> 8) as u8);
            bytes.push((w & 0xff) as u8);
        }
        let s: String = bytes
            .iter()
            .map(|&b| {
                if b.is_ascii_graphic() || b == b' ' {
                    b as char
                } else {
                    ' '
                }
            })
            .collect();
        let s = s.trim();
        (!s.is_empty()).then(|| s.to_string())
    }

    /// Words 10-19.
    pub fn serial(&self) -> Option<String> {
        self.string(10, 10)
    }

    /// Words 23-26.
    pub fn firmware(&self) -> Option<String> {
        self.string(23, 4)
    }

    /// Words 27-46.
    pub fn model(&self) -> Option<String> {
        self.string(27, 20)
    }

    /// Words 108-111 when word 87 bit 8 says the world wide name is present, as `naa.5…`.
    pub fn wwn(&self) -> Option<String> {
        let w87 = self.word(87);
        if w87 & 0xc000 != 0x4000 || w87 & 0x0100 == 0 {
            return None;
        }
        let v = (108..112).fold(0u64, |acc, i| (acc << 16) | self.word(i) as u64);
        (v != 0).then(|| format!("naa.{v:016x}"))
    }

    /// Word 217: 1 = non-rotating (solid state), 0401h-FFFEh = rpm, else not reported.
    pub fn rotation_rate(&self) -> Option<RotationRate> {
        match self.word(217) {
            1 => Some(RotationRate::NonRotating),
            r @ 0x0401..=0xfffe => Some(RotationRate::Rpm(r as u32)),
            _ => None,
        }
    }

    /// Word 76 bit 8: native command queueing supported (word 76 valid when not 0 or FFFFh).
    pub fn ncq_supported(&self) -> Option<bool> {
        let w = self.word(76);
        (w != 0 && w != 0xffff).then_some(w & 0x0100 != 0)
    }

    /// Word 75 bits 4:0: maximum queue depth - 1.
    pub fn max_queue_depth(&self) -> u32 {
        (self.word(75) & 0x1f) as u32 + 1
    }

    /// Word 76 bits 3:1: the fastest SATA generation the drive supports, in Gb/s.
    pub fn max_sata_gbps(&self) -> Option<f64> {
        let w = self.word(76);
        if w == 0 || w == 0xffff {
            return None;
        }
        if w & 0x8 != 0 {
            Some(6.0)
        } else if w & 0x4 != 0 {
            Some(3.0)
        } else if w & 0x2 != 0 {
            Some(1.5)
        } else {
            None
        }
    }

    /// Words 100-103: user addressable sectors (48-bit).
    pub fn lba48_sectors(&self) -> u64 {
        (100..104)
            .rev()
            .fold(0u64, |acc, i| (acc << 16) | self.word(i) as u64)
    }
}

/// Build IDENTIFY text as libata prints it (tests and fixture generation).
pub fn format_words(words: &[u16]) -> String {
    let mut s = String::new();
    for (i, w) in words.iter().enumerate() {
        s.push_str(&format!("{w:04x}"));
        s.push(if (i + 1) % 8 == 0 { '\n' } else { ' ' });
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put_str(words: &mut [u16], start: usize, len: usize, s: &str) {
        let mut b = s.as_bytes().to_vec();
        b.resize(len * 2, b' ');
        for i in 0..len {
            words[start + i] = (b[2 * i] as u16) << 8 | b[2 * i + 1] as u16;
        }
    }

    #[test]
    fn decodes_strings_and_fields() {
        let mut w = vec![0u16; 256];
        put_str(&mut w, 10, 10, "      ZFN0ABCD");
        put_str(&mut w, 23, 4, "0001");
        put_str(&mut w, 27, 20, "ST4000DM004-2CV104");
        w[75] = 31;
        w[76] = 0x010e;
        w[87] = 0x4100;
        w[108] = 0x5000;
        w[109] = 0xc500;
        w[110] = 0xa1b2;
        w[111] = 0xc3d4;
        w[217] = 5400;
        w[100] = 0x0000;
        w[101] = 0xd1c0;
        w[102] = 0x0001;
        let id = AtaIdentify::parse(&format_words(&w)).expect("256 words");
        assert_eq!(id.serial().as_deref(), Some("ZFN0ABCD"));
        assert_eq!(id.firmware().as_deref(), Some("0001"));
        assert_eq!(id.model().as_deref(), Some("ST4000DM004-2CV104"));
        assert_eq!(id.wwn().as_deref(), Some("naa.5000c500a1b2c3d4"));
        assert_eq!(id.rotation_rate(), Some(RotationRate::Rpm(5400)));
        assert_eq!(id.ncq_supported(), Some(true));
        assert_eq!(id.max_queue_depth(), 32);
        assert_eq!(id.max_sata_gbps(), Some(6.0));
        assert_eq!(id.lba48_sectors(), 0x0001_d1c0_0000);
        w[217] = 1;
        w[87] = 0x4000;
        let id = AtaIdentify::parse(&format_words(&w)).expect("256 words");
        assert_eq!(id.rotation_rate(), Some(RotationRate::NonRotating));
        assert_eq!(id.wwn(), None);
    }

    #[test]
    fn rejects_short_or_garbage() {
        assert!(AtaIdentify::parse("0000 0000").is_none());
        assert!(AtaIdentify::parse(&"zzzz ".repeat(256)).is_none());
    }
}
