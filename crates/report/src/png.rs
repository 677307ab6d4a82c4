//! PNG: the report page's charts, its own SVG rendered by resvg with an embedded DejaVu Sans, so no system
//! font, fontconfig or freetype is involved and the PNG shows exactly what the HTML shows.

use crate::charts::{self, Chart};
use crate::exporter::Exporter;
use crate::{Error, Result, Run};
use resvg::{tiny_skia, usvg};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

/// One chart of the runs' report page, by its id (`curve`, `bench`, `histogram-run3`, …).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Png {
    pub chart: String,
}

impl Exporter for Png {
    fn export(&self, runs: &[Run], out: &mut dyn std::io::Write) -> Result<()> {
        let charts = charts::build(runs);
        let chart = charts
            .iter()
            .find(|c| c.id == self.chart)
            .ok_or_else(|| Error::NoChart {
                chart: self.chart.clone(),
                charts: charts
                    .iter()
                    .map(|c| c.id.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            })?;
        Ok(out.write_all(&render(&chart.svg)?)?)
    }
}

/// Pixels per SVG unit: 2 gives 1800-pixel-wide charts, sharp in print.
pub const SCALE: f32 = 2.0;

fn fonts() -> Arc<usvg::fontdb::Database> {
    static DB: OnceLock<Arc<usvg::fontdb::Database>> = OnceLock::new();
    DB.get_or_init(|| {
        let mut db = usvg::fontdb::Database::new();
        db.load_font_data(dejavu::sans::regular().to_vec());
        db.load_font_data(dejavu::sans::bold().to_vec());
        db.set_sans_serif_family("DejaVu Sans");
        Arc::new(db)
    })
    .clone()
}

/// Renders one SVG document to PNG bytes.
pub fn render(svg: &str) -> Result<Vec<u8>> {
    let opt = usvg::Options {
        font_family: "DejaVu Sans".into(),
        fontdb: fonts(),
        ..usvg::Options::default()
    };
    let tree = usvg::Tree::from_str(svg, &opt).map_err(|e| Error::Png(e.to_string()))?;
    let size = tree
        .size()
        .to_int_size()
        .scale_by(SCALE)
        .ok_or_else(|| Error::Png("empty chart".into()))?;
    let mut pixmap = tiny_skia::Pixmap::new(size.width(), size.height())
        .ok_or_else(|| Error::Png("chart too large".into()))?;
    resvg::render(
        &tree,
        tiny_skia::Transform::from_scale(SCALE, SCALE),
        &mut pixmap.as_mut(),
    );
    pixmap.encode_png().map_err(|e| Error::Png(e.to_string()))
}

/// Writes every chart of the runs' report page to `dir/ID.png` (creating `dir`) and returns the paths.
pub fn write_runs(runs: &[Run], dir: &Path) -> Result<Vec<PathBuf>> {
    write_all(&charts::build(runs), dir)
}

/// Writes every chart to `dir/ID.png` (creating `dir`) and returns the paths.
pub fn write_all(charts: &[Chart], dir: &Path) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).map_err(|e| Error::Io(dir.to_path_buf(), e))?;
    charts
        .iter()
        .map(|c| {
            let path = dir.join(format!("{}.png", c.id));
            std::fs::write(&path, render(&c.svg)?).map_err(|e| Error::Io(path.clone(), e))?;
            Ok(path)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample;
    use drivescope_record::Direction;

    #[test]
    fn one_chart_by_its_id() {
        let runs = [Run::new(
            Some(1),
            sample::scan(1, 1 << 30, 100, 3, 0, Direction::Read),
        )];
        let png = Png {
            chart: "curve".into(),
        }
        .to_bytes(&runs)
        .unwrap();
        assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));
        let err = Png {
            chart: "sweep".into(),
        }
        .to_bytes(&runs)
        .unwrap_err();
        assert!(
            err.to_string().contains("(charts: curve, histogram-run1)"),
            "{err}"
        );
    }
}
