//! Renders a generated report in headless Chromium (scripts/screenshot.sh) at two
//! widths and fails on a blank page or a console error; and reads every chart's SVG to
//! fail on an empty chart, overlapping or repeated tick labels and a blank unit. The
//! browser part is skipped only when Chromium is not installed, and never in CI (`CI`
//! set), whose script installs it.

use crate::common::{Env, shared};
use bench_db::analysis::{demo, site, slo};
use bench_db::report::html;
use std::path::Path;
use std::process::Command;

fn chromium_present() -> bool {
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .any(|b| {
            Command::new("sh")
                .arg("-c")
                .arg(format!("command -v {b}"))
                .output()
                .is_ok_and(|o| o.status.success())
        })
}

/// Whether the browser check can run; in CI a missing Chromium is a failure.
fn chromium_ready() -> bool {
    if chromium_present() {
        return true;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "CI must install chromium (see .ci/run)"
    );
    eprintln!("chromium not installed: skipping the browser check");
    false
}

/// The number of distinct colours among the PNG's pixels (stops counting at `cap`).
fn distinct_colours(png_path: &Path, cap: usize) -> usize {
    let file = std::fs::File::open(png_path).expect("screenshot opens");
    let mut decoder = png::Decoder::new(std::io::BufReader::new(file));
    decoder.set_transformations(png::Transformations::EXPAND);
    let mut reader = decoder.read_info().expect("screenshot is a PNG");
    let mut buf = vec![0; reader.output_buffer_size().expect("PNG size")];
    let info = reader.next_frame(&mut buf).expect("PNG decodes");
    let bpp = info.color_type.samples()
        * if info.bit_depth == png::BitDepth::Sixteen {
            2
        } else {
            1
        };
    let mut seen = std::collections::BTreeSet::new();
    for px in buf[..info.buffer_size()].chunks(bpp) {
        seen.insert(px.to_vec());
        if seen.len() >= cap {
            break;
        }
    }
    seen.len()
}

/// Screenshots `page` into `png`; an error names a failed run, console errors or a
/// blank page.
fn check_page(page: &Path, png: &Path, width: u32) -> Result<(), String> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/screenshot.sh");
    let log = png.with_extension("log");
    let status = Command::new("bash")
        .env("SCREENSHOT_WIDTH", width.to_string())
        .arg(&script)
        .arg(page)
        .arg(png)
        .arg(&log)
        .status()
        .map_err(|e| e.to_string())?;
    let log_text = std::fs::read_to_string(&log).unwrap_or_default();
    if !status.success() {
        return Err(format!("screenshot failed:\n{log_text}"));
    }
    let console: Vec<&str> = log_text
        .lines()
        .filter(|l| {
            l.contains("Uncaught") || (l.contains("CONSOLE") && l.to_lowercase().contains("error"))
        })
        .collect();
    if !console.is_empty() {
        return Err(format!("console errors: {console:?}"));
    }
    let colours = distinct_colours(png, 16);
    if colours <= 8 {
        return Err(format!("blank page: {colours} colours"));
    }
    Ok(())
}

#[test]
fn report_renders_in_chromium() {
    if !chromium_ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let runs = demo::runs();
    let comparisons = demo::comparisons(&runs);
    let opts = site::Options {
        slo: slo::parse("p50<=100us,p99<=800us,p99.99<=5ms").unwrap(),
    };
    let site = html::site(&site::build(&runs, &comparisons, &opts)).unwrap();
    for (name, text) in &site.files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let keep = std::env::var_os("REPORT_SCREENSHOT_DIR");
    for (name, _) in &site.files {
        let page = dir.path().join(name);
        for width in [1400, 800] {
            let png = dir.path().join(format!("{name}.{width}.png"));
            if let Err(e) = check_page(&page, &png, width) {
                panic!("{name} at {width} px: {e}");
            }
            if let Some(keep) = &keep {
                std::fs::copy(&png, Path::new(keep).join(format!("{name}.{width}.png"))).unwrap();
                std::fs::copy(&page, Path::new(keep).join(name)).unwrap();
            }
        }
    }
}

/// The check itself fails on a blank page and on a script error.
#[test]
fn browser_check_catches_blank_pages_and_errors() {
    if !chromium_ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let blank = dir.path().join("blank.html");
    std::fs::write(&blank, "<!DOCTYPE html><html><body></body></html>").unwrap();
    let e = check_page(&blank, &dir.path().join("blank.png"), 1400).unwrap_err();
    assert!(e.contains("blank page"), "{e}");
    let broken = dir.path().join("broken.html");
    std::fs::write(&broken, "<!DOCTYPE html><html><body><h1>Report</h1><p>text</p><script>missing();</script></body></html>").unwrap();
    let e = check_page(&broken, &dir.path().join("broken.png"), 1400).unwrap_err();
    assert!(e.contains("Uncaught"), "{e}");
}

/// A drawn text element: position, anchor, size and content.
struct Label {
    x: f64,
    y: f64,
    anchor: String,
    size: f64,
    text: String,
}

impl Label {
    /// Estimated horizontal extent: sans-serif glyphs average about 0.55 em.
    fn span(&self) -> (f64, f64) {
        let w = 0.55 * self.size * self.text.chars().count() as f64;
        match self.anchor.as_str() {
            "middle" => (self.x - w / 2.0, self.x + w / 2.0),
            "end" => (self.x - w, self.x),
            _ => (self.x, self.x + w),
        }
    }
}

/// Problems of one chart's SVG: no data drawn, tick labels that overlap or repeat on
/// one axis, an empty unit `()`.
fn svg_problems(svg: &str) -> Vec<String> {
    let doc = match roxmltree::Document::parse(svg) {
        Ok(d) => d,
        Err(e) => return vec![format!("not XML: {e}")],
    };
    let mut out = Vec::new();
    // Data marks: lines, areas and markers; not the background, grid or hover targets.
    let marks = doc
        .descendants()
        .filter(|n| match n.tag_name().name() {
            "polyline" | "polygon" | "path" => true,
            "circle" => n.attribute("fill-opacity") != Some("0"),
            _ => false,
        })
        .count();
    if marks == 0 {
        out.push("empty chart: nothing drawn but axes".to_string());
    }
    let labels: Vec<Label> = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| {
            Some(Label {
                x: n.attribute("x")?.parse().ok()?,
                y: n.attribute("y")?.parse().ok()?,
                anchor: n.attribute("text-anchor").unwrap_or("start").to_string(),
                size: n.attribute("font-size")?.parse().ok()?,
                text: n.text().unwrap_or("").trim().to_string(),
            })
        })
        .collect();
    for l in &labels {
        if l.text.contains("()") || l.text.contains("( )") {
            out.push(format!("blank unit in {:?}", l.text));
        }
    }
    // x-axis ticks: centred labels on one baseline; y-axis ticks: right-aligned labels
    // on one x.
    let mut rows: std::collections::BTreeMap<(i64, i64), Vec<&Label>> = Default::default();
    for l in labels.iter().filter(|l| !l.text.is_empty()) {
        let key = match l.anchor.as_str() {
            "middle" => (0, l.y.round() as i64),
            "end" => (1, l.x.round() as i64),
            _ => continue,
        };
        rows.entry(key).or_default().push(l);
    }
    for ((kind, _), mut row) in rows {
        if row.len() < 2 {
            continue;
        }
        let mut texts: Vec<&str> = row.iter().map(|l| l.text.as_str()).collect();
        texts.sort_unstable();
        if let Some(w) = texts.windows(2).find(|w| w[0] == w[1]) {
            out.push(format!("tick label {:?} repeated", w[0]));
        }
        if kind == 0 {
            row.sort_by(|a, b| a.x.total_cmp(&b.x));
            for w in row.windows(2) {
                if w[0].span().1 > w[1].span().0 {
                    out.push(format!(
                        "tick labels {:?} and {:?} overlap",
                        w[0].text, w[1].text
                    ));
                }
            }
        } else {
            row.sort_by(|a, b| a.y.total_cmp(&b.y));
            for w in row.windows(2) {
                if w[1].y - w[0].y < w[0].size.max(w[1].size) * 0.9 {
                    out.push(format!(
                        "tick labels {:?} and {:?} overlap",
                        w[0].text, w[1].text
                    ));
                }
            }
        }
    }
    out
}

/// Every chart of every page; an error lists each problem with its page.
fn check_charts(files: &[(String, String)]) -> Result<usize, String> {
    let mut problems = Vec::new();
    let mut charts = 0;
    for (name, text) in files {
        for part in text.split("<svg").skip(1) {
            let end = part
                .find("</svg>")
                .map_or(part.len(), |e| e + "</svg>".len());
            charts += 1;
            for p in svg_problems(&format!("<svg{}", &part[..end])) {
                problems.push(format!("{name}: {p}"));
            }
        }
    }
    if problems.is_empty() {
        Ok(charts)
    } else {
        Err(problems.join("\n"))
    }
}

#[test]
fn demo_charts_are_drawn_readable_and_unit_bearing() {
    let runs = demo::runs();
    let opts = site::Options {
        slo: slo::parse("p50<=100us,p99<=800us,p99.99<=5ms").unwrap(),
    };
    let site = html::site(&site::build(&runs, &demo::comparisons(&runs), &opts)).unwrap();
    let charts = check_charts(&site.files).unwrap_or_else(|e| panic!("{e}"));
    assert!(charts >= 7, "{charts} charts");
}

/// The same checks over a report of every real published output and seed, which carry
/// the awkward cases (92.0K cells, seconds-apart samples, CJK labels, huge changes).
#[test]
fn real_outputs_charts_are_drawn_readable_and_unit_bearing() {
    let (Some(seeds), Some(samples)) = (shared("seeds"), shared("samples")) else {
        return;
    };
    let env = Env::new();
    let _ = env
        .cmd(&[
            "ingest",
            &seeds.display().to_string(),
            &samples.display().to_string(),
        ])
        .output()
        .expect("run");
    let out = env.dir.path().join("r");
    env.ok(&[
        "report",
        "--baseline",
        "label=the current master",
        "--candidate",
        "label=the current master with patch version v11jp",
        "--out",
        &out.display().to_string(),
    ]);
    let files: Vec<(String, String)> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read_to_string(e.path()).unwrap(),
            )
        })
        .collect();
    let charts = check_charts(&files).unwrap_or_else(|e| panic!("{e}"));
    assert!(charts >= 50, "{charts} charts");
}

/// The chart check itself catches each fault.
#[test]
fn chart_check_catches_empty_overlapping_and_unitless_charts() {
    let text = |x: u32, y: u32, anchor: &str, t: &str| {
        format!("<text x=\"{x}\" y=\"{y}\" text-anchor=\"{anchor}\" font-size=\"10\">{t}</text>")
    };
    let empty = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\"><rect/><line/>{}</svg>",
        text(10, 10, "middle", "a")
    );
    assert!(svg_problems(&empty)[0].contains("empty chart"));
    let overlap = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\"><polyline/>{}{}</svg>",
        text(100, 300, "middle", "14:06:00"),
        text(120, 300, "middle", "14:06:30")
    );
    assert!(svg_problems(&overlap)[0].contains("overlap"));
    let repeated = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\"><polyline/>{}{}</svg>",
        text(50, 100, "end", "10.6"),
        text(50, 200, "end", "10.6")
    );
    assert!(svg_problems(&repeated)[0].contains("repeated"));
    let unitless = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\"><polyline/>{}</svg>",
        text(50, 100, "start", "Value ()")
    );
    assert!(svg_problems(&unitless)[0].contains("blank unit"));
}
