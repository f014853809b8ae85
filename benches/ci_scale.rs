//! The CI loop at scale: `gate`, `compare`, `history`, `report` and the listing reads on
//! a CI-like history, against the targets of the store.
//!
//! `cargo bench --bench ci_scale -- 10000 30000 [100000] [--keep DIR] [--reps N]` builds,
//! per size, a history of that many runs as the README's "Use in CI" stores them: per
//! commit, three suites of one JLBH output each (5 runs × 2 probes × 6 percentiles),
//! tagged with `commit`, `branch` and a commit time; every 10th commit is on its own
//! pull-request branch, the others on `main`, whose level steps every 400 commits in one
//! suite (so `history` has change points to find). Then it runs the release `bench-db`
//! and prints, per command, the median wall time, CPU time (user + system: steadier on a
//! shared machine) and peak RSS (from `wait4`) of `--reps`
//! runs (default 3), the target, the ratio to it, and the growth factor from the
//! smallest size to the largest:
//!
//! - `gate --baseline 'tag.branch=main;latest=10' --candidate tag.commit=X` (X the last
//!   pull-request commit; 150 + 15 runs): target < 100 ms at any size;
//! - `compare` of one suite's 10 latest `main` commits against the 10 before (50 vs 50
//!   runs × 12 cells): target < 0.3 s;
//! - `report` of the whole database: targets < 3 s and < 256 MB; each run writes into a
//!   new directory, as a CI job does (the report before is renamed aside and deleted at
//!   the end: see `set_aside`);
//! - `history 'tag.branch=main'`, `runs --json`, `export` (no fixed target).
//!
//! `--bin PATH` measures another `bench-db` binary (an older build, for paired runs);
//! `--build-only` builds the databases and measures nothing.
//! `--keep DIR` keeps each size's database in `DIR/<runs>/ci.db` and builds it only when
//! absent. With `BENCH_DB_BENCH_PG=URL` (an empty PostgreSQL database the bench may fill) each
//! database is copied there with `bench-db copy`, and each command is run again on both
//! stores in alternation (SQLite, PostgreSQL, SQLite, …: the same machine load on both
//! sides; at least 15 rounds for the commands with a target under 0.5 s) to print its
//! PostgreSQL / SQLite ratio (target ≤ 1.5). `BENCH_DB_BENCH_PG_POOLED=URL`, the same
//! database and schema through a pooler such as PgBouncer in session mode, adds a third
//! side to those rounds.

mod common;

use bench_db::store::url::Target;
use bench_db::store::{BlockDefaults, Db, Digest, SourceMeta};
use common::{Cost, dir_bytes, measure_cpu};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const SUITES: [&str; 3] = ["order-entry", "market-data", "risk"];
/// Runs stored per commit: one JLBH output of five runs per suite.
const RUNS_PER_COMMIT: usize = 15;
/// A commit on its own pull-request branch every this many.
const PR_EVERY: usize = 10;
/// `main`'s level steps every this many commits.
const STEP_EVERY: usize = 400;

/// The history's seeded generator (reproducible, so every size builds the same history).
type Rng = Xoshiro256PlusPlus;

fn commit_sha(c: usize) -> String {
    let mut r = Rng::seed_from_u64(c as u64);
    let hex = format!(
        "{:016x}{:016x}{:016x}",
        r.random::<u64>(),
        r.random::<u64>(),
        r.random::<u64>()
    );
    hex[..40].to_string()
}

fn branch(c: usize) -> String {
    if c % PR_EVERY == PR_EVERY - 1 {
        format!("pr-{c}")
    } else {
        "main".to_string()
    }
}

/// One JLBH output of five runs, two probes and six percentiles, around `level` µs, with
/// its summary tables.
fn jlbh_output(rng: &mut Rng, level: f64) -> String {
    const LABELS: [&str; 6] = ["50.0", "90.0", "99.0", "99.9", "99.99", "worst"];
    const SHAPE: [f64; 6] = [1.0, 1.6, 3.0, 6.0, 11.0, 20.0];
    let dashes = "-".repeat(100);
    let header = |title: &str| {
        let s = format!("-------------------------------- {title} us ");
        format!("{s}{}", "-".repeat(100usize.saturating_sub(s.len())))
    };
    // [run][probe][percentile]
    let mut table = [[[0.0f64; 6]; 2]; 5];
    let mut s = String::from("Warm up complete (500000 iterations took 0.731 s)\n");
    for (run, row) in table.iter_mut().enumerate() {
        s.push_str(&header(&format!("BENCHMARK RESULTS (RUN {})", run + 1)));
        s.push_str("\nRun time: 3.0 s, distribution: NORMAL\nCorrecting for co-ordinated:true\n");
        s.push_str("Target throughput:100000/s = 1 message every 10us\n");
        for (probe, name) in ["End to End", "client2server"].iter().enumerate() {
            let noise = 1.0 + 0.03 * (rng.random::<f64>() - 0.5);
            for (k, m) in SHAPE.iter().enumerate() {
                let v = level * m * noise * (1.0 + 0.02 * rng.random::<f64>());
                row[probe][k] = (v * 100.0).round() / 100.0;
            }
            let v = row[probe].map(|x| format!("{x:.2}"));
            let label = format!("{name} (300,000)");
            s.push_str(&format!(
                "{label:<48}50/90 99/99.9 99.99 - worst was {} / {}  {} / {}  {} - {}\n",
                v[0], v[1], v[2], v[3], v[4], v[5]
            ));
        }
        s.push_str(&dashes);
        s.push('\n');
    }
    for (probe, name) in ["end to end", "client2server"].iter().enumerate() {
        s.push_str(&header(&format!("SUMMARY ({name})")));
        s.push_str("\nPercentile   run1         run2         run3         run4         run5      % Variation\n");
        for (k, label) in LABELS.iter().enumerate() {
            let mut line = format!("{:<9}", format!("{label}:"));
            for run in &table {
                line.push_str(&format!("{:12.2} ", run[probe][k]));
            }
            line.push_str(&format!("{:12.2}\n", 1.0 + k as f64 * 0.5));
            s.push_str(&line);
        }
        s.push_str(&dashes);
        s.push('\n');
    }
    s
}

/// Stores `commits` commits of the CI-like history into a new database at `db`.
fn build(db: &Path, commits: usize) -> anyhow::Result<()> {
    let mut store = Db::open(&Target::Sqlite(db.to_path_buf()))?;
    let format = bench_db_parsers::format_by_name("jlbh").expect("the jlbh format");
    let mut rng = Rng::seed_from_u64(0x5eed_cafe);
    let start = chrono::DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z")?;
    for c in 0..commits {
        let sha = commit_sha(c);
        let time = (start + chrono::Duration::minutes(30 * c as i64))
            .to_utc()
            .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        for (k, suite) in SUITES.iter().enumerate() {
            let steps = (0..=c / STEP_EVERY).filter(|s| s % 3 == k).count();
            let level = 10.0 * (1.0 + 0.1 * steps as f64);
            let text = jlbh_output(&mut rng, level);
            let meta = SourceMeta {
                path: format!("bench-{suite}-{c}.log"),
                format: format.name.to_string(),
                parser: format!("{} {}", format.name, format.version),
            };
            let tags: BTreeMap<String, String> = [
                ("commit".to_string(), sha.clone()),
                ("branch".to_string(), branch(c)),
            ]
            .into();
            let defaults = BlockDefaults {
                suite: suite.to_string(),
                fallback_label: "bench.log".to_string(),
                tags,
                time_fallback: Some(time.clone()),
                suite_given: true,
                ..BlockDefaults::default()
            };
            let digest = Digest::of(text.as_bytes());
            let items = format.read(Box::new(text.as_bytes()));
            let done = store.ingest(&meta, items, &defaults, || Ok(digest))?;
            anyhow::ensure!(done.runs == 5, "{} runs from one output", done.runs);
        }
    }
    Ok(())
}

/// One measured command: its name, arguments, accepted exit codes and targets.
struct Case {
    name: &'static str,
    args: Vec<String>,
    codes: &'static [i32],
    /// Seconds, MB.
    target: (Option<f64>, Option<f64>),
}

fn cases(commits: usize, out: &Path) -> Vec<Case> {
    let last_pr = (0..commits)
        .rev()
        .find(|c| c % PR_EVERY == PR_EVERY - 1)
        .unwrap_or(0);
    // The 10 main commits before the latest 10: those before the 10th latest's time.
    let mains: Vec<usize> = (0..commits)
        .rev()
        .filter(|c| c % PR_EVERY != PR_EVERY - 1)
        .take(10)
        .collect();
    let tenth = mains.last().copied().unwrap_or(0);
    let before = (chrono::DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z").unwrap()
        + chrono::Duration::minutes(30 * tenth as i64))
    .to_utc()
    .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    let suite = SUITES[0];
    vec![
        Case {
            name: "gate",
            args: s(&[
                "gate",
                "--baseline",
                "tag.branch=main;latest=10",
                "--candidate",
                &format!("tag.commit={}", commit_sha(last_pr)),
            ]),
            codes: &[0, 1, 3],
            target: (Some(0.1), None),
        },
        Case {
            name: "compare",
            args: s(&[
                "compare",
                "--baseline",
                &format!("suite={suite};tag.branch=main;time<{before};latest=10"),
                "--candidate",
                &format!("suite={suite};tag.branch=main;latest=10"),
            ]),
            codes: &[0],
            target: (Some(0.3), None),
        },
        Case {
            name: "history",
            args: s(&["history", "tag.branch=main"]),
            codes: &[0],
            target: (None, None),
        },
        Case {
            name: "runs --json",
            args: s(&["runs", "--json"]),
            codes: &[0],
            target: (None, None),
        },
        Case {
            name: "export",
            args: s(&["export"]),
            codes: &[0],
            target: (None, None),
        },
        Case {
            name: "report",
            args: vec![
                "report".to_string(),
                "--out".to_string(),
                out.display().to_string(),
            ],
            codes: &[0],
            target: (Some(3.0), Some(256.0)),
        },
    ]
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Moves the last report into `aside` (renamed, not deleted), so that the next one is
/// written into a new directory, as a CI job writes it. Deleting it there would free its
/// 400 inodes just before the next report allocates as many, and ext4 then passes over
/// every inode freed in the last minutes while it looks for a free one: that search took
/// 13% of the report's CPU time (`perf`: `find_inode_bit`, `recently_deleted`) when each
/// round deleted the round before. The reports set aside are deleted at the end.
fn set_aside(report_dir: &Path, aside: &Path) -> anyhow::Result<()> {
    if report_dir.exists() {
        std::fs::create_dir_all(aside)?;
        let n = std::fs::read_dir(aside)?.count();
        std::fs::rename(report_dir, aside.join(n.to_string()))?;
    }
    Ok(())
}

/// Where the report of the history in `dir` is written.
fn report_of(dir: &Path) -> PathBuf {
    dir.join("report")
}

/// Where [`set_aside`] puts the reports of the history in `dir`.
fn aside_of(dir: &Path) -> PathBuf {
    dir.join("reports-set-aside")
}

/// Median wall seconds, CPU seconds and MB of `reps` runs of `case` against `db`, each
/// report written into a new directory.
fn run_case(bin: &str, db: &str, case: &Case, dir: &Path, reps: usize) -> anyhow::Result<Cost> {
    let (mut secs, mut cpu, mut mbs) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..reps {
        set_aside(&report_of(dir), &aside_of(dir))?;
        let mut cmd = Command::new(bin);
        cmd.arg("--db").arg(db).args(&case.args);
        let out = dir.join(format!("{}.txt", case.name.replace(' ', "")));
        let c = measure_cpu(&mut cmd, &out, case.codes)?;
        secs.push(c.secs);
        cpu.push(c.cpu);
        mbs.push(c.mb);
    }
    Ok(Cost {
        secs: median(secs),
        cpu: median(cpu),
        mb: median(mbs),
    })
}

/// Median costs of `case` on each of `dbs`, run in alternation for `reps` rounds.
fn paired(
    bin: &str,
    dbs: &[&str],
    case: &Case,
    dir: &Path,
    reps: usize,
) -> anyhow::Result<Vec<Cost>> {
    let mut costs: Vec<Vec<Cost>> = vec![Vec::new(); dbs.len()];
    for _ in 0..reps {
        for (db, seen) in dbs.iter().zip(&mut costs) {
            seen.push(run_case(bin, db, case, dir, 1)?);
        }
    }
    Ok(costs
        .into_iter()
        .map(|v| Cost {
            secs: median(v.iter().map(|c| c.secs).collect()),
            cpu: median(v.iter().map(|c| c.cpu).collect()),
            mb: median(v.iter().map(|c| c.mb).collect()),
        })
        .collect())
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value_of = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let keep = value_of("--keep").map(PathBuf::from);
    let reps: usize = value_of("--reps")
        .map(|r| r.parse())
        .transpose()?
        .unwrap_or(3);
    let mut sizes: Vec<usize> = Vec::new();
    for (i, a) in args.iter().enumerate() {
        let flag_value = i > 0 && matches!(args[i - 1].as_str(), "--keep" | "--reps" | "--bin");
        if !a.starts_with('-') && !flag_value {
            sizes.push(a.parse()?);
        }
    }
    if sizes.is_empty() {
        sizes = vec![10_000, 30_000];
    }
    let pg = std::env::var("BENCH_DB_BENCH_PG").ok();
    let pooled = std::env::var("BENCH_DB_BENCH_PG_POOLED").ok();
    let temp = tempfile::tempdir()?;
    let root = keep.unwrap_or_else(|| temp.path().to_path_buf());
    let bin = value_of("--bin").unwrap_or_else(|| env!("CARGO_BIN_EXE_bench-db").to_string());
    let build_only = args.iter().any(|a| a == "--build-only");
    // Per command, (size, s, CPU s, MB), for the growth factors.
    type Seen = Vec<(usize, f64, f64, f64)>;
    let mut seen: BTreeMap<&'static str, Seen> = BTreeMap::new();
    for &size in &sizes {
        let commits = size.div_ceil(RUNS_PER_COMMIT);
        let dir = root.join(size.to_string());
        std::fs::create_dir_all(&dir)?;
        let db = dir.join("ci.db");
        if !db.exists() {
            let t = std::time::Instant::now();
            build(&db, commits)?;
            println!(
                "built {} runs ({commits} commits) in {:.1} s, {:.1} MB",
                commits * RUNS_PER_COMMIT,
                t.elapsed().as_secs_f64(),
                std::fs::metadata(&db)?.len() as f64 / 1e6
            );
        }
        if build_only {
            continue;
        }
        println!(
            "== {} runs stored (medians of {reps})",
            commits * RUNS_PER_COMMIT
        );
        let report_dir = report_of(&dir);
        let db_arg = db.display().to_string();
        for case in cases(commits, &report_dir) {
            let Cost { secs: s, cpu, mb } = run_case(&bin, &db_arg, &case, &dir, reps)?;
            seen.entry(case.name).or_default().push((size, s, cpu, mb));
            let mut line = format!(
                "{:<12} {:>8.3} s ({:>6.3} s CPU) {:>7.0} MB",
                case.name, s, cpu, mb
            );
            if let Some(t) = case.target.0 {
                line.push_str(&format!("   target < {t} s: ×{:.2}", s / t));
            }
            if let Some(t) = case.target.1 {
                line.push_str(&format!(", < {t} MB: ×{:.2}", mb / t));
            }
            if case.name == "report" {
                line.push_str(&format!(
                    ", {:.1} MB written",
                    dir_bytes(&report_dir) as f64 / 1e6
                ));
            }
            println!("{line}");
        }
        if let Some(url) = &pg {
            let status = Command::new(&bin)
                .args(["copy", "--from", &db_arg, "--to", url])
                .stdout(std::process::Stdio::null())
                .status()?;
            anyhow::ensure!(status.success(), "bench-db copy to PostgreSQL failed");
            let mut sides = vec![("PostgreSQL", url.as_str())];
            if let Some(p) = &pooled {
                sides.push(("pooled", p.as_str()));
            }
            println!("== PostgreSQL against SQLite, run in alternation (medians)");
            for case in cases(commits, &report_dir) {
                let rounds = if case.target.0.is_some_and(|t| t < 0.5) {
                    reps.max(15)
                } else {
                    reps
                };
                let mut dbs = vec![db_arg.as_str()];
                dbs.extend(sides.iter().map(|(_, u)| *u));
                let costs = paired(&bin, &dbs, &case, &dir, rounds)?;
                let sqlite = costs[0].secs;
                for ((side, _), c) in sides.iter().zip(&costs[1..]) {
                    println!(
                        "{:<12} {side:<10} {:>8.3} s ({:>6.3} s CPU) {:>7.0} MB   / SQLite's {:.3} s: ×{:.2} (target ≤ 1.5; {rounds} rounds)",
                        case.name,
                        c.secs,
                        c.cpu,
                        c.mb,
                        sqlite,
                        c.secs / sqlite
                    );
                }
            }
        }
    }
    // Deleted only now, after every timed run (see `set_aside`).
    for &size in &sizes {
        let _ = std::fs::remove_dir_all(aside_of(&root.join(size.to_string())));
    }
    if sizes.len() > 1 {
        println!("== growth from the smallest size to the largest");
        for (name, v) in &seen {
            let (a, b) = (v.first().unwrap(), v.last().unwrap());
            println!(
                "{name:<12} {} → {} runs: time ×{:.2} (CPU ×{:.2}), memory ×{:.2}",
                a.0,
                b.0,
                b.1 / a.1,
                b.2 / a.2,
                b.3 / a.3
            );
        }
    }
    Ok(())
}
