//! drivescope-record: the typed run records.
//!
//! Every command that measures writes one of these records as a `"schema": "drivescope/1"` JSON document
//! (docs/json.md); the store saves them and the report reads them back as the same types. JSON is only how a
//! record is written and read: nothing after the engine indexes a document by string paths.
//!
//! Each kind of run is a struct with the common [`Header`] flattened into it; [`Document`] is any record read
//! back, with an `Unknown` variant for kinds written by newer versions. Fields added after the first version
//! carry serde defaults, so documents stored by older versions still read.

mod array;
mod bench;
mod capacity;
mod device;
mod diagnose;
mod diagnose_flush;
mod document;
pub mod durability;
mod engine;
mod extents;
mod finding;
mod fingerprint;
mod header;
mod info;
mod kind;
mod lab;
mod lab_truth;
mod liveness;
mod multi;
pub mod power_cut;
mod prediction;
mod replay;
mod same_device;
mod scan;
mod screen;
mod smr;
mod spots;
mod stamp;
mod state;
mod status;
mod steady;
mod steady_wa;
mod surface;
mod temperature;
mod throttle;
mod time;
mod typed;
mod verify;

pub use array::ArrayReads;
pub use bench::{
    BenchRecord, Load, RunValues, SoakGap, SoakRecord, SoakResume, Step, SweepCell, SweepRecord,
    TestResult, Workload,
};
pub use capacity::{
    CapacityClass, CapacityCosts, CapacityObservation, CapacityRecord, CapacityTruth,
};
pub use device::DeviceSummary;
pub use diagnose::{
    CurveSource, DiagnoseRecord, DiagnoseResume, Experiment, LinkData, Outcome, OwnFile,
    PositionRate, QueueingData, ShapeRate, Skipped, StreamData, StreamPoint, Verdict,
    WorkingSetData, WorkingSetPoint, WriteData, ZoneData,
};
pub use diagnose_flush::DiagnoseFlush;
pub use document::{Document, DocumentError, Record};
pub use engine::{DataPattern, EngineKind, Reap};
pub use extents::{FailedExtent, SlowRegion, EXTENT_LIST_CAP};
pub use finding::{Confidence, Evidence, Finding, FindingCode};
pub use fingerprint::{
    size_class_label, AccessPattern, DepthShare, Fingerprint, IoClass, IoDirection, ThinkTime,
    TimelinePoint,
};
pub use header::{Direction, Header, TargetInfo, TargetType, ToolInfo, SCHEMA};
pub use info::InfoRecord;
pub use kind::Kind;
pub use lab::{LabPreset, LabPresets, LabServed};
pub use lab_truth::{
    Cache, FlushTruth, QueueMode, Spot, Truth, TruthPosition, TruthZone, VanishTruth,
};
pub use multi::{MultiRecord, MultiRun, MultiTest, RankRate, RankResult, RankTest, RunWindow};
pub use prediction::{ClassPrediction, Prediction};
pub use replay::{ReplayClass, ReplayRecord, ReplayTotals};
pub use same_device::{drive_facts, drive_key, facts, serials, DeviceMatch};
pub use scan::{Checkpoint, CheckpointCost, Event, RateSummary, Region, ResumeState, ScanRecord};
pub use screen::{
    group_arrays, Criteria, DriveVerdict, Grade, History, Member, Reason, Rule, ScreenRecord,
    SharedPath,
};
pub use smr::{FlashTruth, RandomWrites, SmrData, SmrTruth, Stall, WritePoint, STALL_LIST_CAP};
pub use spots::{BadSpot, BadSpotKind, ExperimentSpots, Spots, SPOT_LIST_CAP};
pub use stamp::{hostname, now_rfc3339, rfc3339};
pub use state::RunState;
pub use status::RunStatus;
pub use steady::{
    IdleBurst, IdleRecovery, IdleSegment, PurgeRefused, SteadyCell, SteadyCellSpec,
    SteadyPrecondition, SteadyPurge, SteadyRecord, SteadyResume, SteadyRound, SteadyState,
    SteadyTest, SteadyVerdict, SteadyWindow,
};
pub use steady_wa::SteadyWriteAmplification;
pub use surface::{Area, AreaKind, ErrorBudget, Pass, PassState, Surface, UntriedExtent};
pub use temperature::{TemperaturePoint, TemperatureSeries, TruthTemperature};
pub use throttle::{ThrottleData, ThrottleTruth};
pub use time::{
    CgroupIo, DeviceIo, IoSource, ModeResult, ModeSummary, Spread, TimeMode, TimeRecord, TimedRun,
};
pub use typed::FromDocument;
pub use verify::{Extent, VerifyReport, VerifyTotals};

/// Re-exported so users of the records name the same identity type.
pub use drivescope_probe::{Array, ArrayKind, Identity, Member as ArrayMember, LAB_FS_NAME};
