//! Time to report 10,000 runs (target: under 2 s): the pages alone, and the whole
//! `bench-db report` command over a database holding them (select, build, write).

use bench_db::analysis::{demo, site};
use bench_db::cli::ReportArgs;
use bench_db::report::html;
use bench_db::store::url::Target;
use bench_db::store::{Db, Generated};
use bench_db_parsers::Block;
use criterion::{Criterion, criterion_group, criterion_main};
use std::collections::BTreeMap;
use std::hint::black_box;

fn report_10k(c: &mut Criterion) {
    let runs = demo::many(10_000);
    let comparisons = demo::comparisons(&runs);
    let opts = site::Options::default();
    let mut group = c.benchmark_group("report");
    group.sample_size(10);
    group.bench_function("site_10k_runs", |b| {
        b.iter(|| {
            let model = site::build(black_box(&runs), black_box(&comparisons), &opts);
            html::site(&model).map(|s| s.files.len())
        })
    });

    // The same runs stored as 100 sources of one block each.
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("bench.db");
    let mut store = Db::open(&Target::sqlite(&db)).expect("store");
    let tags = BTreeMap::new();
    for (i, chunk) in runs.chunks(100).enumerate() {
        let block = Block {
            runs: chunk.iter().map(|r| r.run.clone()).collect(),
            ..Block::default()
        };
        let origin = format!("load/{i:05}.txt");
        store
            .insert_generated(&Generated {
                origin: &origin,
                format: "jlbh",
                text: &origin,
                blocks: &[block],
                suite: "load",
                label_override: None,
                tags: &tags,
            })
            .expect("insert");
    }
    drop(store);
    let args = ReportArgs {
        selector: None,
        out: dir.path().join("report"),
        sides: Default::default(),
        slo: Some("p99<=500us".to_string()),
        output: bench_db::cli::Output::new(bench_db::cli::TextFormat::Text, false),
    };
    group.bench_function("command_10k_runs", |b| {
        let target = Target::sqlite(&db);
        b.iter(|| bench_db::cmd::report::run(black_box(&target), &args).expect("report"))
    });
    group.finish();
}

criterion_group!(benches, report_10k);
criterion_main!(benches);
