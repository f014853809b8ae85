//! Mutation test over every input we hold: each fixture (`fixtures/`), each real output
//! (`fixtures/real/`) and, when present, each shared sample (`../shared/samples`), damaged
//! in deterministic ways (bit flips, bytes deleted or inserted, a line duplicated, a number
//! replaced by `1e400`, `NaN`, `-0` or 400 digits, a cut, NUL bytes, ANSI escapes), is
//! parsed through `Format::read` by the format detection picks and by the file's own
//! format. Each parse must end without a panic, and every number of every run it yields
//! must be finite unless the parse also warned. Bounded by a time budget.

use bench_db_parsers::{Block, Data, Format, Head, Parsed, registry};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long the whole test may mutate and parse (debug build): the inputs are visited
/// round-robin, so a budget cut still covers every file.
const BUDGET: Duration = Duration::from_secs(25);

/// xorshift64: the mutations are the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files_under(&p, out);
        } else if !p.ends_with("MANIFEST") && !p.ends_with("README.md") {
            out.push(p);
        }
    }
}

/// Every input: our fixtures and the real corpus, and the shared samples when present.
fn corpus() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    files_under(&root.join("../fixtures"), &mut out);
    let samples = root.join("../../shared/samples");
    if samples.is_dir() {
        files_under(&samples, &mut out);
    } else {
        eprintln!("{} not found: the fixtures only", samples.display());
    }
    out
}

/// The positions and lengths of the numbers in `b` (digit runs, with a dot).
fn numbers(b: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit() {
            let start = i;
            while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'.') {
                i += 1;
            }
            out.push((start, i - start));
        } else {
            i += 1;
        }
    }
    out
}

/// Mutation `kind` of `bytes`, placed by `rng`.
fn mutate(bytes: &[u8], kind: usize, rng: &mut Rng) -> Vec<u8> {
    let mut b = bytes.to_vec();
    let at = rng.below(b.len() + 1);
    match kind {
        0 if !b.is_empty() => {
            let i = at.min(b.len() - 1);
            b[i] ^= 1 << rng.below(8);
        }
        1 if !b.is_empty() => {
            let n = 1 + rng.below(8);
            b.drain(at.min(b.len() - 1)..(at + n).min(b.len()));
        }
        2 => b.insert(at, rng.next() as u8),
        3 => {
            // A line duplicated in place.
            let start = b[..at]
                .iter()
                .rposition(|&c| c == b'\n')
                .map_or(0, |i| i + 1);
            let end = b[at..]
                .iter()
                .position(|&c| c == b'\n')
                .map_or(b.len(), |i| at + i + 1);
            let line = b[start..end].to_vec();
            b.splice(end..end, line);
        }
        4..=7 => {
            let nums = numbers(&b);
            if !nums.is_empty() {
                let (s, n) = nums[rng.below(nums.len())];
                let with: Vec<u8> = match kind {
                    4 => b"1e400".to_vec(),
                    5 => b"NaN".to_vec(),
                    6 => b"-0".to_vec(),
                    _ => std::iter::repeat_n(b'9', 400).collect(),
                };
                b.splice(s..s + n, with);
            }
        }
        8 => b.truncate(at),
        9 => {
            let n = [1, 100, 70_000][rng.below(3)];
            b.splice(at..at, std::iter::repeat_n(0u8, n));
        }
        10 => {
            let esc: &[u8] = [&b"\x1b[31m"[..], b"\x1b]0;title\x07", b"\x1b[2J\x9b"][rng.below(3)];
            b.splice(at..at, esc.iter().copied());
        }
        _ => {}
    }
    b
}

const KINDS: usize = 11;

/// The first non-finite number of a block, named.
fn non_finite(block: &Block) -> Option<String> {
    let bad = |v: f64| !v.is_finite();
    for run in &block.runs {
        for s in &run.series {
            let hit = match &s.data {
                Data::Ladder { points, .. } | Data::Histogram { points, .. } => points
                    .iter()
                    .any(|p| bad(p.percentile) || p.value.is_some_and(bad)),
                Data::TimeSeries { points } => {
                    points.iter().any(|p| bad(p.t) || p.value.is_some_and(bad))
                }
                Data::Value { value } => value.is_some_and(bad),
            };
            if hit || s.stats.values().any(|v| bad(*v)) {
                return Some(format!("run {} series {}", run.index, s.metric));
            }
        }
    }
    block
        .printed
        .iter()
        .find(|p| p.value.is_some_and(bad))
        .map(|p| format!("printed {}", p.name))
}

/// Parses `bytes` with `format`; a panic fails the test, and so does a non-finite
/// number in a parse that gave no warning.
fn check(format: &Format, bytes: &[u8], what: &dyn Fn() -> String) {
    let mut warned = false;
    let mut bad = None;
    for item in format.read(Box::new(bytes)) {
        match item {
            Ok(Parsed::Warning { .. }) => warned = true,
            Ok(Parsed::Block(b)) => bad = bad.or_else(|| non_finite(&b)),
            Err(_) => break,
        }
    }
    if let Some(bad) = bad {
        assert!(
            warned,
            "{}: {} yielded a non-finite number ({bad}) without a warning",
            what(),
            format.name
        );
    }
}

fn detect(name: &str, bytes: &[u8]) -> Option<&'static Format> {
    let n = bytes.len().min(registry::HEAD_BYTES);
    let text = String::from_utf8_lossy(&bytes[..n]);
    registry::detect(&Head {
        file_name: name,
        text: &text,
        complete: n == bytes.len(),
    })
}

#[test]
fn damaged_inputs_never_panic_and_give_finite_numbers_or_a_warning() {
    let files = corpus();
    assert!(files.len() > 50, "only {} inputs found", files.len());
    let inputs: Vec<(String, Vec<u8>, Option<&'static Format>)> = files
        .iter()
        .map(|p| {
            let bytes = std::fs::read(p).unwrap();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let own = detect(&name, &bytes);
            (p.display().to_string(), bytes, own)
        })
        .collect();
    let start = Instant::now();
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut parsed = 0;
    'rounds: for round in 0.. {
        for (path, bytes, own) in &inputs {
            if start.elapsed() > BUDGET {
                break 'rounds;
            }
            let kind = (round + parsed) % KINDS;
            let damaged = mutate(bytes, kind, &mut rng);
            let name = Path::new(path).file_name().unwrap().to_string_lossy();
            let what = || format!("{path} with mutation {kind} (round {round})");
            if let Some(f) = detect(&name, &damaged) {
                check(f, &damaged, &what);
            }
            if let Some(f) = own {
                check(f, &damaged, &what);
            }
            parsed += 1;
        }
        if round >= 40 {
            break;
        }
    }
    eprintln!(
        "{parsed} damaged inputs parsed in {:.1}s",
        start.elapsed().as_secs_f64()
    );
    assert!(parsed >= inputs.len(), "the budget allowed {parsed} parses");
}
