//! The loopback runner's printed JLBH text, parsed back by the JLBH parser, gives the
//! same runs, percentiles and `% Variation` as the runner's own model values.

use bench_db::runner::loopback::{Mode, Switch};
use bench_db::runner::{loopback, render};
use bench_db_parsers::{Block, Parsed, Series};

fn tiny_run() -> render::Rendered {
    let cfg = loopback::LoopbackConfig {
        throughputs: vec![20_000],
        iterations: 2_000,
        warmup: 500,
        runs: 2,
        msg_size: 8,
        mode: Mode::Block,
        pin_client: None,
        pin_server: None,
        label: None,
        os_jitter: Switch::Off,
        progress: false,
    };
    render::render(&loopback::run(&cfg).expect("loopback run"))
}

#[test]
fn tiny_run_gives_two_runs_with_monotone_ladders() {
    let r = tiny_run();
    assert_eq!(r.blocks.len(), 1);
    let b = &r.blocks[0];
    assert_eq!(b.runs.len(), 2);
    assert_eq!(r.text.matches("BENCHMARK RESULTS (RUN ").count(), 2);
    assert_eq!(r.text.matches(" SUMMARY (").count(), 4);
    for run in &b.runs {
        let metrics: Vec<&str> = run.series.iter().map(|s| s.metric.as_str()).collect();
        assert_eq!(
            metrics,
            [
                "end_to_end",
                "client2server",
                "end_to_end_uncorrected",
                "server2client"
            ]
        );
        for s in &run.series {
            let l = s.ladder().unwrap();
            // 2,000 samples: the table's 50, 90, 99, worst, and the probe line's 99.9 and
            // 99.99.
            assert_eq!(
                l.iter().map(|p| p.percentile).collect::<Vec<_>>(),
                [50.0, 90.0, 99.0, 99.9, 99.99, 100.0]
            );
            assert!(
                l.windows(2).all(|w| w[0].value <= w[1].value),
                "{}",
                s.metric
            );
            assert_eq!(s.unit, "us");
        }
        let e2e = ladder_value(&run.series[0], 100.0);
        let unc = ladder_value(&run.series[2], 100.0);
        assert!(e2e >= unc, "corrected worst {e2e} < uncorrected {unc}");
    }
}

fn ladder_value(s: &Series, p: f64) -> f64 {
    s.ladder()
        .unwrap()
        .iter()
        .find(|x| x.percentile == p)
        .and_then(|x| x.value)
        .unwrap()
}

#[test]
fn printed_text_parses_back_to_the_same_numbers() {
    let Some(jlbh) = bench_db_parsers::format_by_name("jlbh") else {
        eprintln!("skipped: the jlbh format is not registered in this build");
        return;
    };
    let r = tiny_run();
    let parsed: Vec<Block> = (jlbh.parse)(Box::new(r.text.as_bytes()))
        .filter_map(|item| match item.expect("the printed text parses") {
            Parsed::Block(b) => Some(b),
            Parsed::Warning { .. } => None,
        })
        .collect();
    assert_eq!(parsed.len(), r.blocks.len());
    for (mine, theirs) in r.blocks.iter().zip(&parsed) {
        assert_eq!(theirs.label, mine.label);
        assert_eq!(theirs.runs.len(), mine.runs.len());
        for (a, b) in mine.runs.iter().zip(&theirs.runs) {
            assert_eq!(a.index, b.index);
            for s in &a.series {
                let t = b
                    .series
                    .iter()
                    .find(|t| t.metric == s.metric)
                    .unwrap_or_else(|| panic!("run {} lacks {}", b.index, s.metric));
                let percentiles = |s: &Series| -> Vec<f64> {
                    s.ladder().unwrap().iter().map(|p| p.percentile).collect()
                };
                // The line's percentiles the table lacks are stored too (99.9 and 99.99
                // of a short run), as the parser stores them.
                assert_eq!(percentiles(s), percentiles(t), "{}", s.metric);
                for p in s.ladder().unwrap() {
                    let q = t
                        .ladder()
                        .unwrap()
                        .iter()
                        .find(|q| q.percentile == p.percentile)
                        .unwrap_or_else(|| panic!("{} lacks p{}", s.metric, p.percentile));
                    assert_eq!(q.value, p.value, "{} p{}", s.metric, p.percentile);
                    if p.line_value.is_some() && q.line_value.is_some() {
                        assert_eq!(q.line_value, p.line_value, "{} p{}", s.metric, p.percentile);
                    }
                }
            }
        }
        for p in &mine.printed {
            let q = theirs
                .printed
                .iter()
                .find(|q| q.metric == p.metric && q.percentile == p.percentile && q.name == p.name)
                .unwrap_or_else(|| panic!("no printed {} {:?}", p.metric, p.percentile));
            assert_eq!(q.value, p.value);
        }
    }
}
