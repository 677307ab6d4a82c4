//! What a request's query may hold, checked before anything reads the store: every value has a
//! bounded length and, where it names something, a bounded alphabet. Values reach the store only
//! as bound parameters.

use crate::fail::Fail;

/// The query's pairs, in order (a key may repeat: `run=1&run=2`).
pub(crate) fn pairs(raw: Option<&str>) -> Result<Vec<(String, String)>, Fail> {
    let raw = raw.unwrap_or("");
    if raw.len() > 4096 {
        return Err(Fail::bad("the query is too long"));
    }
    serde_urlencoded::from_str(raw).map_err(|_| Fail::bad("the query is not a form's query"))
}

/// The one value of `key`, if given and not empty.
pub(crate) fn one<'a>(pairs: &'a [(String, String)], key: &str) -> Option<&'a str> {
    pairs
        .iter()
        .rev()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.trim())
        .filter(|v| !v.is_empty())
}

/// Free text (a device's model, serial or path): at most 200 characters, no control characters.
pub(crate) fn text(v: Option<&str>, what: &str) -> Result<Option<String>, Fail> {
    match v {
        Some(t) if t.chars().count() > 200 || t.chars().any(char::is_control) => Err(Fail::bad(
            format!("{what}: at most 200 printable characters"),
        )),
        t => Ok(t.map(str::to_string)),
    }
}

/// A run kind: lower-case letters and `_`.
pub(crate) fn kind(v: Option<&str>) -> Result<Option<String>, Fail> {
    match v {
        Some(k) if k.len() > 32 || !k.bytes().all(|b| b.is_ascii_lowercase() || b == b'_') => {
            Err(Fail::bad("kind: a run kind such as scan, bench or sweep"))
        }
        k => Ok(k.map(str::to_string)),
    }
}

/// A date or date-time prefix (`2026-11`, `2026-11-24T10:00`).
pub(crate) fn date(v: Option<&str>, what: &str) -> Result<Option<String>, Fail> {
    match v {
        Some(d)
            if d.len() > 35
                || !d
                    .bytes()
                    .all(|b| b.is_ascii_digit() || b"-T:Z.+".contains(&b)) =>
        {
            Err(Fail::bad(format!("{what}: a date such as 2026-11-24")))
        }
        d => Ok(d.map(str::to_string)),
    }
}

/// A page number, 1 when not given.
pub(crate) fn page(v: Option<&str>) -> Result<usize, Fail> {
    match v {
        None => Ok(1),
        Some(p) => p
            .parse::<usize>()
            .ok()
            .filter(|&p| (1..=1_000_000_000).contains(&p))
            .ok_or_else(|| Fail::bad("page: a number from 1")),
    }
}

/// A run number.
pub(crate) fn run_id(v: &str) -> Result<i64, Fail> {
    v.parse::<i64>()
        .ok()
        .filter(|&n| n > 0)
        .ok_or_else(|| Fail::bad(format!("{v:?} is not a run number")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_may_reach_the_store() {
        assert_eq!(
            kind(Some("quick_scan")).unwrap().as_deref(),
            Some("quick_scan")
        );
        assert!(kind(Some("scan' OR 1=1 --")).is_err());
        assert!(date(Some("2026-11-24T10:00"), "since").is_ok());
        assert!(date(Some("2026-11-24; DROP"), "since").is_err());
        assert!(text(Some("WDC WD40EFRX"), "device").is_ok());
        assert!(text(Some("a\u{0}b"), "device").is_err());
        assert!(text(Some(&"x".repeat(201)), "device").is_err());
        assert_eq!(page(None).unwrap(), 1);
        assert!(page(Some("0")).is_err() && page(Some("-1")).is_err() && page(Some("x")).is_err());
        assert!(run_id("12").is_ok() && run_id("../etc").is_err() && run_id("0").is_err());
        let p = pairs(Some("run=1&run=2&device=a%20b")).unwrap();
        assert_eq!(one(&p, "device"), Some("a b"));
        assert_eq!(p.iter().filter(|(k, _)| k == "run").count(), 2);
        assert!(pairs(Some(&"a=b&".repeat(2000))).is_err());
    }
}
