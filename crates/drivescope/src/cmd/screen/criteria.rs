//! `--criteria FILE`: the verdict rules of `drivescope screen` as a small TOML file. Its keys are the
//! criteria's names (docs/json.md); a latency is a duration (`max_latency = "500ms"`). Keys left out keep
//! their defaults; an unknown key is an error, so a typo never silently keeps a default.

use anyhow::Context;
use drivescope_record::Criteria;
use serde::Deserialize;
use std::path::Path;

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct CriteriaFile {
    max_failed_sectors: Option<u64>,
    max_verify_errors: Option<u64>,
    max_slow_commands: Option<u64>,
    max_latency: Option<String>,
    below_siblings_pct: Option<f64>,
    below_stretch_pct: Option<f64>,
    below_history_pct: Option<f64>,
}

fn percent(name: &str, v: Option<f64>) -> anyhow::Result<Option<f64>> {
    match v {
        Some(p) if !(0.0..=100.0).contains(&p) => {
            anyhow::bail!("{name} = {p}: a percentage from 0 to 100")
        }
        v => Ok(v),
    }
}

/// The criteria of `text` (a criteria file's contents) over `base`.
pub fn parse(text: &str, base: Criteria) -> anyhow::Result<Criteria> {
    let f: CriteriaFile = toml::from_str(text)?;
    let mut c = base;
    if let Some(v) = f.max_failed_sectors {
        c.max_failed_sectors = v;
    }
    if let Some(v) = f.max_verify_errors {
        c.max_verify_errors = v;
    }
    if let Some(v) = f.max_slow_commands {
        c.max_slow_commands = v;
    }
    if let Some(v) = &f.max_latency {
        let d = crate::opts::args::parse_duration(v)
            .map_err(|e| anyhow::anyhow!("max_latency: {e}"))?;
        c.max_latency_ns = d.as_nanos() as u64;
    }
    if let Some(v) = percent("below_siblings_pct", f.below_siblings_pct)? {
        c.below_siblings_pct = v;
    }
    if let Some(v) = percent("below_stretch_pct", f.below_stretch_pct)? {
        c.below_stretch_pct = v;
    }
    if let Some(v) = percent("below_history_pct", f.below_history_pct)? {
        c.below_history_pct = v;
    }
    Ok(c)
}

/// The criteria file at `path` over the defaults.
pub fn load(path: &Path) -> anyhow::Result<Criteria> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    parse(&text, Criteria::default()).with_context(|| format!("{}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_left_out_keep_their_defaults() {
        let c = parse(
            "max_slow_commands = 3\nmax_latency = \"1s\"\n",
            Criteria::default(),
        )
        .unwrap();
        assert_eq!(c.max_slow_commands, 3);
        assert_eq!(c.max_latency_ns, 1_000_000_000);
        assert_eq!(c.below_siblings_pct, Criteria::default().below_siblings_pct);
        assert_eq!(parse("", Criteria::default()).unwrap(), Criteria::default());
    }

    #[test]
    fn typos_and_nonsense_are_errors() {
        let e = parse("max_slow = 3", Criteria::default()).unwrap_err();
        assert!(format!("{e:#}").contains("max_slow"), "{e:#}");
        assert!(parse("below_siblings_pct = 130", Criteria::default()).is_err());
        assert!(parse("max_latency = \"soon\"", Criteria::default()).is_err());
        assert!(parse("max_failed_sectors = -1", Criteria::default()).is_err());
    }
}
