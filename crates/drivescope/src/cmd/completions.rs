//! `drivescope completions SHELL`: the shell's completion script, generated from the
//! command-line definitions.

use crate::finish::Outcome;
use clap::CommandFactory;
use clap_complete::Shell;

#[derive(clap::Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: Shell,
}

pub fn run(a: CompletionsArgs) -> anyhow::Result<Outcome> {
    let mut script = vec![];
    write(a.shell, &mut script);
    crate::finish::print_all(&script)?;
    Ok(Outcome::Success)
}

/// Write the completion script for `shell`.
pub fn write(shell: Shell, out: &mut dyn std::io::Write) {
    clap_complete::generate(shell, &mut crate::Cli::command(), "drivescope", out);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmd::manpage::tests::every_command;

    fn script(shell: Shell) -> String {
        let mut out = vec![];
        write(shell, &mut out);
        String::from_utf8(out).unwrap()
    }

    /// Whether `script` completes the subcommand at `path`, where clap_complete puts it for
    /// that very command (each name is also listed under `help`, which must not count): a
    /// case label in bash, an entry of the parent's command list in zsh, a `-a NAME` line
    /// under the parent in fish.
    fn completes(shell: Shell, script: &str, path: &[String]) -> bool {
        let (name, parents) = path.split_last().unwrap();
        match shell {
            Shell::Bash => {
                let parent: Vec<&str> = std::iter::once("drivescope")
                    .chain(parents.iter().map(String::as_str))
                    .collect();
                script.contains(&format!(" {},{name})", parent.join("__subcmd__")))
            }
            Shell::Zsh => {
                let parent: String = parents.iter().map(|p| format!("__subcmd__{p}")).collect();
                let head = format!("\n_drivescope{parent}_commands() {{");
                script.find(&head).is_some_and(|at| {
                    let body = &script[at + head.len()..];
                    body[..body.find("\n}").unwrap_or(body.len())].contains(&format!("'{name}:"))
                })
            }
            Shell::Fish => {
                let under = if parents.is_empty() {
                    "__fish_drivescope_needs_command\"".to_string()
                } else {
                    format!(
                        "__fish_drivescope_using_subcommand {}; and not",
                        parents.join(" ")
                    )
                };
                let arg = format!("-a \"{name}\"");
                script
                    .lines()
                    .any(|l| l.contains(&under) && l.contains(&arg))
            }
            _ => unreachable!(),
        }
    }

    #[test]
    fn every_subcommand_is_completed_in_each_shell() {
        let paths = every_command();
        assert!(paths.iter().any(|p| p == &["lab", "serve"]), "{paths:?}");
        let mut missing = vec![];
        for shell in [Shell::Bash, Shell::Zsh, Shell::Fish] {
            let s = script(shell);
            for path in &paths {
                if !completes(shell, &s, path) {
                    missing.push(format!("{shell}: {}", path.join(" ")));
                }
            }
        }
        assert!(
            missing.is_empty(),
            "not in the completion scripts: {missing:?}"
        );
    }

    #[test]
    fn bash_script_parses() {
        let Ok(bash) = which("bash") else {
            eprintln!("bash is not installed: the script's syntax was not checked");
            return;
        };
        let file =
            std::env::temp_dir().join(format!("drivescope-completion-{}.bash", std::process::id()));
        std::fs::write(&file, script(Shell::Bash)).unwrap();
        let out = std::process::Command::new(bash)
            .arg("-n")
            .arg(&file)
            .output()
            .unwrap();
        let _ = std::fs::remove_file(&file);
        assert!(
            out.status.success(),
            "bash -n: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    fn which(program: &str) -> Result<std::path::PathBuf, ()> {
        std::env::var_os("PATH")
            .iter()
            .flat_map(std::env::split_paths)
            .map(|d| d.join(program))
            .find(|p| p.is_file())
            .ok_or(())
    }
}
