//! Saving a run on PostgreSQL: identity row and document, in one transaction.

use crate::error::{Error, Result};
use crate::identity::Identity;
use crate::RunId;
use postgres::types::ToSql;
use postgres::{Client, GenericClient};

const IDENTITY_COLUMNS: &str = "kind, schema, started_at, ended_at, host, tool_version, target_path, target_type,
    target_size, device_model, device_serial, device_firmware, device_capacity, device_transport, device_name,
    state";

/// The identity columns' values, in [`IDENTITY_COLUMNS`] order.
fn values(id: &Identity) -> [Box<dyn ToSql + Sync + '_>; 16] {
    let d = &id.device;
    [
        Box::new(&id.kind),
        Box::new(&id.schema),
        Box::new(&id.started_at),
        Box::new(&id.ended_at),
        Box::new(&id.host),
        Box::new(&id.tool_version),
        Box::new(&id.target_path),
        Box::new(&id.target_type),
        Box::new(id.target_size),
        Box::new(&d.model),
        Box::new(&d.serial),
        Box::new(&d.firmware),
        Box::new(d.capacity.map(|c| c.min(i64::MAX as u64) as i64)),
        Box::new(&d.transport),
        Box::new(&d.name),
        Box::new(&id.state),
    ]
}

fn params<'a>(boxed: &'a [Box<dyn ToSql + Sync + 'a>]) -> Vec<&'a (dyn ToSql + Sync)> {
    boxed.iter().map(|b| b.as_ref()).collect()
}

/// The document as text, refused here when PostgreSQL's jsonb cannot hold it (a NUL character in a string).
fn text(json: &[u8]) -> Result<&str> {
    let s = std::str::from_utf8(json).expect("serde_json writes UTF-8");
    if s.contains("\\u0000") {
        return Err(Error::BadDocument(
            "PostgreSQL cannot store a NUL character (\\u0000) in a document".into(),
        ));
    }
    Ok(s)
}

pub(crate) fn save(client: &mut Client, id: &Identity, json: &[u8]) -> Result<RunId> {
    let doc = text(json)?;
    let mut tx = client.transaction()?;
    let boxed = values(id);
    let sql = format!(
        "INSERT INTO runs ({IDENTITY_COLUMNS}) VALUES ({}) RETURNING id",
        (1..=16)
            .map(|n| format!("${n}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let run: i64 = tx.query_one(&sql, &params(&boxed))?.try_get(0)?;
    write_document(&mut tx, run, doc, json.len(), false)?;
    tx.commit()?;
    Ok(RunId(run))
}

pub(crate) fn replace(client: &mut Client, run: RunId, id: &Identity, json: &[u8]) -> Result<()> {
    let doc = text(json)?;
    let mut tx = client.transaction()?;
    if !write_document(&mut tx, run.0, doc, json.len(), true)? {
        return Err(Error::NotFound(run.0));
    }
    tx.execute(
        "UPDATE runs SET saved_at = to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')
         WHERE id = $1",
        &[&run.0],
    )?;
    write_identity(&mut tx, run.0, id)?;
    tx.commit()?;
    Ok(())
}

/// Writes the identity columns of run `run` (the row must exist).
pub(crate) fn write_identity(tx: &mut impl GenericClient, run: i64, id: &Identity) -> Result<()> {
    let boxed = values(id);
    let set = IDENTITY_COLUMNS
        .split(',')
        .enumerate()
        .map(|(n, col)| format!("{} = ${}", col.trim(), n + 2))
        .collect::<Vec<_>>()
        .join(", ");
    let mut args: Vec<&(dyn ToSql + Sync)> = vec![&run];
    args.extend(params(&boxed));
    tx.execute(&format!("UPDATE runs SET {set} WHERE id = $1"), &args)?;
    Ok(())
}

/// Inserts (or with `update`, replaces) the document of run `run`; false when there was none to replace.
fn write_document(
    tx: &mut impl GenericClient,
    run: i64,
    doc: &str,
    json_bytes: usize,
    update: bool,
) -> Result<bool> {
    let sql = if update {
        "UPDATE run_documents SET document = $2::text::jsonb, json_bytes = $3 WHERE run_id = $1"
    } else {
        "INSERT INTO run_documents (run_id, document, json_bytes) VALUES ($1, $2::text::jsonb, $3)"
    };
    let n = tx.execute(sql, &[&run, &doc, &(json_bytes as i64)])?;
    Ok(n > 0)
}
