//! The SVG plot of a jitter sweep (`prnic-sim credit-jitter --plot`).

use super::*;

/// Throughput against jitter, one line per rule, QP count and BDP, as an SVG.
pub fn svg_plot(rows: &[JitterRow]) -> String {
    use std::fmt::Write as _;
    let (w, h, l, r, t, b) = (760.0, 440.0, 70.0, 230.0, 30.0, 50.0);
    let xmax = rows
        .iter()
        .map(|x| x.jitter_batches)
        .fold(0.0, f64::max)
        .max(1.0);
    let line = rows.first().map_or(400.0, |x| x.line_rate_gbps);
    let ymin =
        (rows.iter().map(|x| x.throughput_gbps).fold(line, f64::min) / 10.0).floor() * 10.0 - 10.0;
    let px = |x: f64| l + (w - l - r) * x / xmax;
    let py = |y: f64| t + (h - t - b) * (line + 5.0 - y) / (line + 5.0 - ymin);
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">
<rect width="100%" height="100%" fill="white"/>
<text x="{}" y="18" text-anchor="middle" font-size="14">Credit loop: delivered throughput against credit-path jitter</text>
<line x1="{l}" y1="{}" x2="{}" y2="{}" stroke="black"/><line x1="{l}" y1="{t}" x2="{l}" y2="{}" stroke="black"/>
<text x="{}" y="{}" text-anchor="middle">jitter (batch times, 1 = {:.1} ns)</text>
<text x="16" y="{}" transform="rotate(-90 16 {})" text-anchor="middle">Gb/s</text>
"#,
        (w - r + l) / 2.0,
        h - b,
        w - r,
        h - b,
        h - b,
        (w - r + l) / 2.0,
        h - 12.0,
        rows.first()
            .map_or(0.0, |x| x.jitter_ns / x.jitter_batches.max(1e-9)),
        (h - b + t) / 2.0,
        (h - b + t) / 2.0
    );
    let mut y = ymin;
    while y <= line + 0.1 {
        let _ = writeln!(
            s,
            r##"<line x1="{l}" y1="{0}" x2="{1}" y2="{0}" stroke="#ddd"/><text x="{2}" y="{3}" text-anchor="end">{y:.0}</text>"##,
            py(y),
            w - r,
            l - 6.0,
            py(y) + 4.0
        );
        y += 10.0;
    }
    let mut x = 0.0;
    while x <= xmax + 1e-9 {
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" text-anchor="middle">{x}</text>"#,
            px(x),
            h - b + 16.0
        );
        x += if xmax > 2.0 { 1.0 } else { 0.25 };
    }
    let _ = writeln!(
        s,
        r##"<line x1="{l}" y1="{0}" x2="{1}" y2="{0}" stroke="#999" stroke-dasharray="2,2"/>"##,
        py(0.99 * line),
        w - r
    );
    let mut keys: Vec<(&str, u32, u32)> =
        rows.iter().map(|x| (x.rule, x.qps, x.bdp_bytes)).collect();
    keys.dedup();
    let dashes = ["", "6,3", "2,3", "8,3,2,3", "1,1"];
    for (i, k) in keys.iter().enumerate() {
        let color = if k.0 == "eq1" { "#c0392b" } else { "#1f6fb2" };
        let dash = dashes[(i / 2) % dashes.len()];
        let pts: Vec<String> = rows
            .iter()
            .filter(|x| (x.rule, x.qps, x.bdp_bytes) == *k)
            .map(|x| format!("{:.1},{:.1}", px(x.jitter_batches), py(x.throughput_gbps)))
            .collect();
        let _ = writeln!(
            s,
            r#"<polyline fill="none" stroke="{color}" stroke-width="2" stroke-dasharray="{dash}" points="{}"/>"#,
            pts.join(" ")
        );
        let ly = t + 16.0 * i as f64 + 10.0;
        let _ = writeln!(
            s,
            r#"<line x1="{}" y1="{ly}" x2="{}" y2="{ly}" stroke="{color}" stroke-width="2" stroke-dasharray="{dash}"/><text x="{}" y="{}">{} {} QPs, BDP {} KiB/QP</text>"#,
            w - r + 10.0,
            w - r + 40.0,
            w - r + 46.0,
            ly + 4.0,
            if k.0 == "eq1" { "Eq.1" } else { "Eq.2" },
            k.1,
            k.2 / 1024
        );
    }
    s.push_str("</svg>\n");
    s
}
