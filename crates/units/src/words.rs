//! A count and its noun, in the number the count asks for: `1 round`, `2 rounds`, `0 blocks`.

/// `n` and the noun, plural unless `n` is 1: `count(1, "round")` is `1 round`, `count(3,
/// "block")` is `3 blocks`. Nouns that do not take a plain `s` go through [`count_as`].
pub fn count(n: u64, one: &str) -> String {
    count_as(n, one, &format!("{one}s"))
}

/// `n` and the noun given in both numbers: `count_as(2, "flush", "flushes")`.
pub fn count_as(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_is_singular_and_every_other_count_plural() {
        assert_eq!(count(1, "round"), "1 round");
        assert_eq!(count(0, "block"), "0 blocks");
        assert_eq!(count(2, "block"), "2 blocks");
        assert_eq!(count_as(1, "flush", "flushes"), "1 flush");
        assert_eq!(count_as(5, "flush", "flushes"), "5 flushes");
    }
}
