//! The label of a JLBH output: the nearest lead line ([`LabelTracker`]), and when that
//! line is a heading nested under others, the headings that enclose it too. A document
//! that compares settings under nested headings (`=== 1 KB messages`, `==== Double-Buffer
//! Disabled`, then `=== 4 KB messages` and the same sub-headings again) would otherwise
//! give outputs of different settings one label, pooling them as replicates.

use crate::text::{LabelTracker, clean_label, re};
use regex::Regex;
use std::sync::LazyLock;

/// `-Dthroughput=150000`: the system property the JLBH demos read their rate from.
static THROUGHPUT_PROPERTY: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?:^|\s)-Dthroughput=(\d[\d_]*)(?:\s|$)"));

/// The rate a label states as `-Dthroughput=N` (a sweep's lead lines, `// -Dthroughput=
/// 150000` above each output whose runs print no rate of their own), in messages a second.
pub fn stated_throughput(label: &str) -> Option<f64> {
    let digits = THROUGHPUT_PROPERTY.captures(label)?[1].replace('_', "");
    digits.parse::<f64>().ok().filter(|r| *r > 0.0)
}

/// Lead lines seen so far: the tracker and the chain of open headings.
#[derive(Debug, Default)]
pub struct Leads {
    labels: LabelTracker,
    /// Open headings, outermost first: (level, text as a label).
    headings: Vec<(usize, String)>,
}

/// `## Title` or `=== Title` (markdown or AsciiDoc): its level and text.
fn heading(line: &str) -> Option<(usize, String)> {
    let t = line.trim();
    let mark = t.chars().next().filter(|c| matches!(c, '#' | '='))?;
    let level = t.chars().take_while(|&c| c == mark).count();
    let rest = &t[level..];
    (level <= 6 && rest.starts_with([' ', '\t']))
        .then(|| clean_label(rest))
        .filter(|text| !text.is_empty())
        .map(|text| (level, text))
}

impl Leads {
    /// Takes note of one line outside any output.
    pub fn observe(&mut self, line: &str) {
        if let Some((level, text)) = heading(line) {
            while self.headings.last().is_some_and(|(l, _)| *l >= level) {
                self.headings.pop();
            }
            self.headings.push((level, text));
        }
        self.labels.observe(line);
    }

    /// The label of an output starting now. A heading label carries the headings that
    /// enclose it, outermost first, joined by ` / ` (`1 KB messages / Double-Buffer
    /// Disabled`); a document's title (level 1: `#`, `=`) is left out, so a file with
    /// sections under its title keeps the section's name alone. A lead line directly
    /// above the output labels that output only (see [`LabelTracker::take_for_block`]).
    pub fn take_for_output(&mut self) -> Option<String> {
        let label = self.labels.take_for_block();
        self.with_headings(label)
    }

    fn with_headings(&self, label: Option<String>) -> Option<String> {
        let label = label?;
        match self.headings.last() {
            Some((_, last)) if *last == label => {
                let chain: Vec<&str> = self
                    .headings
                    .iter()
                    .filter(|(level, _)| *level > 1)
                    .map(|(_, text)| text.as_str())
                    .collect();
                Some(if chain.is_empty() {
                    label
                } else {
                    chain.join(" / ")
                })
            }
            _ => Some(label),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_label_states_a_rate_as_the_demos_property() {
        assert_eq!(stated_throughput("-Dthroughput=150000"), Some(150_000.0));
        assert_eq!(
            stated_throughput("-Xmx64m -Dthroughput=100_000 -DrunTime=30"),
            Some(100_000.0)
        );
        assert_eq!(stated_throughput("-Dthroughput=0"), None);
        assert_eq!(stated_throughput("-Dthroughputs=5"), None);
        assert_eq!(stated_throughput("x-Dthroughput=5"), None);
        assert_eq!(stated_throughput("throughput 20k"), None);
    }

    fn label(lines: &[&str]) -> Option<String> {
        let mut l = Leads::default();
        for line in lines {
            l.observe(line);
        }
        l.take_for_output()
    }

    #[test]
    fn nested_headings_label_with_their_chain() {
        let doc = [
            "= Contended Writes",
            "== Benchmarks",
            "Below are benchmark results.",
            "",
            "=== 1 KB messages",
            "==== Double-Buffer Disabled",
        ];
        assert_eq!(
            label(&doc).as_deref(),
            Some("Benchmarks / 1 KB messages / Double-Buffer Disabled")
        );
        let mut next = doc.to_vec();
        next.extend(["", "=== 4 KB messages", "==== Double-Buffer Enabled"]);
        assert_eq!(
            label(&next).as_deref(),
            Some("Benchmarks / 4 KB messages / Double-Buffer Enabled")
        );
    }

    #[test]
    fn a_title_and_one_level_of_sections_keep_the_section_alone() {
        let doc = ["# Queue latency", "", "## Before the change", ""];
        assert_eq!(label(&doc).as_deref(), Some("Before the change"));
        assert_eq!(label(&["# Only a title"]).as_deref(), Some("Only a title"));
    }

    #[test]
    fn a_lead_line_under_headings_is_left_as_it_is() {
        let doc = ["## Results", "### Run A", "", "-Dthroughput=20000"];
        assert_eq!(label(&doc).as_deref(), Some("-Dthroughput=20000"));
        // `#[…]` and `#!` lines are no headings.
        assert_eq!(heading("#[Histogram log format version 1.3]"), None);
        assert_eq!(heading("#!/bin/sh"), None);
        assert_eq!(
            heading("=== 1 KB messages"),
            Some((3, "1 KB messages".into()))
        );
    }
}
