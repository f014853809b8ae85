//! zk-smoketest `zk-latencies.py` output: per server, the time the client took for each
//! phase of operations on N znodes.
//!
//! Input (fixture `fixtures/zk-latencies/two-servers.txt`): a `Testing latencies on server
//! <host:port> using (a)syncronous calls` line, then one line per phase, in the old
//! unpadded form `created 100 permanent znodes in 177 ms (1.772718 ms/op 564.105378/sec)`
//! or the newer padded one (`created   10000 permanent znodes  in   3280 ms (…)`), and
//! `notif 10000 watches in 0 ms (included in prior)`; `Latency test complete` ends it.
//! Anything else (`Connecting to …`, `.... more ....` elisions, prose) ends a section too;
//! a phase line cut by the end of input ends it with a warning.
//!
//! Output: one block per section, labelled by the server, with one run whose params are
//! `server`, `calls` (`synchronous`/`asynchronous`) and `znode_count`; per phase
//! (`created_permanent`, `set`, `get`, `deleted_permanent`, `created_ephemeral`, `watched`,
//! `deleted_ephemeral`, `notif_watches`) three value series: `<phase>_total` (ms),
//! `<phase>_latency` (ms/op) and `<phase>_rate` (ops/s), as printed. A phase line of the
//! right shape whose numbers do not read is an error.
//!
//! Identity: no bench, no config; no timestamp.

use crate::error::ParseError;
use crate::format::{Format, Head, ParseIter};
use crate::lines::{LineMachine, Queue, drive};
use crate::model::{Block, Param, Run, Series};
use regex::Regex;
use std::io::BufRead;
use std::sync::LazyLock;

/// The `zk-latencies` format.
pub const FORMAT: Format = Format::new("zk-latencies", "1", sniff, parse).claims_at_most(95);

/// `Testing latencies on server host1:2181 using syncronous calls` (sic, as printed).
static TESTING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^Testing latencies on server (\S+) using (\w+) calls$").expect("valid regex")
});

/// The loose shape of a phase line: an operation word, a count, `in … ms`.
static PHASE_SHAPE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(created|set|get|deleted|watched|notif)\s+\S+\s+.*\bin\s+\S+\s+ms\b")
        .expect("valid regex")
});

/// The start of a phase line: its operation word.
static PHASE_START: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(created|set|get|deleted|watched|notif)\b").expect("valid regex")
});

/// A phase line, strictly.
static PHASE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(created|set|get|deleted|watched|notif)\s+(\S+)\s+(?:(permanent|ephemeral)\s+)?(znodes|watches)\s+in\s+(\S+)\s+ms\s+\((?:(\S+)\s+ms/op\s+(\S+)/sec|included in prior)\)$",
    )
    .expect("valid regex")
});

/// Confidence that `head` is zk-latencies output.
pub fn sniff(head: &Head) -> u8 {
    let mut testing = false;
    let mut phases = 0;
    for line in head.text.lines() {
        let t = line.trim();
        if TESTING.is_match(t) {
            testing = true;
        } else if PHASE.is_match(t) {
            phases += 1;
        }
    }
    match (testing, phases) {
        (true, p) if p >= 1 => 95,
        (false, p) if p >= 3 => 70,
        _ => 0,
    }
}

/// Parses every section of the input, yielding one block per server section.
pub fn parse<'a>(r: Box<dyn BufRead + 'a>) -> ParseIter<'a> {
    drive(r, Machine::default())
}

#[derive(Default)]
struct Machine {
    open: Option<Section>,
    /// The line that just ended a section, when it starts like a phase line: cut short if
    /// the input ends there. Its line number and the section's server.
    partial_phase: Option<(u64, String)>,
    out: Queue,
}

struct Section {
    server: String,
    calls: String,
    first_line: u64,
    last_line: u64,
    count: Option<f64>,
    series: Vec<Series>,
}

impl Machine {
    fn close(&mut self) {
        let Some(s) = self.open.take() else { return };
        if s.series.is_empty() {
            return;
        }
        let mut run = Run {
            index: 1,
            first_line: s.first_line,
            last_line: s.last_line,
            series: s.series,
            ..Run::default()
        };
        run.params
            .insert("server".into(), Param::Text(s.server.clone()));
        let calls = match s.calls.as_str() {
            // zk-latencies.py prints `syncronous`.
            "syncronous" | "synchronous" => "synchronous".to_string(),
            other => other.to_string(),
        };
        run.params.insert("calls".into(), Param::Text(calls));
        if let Some(c) = s.count {
            run.params.insert("znode_count".into(), Param::Num(c));
        }
        self.out.block(Block {
            label: Some(s.server),
            first_line: s.first_line,
            last_line: s.last_line,
            runs: vec![run],
            printed: Vec::new(),
        });
    }
}

/// A printed number, or an error naming the cell.
fn number(text: &str, what: &str, n: u64) -> Result<f64, ParseError> {
    text.parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| ParseError::new(n, format!("{what}: cannot read `{text}` as a number")))
}

impl LineMachine for Machine {
    fn feed(&mut self, line: &str, n: u64) -> Result<(), ParseError> {
        let t = line.trim();
        self.partial_phase = None;
        if let Some(c) = TESTING.captures(t) {
            self.close();
            self.open = Some(Section {
                server: c[1].to_string(),
                calls: c[2].to_string(),
                first_line: n,
                last_line: n,
                count: None,
                series: Vec::new(),
            });
            return Ok(());
        }
        let Some(section) = self.open.as_mut() else {
            return Ok(());
        };
        if let Some(c) = PHASE.captures(t) {
            let op = match (&c[1], c.get(3).map(|m| m.as_str())) {
                ("notif", _) => "notif_watches".to_string(),
                (op, Some(kind)) => format!("{op}_{kind}"),
                (op, None) => op.to_string(),
            };
            let count = number(&c[2], &format!("{op} count"), n)?;
            section.count.get_or_insert(count);
            let total = number(&c[5], &format!("{op} ms"), n)?;
            section
                .series
                .push(Series::value(&format!("{op}_total"), "ms", Some(total)));
            if let (Some(per), Some(rate)) = (c.get(6), c.get(7)) {
                let per = number(per.as_str(), &format!("{op} ms/op"), n)?;
                let rate = number(rate.as_str(), &format!("{op} /sec"), n)?;
                section
                    .series
                    .push(Series::value(&format!("{op}_latency"), "ms/op", Some(per)));
                section
                    .series
                    .push(Series::value(&format!("{op}_rate"), "ops/s", Some(rate)));
            }
            section.last_line = n;
            return Ok(());
        }
        if PHASE_SHAPE.is_match(t) {
            return Err(ParseError::new(
                n,
                format!("`{t}` looks like a zk-latencies phase line but does not read as one"),
            ));
        }
        if t == "Latency test complete" {
            section.last_line = n;
        } else if PHASE_START.is_match(t) {
            self.partial_phase = Some((n, section.server.clone()));
        }
        self.close();
        Ok(())
    }

    fn finish(&mut self, last: u64) -> Result<(), ParseError> {
        self.close();
        if let Some((n, server)) = self.partial_phase.take().filter(|(n, _)| *n == last) {
            self.out.warning(
                n,
                format!(
                    "input ends inside this phase line of server {server}: \
                     only the phases before it are stored"
                ),
            );
        }
        Ok(())
    }

    fn queue(&mut self) -> &mut Queue {
        &mut self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Data;
    use crate::testutil::{fixture, parse_err, parse_ok};

    fn value(run: &Run, metric: &str) -> f64 {
        match run
            .series
            .iter()
            .find(|s| s.metric == metric)
            .map(|s| &s.data)
        {
            Some(Data::Value { value: Some(v) }) => *v,
            other => panic!("{metric}: {other:?}"),
        }
    }

    #[test]
    fn old_and_padded_lines() {
        let text = "Testing latencies on server host1:2181 using syncronous calls\n\
            created 100 permanent znodes in 177 ms (1.772718 ms/op 564.105378/sec)\n\
            get     100           znodes in 22 ms (0.224919 ms/op 4446.038712/sec)\n\
            .... more ....\n\
            Testing latencies on server h:4181 using asynchronous calls\n\
            deleted   10000 ephemeral znodes  in   1321 ms (0.132195 ms/op 7564.565124/sec)\n\
            notif     10000           watches in      0 ms (included in prior)\n\
            Latency test complete\n";
        let blocks = parse_ok(&FORMAT, text.as_bytes());
        assert_eq!(blocks.len(), 2);
        assert_eq!(blocks[0].label.as_deref(), Some("host1:2181"));
        let r = &blocks[0].runs[0];
        assert_eq!(r.params["calls"], Param::Text("synchronous".into()));
        assert_eq!(r.params["znode_count"], Param::Num(100.0));
        assert_eq!(value(r, "created_permanent_total"), 177.0);
        assert_eq!(value(r, "created_permanent_latency"), 1.772718);
        assert_eq!(value(r, "get_rate"), 4446.038712);
        assert_eq!((blocks[0].first_line, blocks[0].last_line), (1, 3));
        let r = &blocks[1].runs[0];
        assert_eq!(value(r, "deleted_ephemeral_rate"), 7564.565124);
        assert_eq!(value(r, "notif_watches_total"), 0.0);
        assert!(!r.series.iter().any(|s| s.metric == "notif_watches_rate"));
        assert_eq!(blocks[1].last_line, 8);
    }

    #[test]
    fn fixture_and_malformed() {
        let blocks = parse_ok(&FORMAT, &fixture("zk-latencies/two-servers.txt"));
        assert_eq!(blocks.len(), 2);
        assert_eq!(value(&blocks[1].runs[0], "set_latency"), 1.352711);
        let e = parse_err(&FORMAT, &fixture("malformed/zk-latencies-bad-number.txt"));
        assert_eq!(e.line, 3);
        assert!(e.message.contains("set ms"), "{e}");
    }

    /// Output cut inside server zk2's second phase line: its first phase is stored and the
    /// cut is reported; the same line with more input after it ends the section quietly.
    #[test]
    fn a_phase_line_cut_at_the_end_is_reported() {
        let text = "Testing latencies on server zk2.staging:2181 using syncronous calls\n\
            created 100 permanent znodes in 141 ms (1.417971 ms/op 705.233211/sec)\n\
            set     100         ";
        let blocks = parse_ok(&FORMAT, text.as_bytes());
        assert_eq!(blocks[0].runs[0].series.len(), 3);
        assert_eq!(
            value(&blocks[0].runs[0], "created_permanent_rate"),
            705.233211
        );
        assert_eq!(
            crate::testutil::warnings(&FORMAT, text.as_bytes()),
            [(
                3,
                "input ends inside this phase line of server zk2.staging:2181: \
                 only the phases before it are stored"
                    .to_string()
            )]
        );
        let followed = format!("{text}\nLatency test complete\n");
        assert!(crate::testutil::warnings(&FORMAT, followed.as_bytes()).is_empty());
    }

    #[test]
    fn damaged_inputs_never_panic() {
        let real =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/real/zk-latencies");
        let mut inputs = vec![fixture("zk-latencies/two-servers.txt")];
        for p in crate::testutil::files_under(&real) {
            inputs.push(std::fs::read(p).unwrap());
        }
        crate::testutil::never_panics(&FORMAT, &inputs);
    }

    #[test]
    fn fixture_snapshots() {
        insta::glob!("../../../fixtures/zk-latencies", "*.txt", |path| {
            let bytes = std::fs::read(path).unwrap();
            insta::assert_json_snapshot!(crate::testutil::items_json(&FORMAT, &bytes));
        });
    }
}
