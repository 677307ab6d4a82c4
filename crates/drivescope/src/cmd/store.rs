//! `drivescope store`: looking after results stores.

use crate::finish::Outcome;
use crate::opts::store::shown;
use anyhow::Context;
use drivescope_store::{Location, Store};

#[derive(clap::Args)]
pub struct StoreArgs {
    #[command(subcommand)]
    command: StoreCommand,
}

#[derive(clap::Subcommand)]
enum StoreCommand {
    /// Copy every run of store FROM into store TO (SQLite to PostgreSQL, back, or any two).
    ///
    /// Each store is a SQLite file or a PostgreSQL connection string, read as `--store` reads
    /// them; TO is created when missing. A run TO already holds is skipped: a run is identified
    /// by its document (the same record, numbers compared by value), so copying again adds
    /// nothing. Runs get TO's own numbers, oldest first. Prints how many runs were copied and
    /// skipped.
    #[command(verbatim_doc_comment)]
    Copy {
        /// The store to copy from (it is only read).
        #[arg(value_name = "FROM", value_parser = crate::opts::store::location_parser())]
        from: Location,
        /// The store to copy into.
        #[arg(value_name = "TO", value_parser = crate::opts::store::location_parser())]
        to: Location,
        /// Print what was copied as one JSON document on stdout (see docs/json.md).
        #[arg(long)]
        json: bool,
    },
}

pub fn run(a: StoreArgs) -> anyhow::Result<Outcome> {
    match a.command {
        StoreCommand::Copy { from, to, json } => copy(&from, &to, json),
    }
}

fn copy(from: &Location, to: &Location, json: bool) -> anyhow::Result<Outcome> {
    // A SQLite source must exist: opening would create an empty one.
    if let Some(p) = from.path().filter(|p| !p.exists()) {
        anyhow::bail!("no store at {}", p.display());
    }
    if from == to {
        anyhow::bail!("FROM and TO are the same store ({})", shown(from));
    }
    let source =
        Store::open(from).with_context(|| format!("opening the results store {}", shown(from)))?;
    let mut dest =
        Store::open(to).with_context(|| format!("opening the results store {}", shown(to)))?;
    let done = drivescope_store::copy(&source, &mut dest)
        .with_context(|| format!("copying runs into {}", shown(to)))?;
    for (id, why) in &done.unreadable {
        eprintln!("drivescope: run {id} of {} not copied: {why}", shown(from));
    }
    if json {
        let unreadable: Vec<serde_json::Value> = done
            .unreadable
            .iter()
            .map(|(id, why)| serde_json::json!({"run": id.0, "error": why}))
            .collect();
        crate::finish::print_json(&serde_json::json!({
            "schema": drivescope_record::SCHEMA,
            "from": shown(from),
            "to": shown(to),
            "copied": done.copied,
            "skipped": done.skipped,
            "unreadable": unreadable,
        }))?;
    } else {
        crate::finish::print_all(
            format!(
                "{} copied, {} skipped (already in {}){}\n",
                done.copied,
                done.skipped,
                shown(to),
                match done.unreadable.len() {
                    0 => String::new(),
                    n => format!(", {n} unreadable"),
                }
            )
            .as_bytes(),
        )?;
    }
    Ok(if done.unreadable.is_empty() {
        Outcome::Success
    } else {
        Outcome::Failed
    })
}
