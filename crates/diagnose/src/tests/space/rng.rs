//! A small deterministic generator (SplitMix64): the same seed draws the same devices on every machine.

/// Core's SplitMix64 (whose seed is mixed once more as it starts: undone here, so a seed draws
/// what it drew when this generator kept its own state).
pub struct Rng(drivescope_core::rng::Rng);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(drivescope_core::rng::Rng::new(seed ^ 0x9E37_79B9_7F4A_7C15))
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }
    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }
    /// Log-uniform in [lo, hi): sizes and rates spread over decades.
    pub fn log(&mut self, lo: f64, hi: f64) -> f64 {
        (lo.ln() + (hi.ln() - lo.ln()) * self.unit()).exp()
    }
    /// Uniform integer in [lo, hi].
    pub fn int(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next_u64() % (hi - lo + 1)
    }
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }
}
