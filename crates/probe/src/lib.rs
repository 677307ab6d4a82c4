//! drivescope-probe
