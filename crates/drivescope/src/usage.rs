//! Usage errors in the tool's own style: one line, `drivescope: …`, exit 2, and where to read
//! more, as every other error is written. Help and the version print as clap prints them.

use clap::error::{ContextKind, ContextValue, ErrorKind};

/// Print a command-line error as one line, a usage error for `finish` to exit with (help and
/// `--version` print and exit 0 as clap does).
pub fn said(e: clap::Error) -> crate::finish::Outcome {
    if !e.use_stderr() || e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
        e.exit()
    }
    eprintln!(
        "drivescope: {}",
        line(&e, &command_of(std::env::args().skip(1)))
    );
    crate::finish::Outcome::Usage
}

/// The command the arguments name (`drivescope scan`, `drivescope lab serve`): the words that
/// are subcommands, in order.
pub fn command_of(args: impl Iterator<Item = String>) -> String {
    let mut cmd = crate::cli();
    let mut words = vec!["drivescope".to_string()];
    for a in args {
        let Some(sub) = cmd.find_subcommand(&a).cloned() else {
            if a.starts_with('-') {
                continue;
            }
            // A value or a target: the command is named by now, or is no command.
            break;
        };
        words.push(sub.get_name().to_string());
        cmd = sub;
    }
    words.join(" ")
}

/// The error in one line: clap's message, its suggestion, and the help of `command` to read.
pub fn line(e: &clap::Error, command: &str) -> String {
    let rendered = e.render().to_string();
    let mut lines = rendered.lines();
    let first = lines
        .next()
        .unwrap_or_default()
        .trim_start_matches("error: ")
        .trim()
        .trim_end_matches(':')
        .to_string();
    // What clap lists under its first line: the missing arguments, the possible values.
    let mut listed: Vec<String> = Vec::new();
    for l in lines {
        if l.starts_with("  ") && !l.trim_start().starts_with("tip:") {
            let l = l.trim();
            listed.push(
                match l.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
                    Some(inner) => format!("({inner})"),
                    None => l.to_string(),
                },
            );
        }
    }
    let mut out = first;
    if !listed.is_empty() {
        let joined = listed.join(", ");
        if out.starts_with("the following required arguments were not provided") {
            out = format!("missing {joined}");
        } else {
            out = format!("{out} {joined}");
        }
    }
    out = out.replace(" found", "");
    for (kind, value) in e.context() {
        let words = match value {
            ContextValue::String(s) => s.clone(),
            ContextValue::Strings(v) => v.join("', '"),
            _ => continue,
        };
        match kind {
            ContextKind::SuggestedArg
            | ContextKind::SuggestedSubcommand
            | ContextKind::SuggestedValue => out += &format!(" (did you mean '{words}'?)"),
            _ => {}
        }
    }
    format!("{out}; see '{command} --help'")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> impl Iterator<Item = String> {
        a.iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
            .into_iter()
    }

    #[test]
    fn the_command_is_the_words_that_name_subcommands() {
        assert_eq!(
            command_of(args(&["scan", "null:1G", "--length", "-1"])),
            "drivescope scan"
        );
        assert_eq!(command_of(args(&["--bogus"])), "drivescope");
        assert_eq!(command_of(args(&["frobnicate", "scan"])), "drivescope");
        assert_eq!(
            command_of(args(&["lab", "serve", "x"])),
            "drivescope lab serve"
        );
        // a target named like a command is no command
        assert_eq!(command_of(args(&["info", "scan"])), "drivescope info");
    }
}
