//! The target of one rank of a multi-rank run: `{rank}` and `{host}` in the target given
//! are replaced by the rank's number and its host name, so each rank can have its own file,
//! directory or null target.

/// `template` with every `{rank}` and `{host}` filled in.
pub fn expand(template: &str, rank: u32, host: &str) -> String {
    template
        .replace("{rank}", &rank.to_string())
        .replace("{host}", host)
}

#[cfg(test)]
mod tests {
    use super::expand;

    #[test]
    fn each_placeholder_is_filled_every_time_it_appears() {
        assert_eq!(
            expand("/scratch/{host}/ds-{rank}/f{rank}", 7, "node03"),
            "/scratch/node03/ds-7/f7"
        );
        assert_eq!(expand("null:1G", 3, "a"), "null:1G");
        assert_eq!(expand("{rank}{rank}", 12, "h"), "1212");
    }
}
