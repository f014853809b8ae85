//! The reading side of `ingest`: one thread opens, recognises and parses the inputs in
//! turn and hands each to the store as a [`Job`], so that a file is read while the one
//! before it is written.

use super::inputs::{Input, shown_path};
use super::outcome::{FileOutcome, NOT_RECOGNISED, Status, read_failure};
use crate::cli::IngestArgs;
use crate::store::{BlockDefaults, Digest, IngestError, Prepare, Prepared, SourceMeta};
use bench_db_parsers::{Format, Head, ParseError, Parsed, detect, registry::HEAD_BYTES};
use sha2::Sha256;
use std::borrow::Cow;
use std::collections::HashSet;
use std::fs::File;
use std::io::{BufReader, Cursor, Read};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, SyncSender};
use std::sync::{Arc, Mutex};

/// What the reading thread hands the store for one input, in the inputs' order.
pub(super) enum Job {
    /// The outcome, known without the store: a file that cannot be read, or that no
    /// format claims.
    Done(FileOutcome),
    /// A file of a size some stored source has (or a file read before in this ingest
    /// had): the store hashes it and looks the content up, then either ends it as
    /// unchanged or hands it back for parsing.
    Check(Check),
    /// A file being parsed on the reading thread, its items taken as they come.
    Parse(Box<Parsing>),
}

pub(super) struct Check {
    pub(super) shown: String,
    pub(super) file: File,
    pub(super) bytes: u64,
    pub(super) identity: String,
    /// The file, rewound, back to the reading thread: not stored, so to be parsed.
    pub(super) parse: SyncSender<File>,
}

pub(super) struct Parsing {
    pub(super) outcome: FileOutcome,
    pub(super) format: &'static Format,
    pub(super) meta: SourceMeta,
    pub(super) defaults: BlockDefaults,
    pub(super) items: Receiver<Result<Prepared, IngestError>>,
    /// The content's digest once the parser has read it all; nothing when it stopped.
    pub(super) digest: Receiver<std::io::Result<Digest>>,
}

/// The reading side of an ingest: what it needs of the command line.
pub(super) struct Reading<'a> {
    pub(super) forced: Option<&'static Format>,
    pub(super) args: &'a IngestArgs,
    pub(super) progress: &'a indicatif::ProgressBar,
}

/// The file sizes a stored source may have: the stored sizes among the inputs' (asked
/// before the reading starts; `None` when the store could not answer, then every size
/// may) and the sizes of the files read before in this ingest, which the store may hold
/// by the time it reaches this one.
struct Sizes {
    stored: Option<HashSet<u64>>,
    met: HashSet<u64>,
}

impl Sizes {
    fn may_be_stored(&mut self, bytes: u64) -> bool {
        let may =
            self.stored.as_ref().is_none_or(|s| s.contains(&bytes)) || self.met.contains(&bytes);
        self.met.insert(bytes);
        may
    }
}

/// A file opened and recognised, ready to be parsed.
struct Opened {
    shown: String,
    file_name: String,
    metadata: BlockDefaults,
    source: Source,
    head: Vec<u8>,
    format: &'static Format,
}

impl Reading<'_> {
    /// Reads the inputs in order on the reading thread, each opened, recognised and
    /// parsed while the store writes the one before, and hands over their jobs; stops
    /// when the store stops taking them.
    pub(super) fn read_all(
        &self,
        inputs: &[Input],
        stored: Option<HashSet<u64>>,
        jobs: SyncSender<Job>,
    ) {
        let mut sizes = Sizes {
            stored,
            met: HashSet::new(),
        };
        for input in inputs {
            let path = match input {
                Input::Unreadable { .. } | Input::NotAFile { .. } => continue,
                Input::Stdin => None,
                Input::File(path) => Some(path.as_path()),
            };
            if !self.read_input(path, &mut sizes, &jobs) {
                return;
            }
        }
    }

    /// Reads a file, or standard input when `path` is `None`; false when the store has
    /// stopped taking jobs.
    fn read_input(&self, path: Option<&Path>, sizes: &mut Sizes, jobs: &SyncSender<Job>) -> bool {
        let shown = match path {
            Some(p) => shown_path(p),
            None => self.args.name.clone().unwrap_or_else(|| "-".to_string()),
        };
        let mut outcome = FileOutcome::new(&shown);
        match self.open(path, shown, sizes, jobs) {
            Ok(Some(opened)) => self.parse(opened, outcome, jobs),
            // The store has the outcome.
            Ok(None) => true,
            Err(Unopened::Skipped) => {
                outcome.status = Status::Skipped;
                outcome.reason = Some(NOT_RECOGNISED.to_string());
                jobs.send(Job::Done(outcome)).is_ok()
            }
            Err(Unopened::Failed(error)) => {
                outcome.error = Some(error);
                jobs.send(Job::Done(outcome)).is_ok()
            }
        }
    }

    /// Opens an input and recognises its format; `None` when the store took the file
    /// to check its content and found it stored (or the store stopped).
    fn open(
        &self,
        path: Option<&Path>,
        shown: String,
        sizes: &mut Sizes,
        jobs: &SyncSender<Job>,
    ) -> Result<Option<Opened>, Unopened> {
        let io = |e: std::io::Error| Unopened::Failed(read_failure(&shown, &e));
        let name_path = match path {
            Some(p) => Some(p.to_path_buf()),
            None => self.args.name.as_ref().map(PathBuf::from),
        };
        let file_name = name_path
            .as_ref()
            .and_then(|p| p.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        // The run metadata (tags from CI or git, the file's time) is read once per file:
        // the stored-content check and the ingest both use it.
        let metadata = metadata_defaults(self.args, path);
        let mut source: Source = match path {
            Some(p) if p.is_dir() || crate::cmd::criterion_dirs::is_lone_estimates(p) => {
                crate::cmd::criterion_dirs::open(p).map_err(io)?
            }
            Some(p) => {
                let mut file = File::open(p).map_err(io)?;
                let meta = file.metadata().map_err(io)?;
                // Re-ingesting a folder is common; a stored source of the same size is
                // worth one extra read to avoid parsing and inserting content that is
                // stored.
                if meta.is_file() && sizes.may_be_stored(meta.len()) {
                    let (parse, back) = std::sync::mpsc::sync_channel(1);
                    let check = Check {
                        shown: shown.clone(),
                        file,
                        bytes: meta.len(),
                        identity: metadata.identity(),
                        parse,
                    };
                    if jobs.send(Job::Check(check)).is_err() {
                        return Ok(None);
                    }
                    match back.recv() {
                        Ok(rewound) => file = rewound,
                        Err(_) => return Ok(None),
                    }
                }
                Box::new(self.progress.wrap_read(file))
            }
            None => Box::new(std::io::stdin()),
        };
        let (head, complete) = read_head(&mut source).map_err(io)?;
        let format = self
            .forced
            .or_else(|| sniff(&file_name, without_bom(&head), complete))
            .ok_or(Unopened::Skipped)?;
        Ok(Some(Opened {
            shown,
            file_name,
            metadata,
            source,
            head,
            format,
        }))
    }

    /// Hands the store a recognised file's parsing job, then parses it (the head again,
    /// then the rest, hashed as it goes by) and passes each item through [`Prepare`]
    /// into the job's bounded queue; false when the store has stopped taking jobs.
    fn parse(&self, opened: Opened, mut outcome: FileOutcome, jobs: &SyncSender<Job>) -> bool {
        let format = opened.format;
        outcome.format = Some(format.name.to_string());
        let (stream, hashed) = reread(opened.head, opened.source);
        let meta = SourceMeta {
            path: opened.shown.clone(),
            format: format.name.to_string(),
            parser: format!("{} {}", format.name, format.version),
        };
        let fallback_label = if opened.file_name.is_empty() {
            opened.shown
        } else {
            opened.file_name
        };
        let defaults = BlockDefaults {
            suite: self
                .args
                .suite
                .clone()
                .unwrap_or_else(|| format.name.to_string()),
            label_override: self.args.label.clone(),
            fallback_label,
            ..opened.metadata
        };
        let (send_item, items) = std::sync::mpsc::sync_channel(QUEUE);
        let (send_digest, digest) = std::sync::mpsc::sync_channel(1);
        let job = Parsing {
            outcome,
            format,
            meta,
            defaults: defaults.clone(),
            items,
            digest,
        };
        if jobs.send(Job::Parse(Box::new(job))).is_err() {
            return false;
        }
        let mut prepare = Prepare::new(&defaults);
        parse_into(
            stream,
            hashed,
            format,
            |item| prepare.item(item),
            &send_item,
            &send_digest,
        );
        true
    }
}

/// Parses `stream` as `format`, passes each item through `prepare` into `items` and,
/// once the parser has read it all, sends the digest of all it read. Stops at the first
/// failed item, or when the store stops taking them (then leaving the rest unread).
fn parse_into<R, P, E>(
    stream: BufReader<R>,
    hashed: Hashed<Source>,
    format: &'static Format,
    mut prepare: impl FnMut(Parsed) -> Result<P, E>,
    items: &SyncSender<Result<P, E>>,
    digest: &SyncSender<std::io::Result<Digest>>,
) where
    R: Read + Send,
    E: From<ParseError>,
{
    for item in format.read(Box::new(stream)) {
        let item = item.map_err(E::from).and_then(&mut prepare);
        let failed = item.is_err();
        if items.send(item).is_err() || failed {
            // The store stopped or will stop this file: the digest is not needed.
            return;
        }
    }
    let _ = digest.send(hashed.finish());
}

/// Why an input was not opened for parsing.
enum Unopened {
    /// No format claims it.
    Skipped,
    /// Its error line.
    Failed(String),
}

/// The run metadata of one file: tags (`--tag`s, commit, branch, host), the time derived
/// from the commit or the file kept apart unless the user gave it (`--time`, `--tag
/// time=`), since a time read from the data wins over a derived one.
fn metadata_defaults(args: &IngestArgs, path: Option<&Path>) -> BlockDefaults {
    let mut tags = crate::metadata::run_tags(&args.tags, args.time.as_deref(), args.no_git, path);
    let given = args.time.is_some() || args.tags.iter().any(|(k, _)| k == "time");
    let time_fallback = if given { None } else { tags.remove("time") };
    BlockDefaults {
        suite: args.suite.clone().unwrap_or_default(),
        label_override: args.label.clone(),
        tags,
        time_fallback,
        suite_given: args.suite.is_some(),
        ..BlockDefaults::default()
    }
}

/// How many prepared items may wait between the reading thread and the store: enough
/// to keep the parsing going while the store waits on its database (a PostgreSQL batch
/// of five hundred runs is about a hundred JLBH outputs), few enough (a JLBH item is one
/// output, a few KiB) that memory stays flat.
const QUEUE: usize = 512;

pub(super) fn sniff(file_name: &str, head: &[u8], complete: bool) -> Option<&'static Format> {
    // `from_utf8` checks a head that is all UTF-8 (the usual case) several times faster
    // than the lossy conversion's walk, which is kept for the rest.
    let text = match std::str::from_utf8(head) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(head),
    };
    detect(&Head {
        file_name,
        text: &text,
        complete,
    })
}

/// A file's bytes, or standard input's.
type Source = Box<dyn Read + Send>;

/// The stream the parser reads, `head` again and then the rest of `source`, and the hash
/// of both as they are read: on the parsing thread, as the parser reads them.
fn reread(head: Vec<u8>, source: Source) -> (BufReader<Hashed<Source>>, Hashed<Source>) {
    let bom = head.len() - without_bom(&head).len();
    let hashed = Hashed::new(Box::new(Cursor::new(head).chain(source)) as Source);
    let mut stream = BufReader::with_capacity(1 << 16, hashed.clone());
    if bom > 0 {
        // Hashed with the file, not seen by the parser: the buffer's first fill is the
        // head, in memory.
        use std::io::BufRead;
        if stream.fill_buf().is_ok_and(|b| b.len() >= bom) {
            stream.consume(bom);
        }
    }
    (stream, hashed)
}

/// `bytes` without a leading UTF-8 byte order mark (`EF BB BF`, which Windows editors and
/// PowerShell's `Out-File -Encoding utf8` write): no format's first line starts with it.
fn without_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)
}

/// The first [`HEAD_BYTES`] of a stream, and whether that is all of it.
pub(super) fn read_head(source: impl Read) -> std::io::Result<(Vec<u8>, bool)> {
    let mut buf = Vec::with_capacity(HEAD_BYTES + 1);
    source.take(HEAD_BYTES as u64 + 1).read_to_end(&mut buf)?;
    let complete = buf.len() <= HEAD_BYTES;
    Ok((buf, complete))
}

/// Hex SHA-256 and size of a whole stream.
pub(super) fn hash_all(source: impl Read) -> std::io::Result<Digest> {
    let h = Hashed::new(source);
    h.finish()
}

/// A reader that hashes every byte it reads; clones share the stream, so the parser
/// can own one while another clone finishes the hash. The parsing thread holds every
/// clone in turn, so the lock is never contended.
struct Hashed<R> {
    state: Arc<Mutex<HashState<R>>>,
}

struct HashState<R> {
    inner: R,
    hasher: Sha256,
    bytes: u64,
}

impl<R> Clone for Hashed<R> {
    fn clone(&self) -> Self {
        Hashed {
            state: Arc::clone(&self.state),
        }
    }
}

impl<R: Read> Hashed<R> {
    fn new(inner: R) -> Self {
        use sha2::Digest as _;
        Hashed {
            state: Arc::new(Mutex::new(HashState {
                inner,
                hasher: Sha256::new(),
                bytes: 0,
            })),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashState<R>> {
        // A panic while hashing ends the ingest; the state is not read again after one.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Reads what the parser left (nothing, usually) and returns the digest of it all.
    fn finish(&self) -> std::io::Result<Digest> {
        use sha2::Digest as _;
        let mut rest = self.clone();
        std::io::copy(&mut rest, &mut std::io::sink())?;
        let st = self.lock();
        Ok(Digest {
            sha256: hex::encode(st.hasher.clone().finalize()),
            bytes: st.bytes,
        })
    }
}

impl<R: Read> Read for Hashed<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        use sha2::Digest as _;
        let mut st = self.lock();
        let n = st.inner.read(buf)?;
        st.hasher.update(&buf[..n]);
        st.bytes += n as u64;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_db_parsers::format_by_name;

    /// `two-outputs.txt` repeated `times` times, and the stream the reading thread builds
    /// on it once it has read the head.
    fn jlbh_stream(times: usize) -> (Vec<u8>, BufReader<impl Read + Send>, Hashed<Source>) {
        let one = std::fs::read(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/jlbh/two-outputs.txt"),
        )
        .unwrap();
        let data = one.repeat(times);
        let mut source: Source = Box::new(Cursor::new(data.clone()));
        let (head, _) = read_head(&mut source).unwrap();
        let (stream, hashed) = reread(head, source);
        (data, stream, hashed)
    }

    /// The parsed item as is: what the parsing thread hands over without preparing.
    fn as_parsed(item: Parsed) -> Result<Parsed, ParseError> {
        Ok(item)
    }

    #[test]
    fn the_parsing_thread_hands_over_every_item_then_the_digest() {
        let jlbh = format_by_name("jlbh").unwrap();
        // More than a head: the digest covers the head read first and the rest.
        let (data, stream, hashed) = jlbh_stream(100);
        assert!(data.len() > HEAD_BYTES);
        let want = (jlbh.parse)(Box::new(Cursor::new(data.clone()))).count();
        let (send_item, items) = std::sync::mpsc::sync_channel(QUEUE);
        let (send_digest, digest) = std::sync::mpsc::sync_channel(1);
        let n = std::thread::scope(|scope| {
            scope.spawn(move || {
                parse_into(stream, hashed, jlbh, as_parsed, &send_item, &send_digest)
            });
            items
                .iter()
                .inspect(|i| assert!(i.is_ok(), "{i:?}"))
                .count()
        });
        assert_eq!(n, want);
        assert!(n >= 200, "{n} items");
        assert_eq!(digest.recv().unwrap().unwrap(), Digest::of(&data));
    }

    #[test]
    fn a_store_that_stops_early_stops_the_parsing_thread() {
        let jlbh = format_by_name("jlbh").unwrap();
        // Far more items than the queue holds: the parser must stop, not wait forever.
        let (data, stream, hashed) = jlbh_stream(2_000);
        let (send_item, items) = std::sync::mpsc::sync_channel(QUEUE);
        let (send_digest, digest) = std::sync::mpsc::sync_channel(1);
        let reading = hashed.clone();
        let first = std::thread::scope(|scope| {
            scope.spawn(move || {
                parse_into(stream, reading, jlbh, as_parsed, &send_item, &send_digest)
            });
            let first = items.recv().map(|i| i.is_ok());
            drop(items);
            first
        });
        assert_eq!(first, Ok(true));
        assert!(digest.recv().is_err(), "no digest of a parse that stopped");
        let read = hashed.lock().bytes;
        assert!(
            read < data.len() as u64 / 2,
            "read {read} of {} bytes",
            data.len()
        );
    }

    #[test]
    fn a_size_may_be_stored_when_the_store_has_it_or_a_file_before_had_it() {
        let mut sizes = Sizes {
            stored: Some(HashSet::from([10])),
            met: HashSet::new(),
        };
        assert!(sizes.may_be_stored(10));
        assert!(!sizes.may_be_stored(20));
        // The file before may be stored by the time the store reaches this one.
        assert!(sizes.may_be_stored(20));
        // A store that could not answer: every size may be stored.
        let mut unknown = Sizes {
            stored: None,
            met: HashSet::new(),
        };
        assert!(unknown.may_be_stored(30));
    }

    #[test]
    fn hashing_reader_hashes_what_the_parser_read_and_the_rest() {
        let data = b"0123456789".repeat(HEAD_BYTES / 10 + 1_000);
        let h = Hashed::new(Cursor::new(data.clone()));
        let (head, complete) = read_head(h.clone()).unwrap();
        assert_eq!(head.len(), HEAD_BYTES + 1);
        assert!(!complete);
        let mut part = vec![0u8; 10];
        h.clone().read_exact(&mut part).unwrap();
        assert_eq!(h.finish().unwrap(), Digest::of(&data));
    }
}
