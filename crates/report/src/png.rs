//! The charts as PNG: the report's own SVG rendered by resvg with an embedded DejaVu Sans, so no system font,
//! fontconfig or freetype is involved and the PNG shows exactly what the HTML shows.

use crate::charts::Chart;
use crate::{Error, Result};
use resvg::{tiny_skia, usvg};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

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
