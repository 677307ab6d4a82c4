//! The run row, written once for every backend: a record's identity into the columns of `runs`,
//! and a listed row back into a [`RunInfo`].

use crate::backend::{placeholders, Exec, Row, Val};
use crate::error::{Error, Result};
use crate::identity::Identity;
use crate::query::RunInfo;
use crate::RunId;

/// The identity columns of `runs`, in [`identity_values`] order.
#[rustfmt::skip]
const IDENTITY_COLUMNS: [&str; 16] = [
    "kind", "schema", "started_at", "ended_at", "host", "tool_version", "target_path",
    "target_type", "target_size", "device_model", "device_serial", "device_firmware",
    "device_capacity", "device_transport", "device_name", "state",
];

/// The identity columns' values, in [`IDENTITY_COLUMNS`] order.
fn identity_values(id: &Identity) -> [Val; 16] {
    let d = &id.device;
    [
        Val::Text(id.kind.clone()),
        Val::Text(id.schema.clone()),
        id.started_at.clone().into(),
        id.ended_at.clone().into(),
        id.host.clone().into(),
        id.tool_version.clone().into(),
        id.target_path.clone().into(),
        id.target_type.clone().into(),
        id.target_size.into(),
        d.model.clone().into(),
        d.serial.clone().into(),
        d.firmware.clone().into(),
        d.capacity.map(|c| c.min(i64::MAX as u64) as i64).into(),
        d.transport.clone().into(),
        d.name.clone().into(),
        id.state.clone().into(),
    ]
}

/// Adds the row of a new run and returns its number.
pub(crate) fn insert_run(tx: &mut dyn Exec, id: &Identity) -> Result<i64> {
    let sql = format!(
        "INSERT INTO runs ({}) VALUES ({}) RETURNING id",
        IDENTITY_COLUMNS.join(", "),
        placeholders(1, IDENTITY_COLUMNS.iter().map(|_| ""))
    );
    let rows = tx.query(&sql, &identity_values(id))?;
    match rows.first().map(|r| r.as_slice()) {
        Some([Val::Int(run)]) => Ok(*run),
        other => Err(Error::Unsupported(format!(
            "a new run's number came back as {other:?}"
        ))),
    }
}

/// Writes the identity columns of run `run` (the row must exist).
pub(crate) fn write_identity(tx: &mut dyn Exec, run: i64, id: &Identity) -> Result<()> {
    let set = IDENTITY_COLUMNS
        .iter()
        .enumerate()
        .map(|(n, col)| format!("{col} = ${}", n + 2))
        .collect::<Vec<_>>()
        .join(", ");
    let mut args = vec![Val::Int(run)];
    args.extend(identity_values(id));
    tx.execute(&format!("UPDATE runs SET {set} WHERE id = $1"), &args)?;
    Ok(())
}

/// What a listed row holds, in [`info_from_row`] order (`r`: runs, `d`: run_documents).
pub(crate) const INFO_COLUMNS: &str = "r.id, r.kind, r.started_at, r.ended_at, r.host, r.tool_version, r.target_path,
    r.target_type, r.target_size, r.device_model, r.device_serial, r.device_firmware, r.device_capacity,
    r.device_transport, r.saved_at, d.json_bytes, r.device_name, r.state";

/// A row of [`INFO_COLUMNS`] as the run's identity.
pub(crate) fn info_from_row(row: Row) -> Result<RunInfo> {
    let run = match row.first() {
        Some(Val::Int(run)) => *run,
        other => return Err(Error::Corrupt(0, format!("run number {other:?}"))),
    };
    let mut cols = row.into_iter().skip(1);
    let mut next = |name: &str| {
        cols.next()
            .ok_or_else(|| Error::Corrupt(run, format!("no {name} column")))
    };
    let text = |v: Val, name: &str| match v {
        Val::Null => Ok(None),
        Val::Text(s) => Ok(Some(s)),
        other => Err(Error::Corrupt(
            run,
            format!("{name} is {other:?}, not text"),
        )),
    };
    let int = |v: Val, name: &str| match v {
        Val::Null => Ok(None),
        Val::Int(n) => Ok(Some(n)),
        other => Err(Error::Corrupt(
            run,
            format!("{name} is {other:?}, not a number"),
        )),
    };
    let needed = |v: Option<String>, name: &str| {
        v.ok_or_else(|| Error::Corrupt(run, format!("{name} is missing")))
    };
    Ok(RunInfo {
        id: RunId(run),
        kind: needed(text(next("kind")?, "kind")?, "kind")?,
        started_at: text(next("started_at")?, "started_at")?,
        ended_at: text(next("ended_at")?, "ended_at")?,
        host: text(next("host")?, "host")?,
        tool_version: text(next("tool_version")?, "tool_version")?,
        target_path: text(next("target_path")?, "target_path")?,
        target_type: text(next("target_type")?, "target_type")?,
        target_size: int(next("target_size")?, "target_size")?,
        device_model: text(next("device_model")?, "device_model")?,
        device_serial: text(next("device_serial")?, "device_serial")?,
        device_firmware: text(next("device_firmware")?, "device_firmware")?,
        device_capacity: int(next("device_capacity")?, "device_capacity")?,
        device_transport: text(next("device_transport")?, "device_transport")?,
        saved_at: needed(text(next("saved_at")?, "saved_at")?, "saved_at")?,
        json_bytes: int(next("json_bytes")?, "json_bytes")?
            .ok_or_else(|| Error::Corrupt(run, "json_bytes is missing".into()))?,
        device_name: text(next("device_name")?, "device_name")?,
        state: text(next("state")?, "state")?
            .as_deref()
            .and_then(drivescope_record::RunState::parse),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_reads_back_field_by_field_and_a_wrong_type_is_damage() {
        let mut row: Row = (0..18).map(|n| Val::Text(format!("c{n}"))).collect();
        row[0] = Val::Int(7);
        row[8] = Val::Int(8);
        row[12] = Val::Null;
        row[15] = Val::Int(15);
        row[17] = Val::Text("finished".into());
        let info = info_from_row(row.clone()).unwrap();
        assert_eq!(info.id, RunId(7));
        assert_eq!(info.kind, "c1");
        assert_eq!(info.tool_version.as_deref(), Some("c5"));
        assert_eq!(info.target_size, Some(8));
        assert_eq!(info.device_capacity, None);
        assert_eq!(info.saved_at, "c14");
        assert_eq!(info.json_bytes, 15);
        assert_eq!(info.device_name.as_deref(), Some("c16"));
        assert_eq!(info.state, Some(drivescope_record::RunState::Finished));
        let mut bad = row.clone();
        bad[8] = Val::Text("8".into());
        assert!(matches!(info_from_row(bad), Err(Error::Corrupt(7, _))));
        let mut missing = row;
        missing[1] = Val::Null;
        assert!(matches!(info_from_row(missing), Err(Error::Corrupt(7, _))));
    }
}
