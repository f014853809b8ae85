//! Time to build every report page for 10,000 runs (target: under 2 s).

use bench_db::report::{demo, html, pairing};
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

fn report_10k(c: &mut Criterion) {
    let runs = demo::many(10_000);
    let comparisons = pairing::auto_pairs(&runs);
    let opts = html::Options::default();
    let mut group = c.benchmark_group("report");
    group.sample_size(10);
    group.bench_function("site_10k_runs", |b| {
        b.iter(|| {
            html::site(black_box(&runs), black_box(&comparisons), &opts).map(|s| s.files.len())
        })
    });
    group.finish();
}

criterion_group!(benches, report_10k);
criterion_main!(benches);
