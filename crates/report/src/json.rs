//! JSON: each run's document (`"schema": "drivescope/1"`, docs/json.md) as saved, pretty-printed, one after
//! another.

use crate::exporter::Exporter;
use crate::{Result, Run};
use std::io::Write;

/// The documents of the runs, each pretty-printed and ended by a newline.
pub struct Json;

impl Exporter for Json {
    fn export(&self, runs: &[Run], out: &mut dyn Write) -> Result<()> {
        for run in runs {
            serde_json::to_writer_pretty(&mut *out, &run.doc).map_err(std::io::Error::from)?;
            out.write_all(b"\n")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample;
    use drivescope_record::Document;

    #[test]
    fn documents_one_after_another_as_saved() {
        let runs = [
            Run::new(Some(1), sample::bench(1)),
            Run::new(Some(2), sample::soak(2, 30)),
        ];
        let text = String::from_utf8(Json.to_bytes(&runs).unwrap()).unwrap();
        assert!(text.ends_with("}\n"));
        let docs: Vec<Document> = serde_json::Deserializer::from_str(&text)
            .into_iter::<serde_json::Value>()
            .map(|v| Document::from_value(v.unwrap()).unwrap())
            .collect();
        assert_eq!(docs.len(), 2);
        for (d, r) in docs.iter().zip(&runs) {
            assert_eq!(d.kind(), r.doc.kind());
            assert_eq!(
                d.header().unwrap().started_at,
                r.header().unwrap().started_at
            );
        }
        let one = String::from_utf8(Json.to_bytes(&runs[..1]).unwrap()).unwrap();
        assert_eq!(one.matches("\"schema\": \"drivescope/1\"").count(), 1);
        assert!(text.starts_with(&one));
    }
}
