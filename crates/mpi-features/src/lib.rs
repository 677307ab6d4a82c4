//! Empty: this crate only lists dependencies, so that a workspace build resolves the features the mpi
//! build adds (see its Cargo.toml).
