//! A one-line chart for a terminal: values as block characters of eight heights.

const SPARK: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// A one-line chart of `values`, averaged down to at most `width` columns.
pub fn sparkline(values: &[f64], width: usize) -> String {
    if values.is_empty() {
        return String::new();
    }
    let cols = values.len().min(width);
    let avg: Vec<f64> = (0..cols)
        .map(|c| {
            let a = c * values.len() / cols;
            let b = ((c + 1) * values.len() / cols).max(a + 1);
            values[a..b].iter().sum::<f64>() / (b - a) as f64
        })
        .collect();
    let max = avg.iter().copied().fold(0.0, f64::max);
    if max <= 0.0 {
        return SPARK[0].to_string().repeat(cols);
    }
    avg.iter()
        .map(|v| SPARK[((v / max) * 7.0).round().clamp(0.0, 7.0) as usize])
        .collect()
}
