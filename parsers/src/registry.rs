//! The list of known formats and format detection.
//!
//! Each format answers a sniff with a confidence (0 = not mine, 100 = certainly mine);
//! detection picks the most confident. An explicit `--format` bypasses sniffing.

use crate::format::{Format, Head};
use crate::formats::{
    arthas, criterion, go_bench, hdr_percentiles, hlog, hyperfine, jgroups, jlbh, jmh, jtest, k6,
    qps_table, sockperf, tsar, wrk, zk_benchmark, zk_latencies, zookeeper,
};

/// How much of a file detection reads at least: callers that detect read this much.
pub use crate::format::HEAD_BYTES;

/// Every known format, in tie-break order.
pub fn formats() -> &'static [Format] {
    &[
        jlbh::FORMAT,
        zookeeper::FORMAT,
        zk_benchmark::FORMAT,
        arthas::FORMAT,
        hdr_percentiles::FORMAT,
        wrk::FORMAT,
        hlog::FORMAT,
        tsar::FORMAT,
        jgroups::FORMAT,
        qps_table::FORMAT,
        jtest::FORMAT,
        zk_latencies::FORMAT,
        sockperf::FORMAT,
        hyperfine::FORMAT,
        go_bench::FORMAT,
        jmh::FORMAT,
        criterion::FORMAT,
        k6::FORMAT,
    ]
}

/// The format named `name`.
pub fn format_by_name(name: &str) -> Option<&'static Format> {
    formats().iter().find(|f| f.name == name)
}

/// The most confident format for `head`, if any claims it (the first in [`formats`]'
/// order among equals). Sniffers see the head after the shared un-wrapping pass
/// ([`crate::unwrap`]), as parsers see their lines. A format that could not outbid the
/// best claim so far ([`Format::most`]) is not asked: a JLBH log is told by its own
/// sniffer and hlog's (the one that may claim more than 95), not by all eighteen
/// reading its 256 KiB head (10.5 ms of a 0.5 MB log's ingest).
pub fn detect(head: &Head) -> Option<&'static Format> {
    let view = View::of(head);
    let mut best: Option<(&'static Format, u8)> = None;
    for f in formats() {
        if best.is_some_and(|(_, b)| f.most <= b) {
            continue;
        }
        let c = view.claim(f);
        if c > 0 && best.is_none_or(|(_, b)| c > b) {
            best = Some((f, c));
        }
    }
    best.map(|(f, _)| f)
}

/// Every format that claims `head` (confidence above 0), in tie-break order, with its
/// confidence ([`View::claim`]): every format is asked, none skipped.
pub fn claims(head: &Head) -> Vec<(&'static Format, u8)> {
    let view = View::of(head);
    formats()
        .iter()
        .map(|f| (f, view.claim(f)))
        .filter(|&(_, c)| c > 0)
        .collect()
}

/// A head as the sniffers see it: un-wrapped, and as given for the formats that read their
/// own wrapper ([`Format::reads_wrapper`]).
struct View<'h> {
    given: &'h Head<'h>,
    text: std::borrow::Cow<'h, str>,
}

impl<'h> View<'h> {
    fn of(head: &'h Head<'h>) -> Self {
        View {
            given: head,
            text: crate::unwrap::unwrapped(head.text),
        }
    }

    /// `f`'s confidence, at most [`Format::most`]. A format that reads its own wrapper (a
    /// Markdown table that is the format itself, as hyperfine and JMH print them) knows
    /// it in the raw head too; the others are asked once, about the un-wrapped head.
    fn claim(&self, f: &Format) -> u8 {
        let seen = Head {
            file_name: self.given.file_name,
            text: &self.text,
            complete: self.given.complete,
        };
        let c = (f.sniff)(&seen);
        let c = match self.text {
            std::borrow::Cow::Owned(_) if f.reads_wrapper => c.max((f.sniff)(self.given)),
            _ => c,
        };
        c.min(f.most)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::FileHead;

    #[test]
    fn names_are_unique() {
        let mut names: Vec<_> = formats().iter().map(|f| f.name).collect();
        names.sort();
        let n = names.len();
        names.dedup();
        assert_eq!(n, names.len());
    }

    #[test]
    fn only_tsar_prints_binary_prefixes_and_only_jlbh_warms_up_in_run_one() {
        let having = |p: fn(&Format) -> bool| -> Vec<&str> {
            formats().iter().filter(|f| p(f)).map(|f| f.name).collect()
        };
        assert_eq!(having(|f| f.binary_prefixes), ["tsar"]);
        assert_eq!(having(|f| f.local_times), ["tsar"]);
        assert_eq!(having(|f| f.first_run_is_warmup), ["jlbh"]);
    }

    #[test]
    fn terminal_output_in_ansi_colour_is_detected_as_without_colour() {
        let plain = "Benchmark 1: gcc.exe\n  Time (mean ± σ):      50.1 ms ±   3.6 ms    [User: 18.9 ms, System: 28.6 ms]\n";
        let colour = "\x1b[1mBenchmark \x1b[0m\x1b[1m1\x1b[0m: gcc.exe\n  Time (\x1b[1;32mmean\x1b[0m ± \x1b[32mσ\x1b[0m):     \x1b[1;32m 50.1 ms\x1b[0m ± \x1b[32m  3.6 ms\x1b[0m    [User: \x1b[34m18.9 ms\x1b[0m, System: \x1b[34m28.6 ms\x1b[0m]\r\n";
        for text in [plain, colour] {
            let head = Head {
                file_name: "bench.ans",
                text,
                complete: true,
            };
            assert_eq!(detect(&head).map(|f| f.name), Some("hyperfine"), "{text:?}");
        }
    }

    /// Runs every sniffer on a file and returns the names of those that claim it.
    fn claims(path: &std::path::Path) -> Vec<&'static str> {
        let file = crate::testutil::FileHead::read(path);
        formats()
            .iter()
            .filter(|f| (f.sniff)(&file.head()) > 0)
            .map(|f| f.name)
            .collect()
    }

    fn files_in(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
        let mut v: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_file())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn every_fixture_is_claimed_by_its_own_format_only() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
        let mut checked = 0;
        for dir in files_in_dirs(&root) {
            let folder = dir.file_name().unwrap().to_string_lossy().into_owned();
            if folder == "malformed" || format_by_name(&folder).is_none() {
                continue;
            }
            for file in files_in(&dir) {
                assert_eq!(claims(&file), vec![folder.as_str()], "{}", file.display());
                checked += 1;
            }
        }
        assert!(checked > 10, "only {checked} fixtures checked");
    }

    /// Real outputs of the formats added with their own corpus folder: every file under
    /// `fixtures/real/<format>/` (but its MANIFEST) is claimed by that format alone.
    #[test]
    fn every_real_file_of_the_newer_formats_is_claimed_by_its_own_format_only() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/real");
        let mut checked = 0;
        for folder in [
            "sockperf",
            "hyperfine",
            "go-bench",
            "jmh",
            "criterion",
            "k6",
        ] {
            if format_by_name(folder).is_none() {
                continue;
            }
            for file in crate::testutil::files_under(&root.join(folder)) {
                if file.file_name().is_some_and(|n| n == "MANIFEST") {
                    continue;
                }
                assert_eq!(claims(&file), vec![folder], "{}", file.display());
                checked += 1;
            }
        }
        assert!(checked >= 3, "only {checked} real files checked");
    }

    /// The newer formats' real and own files, cut at many points, with bytes damaged, and
    /// with junk appended: every parse ends (an error or blocks), none panics.
    #[test]
    fn newer_formats_never_panic_on_cut_or_damaged_files() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut parsed = 0;
        for name in [
            "sockperf",
            "hyperfine",
            "go-bench",
            "jmh",
            "criterion",
            "k6",
        ] {
            let Some(format) = format_by_name(name) else {
                continue;
            };
            let mut files = crate::testutil::files_under(&root.join("real").join(name));
            files.extend(crate::testutil::files_under(&root.join(name)));
            for file in files.iter().filter(|f| !f.ends_with("MANIFEST")) {
                let bytes = std::fs::read(file).unwrap();
                let mut variants: Vec<Vec<u8>> = (1..8)
                    .map(|k| bytes[..bytes.len() * k / 8].to_vec())
                    .collect();
                for _ in 0..6 {
                    let mut v = bytes.clone();
                    for _ in 0..4 {
                        if !v.is_empty() {
                            let i = (next() % v.len() as u64) as usize;
                            v[i] = next() as u8;
                        }
                    }
                    variants.push(v);
                }
                let mut long = bytes.clone();
                long.extend(std::iter::repeat_n(b'9', 100_000));
                variants.push(long);
                for v in variants {
                    let outcome = std::panic::catch_unwind(|| {
                        (format.parse)(Box::new(&v[..])).take(100_000).count()
                    });
                    assert!(
                        outcome.is_ok(),
                        "{} panicked on a variant of {}",
                        name,
                        file.display()
                    );
                    parsed += 1;
                }
            }
        }
        assert!(parsed > 100, "only {parsed} variants");
    }

    #[test]
    fn every_sample_is_claimed_by_exactly_one_format_of_its_folder() {
        let Some(root) = crate::testutil::shared("samples") else {
            return;
        };
        let allowed = |folder: &str| -> &'static [&'static str] {
            match folder {
                "zookeeper" => &["zookeeper", "zk-benchmark"],
                "hdrhistogram" => &["hdr-percentiles", "hlog"],
                "jlbh" => &["jlbh"],
                "tsar" => &["tsar"],
                "jgroups" => &["jgroups"],
                "arthas" => &["arthas"],
                "wrk" => &["wrk"],
                _ => &[],
            }
        };
        for dir in files_in_dirs(&root) {
            let folder = dir.file_name().unwrap().to_string_lossy().into_owned();
            for file in files_in(&dir) {
                let c = claims(&file);
                assert_eq!(c.len(), 1, "{}: claimed by {c:?}", file.display());
                assert!(
                    allowed(&folder).contains(&c[0]),
                    "{}: claimed by {c:?}",
                    file.display()
                );
            }
        }
    }

    /// Every file we hold (fixtures, the real corpus, the malformed inputs) and the shared
    /// samples when present, as detection reads them.
    fn every_head() -> Vec<(std::path::PathBuf, FileHead)> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
        let mut files = crate::testutil::files_under(&root);
        if let Some(samples) = crate::testutil::shared("samples") {
            files.extend(crate::testutil::files_under(&samples));
        }
        files
            .into_iter()
            .map(|p| {
                let file = FileHead::read(&p);
                (p, file)
            })
            .collect()
    }

    /// The early stop of [`detect`] is sound only if no sniffer is more confident than
    /// its format's `most`: on every file we hold, raw and un-wrapped, none is.
    #[test]
    fn no_sniffer_is_more_confident_than_its_format_declares() {
        let heads = every_head();
        assert!(heads.len() > 100, "only {} files", heads.len());
        for (path, file) in &heads {
            let unwrapped = crate::unwrap::unwrapped(&file.text);
            for t in [file.text.as_str(), &unwrapped] {
                for f in formats() {
                    let c = (f.sniff)(&file.with_text(t));
                    assert!(
                        c <= f.most,
                        "{}: {} claims {c} > {}",
                        path.display(),
                        f.name,
                        f.most
                    );
                }
            }
        }
    }

    /// A format asked later that claims more wins over an earlier claim: a JLBH-looking
    /// head (jlbh, first, claims 95) holding hlog's version line (hlog claims 100).
    #[test]
    fn a_later_format_claiming_more_wins() {
        let text = "-------------------------------- BENCHMARK RESULTS (RUN 1) us ----\n\
                    End to End: (100)   50/90 99/99.9 - worst was 1.0 / 2.0  3.0 / 4.0 - 5.0\n\
                    #[Histogram log format version 1.3]\n";
        let head = Head {
            file_name: "x.log",
            text,
            complete: true,
        };
        let c: Vec<_> = super::claims(&head)
            .into_iter()
            .map(|(f, c)| (f.name, c))
            .collect();
        assert_eq!(c[0], ("jlbh", 95), "{c:?}");
        assert_eq!(detect(&head).map(|f| f.name), Some("hlog"), "{c:?}");
    }

    /// Only the formats that read their own wrapper are asked about a head as it was
    /// before un-wrapping: on every file we hold whose head un-wrapping changes, no other
    /// format claims the raw head more strongly than the un-wrapped one.
    #[test]
    fn only_formats_reading_their_wrapper_need_the_raw_head() {
        let mut changed = 0;
        for (path, file) in every_head() {
            let unwrapped = crate::unwrap::unwrapped(&file.text);
            if matches!(unwrapped, std::borrow::Cow::Borrowed(_)) {
                continue;
            }
            changed += 1;
            for f in formats().iter().filter(|f| !f.reads_wrapper) {
                let raw = (f.sniff)(&file.head());
                let un = (f.sniff)(&file.with_text(&unwrapped));
                assert!(raw <= un, "{}: {} {raw} > {un}", path.display(), f.name);
            }
        }
        assert!(changed > 20, "only {changed} heads change when un-wrapped");
    }

    /// A Markdown table whose cells hold spaces is a QPS table only as written: un-wrapped
    /// into columns, its rows no longer have the header's width.
    #[test]
    fn a_pipe_table_with_spaces_in_cells_is_read_as_written() {
        let text = "| name | qps | rt |\n|---|---|---|\n| native thrift | 60 | 6.9 |\n| brpc | 90 | 4.1 |\n";
        let head = Head {
            file_name: "notes.md",
            text,
            complete: true,
        };
        assert_eq!(detect(&head).map(|f| f.name), Some("qps-table"));
    }

    /// [`detect`], which stops early, names the format of the highest claim of all (the
    /// first among equals) on every file we hold, and detects the formats of their folders.
    #[test]
    fn detect_names_the_best_claim_of_all_formats() {
        let mut named = 0;
        for (path, file) in every_head() {
            let head = file.head();
            let mut best: Option<(&Format, u8)> = None;
            for (f, c) in super::claims(&head) {
                if best.is_none_or(|(_, b)| c > b) {
                    best = Some((f, c));
                }
            }
            let found = detect(&head);
            assert_eq!(
                found.map(|f| f.name),
                best.map(|(f, _)| f.name),
                "{}",
                path.display()
            );
            let folder = path
                .parent()
                .unwrap()
                .file_name()
                .unwrap()
                .to_string_lossy();
            // Our own inputs sit in their format's folder (the samples' folders are tools').
            let ours = path.components().any(|c| c.as_os_str() == "fixtures");
            if ours && format_by_name(&folder).is_some() {
                assert_eq!(found.map(|f| f.name), Some(&*folder), "{}", path.display());
                named += 1;
            }
        }
        assert!(
            named > 50,
            "only {named} files detected as their folder's format"
        );
    }

    fn files_in_dirs(root: &std::path::Path) -> Vec<std::path::PathBuf> {
        let mut v: Vec<_> = std::fs::read_dir(root)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_dir())
            .collect();
        v.sort();
        v
    }
}
