//! PNG plots of one server's ratios to the baseline: horizontal bars per
//! kind, one panel per metric. The font is compiled in (DejaVu Sans through
//! `ab_glyph`), so no system font is needed.

use std::path::Path;
use std::sync::OnceLock;

use plotters::coord::ranged1d::SegmentValue;
use plotters::prelude::*;

use crate::Measurement;
use crate::report::ServerResult;

const FONT: &str = "sans-serif";

/// One panel: a title and a metric whose ratio to the baseline is drawn.
struct Panel {
    title: &'static str,
    metric: fn(&Measurement) -> Option<f64>,
}

const PANELS: [Panel; 4] = [
    Panel {
        title: "insert rows/s (× bigserial)",
        metric: |m| Some(m.rows_per_sec()),
    },
    Panel {
        title: "PK leaf pages (× bigserial)",
        metric: |m| Some(m.leaf_pages as f64),
    },
    Panel {
        title: "WAL bytes (× bigserial)",
        metric: |m| m.wal_bytes.map(|b| b as f64),
    },
    Panel {
        title: "InnoDB page splits (× bigserial)",
        metric: |m| m.page_splits.map(|s| s as f64),
    },
];

fn register_font() -> Result<(), String> {
    static DONE: OnceLock<bool> = OnceLock::new();
    let ok = DONE.get_or_init(|| {
        plotters::style::register_font(FONT, FontStyle::Normal, dejavu::sans::regular()).is_ok()
    });
    if *ok {
        Ok(())
    } else {
        Err("the compiled-in DejaVu Sans font did not load".into())
    }
}

/// Draws `r`'s ratios to the baseline into a PNG at `path`: one panel per
/// metric the server reported a baseline for.
///
/// # Errors
/// No baseline was measured, or the image could not be drawn or written.
///
/// ```
/// use db_bench::{Kind, Measurement, plot, report::ServerResult};
/// let m = |kind, secs| Measurement {
///     kind, rows: 1000, insert_secs: secs, index_bytes: 1 << 20, leaf_pages: 64, leaf_density: None,
///     wal_bytes: None, page_splits: Some(10), lookup_us: 50.0, scan_ms: 3.0,
/// };
/// let r = ServerResult { server: "MariaDB", settings: vec![], measurements: vec![m(Kind::Bigserial, 0.5), m(Kind::V4, 1.0)] };
/// let path = std::env::temp_dir().join(format!("db-bench-doc-{}.png", std::process::id()));
/// plot::draw(&r, &path)?;
/// assert!(std::fs::read(&path).map_err(|e| e.to_string())?.starts_with(b"\x89PNG"));
/// # std::fs::remove_file(&path).ok();
/// # Ok::<(), String>(())
/// ```
pub fn draw(r: &ServerResult, path: &Path) -> Result<(), String> {
    register_font()?;
    if r.baseline().is_none() {
        return Err(format!(
            "{}: no bigserial baseline to plot ratios to",
            r.server
        ));
    }
    let panels: Vec<&Panel> = PANELS
        .iter()
        .filter(|p| {
            r.measurements
                .iter()
                .any(|m| r.ratio(m, p.metric).is_some())
        })
        .collect();
    let fail = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let rows = u32::try_from(r.measurements.len()).unwrap_or(u32::MAX);
    let width = 380 * u32::try_from(panels.len()).unwrap_or(1);
    let root = BitMapBackend::new(path, (width + 180, 90 + 34 * rows)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| fail(&e))?;
    let root = root
        .titled(
            &format!("{}: {} rows a kind", r.server, rows_of(r)),
            (FONT, 22),
        )
        .map_err(|e| fail(&e))?;
    // The first panel is wider by the kinds' names, on its left.
    let breaks: Vec<u32> = (1..panels.len())
        .map(|i| 180 + 380 * u32::try_from(i).unwrap_or(0))
        .collect();
    for (i, (area, panel)) in root
        .split_by_breakpoints(breaks, [] as [u32; 0])
        .iter()
        .zip(panels)
        .enumerate()
    {
        draw_panel(area, r, panel, if i == 0 { 180 } else { 0 }).map_err(|e| fail(&e))?;
    }
    root.present().map_err(|e| fail(&e))
}

fn rows_of(r: &ServerResult) -> String {
    r.measurements.first().map_or(0, |m| m.rows).to_string()
}

type Area<'a> = DrawingArea<BitMapBackend<'a>, plotters::coord::Shift>;
type DrawResult =
    Result<(), DrawingAreaErrorKind<<BitMapBackend<'static> as DrawingBackend>::ErrorType>>;

fn draw_panel(area: &Area<'_>, r: &ServerResult, panel: &Panel, label_width: u32) -> DrawResult {
    let values: Vec<Option<f64>> = r
        .measurements
        .iter()
        .map(|m| r.ratio(m, panel.metric))
        .collect();
    let max = values.iter().flatten().copied().fold(1.0_f64, f64::max) * 1.25;
    let n = values.len();
    // The first kind (the baseline) on top: row `i` is drawn at `n - 1 - i`.
    let row = |i: usize| n - 1 - i;
    let mut chart = ChartBuilder::on(area)
        .caption(panel.title, (FONT, 15))
        .margin_top(6)
        .margin_right(12)
        .x_label_area_size(24)
        .y_label_area_size(label_width)
        .build_cartesian_2d(0.0..max, (0..n).into_segmented())?;
    let name = |v: &SegmentValue<usize>| match v {
        SegmentValue::CenterOf(i) if *i < n => r.measurements[row(*i)].kind.label().to_string(),
        _ => String::new(),
    };
    chart
        .configure_mesh()
        .disable_y_mesh()
        .light_line_style(WHITE)
        .y_labels(n)
        .y_label_formatter(&name)
        .y_label_style((FONT, 14))
        .x_labels(5)
        .x_label_style((FONT, 12))
        .draw()?;
    let colour = |i: usize| Palette99::pick(i).filled();
    chart.draw_series(values.iter().enumerate().filter_map(|(i, v)| {
        let v = (*v)?;
        let y = row(i);
        let mut bar = Rectangle::new(
            [
                (0.0, SegmentValue::Exact(y)),
                (v, SegmentValue::Exact(y + 1)),
            ],
            colour(i),
        );
        bar.set_margin(4, 4, 0, 0);
        Some(bar)
    }))?;
    chart.draw_series(values.iter().enumerate().map(|(i, v)| {
        let (x, text) = v.map_or((0.0, "–".to_string()), |v| (v, format!(" {v:.2}×")));
        Text::new(text, (x, SegmentValue::CenterOf(row(i))), (FONT, 13))
    }))?;
    // The baseline itself: 1×.
    chart.draw_series(std::iter::once(PathElement::new(
        vec![(1.0, SegmentValue::Exact(0)), (1.0, SegmentValue::Exact(n))],
        BLACK,
    )))?;
    Ok(())
}
