//! The bench, sweep and soak records live in drivescope-record; named here too for the workloads.

pub use drivescope_record::{
    BenchRecord, Header, RunValues, SoakRecord, Step, SweepCell, SweepRecord, TestResult, Workload,
};
