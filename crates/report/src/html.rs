//! HTML: the report page, one self-contained file (inline CSS and SVG; no scripts, no fonts, no network), or
//! the compare table alone as a fragment styled by the page's CSS.

use crate::charts::{self, Chart};
use crate::compare::Table;
use crate::doc::Run;
use crate::exporter::Exporter;
use minijinja::{context, Environment, Value as J};

mod multi;
mod screen;
use serde::Serialize;

const PAGE: &str = include_str!("../templates/report.html");
const COMPARE: &str = include_str!("../templates/compare.html");
const SCREEN: &str = include_str!("../templates/screen.html");
/// The report page's stylesheet (also the results browser's).
pub const STYLE: &str = include_str!("../templates/style.css");
const MULTI: &str = include_str!("../templates/multi.html");

fn env() -> Environment<'static> {
    let mut env = Environment::new();
    // The `.html` names turn on HTML auto-escaping; SVG and the compare table come in pre-escaped (`|safe`).
    env.add_template("report.html", PAGE)
        .expect("report template parses");
    env.add_template("compare.html", COMPARE)
        .expect("compare template parses");
    env.add_template("screen.html", SCREEN)
        .expect("screen template parses");
    env.add_template("multi.html", MULTI)
        .expect("multi template parses");
    env.add_template("style.css", STYLE)
        .expect("style template parses");
    env
}

#[derive(Serialize)]
struct RunRow {
    label: String,
    kind: String,
    device: String,
    target: String,
    host: String,
    started: String,
    ended: String,
    params: Vec<(String, String)>,
    /// (what, claim, how sure) of each finding.
    findings: Vec<(String, String, String)>,
}

fn run_row(r: &Run) -> RunRow {
    let h = r.header();
    let target = h
        .map(|h| {
            format!(
                "{} ({})",
                h.target.path,
                crate::format::bytes(h.target.size as f64)
            )
        })
        .unwrap_or_default();
    let s = |f: fn(&drivescope_record::Header) -> &String| h.map(f).cloned().unwrap_or_default();
    RunRow {
        label: r.label(),
        kind: r.kind(),
        device: r.device(),
        target,
        host: s(|h| &h.host),
        started: s(|h| &h.started_at),
        ended: s(|h| &h.ended_at),
        params: crate::params::of(&r.doc),
        findings: h
            .map(|h| {
                h.findings
                    .iter()
                    .map(|f| {
                        let what = f.code.as_str().replace('_', " ");
                        (what, f.claim.clone(), f.confidence.as_str().to_string())
                    })
                    .collect()
            })
            .unwrap_or_default(),
    }
}

/// Each run's findings beside the first chart that draws the run (its own chart, else the chart
/// its kind shares with other runs: scans' curves, benches' bars): chart id -> (run, what, claim,
/// how sure). Findings of runs no chart draws stay in the findings table only.
fn beside(
    runs: &[Run],
    charts: &[Chart],
) -> std::collections::BTreeMap<String, Vec<(String, String, String, String)>> {
    let mut out: std::collections::BTreeMap<String, Vec<_>> = Default::default();
    for (i, run) in runs.iter().enumerate() {
        let Some(h) = run.header().filter(|h| !h.findings.is_empty()) else {
            continue;
        };
        let own = format!("-{}", charts::slug(run, i));
        let shared = match run.kind().as_str() {
            "scan" => Some("curve"),
            "bench" => Some("bench"),
            _ => None,
        };
        let chart = charts
            .iter()
            .find(|c| c.id.ends_with(&own))
            .or_else(|| charts.iter().find(|c| Some(c.id.as_str()) == shared));
        if let Some(c) = chart {
            out.entry(c.id.clone())
                .or_default()
                .extend(h.findings.iter().map(|f| {
                    (
                        run.label(),
                        f.code.as_str().replace('_', " "),
                        f.claim.clone(),
                        f.confidence.as_str().to_string(),
                    )
                }));
        }
    }
    out
}

/// What the HTML shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Html {
    /// The report page with its charts (`drivescope report`).
    Page { title: String },
    /// The compare table as a fragment, `<table class="compare">` (`drivescope compare --format html`).
    Compare,
}

impl Exporter for Html {
    fn export(&self, runs: &[Run], out: &mut dyn std::io::Write) -> crate::Result<()> {
        let html = match self {
            Html::Page { title } => render(runs, title)?.0,
            Html::Compare => compare_table(&Table::new(runs))?,
        };
        Ok(out.write_all(html.as_bytes())?)
    }
}

/// The compare table as an HTML fragment (class best/worst on the marked cells).
pub fn compare_table(table: &Table) -> crate::Result<String> {
    Ok(env()
        .get_template("compare.html")?
        .render(context! { table => J::from(minijinja::value::Serde(table)) })?)
}

/// The whole report page for `runs`, with its charts (also returned, for PNG export or checks).
pub fn render(runs: &[Run], title: &str) -> crate::Result<(String, Vec<Chart>)> {
    render_with(runs, title, "")
}

/// [`render`] with `nav` (trusted HTML: links of the page that shows the report, such as the
/// results browser's) at the top of the body.
pub fn render_with(runs: &[Run], title: &str, nav: &str) -> crate::Result<(String, Vec<Chart>)> {
    let charts = charts::build(runs);
    let beside = beside(runs, &charts);
    let compare = compare_table(&Table::new(runs))?;
    let rows: Vec<RunRow> = runs.iter().map(run_row).collect();
    let html = env().get_template("report.html")?.render(context! {
        title,
        nav,
        beside => J::from(minijinja::value::Serde(&beside)),
        version => env!("CARGO_PKG_VERSION"),
        any_findings => rows.iter().any(|r| !r.findings.is_empty()),
        runs => J::from(minijinja::value::Serde(&rows)),
        compare,
        screens => J::from(minijinja::value::Serde(&runs.iter().filter_map(screen::view).collect::<Vec<_>>())),
        multis => J::from(minijinja::value::Serde(&runs.iter().filter_map(multi::view).collect::<Vec<_>>())),
        charts => J::from(minijinja::value::Serde(&charts)),
    })?;
    Ok((html, charts))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample;
    use drivescope_record::Direction;

    #[test]
    fn page_is_self_contained_and_escaped() {
        let mut doc = sample::scan(3, 1 << 30, 200, 5, 1, Direction::Read);
        doc.header.host = "<script>alert(1)</script>".into();
        let (html, charts) = render(&[Run::new(Some(7), doc)], "Report").unwrap();
        assert!(
            !html.contains("<script"),
            "no scripts, and document text is escaped"
        );
        assert!(html.contains("&lt;script&gt;"));
        for forbidden in ["http://", "https://", "@import", "url("] {
            let outside_ns = html.replace("http://www.w3.org/2000/svg", "");
            assert!(
                !outside_ns.contains(forbidden),
                "external reference {forbidden}"
            );
        }
        // 200 curve bins, and marks for the 5 slow regions and the failed extent.
        assert_eq!(charts.iter().find(|c| c.id == "curve").unwrap().marks, 206);
        assert!(html.contains(r#"data-points="200""#));
    }

    #[test]
    fn compare_fragment_marks_cells_and_escapes_text() {
        let mut docs = vec![sample::bench(1), sample::bench(2)];
        docs[0].header.target.path = "<b>".into();
        docs[0].header.device = None;
        let runs: Vec<Run> = docs
            .into_iter()
            .enumerate()
            .map(|(i, d)| Run::new(Some(i as i64 + 1), d))
            .collect();
        let html = String::from_utf8(Html::Compare.to_bytes(&runs).unwrap()).unwrap();
        assert!(html.starts_with("<table class=\"compare\">"), "{html}");
        assert!(
            html.contains("&lt;b&gt;") && !html.contains("<b>"),
            "{html}"
        );
        assert!(html.contains(r#"class="num best""#) && html.contains(r#"class="num worst""#));
        let page = Html::Page { title: "T".into() };
        let whole = String::from_utf8(page.to_bytes(&runs).unwrap()).unwrap();
        assert!(
            whole.contains(html.trim()),
            "the page carries the same table"
        );
    }

    #[test]
    fn findings_are_listed_with_their_run_and_only_when_there_are_any() {
        let (plain, _) = render(&[Run::new(Some(1), sample::bench(1))], "r").unwrap();
        assert!(!plain.contains("<h2>Findings</h2>"));
        let mut soak = sample::soak(2, 120);
        soak.header.findings = vec![drivescope_record::Finding::new(
            drivescope_record::FindingCode::WriteBurst,
            drivescope_record::Confidence::High,
            "burst 3100 MB/s for ~<b>, then 980 MB/s sustained".into(),
            &[("burst_mb_per_s", 3100.0)],
        )];
        let (html, _) = render(&[Run::new(Some(2), soak)], "r").unwrap();
        assert!(html.contains("<h2>Findings</h2>"));
        // Beside the chart it comes from, too: the soak's series.
        let figure = html
            .split(r#"id="chart-series-run2""#)
            .nth(1)
            .unwrap()
            .split("</figure>")
            .next()
            .unwrap();
        assert!(
            figure.contains(r#"<ul class="beside"><li><b>run 2, write burst</b>: burst 3100"#),
            "{figure}"
        );
        assert!(html.contains(
            "<tr><td>run 2</td><td>write burst</td><td>burst 3100 MB&#x2f;s for ~&lt;b&gt;, then 980 MB&#x2f;s sustained</td><td>high</td></tr>"
        ), "{html}");
    }
}
