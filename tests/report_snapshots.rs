//! Snapshot, determinism, size and escaping checks of the report's charts and pages,
//! built from the synthetic runs in `analysis::demo`.

use bench_db::analysis::{charts, demo, site, slo};
use bench_db::report::{curve, history, html, shift, spectrum, timeseries, variation};

fn demo_site() -> html::Site {
    let runs = demo::runs();
    let comparisons = demo::comparisons(&runs);
    let opts = site::Options {
        slo: slo::parse("p50<=100us,p99<=800us,p99.99<=5ms").unwrap(),
    };
    html::site(&site::build(&runs, &comparisons, &opts)).unwrap()
}

fn suite_runs<'a>(
    runs: &'a [bench_db::dataset::StoredRun],
    suite: &str,
) -> Vec<&'a bench_db::dataset::StoredRun> {
    runs.iter().filter(|r| r.suite == suite).collect()
}

#[test]
fn spectrum_snapshot() {
    let runs = demo::runs();
    let jlbh: Vec<_> = suite_runs(&runs, "jlbh")
        .into_iter()
        .filter(|r| r.source_id == 1)
        .collect();
    let input = charts::spectrum::from_runs(&jlbh, "end_to_end", &[(99.0, 800.0)]).unwrap();
    assert_eq!(input.runs.len(), 3);
    // JLBH's run 1 is its warm-up: drawn apart, outside the band.
    assert_eq!(input.warm_up, Some(0));
    assert_eq!(input.runs[0].0, "run 1 (warm-up)");
    insta::assert_snapshot!(spectrum::render(&input).unwrap());
}

#[test]
fn curve_snapshot() {
    let runs = demo::runs();
    let jlbh: Vec<_> = runs.iter().filter(|r| r.suite == "jlbh").cloned().collect();
    let c = bench_db::analysis::curve::curve(
        &jlbh,
        Some("end_to_end"),
        &[50.0, 90.0, 99.0],
        Some("p99<=800us"),
    )
    .unwrap();
    let input = charts::curve::from_curve(&c, "End to End", "/s").unwrap();
    // 5k and 20k msg/s; p90 is the median over three runs at each rate.
    assert_eq!(input.lines[1].points[0].throughput, 5000.0);
    assert!((input.lines[1].points[0].value - 62.46 * 1.04).abs() < 1e-9);
    insta::assert_snapshot!(curve::render(&input).unwrap());
}

#[test]
fn shift_and_timeseries_snapshots() {
    let runs = demo::runs();
    let cmps = demo::comparisons(&runs);
    let tsar = cmps.iter().find(|c| c.suite == "tsar").unwrap();
    let rt = tsar.deltas.iter().find(|d| d.metric == "ts.rt").unwrap();
    assert!((rt.delta_pct.unwrap() - (-12.6)).abs() < 0.1, "{rt:?}");
    let plot = shift::ShiftInput::from_deltas(tsar.title(), &tsar.deltas);
    insta::assert_snapshot!("shift", shift::render(&plot).unwrap());
    insta::assert_snapshot!(
        "timeseries",
        timeseries::render(&tsar.timeseries[0]).unwrap()
    );
}

#[test]
fn history_and_variation_snapshots() {
    let runs = demo::runs();
    let jlbh = suite_runs(&runs, "jlbh");
    // 20k and 5k msg/s are different experiments: no history mixes them.
    assert!(charts::history::from_runs(&jlbh).is_empty());
    // Three sources of one experiment per rate: one history per rate (each source's
    // warm-up run 1, at 5000/s, left out: 10000/s is seen first, 3 × 33 runs).
    let load = demo::many(300);
    let load: Vec<_> = load.iter().collect();
    let hist = charts::history::from_runs(&load);
    assert_eq!(hist.len(), 3, "one per target rate");
    assert!(
        hist[0].title == "End to End · [target_throughput=10000]: history over 99 runs",
        "{}",
        hist[0].title
    );
    insta::assert_snapshot!("history", history::render(&hist[0]).unwrap());
    let table = charts::variation::from_runs(&jlbh);
    // Seed 000's 50th percentile, runs 2 and 3: 41.98 and 33.79 → 13.91.
    assert_eq!(
        format!("{:.2}", table.groups[0].rows[0].cells[0].unwrap()),
        "13.91"
    );
    insta::assert_snapshot!("variation", variation::render(&table));
}

#[test]
fn index_snapshot_and_determinism() {
    let a = demo_site();
    let b = demo_site();
    assert_eq!(a, b, "the same runs give byte-identical pages");
    let names: Vec<&str> = a.files.iter().map(|f| f.0.as_str()).collect();
    assert_eq!(
        names,
        [
            "index.html",
            "suite-jgroups.html",
            "suite-jlbh.html",
            "suite-tsar.html",
            "suite-zookeeper.html"
        ]
    );
    insta::assert_snapshot!("index", &a.files[0].1);
}

#[test]
fn labels_from_input_are_escaped_everywhere() {
    for (name, text) in &demo_site().files {
        assert!(
            !text.contains("<script>"),
            "{name} carries raw markup from input"
        );
        assert!(!text.contains("<script"), "{name} has a script element");
    }
    let jgroups = demo_site()
        .files
        .into_iter()
        .find(|f| f.0 == "suite-jgroups.html")
        .unwrap()
        .1;
    assert!(jgroups.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
}

#[test]
fn ten_thousand_runs_stay_bounded() {
    let runs = demo::many(10_000);
    let model = site::build(&runs, &demo::comparisons(&runs), &site::Options::default());
    let site = html::site(&model).unwrap();
    for (name, text) in &site.files {
        for svg in text.split("<svg").skip(1) {
            let len = svg.find("</svg>").unwrap_or(svg.len());
            assert!(len < 1_000_000, "{name}: an SVG of {len} bytes");
        }
        assert!(text.len() < 5_000_000, "{name}: {} bytes", text.len());
    }
}
