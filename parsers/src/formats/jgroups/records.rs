//! The result lines of the JGroups perf tools, one parse function per line shape.
//!
//! Each function takes the text of one line (ANSI already stripped, address already split
//! off where the line starts with one) and returns the printed numbers as [`Field`]s, or a
//! message saying what is wrong with the line. Line numbers, blocks and state belong to
//! the caller.

use super::values::{bytes, count, number, to_micros};
use crate::model::{Data, PrintedStat, Series};
use regex::Regex;
use std::sync::LazyLock;

/// One number printed in a result line, with the metric it belongs to.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// Normalised metric name (`msgs_per_sec`).
    pub metric: &'static str,
    /// The name as printed (`msgs/sec`).
    pub display: &'static str,
    /// The unit the value is stored in (`msgs/s`, `bytes`, `us`).
    pub unit: &'static str,
    /// What kind of summary it is when it is one (`avg`, `min`, `max`); empty otherwise.
    pub stat: &'static str,
    pub value: f64,
}

impl Field {
    fn new(metric: &'static str, display: &'static str, unit: &'static str, value: f64) -> Self {
        Field {
            metric,
            display,
            unit,
            stat: "",
            value,
        }
    }

    /// The field as a one-value series of a run.
    pub fn series(&self) -> Series {
        Series::new(
            self.metric,
            self.display,
            self.unit,
            Data::Value {
                value: Some(self.value),
            },
        )
    }

    /// The field as a number printed about the whole block, named `name` (or by its own
    /// summary kind, `name_avg`, when it has one).
    pub fn printed(&self, name: &str) -> PrintedStat {
        let name = match (name.is_empty(), self.stat.is_empty()) {
            (_, true) => name.to_string(),
            (true, false) => self.stat.to_string(),
            (false, false) => format!("{name}_{}", self.stat),
        };
        PrintedStat {
            metric: self.metric.to_string(),
            percentile: None,
            name,
            value: Some(self.value),
        }
    }
}

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).expect("valid pattern")
}

fn get<'h>(c: &regex::Captures<'h>, i: usize) -> &'h str {
    c.get(i).map_or("", |m| m.as_str())
}

fn num(text: &str, what: &str, parse: fn(&str) -> Option<f64>) -> Result<f64, String> {
    parse(text).ok_or_else(|| format!("{what} '{text}' is not a number"))
}

fn size(text: &str, what: &str) -> Result<f64, String> {
    bytes(text)
        .ok_or_else(|| format!("{what} '{text}' is not a size (a number with b, KB, MB, GB or TB)"))
}

/// MPerf's per-member and average statistics (every version):
/// `2000000 msgs, 2GB received, time=2646ms, msgs/sec=755857.9, throughput=755.86MB`
/// (2011; the 2013 manual has no `time=`), `2,000,000 msgs, …, time=2,646 ms, msgs/sec=755,857.90, …`
/// (2017+). A per-sender list `[A: … msgs/sec (…/sec)  B: …]` that MPerf can append after the
/// throughput is not kept: the member totals already cover it.
pub fn mperf_stats(text: &str) -> Result<Vec<Field>, String> {
    static RE: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"^(\S+) msgs, (\S+) received(?:, time=(\S+?) ?ms)?, msgs/sec=(\S+), throughput=([^\s\[]+)(?:\s*\[.*\])?$",
        )
    });
    let c = RE.captures(text.trim()).ok_or_else(|| {
        format!(
            "expected '<n> msgs, <size> received, [time=<t> ms, ]msgs/sec=<x>, throughput=<size>', found '{}'",
            text.trim()
        )
    })?;
    let mut out = vec![
        Field::new(
            "msgs",
            "msgs",
            "msgs",
            num(get(&c, 1), "message count", count)?,
        ),
        Field::new(
            "received",
            "received",
            "bytes",
            size(get(&c, 2), "received")?,
        ),
    ];
    if let Some(t) = c.get(3) {
        out.push(Field::new(
            "time",
            "time",
            "ms",
            num(t.as_str(), "time", number)?,
        ));
    }
    out.push(Field::new(
        "msgs_per_sec",
        "msgs/sec",
        "msgs/s",
        num(get(&c, 4), "msgs/sec", count)?,
    ));
    out.push(Field::new(
        "throughput",
        "throughput",
        "bytes/s",
        size(get(&c, 5), "throughput")?,
    ));
    Ok(out)
}

/// The old perf.Test `MemberInfo` (2004–2011):
/// `num_msgs_expected=N, num_msgs_received=N (loss rate=0.0%), received=1GB, time=74152ms, msgs/sec=13485.82, throughput=13.49MB`
/// (2006; 2004–2005 print `throughput=13.49MB/sec`).
pub fn member_info(text: &str) -> Result<Vec<Field>, String> {
    static RE: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"^num_msgs_expected=(\S+), num_msgs_received=(\S+) \(loss rate=(\S+?)%\), received=(\S+), time=(\S+?) ?ms, msgs/sec=(\S+), throughput=(\S+?)(?:/sec)?$",
        )
    });
    let c = RE.captures(text.trim()).ok_or_else(|| {
        format!(
            "expected 'num_msgs_expected=N, num_msgs_received=N (loss rate=x%), received=<size>, time=<t>ms, msgs/sec=<x>, throughput=<size>', found '{}'",
            text.trim()
        )
    })?;
    Ok(vec![
        Field::new(
            "msgs_expected",
            "num_msgs_expected",
            "msgs",
            num(get(&c, 1), "num_msgs_expected", count)?,
        ),
        Field::new(
            "msgs_received",
            "num_msgs_received",
            "msgs",
            num(get(&c, 2), "num_msgs_received", count)?,
        ),
        Field::new(
            "loss_rate",
            "loss rate",
            "%",
            num(get(&c, 3), "loss rate", number)?,
        ),
        Field::new(
            "received",
            "received",
            "bytes",
            size(get(&c, 4), "received")?,
        ),
        Field::new("time", "time", "ms", num(get(&c, 5), "time", number)?),
        Field::new(
            "msgs_per_sec",
            "msgs/sec",
            "msgs/s",
            num(get(&c, 6), "msgs/sec", count)?,
        ),
        Field::new(
            "throughput",
            "throughput",
            "bytes/s",
            size(get(&c, 7), "throughput")?,
        ),
    ])
}

/// perf.Test's closing line: `combined: 13402.5 msgs/sec averaged over all receivers
/// (throughput=13.4MB/sec)` (2006), or `combined: <MemberInfo>` (2004–2005).
pub fn combined(text: &str) -> Result<Vec<Field>, String> {
    static RE: LazyLock<Regex> = LazyLock::new(|| {
        re(r"^combined: (\S+) msgs/sec averaged over all receivers \(throughput=(\S+?)/sec\)$")
    });
    let t = text.trim();
    if let Some(info) = t.strip_prefix("combined:").map(str::trim)
        && info.starts_with("num_msgs_expected=")
    {
        return member_info(info);
    }
    let c = RE.captures(t).ok_or_else(|| {
        format!(
            "expected 'combined: <x> msgs/sec averaged over all receivers (throughput=<size>/sec)', found '{t}'"
        )
    })?;
    Ok(vec![
        Field::new(
            "msgs_per_sec",
            "msgs/sec",
            "msgs/s",
            num(get(&c, 1), "msgs/sec", count)?,
        ),
        Field::new(
            "throughput",
            "throughput",
            "bytes/s",
            size(get(&c, 2), "throughput")?,
        ),
    ])
}

/// UPerf's per-member result after the address, every version:
/// `23121.39 reqs/sec (15813 gets, 4187 puts, get RTT 971.37 us, put RTT 1495.74 us)` (2016,
/// grouped from 2017, `get RTT 73.06us` with its own unit from 2024) or
/// `12345.67 reqs/sec (15813 GETs, 4187 PUTs total)` (2011).
/// Round-trip times are stored in microseconds, the unit UPerf printed
/// them in until 2024 (5.4 prints each with its own unit; those are converted).
pub fn uperf_member(text: &str) -> Result<Vec<Field>, String> {
    static RE: LazyLock<Regex> = LazyLock::new(|| re(r"^(\S+) reqs/sec \((.*)\)$"));
    static NEW: LazyLock<Regex> =
        LazyLock::new(|| re(r"^(\S+) gets, (\S+) puts, get RTT (.+?), put RTT (.+)$"));
    static OLD: LazyLock<Regex> = LazyLock::new(|| re(r"^(\S+) GETs, (\S+) PUTs total$"));
    let shape = "expected '<x> reqs/sec (<n> gets, <n> puts, get RTT <t>, put RTT <t>)' or '<x> reqs/sec (<n> GETs, <n> PUTs total)'";
    let c = RE
        .captures(text.trim())
        .ok_or_else(|| format!("{shape}, found '{}'", text.trim()))?;
    let mut out = vec![Field::new(
        "reqs_per_sec",
        "reqs/sec",
        "reqs/s",
        num(get(&c, 1), "reqs/sec", count)?,
    )];
    let inner = get(&c, 2);
    if let Some(d) = NEW.captures(inner) {
        out.push(Field::new(
            "gets",
            "gets",
            "reqs",
            num(get(&d, 1), "gets", count)?,
        ));
        out.push(Field::new(
            "puts",
            "puts",
            "reqs",
            num(get(&d, 2), "puts", count)?,
        ));
        out.push(Field::new(
            "get_rtt",
            "get RTT",
            "us",
            single_time(get(&d, 3))?,
        ));
        out.push(Field::new(
            "put_rtt",
            "put RTT",
            "us",
            single_time(get(&d, 4))?,
        ));
    } else if let Some(d) = OLD.captures(inner) {
        out.push(Field::new(
            "gets",
            "GETs",
            "reqs",
            num(get(&d, 1), "GETs", count)?,
        ));
        out.push(Field::new(
            "puts",
            "PUTs",
            "reqs",
            num(get(&d, 2), "PUTs", count)?,
        ));
    } else {
        return Err(format!("{shape}, found '{}'", text.trim()));
    }
    Ok(out)
}

/// One time value, `971.37 us` (unit apart) or `73.06us` (`Util.printTime`), in microseconds.
fn single_time(text: &str) -> Result<f64, String> {
    let values = times(text)?;
    match values.as_slice() {
        [v] => Ok(*v),
        _ => Err(format!("expected one time value, found '{text}'")),
    }
}

/// `a/b/c us`, `a us`, `a`ns/`b`us/…: one or more `/`-separated times, in microseconds.
fn times(text: &str) -> Result<Vec<f64>, String> {
    let t = text.trim();
    let (values, unit) = match t.rsplit_once(' ') {
        Some((v, u)) if to_micros("1", u).is_some() => (v.trim(), Some(u)),
        _ => (t, None),
    };
    values
        .split('/')
        .map(|v| {
            match unit {
                Some(u) => to_micros(v, u),
                None => super::values::micros(v),
            }
            .ok_or_else(|| format!("'{v}' in '{t}' is not a time (a number with ns, us, ms or s)"))
        })
        .collect()
}

/// One side of UPerf's `Roundtrip:` line (`avg = 932.40 us`, `min/avg/max = 1/2/3 us`,
/// `73.06us`) as fields of `metric`, named by the printed statistic (`avg` when unnamed).
fn roundtrip_side(
    text: &str,
    metric: &'static str,
    display: &'static str,
) -> Result<Vec<Field>, String> {
    let (names, values) = match text.split_once('=') {
        Some((n, v)) => (n.trim(), v),
        None => ("avg", text),
    };
    let values = times(values)?;
    let names: Vec<&str> = names.split('/').collect();
    if names.len() != values.len() {
        return Err(format!(
            "'{}' names {} statistics but has {} values",
            text.trim(),
            names.len(),
            values.len()
        ));
    }
    names
        .iter()
        .zip(values)
        .map(|(name, value)| {
            let stat = match *name {
                "min" => "min",
                "avg" => "avg",
                "max" => "max",
                other => return Err(format!("unknown statistic '{other}' in '{}'", text.trim())),
            };
            Ok(Field {
                stat,
                ..Field::new(metric, display, "us", value)
            })
        })
        .collect()
}

/// UPerf's summary throughput line (2016+):
/// `Throughput: 23161.55 reqs/sec/node (23.16MB/sec)`, optionally followed by
/// `<y> reqs/sec/cluster` (related tools). Fields carry stat names `per_node`/`per_cluster`.
pub fn uperf_throughput(text: &str) -> Result<Vec<Field>, String> {
    static RE: LazyLock<Regex> = LazyLock::new(|| {
        re(r"^Throughput: (\S+) reqs/sec/node \((\S+?) ?/sec\)(?:\s+(\S+) reqs/sec/cluster)?$")
    });
    let c = RE.captures(text.trim()).ok_or_else(|| {
        format!(
            "expected 'Throughput: <x> reqs/sec/node (<size>/sec)', found '{}'",
            text.trim()
        )
    })?;
    let mut out = vec![
        Field {
            stat: "per_node",
            ..Field::new(
                "reqs_per_sec",
                "reqs/sec",
                "reqs/s",
                num(get(&c, 1), "reqs/sec/node", count)?,
            )
        },
        Field {
            stat: "per_node",
            ..Field::new(
                "throughput",
                "throughput",
                "bytes/s",
                size(get(&c, 2), "throughput")?,
            )
        },
    ];
    if let Some(cl) = c.get(3) {
        out.push(Field {
            stat: "per_cluster",
            ..Field::new(
                "reqs_per_sec",
                "reqs/sec",
                "reqs/s",
                num(cl.as_str(), "reqs/sec/cluster", count)?,
            )
        });
    }
    Ok(out)
}

/// What a `Roundtrip:` line gave: its fields, and whether the `puts` side is still to come
/// on the next line (the two-line layout of related tools).
pub struct Roundtrip {
    pub fields: Vec<Field>,
    pub puts_pending: bool,
}

/// UPerf's summary round-trip line: `Roundtrip:  gets avg = 932.40 us, puts avg = 1646.17 us`.
pub fn uperf_roundtrip(text: &str) -> Result<Roundtrip, String> {
    static RE: LazyLock<Regex> =
        LazyLock::new(|| re(r"^Roundtrip:\s+gets (.+?)\s*,(?:\s*puts (.+))?$"));
    let c = RE.captures(text.trim()).ok_or_else(|| {
        format!(
            "expected 'Roundtrip:  gets <times>, puts <times>', found '{}'",
            text.trim()
        )
    })?;
    let mut fields = roundtrip_side(get(&c, 1), "get_rtt", "gets")?;
    let puts_pending = c.get(2).is_none();
    if let Some(p) = c.get(2) {
        fields.extend(roundtrip_side(p.as_str(), "put_rtt", "puts")?);
    }
    Ok(Roundtrip {
        fields,
        puts_pending,
    })
}

/// The second line of the two-line `Roundtrip:` layout: `puts avg = 1646.17 us`.
pub fn uperf_roundtrip_puts(text: &str) -> Result<Vec<Field>, String> {
    let t = text.trim();
    let rest = t.strip_prefix("puts ").ok_or_else(|| {
        format!("expected 'puts <times>' after 'Roundtrip:  gets …,', found '{t}'")
    })?;
    roundtrip_side(rest, "put_rtt", "puts")
}

/// UPerf's 2011 summary:
/// `Average of 23161.55 requests / sec (23.16MB / sec), 0.04 ms /request (prot=UNICAST2)`.
/// Returns the fields and the protocol (a run parameter) when printed.
pub fn uperf_average(text: &str) -> Result<(Vec<Field>, Option<String>), String> {
    static RE: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"^Average of (\S+) requests / sec \((\S+?) ?/ sec\), (\S+) ms /request(?: \(prot=([^)]*)\))?$",
        )
    });
    let c = RE.captures(text.trim()).ok_or_else(|| {
        format!(
            "expected 'Average of <x> requests / sec (<size> / sec), <t> ms /request (prot=<p>)', found '{}'",
            text.trim()
        )
    })?;
    let fields = vec![
        Field {
            stat: "per_node",
            ..Field::new(
                "reqs_per_sec",
                "requests / sec",
                "reqs/s",
                num(get(&c, 1), "requests / sec", count)?,
            )
        },
        Field {
            stat: "per_node",
            ..Field::new(
                "throughput",
                "throughput",
                "bytes/s",
                size(get(&c, 2), "throughput")?,
            )
        },
        // Printed in ms per request; no run series has this metric, so the name says the unit.
        Field {
            stat: "avg_ms",
            ..Field::new(
                "rtt",
                "ms /request",
                "ms",
                num(get(&c, 3), "ms /request", number)?,
            )
        },
    ];
    Ok((fields, c.get(4).map(|p| p.as_str().to_string())))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(fields: &[Field]) -> Vec<(&str, &str, &str, f64)> {
        fields
            .iter()
            .map(|f| (f.metric, f.unit, f.stat, f.value))
            .collect()
    }

    #[test]
    fn mperf_stats_of_every_version() {
        let f = mperf_stats("2000000 msgs, 2GB received, msgs/sec=137608.37, throughput=137.61MB")
            .unwrap();
        assert_eq!(
            values(&f),
            [
                ("msgs", "msgs", "", 2e6),
                ("received", "bytes", "", 2e9),
                ("msgs_per_sec", "msgs/s", "", 137608.37),
                ("throughput", "bytes/s", "", 137_610_000.0),
            ]
        );
        let f = mperf_stats(
            "12,345,678 msgs, 12.35GB received, time=60,012 ms, msgs/sec=205,719.12, throughput=205.72MB[A: 1.00 msgs/sec (1KB/sec)]",
        )
        .unwrap();
        assert_eq!(f[2], Field::new("time", "time", "ms", 60012.0));
        assert_eq!(f[3].value, 205_719.12);
        assert_eq!(f[4].value, 205_720_000.0);
        let e =
            mperf_stats("2000000 msgs, 2GB received, msgs/sec=13x7, throughput=1MB").unwrap_err();
        assert!(e.contains("'13x7'"), "{e}");
    }

    #[test]
    fn uperf_members_of_every_version() {
        let f = uperf_member(
            "23121.39 reqs/sec (15813 gets, 4187 puts, get RTT 971.37 us, put RTT 1495.74 us)",
        )
        .unwrap();
        assert_eq!(
            values(&f),
            [
                ("reqs_per_sec", "reqs/s", "", 23121.39),
                ("gets", "reqs", "", 15813.0),
                ("puts", "reqs", "", 4187.0),
                ("get_rtt", "us", "", 971.37),
                ("put_rtt", "us", "", 1495.74),
            ]
        );
        let f = uperf_member(
            "13,081.10 reqs/sec (104,650 gets, 26,163 puts, get RTT 73.06us, put RTT 1.23ms)",
        )
        .unwrap();
        assert_eq!(f[0].value, 13081.1);
        assert_eq!(f[3].value, 73.06);
        assert_eq!(f[4].value, 1230.0);
        let f = uperf_member("12345.67 reqs/sec (15813 GETs, 4187 PUTs total)").unwrap();
        assert_eq!(f.len(), 3);
        assert!(uperf_member("1 reqs/sec (what)").is_err());
    }

    #[test]
    fn uperf_summaries() {
        let t = uperf_throughput("Throughput: 23161.55 reqs/sec/node (23.16MB/sec)").unwrap();
        assert_eq!(
            values(&t),
            [
                ("reqs_per_sec", "reqs/s", "per_node", 23161.55),
                ("throughput", "bytes/s", "per_node", 23_160_000.0)
            ]
        );
        let r = uperf_roundtrip("Roundtrip:  gets avg = 932.40 us, puts avg = 1646.17 us").unwrap();
        assert!(!r.puts_pending);
        assert_eq!(
            values(&r.fields),
            [
                ("get_rtt", "us", "avg", 932.4),
                ("put_rtt", "us", "avg", 1646.17)
            ]
        );
        let r = uperf_roundtrip("Roundtrip:  gets min/avg/max = 150ns/73.06us/1.2ms, puts 1.23ms")
            .unwrap();
        assert_eq!(
            values(&r.fields),
            [
                ("get_rtt", "us", "min", 0.15),
                ("get_rtt", "us", "avg", 73.06),
                ("get_rtt", "us", "max", 1200.0),
                ("put_rtt", "us", "avg", 1230.0)
            ]
        );
        let r = uperf_roundtrip("Roundtrip:  gets avg = 1.00 us,").unwrap();
        assert!(r.puts_pending);
        assert_eq!(
            uperf_roundtrip_puts("   puts avg = 2.00 us").unwrap()[0].value,
            2.0
        );
        let (f, prot) = uperf_average(
            "Average of 23161.55 requests / sec (23.16MB / sec), 0.04 ms /request (prot=UNICAST2)",
        )
        .unwrap();
        assert_eq!(prot.as_deref(), Some("UNICAST2"));
        assert_eq!(f[2].printed("").name, "avg_ms");
        assert_eq!(f[2].value, 0.04);
    }

    #[test]
    fn perf_test_member_info() {
        let f = member_info("num_msgs_expected=1000000, num_msgs_received=1000000 (loss rate=0.0%), received=1GB, time=74152ms, msgs/sec=13485.82, throughput=13.49MB").unwrap();
        assert_eq!(
            values(&f),
            [
                ("msgs_expected", "msgs", "", 1e6),
                ("msgs_received", "msgs", "", 1e6),
                ("loss_rate", "%", "", 0.0),
                ("received", "bytes", "", 1e9),
                ("time", "ms", "", 74152.0),
                ("msgs_per_sec", "msgs/s", "", 13485.82),
                ("throughput", "bytes/s", "", 13_490_000.0),
            ]
        );
        let c = combined(
            "combined: 13402.5 msgs/sec averaged over all receivers (throughput=13.4MB/sec)",
        )
        .unwrap();
        assert_eq!(c[1].value, 13_400_000.0);
    }
}
