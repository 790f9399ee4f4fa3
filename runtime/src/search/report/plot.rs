//! The plot of a report: the best value so far against evaluations, for
//! the main journal and its baselines, failed and wrong evaluations
//! marked, as a self-contained SVG.

use std::fmt::Write as _;

use super::format::{number, plural, trim};
use super::run::Run;
use crate::search::Status;

const WIDTH: f64 = 880.0;
const HEIGHT: f64 = 520.0;
const LEFT: f64 = 92.0;
const RIGHT: f64 = WIDTH - 32.0;
const TOP: f64 = 78.0;
const BOTTOM: f64 = HEIGHT - 64.0;
const FONT: &str = "system-ui, -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif";
const INK: &str = "#1f2937";
const MUTED: &str = "#6b7280";
const GRID: &str = "#e5e7eb";
const MAIN_COLOR: &str = "#2563eb";
const BASELINE_COLORS: [&str; 6] = [
    "#ea580c", "#16a34a", "#9333ea", "#db2777", "#0891b2", "#ca8a04",
];
const FAILED_COLOR: &str = "#9ca3af";
const WRONG_COLOR: &str = "#dc2626";

/// How values map to the plot's height.
struct Scale {
    log: bool,
    lo: f64,
    hi: f64,
}

impl Scale {
    fn new(values: impl Iterator<Item = f64>) -> (Scale, Vec<f64>) {
        let (mut min, mut max) = (f64::INFINITY, f64::NEG_INFINITY);
        for v in values.filter(|v| v.is_finite()) {
            min = min.min(v);
            max = max.max(v);
        }
        if !min.is_finite() {
            (min, max) = (0.0, 1.0);
        }
        if min > 0.0 && max / min >= 20.0 {
            // Decades, padded so that no curve runs along the axis.
            let pad = (max.log10() - min.log10()) * 0.05;
            let lo = min.log10() - pad;
            let hi = max.log10() + pad;
            let decades = (hi.ceil() - lo.floor()) as i32;
            let mantissas: &[f64] = if decades <= 3 {
                &[1.0, 2.0, 5.0]
            } else {
                &[1.0]
            };
            let every = (decades / 8 + 1).max(1);
            let mut ticks = Vec::new();
            let mut e = lo.floor() as i32;
            while e <= hi.ceil() as i32 {
                for &m in mantissas {
                    let t = m * 10f64.powi(e);
                    if (lo..=hi).contains(&t.log10()) {
                        ticks.push(t);
                    }
                }
                e += every;
            }
            return (
                Scale {
                    log: true,
                    lo: 10f64.powf(lo),
                    hi: 10f64.powf(hi),
                },
                ticks,
            );
        }
        let (min, max) = if max - min <= f64::EPSILON * max.abs().max(1.0) {
            let pad = if min == 0.0 { 1.0 } else { min.abs() * 0.1 };
            (min - pad, max + pad)
        } else {
            let pad = (max - min) * 0.06;
            (min - pad, max + pad)
        };
        let step = nice_step((max - min) / 6.0);
        let lo = (min / step).floor() * step;
        let hi = (max / step).ceil() * step;
        let mut ticks = Vec::new();
        let mut i = 0;
        while lo + step * i as f64 <= hi + step * 1e-9 {
            ticks.push(lo + step * i as f64);
            i += 1;
        }
        (Scale { log: false, lo, hi }, ticks)
    }

    fn y(&self, v: f64) -> f64 {
        let t = if self.log {
            (v.log10() - self.lo.log10()) / (self.hi.log10() - self.lo.log10())
        } else {
            (v - self.lo) / (self.hi - self.lo)
        };
        BOTTOM - t.clamp(-0.02, 1.02) * (BOTTOM - TOP)
    }
}

/// 1, 2 or 5 times a power of ten, at least `raw`.
fn nice_step(raw: f64) -> f64 {
    if raw <= 0.0 || !raw.is_finite() {
        return 1.0;
    }
    let power = 10f64.powf(raw.log10().floor());
    let fraction = raw / power;
    let nice = if fraction <= 1.0 {
        1.0
    } else if fraction <= 2.0 {
        2.0
    } else if fraction <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * power
}

/// A tick label: as few digits as the ticks need to differ.
fn tick_label(v: f64, step: f64) -> String {
    let a = v.abs();
    if a == 0.0 {
        return "0".to_string();
    }
    if (1e-3..1e6).contains(&a) && step >= 1e-4 {
        let decimals = (-step.log10().floor()).max(0.0) as usize;
        trim(format!("{v:.decimals$}"))
    } else {
        number(v)
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The plot as an SVG document.
/// The plot of `main` and its `baselines` as an SVG document.
pub fn svg(main: &Run, baselines: &[Run]) -> String {
    let runs: Vec<(&Run, &str, bool)> = std::iter::once((main, MAIN_COLOR, true))
        .chain(
            baselines
                .iter()
                .zip(BASELINE_COLORS.iter().cycle())
                .map(|(run, &color)| (run, color, false)),
        )
        .collect();
    let length = runs.iter().map(|(r, _, _)| r.length()).max().unwrap_or(0);
    let x_step = nice_step(length.max(1) as f64 / 8.0).max(1.0);
    let x_max = ((length.max(1) as f64 / x_step).ceil() * x_step).max(1.0);
    let x = |n: f64| LEFT + n / x_max * (RIGHT - LEFT);
    let (scale, mut y_ticks) = Scale::new(
        runs.iter()
            .flat_map(|(r, _, _)| r.summary.best_so_far.iter().map(|&(_, v)| v)),
    );
    if runs
        .iter()
        .all(|(r, _, _)| r.summary.best_so_far.is_empty())
    {
        // No values: no value ticks either.
        y_ticks.clear();
    }

    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="{FONT}" font-size="12" fill="{INK}">"#
    );
    let _ = writeln!(
        out,
        r#"<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>"#
    );

    // Title and subtitle.
    let _ = writeln!(
        out,
        r#"<text x="{LEFT}" y="32" font-size="18" font-weight="600">Best value so far: {} on {}</text>"#,
        escape(&main.header.search),
        escape(&main.header.space)
    );
    let s = &main.summary;
    let mut subtitle = format!(
        "lower is better · seed {} · {} evaluation{}, {} failed",
        main.header.seed,
        s.evaluations,
        plural(s.evaluations),
        s.failed
    );
    if let (Some(value), Some(index)) = (s.best_value, s.best_index) {
        let _ = write!(
            subtitle,
            " · best {} at evaluation {}",
            number(value),
            index + 1
        );
    }
    let _ = writeln!(
        out,
        r#"<text x="{LEFT}" y="54" font-size="13" fill="{MUTED}">{}</text>"#,
        escape(&subtitle)
    );
    if s.wrong > 0 {
        let _ = writeln!(
            out,
            r#"<text x="{RIGHT}" y="54" font-size="13" font-weight="700" fill="{WRONG_COLOR}" text-anchor="end">⚠ {} wrong result{}</text>"#,
            s.wrong,
            plural(s.wrong)
        );
    }

    // Grid, ticks and labels.
    let _ = writeln!(out, r#"<g stroke="{GRID}" stroke-width="1">"#);
    for &t in &y_ticks {
        let y = scale.y(t);
        let _ = writeln!(
            out,
            r#"<line x1="{LEFT}" y1="{y:.1}" x2="{RIGHT}" y2="{y:.1}"/>"#
        );
    }
    let mut n = 0.0;
    while n <= x_max + 1e-9 {
        let xx = x(n);
        let _ = writeln!(
            out,
            r#"<line x1="{xx:.1}" y1="{TOP}" x2="{xx:.1}" y2="{BOTTOM}"/>"#
        );
        n += x_step;
    }
    let _ = writeln!(out, "</g>");
    let y_step = if y_ticks.len() >= 2 {
        y_ticks[1] - y_ticks[0]
    } else {
        1.0
    };
    let _ = writeln!(
        out,
        r#"<g font-size="12" fill="{MUTED}" text-anchor="end">"#
    );
    for &t in &y_ticks {
        let label = if scale.log {
            number(t)
        } else {
            tick_label(t, y_step)
        };
        let _ = writeln!(
            out,
            r#"<text x="{:.1}" y="{:.1}">{}</text>"#,
            LEFT - 8.0,
            scale.y(t) + 4.0,
            escape(&label)
        );
    }
    let _ = writeln!(out, "</g>");
    let _ = writeln!(
        out,
        r#"<g font-size="12" fill="{MUTED}" text-anchor="middle">"#
    );
    let mut n = 0.0;
    while n <= x_max + 1e-9 {
        let _ = writeln!(
            out,
            r#"<text x="{:.1}" y="{:.1}">{}</text>"#,
            x(n),
            BOTTOM + 18.0,
            n as u64
        );
        n += x_step;
    }
    let _ = writeln!(out, "</g>");
    // Axes.
    let _ = writeln!(
        out,
        r#"<path d="M{LEFT},{TOP} V{BOTTOM} H{RIGHT}" fill="none" stroke="{MUTED}" stroke-width="1.2"/>"#
    );
    let _ = writeln!(
        out,
        r#"<text x="{:.1}" y="{:.1}" font-size="13" fill="{INK}" text-anchor="middle">evaluations</text>"#,
        (LEFT + RIGHT) / 2.0,
        BOTTOM + 44.0
    );
    let _ = writeln!(
        out,
        r#"<text transform="translate(24 {:.1}) rotate(-90)" font-size="13" fill="{INK}" text-anchor="middle">best value so far{}</text>"#,
        (TOP + BOTTOM) / 2.0,
        if scale.log { " (log scale)" } else { "" }
    );

    // Failed and wrong evaluations of the main search, as marks on the
    // axis.
    let marks = |status: Status| {
        main.evaluations
            .iter()
            .filter(move |e| e.status == status)
            .map(|e| x(e.index as f64 + 1.0))
    };
    let mut rug = String::new();
    for xx in marks(Status::Failed) {
        let _ = write!(rug, "M{xx:.1},{BOTTOM} v-7 ");
    }
    if !rug.is_empty() {
        let _ = writeln!(
            out,
            r#"<path d="{rug}" stroke="{FAILED_COLOR}" stroke-width="1.5"/>"#
        );
    }
    let mut rug = String::new();
    for xx in marks(Status::Wrong) {
        let _ = write!(rug, "M{xx:.1},{BOTTOM} v-14 ");
    }
    if !rug.is_empty() {
        let _ = writeln!(
            out,
            r#"<path d="{rug}" stroke="{WRONG_COLOR}" stroke-width="2"/>"#
        );
    }

    // The curves, baselines first so the main search is drawn on top.
    let mut any = false;
    for (run, color, is_main) in runs.iter().rev() {
        let points = &run.summary.best_so_far;
        let Some(&(first, first_value)) = points.first() else {
            continue;
        };
        any = true;
        let mut d = format!("M{:.1},{:.1}", x(first as f64 + 1.0), scale.y(first_value));
        let mut last = first_value;
        let mut steps = Vec::new();
        for &(index, value) in &points[1..] {
            if value != last {
                let xx = x(index as f64 + 1.0);
                let _ = write!(d, " H{xx:.1} V{:.1}", scale.y(value));
                steps.push((xx, scale.y(value)));
                last = value;
            }
        }
        let _ = write!(d, " H{:.1}", x(run.length() as f64));
        let dash = if *is_main {
            ""
        } else {
            r#" stroke-dasharray="7 4""#
        };
        let width = if *is_main { 2.5 } else { 2.0 };
        let _ = writeln!(
            out,
            r#"<path d="{d}" fill="none" stroke="{color}" stroke-width="{width}" stroke-linejoin="round"{dash}/>"#
        );
        // Improvements as dots.
        let _ = write!(out, r#"<g fill="{color}">"#);
        let _ = write!(
            out,
            r#"<circle cx="{:.1}" cy="{:.1}" r="2.5"/>"#,
            x(first as f64 + 1.0),
            scale.y(first_value)
        );
        for (xx, yy) in &steps {
            let _ = write!(out, r#"<circle cx="{xx:.1}" cy="{yy:.1}" r="2.5"/>"#);
        }
        let _ = writeln!(out, "</g>");
    }
    // The best point of the main search, labelled.
    if let (Some(value), Some(index)) = (s.best_value, s.best_index) {
        let (bx, by) = (x(index as f64 + 1.0), scale.y(value));
        let _ = writeln!(
            out,
            r#"<circle cx="{bx:.1}" cy="{by:.1}" r="5" fill="white" stroke="{MAIN_COLOR}" stroke-width="2.5"/>"#
        );
        let label = format!("best {}", number(value));
        let below = by < BOTTOM - 40.0;
        let (ly, anchor, lx) = if bx > RIGHT - 120.0 {
            (by + if below { 20.0 } else { -12.0 }, "end", bx)
        } else {
            (by + if below { 20.0 } else { -12.0 }, "start", bx + 6.0)
        };
        let _ = writeln!(
            out,
            r#"<text x="{lx:.1}" y="{ly:.1}" font-size="12" font-weight="600" fill="{MAIN_COLOR}" text-anchor="{anchor}" stroke="white" stroke-width="3" paint-order="stroke">{}</text>"#,
            escape(&label)
        );
    }
    if !any {
        let _ = writeln!(
            out,
            r#"<text x="{:.1}" y="{:.1}" font-size="15" fill="{MUTED}" text-anchor="middle">no measured evaluations</text>"#,
            (LEFT + RIGHT) / 2.0,
            (TOP + BOTTOM) / 2.0
        );
    }

    // Legend, top right inside the plot.
    let mut entries: Vec<(String, &str, &str)> = runs
        .iter()
        .map(|(run, color, is_main)| {
            let best = run.summary.best_value.map_or_else(
                || "nothing measured".to_string(),
                |v| format!("best {}", number(v)),
            );
            let kind = if *is_main { "line" } else { "dash" };
            (format!("{} ({best})", run.name), *color, kind)
        })
        .collect();
    if s.failed > 0 {
        entries.push((format!("failed ({})", s.failed), FAILED_COLOR, "tick"));
    }
    if s.wrong > 0 {
        entries.push((format!("wrong result ({})", s.wrong), WRONG_COLOR, "tick"));
    }
    let longest = entries
        .iter()
        .map(|(label, _, _)| label.chars().count())
        .max()
        .unwrap_or(0);
    let box_width = 46.0 + longest as f64 * 6.8;
    let box_height = 12.0 + entries.len() as f64 * 20.0;
    let bx = RIGHT - 12.0 - box_width;
    let by = TOP + 12.0;
    let _ = writeln!(
        out,
        r##"<rect x="{bx:.1}" y="{by:.1}" width="{box_width:.1}" height="{box_height:.1}" rx="6" fill="white" fill-opacity="0.92" stroke="#d1d5db"/>"##
    );
    for (i, (label, color, kind)) in entries.iter().enumerate() {
        let cy = by + 16.0 + i as f64 * 20.0;
        let (x0, x1) = (bx + 10.0, bx + 34.0);
        match *kind {
            "tick" => {
                let _ = writeln!(
                    out,
                    r#"<path d="M{:.1},{:.1} v-12" stroke="{color}" stroke-width="2"/>"#,
                    (x0 + x1) / 2.0,
                    cy + 6.0
                );
            }
            kind => {
                let dash = if kind == "dash" {
                    r#" stroke-dasharray="7 4""#
                } else {
                    ""
                };
                let _ = writeln!(
                    out,
                    r#"<line x1="{x0:.1}" y1="{cy:.1}" x2="{x1:.1}" y2="{cy:.1}" stroke="{color}" stroke-width="2.5"{dash}/>"#
                );
            }
        }
        let _ = writeln!(
            out,
            r#"<text x="{:.1}" y="{:.1}">{}</text>"#,
            x1 + 8.0,
            cy + 4.0,
            escape(label)
        );
    }
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round() {
        assert_eq!(nice_step(0.7), 1.0);
        assert_eq!(nice_step(13.0), 20.0);
        assert_eq!(nice_step(0.0031), 0.005);
        assert_eq!(tick_label(0.0015, 0.0005), "0.0015");
        assert_eq!(tick_label(40.0, 20.0), "40");
        assert_eq!(tick_label(2.5, 0.5), "2.5");
    }
}
