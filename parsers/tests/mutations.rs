//! Mutation test over every input we hold: each fixture (`fixtures/`), each real output
//! (`fixtures/real/`) and, when present, each shared sample (`../shared/samples`), damaged
//! in deterministic ways (bit flips, bytes deleted or inserted, a line duplicated, a number
//! replaced by `1e400`, `NaN`, `-0` or 400 digits, a cut, NUL bytes, ANSI escapes), is
//! parsed through `Format::read` by the format detection picks and by the file's own
//! format. Each parse must end without a panic, and every number of every run it yields
//! must be finite unless the parse also warned. Bounded by a time budget.

use bench_db_parsers::mutate::{KINDS, Rng, files_under, mutate};
use bench_db_parsers::{Block, Data, Format, Head, Parsed, registry};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long the whole test may mutate and parse (debug build): the inputs are visited
/// round-robin, so a budget cut still covers every file.
const BUDGET: Duration = Duration::from_secs(25);

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
