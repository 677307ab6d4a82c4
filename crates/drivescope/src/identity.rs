//! The identity recorded with every run: `drivescope info`'s description of the target.

use drivescope_probe::{identify, Identity, Roots};
use std::path::Path;

/// The target's identity, or None (with a warning) when it cannot be read.
pub fn of(spec: &str) -> Option<Identity> {
    match identify(Path::new(spec), &Roots::default()) {
        Ok(id) => Some(id),
        Err(e) => {
            eprintln!("drivescope: warning: could not identify {spec}: {e:#}");
            None
        }
    }
}
