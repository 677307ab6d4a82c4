//! drivescope-stats
