//! The guided power-cut test's result: what the storage kept of the records it acknowledged.

use serde::{Deserialize, Serialize};

/// What stood where an acknowledged record should have been.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FoundInstead {
    /// Zeros: nothing of the test was ever on the media there.
    Zeros,
    /// An older record of the same run (the slot's previous generation).
    OlderRecord,
    /// A record of another run.
    OtherRun,
    /// The record's header, its data not matching its checksum: part of it reached the media.
    Torn,
    /// Anything else.
    Other,
}

impl FoundInstead {
    pub fn words(self) -> &'static str {
        match self {
            FoundInstead::Zeros => "zeros",
            FoundInstead::OlderRecord => "an older record",
            FoundInstead::OtherRun => "another run's record",
            FoundInstead::Torn => "torn (part of it there, its checksum wrong)",
            FoundInstead::Other => "other data",
        }
    }
}

/// One acknowledged record the storage did not keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PowerCutLoss {
    /// The record's number (0 is the first written).
    pub number: u64,
    /// Its byte offset in the target.
    pub offset: u64,
    pub found: FoundInstead,
    /// The number of the record found instead, when one was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub found_number: Option<u64>,
}

/// `durability --verify`: the records the log says were acknowledged, checked on the target.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PowerCutCheck {
    /// The log the acknowledgements were read from.
    pub log: String,
    /// The run's identity (hex), written in every record and in the log's first line.
    pub run: String,
    /// Bytes per record, and where the record area begins and how many records it holds
    /// (record `n` is at `offset + (n mod slots) × record_bytes`).
    pub record_bytes: u64,
    pub offset: u64,
    pub slots: u64,
    /// Records the log holds (numbered 0 up): each was flushed and acknowledged.
    pub acknowledged: u64,
    /// Acknowledged records still expected on the target (the newest `slots` of them).
    pub checked: u64,
    /// Of those, intact.
    pub kept: u64,
    /// Acknowledged records missing (something else in their place) and torn.
    pub lost_count: u64,
    pub torn_count: u64,
    /// The first lost or torn records (at most 100), with what was found instead.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub losses: Vec<PowerCutLoss>,
    /// Records after the last acknowledged one found intact (written, never acknowledged:
    /// allowed either way).
    pub unacknowledged_found: u64,
}

impl PowerCutCheck {
    /// The storage broke its promise: an acknowledged record is lost or torn.
    pub fn broken(&self) -> bool {
        self.lost_count + self.torn_count > 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_says_when_the_promise_broke() {
        let mut c = PowerCutCheck {
            log: "/mnt/usb/cut.log".into(),
            run: "00ff".into(),
            record_bytes: 4096,
            slots: 100,
            acknowledged: 7,
            checked: 7,
            kept: 7,
            ..Default::default()
        };
        assert!(!c.broken());
        c.kept = 5;
        c.lost_count = 1;
        c.torn_count = 1;
        c.losses = vec![PowerCutLoss {
            number: 6,
            offset: 24576,
            found: FoundInstead::Torn,
            found_number: Some(6),
        }];
        assert!(c.broken());
        let text = serde_json::to_string(&c).unwrap();
        assert!(text.contains("\"found\":\"torn\""), "{text}");
        assert_eq!(serde_json::from_str::<PowerCutCheck>(&text).unwrap(), c);
    }
}
