//! A small SVG writer: elements, attributes and escaping; just what the charts need, so that every data mark
//! can carry a class and data attributes (which plotters' SVG backend cannot), and so the PNG is rendered from
//! the very same SVG.

pub mod axis;
pub mod frame;

use std::fmt::Write;

/// Colours for runs, distinguishable on screen and in grey print (paired with dash patterns for writes).
pub const PALETTE: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2",
];

/// The font the PNG renderer embeds; browsers fall back to any sans-serif.
pub const FONT: &str = "DejaVu Sans, Verdana, Arial, sans-serif";

/// An SVG document being written.
pub struct Svg {
    out: String,
}

/// Escapes text and attribute values for XML.
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

/// A number for a coordinate: two decimals at most, no trailing zeros.
pub fn n(v: f64) -> String {
    let s = format!("{v:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".into()
    } else {
        s.to_string()
    }
}

impl Svg {
    /// Starts a `width` × `height` drawing with an accessible title.
    pub fn new(width: f64, height: f64, title: &str) -> Svg {
        let mut s = Svg { out: String::new() };
        let _ = write!(
            s.out,
            r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}" width="{w}" height="{h}" role="img" font-family="{f}" font-size="12">"#,
            w = n(width),
            h = n(height),
            f = esc(FONT)
        );
        s.leaf("title", &[], Some(title));
        s.leaf(
            "rect",
            &[
                ("width", n(width)),
                ("height", n(height)),
                ("fill", "#ffffff".into()),
            ],
            None,
        );
        s
    }

    fn attrs(&mut self, attrs: &[(&str, String)]) {
        for (k, v) in attrs {
            let _ = write!(self.out, r#" {k}="{}""#, esc(v));
        }
    }

    /// `<tag attrs>`; close with [`Svg::close`].
    pub fn open(&mut self, tag: &str, attrs: &[(&str, String)]) {
        let _ = write!(self.out, "<{tag}");
        self.attrs(attrs);
        self.out.push('>');
    }

    pub fn close(&mut self, tag: &str) {
        let _ = write!(self.out, "</{tag}>");
    }

    /// `<tag attrs/>` or `<tag attrs>text</tag>`.
    pub fn leaf(&mut self, tag: &str, attrs: &[(&str, String)], text: Option<&str>) {
        let _ = write!(self.out, "<{tag}");
        self.attrs(attrs);
        match text {
            Some(t) => {
                let _ = write!(self.out, ">{}</{tag}>", esc(t));
            }
            None => self.out.push_str("/>"),
        }
    }

    /// Text at (x, y); `anchor` is start, middle or end.
    pub fn text(&mut self, x: f64, y: f64, anchor: &str, extra: &[(&str, String)], text: &str) {
        let mut a = vec![
            ("x", n(x)),
            ("y", n(y)),
            ("text-anchor", anchor.to_string()),
        ];
        a.extend(extra.iter().cloned());
        self.leaf("text", &a, Some(text));
    }

    pub fn line(
        &mut self,
        x1: f64,
        y1: f64,
        x2: f64,
        y2: f64,
        stroke: &str,
        extra: &[(&str, String)],
    ) {
        let mut a = vec![
            ("x1", n(x1)),
            ("y1", n(y1)),
            ("x2", n(x2)),
            ("y2", n(y2)),
            ("stroke", stroke.to_string()),
        ];
        a.extend(extra.iter().cloned());
        self.leaf("line", &a, None);
    }

    /// A data line: one `<polyline class="mark-line">` whose `points` hold every point and whose
    /// `data-points` says how many, so a reader (or a test) can count the marks exactly.
    pub fn data_line(&mut self, points: &[(f64, f64)], color: &str, dashed: bool, series: &str) {
        let mut p = String::with_capacity(points.len() * 12);
        for (i, (x, y)) in points.iter().enumerate() {
            if i > 0 {
                p.push(' ');
            }
            let _ = write!(p, "{},{}", n(*x), n(*y));
        }
        let mut a = vec![
            ("class", "mark-line".to_string()),
            ("data-series", series.to_string()),
            ("data-points", points.len().to_string()),
            ("points", p),
            ("fill", "none".into()),
            ("stroke", color.to_string()),
            ("stroke-width", "1.5".into()),
            ("stroke-linejoin", "round".into()),
        ];
        if dashed {
            a.push(("stroke-dasharray", "6 3".into()));
        }
        self.leaf("polyline", &a, None);
    }

    pub fn finish(mut self) -> String {
        self.out.push_str("</svg>");
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_and_formats() {
        assert_eq!(esc(r#"a<b & "c""#), "a&lt;b &amp; &quot;c&quot;");
        assert_eq!(n(1.0), "1");
        assert_eq!(n(1.256), "1.26");
        assert_eq!(n(-0.001), "0");
        let mut s = Svg::new(10.0, 10.0, "t<");
        s.data_line(&[(0.0, 1.0), (2.5, 3.0)], "#000", false, "r");
        let out = s.finish();
        assert!(
            out.contains(r#"data-points="2" points="0,1 2.5,3""#),
            "{out}"
        );
        assert!(out.contains("<title>t&lt;</title>"));
    }
}
