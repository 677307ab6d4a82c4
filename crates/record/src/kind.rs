//! What a document records.

use serde::{Deserialize, Serialize};

/// The `kind` of a document. Kinds written by newer versions read as [`Kind::Other`], keeping their name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// `drivescope scan`: a full-range surface scan.
    Scan,
    /// `drivescope scan --quick`: 256 regions, a dwell at the head of each.
    QuickScan,
    /// `drivescope bench`.
    Bench,
    /// `drivescope sweep`.
    Sweep,
    /// `drivescope soak`.
    Soak,
    /// `drivescope diagnose`.
    Diagnose,
    /// `drivescope screen`: several drives scanned at once.
    Screen,
    /// `drivescope time`: a command timed cold and warm.
    Time,
    /// `drivescope bench` run by several ranks at once under an MPI launcher.
    Multi,
    /// `drivescope info`.
    Info,
    /// `drivescope capacity`: the real capacity of a drive that may fake its size.
    Capacity,
    /// `drivescope steady`: an SSD's steady state by the SNIA PTS method.
    Steady,
    /// `drivescope durability`: what a commit costs, and whether flushes reach the media.
    Durability,
    /// `drivescope lab truth`: a lab model's ground truth.
    LabTruth,
    /// `drivescope lab presets`.
    LabPresets,
    /// `drivescope lab serve`.
    LabServe,
    /// `drivescope replay`: a kept trace issued again on a target. A check of a prediction made there and
    /// then against the trace it replays, not kept in the store (the trace file is what is kept).
    Replay,
    /// A kind this version does not know.
    #[serde(untagged)]
    Other(String),
}

impl Kind {
    /// The kinds of run the results store keeps (the measuring commands'), as help texts list them.
    pub const SAVED: &'static [Kind] = &[
        Kind::Scan,
        Kind::QuickScan,
        Kind::Bench,
        Kind::Sweep,
        Kind::Soak,
        Kind::Diagnose,
        Kind::Screen,
        Kind::Time,
        Kind::Multi,
        Kind::Capacity,
        Kind::Steady,
        Kind::Durability,
        Kind::Replay,
    ];

    /// The name as documents write it.
    pub fn as_str(&self) -> &str {
        match self {
            Kind::Scan => "scan",
            Kind::QuickScan => "quick_scan",
            Kind::Bench => "bench",
            Kind::Sweep => "sweep",
            Kind::Soak => "soak",
            Kind::Diagnose => "diagnose",
            Kind::Screen => "screen",
            Kind::Time => "time",
            Kind::Multi => "multi",
            Kind::Info => "info",
            Kind::Capacity => "capacity",
            Kind::Steady => "steady",
            Kind::Durability => "durability",
            Kind::LabTruth => "lab_truth",
            Kind::LabPresets => "lab_presets",
            Kind::LabServe => "lab_serve",
            Kind::Replay => "replay",
            Kind::Other(s) => s,
        }
    }

    /// Parses a name as documents write it (any unknown name is [`Kind::Other`]).
    pub fn parse(name: &str) -> Kind {
        serde_json::from_value(serde_json::Value::String(name.to_string()))
            .unwrap_or_else(|_| Kind::Other(name.to_string()))
    }
}

impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::Kind;

    #[test]
    fn names_round_trip_and_unknown_names_are_kept() {
        for k in [
            Kind::Scan,
            Kind::QuickScan,
            Kind::Bench,
            Kind::Sweep,
            Kind::Soak,
            Kind::Screen,
            Kind::Time,
            Kind::Multi,
            Kind::Info,
            Kind::Capacity,
            Kind::Steady,
            Kind::Durability,
            Kind::LabTruth,
            Kind::LabPresets,
            Kind::LabServe,
            Kind::Replay,
        ] {
            let json = serde_json::to_value(&k).unwrap();
            assert_eq!(json, serde_json::Value::String(k.as_str().into()));
            assert_eq!(Kind::parse(k.as_str()), k);
        }
        let future: Kind = serde_json::from_str("\"timing\"").unwrap();
        assert_eq!(future, Kind::Other("timing".into()));
        assert_eq!(serde_json::to_string(&future).unwrap(), "\"timing\"");
    }

    /// Whether the store keeps runs of `k`: a match without a catch-all, so a new kind is decided here.
    fn saved(k: &Kind) -> bool {
        match k {
            Kind::Scan
            | Kind::QuickScan
            | Kind::Bench
            | Kind::Sweep
            | Kind::Soak
            | Kind::Diagnose
            | Kind::Screen
            | Kind::Time
            | Kind::Multi
            | Kind::Capacity
            | Kind::Steady
            | Kind::Durability
            | Kind::Replay => true,
            Kind::Info | Kind::LabTruth | Kind::LabPresets | Kind::LabServe | Kind::Other(_) => {
                false
            }
        }
    }

    #[test]
    fn the_saved_kinds_are_every_kind_a_run_is_saved_as() {
        for k in Kind::SAVED {
            assert!(saved(k), "{k} is listed as saved");
        }
        let all = [
            Kind::Scan,
            Kind::QuickScan,
            Kind::Bench,
            Kind::Sweep,
            Kind::Soak,
            Kind::Diagnose,
            Kind::Screen,
            Kind::Time,
            Kind::Multi,
            Kind::Capacity,
            Kind::Steady,
            Kind::Durability,
            Kind::Info,
            Kind::LabTruth,
            Kind::LabPresets,
            Kind::LabServe,
            Kind::Replay,
        ];
        for k in all.iter().filter(|k| saved(k)) {
            assert!(Kind::SAVED.contains(k), "{k} is saved but not listed");
        }
    }
}
