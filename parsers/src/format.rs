//! The types every format module shares: what a sniffer sees ([`Head`]), what a parser
//! returns ([`ParseIter`]) and the description of one format ([`Format`]). Format modules
//! import these from here, never from [`crate::registry`], so the registry is the only
//! module that names every format and nothing imports it back.

use std::io::BufRead;

/// How many bytes of a file detection reads at least.
pub const HEAD_BYTES: usize = 256 * 1024;

/// What a sniffer sees: the file's name and its first [`HEAD_BYTES`] (or more) as text.
#[derive(Debug, Clone, Copy)]
pub struct Head<'a> {
    /// The file name without folders (`READ.dat`, `run.hlog`); empty for stdin.
    pub file_name: &'a str,
    /// The start of the file, decoded lossily as UTF-8.
    pub text: &'a str,
    /// Whether `text` is the whole file.
    pub complete: bool,
}

pub use crate::model::ParseIter;

/// One input format.
pub struct Format {
    /// The name used by `--format` and stored with every run (`jlbh`, `tsar`, …).
    pub name: &'static str,
    /// Parser version, stored as provenance; bump it when the parser's output changes.
    pub version: &'static str,
    /// Confidence 0–100 that `head` is this format.
    pub sniff: fn(&Head) -> u8,
    /// The most confident [`sniff`](Self::sniff) ever is (100 unless declared lower with
    /// [`claims_at_most`](Self::claims_at_most)); a claim above it counts as it.
    /// Detection does not ask a format whose `most` cannot outbid the best claim so far.
    pub most: u8,
    /// Parse a whole input, yielding blocks as they complete.
    pub parse: for<'a> fn(Box<dyn BufRead + 'a>) -> ParseIter<'a>,
    /// Whether the tool prints K/M/G as powers of 1024, so values are shown back as it
    /// printed them (tsar's `printf_result` divides by 1024: its `92.0K` is 94208).
    pub binary_prefixes: bool,
    /// Whether run 1 of a block is a warm-up the tool leaves out of its own summary, so
    /// statistics skip it unless asked (JLBH prints its first run while the JIT warms up).
    pub first_run_is_warmup: bool,
    /// Whether its times are wall-clock times as printed, with no time zone (tsar's
    /// `14/04/13-00:21`): stored as if UTC, shown as local time as printed.
    pub local_times: bool,
    /// Whether the format's own output can be what the shared un-wrapping takes off (a
    /// Markdown table, as hyperfine and JMH export them): its sniffer is then also shown
    /// the head as it is, and the higher claim counts. Other sniffers see the head as
    /// their parsers see the lines, un-wrapped.
    pub reads_wrapper: bool,
    /// Whether the parser reads the input whole ([`crate::document`]): its lines may be
    /// as long as a document (Criterion's `sample.json` is one line), so [`read`](Self::read)
    /// caps them at [`MAX_DOCUMENT`](crate::document::MAX_DOCUMENT), not
    /// [`MAX_LINE`](crate::lines::MAX_LINE).
    pub whole: bool,
}

impl Format {
    /// A format whose tool prints decimal K/M/G and whose runs are all measured runs.
    pub const fn new(
        name: &'static str,
        version: &'static str,
        sniff: fn(&Head) -> u8,
        parse: for<'a> fn(Box<dyn BufRead + 'a>) -> ParseIter<'a>,
    ) -> Self {
        Format {
            name,
            version,
            sniff,
            most: 100,
            parse,
            binary_prefixes: false,
            first_run_is_warmup: false,
            local_times: false,
            reads_wrapper: false,
            whole: false,
        }
    }

    /// This format, its own output possibly a wrapper ([`reads_wrapper`](Self::reads_wrapper)).
    pub const fn reading_its_wrapper(self) -> Self {
        Format {
            reads_wrapper: true,
            ..self
        }
    }

    /// This format, its sniffer never more confident than `most`.
    pub const fn claims_at_most(self, most: u8) -> Self {
        Format { most, ..self }
    }

    /// This format, its parser reading the input whole.
    pub const fn read_whole(self) -> Self {
        Format {
            whole: true,
            ..self
        }
    }

    /// Parses `r` with [`parse`](Self::parse) through [`crate::lines::capped`]: NUL bytes
    /// left out, over-long lines skipped and non-finite numbers refused, each with a
    /// warning. What callers of a format use on input they did not write.
    pub fn read<'a>(&self, r: Box<dyn BufRead + 'a>) -> ParseIter<'a> {
        let cap = if self.whole {
            crate::document::MAX_DOCUMENT
        } else {
            crate::lines::MAX_LINE
        };
        crate::lines::capped(self.parse, r, cap)
    }

    /// This format, its tool printing K/M/G as powers of 1024.
    pub const fn with_binary_prefixes(self) -> Self {
        Format {
            binary_prefixes: true,
            ..self
        }
    }

    /// This format, its times printed as local wall-clock times with no zone.
    pub const fn with_local_times(self) -> Self {
        Format {
            local_times: true,
            ..self
        }
    }

    /// This format, its run 1 a warm-up run.
    pub const fn with_first_run_warmup(self) -> Self {
        Format {
            first_run_is_warmup: true,
            ..self
        }
    }
}

impl std::fmt::Debug for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Format")
            .field("name", &self.name)
            .field("version", &self.version)
            .field("binary_prefixes", &self.binary_prefixes)
            .field("first_run_is_warmup", &self.first_run_is_warmup)
            .field("local_times", &self.local_times)
            .field("whole", &self.whole)
            .finish()
    }
}
