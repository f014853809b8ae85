//! Which direction is better for a metric, and what kind of metric it is, from its
//! normalised name and unit. The policy file can override the polarity per metric.
//!
//! Rules, first match wins, on the name's tokens (split at `.`, `_`, `-`, lower-cased):
//! - before the unit: a token `within` (a share of samples within a spread) has no
//!   known polarity; an allocation (`alloc`, `churn`) or a spread (`stdev`, `mad`, …) is
//!   lower-is-better, whatever its unit (`gc.alloc.rate` is in MB/sec);
//! - a microbenchmark's rate unit decides next ([`kind_of_rate_unit`]);
//! 0. cost: a token starting with `loss`, `lost`, `error`, `fail`, `drop`, `miss`,
//!    `timeout`, `retran` (tsar's `retran`, `retransmits`), `outstanding` or `queue` →
//!    lower is better, checked before the throughput tokens (`loss_rate`, `zk_outstanding_requests`, `dropped_msgs`);
//! 1. throughput: a token `qps`, `tps`, `rps`, `ops`, `throughput`, `msgs`, `requests`,
//!    `reqs`, `bps`, `rate`, `bandwidth`, or a `per` + `sec` pair, or a unit ending in
//!    `/s` or `/sec` → higher is better;
//! 2. latency: a time unit, a percentile ladder, a token containing `latency`, or a token
//!    `rt`, `time`, `duration`, `end` (`end_to_end`), `lat` → lower is better;
//! 3. resources: a token `cpu`, `util`, `mem`, `memory`, `rss`, `heap`, `gc`, `load`,
//!    `sys`, `user`, `wait`, `concurrency` → lower is better;
//! 4. anything else has no known polarity: [`known_polarity`] says `None`, the gate does
//!    not gate it unless the policy names it, and `compare` reads it as lower-is-better.

use serde::{Deserialize, Serialize};

/// The better direction of a metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Polarity {
    /// Lower is better (latency, time, cpu).
    Lower,
    /// Higher is better (throughput).
    Higher,
}

/// What a metric measures, for the default gate policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Latency,
    Throughput,
    Other,
}

fn tokens(metric: &str) -> Vec<String> {
    metric
        .split(['.', '_', '-', ' ', '/'])
        .filter(|t| !t.is_empty())
        .map(str::to_ascii_lowercase)
        .collect()
}

/// Token prefixes of counters where more is worse, checked before the throughput tokens.
const COST: &[&str] = &[
    "loss",
    "lost",
    "error",
    "fail",
    "drop",
    "miss",
    "timeout",
    "retran",
    "outstanding",
    "queue",
];

/// Resource tokens: lower is better.
const RESOURCE: &[&str] = &[
    "cpu",
    "util",
    "mem",
    "memory",
    "rss",
    "heap",
    "gc",
    "load",
    "sys",
    "user",
    "wait",
    // Little's-law requests in flight: at a given throughput, more means slower.
    "concurrency",
];

fn is_cost(t: &[String]) -> bool {
    t.iter().any(|x| COST.iter().any(|c| x.starts_with(c)))
}

/// Tokens of what a unit alone would misread, decided before it: memory allocated
/// (JMH's `gc.alloc.rate` in MB/sec, `gc.churn.*`) is a cost, a spread (`stdev`) is
/// lower-is-better whatever it spreads, and a share of samples `within` a spread has no
/// better direction.
const ALLOCATION: &[&str] = &["alloc", "allocs", "allocated", "allocation", "churn"];
const SPREAD: &[&str] = &["stdev", "stddev", "sd", "sigma", "variance", "mad", "iqr"];

fn is_share_within(t: &[String]) -> bool {
    t.iter().any(|x| x == "within")
}

fn is_before_unit_cost(t: &[String]) -> bool {
    t.iter()
        .any(|x| ALLOCATION.contains(&x.as_str()) || SPREAD.contains(&x.as_str()))
}

/// The kind of a metric (rules in the module doc); `ladder` says its data is a percentile ladder.
pub fn kind(metric: &str, unit: &str, ladder: bool) -> Kind {
    let t = tokens(metric);
    if is_share_within(&t) || is_before_unit_cost(&t) {
        return Kind::Other;
    }
    const THROUGHPUT: &[&str] = &[
        "qps",
        "tps",
        "rps",
        "ops",
        "throughput",
        "msgs",
        "requests",
        "reqs",
        "bps",
        "rate",
        "bandwidth",
        "iterations",
    ];
    const LATENCY: &[&str] = &["latency", "rt", "time", "duration", "end", "lat"];
    if let Some(k) = kind_of_rate_unit(unit) {
        return k;
    }
    let has = |w: &str| t.iter().any(|x| x == w);
    let unit = unit.trim().to_ascii_lowercase();
    if is_cost(&t) {
        Kind::Other
    } else if THROUGHPUT.iter().any(|w| has(w))
        || (has("per") && (has("sec") || has("second")))
        || unit.ends_with("/s")
        || unit.ends_with("/sec")
    {
        Kind::Throughput
    } else if ladder
        || crate::units::is_time(&unit)
        || LATENCY.iter().any(|w| has(w))
        || t.iter().any(|x| x.contains("latency"))
    {
        Kind::Latency
    } else {
        Kind::Other
    }
}

/// Microbenchmark units decide on their own, before any name rule, because those
/// formats name a metric after the benchmark (JMH, Go, hyperfine), whatever words it
/// holds: a cost per operation (`ns/op`, `us/op`, `B/op`, `allocs/op`) is lower-is-better
/// (a latency when it is a time per op), operations per time (`ops/s`, `ops/ms`,
/// `ops/us`, `msg/sec`, `MB/s`, `Melem/s`) are a throughput, and a bare time unit (`s`,
/// `ms`, `ns`, hyperfine's and Criterion's) is a latency.
/// Whether `unit` is a count per time (`req/s`, `msg/sec`, `ops/ms`).
pub fn is_rate_unit(unit: &str) -> bool {
    kind_of_rate_unit(unit) == Some(Kind::Throughput)
}

fn kind_of_rate_unit(unit: &str) -> Option<Kind> {
    let u = unit.trim();
    if let Some(what) = u.strip_suffix("/op") {
        return Some(if crate::units::is_time(what) {
            Kind::Latency
        } else {
            Kind::Other
        });
    }
    if let Some((_, per)) = u.split_once('/')
        && (crate::units::is_time(per)
            || matches!(per, "s" | "sec" | "second" | "min" | "hr" | "h"))
    {
        return Some(Kind::Throughput);
    }
    if !u.is_empty() && crate::units::is_time(u) {
        return Some(Kind::Latency);
    }
    None
}

/// Default polarity: higher is better for throughput, lower for everything else
/// (including metrics of unknown polarity).
pub fn polarity(metric: &str, unit: &str) -> Polarity {
    known_polarity(metric, unit).unwrap_or(Polarity::Lower)
}

/// The polarity the name rules know, `None` when no rule matches (rule 4).
pub fn known_polarity(metric: &str, unit: &str) -> Option<Polarity> {
    match kind(metric, unit, false) {
        Kind::Throughput => Some(Polarity::Higher),
        Kind::Latency => Some(Polarity::Lower),
        Kind::Other => {
            let t = tokens(metric);
            if is_share_within(&t) {
                return None;
            }
            // A cost per operation (`B/op`, `allocs/op`) is lower-is-better by its unit.
            (is_cost(&t)
                || is_before_unit_cost(&t)
                || t.iter().any(|x| RESOURCE.contains(&x.as_str()))
                || unit.trim().ends_with("/op"))
            .then_some(Polarity::Lower)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_names() {
        assert_eq!(polarity("ts.rt", ""), Polarity::Lower);
        assert_eq!(polarity("cpu.util", "%"), Polarity::Lower);
        assert_eq!(polarity("ts.qps", ""), Polarity::Higher);
        assert_eq!(polarity("msgs_per_sec", ""), Polarity::Higher);
        assert_eq!(polarity("requests", ""), Polarity::Higher);
        assert_eq!(polarity("transfer", "MB/s"), Polarity::Higher);
        assert_eq!(polarity("latency_avg", "ms"), Polarity::Lower);
        assert_eq!(kind("end_to_end", "us", true), Kind::Latency);
        assert_eq!(kind("latency_avg", "ms", false), Kind::Latency);
        assert_eq!(kind("cpu.util", "%", false), Kind::Other);
        assert_eq!(kind("serverstats.maxlatency", "", false), Kind::Latency);
        assert_eq!(kind("ts.qps", "", false), Kind::Throughput);
    }

    #[test]
    fn costs_win_over_throughput_tokens_and_unknowns_say_so() {
        for m in [
            "loss_rate",
            "zk_outstanding_requests",
            "dropped_msgs",
            "errors_per_sec",
            "timeouts",
            "tcp_retransmits",
            "tcp.retran",
            "queue_depth",
            "cache_misses",
            "failed_requests",
        ] {
            assert_eq!(known_polarity(m, ""), Some(Polarity::Lower), "{m}");
            assert_eq!(kind(m, "", false), Kind::Other, "{m}");
        }
        assert_eq!(known_polarity("cpu.util", "%"), Some(Polarity::Lower));
        assert_eq!(known_polarity("ts.qps", ""), Some(Polarity::Higher));
        assert_eq!(known_polarity("ts.cons", ""), None);
        assert_eq!(polarity("ts.cons", ""), Polarity::Lower);
    }

    #[test]
    fn microbenchmark_units_decide_before_names() {
        // A JMH benchmark named `rate` measured as average time is still a time.
        assert_eq!(polarity("bench.rate", "ns/op"), Polarity::Lower);
        assert_eq!(kind("bench.rate", "us/op", false), Kind::Latency);
        assert_eq!(polarity("join_2.b_op", "B/op"), Polarity::Lower);
        assert_eq!(polarity("join_2.allocs_op", "allocs/op"), Polarity::Lower);
        assert_eq!(kind("join_2.allocs_op", "allocs/op", false), Kind::Other);
        assert_eq!(
            known_polarity("join_2.allocs_op", "allocs/op"),
            Some(Polarity::Lower)
        );
        for unit in ["ops/s", "ops/ms", "ops/us", "msg/sec", "MB/s", "Melem/s"] {
            assert_eq!(polarity("bench.latency", unit), Polarity::Higher, "{unit}");
        }
        assert_eq!(polarity("sleep_0_01", "s"), Polarity::Lower);
        assert_eq!(kind("fib_fib_10", "ns", false), Kind::Latency);
    }

    #[test]
    fn allocation_and_spread_are_costs_whatever_their_unit() {
        // JMH's GC profiler (fixtures/jmh/gc-profiler-and-single-shot.txt) and wrk's
        // thread stats: a faster allocation rate or a wider spread is worse.
        for (m, u) in [
            ("gc_alloc_rate", "MB/sec"),
            ("gc_alloc_rate_norm", "B/op"),
            ("gc_churn_g1_eden_space", "MB/sec"),
            ("req_per_thread_stdev", "req/s"),
            ("latency_stdev", "ms"),
        ] {
            assert_eq!(known_polarity(m, u), Some(Polarity::Lower), "{m}");
            assert_eq!(kind(m, u, false), Kind::Other, "{m}");
        }
        // The share of samples within one stdev has no better direction.
        assert_eq!(known_polarity("latency_within_stdev", "%"), None);
        assert_eq!(known_polarity("req_per_thread_within_stdev", "%"), None);
        // k6 counts iterations as it counts requests.
        assert_eq!(known_polarity("iterations", ""), Some(Polarity::Higher));
        assert_eq!(known_polarity("http_reqs", ""), Some(Polarity::Higher));
    }
}
