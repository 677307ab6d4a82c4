//! Signal handling, all through signal-hook: handlers only set a flag the run polls.

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// SIGINT / SIGTERM: the first asks the run to stop and keep its results; a second ends
/// the process at once (exit 130).
pub fn stop_on_interrupt(stop: &Arc<AtomicBool>) -> anyhow::Result<()> {
    for sig in [SIGINT, SIGTERM] {
        // A second signal while `stop` is already set exits with 130.
        signal_hook::flag::register_conditional_shutdown(sig, 130, stop.clone())?;
        signal_hook::flag::register(sig, stop.clone())?;
    }
    Ok(())
}

/// SIGINT / SIGTERM / SIGHUP set `stop`, every time: for a server that must always get to
/// tear down what it set up (a mount, a loop device), however often it is signalled.
pub fn stop_on_hangup_or_interrupt(stop: &Arc<AtomicBool>) -> anyhow::Result<()> {
    for sig in [SIGINT, SIGTERM, SIGHUP] {
        signal_hook::flag::register(sig, stop.clone())?;
    }
    Ok(())
}
