//! Arguments become plans: one typed value per command, checked once (sizes, tests, rw modes, ranges),
//! that the command runs in one process or every rank runs under an MPI launcher. A plan holds no
//! open device: each process opens its own target from it.

pub mod bench;
pub mod capacity;
pub mod scan;
pub mod soak;
pub mod steady;
pub mod sweep;
