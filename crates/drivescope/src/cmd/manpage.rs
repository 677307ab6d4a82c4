//! `drivescope manpage`: the roff man page, generated from the command-line definitions;
//! with `--dir`, one page per command (drivescope.1, drivescope-scan.1, …).

use crate::finish::Outcome;
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct ManpageArgs {
    /// Write drivescope.1 and one page per subcommand (drivescope-scan.1, …) into DIR
    /// (created if missing) instead of printing drivescope.1.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

pub fn run(a: ManpageArgs) -> anyhow::Result<Outcome> {
    match &a.dir {
        Some(dir) => {
            for path in write_all(dir)? {
                eprintln!("{}", path.display());
            }
        }
        None => {
            let mut page = vec![];
            write(&mut page)?;
            crate::finish::print_all(&page)?;
        }
    }
    Ok(Outcome::Success)
}

/// The command as the pages show it: without the `help` subcommand, which has no page.
fn command() -> clap::Command {
    let mut cmd = crate::cli().disable_help_subcommand(true);
    cmd.build();
    cmd
}

/// A page, its footer naming drivescope's version (a subcommand has none of its own), its
/// synopsis naming what each option takes.
fn man(cmd: clap::Command) -> clap_mangen::Man {
    let usage = synopsis(&cmd);
    clap_mangen::Man::new(cmd.override_usage(usage))
        .source(format!("drivescope {}", crate::version::VERSION))
}

/// The command's synopsis with the argument of every option that takes one (`[--block-size
/// SIZE]`), which the generated one leaves out: a reader of the page sees `--offset` takes a
/// value without turning to the option's entry.
fn synopsis(cmd: &clap::Command) -> String {
    let name = cmd.get_bin_name().unwrap_or_else(|| cmd.get_name());
    let mut words = vec![name.to_string()];
    let value = |a: &clap::Arg| -> String {
        match a.get_value_names() {
            Some(v) => v
                .iter()
                .map(|n| n.to_string())
                .collect::<Vec<_>>()
                .join(" "),
            None => a.get_id().as_str().to_uppercase(),
        }
    };
    let visible: Vec<&clap::Arg> = cmd.get_arguments().filter(|a| !a.is_hide_set()).collect();
    for a in visible.iter().filter(|a| !a.is_positional()) {
        let flag = match (a.get_short(), a.get_long()) {
            (Some(s), Some(l)) => format!("-{s}|--{l}"),
            (Some(s), None) => format!("-{s}"),
            (None, Some(l)) => format!("--{l}"),
            (None, None) => continue,
        };
        let takes =
            a.get_action().takes_values() && a.get_num_args().is_none_or(|n| n.takes_values());
        let one = if takes {
            format!("{flag} {}", value(a))
        } else {
            flag
        };
        let many = matches!(a.get_action(), clap::ArgAction::Append) && !a.is_required_set();
        let one = if many { format!("{one}...") } else { one };
        words.push(if a.is_required_set() {
            one
        } else {
            format!("[{one}]")
        });
    }
    for a in visible.iter().filter(|a| a.is_positional()) {
        let many = a.get_num_args().is_some_and(|n| n.max_values() > 1);
        let v = format!("{}{}", value(a), if many { "..." } else { "" });
        words.push(if a.is_required_set() {
            v
        } else {
            format!("[{v}]")
        });
    }
    if cmd.has_subcommands() {
        words.push("<COMMAND>".into());
    }
    words.join(" ")
}

/// Write drivescope.1.
pub fn write(out: &mut dyn std::io::Write) -> std::io::Result<()> {
    man(command()).render(out)
}

/// Write drivescope.1 and a page for every subcommand into `dir`; returns the files written.
pub fn write_all(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let mut written = vec![];
    fn each(cmd: clap::Command, dir: &Path, written: &mut Vec<PathBuf>) -> std::io::Result<()> {
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
            each(sub.clone(), dir, written)?;
        }
        written.push(man(cmd).generate_to(dir)?);
        Ok(())
    }
    each(command(), dir, &mut written)?;
    written.reverse();
    Ok(written)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Every subcommand of the command-line definitions, nested ones too, as its path of
    /// names (`["lab", "serve"]`); hidden ones are left out as they are from help.
    pub fn every_command() -> Vec<Vec<String>> {
        fn walk(cmd: &clap::Command, path: &[String], out: &mut Vec<Vec<String>>) {
            for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
                let mut p = path.to_vec();
                p.push(sub.get_name().to_string());
                walk(sub, &p, out);
                out.push(p);
            }
        }
        let mut out = vec![];
        walk(&crate::cli(), &[], &mut out);
        out
    }

    #[test]
    fn the_page_lists_every_subcommand() {
        let mut out = vec![];
        write(&mut out).unwrap();
        let page = String::from_utf8(out).unwrap();
        assert!(page.contains(".TH drivescope 1"), "{page}");
        for path in every_command().iter().filter(|p| p.len() == 1) {
            assert!(
                page.contains(&format!("drivescope\\-{}(1)", path[0])),
                "no {path:?} in the page"
            );
        }
    }

    /// The synopsis names what an option takes (`--block-size SIZE`), as `--help` does, and
    /// leaves a flag bare.
    #[test]
    fn the_synopsis_names_option_arguments() {
        let dir = std::env::temp_dir().join(format!("drivescope-syn-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        write_all(&dir).unwrap();
        let page = std::fs::read_to_string(dir.join("drivescope-scan.1")).unwrap();
        let capacity = std::fs::read_to_string(dir.join("drivescope-capacity.1")).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        let syn = |p: &str| {
            let from = p.find(".SH SYNOPSIS").expect("a synopsis");
            let to = p[from..].find(".SH DESCRIPTION").unwrap() + from;
            p[from..to].replace("\\-", "-")
        };
        let scan = syn(&page);
        for want in [
            "[--block-size BLOCK_SIZE]",
            "[--queue-depth QUEUE_DEPTH]",
            "[--offset OFFSET]",
            "[--resume RUN]",
            "[--json]",
            "[-q|--quiet]",
            "[TARGET]",
        ] {
            assert!(scan.contains(want), "{want} not in {scan}");
        }
        assert!(!scan.contains("--json JSON"), "{scan}");
        let cap = syn(&capacity);
        assert!(cap.contains("[--block SIZE]"), "{cap}");
    }

    #[test]
    fn dir_gets_one_page_per_command() {
        let dir = std::env::temp_dir().join(format!("drivescope-man-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let written = write_all(&dir).unwrap();
        let mut expected = vec![dir.join("drivescope.1")];
        for path in every_command() {
            expected.push(dir.join(format!("drivescope-{}.1", path.join("-"))));
        }
        let listed: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        let _ = std::fs::remove_dir_all(&dir);
        let sorted = |mut v: Vec<PathBuf>| {
            v.sort();
            v
        };
        assert_eq!(sorted(written), sorted(expected.clone()));
        assert_eq!(sorted(listed), sorted(expected));
    }
}
