//! Command-line arguments (clap derive): one Args struct per subcommand, with help text
//! for every option and examples for every subcommand; the colour choice. Parsing only:
//! no IO beyond reading the environment for colour.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::sync::{LazyLock, OnceLock};
use std::time::Duration;

/// `--version`: the package version and the git commit it was built from (build.rs).
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("BENCH_DB_COMMIT"),
    ")"
);

/// The selector's terms as an argument's help, after `what` the argument is.
fn selector_help(what: &str) -> String {
    format!(
        "{what}: terms joined by ';', all must hold: {}; e.g. 'tag.branch=main;latest=10'",
        crate::selector::terms_list(", ")
    )
}

/// Help of every SELECTOR argument.
static SELECTOR_HELP: LazyLock<String> = LazyLock::new(|| selector_help("Which runs"));

/// Database and regression reporter for latency and throughput benchmarks.
#[derive(Debug, Parser)]
#[command(
    name = "bench-db",
    version = VERSION,
    about,
    max_term_width = 100,
    after_help = "EXAMPLES:\n  bench-db ingest logs/ --tag branch=main\n  bench-db runs 'suite=jlbh'\n  bench-db compare --baseline 'tag.branch=main' --candidate 'tag.branch=fix'\n  bench-db history 'tag.branch=main;latest=20'\n  bench-db report --out bench-report\n\nExit codes: 0 ok or gate passed, 1 regression, 2 error, 3 gate could not decide."
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
    /// Colour in terminal output: auto (on a terminal, unless NO_COLOR is set; or when
    /// CLICOLOR_FORCE is set), always or never.
    #[arg(long, global = true, value_enum, default_value = "auto")]
    pub color: ColorWhen,
    #[command(subcommand)]
    pub command: Command,
}

/// When to colour output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorWhen {
    Auto,
    Always,
    Never,
}

impl ColorWhen {
    /// The choice from `--color`, else the environment (`NO_COLOR` turns colour off,
    /// `CLICOLOR_FORCE` other than `0` turns it on), else `auto`.
    pub fn resolve(flag: Option<ColorWhen>, env: impl Fn(&str) -> Option<String>) -> ColorWhen {
        match flag {
            Some(ColorWhen::Always) => ColorWhen::Always,
            Some(ColorWhen::Never) => ColorWhen::Never,
            Some(ColorWhen::Auto) | None => {
                if env("NO_COLOR").is_some_and(|v| !v.is_empty()) {
                    ColorWhen::Never
                } else if env("CLICOLOR_FORCE").is_some_and(|v| !v.is_empty() && v != "0") {
                    ColorWhen::Always
                } else {
                    ColorWhen::Auto
                }
            }
        }
    }

    /// The `--color` value of a command line, read before clap parses it (so clap's own
    /// messages follow it too); the last one wins.
    pub fn from_args<I: IntoIterator<Item = std::ffi::OsString>>(args: I) -> Option<ColorWhen> {
        let args: Vec<String> = args
            .into_iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        let mut found = None;
        for (i, a) in args.iter().enumerate() {
            let value = if let Some(v) = a.strip_prefix("--color=") {
                Some(v)
            } else if a == "--color" {
                args.get(i + 1).map(String::as_str)
            } else {
                None
            };
            if let Some(v) = value {
                found = ColorWhen::from_str(v, true).ok().or(found);
            }
        }
        found
    }

    /// clap's equivalent.
    pub fn clap(self) -> clap::ColorChoice {
        match self {
            ColorWhen::Auto => clap::ColorChoice::Auto,
            ColorWhen::Always => clap::ColorChoice::Always,
            ColorWhen::Never => clap::ColorChoice::Never,
        }
    }
}

static COLOR: OnceLock<ColorWhen> = OnceLock::new();

/// Sets the process' colour choice once, at start-up.
pub fn set_color(when: ColorWhen) {
    let _ = COLOR.set(when);
}

/// Whether to colour a stream that is (or is not) a terminal.
pub fn color_enabled(is_terminal: bool) -> bool {
    match COLOR.get().copied().unwrap_or(ColorWhen::Auto) {
        ColorWhen::Always => true,
        ColorWhen::Never => false,
        ColorWhen::Auto => is_terminal,
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Ingest benchmark logs (files or folders, recursively; format auto-detected).
    #[command(after_help = INGEST_HELP.as_str())]
    Ingest(IngestArgs),
    /// List stored runs.
    #[command(
        after_help = "EXAMPLES:\n  bench-db runs\n  bench-db runs 'suite=jlbh;tag.branch=main'\n  bench-db runs --json | jq '.[].label'\n\nThe values column shows a run's first single values (metric=value); `bench-db export 'run=ID'` prints every point of a run.\n\nJSON: an array of runs (id, suite, label, format, source, run_index, bench, config, params, tags, metrics, values, stats, lines, ingested_at); bench: the benchmark as its tool names it (null for a format that names none); config: the parameters that are the benchmark's configuration, values as in params; stats: per metric, every number the tool printed about it for the run's block or benchmark that is not a percentile (score, score_error, mean, stddev, change_pct, …), in the metric's unit."
    )]
    Runs(RunsArgs),
    /// Relabel the selected runs.
    #[command(
        after_help = "EXAMPLES:\n  bench-db label 'run=12+13' 'TCP loopback at 20k/s'\n  bench-db label 'source=logs/ts-1405.txt' 'current master'\n\nJSON: {\"schema\": 1, \"relabelled\": N, \"label\": ...}."
    )]
    Label(LabelArgs),
    /// Remove the selected runs, and the sources left with none; asks nothing.
    #[command(
        after_help = "EXAMPLES:\n  bench-db rm 'source=logs/mistake.txt' --dry-run\n  bench-db rm 'run=12+13'\n  bench-db rm 'tag.commit=abc123;suite=jmh' --json\n\nAn empty selector is refused (it would remove every run). A source whose runs are all removed is removed with them, so ingesting it again stores it again. Runs removed from a source that keeps others stay removed: ingesting it again finds its content unchanged and stores nothing, so a CI job re-ingesting its logs does not bring back the runs you removed; to store the whole file again, remove its source (rm 'source=PATH') and ingest it.\n\nJSON: {\"schema\": 1, \"dry_run\", \"runs\": N, \"run_ids\": [...], \"sources_removed\": [path]}."
    )]
    Rm(RmArgs),
    /// Run-to-run variation per percentile (JLBH's % Variation and a robust spread).
    #[command(
        after_help = "EXAMPLES:\n  bench-db variation 'suite=jlbh'\n  bench-db variation 'label=TCP loopback' --metric end_to_end --include-first\n  bench-db variation --json\n\nJSON: an array of rows (suite, bench, config, label, metric, percentile, values, variation_pct, printed_variation_pct, spread, unit): values has one entry per run of the group, in run order (null where a run has none)."
    )]
    Variation(VariationArgs),
    /// Export every stored point as CSV or JSON.
    #[command(
        after_help = "EXAMPLES:\n  bench-db export > points.csv\n  bench-db export 'suite=tsar' --json | jq length\n\nColumns: run_id, suite, label, source, metric, percentile, t, value, unit, stat.\nstat is empty for a measured point and names a number the tool printed (score, score_error, mean, stddev, change_pct, …); a printed percentile (score_percentile, min, median, max) has its percentile, the others none. A block's printed numbers come once, with its first exported run.\nJSON: an array of points with those keys (stat null for a measured point)."
    )]
    Export(ExportArgs),
    /// Before/after comparison with confidence intervals and corrected p-values.
    #[command(
        after_help = "EXAMPLES:\n  bench-db compare --baseline 'tag.branch=main' --candidate 'tag.branch=fix'\n  bench-db compare --baseline 'label=before' --candidate 'label=after' --metric ts.rt --markdown\n  bench-db compare --baseline 'bench=sleep 0.01' --candidate 'bench=sleep 0.02'\n  bench-db compare --baseline 'param.note=before' --candidate 'param.note=after'\n\nCELLS: a baseline cell is paired with the candidate cell of the same suite, bench, config,\nlabel (when one was given: a log file's name is not a label), metric and percentile, except\nwhat both selectors name differently (suite=, bench=, param.KEY=, label=) or what takes one\nvalue on each side: that is what is compared.\n\nREPLICATES (per format: bench; config; the replicate; one block = one invocation):\n  JMH        package.Class.method; @Params; measurement iteration; one fork\n  Go         BenchmarkName/sub (no -N); config lines, procs; -count repeat; package run\n  Criterion  group/function/value; -; sample; one benchmark of one cargo bench\n  hyperfine  the command; parameter values; timing run; one command\n  JLBH       -; target rate, interval, distribution; run after the warm-up; one output\n  tsar       -; -; minute (a series); one table\n  others     -; target rate, size, threads where printed; run; one block\nReplicates are rearranged only among the runs that hold them: 3 runs a side never go\nbelow p = 0.1 and are never better or worse. A side whose runs come from several\ninvocations is tested on its invocations (each one's trimmed geometric mean); one\ninvocation against several, by the several's t prediction interval (on runs when the\nseveral's centres do not vary; none across a step); one a side, on runs (the output says that covers one\ninvocation's variation only). An invocation repeating another's values exactly on one\nside (one output ingested twice) counts once.\n\nPRINTED: beside our estimate, what the tool printed for the cell on each side (JMH score ± error\nwith scoreConfidence, hyperfine mean ± stddev, Criterion's slope (else mean) with its interval, k6's value\nat the percentile), where the side's runs all come from one block, one result the tool\nprinted: the forks of one JMH benchmark are one block and show its score ± error; a side\nthat pools several blocks (files, or one file's repeated results) shows none, and\nprinted_note says so. Criterion's own change of the candidate (mean and median, with their\nintervals) is shown where the base it ran against is the baseline (its mean over 1 + the\nchange is the baseline's mean).\n\nJSON: an array, one object per cell (suite, bench, config, label, metric, percentile) with its values, change (delta_pct, inside [ci_low_pct, ci_high_pct]; central_delta_pct of the central values), interval, replicates, invocations_baseline/candidate, within_invocation and verdict; printed_baseline and printed_candidate: {name, value, error, low, high, unit} (keys absent where not printed; null where nothing is shown), printed_note: why a side shows none (it pools several invocations), else null; printed_change: [{name, pct, low_pct, high_pct}], the tool's own change against this baseline (empty where it printed none)."
    )]
    Compare(CompareArgs),
    /// Throughput versus latency, with the knee and the highest throughput within an SLO.
    #[command(
        after_help = "EXAMPLES:\n  bench-db curve 'suite=loopback'\n  bench-db curve 'source=sweep.txt' --metric end_to_end --percentiles 50,99 --slo 'p99<=200us'\n\nJSON: {\"schema\": 1, points, knee, the highest throughput within the SLO}."
    )]
    Curve(CurveArgs),
    /// CI gate: exit 1 on a percentile regression, 3 when it cannot decide.
    #[command(
        after_help = "EXAMPLES:\n  bench-db gate --baseline 'tag.branch=main' --candidate 'tag.commit=abc123'\n  bench-db gate --baseline 'label=before' --candidate 'label=after' --max 'p99=+10%' --format junit --out gate.xml\n  bench-db gate --baseline 'tag.branch=main' --candidate 'tag.branch=fix' --policy gate.toml --json\n\nJSON: {\"schema\": 1, outcome, exit_code, summary, cells: [...]}; each cell carries printed_baseline, printed_candidate, printed_note and printed_change as compare --json gives them: what the tool printed, shown under the row in text and listed in Markdown; it takes no part in the verdict."
    )]
    Gate(GateArgs),
    /// Values over commits per suite, metric and percentile, with change points.
    #[command(after_help = HISTORY_HELP.as_str())]
    History(HistoryArgs),
    /// False-alarm rate of a gate policy on stored runs split at random (A/A), and the
    /// smallest shift it detects.
    #[command(
        after_help = "EXAMPLES:\n  bench-db calibrate 'suite=jlbh'\n  bench-db calibrate --policy gate.toml --trials 500 --json\n\nJSON: {\"schema\": 1, trials, alarms, alarm_rate, cells: [{suite, metric, percentile, alarm_rate, mde_pct}]}."
    )]
    Calibrate(CalibrateArgs),
    /// Write a static HTML report with SVG charts.
    #[command(
        after_help = "EXAMPLES:\n  bench-db report --out bench-report\n  bench-db report 'suite=jlbh' --slo 'p99<=200us,p99.99<=5ms'\n  bench-db report --baseline 'label=before' --candidate 'label=after' --json\n\nWithout --baseline and --candidate, one suite and label stored on branch main and another branch are compared as the README's CI gate does: main's latest 10 commits (after their last change point) against the branch's latest commit, judged by the gate's default policy, so \"Got worse\" lists the gate's regressions (file-name labels are pooled, as the gate pools them).\n\nJSON: {\"schema\": 1, index, files, runs, comparisons: [{suite, baseline, candidate, worse, better}]}; text: the index page's path."
    )]
    Report(ReportArgs),
    /// Run a built-in benchmark and store its results.
    #[command(subcommand)]
    #[command(
        after_help = "EXAMPLES:\n  bench-db run loopback --sweep 5000,10000 --iterations 20000 --runs 3\n  bench-db run threads --threads 1,2,4,8 --cpu-time 2ms --io-wait 8ms"
    )]
    Run(RunCommand),
    /// Copy runs between two stores (SQLite files or PostgreSQL URLs); a source already
    /// present by content hash is skipped.
    #[command(
        after_help = "EXAMPLES:\n  bench-db copy --from bench.db --to \"$BENCH_DB\"\n  bench-db copy --from \"$BENCH_DB\" --to local.db 'suite=jlbh' --json\n\nThe global --db is not used: copy reads --from and writes --to.\n\nJSON: {\"schema\": 1, from, to, sources, runs, present, copied: [{source, runs}], already_present: [source]}."
    )]
    Copy(CopyArgs),
    /// Upgrade the database to this bench-db's schema (read commands do it when they can write).
    #[command(
        after_help = "EXAMPLES:\n  bench-db migrate\n  bench-db --db 'postgres://bench@db.example/perf' migrate --json\n\nJSON: {\"schema\": 1, db, from, to, upgraded, reingest}: reingest lists the sources stored before schema 4 whose benchmark names and configuration only a new ingest reads."
    )]
    Migrate(MigrateArgs),
    /// Check the database for damage: the SQLite file's integrity and every stored run.
    #[command(
        after_help = "EXAMPLES:\n  bench-db check\n  bench-db --db 'postgres://bench@db.example/perf' check --json\n\nOn SQLite, `PRAGMA integrity_check` of the whole file; on both stores, every run's parameters, tags, configuration and printed numbers and every series' statistics and packed points (with their checksum) are decoded.\n\nExit codes: 0 sound, 1 damage found (each damaged run, series or source listed), 2 the database cannot be opened.\n\nJSON: {\"schema\": 1, \"db\", \"ok\", \"runs_checked\", \"series_checked\", \"damaged\": [{\"run\", \"source\", \"what\"}]}."
    )]
    Check(CheckArgs),
    /// Print a shell completion script (bash, zsh, fish or powershell) to standard output.
    #[command(
        after_help = "EXAMPLES:\n  bench-db completions bash > ~/.local/share/bash-completion/completions/bench-db\n  bench-db completions zsh > ~/.zfunc/_bench-db\n  bench-db completions fish > ~/.config/fish/completions/bench-db.fish\n  bench-db completions powershell >> $PROFILE"
    )]
    Completions(CompletionsArgs),
}

/// `ingest --help`'s closing text: examples, then the parser names from the parsers'
/// registry, so a new format is listed without editing this file.
static INGEST_HELP: LazyLock<String> = LazyLock::new(|| {
    let names: Vec<&str> = bench_db_parsers::formats().iter().map(|f| f.name).collect();
    format!(
        "EXAMPLES:\n  bench-db ingest logs/\n  bench-db ingest run.txt --suite loopback --label 'TCP 20k' --tag branch=main --tag commit=$(git rev-parse --short HEAD)\n  bench-db ingest wrk.txt --parser wrk --json\n\nPARSERS (--parser NAME; detected from the file's first 256 KiB when not given):\n  {}\n\nJSON: {{\"schema\": 1, files: [{{path, format, status, runs, error, reason}}], ingested, unchanged, skipped, errors}}.",
        names.join(", ")
    )
});

/// `ingest --parser NAME`: any name is taken (ingest says which are known), and the
/// parsers' names are offered to shell completion.
#[derive(Debug, Clone, Copy)]
struct ParserName;

impl clap::builder::TypedValueParser for ParserName {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        clap::builder::StringValueParser::new().parse_ref(cmd, arg, value)
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        let names = bench_db_parsers::formats().iter().map(|f| f.name);
        Some(Box::new(names.map(clap::builder::PossibleValue::new)))
    }
}

/// `history --help`'s closing text: examples, the selector terms, then the JSON shape.
static HISTORY_HELP: LazyLock<String> = LazyLock::new(|| {
    format!(
        "EXAMPLES:\n  bench-db history 'tag.branch=main;latest=20'\n  bench-db history 'suite=jlbh' --metric end_to_end --percentile 99 --by label\n\n{}\n\nJSON: an array of series (suite, bench, config, label, metric, percentile, unit, points, change_points); label only where the runs were given one (--label), and with --by label.",
        crate::selector::HELP.trim_end()
    )
});

/// An output format a command can be asked for with `--format`: which of its values
/// `--json` stands for, and which is printed when neither is given.
pub trait OutputFormat:
    ValueEnum + Clone + Copy + PartialEq + std::fmt::Debug + Send + Sync + 'static
{
    /// The value `--json` selects.
    const JSON: Self;
    /// The name of the value printed by default (as `--format` spells it).
    const DEFAULT: &'static str;
}

/// `--format FORMAT` and its alias `--json`: how a command prints its result. Declared
/// once here and flattened into every command that prints one, each with the formats it
/// knows (`F`).
#[derive(Debug, Clone, Args)]
pub struct Output<F: OutputFormat> {
    /// Output format.
    #[arg(
        long,
        value_name = "FORMAT",
        default_value = F::DEFAULT,
        value_parser = clap::builder::EnumValueParser::<F>::new(),
        conflicts_with = "json"
    )]
    format: F,
    /// Print JSON: the same as --format json (the shape is under JSON below).
    #[arg(long)]
    json: bool,
}

impl<F: OutputFormat> Output<F> {
    /// The format asked for: `--json`, else `--format`, else the command's default.
    pub fn format(&self) -> F {
        if self.json { F::JSON } else { self.format }
    }

    /// Whether JSON was asked for (`--json` or `--format json`).
    pub fn json(&self) -> bool {
        self.format() == F::JSON
    }

    /// The output `--format VALUE` (or `--json` when `json`) asks for, as a program
    /// building its arguments would (benches, tests).
    pub fn new(format: F, json: bool) -> Self {
        Output { format, json }
    }
}

/// `--json` alone, for `ingest`: its `--format` is the parser's name (kept from before
/// `--parser`, so scripts keep working), so it cannot flatten [`Output`].
#[derive(Debug, Clone, Copy, Default, Args)]
pub struct Json {
    /// Print one JSON document instead of a line per file (the shape is under JSON below).
    #[arg(long)]
    pub json: bool,
}

/// The output formats of most commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TextFormat {
    /// Aligned text for people.
    Text,
    /// JSON for programs (see JSON below).
    Json,
}

impl OutputFormat for TextFormat {
    const JSON: Self = TextFormat::Json;
    const DEFAULT: &'static str = "text";
}

/// Help of `--baseline`, wherever it is declared.
const BASELINE_HELP: &str =
    "SELECTOR of the reference runs, the \"before\" (e.g. 'tag.branch=main;latest=10')";
/// Help of `--candidate`, wherever it is declared.
const CANDIDATE_HELP: &str =
    "SELECTOR of the runs being judged, the \"after\" (e.g. 'tag.commit=abc123')";

/// The two sides of a comparison: `--baseline SELECTOR --candidate SELECTOR`.
#[derive(Debug, Clone, Args)]
pub struct Sides {
    #[arg(long, value_name = "SELECTOR", help = BASELINE_HELP)]
    pub baseline: String,
    #[arg(long, value_name = "SELECTOR", help = CANDIDATE_HELP)]
    pub candidate: String,
}

/// [`Sides`] when a command can do without them (`report`): both or neither. clap's
/// optional flatten would keep [`Sides`]' arguments required, hence this twin with the
/// same names and help.
#[derive(Debug, Clone, Default, Args)]
pub struct MaybeSides {
    #[arg(long, value_name = "SELECTOR", requires = "candidate", help = BASELINE_HELP)]
    baseline: Option<String>,
    #[arg(long, value_name = "SELECTOR", requires = "baseline", help = CANDIDATE_HELP)]
    candidate: Option<String>,
}

impl MaybeSides {
    /// Both sides, or `None` (clap has refused one without the other).
    pub fn sides(&self) -> Option<Sides> {
        match (&self.baseline, &self.candidate) {
            (Some(b), Some(c)) => Some(Sides {
                baseline: b.clone(),
                candidate: c.clone(),
            }),
            _ => None,
        }
    }
}

/// `--include-first`: the warm-up rule every analysis of replicates shares.
#[derive(Debug, Clone, Copy, Default, Args)]
pub struct WarmUp {
    /// Keep run 1 of JLBH-layout blocks (jlbh, loopback), otherwise skipped as JLBH's
    /// warm-up run; other formats' runs are always all kept.
    #[arg(long)]
    pub include_first: bool,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
pub struct CopyArgs {
    /// Store to read (a SQLite file or a PostgreSQL URL).
    #[arg(long)]
    pub from: String,
    /// Store to write (created or migrated when needed).
    #[arg(long)]
    pub to: String,
    #[arg(help = selector_help("Which runs (default: all)"))]
    pub selector: Option<String>,
    #[command(flatten)]
    pub output: Output<TextFormat>,
}

#[derive(Debug, Args)]
pub struct RmArgs {
    #[arg(help = selector_help("Which runs to remove (an empty selector is refused)"))]
    pub selector: String,
    /// Print what would be removed and remove nothing.
    #[arg(long)]
    pub dry_run: bool,
    #[command(flatten)]
    pub output: Output<TextFormat>,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    #[command(flatten)]
    pub output: Output<TextFormat>,
}

#[derive(Debug, Args)]
pub struct MigrateArgs {
    #[command(flatten)]
    pub output: Output<TextFormat>,
}

#[derive(Debug, Args)]
pub struct IngestArgs {
    /// Files or folders to ingest; `-` reads standard input.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Source name recorded for `-` (default: `-`); its file name also helps detection.
    #[arg(long)]
    pub name: Option<String>,
    /// Parse every file with this parser instead of detecting the format (see PARSERS
    /// below; its alias `--format NAME` is the same).
    #[arg(
        long,
        value_name = "NAME",
        visible_alias = "format",
        value_parser = ParserName,
        hide_possible_values = true
    )]
    pub parser: Option<String>,
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
    #[command(flatten)]
    pub output: Json,
}

#[derive(Debug, Args)]
pub struct RunsArgs {
    #[arg(help = SELECTOR_HELP.as_str())]
    pub selector: Option<String>,
    #[command(flatten)]
    pub output: Output<TextFormat>,
}

#[derive(Debug, Args)]
pub struct LabelArgs {
    #[arg(
        required = true,
        num_args = 1..=2,
        value_names = ["SELECTOR", "NEW_LABEL"],
        help = selector_help(
            "Which runs, then the new label: `label SELECTOR NEW_LABEL` or `label --all \
             NEW_LABEL` (an empty selector is refused, --all means every run). SELECTOR"
        )
    )]
    pub words: Vec<String>,
    /// Relabel every run.
    #[arg(long)]
    pub all: bool,
    #[command(flatten)]
    pub output: Output<TextFormat>,
}

#[derive(Debug, Args)]
pub struct VariationArgs {
    #[arg(help = SELECTOR_HELP.as_str())]
    pub selector: Option<String>,
    /// Only this metric; a name no selected run has is an error.
    #[arg(long)]
    pub metric: Option<String>,
    #[command(flatten)]
    pub warm_up: WarmUp,
    #[command(flatten)]
    pub output: Output<TextFormat>,
}

/// The output formats of `export`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// One line per point, with a header line.
    Csv,
    /// One array of point objects.
    Json,
}

impl OutputFormat for ExportFormat {
    const JSON: Self = ExportFormat::Json;
    const DEFAULT: &'static str = "csv";
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    #[arg(help = SELECTOR_HELP.as_str())]
    pub selector: Option<String>,
    #[command(flatten)]
    pub output: Output<ExportFormat>,
}

/// The output formats of `compare`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CompareFormat {
    /// Aligned table, verdicts coloured on a terminal.
    Text,
    /// One object per cell (see JSON below).
    Json,
    /// A Markdown table for a pull-request comment.
    Markdown,
}

impl OutputFormat for CompareFormat {
    const JSON: Self = CompareFormat::Json;
    const DEFAULT: &'static str = "text";
}

#[derive(Debug, Args)]
pub struct CompareArgs {
    #[command(flatten)]
    pub sides: Sides,
    /// Only these metrics (repeatable); an unknown name is an error.
    #[arg(long)]
    pub metric: Vec<String>,
    #[command(flatten)]
    pub output: Output<CompareFormat>,
    /// Print a Markdown table (the same as --format markdown).
    #[arg(long, conflicts_with_all = ["format", "json"])]
    pub markdown: bool,
    #[command(flatten)]
    pub warm_up: WarmUp,
}

impl CompareArgs {
    /// The format asked for, `--markdown` included.
    pub fn format(&self) -> CompareFormat {
        if self.markdown {
            CompareFormat::Markdown
        } else {
            self.output.format()
        }
    }
}

#[derive(Debug, Args)]
pub struct CurveArgs {
    #[arg(help = SELECTOR_HELP.as_str())]
    pub selector: Option<String>,
    /// Latency metric (default: end_to_end, else latency, else the first ladder metric).
    #[arg(long)]
    pub metric: Option<String>,
    /// Percentiles to show, comma-separated, each in 0–100 (100: the maximum, JLBH's
    /// `worst`).
    #[arg(long, default_value = "50,90,99,99.9", value_delimiter = ',', value_parser = parse_percentile)]
    pub percentiles: Vec<f64>,
    /// Service-level objective: pPERCENTILE<=VALUE with a unit, terms joined by ','
    /// (e.g. "p99<=200us" or "p50<=50us,p99<=1ms").
    #[arg(long)]
    pub slo: Option<String>,
    /// Keep runs that missed their schedule (achieved < 90% of the target rate).
    #[arg(long)]
    pub include_late: bool,
    #[command(flatten)]
    pub warm_up: WarmUp,
    #[command(flatten)]
    pub output: Output<TextFormat>,
}

/// The output formats of `gate`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GateFormat {
    /// The outcome and one aligned row per cell.
    Text,
    /// The verdict with every cell's numbers (see JSON below).
    Json,
    /// Tables for a job summary or pull-request comment.
    Markdown,
    /// JUnit XML: one testcase per gated cell.
    Junit,
    /// GitHub Actions annotations; the Markdown is appended to $GITHUB_STEP_SUMMARY.
    Github,
}

impl OutputFormat for GateFormat {
    const JSON: Self = GateFormat::Json;
    const DEFAULT: &'static str = "text";
}

#[derive(Debug, Args)]
pub struct GateArgs {
    #[command(flatten)]
    pub sides: Sides,
    /// Policy file (TOML).
    #[arg(long)]
    pub policy: Option<PathBuf>,
    /// Allowed worsening: `METRIC=+N%`, `METRIC@PERCENTILE=+N%` or `pPERCENTILE=+N%` (repeatable).
    #[arg(long)]
    pub max: Vec<String>,
    #[command(flatten)]
    pub output: Output<GateFormat>,
    /// Write the verdict here instead of standard output.
    #[arg(long)]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub warm_up: WarmUp,
}

#[derive(Debug, Args)]
pub struct CalibrateArgs {
    #[arg(help = SELECTOR_HELP.as_str())]
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
    #[command(flatten)]
    pub warm_up: WarmUp,
    #[command(flatten)]
    pub output: Output<TextFormat>,
}

#[derive(Debug, Args)]
pub struct HistoryArgs {
    /// Which runs, e.g. `tag.branch=main;latest=50` (see below).
    pub selector: Option<String>,
    /// Only these metrics (repeatable); a name no selected run has is an error.
    #[arg(long)]
    pub metric: Vec<String>,
    /// Only these percentiles (repeatable; default: every percentile the runs have), each
    /// in 0–100 (0: HdrHistogram's minimum row; 100: the maximum, JLBH's `worst`).
    #[arg(long, value_parser = parse_percentile)]
    pub percentile: Vec<f64>,
    /// Also split series by the labels a log gives its outputs (lead lines, file names); a
    /// label given with `ingest --label` always makes series of its own.
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
    #[command(flatten)]
    pub output: Output<TextFormat>,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    #[arg(help = SELECTOR_HELP.as_str())]
    pub selector: Option<String>,
    /// Output folder.
    #[arg(long, default_value = "bench-report")]
    pub out: PathBuf,
    #[command(flatten)]
    pub sides: MaybeSides,
    /// Service-level objective drawn on spectra and curves, e.g. "p99<=200us".
    #[arg(long)]
    pub slo: Option<String>,
    #[command(flatten)]
    pub output: Output<TextFormat>,
}

#[derive(Debug, Subcommand)]
pub enum RunCommand {
    /// JLBH-style loopback TCP round trips with coordinated-omission correction.
    #[command(
        after_help = "EXAMPLES:\n  bench-db run loopback --sweep 5000,10000 --iterations 20000 --runs 3\n  bench-db run loopback --throughput 2000 --mode spin --pin-client 0 --pin-server 1 --tag branch=main\n  bench-db run loopback --iterations 1000 --runs 2 --no-store --json"
    )]
    Loopback(LoopbackArgs),
    /// Thread-count sweep of a loopback service with CPU time and IO wait per request.
    #[command(
        after_help = "EXAMPLES:\n  bench-db run threads --threads 1,2,4,8 --cpu-time 2ms --io-wait 8ms\n  bench-db run threads --duration 2s --no-store --json"
    )]
    Threads(ThreadsArgs),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Mode {
    /// Blocking reads: the client sleeps in the kernel between messages.
    Block,
    /// Busy-polling reads: lower latency, one CPU kept busy per side.
    Spin,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Switch {
    /// On when the machine has a CPU to spare for it.
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
    /// Runs per throughput (JLBH's variation leaves run 1 out).
    #[arg(long, default_value_t = 5)]
    pub runs: u32,
    /// Message size in bytes (8 to 64 MiB).
    #[arg(long, default_value_t = 8, value_parser = parse_msg_size)]
    pub msg_size: usize,
    /// One set of runs per throughput (replaces --throughput).
    #[arg(long, value_delimiter = ',')]
    pub sweep: Vec<u64>,
    /// How the client and server wait for messages.
    #[arg(long, value_enum, default_value = "block")]
    pub mode: Mode,
    /// Pin the client thread to this CPU.
    #[arg(long, value_name = "CPU")]
    pub pin_client: Option<usize>,
    /// Pin the server thread to this CPU.
    #[arg(long, value_name = "CPU")]
    pub pin_server: Option<usize>,
    /// Label of the stored runs (default: "loopback RATE/s").
    #[arg(long)]
    pub label: Option<String>,
    /// Tag every stored run: KEY=VALUE (repeatable).
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
    /// Measure OS jitter on a spare thread beside the runs, as JLBH does.
    #[arg(long, value_enum, default_value = "auto")]
    pub os_jitter: Switch,
    #[command(flatten)]
    pub output: Output<TextFormat>,
}

#[derive(Debug, Args)]
pub struct ThreadsArgs {
    /// Worker pool sizes to try, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "1,2,4,8,16")]
    pub threads: Vec<usize>,
    /// Busy CPU time per request (e.g. 2ms, 500us).
    #[arg(long, default_value = "2ms", value_parser = parse_duration)]
    pub cpu_time: std::time::Duration,
    /// Sleep per request (e.g. 8ms).
    #[arg(long, default_value = "8ms", value_parser = parse_duration)]
    pub io_wait: std::time::Duration,
    /// Measuring time per pool size (e.g. 5s).
    #[arg(long, default_value = "5s", value_parser = parse_duration)]
    pub duration: std::time::Duration,
    /// Label of the stored runs.
    #[arg(long)]
    pub label: Option<String>,
    /// Tag every stored run: KEY=VALUE (repeatable).
    #[arg(long = "tag", value_parser = parse_key_value)]
    pub tags: Vec<(String, String)>,
    /// Do not store the results.
    #[arg(long)]
    pub no_store: bool,
    /// Do not read commit and branch from CI variables or git.
    #[arg(long)]
    pub no_git: bool,
    #[command(flatten)]
    pub output: Output<TextFormat>,
}

/// Parses `2ms`, `500us`, `1.5s`, `250000ns`, `1m`. Hand-written because the accepted
/// forms are few and no listed dependency parses fractional values with units.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let v: f64 = num
        .parse()
        .map_err(|_| format!("bad duration {s:?}: expected e.g. 2ms, 500us, 1.5s"))?;
    let scale = match unit.trim() {
        "ns" => 1e-9,
        "us" | "µs" => 1e-6,
        "ms" => 1e-3,
        "s" | "" => 1.0,
        "m" | "min" => 60.0,
        u => {
            return Err(format!(
                "bad duration {s:?}: unknown unit {u:?} (use ns, us, ms, s or m)"
            ));
        }
    };
    let secs = v * scale;
    if !(secs.is_finite() && secs < 1e6) {
        return Err(format!("bad duration {s:?}: too long"));
    }
    Ok(Duration::from_secs_f64(secs))
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
/// A percentile in 0–100: 0 is the minimum (HdrHistogram's dumps print its row), 100 the
/// maximum (JLBH's `worst`, stored as 100).
pub fn parse_percentile(s: &str) -> Result<f64, String> {
    let p: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("expected a percentile (a number in 0-100), got {s:?}"))?;
    if !(0.0..=100.0).contains(&p) {
        return Err(format!(
            "percentile {s} is not in 0-100 (100 is the maximum, JLBH's worst)"
        ));
    }
    Ok(p)
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse_with_units() {
        use std::time::Duration;
        assert_eq!(parse_duration("2ms").unwrap(), Duration::from_millis(2));
        assert_eq!(parse_duration("500us").unwrap(), Duration::from_micros(500));
        assert_eq!(parse_duration("0.2s").unwrap(), Duration::from_millis(200));
        assert_eq!(parse_duration("1m").unwrap(), Duration::from_secs(60));
        assert_eq!(
            parse_duration("250000ns").unwrap(),
            Duration::from_micros(250)
        );
        assert!(parse_duration("fast").is_err());
        assert!(parse_duration("3 parsecs").is_err());
    }

    #[test]
    fn colour_flag_beats_environment() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| pairs.iter().find(|p| p.0 == k).map(|p| p.1.to_string())
        };
        assert_eq!(ColorWhen::resolve(None, env(&[])), ColorWhen::Auto);
        assert_eq!(
            ColorWhen::resolve(None, env(&[("NO_COLOR", "1")])),
            ColorWhen::Never
        );
        assert_eq!(
            ColorWhen::resolve(None, env(&[("CLICOLOR_FORCE", "1")])),
            ColorWhen::Always
        );
        assert_eq!(
            ColorWhen::resolve(None, env(&[("CLICOLOR_FORCE", "0")])),
            ColorWhen::Auto
        );
        assert_eq!(
            ColorWhen::resolve(Some(ColorWhen::Always), env(&[("NO_COLOR", "1")])),
            ColorWhen::Always
        );
        let args = |a: &[&str]| a.iter().map(std::ffi::OsString::from).collect::<Vec<_>>();
        assert_eq!(
            ColorWhen::from_args(args(&["bench-db", "--color", "never", "runs"])),
            Some(ColorWhen::Never)
        );
        assert_eq!(
            ColorWhen::from_args(args(&["bench-db", "runs", "--color=always"])),
            Some(ColorWhen::Always)
        );
        assert_eq!(ColorWhen::from_args(args(&["bench-db", "runs"])), None);
    }
}
