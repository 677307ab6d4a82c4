//! How a run issued its commands, as records name it.

use serde::{Deserialize, Serialize};

/// Which engine to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum EngineKind {
    #[default]
    Auto,
    IoUring,
    Psync,
    Null,
}

impl std::fmt::Display for EngineKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            EngineKind::Auto => "auto",
            EngineKind::IoUring => "io_uring",
            EngineKind::Psync => "psync",
            EngineKind::Null => "null",
        })
    }
}

/// How the io_uring engine waits for its completions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Reap {
    /// Poll where a wake-up per completion costs the run, sleep otherwise (the engine decides per run).
    #[default]
    Auto,
    /// Sleep in `io_uring_enter` until a completion arrives, as fio does.
    Sleep,
    /// Hybrid polling: watch the ring for a finished command, without sleeping, for a short budget, then
    /// sleep. It spends a CPU to save a sleep and a wake-up per completion.
    Poll,
}

impl Reap {
    /// What a stored document without the field reads as: every run waited by sleeping then.
    pub fn before_the_field() -> Reap {
        Reap::Sleep
    }
}

impl std::fmt::Display for Reap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Reap::Auto => "auto",
            Reap::Sleep => "sleep",
            Reap::Poll => "poll",
        })
    }
}

/// Content of write buffers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum DataPattern {
    /// Incompressible pseudo-random bytes (seeded per worker).
    #[default]
    Random,
    /// Zeros, for comparison with devices that compress.
    Zero,
}
