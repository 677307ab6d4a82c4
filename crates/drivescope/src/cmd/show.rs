//! `drivescope show RUN`: one stored run, printed as the command printed it when it ran; a run
//! whose document is a checkpoint says first whether it still runs.

use crate::finish::Outcome;
use crate::opts::store::{load, StorePath};
use drivescope_report::json::Json;
use drivescope_report::text::Text;

#[derive(clap::Args)]
pub struct ShowArgs {
    /// Run number (see `drivescope runs`) or `last`.
    pub run: String,
    /// Print the stored JSON document instead.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub store: StorePath,
}

pub fn run(a: ShowArgs) -> anyhow::Result<Outcome> {
    let store = a.store.open()?;
    let runs = load(&store, std::slice::from_ref(&a.run))?;
    if let Some(line) = runs.first().and_then(checkpoint_line) {
        eprintln!("drivescope: {line}");
    }
    if a.json {
        super::emit(&Json, &runs, None)?;
    } else {
        // Each kind prints with its command's own summary; documents it cannot read, generically.
        super::emit(&Text::Summary, &runs, None)?;
    }
    Ok(Outcome::Success)
}

/// For a run saved as a checkpoint, how it stands now, in the words `runs` and `serve` use.
fn checkpoint_line(run: &drivescope_report::Run) -> Option<String> {
    let c = run.doc.checkpoint()?;
    let id = run.id?;
    let when = run.doc.header().map_or("", |h| h.ended_at.as_str());
    let status = drivescope_record::RunStatus::of(&run.doc)?;
    Some(match status {
        drivescope_record::RunStatus::Running => format!(
            "run {id} is {status} (process {}); this is its last checkpoint, of {when}",
            c.pid
        ),
        _ => format!(
            "run {id} is {status}: its process ended before the run did; this is its last checkpoint, of {when}"
        ),
    })
}
