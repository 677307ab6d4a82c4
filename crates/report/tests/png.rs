//! PNG charts: rendered from the same SVG with the embedded font, not blank, text drawn.

use drivescope_record::Direction;
use drivescope_report::{charts, png, sample, Run};

#[test]
fn every_chart_renders_to_a_non_blank_png() {
    let runs = vec![
        Run::new(
            Some(1),
            sample::scan(1, 1 << 40, 1000, 10, 1, Direction::Read),
        ),
        Run::new(Some(2), sample::quick_scan(2, 1 << 40, 256)),
        Run::new(Some(3), sample::sweep(3)),
        Run::new(Some(4), sample::soak(4, 300)),
        Run::new(Some(5), sample::bench(5)),
    ];
    let charts = charts::build(&runs);
    assert_eq!(
        charts.len(),
        7,
        "curve, bench, regions, two histograms, sweep, series: {:?}",
        charts.iter().map(|c| &c.id).collect::<Vec<_>>()
    );
    let dir = std::env::temp_dir().join(format!("drivescope-png-{}", std::process::id()));
    let paths = png::write_all(&charts, &dir).unwrap();
    for p in &paths {
        let decoder = ::png::Decoder::new(std::io::BufReader::new(std::fs::File::open(p).unwrap()));
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        assert_eq!(info.width, 1800, "{}", p.display());
        let px = &buf[..info.buffer_size()];
        let dark = px
            .chunks(4)
            .filter(|c| c[0] < 100 && c[1] < 100 && c[2] < 100)
            .count();
        assert!(
            dark > 2000,
            "{}: only {dark} dark pixels (axes and text missing?)",
            p.display()
        );
    }
    // Text is drawn only if the embedded font was found: the same chart without text has fewer dark pixels.
    let with_text = png::render(&charts[0].svg).unwrap();
    let without = png::render(
        &charts[0]
            .svg
            .replace("<text", "<desc")
            .replace("</text>", "</desc>"),
    )
    .unwrap();
    assert_ne!(with_text, without);
    let _ = std::fs::remove_dir_all(&dir);
}
