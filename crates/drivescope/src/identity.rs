//! The identity recorded with every run: `drivescope info`'s description of the target.

use drivescope_probe::{identify, Roots};
use std::path::Path;

/// The target's identity as JSON, or null (with a warning) when it cannot be read.
pub fn of(spec: &str) -> serde_json::Value {
    match identify(Path::new(spec), &Roots::default()) {
        Ok(id) => serde_json::to_value(id).unwrap_or(serde_json::Value::Null),
        Err(e) => {
            eprintln!("drivescope: warning: could not identify {spec}: {e:#}");
            serde_json::Value::Null
        }
    }
}
