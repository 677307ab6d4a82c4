//! drivescope-lab
