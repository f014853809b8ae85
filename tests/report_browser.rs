//! Renders generated reports in headless Chromium (scripts/screenshot.sh) at 1400 and
//! 390 px (a phone) and fails on a blank page, a console error, chart text under 9 CSS
//! px or a table wider than the page that no scrolling box holds, measured in the
//! browser on the report of a database holding every format; and reads every chart's
//! SVG to fail on an empty chart, overlapping or repeated tick labels and a blank unit.
//! The browser part is skipped only when Chromium is not installed, and never in CI
//! (`CI` set), whose script installs it.

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
        for width in [1400, 390] {
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

/// The smallest chart text, in CSS px, a page may show at any width.
const MIN_TEXT_PX: f64 = 9.0;

/// What the browser measured of one page shown `width` CSS px wide.
#[derive(Debug)]
struct Measured {
    /// The smallest SVG text on screen, CSS px (font size times the chart's scale), and
    /// the text; `None` without charts.
    min_text: Option<(f64, String)>,
    /// Tables reaching past the page's right edge with no scrolling box around them.
    clipped_tables: usize,
    /// The page's own width beyond the window: content a reader cannot reach.
    overflow_px: f64,
}

/// The measuring wrapper: each page in a frame exactly `width` px wide (Chromium lays a
/// window out at least 500 px wide), measured from outside once it has loaded; the
/// results land in attributes `data-m0`, `data-m1`, … of the wrapper's body. The report
/// itself carries no script.
fn measuring_wrapper(pages: &[&Path], width: u32) -> String {
    let mut frames = String::new();
    for (i, p) in pages.iter().enumerate() {
        frames.push_str(&format!(
            "<iframe src=\"{}\" onload=\"measure(this, {i})\" style=\"border:0;display:block;width:{width}px;height:600px\"></iframe>\n",
            p.file_name().unwrap().to_string_lossy()
        ));
    }
    format!(
        r#"<!DOCTYPE html><html><body style="margin:0"><script>
function measure(f, i) {{
  var d = f.contentDocument, w = f.contentWindow;
  var min = Infinity, minText = '';
  d.querySelectorAll('svg text').forEach(function (t) {{
    var s = (t.textContent || '').trim(), m = t.getScreenCTM();
    if (!s || !m || !t.getClientRects().length) return;
    var px = parseFloat(w.getComputedStyle(t).fontSize) * Math.sqrt(Math.abs(m.a * m.d - m.b * m.c));
    if (px < min) {{ min = px; minText = s; }}
  }});
  var vw = d.documentElement.clientWidth, clipped = 0;
  d.querySelectorAll('table').forEach(function (tb) {{
    for (var a = tb.parentElement; a && a !== d.body; a = a.parentElement) {{
      var o = w.getComputedStyle(a).overflowX;
      if (o === 'auto' || o === 'scroll') return;
    }}
    if (tb.getBoundingClientRect().right > vw + 1) clipped++;
  }});
  document.body.setAttribute('data-m' + i, [min === Infinity ? 'none' : min.toFixed(2),
    clipped, d.documentElement.scrollWidth - vw, minText.slice(0, 40).replace(/["<>&|]/g, '')].join('|'));
}}
</script>
{frames}</body></html>"#
    )
}

/// Measures every page (all in one folder) at `width` CSS px in one Chromium run.
fn measure(pages: &[&Path], width: u32) -> Result<Vec<Measured>, String> {
    let Some(dir) = pages.first().and_then(|p| p.parent()) else {
        return Ok(Vec::new());
    };
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/screenshot.sh");
    let wrapper = dir.join(format!("measure-{width}.html"));
    std::fs::write(&wrapper, measuring_wrapper(pages, width)).map_err(|e| e.to_string())?;
    let dom = dir.join(format!("measure-{width}.dom"));
    let status = Command::new("bash")
        .env("SCREENSHOT_WIDTH", width.max(500).to_string())
        .arg(&script)
        .arg("--dom")
        .arg(&wrapper)
        .arg(&dom)
        .arg(dir.join("measure.log"))
        .status()
        .map_err(|e| e.to_string())?;
    let text = std::fs::read_to_string(&dom).unwrap_or_default();
    (0..pages.len())
        .map(|i| {
            let key = format!("data-m{i}=\"");
            let at = text
                .find(&key)
                .ok_or_else(|| format!("no measurement {i} (chromium {status}): {text:.300}"))?
                + key.len();
            let value = &text[at..at + text[at..].find('"').unwrap_or(0)];
            let parts: Vec<&str> = value.split('|').collect();
            let [min, clipped, overflow, min_text] = parts[..] else {
                return Err(format!("measurement {i}: {value}"));
            };
            Ok(Measured {
                min_text: min.parse().ok().map(|px| (px, min_text.to_string())),
                clipped_tables: clipped.parse().map_err(|e| format!("{clipped}: {e}"))?,
                overflow_px: overflow.parse().map_err(|e| format!("{overflow}: {e}"))?,
            })
        })
        .collect()
}

/// The faults of pages at one width: chart text under [`MIN_TEXT_PX`], clipped tables,
/// a page wider than its window.
fn layout_faults(pages: &[&Path], width: u32) -> Vec<String> {
    let measured = match measure(pages, width) {
        Ok(m) => m,
        Err(e) => return vec![format!("at {width} px: {e}")],
    };
    let mut out = Vec::new();
    for (page, m) in pages.iter().zip(measured) {
        let name = page.file_name().unwrap().to_string_lossy();
        if let Some((px, text)) = &m.min_text
            && *px < MIN_TEXT_PX
        {
            out.push(format!(
                "{name} at {width} px: chart text {text:?} is {px} CSS px"
            ));
        }
        if m.clipped_tables > 0 {
            out.push(format!(
                "{name} at {width} px: {} tables clipped (wider than the page, no scroll box)",
                m.clipped_tables
            ));
        }
        if m.overflow_px > 1.0 {
            out.push(format!(
                "{name} at {width} px: the page is {} px wider than its window",
                m.overflow_px
            ));
        }
    }
    out
}

/// Ingests every format's fixtures (and the shared samples and seeds when present) and
/// two labelled tsar logs to compare; writes the report into `out`.
fn every_format_report(env: &Env, out: &Path) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut dirs: Vec<std::path::PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir() && !p.ends_with("malformed") && !p.ends_with("store"))
        .collect();
    dirs.sort();
    dirs.extend(["samples", "seeds"].into_iter().filter_map(shared));
    for d in &dirs {
        // Some inputs are skipped by design (a README beside the logs): not a failure.
        let _ = env.cmd(&["ingest", &d.display().to_string()]).output();
    }
    for (label, file) in [
        ("before", "header-repeat.txt"),
        ("after", "history-tail.txt"),
    ] {
        env.ok(&[
            "ingest",
            "--suite",
            "tsar-ab",
            "--label",
            label,
            &root.join("tsar").join(file).display().to_string(),
        ]);
    }
    env.ok(&[
        "report",
        "--baseline",
        "suite=tsar-ab;label=before",
        "--candidate",
        "suite=tsar-ab;label=after",
        "--out",
        &out.display().to_string(),
    ]);
}

/// The report of every format, every page at 1400 and 390 px: chart text stays at 9 CSS
/// px or more, no table is clipped, no page is wider than its window; and each page kind
/// a reviewer looks at is screenshotted at both widths without console errors.
#[test]
fn every_format_report_fits_desktop_and_phone() {
    if !chromium_ready() {
        return;
    }
    let env = Env::new();
    let out = env.dir.path().join("report");
    every_format_report(&env, &out);
    let mut pages: Vec<std::path::PathBuf> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "html"))
        .collect();
    pages.sort();
    assert!(pages.len() >= 15, "{} pages", pages.len());
    let text = |p: &Path| std::fs::read_to_string(p).unwrap();
    // Each kind of page is present: the charts this test measures are really there.
    for marker in [
        "every replicate per benchmark",
        "latency vs throughput",
        "<h2 id=\"compare\">Before and after</h2>",
        "<h2 id=\"history\">History</h2>",
    ] {
        assert!(
            pages.iter().any(|p| text(p).contains(marker)),
            "no page has {marker:?}"
        );
    }
    let refs: Vec<&Path> = pages.iter().map(|p| p.as_path()).collect();
    let mut faults = Vec::new();
    for width in [1400, 390] {
        faults.extend(layout_faults(&refs, width));
    }
    assert!(faults.is_empty(), "{}", faults.join("\n"));
    // Screenshots of the five kinds at both widths, as a reviewer gets them.
    let shots = env.dir.path().join("shots");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/screenshot.sh");
    let status = Command::new("bash")
        .arg(&script)
        .arg("--set")
        .arg(&out)
        .arg(&shots)
        .status()
        .unwrap();
    assert!(status.success());
    for kind in ["index", "latency", "microbench", "compare", "history"] {
        for width in [1400, 390] {
            let png = shots.join(format!("{kind}-{width}.png"));
            let colours = distinct_colours(&png, 16);
            assert!(colours > 8, "{}: blank ({colours} colours)", png.display());
        }
    }
}

/// The measurement itself catches small chart text, a clipped table and a page wider
/// than a phone.
#[test]
fn layout_check_catches_small_text_and_clipped_tables() {
    if !chromium_ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let wide_row = "<td>cell with some text</td>".repeat(12);
    let pages = [
        (
            "small.html",
            "<svg viewBox=\"0 0 900 300\" style=\"width:100%\"><text x=\"10\" y=\"20\" font-size=\"14\">tiny tick</text></svg>",
            "chart text",
        ),
        (
            "table.html",
            &format!("<table><tr>{wide_row}</tr></table>") as &str,
            "tables clipped",
        ),
    ];
    for (name, body, _) in pages {
        let page = dir.path().join(name);
        std::fs::write(
            &page,
            format!("<!DOCTYPE html><html><body>{body}</body></html>"),
        )
        .unwrap();
    }
    let paths: Vec<std::path::PathBuf> = pages.iter().map(|p| dir.path().join(p.0)).collect();
    let refs: Vec<&Path> = paths.iter().map(|p| p.as_path()).collect();
    let faults = layout_faults(&refs, 390);
    for (name, _, fault) in pages {
        assert!(
            faults
                .iter()
                .any(|f| f.starts_with(name) && f.contains(fault)),
            "{name}: {faults:?}"
        );
    }
    // Wide enough, the same pages have no fault.
    assert_eq!(layout_faults(&refs, 1400), Vec::<String>::new());
    // The same table inside a scrolling box is no fault.
    let page = dir.path().join("scroll.html");
    std::fs::write(
        &page,
        format!("<!DOCTYPE html><html><body><div style=\"overflow-x:auto\"><table><tr>{wide_row}</tr></table></div></body></html>"),
    )
    .unwrap();
    assert_eq!(layout_faults(&[page.as_path()], 390), Vec::<String>::new());
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
