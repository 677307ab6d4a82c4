//! Argument types and value parsers that more than one subcommand uses. Subcommand files
//! import these from here, never from each other.

use drivescope_core::bench::{profile, TestSpec};
use drivescope_core::engine::{DataPattern, EngineKind, Reap};
use drivescope_core::units::{self, SizeOrPercent};
use std::time::Duration;

/// `--engine`.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum EngineArg {
    Auto,
    #[value(name = "io_uring", alias = "io-uring", alias = "uring")]
    IoUring,
    Psync,
    Null,
}

impl From<EngineArg> for EngineKind {
    fn from(e: EngineArg) -> Self {
        match e {
            EngineArg::Auto => EngineKind::Auto,
            EngineArg::IoUring => EngineKind::IoUring,
            EngineArg::Psync => EngineKind::Psync,
            EngineArg::Null => EngineKind::Null,
        }
    }
}

/// `--reap`: how io_uring waits for completions.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum ReapArg {
    Auto,
    Sleep,
    Poll,
}

impl From<ReapArg> for Reap {
    fn from(r: ReapArg) -> Self {
        match r {
            ReapArg::Auto => Reap::Auto,
            ReapArg::Sleep => Reap::Sleep,
            ReapArg::Poll => Reap::Poll,
        }
    }
}

/// `--data`: what write tests write.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum DataArg {
    Random,
    Zero,
}

impl From<DataArg> for DataPattern {
    fn from(d: DataArg) -> Self {
        match d {
            DataArg::Random => DataPattern::Random,
            DataArg::Zero => DataPattern::Zero,
        }
    }
}

/// `--rw`.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RwArg {
    Read,
    Write,
    Both,
    Mix,
}

/// A size with binary units (`64K`, `64KiB`, `1G`).
pub fn parse_size(s: &str) -> Result<u64, String> {
    units::parse_size(s).map_err(|e| e.to_string())
}

/// A size with binary units, or a percentage of the device (`50%`).
pub fn parse_size_or_percent(s: &str) -> Result<SizeOrPercent, String> {
    units::parse_size_or_percent(s).map_err(|e| e.to_string())
}

/// A size that must be above 0 (`--size`): 0 is bad input (exit code 2).
pub fn parse_positive_size(s: &str) -> Result<u64, String> {
    match parse_size(s)? {
        0 => Err("must be above 0".into()),
        n => Ok(n),
    }
}

/// The largest command a scan issues.
pub const MAX_BLOCK: u64 = 64 << 20;

/// A scan's command size (`--block-size`): whole 512-byte sectors, at least one, at most 64 MiB.
/// Whether it is a whole number of the device's own sectors is checked when it is opened.
pub fn parse_block_size(s: &str) -> Result<u64, String> {
    match parse_size(s)? {
        n if n < 512 => Err(format!(
            "{n} is too small: a command is at least one sector (512 B)"
        )),
        n if !n.is_multiple_of(512) => {
            Err(format!("{n} is not a whole number of 512-byte sectors"))
        }
        n if n > MAX_BLOCK => Err("over the 64 MiB limit".into()),
        n => Ok(n),
    }
}

/// The capacity probe's block (`--block`): a power of two of at least 4 KiB.
pub fn parse_probe_block(s: &str) -> Result<u64, String> {
    match parse_size(s)? {
        n if n >= 4096 && n.is_power_of_two() => Ok(n),
        _ => Err(format!("'{s}' is not a power of two of at least 4K")),
    }
}

/// Commands in flight (`--queue-depth`): 1 to 4096.
pub fn parse_queue_depth(s: &str) -> Result<u32, String> {
    match s.trim().parse::<u32>() {
        Ok(n) if (1..=4096).contains(&n) => Ok(n),
        _ => Err(format!("'{s}' is not a whole number from 1 to 4096")),
    }
}

/// A count that must be at least 1, as large as a `usize` holds (`--limit`).
pub fn parse_count_usize(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(0) => Err("must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!(
            "{s:?} is not a whole number from 1 to {}",
            usize::MAX
        )),
    }
}

/// A percentage above 0 and below 100, fractions allowed (`--below-siblings 12.5`).
pub fn parse_open_pct(s: &str) -> Result<f64, String> {
    match s.trim().trim_end_matches('%').parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 && v < 100.0 => Ok(v),
        _ => Err(format!("'{s}' is not a percentage above 0 and below 100")),
    }
}

/// A percentage from 1 to 100 (`--step`: a change of 0 % is no step).
pub fn parse_positive_pct(s: &str) -> Result<u8, String> {
    match parse_pct(s)? {
        0 => Err("must be above 0".into()),
        v => Ok(v),
    }
}

/// A range's length (`--length`): bytes or a percentage of the device, above 0.
pub fn parse_length(s: &str) -> Result<SizeOrPercent, String> {
    match parse_size_or_percent(s)? {
        SizeOrPercent::Bytes(0) => Err("must be above 0".into()),
        SizeOrPercent::Percent(p) if p <= 0.0 => Err("must be above 0%".into()),
        l => Ok(l),
    }
}

/// A duration (`3s`, `500ms`, `10m`).
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    units::parse_duration(s).map_err(|e| e.to_string())
}

/// A duration that must be above 0 (`--duration`, `--budget`, `--interval`): 0 is bad input, refused
/// with the other syntax errors (exit code 2).
pub fn parse_positive_duration(s: &str) -> Result<Duration, String> {
    match parse_duration(s)? {
        d if d.is_zero() => Err("must be above 0".into()),
        d => Ok(d),
    }
}

/// A count that must be at least 1 (`--runs`): 0 is bad input (exit code 2).
pub fn parse_count(s: &str) -> Result<u32, String> {
    match s.trim().parse::<u32>() {
        Ok(0) => Err("must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!(
            "{s:?} is not a whole number from 1 to {}",
            u32::MAX
        )),
    }
}

/// An interval that can be switched off (`--checkpoint`): `None` for `off` or `0`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Every(pub Option<Duration>);

/// The shortest checkpoint interval: a checkpoint holds the scan's queue empty for a moment.
pub const CHECKPOINT_MIN: Duration = Duration::from_millis(100);

/// Parse a checkpoint interval (`60s`, `5m`, `500ms`), or `off` / `0` for none.
pub fn parse_checkpoint(s: &str) -> Result<Every, String> {
    let t = s.trim();
    if t.eq_ignore_ascii_case("off") || t == "0" {
        return Ok(Every(None));
    }
    let d = parse_duration(t)?;
    if d.is_zero() {
        return Ok(Every(None));
    }
    if d < CHECKPOINT_MIN {
        return Err(format!(
            "'{s}' is shorter than {} ms, the shortest checkpoint interval (or `off` for none)",
            CHECKPOINT_MIN.as_millis()
        ));
    }
    Ok(Every(Some(d)))
}

/// A test name (`SEQ1M Q8T1`, `RND4K`): a bad one is a bad option value, refused by clap.
pub fn parse_test(s: &str) -> Result<TestSpec, String> {
    TestSpec::parse(s).map_err(|e| e.to_string())
}

/// A profile name (`default`, `nvme`, `peak`, `realworld`).
pub fn parse_profile(s: &str) -> Result<String, String> {
    profile(s).map(|_| s.to_string()).map_err(|e| e.to_string())
}

/// Parse `--error-budget`: `auto`, `none` (no limit) or a duration (`0` for none at all).
pub fn parse_error_budget(s: &str) -> Result<drivescope_core::scan::ErrorBudget, String> {
    use drivescope_core::scan::ErrorBudget;
    match s.trim() {
        "auto" => Ok(ErrorBudget::Auto),
        "none" => Ok(ErrorBudget::Unlimited),
        d => parse_duration(d)
            .map(|d| ErrorBudget::Ns(d.as_nanos().min(u64::MAX as u128) as u64))
            .map_err(|e| format!("{e}; or auto, or none for no limit")),
    }
}

/// Parse a percentage 0..=100.
pub fn parse_pct(s: &str) -> Result<u8, String> {
    match s.trim().trim_end_matches('%').parse::<u8>() {
        Ok(v) if v <= 100 => Ok(v),
        _ => Err(format!("'{s}' is not a percentage from 0 to 100")),
    }
}

/// A list of grid values (`1,2,4,8`).
#[derive(Debug, Clone)]
pub struct Grid(pub Vec<u32>);

/// Parse a comma-separated list of positive integers (`1,2,4,8`).
pub fn parse_list(s: &str) -> Result<Grid, String> {
    let v: Result<Vec<u32>, _> = s.split(',').map(|x| x.trim().parse::<u32>()).collect();
    match v {
        Ok(v) if !v.is_empty() && v.iter().all(|&x| (1..=4096).contains(&x)) => Ok(Grid(v)),
        _ => Err(format!(
            "'{s}' is not a list of numbers from 1 to 4096 such as 1,2,4,8"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentages() {
        assert_eq!(parse_pct("70"), Ok(70));
        assert_eq!(parse_pct(" 100% "), Ok(100));
        assert_eq!(parse_pct("0"), Ok(0));
        assert!(parse_pct("101").is_err());
        assert!(parse_pct("-1").is_err());
        assert!(parse_pct("x").is_err());
    }

    #[test]
    fn checkpoint_intervals() {
        assert_eq!(
            parse_checkpoint("60s"),
            Ok(Every(Some(Duration::from_secs(60))))
        );
        assert_eq!(
            parse_checkpoint("5m"),
            Ok(Every(Some(Duration::from_secs(300))))
        );
        assert_eq!(parse_checkpoint("100ms"), Ok(Every(Some(CHECKPOINT_MIN))));
        assert_eq!(parse_checkpoint("off"), Ok(Every(None)));
        assert_eq!(parse_checkpoint("OFF"), Ok(Every(None)));
        assert_eq!(parse_checkpoint("0"), Ok(Every(None)));
        assert_eq!(parse_checkpoint("0s"), Ok(Every(None)));
        assert!(parse_checkpoint("99ms").unwrap_err().contains("shortest"));
        assert!(parse_checkpoint("often").is_err());
    }

    #[test]
    fn grids() {
        assert_eq!(parse_list("1, 2,4").unwrap().0, vec![1, 2, 4]);
        assert_eq!(parse_list("4096").unwrap().0, vec![4096]);
        assert!(parse_list("0,1").is_err());
        assert!(parse_list("4097").is_err());
        assert!(parse_list("").is_err());
        assert!(parse_list("1,,2").is_err());
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 400, failure_persistence: None, ..Default::default() })]

        /// `--mix`, `--step`, `--qd`, `--threads`, `--profile`: any text is a value in range
        /// or one line saying what is expected.
        #[test]
        fn number_options_never_panic(s in proptest::prelude::prop_oneof![
            proptest::prelude::any::<String>(),
            "[0-9, %+-]{0,12}",
            "[0-9]{1,12}(,[0-9]{0,12}){0,4}",
        ]) {
            match parse_pct(&s) {
                Ok(v) => proptest::prop_assert!(v <= 100),
                Err(e) => proptest::prop_assert!(!e.contains('\n')),
            }
            match parse_list(&s) {
                Ok(g) => proptest::prop_assert!(!g.0.is_empty() && g.0.iter().all(|v| (1..=4096).contains(v))),
                Err(e) => proptest::prop_assert!(!e.contains('\n')),
            }
            if let Err(e) = parse_profile(&s).and(parse_test(&s).map(|_| String::new())) {
                proptest::prop_assert!(!e.contains('\n'));
            }
        }
    }

    #[test]
    fn sizes_and_durations() {
        assert_eq!(parse_size("64K"), Ok(65536));
        assert_eq!(parse_size("1GiB"), Ok(1 << 30));
        assert!(parse_size("12X").is_err());
        assert_eq!(parse_duration("50ms"), Ok(Duration::from_millis(50)));
        assert!(parse_duration("5 parsecs").is_err());
        assert!(parse_size_or_percent("150%").is_err());
    }
}
