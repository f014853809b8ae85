//! `--hlog`: the runs' histograms as an HdrHistogram interval log (`.hlog`), one interval
//! per run and probe, tagged with the metric name, in time order. Returns bytes; the
//! caller writes the file.

use super::results::MeasuredSet;
use hdrhistogram::serialization::V2DeflateSerializer;
use hdrhistogram::serialization::interval_log::{IntervalLogWriterBuilder, Tag};
use std::time::{Duration, UNIX_EPOCH};

/// The interval log of every run of `sets`. Values are nanoseconds; the max column is
/// divided by 1000 so it reads in microseconds, like the printed output.
pub fn interval_log(sets: &[MeasuredSet]) -> anyhow::Result<Vec<u8>> {
    let base_s = sets
        .iter()
        .flat_map(|s| &s.runs)
        .map(|r| r.start_unix_s)
        .fold(f64::INFINITY, f64::min);
    let base_s = if base_s.is_finite() { base_s } else { 0.0 };
    let base = UNIX_EPOCH + Duration::from_secs_f64(base_s);
    let mut out = Vec::new();
    let mut serializer = V2DeflateSerializer::new();
    {
        let mut w = IntervalLogWriterBuilder::new()
            .add_comment("bench-db run loopback: latency in ns, one interval per run and probe")
            .with_start_time(base)
            .with_base_time(base)
            .with_max_value_divisor(1000.0)
            .begin_log_with(&mut out, &mut serializer)?;
        for set in sets {
            for run in &set.runs {
                w.write_comment(&format!("{} run {}", set.label, run.index))?;
                let start = Duration::from_secs_f64((run.start_unix_s - base_s).max(0.0));
                let length = Duration::from_millis(run.run_time_ms);
                for p in run.probes() {
                    w.write_histogram(p.hist, start, length, Tag::new(p.metric))
                        .map_err(|e| anyhow::anyhow!("writing the interval log: {e}"))?;
                }
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use hdrhistogram::serialization::Deserializer;
    use hdrhistogram::serialization::interval_log::{IntervalLogIterator, LogEntry};

    #[test]
    fn every_run_and_probe_is_an_interval_that_decodes() {
        let set = crate::runner::render::tests::synthetic_set(2, 1_000);
        let bytes = interval_log(&[set]).unwrap();
        let mut hists = 0;
        for e in IntervalLogIterator::new(&bytes) {
            if let LogEntry::Interval(i) = e.unwrap() {
                let raw = base64::Engine::decode(
                    &base64::engine::general_purpose::STANDARD,
                    i.encoded_histogram(),
                )
                .unwrap();
                let h: hdrhistogram::Histogram<u64> =
                    Deserializer::new().deserialize(&mut &raw[..]).unwrap();
                assert_eq!(h.len(), 1_000);
                hists += 1;
            }
        }
        assert_eq!(hists, 8);
        let text = String::from_utf8(bytes).unwrap();
        assert!(text.contains("#loopback 20000/s run 2"));
        assert!(text.contains("Tag=end_to_end,"));
    }
}
