//! What a loopback measurement produced, before it becomes text or model values: the
//! histograms of each run with the facts needed to judge them (achieved rate, CPUs used,
//! warnings). Pure data and conversions; no IO.

use super::jlbh_numbers::ladder_points;
use super::record::Recorder;
use bench_db_parsers::{Data, HistInterval, Param, Series};
use hdrhistogram::Histogram;
use hdrhistogram::serialization::{Serializer, V2DeflateSerializer};
use serde::Serialize;
use std::collections::BTreeMap;

/// One measured run.
#[derive(Debug, Clone)]
pub struct MeasuredRun {
    /// 1-based.
    pub index: u32,
    /// Wall time of the run, milliseconds (JLBH prints `millis / 1000.0`).
    pub run_time_ms: u64,
    /// Unix time of the run's start, seconds.
    pub start_unix_s: f64,
    /// Messages per second actually sent; `None` with fewer than 2 messages.
    pub achieved_rate: Option<f64>,
    pub recorder: Recorder,
    /// Scheduling gaps of the jitter thread, when it ran.
    pub os_jitter: Option<Histogram<u64>>,
    /// CPUs the client and server threads were seen on.
    pub client_cpus: Vec<usize>,
    pub server_cpus: Vec<usize>,
    pub warnings: Vec<String>,
}

/// All runs at one target throughput.
#[derive(Debug, Clone)]
pub struct MeasuredSet {
    pub label: String,
    /// Messages per second.
    pub target: u64,
    pub iterations: u64,
    pub warmup: u64,
    pub warmup_ms: u64,
    /// `block` or `spin`.
    pub mode: &'static str,
    pub msg_size: usize,
    pub pin_client: Option<usize>,
    pub pin_server: Option<usize>,
    pub runs: Vec<MeasuredRun>,
}

/// One printed histogram of a run: JLBH's display name, the metric name the JLBH parser
/// derives from it, and whether it gets a SUMMARY table (OS Jitter does not).
#[derive(Debug, Clone, Copy)]
pub struct Probe<'a> {
    pub display: &'static str,
    pub summary_label: &'static str,
    pub metric: &'static str,
    pub hist: &'a Histogram<u64>,
    pub summary: bool,
}

impl MeasuredRun {
    /// The run's histograms in JLBH's printing order: End to End, the probes sorted by
    /// name, then OS Jitter.
    pub fn probes(&self) -> Vec<Probe<'_>> {
        let r = &self.recorder;
        let mut v = vec![
            Probe {
                display: "End to End:",
                summary_label: "end to end",
                metric: "end_to_end",
                hist: &r.end_to_end,
                summary: true,
            },
            probe("client2server", &r.client2server),
            probe("end_to_end_uncorrected", &r.end_to_end_uncorrected),
            probe("server2client", &r.server2client),
        ];
        if let Some(h) = self.os_jitter.as_ref().filter(|h| !h.is_empty()) {
            v.push(Probe {
                display: "OS Jitter",
                summary_label: "OS Jitter",
                metric: "os_jitter",
                hist: h,
                summary: false,
            });
        }
        v
    }
}

fn probe<'a>(name: &'static str, hist: &'a Histogram<u64>) -> Probe<'a> {
    Probe {
        display: name,
        summary_label: name,
        metric: name,
        hist,
        summary: true,
    }
}

/// CPU ids as `0,1` (`none` when none were seen).
pub fn cpu_list(cpus: &[usize]) -> String {
    if cpus.is_empty() {
        return "none".into();
    }
    cpus.iter()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// The V2-compressed serialization of a histogram (the `.hlog` encoding).
pub fn encode(h: &Histogram<u64>) -> Vec<u8> {
    let mut out = Vec::new();
    V2DeflateSerializer::new()
        .serialize(h, &mut out)
        .expect("serializing into memory cannot fail");
    out
}

/// The params that define a loopback benchmark, its config: the target rate (a curve's x
/// axis, as JLBH's), the message size, the wait mode and the pinning. What a run measured
/// (iterations, achieved rate, CPUs seen, run time) is not config.
pub const CONFIG: [&str; 5] = [
    "target_throughput",
    "msg_size",
    "mode",
    "pin_client",
    "pin_server",
];

impl MeasuredSet {
    /// Run parameters as stored with every run.
    pub fn params(&self, run: &MeasuredRun) -> BTreeMap<String, Param> {
        let pin = |p: Option<usize>| p.map_or(Param::from("none"), |c| Param::Num(c as f64));
        let mut m = BTreeMap::new();
        m.insert("target_throughput".into(), Param::Num(self.target as f64));
        if let Some(a) = run.achieved_rate {
            m.insert("achieved_throughput".into(), Param::Num(a));
            // Marked so curves leave the run out: it did not run at its target rate.
            let missed = a < crate::analysis::curve::MIN_ACHIEVED_FRACTION * self.target as f64;
            m.insert("missed_schedule".into(), Param::Bool(missed));
        }
        m.insert("iterations".into(), Param::Num(run.recorder.count() as f64));
        m.insert("warmup_iterations".into(), Param::Num(self.warmup as f64));
        m.insert("mode".into(), Param::from(self.mode));
        m.insert("msg_size".into(), Param::Num(self.msg_size as f64));
        m.insert("pin_client".into(), pin(self.pin_client));
        m.insert("pin_server".into(), pin(self.pin_server));
        m.insert(
            "client_cpus".into(),
            Param::from(cpu_list(&run.client_cpus)),
        );
        m.insert(
            "server_cpus".into(),
            Param::from(cpu_list(&run.server_cpus)),
        );
        m.insert("co_correction".into(), Param::Bool(true));
        m.insert("os_jitter".into(), Param::Bool(run.os_jitter.is_some()));
        m.insert(
            "run_time_s".into(),
            Param::Num(run.run_time_ms as f64 / 1000.0),
        );
        m
    }

    /// The model series of a run: one histogram series per probe, in µs, with one
    /// interval (the whole run) and the JLBH ladder.
    pub fn series(&self, run: &MeasuredRun) -> Vec<Series> {
        run.probes()
            .into_iter()
            .map(|p| {
                // Summary rows follow the configured iterations, as in JLBH; OS Jitter has
                // no summary, so its ladder follows its own count.
                let rows = if p.summary {
                    self.iterations
                } else {
                    p.hist.len()
                };
                let data = Data::Histogram {
                    intervals: vec![HistInterval {
                        t: Some(run.start_unix_s),
                        duration: Some(run.run_time_ms as f64 / 1000.0),
                        tag: Some(p.metric.to_string()),
                        encoded: encode(p.hist),
                    }],
                    count: Some(p.hist.len()),
                    points: ladder_points(p.hist, rows),
                };
                Series::new(p.metric, p.display.trim_end_matches(':'), "us", data)
            })
            .collect()
    }
}

/// The `--json` view of one run.
#[derive(Debug, Clone, Serialize)]
pub struct RunJson {
    pub index: u32,
    pub params: BTreeMap<String, Param>,
    /// metric → [(percentile, µs)].
    pub percentiles: BTreeMap<String, Vec<(f64, Option<f64>)>>,
    pub warnings: Vec<String>,
}

/// The `--json` view of one set of runs.
#[derive(Debug, Clone, Serialize)]
pub struct SetJson {
    pub label: String,
    pub target_throughput: u64,
    pub achieved_throughput: Vec<Option<f64>>,
    pub runs: Vec<RunJson>,
    /// metric → [(percentile, % Variation)].
    pub variation_pct: BTreeMap<String, Vec<(f64, Option<f64>)>>,
}
