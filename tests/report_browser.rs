//! Renders a generated report in headless Chromium (scripts/screenshot.sh) and fails
//! on a blank page or a console error. Skipped only when Chromium is not installed, and
//! never in CI (`CI` set), whose script installs it.

use bench_db::report::{demo, html, slo};
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
fn check_page(page: &Path, png: &Path) -> Result<(), String> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/screenshot.sh");
    let log = png.with_extension("log");
    let status = Command::new("bash")
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
    let opts = html::Options {
        slo: slo::parse("p50<=100us,p99<=800us,p99.99<=5ms").unwrap(),
    };
    let site = html::site(&runs, &comparisons, &opts).unwrap();
    for (name, text) in &site.files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let keep = std::env::var_os("REPORT_SCREENSHOT_DIR");
    for (name, _) in &site.files {
        let page = dir.path().join(name);
        let png = dir.path().join(format!("{name}.png"));
        if let Err(e) = check_page(&page, &png) {
            panic!("{name}: {e}");
        }
        if let Some(keep) = &keep {
            std::fs::copy(&png, Path::new(keep).join(format!("{name}.png"))).unwrap();
            std::fs::copy(&page, Path::new(keep).join(name)).unwrap();
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
    let e = check_page(&blank, &dir.path().join("blank.png")).unwrap_err();
    assert!(e.contains("blank page"), "{e}");
    let broken = dir.path().join("broken.html");
    std::fs::write(&broken, "<!DOCTYPE html><html><body><h1>Report</h1><p>text</p><script>missing();</script></body></html>").unwrap();
    let e = check_page(&broken, &dir.path().join("broken.png")).unwrap_err();
    assert!(e.contains("Uncaught"), "{e}");
}
