//! SIGINT / SIGTERM: the first asks the run to stop and keep its results; a second ends
//! the process at once.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

pub fn stop_on_interrupt(stop: &Arc<AtomicBool>) -> anyhow::Result<()> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    for sig in [SIGINT, SIGTERM] {
        // A second signal while `stop` is already set exits with 130.
        signal_hook::flag::register_conditional_shutdown(sig, 130, stop.clone())?;
        signal_hook::flag::register(sig, stop.clone())?;
    }
    Ok(())
}
