//! Serde helpers: sizes (`64K`, `1G` or bytes) and durations (`8ms`, `30s` or seconds) in models.

use drivescope_core::units::{parse_duration, parse_size};
use serde::{de::Error, Deserialize, Deserializer};

#[derive(Deserialize)]
#[serde(untagged)]
enum Text {
    Int(u64),
    Float(f64),
    Str(String),
}

/// A size: an integer number of bytes or a string such as `64K`, `256MiB`.
pub fn de_size<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    match Text::deserialize(d)? {
        Text::Int(v) => Ok(v),
        Text::Float(_) => Err(D::Error::custom("a size is a whole number of bytes")),
        Text::Str(s) => parse_size(&s).map_err(D::Error::custom),
    }
}

/// A duration in nanoseconds: a number of seconds or a string such as `250us`, `8ms`, `30s`.
pub fn de_duration_ns<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    let secs = match Text::deserialize(d)? {
        Text::Int(v) => v as f64,
        Text::Float(v) => v,
        Text::Str(s) => parse_duration(&s).map_err(D::Error::custom)?.as_secs_f64(),
    };
    if !secs.is_finite() || secs < 0.0 {
        return Err(D::Error::custom("a duration must be non-negative"));
    }
    Ok((secs * 1e9).round() as u64)
}
