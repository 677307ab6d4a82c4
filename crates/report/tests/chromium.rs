//! The HTML report in a real browser: headless Chromium (Debian package `chromium`) loads the page with no
//! console messages, every chart is in the DOM with exactly as many data marks as the runs have points, and a
//! screenshot is not blank. Without Chromium this test FAILS: CI must install it.

mod browser;

use browser::{console_messages, run_chromium};
use drivescope_report::{html, sample, Run};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn file_url(page: &Path) -> String {
    format!("file://{}", page.display())
}

/// Figures in the dumped DOM: id -> (data-marks claimed, marks actually present).
fn figures(dom: &str) -> Vec<(String, usize, usize)> {
    let mut out = Vec::new();
    for part in dom.split("<figure").skip(1) {
        let fig = &part[..part.find("</figure>").expect("figure closes")];
        let open = &fig[..fig.find('>').unwrap()];
        let attr = |tag: &str, name: &str| -> Option<String> {
            let start = tag.find(&format!(" {name}=\""))? + name.len() + 3;
            Some(tag[start..start + tag[start..].find('"')?].to_string())
        };
        let id = attr(open, "id").expect("figure id");
        let claimed: usize = attr(open, "data-marks")
            .expect("data-marks")
            .parse()
            .unwrap();
        let mut present = 0;
        for tag in fig.split('<').skip(1) {
            let tag = &tag[..tag.find('>').unwrap_or(tag.len())];
            if tag.contains(" class=\"mark\"") {
                present += 1;
            } else if tag.starts_with("polyline") && tag.contains(" class=\"mark-line\"") {
                let points = attr(tag, "points").expect("points");
                let n = points
                    .split_whitespace()
                    .filter(|p| p.contains(','))
                    .count();
                assert_eq!(
                    attr(tag, "data-points").unwrap().parse::<usize>().unwrap(),
                    n,
                    "{id}: data-points"
                );
                present += n;
            }
        }
        out.push((id, claimed, present));
    }
    out
}

fn len(doc: &Value, path: &[&str]) -> usize {
    path.iter()
        .try_fold(doc, |v, k| v.get(k))
        .and_then(Value::as_array)
        .map_or(0, Vec::len)
}

fn runs() -> Vec<Run> {
    let docs = sample::gallery();
    docs.into_iter()
        .enumerate()
        .map(|(i, d)| Run::new(Some(i as i64 + 1), d))
        .collect()
}

/// What the documents say each chart must show: chart id -> data points.
fn expected(runs: &[Run]) -> Vec<(String, usize)> {
    let mut e = vec![(
        "chart-curve".to_string(),
        runs.iter()
            .map(|r| {
                let d = r.doc.to_value();
                len(&d, &["curve"]) + len(&d, &["failed_extents"]) + len(&d, &["slow_regions"])
            })
            .sum(),
    )];
    e.push((
        "chart-bench".into(),
        runs.iter()
            .filter(|r| r.kind() == "bench")
            .map(|r| len(&r.doc.to_value(), &["tests"]))
            .sum(),
    ));
    for r in runs {
        let id = r.id.unwrap();
        for (chart, path) in [
            ("regions", &["regions"][..]),
            ("histogram", &["histogram", "buckets"]),
            ("sweep", &["cells"]),
        ] {
            if len(&r.doc.to_value(), path) > 0 {
                e.push((
                    format!("chart-{chart}-run{id}"),
                    len(&r.doc.to_value(), path),
                ));
            }
        }
        if r.kind() == "soak" {
            e.push((
                format!("chart-series-run{id}"),
                len(&r.doc.to_value(), &["series"]),
            ));
        }
    }
    e.sort();
    e
}

#[test]
fn console_check_catches_errors() {
    // The check must be able to fail: a page that logs an error is caught.
    let dir = tempdir("control");
    let page = dir.join("bad.html");
    std::fs::write(
        &page,
        "<html><body><script>console.error('boom'); missingFunction();</script></body></html>",
    )
    .unwrap();
    let (_, stderr) = run_chromium(&dir, &file_url(&page), &["--dump-dom".into()]);
    let msgs = console_messages(&stderr);
    assert!(
        msgs.iter().any(|m| m.contains("boom")),
        "console.error not seen: {stderr}"
    );
    assert!(
        msgs.iter().any(|m| m.contains("missingFunction")),
        "uncaught error not seen"
    );
}

#[test]
fn report_loads_with_every_chart_and_mark_and_is_not_blank() {
    let dir = tempdir("report");
    let runs = runs();
    let (html, _) = html::render(&runs, "drivescope report").unwrap();
    let page = dir.join("report.html");
    std::fs::write(&page, &html).unwrap();

    let (dom, stderr) = run_chromium(&dir, &file_url(&page), &["--dump-dom".into()]);
    assert!(
        dom.contains("</html>"),
        "no DOM dumped; chromium said:\n{stderr}"
    );
    let msgs = console_messages(&stderr);
    assert!(msgs.is_empty(), "console messages:\n{}", msgs.join("\n"));

    let mut found: Vec<(String, usize)> = figures(&dom)
        .into_iter()
        .map(|(id, claimed, present)| {
            assert_eq!(
                claimed, present,
                "{id}: data-marks says {claimed}, DOM has {present}"
            );
            (id, present)
        })
        .collect();
    found.sort();
    assert_eq!(
        found,
        expected(&runs),
        "charts and their marks (id, points) against the documents"
    );

    let shot = dir.join("shot.png");
    let (_, stderr) = run_chromium(
        &dir,
        &file_url(&page),
        &[
            format!("--screenshot={}", shot.display()),
            "--window-size=1000,2400".into(),
        ],
    );
    let file = std::fs::File::open(&shot)
        .unwrap_or_else(|e| panic!("no screenshot ({e}); chromium said:\n{stderr}"));
    let (w, h, gray) = decode_gray(file);
    assert!(w >= 1000 && h >= 2400, "screenshot {w}x{h}");
    let (mean, var, ink) = stats(&gray);
    eprintln!(
        "screenshot {w}x{h}: mean {mean:.1}, variance {var:.1}, non-white {:.1} %",
        ink * 100.0
    );
    assert!(
        var > 100.0 && ink > 0.02,
        "screenshot looks blank: variance {var:.1}, non-white {ink:.4}"
    );
}

#[test]
fn a_screen_page_loads_with_its_table_and_charts() {
    let dir = tempdir("screen");
    let r = sample::screen(1, 4);
    let points: usize = r
        .members
        .iter()
        .map(|m| m.scan.as_ref().unwrap().curve.len())
        .sum();
    let (html, _) = html::render(&[Run::new(Some(9), r)], "drivescope screen").unwrap();
    let page = dir.join("screen.html");
    std::fs::write(&page, &html).unwrap();
    let (dom, stderr) = run_chromium(&dir, &file_url(&page), &["--dump-dom".into()]);
    assert!(
        dom.contains("</html>"),
        "no DOM dumped; chromium said:\n{stderr}"
    );
    let msgs = console_messages(&stderr);
    assert!(msgs.is_empty(), "console messages:\n{}", msgs.join("\n"));
    assert!(dom.contains("<table class=\"screen\">"), "{dom}");
    assert!(dom.contains("<td class=\"num worst\">3</td>"), "{dom}");
    let figs = figures(&dom);
    for (id, claimed, present) in &figs {
        assert_eq!(
            claimed, present,
            "{id}: data-marks says {claimed}, DOM has {present}"
        );
    }
    let curve = figs
        .iter()
        .find(|f| f.0 == "chart-screen-curve-run9")
        .expect("curves");
    assert_eq!(curve.2, points);
    assert!(figs
        .iter()
        .any(|f| f.0 == "chart-screen-bands-run9" && f.2 > 0));
    let _ = std::fs::remove_dir_all(&dir);
}

pub fn decode_gray(file: std::fs::File) -> (u32, u32, Vec<u8>) {
    let decoder = png::Decoder::new(std::io::BufReader::new(file));
    let mut reader = decoder.read_info().expect("png header");
    let mut buf = vec![0; reader.output_buffer_size().expect("png size")];
    let info = reader.next_frame(&mut buf).expect("png frame");
    assert_eq!(info.bit_depth, png::BitDepth::Eight);
    let channels = info.color_type.samples();
    let gray = buf[..info.buffer_size()]
        .chunks(channels)
        .map(|p| {
            if channels >= 3 {
                ((p[0] as u32 + p[1] as u32 + p[2] as u32) / 3) as u8
            } else {
                p[0]
            }
        })
        .collect();
    (info.width, info.height, gray)
}

/// Mean, variance and share of clearly non-white pixels.
pub fn stats(gray: &[u8]) -> (f64, f64, f64) {
    let n = gray.len() as f64;
    let mean = gray.iter().map(|&g| g as f64).sum::<f64>() / n;
    let var = gray.iter().map(|&g| (g as f64 - mean).powi(2)).sum::<f64>() / n;
    let ink = gray.iter().filter(|&&g| g < 200).count() as f64 / n;
    (mean, var, ink)
}

fn tempdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("drivescope-chromium-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}
