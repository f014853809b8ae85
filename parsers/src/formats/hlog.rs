//! HdrHistogram interval logs (format `hlog`, versions 1.01–1.3; FORMATS.md §5.3), as
//! written by `HistogramLogWriter`, jHiccup, YCSB and the Rust `IntervalLogWriter`:
//!
//! ```text
//! #[Histogram log format version 1.2]
//! #[StartTime: 1441812279.474 (seconds since epoch), Wed Sep 09 08:24:39 PDT 2015]
//! "StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"
//! 0.127,1.007,2.769,HISTFAAAAEV42pNpmSzMwMCgyAABTBDKT4GBgdnNYMcCBvsPEBEJISE…
//! Tag=A,0.127,1.007,2.769,HISTFAAAAEV42pNpmSzMwMCgyAABTBDK…
//! ```
//!
//! A log is one block with one run per tag (untagged lines first when they come first;
//! runs in order of first appearance). Each run has:
//! - `latency`: `Data::Histogram` with one interval per line (t = start timestamp plus the
//!   base time, resolved as the Java reader does; duration; tag; V2 DEFLATE bytes), count
//!   = total count of the merged intervals, and the merged ladder at 50, 75, 90, 95, 99,
//!   99.9, 99.99, 99.999 and 100. Values are the histogram's raw integers; the log names
//!   no unit (jHiccup records nanoseconds), so the unit is empty.
//! - `latency_max`: time series of the `Interval_Max` column as printed, i.e. the
//!   histogram max divided by the writer's max-value divisor (the Java writer's default
//!   is 1e6, nanoseconds → milliseconds; the Rust writer notes it as `#[MaxValueDivisor: …]`).
//! - `count`: time series of each interval's total count.
//!
//! Params: `start_time`, `base_time` (seconds since the epoch), `max_value_divisor` when the
//! log states them, `log_version`, and `tag` for tagged runs.
//!
//! Identity: no bench. A tag names a stream of its own (one probe, one operation), not a
//! repeat of the untagged one, so `tag` is the config of a tagged run and each tag is a
//! cell of its own; an untagged run has no config. The tag `time` is the log's `StartTime` (else its
//! `BaseTime`) in RFC 3339 UTC, to the second (`2015-09-09T15:24:39Z`).
//! A bad base64 text or an undecodable histogram is an error naming the line.
//! Fixtures: `fixtures/hlog/tiny-tagged.hlog` (written with the `hdrhistogram` crate),
//! `fixtures/hlog/v1.1-legacy-encoding.hlog` (V1 encoded histograms).

mod codec;

pub use codec::{Decoded, decode, decode_base64, encode};

use crate::error::ParseError;
use crate::format::{Format, Head, ParseIter};
use crate::lines::LineReader;
use crate::model::{Block, Data, HistInterval, LadderPoint, Param, Parsed, Run, Series, TimePoint};
use crate::text::LabelTracker;
use hdrhistogram::Histogram;
use regex::Regex;
use std::io::BufRead;
use std::sync::LazyLock;

/// The format entry for the registry.
pub const FORMAT: Format = Format::new("hlog", "1", sniff, parse);

/// Percentiles of the merged ladder.
pub const LADDER: [f64; 9] = [50.0, 75.0, 90.0, 95.0, 99.0, 99.9, 99.99, 99.999, 100.0];

static VERSION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^#\[Histogram log format version ([^\]\s]+)\]").unwrap());
static START_TIME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^#\[StartTime:\s*([0-9.]+)").unwrap());
static BASE_TIME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^#\[BaseTime:\s*([0-9.]+)").unwrap());
static MAX_DIVISOR: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^#\[MaxValueDivisor:?\s*([0-9.eE+-]+)\]").unwrap());
/// An interval line: optional tag, three numbers, the histogram.
static INTERVAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:Tag=([^,\s]*),)?([0-9][0-9.]*),([0-9][0-9.]*),([0-9][0-9.]*),(\S*)$").unwrap()
});

/// Confidence that `head` is an interval log: the version comment is certain; interval
/// lines carrying `HIST…` histograms are nearly so.
pub fn sniff(head: &Head) -> u8 {
    let mut intervals = 0;
    for line in head.text.lines() {
        let line = line.trim();
        // Each test first looks for what its pattern cannot match without (a line
        // starting `#[`, a field starting `HIST` after a comma), which most lines of
        // other formats lack: the regexes then run on a few lines of a head, not all.
        if line.starts_with("#[") && VERSION.is_match(line) {
            return 100;
        }
        if line.contains(",HIST")
            && INTERVAL
                .captures(line)
                .is_some_and(|c| c[5].starts_with("HIST"))
        {
            intervals += 1;
        }
    }
    match intervals {
        0 => 0,
        1 => 70,
        _ => 90,
    }
}

/// Everything collected for one tag.
struct TagRun {
    tag: Option<String>,
    first_line: u64,
    last_line: u64,
    intervals: Vec<HistInterval>,
    merged: Option<Histogram<u64>>,
    max: Vec<TimePoint>,
    counts: Vec<TimePoint>,
}

fn ladder(h: Option<&Histogram<u64>>) -> Vec<LadderPoint> {
    LADDER
        .iter()
        .map(|&p| LadderPoint {
            percentile: p,
            value: h
                .filter(|h| !h.is_empty())
                .map(|h| h.value_at_quantile(p / 100.0) as f64),
            line_value: None,
        })
        .collect()
}

impl TagRun {
    fn into_run(self, index: u32, params: &[(&str, Param)]) -> Run {
        let mut run = Run {
            index,
            first_line: self.first_line,
            last_line: self.last_line,
            ..Run::default()
        };
        for (k, v) in params {
            run.params.insert((*k).to_string(), v.clone());
        }
        if let Some(tag) = &self.tag {
            run.set_config("tag", tag.clone());
        }
        let data = Data::Histogram {
            count: Some(self.merged.as_ref().map_or(0, Histogram::len)),
            points: ladder(self.merged.as_ref()),
            intervals: self.intervals,
        };
        run.series = vec![
            Series::new("latency", "Interval_Compressed_Histogram", "", data),
            Series::new(
                "latency_max",
                "Interval_Max",
                "",
                Data::TimeSeries { points: self.max },
            ),
            Series::new(
                "count",
                "count",
                "",
                Data::TimeSeries {
                    points: self.counts,
                },
            ),
        ];
        run
    }
}

/// Reads the whole log; the block is complete only at the end of input.
struct Reader {
    labels: LabelTracker,
    label: Option<String>,
    version: Option<String>,
    start_time: Option<f64>,
    base_time: Option<f64>,
    max_divisor: Option<f64>,
    /// Resolved at the first interval line, as `HistogramLogReader` does.
    resolved_base: Option<f64>,
    runs: Vec<TagRun>,
}

fn num(text: &str, what: &str, n: u64) -> Result<f64, ParseError> {
    text.parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| ParseError::new(n, format!("{what} `{text}` is not a number")))
}

impl Reader {
    fn new() -> Self {
        Reader {
            labels: LabelTracker::new(),
            label: None,
            version: None,
            start_time: None,
            base_time: None,
            max_divisor: None,
            resolved_base: None,
            runs: Vec::new(),
        }
    }

    fn line(&mut self, line: &str, n: u64) -> Result<(), ParseError> {
        let t = line.trim();
        if t.starts_with('#') {
            if let Some(c) = VERSION.captures(t) {
                self.version = Some(c[1].to_string());
            } else if let Some(c) = START_TIME.captures(t) {
                self.start_time = Some(num(&c[1], "StartTime", n)?);
            } else if let Some(c) = BASE_TIME.captures(t) {
                self.base_time = Some(num(&c[1], "BaseTime", n)?);
            } else if let Some(c) = MAX_DIVISOR.captures(t) {
                self.max_divisor = Some(num(&c[1], "MaxValueDivisor", n)?);
            }
            return Ok(());
        }
        if t.starts_with("\"StartTimestamp\"") {
            return Ok(());
        }
        let Some(c) = INTERVAL.captures(t) else {
            if self.runs.is_empty() {
                self.labels.observe(line);
            }
            return Ok(());
        };
        let start = num(&c[2], "start timestamp", n)?;
        let length = num(&c[3], "interval length", n)?;
        let max = num(&c[4], "interval max", n)?;
        let decoded = decode_base64(&c[5]).map_err(|e| ParseError::new(n, e))?;
        if self.runs.is_empty() {
            self.label = self.labels.take_for_block();
        }
        let base = *self.resolved_base.get_or_insert_with(|| {
            // HistogramLogReader: without a BaseTime, timestamps more than a year before
            // the StartTime are taken as relative to it.
            let start_time = self.start_time.unwrap_or(0.0);
            match self.base_time {
                Some(b) => b,
                None if start < start_time - 365.0 * 24.0 * 3600.0 => start_time,
                None => 0.0,
            }
        });
        let t = start + base;
        let tag = c.get(1).map(|m| m.as_str().to_string());
        let i = match self.runs.iter().position(|r| r.tag == tag) {
            Some(i) => i,
            None => {
                self.runs.push(TagRun {
                    tag: tag.clone(),
                    first_line: n,
                    last_line: n,
                    intervals: Vec::new(),
                    merged: None,
                    max: Vec::new(),
                    counts: Vec::new(),
                });
                self.runs.len() - 1
            }
        };
        let run = &mut self.runs[i];
        run.last_line = n;
        let count = decoded.histogram.len();
        match &mut run.merged {
            Some(m) => m
                .add(&decoded.histogram)
                .map_err(|e| ParseError::new(n, format!("cannot merge the histogram ({e:?})")))?,
            None => {
                let mut h = decoded.histogram;
                h.auto(true);
                run.merged = Some(h);
            }
        }
        run.intervals.push(HistInterval {
            t: Some(t),
            duration: Some(length),
            tag,
            encoded: decoded.encoded,
        });
        run.max.push(TimePoint {
            t,
            value: Some(max),
        });
        run.counts.push(TimePoint {
            t,
            value: Some(count as f64),
        });
        Ok(())
    }

    fn into_block(self) -> Option<Block> {
        let first_line = self.runs.iter().map(|r| r.first_line).min()?;
        let last_line = self.runs.iter().map(|r| r.last_line).max()?;
        let mut params: Vec<(&str, Param)> = Vec::new();
        if let Some(v) = self.version {
            params.push(("log_version", v.into()));
        }
        for (k, v) in [
            ("start_time", self.start_time),
            ("base_time", self.base_time),
            ("max_value_divisor", self.max_divisor),
        ] {
            if let Some(v) = v {
                params.push((k, v.into()));
            }
        }
        let time = self
            .start_time
            .or(self.base_time)
            .and_then(crate::units::rfc3339_utc);
        let runs = self
            .runs
            .into_iter()
            .zip(1..)
            .map(|(r, i)| {
                let mut run = r.into_run(i, &params);
                if let Some(t) = &time {
                    run.tags.insert("time".into(), t.clone());
                }
                run
            })
            .collect();
        Some(Block {
            label: self.label,
            first_line,
            last_line,
            runs,
            printed: Vec::new(),
        })
    }
}

/// Parses an interval log into one block (yielded at the end of input).
pub fn parse<'a>(r: Box<dyn BufRead + 'a>) -> ParseIter<'a> {
    let mut lines = LineReader::new(r);
    let mut reader = Reader::new();
    let mut done = false;
    Box::new(std::iter::from_fn(move || {
        if done {
            return None;
        }
        done = true;
        loop {
            match lines.next_numbered() {
                Err(e) => return Some(Err(e)),
                Ok(None) => break,
                Ok(Some((n, line))) => {
                    if let Err(e) = reader.line(line, n) {
                        return Some(Err(e));
                    }
                }
            }
        }
        let reader = std::mem::replace(&mut reader, Reader::new());
        reader.into_block().map(|b| Ok(Parsed::Block(b)))
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{parse_ok, shared};
    use hdrhistogram::serialization::V2DeflateSerializer;
    use hdrhistogram::serialization::interval_log::{IntervalLogWriterBuilder, Tag};
    use std::time::{Duration, UNIX_EPOCH};

    /// A small log written with the `hdrhistogram` crate's own writer: two untagged
    /// intervals and one tagged `B`, values in microseconds, max divisor 1000.
    fn written_log() -> Vec<u8> {
        let mut out = Vec::new();
        let mut serializer = V2DeflateSerializer::new();
        let mut w = IntervalLogWriterBuilder::new()
            .add_comment("[Histogram log format version 1.3]")
            .with_start_time(UNIX_EPOCH + Duration::from_millis(1_700_000_000_250))
            .with_base_time(UNIX_EPOCH + Duration::from_millis(1_700_000_000_000))
            .with_max_value_divisor(1000.0)
            .begin_log_with(&mut out, &mut serializer)
            .unwrap();
        let mut a = Histogram::<u64>::new_with_bounds(1, 60_000_000, 3).unwrap();
        for v in 1..=100u64 {
            a.record(v * 10).unwrap();
        }
        w.write_histogram(&a, Duration::from_millis(250), Duration::from_secs(1), None)
            .unwrap();
        let mut b = Histogram::<u64>::new_with_bounds(1, 60_000_000, 3).unwrap();
        b.record_n(2000, 50).unwrap();
        b.record(45_000).unwrap();
        w.write_histogram(
            &b,
            Duration::from_millis(1250),
            Duration::from_secs(1),
            None,
        )
        .unwrap();
        let mut c = Histogram::<u64>::new_with_bounds(1, 60_000_000, 3).unwrap();
        c.record_n(700, 9).unwrap();
        let tag = Tag::new("B");
        w.write_histogram(&c, Duration::from_millis(250), Duration::from_secs(2), tag)
            .unwrap();
        out
    }

    fn fixture(name: &str) -> Vec<u8> {
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../fixtures")
            .join(name);
        std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
    }

    fn one_block(bytes: &[u8]) -> Block {
        let mut blocks = parse_ok(&FORMAT, bytes);
        assert_eq!(blocks.len(), 1);
        blocks.pop().unwrap()
    }

    fn histogram(run: &Run) -> (&[HistInterval], Option<u64>, &[LadderPoint]) {
        match &run.series[0].data {
            Data::Histogram {
                intervals,
                count,
                points,
            } => (intervals, *count, points),
            other => panic!("not a histogram: {other:?}"),
        }
    }

    fn time_series(run: &Run, metric: &str) -> Vec<(f64, f64)> {
        let s = run.series.iter().find(|s| s.metric == metric).unwrap();
        match &s.data {
            Data::TimeSeries { points } => points.iter().map(|p| (p.t, p.value.unwrap())).collect(),
            other => panic!("not a time series: {other:?}"),
        }
    }

    fn decoded_len(i: &HistInterval) -> u64 {
        decode(&i.encoded).unwrap().histogram.len()
    }

    /// The numbers of [`written_log`], whichever way it reached the parser.
    fn check_written(b: &Block) {
        assert_eq!(b.runs.len(), 2);
        let run = &b.runs[0];
        assert_eq!(run.params["start_time"], Param::Num(1_700_000_000.25));
        assert_eq!(run.params["base_time"], Param::Num(1_700_000_000.0));
        assert_eq!(run.params["max_value_divisor"], Param::Num(1000.0));
        assert_eq!(run.params["log_version"], Param::from("1.3"));
        assert!(!run.params.contains_key("tag"));
        assert!(run.config.is_empty());
        let (intervals, count, points) = histogram(run);
        assert_eq!(intervals.len(), 2);
        assert_eq!(count, Some(151));
        assert_eq!(intervals[0].t, Some(1_700_000_000.25));
        assert_eq!(intervals[1].t, Some(1_700_000_001.25));
        assert_eq!(intervals[0].duration, Some(1.0));
        assert_eq!(
            intervals.iter().map(decoded_len).collect::<Vec<_>>(),
            [100, 51]
        );
        let ladder: Vec<_> = points
            .iter()
            .map(|p| (p.percentile, p.value.unwrap()))
            .collect();
        assert_eq!(
            ladder,
            [
                (50.0, 760.0),
                (75.0, 2000.0),
                (90.0, 2000.0),
                (95.0, 2000.0),
                (99.0, 2000.0),
                (99.9, 45023.0),
                (99.99, 45023.0),
                (99.999, 45023.0),
                (100.0, 45023.0)
            ]
        );
        assert_eq!(
            time_series(run, "latency_max"),
            [(1_700_000_000.25, 1.0), (1_700_000_001.25, 45.023)]
        );
        assert_eq!(
            time_series(run, "count"),
            [(1_700_000_000.25, 100.0), (1_700_000_001.25, 51.0)]
        );
        let run = &b.runs[1];
        assert_eq!(run.index, 2);
        assert_eq!(run.params["tag"], Param::from("B"));
        // Another stream, so another cell: the tag is its config.
        assert_eq!(run.config_params()["tag"], &Param::from("B"));
        let (intervals, count, points) = histogram(run);
        assert_eq!((intervals.len(), count), (1, Some(9)));
        assert_eq!(intervals[0].tag.as_deref(), Some("B"));
        assert_eq!(intervals[0].duration, Some(2.0));
        assert_eq!(points[8].value, Some(700.0));
    }

    #[test]
    fn round_trip_through_the_crate_writer() {
        let log = written_log();
        let b = one_block(&log);
        check_written(&b);
        // Already V2 DEFLATE: the stored bytes are the log's own.
        let text = String::from_utf8(log).unwrap();
        let first = text.lines().find(|l| l.contains("HIST")).unwrap();
        let b64 = first.rsplit(',').next().unwrap();
        let (intervals, _, _) = histogram(&b.runs[0]);
        assert_eq!(decode_base64(b64).unwrap().encoded, intervals[0].encoded);
    }

    #[test]
    fn written_fixture() {
        let b = one_block(&fixture("hlog/tiny-tagged.hlog"));
        assert_eq!((b.first_line, b.last_line), (5, 7));
        check_written(&b);
    }

    #[test]
    fn v1_encoded_fixture() {
        let b = one_block(&fixture("hlog/v1.1-legacy-encoding.hlog"));
        let run = &b.runs[0];
        assert_eq!(run.params["log_version"], Param::from("1.1"));
        // `#[StartTime: 1420070400.000 …, Thu Jan 01 00:00:00 UTC 2015]`.
        assert_eq!(run.tags["time"], "2015-01-01T00:00:00Z");
        let (intervals, count, points) = histogram(run);
        assert_eq!(count, Some(15));
        assert_eq!(
            intervals.iter().map(decoded_len).collect::<Vec<_>>(),
            [10, 5]
        );
        // Relative timestamps and a StartTime but no BaseTime: StartTime is the base.
        assert_eq!(intervals[0].t, Some(1420070400.1));
        // Values: 10×3, 100×5, 200×2, 50×4, 300×1 (300 sits in a slot 2 wide: 301).
        let h = decode(&intervals[1].encoded).unwrap().histogram;
        assert_eq!((h.count_at(50), h.count_at(300), h.max()), (4, 1, 301));
        assert_eq!(points[0].value, Some(100.0));
        assert_eq!(points[8].value, Some(301.0));
    }

    /// The interval max column (ms, rounded to 3 decimals) lies in the value range of the
    /// decoded histogram's highest slot (ns).
    fn check_maxima(run: &Run) {
        let (intervals, _, _) = histogram(run);
        for (i, (_, max)) in intervals.iter().zip(time_series(run, "latency_max")) {
            let h = decode(&i.encoded).unwrap().histogram;
            let (low, high) = (h.lowest_equivalent(h.max()) as f64, h.max() as f64);
            let logged = max * 1e6;
            assert!(
                low - 500.0 <= logged && logged <= high + 500.0,
                "{logged} not in {low}..{high}"
            );
        }
    }

    #[test]
    fn jhiccup_samples() {
        let Some(dir) = shared("samples/hdrhistogram") else {
            return;
        };
        let read = |name: &str| std::fs::read(dir.join(name)).unwrap();

        let b = one_block(&read("hlog-v1.2-jhiccup-2.0.7S.txt"));
        assert_eq!((b.first_line, b.last_line, b.runs.len()), (5, 66, 1));
        let run = &b.runs[0];
        assert_eq!(run.params["start_time"], Param::Num(1441812279.474));
        // `Wed Sep 09 08:24:39 PDT 2015`.
        assert_eq!(run.tags["time"], "2015-09-09T15:24:39Z");
        let (intervals, count, points) = histogram(run);
        assert_eq!(intervals.len(), 62);
        assert_eq!(count, Some(48761));
        assert_eq!(count, Some(intervals.iter().map(decoded_len).sum()));
        assert_eq!(decoded_len(&intervals[0]), 741);
        assert_eq!(intervals[0].t, Some(1441812279.474 + 0.127));
        assert_eq!(intervals[9].duration, Some(1.751));
        assert_eq!(
            time_series(run, "latency_max")[9],
            (1441812279.474 + 9.132, 1551.892)
        );
        assert!(points.iter().all(|p| p.value.is_some()));
        check_maxima(run);

        let b = one_block(&read("hlog-v1.2-tagged.txt"));
        assert_eq!(b.runs.len(), 2);
        for (run, tag) in b.runs.iter().zip([None, Some("A")]) {
            let (intervals, count, _) = histogram(run);
            assert_eq!((intervals.len(), count), (21, Some(16145)));
            assert!(intervals.iter().all(|i| i.tag.as_deref() == tag));
        }
        assert_eq!(histogram(&b.runs[0]).2, histogram(&b.runs[1]).2);

        let b = one_block(&read("hlog-v1.01-jhiccup-2.0.1-EndTimestamp-legend.txt"));
        let run = &b.runs[0];
        assert_eq!(run.params["log_version"], Param::from("1.01"));
        let (intervals, count, _) = histogram(run);
        assert_eq!(intervals.len(), 81);
        assert_eq!(count, Some(61256));
        assert_eq!(count, Some(intervals.iter().map(decoded_len).sum()));
        // 738 is the total count the V0 header itself records for the first interval.
        assert_eq!(decoded_len(&intervals[0]), 738);
        check_maxima(run);
    }

    #[test]
    fn bad_histograms_name_the_line() {
        let err = |bytes: &[u8]| {
            parse(Box::new(bytes))
                .find_map(Result::err)
                .expect("a parse error")
        };
        let e = err(&fixture("malformed/hlog-bad-base64.hlog"));
        assert_eq!(e.line, 5, "{e}");
        assert!(e.message.contains("base64"), "{e}");
        let e = err(b"0.1,1.0,2.0,HISTFAAAAEV42pNpmSzMwMCgyAAB\n");
        assert_eq!(e.line, 1);
        let e = err(b"0.1,1.0,2.0,AAAAAAAA\n");
        assert!(e.message.contains("not a serialized HdrHistogram"), "{e}");
    }

    #[test]
    fn junk_and_empty_inputs_yield_nothing() {
        assert!(parse_ok(&FORMAT, b"").is_empty());
        assert!(parse_ok(&FORMAT, b"#[Histogram log format version 1.3]\n").is_empty());
        assert!(parse_ok(&FORMAT, b"\xff\xfe junk,1,2\n").is_empty());
    }
}
