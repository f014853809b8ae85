//! Overhead of recording one loopback round trip (four histogram updates) and one
//! histogram value, the cost the runner adds to every message. Target: ≤ 50 ns.

use bench_db::runner::record::{Recorder, RoundTrip, new_histogram};
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

fn record(c: &mut Criterion) {
    let mut rec = Recorder::new();
    let mut i = 0u64;
    c.bench_function("record one round trip (4 histograms)", |b| {
        b.iter(|| {
            i = i.wrapping_add(7919);
            let base = i * 50_000;
            let lat = 5_000 + (i % 4_096) * 3;
            rec.record(black_box(&RoundTrip {
                intended: base,
                sent: base + 200,
                server: base + 200 + lat / 2,
                received: base + 200 + lat,
            }));
        })
    });
    let mut h = new_histogram();
    let mut v = 0u64;
    c.bench_function("record one value", |b| {
        b.iter(|| {
            v = v.wrapping_add(7919);
            h.saturating_record(black_box(1_000 + v % 1_000_000));
        })
    });
}

criterion_group!(benches, record);
criterion_main!(benches);
