//! Option groups and value parsers that several commands share (and MPI runs read): the store, the write
//! gate, a workload's target and settings. Each command's own arguments live with the command in `cmd`.

pub mod args;
pub mod destructive;
pub mod scan;
pub mod store;
pub mod workload;
