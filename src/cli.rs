//! Command-line arguments (clap derive): one Args struct per subcommand.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// Database and regression reporter for latency and throughput benchmarks.
#[derive(Debug, Parser)]
#[command(
    name = "bench-db",
    version,
    about,
    max_term_width = 100,
    after_help = crate::selector::HELP
)]
pub struct Cli {
    /// SQLite database file, or a PostgreSQL URL `postgres://USER[:PASSWORD]@HOST[:PORT]/DB`
    /// (default: $BENCH_DB, else bench.db in the current directory).
    #[arg(
        long,
        global = true,
        env = "BENCH_DB",
        default_value = "bench.db",
        hide_env_values = true
    )]
    pub db: String,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Ingest benchmark logs (files or folders, recursively; format auto-detected).
    Ingest(IngestArgs),
    /// List stored runs.
    Runs(RunsArgs),
    /// Relabel the selected runs.
    Label(LabelArgs),
    /// Run-to-run variation per percentile (JLBH's % Variation and a robust spread).
    Variation(VariationArgs),
    /// Export every stored point as CSV or JSON.
    Export(ExportArgs),
    /// Before/after comparison with confidence intervals and corrected p-values.
    Compare(CompareArgs),
    /// Throughput versus latency, with the knee and the highest throughput within an SLO.
    Curve(CurveArgs),
    /// CI gate: exit 1 on a percentile regression, 3 when it cannot decide.
    Gate(GateArgs),
    /// Values over commits per suite, metric and percentile, with change points.
    #[command(after_help = crate::selector::HELP)]
    History(HistoryArgs),
    /// False-alarm rate of a gate policy on stored runs split at random (A/A), and the
    /// smallest shift it detects.
    Calibrate(CalibrateArgs),
    /// Write a static HTML report with SVG charts.
    Report(ReportArgs),
    /// Run a built-in benchmark and store its results.
    #[command(subcommand)]
    Run(RunCommand),
    /// Copy runs between two stores (SQLite files or PostgreSQL URLs); a source already
    /// present by content hash is skipped.
    Copy(CopyArgs),
    /// Upgrade the database to this bench-db's schema (read commands do it when they can write).
    Migrate,
}

#[derive(Debug, Args)]
pub struct CopyArgs {
    /// Store to read (a SQLite file or a PostgreSQL URL).
    #[arg(long)]
    pub from: String,
    /// Store to write (created or migrated when needed).
    #[arg(long)]
    pub to: String,
    /// Which runs (default: all).
    pub selector: Option<String>,
}

#[derive(Debug, Args)]
pub struct IngestArgs {
    /// Files or folders to ingest; `-` reads standard input.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Source name recorded for `-` (default: `-`); its file name also helps detection.
    #[arg(long)]
    pub name: Option<String>,
    /// Parse every file as this format instead of detecting it.
    #[arg(long)]
    pub format: Option<String>,
    /// Label for every block of this invocation (overrides lead lines).
    #[arg(long)]
    pub label: Option<String>,
    /// Suite name (default: the format's name).
    #[arg(long)]
    pub suite: Option<String>,
    /// Tag every run: KEY=VALUE (repeatable). `commit`, `branch`, `time`, `host` and
    /// `dirty` are otherwise taken from CI variables, then from git in this directory.
    #[arg(long = "tag", value_parser = parse_key_value)]
    pub tags: Vec<(String, String)>,
    /// Run time, RFC 3339 (default: the commit's time, else the file's modification time).
    #[arg(long, value_parser = crate::metadata::parse_time)]
    pub time: Option<String>,
    /// Do not read commit and branch from CI variables or git.
    #[arg(long)]
    pub no_git: bool,
    /// Print one JSON object describing the outcome per file.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct RunsArgs {
    /// Which runs: terms like `label=X;suite=Y;run=1+2;source=PATH;tag.K=V;latest=N`.
    pub selector: Option<String>,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct LabelArgs {
    /// Which runs (an empty selector is refused; use --all for every run), then the new
    /// label: `label SELECTOR NEW_LABEL` or `label --all NEW_LABEL`.
    #[arg(required = true, num_args = 1..=2, value_names = ["SELECTOR", "NEW_LABEL"])]
    pub words: Vec<String>,
    /// Relabel every run.
    #[arg(long)]
    pub all: bool,
}

#[derive(Debug, Args)]
pub struct VariationArgs {
    pub selector: Option<String>,
    /// Only this metric.
    #[arg(long)]
    pub metric: Option<String>,
    /// Include run 1 (JLBH skips it by default).
    #[arg(long)]
    pub include_first: bool,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    Csv,
    Json,
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    pub selector: Option<String>,
    #[arg(long, value_enum, default_value = "csv")]
    pub format: ExportFormat,
}

#[derive(Debug, Args)]
pub struct CompareArgs {
    #[arg(long)]
    pub baseline: String,
    #[arg(long)]
    pub candidate: String,
    /// Only these metrics (repeatable).
    #[arg(long)]
    pub metric: Vec<String>,
    #[arg(long, conflicts_with = "markdown")]
    pub json: bool,
    #[arg(long)]
    pub markdown: bool,
    /// Keep run 1 of JLBH-layout blocks (skipped by default as a warm-up run).
    #[arg(long)]
    pub include_first: bool,
}

#[derive(Debug, Args)]
pub struct CurveArgs {
    pub selector: Option<String>,
    /// Latency metric (default: end_to_end, else latency, else the first ladder metric).
    #[arg(long)]
    pub metric: Option<String>,
    /// Percentiles to show, comma-separated.
    #[arg(long, default_value = "50,90,99,99.9", value_delimiter = ',')]
    pub percentiles: Vec<f64>,
    /// Service-level objective, e.g. "p99<=200us" or "p50<=50us,p99<=1ms".
    #[arg(long)]
    pub slo: Option<String>,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GateFormat {
    Text,
    Json,
    Markdown,
    Junit,
    Github,
}

#[derive(Debug, Args)]
pub struct GateArgs {
    #[arg(long)]
    pub baseline: String,
    #[arg(long)]
    pub candidate: String,
    /// Policy file (TOML).
    #[arg(long)]
    pub policy: Option<PathBuf>,
    /// Allowed worsening: `METRIC=+N%`, `METRIC@PERCENTILE=+N%` or `pPERCENTILE=+N%` (repeatable).
    #[arg(long)]
    pub max: Vec<String>,
    #[arg(long, value_enum, default_value = "text")]
    pub format: GateFormat,
    /// Write the verdict here instead of standard output.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Keep run 1 of JLBH-layout blocks (skipped by default as a warm-up run).
    #[arg(long)]
    pub include_first: bool,
}

#[derive(Debug, Args)]
pub struct CalibrateArgs {
    pub selector: Option<String>,
    /// Policy file (TOML).
    #[arg(long)]
    pub policy: Option<PathBuf>,
    /// Allowed worsening, as for `gate` (repeatable).
    #[arg(long)]
    pub max: Vec<String>,
    /// Random splits per group.
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub trials: u32,
    /// Seed of the random splits.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Keep run 1 of JLBH-layout blocks (skipped by default as a warm-up run).
    #[arg(long)]
    pub include_first: bool,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct HistoryArgs {
    /// Which runs, e.g. `tag.branch=main;latest=50` (see below).
    pub selector: Option<String>,
    /// Only these metrics (repeatable).
    #[arg(long)]
    pub metric: Vec<String>,
    /// Only these percentiles (repeatable; default: every percentile the runs have).
    #[arg(long)]
    pub percentile: Vec<f64>,
    /// One series per label instead of across labels.
    #[arg(long, value_parser = ["label"])]
    pub by: Option<String>,
    /// Change-point sliding window, in points (Apache Otava's default).
    #[arg(long, default_value_t = 50)]
    pub window: usize,
    /// Significance a change point must reach.
    #[arg(long, default_value_t = 0.001)]
    pub p_value: f64,
    /// Minimum relative change of a change point, as a fraction.
    #[arg(long, default_value_t = 0.0)]
    pub magnitude: f64,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    pub selector: Option<String>,
    /// Output folder.
    #[arg(long, default_value = "bench-report")]
    pub out: PathBuf,
    #[arg(long, requires = "candidate")]
    pub baseline: Option<String>,
    #[arg(long, requires = "baseline")]
    pub candidate: Option<String>,
    #[arg(long)]
    pub slo: Option<String>,
}

#[derive(Debug, Subcommand)]
pub enum RunCommand {
    /// JLBH-style loopback TCP round trips with coordinated-omission correction.
    Loopback(LoopbackArgs),
    /// Thread-count sweep of a loopback service with CPU time and IO wait per request.
    Threads(ThreadsArgs),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Mode {
    Block,
    Spin,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Switch {
    Auto,
    On,
    Off,
}

#[derive(Debug, Args)]
pub struct LoopbackArgs {
    /// Target rate, messages per second.
    #[arg(long, default_value_t = 20_000)]
    pub throughput: u64,
    /// Measured iterations per run.
    #[arg(long, default_value_t = 50_000)]
    pub iterations: u64,
    /// Warm-up iterations (default: = iterations).
    #[arg(long)]
    pub warmup: Option<u64>,
    #[arg(long, default_value_t = 5)]
    pub runs: u32,
    /// Message size in bytes (8 to 64 MiB).
    #[arg(long, default_value_t = 8, value_parser = parse_msg_size)]
    pub msg_size: usize,
    /// One set of runs per throughput (replaces --throughput).
    #[arg(long, value_delimiter = ',')]
    pub sweep: Vec<u64>,
    #[arg(long, value_enum, default_value = "block")]
    pub mode: Mode,
    #[arg(long)]
    pub pin_client: Option<usize>,
    #[arg(long)]
    pub pin_server: Option<usize>,
    #[arg(long)]
    pub label: Option<String>,
    #[arg(long = "tag", value_parser = parse_key_value)]
    pub tags: Vec<(String, String)>,
    /// Do not store the results.
    #[arg(long)]
    pub no_store: bool,
    /// Do not read commit and branch from CI variables or git.
    #[arg(long)]
    pub no_git: bool,
    /// Write HdrHistogram interval logs to this file.
    #[arg(long)]
    pub hlog: Option<PathBuf>,
    #[arg(long, value_enum, default_value = "auto")]
    pub os_jitter: Switch,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ThreadsArgs {
    /// Worker pool sizes to try, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "1,2,4,8,16")]
    pub threads: Vec<usize>,
    /// Busy CPU time per request (e.g. 2ms, 500us).
    #[arg(long, default_value = "2ms")]
    pub cpu_time: String,
    /// Sleep per request (e.g. 8ms).
    #[arg(long, default_value = "8ms")]
    pub io_wait: String,
    /// Measuring time per pool size (e.g. 5s).
    #[arg(long, default_value = "5s")]
    pub duration: String,
    #[arg(long)]
    pub label: Option<String>,
    #[arg(long = "tag", value_parser = parse_key_value)]
    pub tags: Vec<(String, String)>,
    #[arg(long)]
    pub no_store: bool,
    /// Do not read commit and branch from CI variables or git.
    #[arg(long)]
    pub no_git: bool,
    #[arg(long)]
    pub json: bool,
}

/// Parses `KEY=VALUE`.
pub fn parse_key_value(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((k, v)) if !k.is_empty() => Ok((k.to_string(), v.to_string())),
        _ => Err(format!("expected KEY=VALUE, got {s:?}")),
    }
}

/// The largest `--msg-size`: one message is allocated per connection side.
pub const MAX_MSG_SIZE: usize = 64 << 20;

/// Parses `--msg-size`: 8 bytes to [`MAX_MSG_SIZE`].
pub fn parse_msg_size(s: &str) -> Result<usize, String> {
    let n: usize = s
        .parse()
        .map_err(|_| format!("expected a whole number of bytes, got {s:?}"))?;
    if n < 8 {
        return Err(format!(
            "--msg-size must be at least 8 (the send timestamp), got {n}"
        ));
    }
    if n > MAX_MSG_SIZE {
        return Err(format!(
            "--msg-size must be at most 64 MiB ({MAX_MSG_SIZE} bytes), got {n}"
        ));
    }
    Ok(n)
}
