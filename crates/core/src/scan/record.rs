//! The scan and quick-scan records live in drivescope-record; named here too for the scan jobs.

pub use drivescope_record::{
    Checkpoint, CheckpointCost, RateSummary, ResumeState, ScanRecord, ToolInfo,
};

#[cfg(test)]
mod tests {
    use super::ScanRecord;
    use crate::engine::Live;
    use crate::engine::Reap;
    use crate::scan::{self, Observer, ScanConfig, Start};
    use crate::target::Target;
    use std::sync::atomic::AtomicBool;

    #[test]
    fn a_document_from_before_reap_reads_as_sleeping() {
        let target = Target::open_read("null:1M").unwrap();
        let stop = AtomicBool::new(false);
        let rec = scan::run(
            &Live(&target),
            &target,
            Start::New(&ScanConfig::default()),
            Observer::new(&stop),
        )
        .unwrap();
        let mut doc = serde_json::to_value(&rec).unwrap();
        assert!(doc.as_object_mut().unwrap().remove("reap").is_some());
        let old: ScanRecord = serde_json::from_value(doc).unwrap();
        assert_eq!(old.reap, Reap::Sleep);
    }
}
