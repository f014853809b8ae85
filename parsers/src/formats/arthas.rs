//! Arthas `ognl` sessions: the console command and the value Arthas renders for it
//! (`ObjectView`, FORMATS §4.3), as pasted into issues and notes.
//!
//! Input: `[arthas@95644]$ ognl '@org.apache.zookeeper.server.ServerStats@time'` then the
//! rendered value: a leaf `@Long[320]`, `@Double[1.1102230246251565E-16]`, `@String[…]`,
//! `null`, a summary `@ObjectStreamField[][isEmpty=false;size=3]`, or an expanded object
//! `@AtomicLong[` with one `name=<value>,` line per field (nested objects open their own
//! `[`) closed by `]`. Collections list unnamed `<value>,` children, maps `key:value,`.
//!
//! Output: the expression names the value: `@pkg.ServerStats@time` → `serverstats.time`
//! (class simple name and member, lowercased); a value with no command before it is named
//! by its rendered class (`@Random[` → `random`). Numbers (boxed numbers, atomics, adders,
//! big numbers) become `Value` series without unit (Arthas prints none); an expanded
//! `AtomicLong`/`AtomicInteger`/`AtomicBoolean` is its `value` field; other objects give one
//! series per numeric field (`random.seed`), skipping the `serialVersionUID` constants.
//! Strings, characters, dates and booleans become parameters under the same names; other
//! objects' `toString` texts and collection summaries are dropped (object identities,
//! not measurements). When a run holds ZooKeeper's `serverstats.time` (total ms) and
//! `serverstats.count`, the derived `latency_avg` = time / count (unit `ms`) is added.
//!
//! Identity: an `ognl` read has no bench (the value's `class.field` name is its metric,
//! `serverstats.maxlatency`) and no config. A `watch` result's bench is the watched method
//! from the `method=demo.MathGame.primeFactors location=AtExit` line before it, its
//! `location` is config, and its `ts=2021-08-31 15:22:57` is the tag `time`
//! (`2021-08-31T15:22:57Z`: Arthas prints local time without a zone, written as-is with
//! `Z`). `monitor` and `trace` outputs are not read. The repeated samples (runs) of a block
//! are its replicates.
//!
//! Blocks and runs: values read one after the other form one run of one block; a lead
//! line (see [`LabelTracker`]) between commands starts a new block labelled by it, and a
//! value whose name is already in the run starts a new run (a second sample) in the same
//! block. Prose, fences and other commands' output are ignored. A value cut off before its
//! closing `]`, or a number that does not parse, is an error naming the line; Arthas's own
//! size-limit truncation (`...`) keeps what was printed, with a warning.
//! Fixture: `fixtures/arthas/serverstats-session.txt` (seed 004 has the same shape).

use crate::error::ParseError;
use crate::format::{Format, Head, ParseIter};
use crate::lines::LineReader;
use crate::model::{Block, Data, Param, Parsed, Run, Series};
use crate::text::{LabelTracker, metric_name};
use crate::units::java_number;
use regex::Regex;
use std::collections::{BTreeMap, VecDeque};
use std::io::BufRead;
use std::sync::LazyLock;

/// The `arthas` format.
pub const FORMAT: Format = Format::new("arthas", "1", sniff, parse).claims_at_most(95);

/// The console prompt (optional) and an `ognl` command; group 1 = its arguments.
static COMMAND: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(?:\[arthas@\d+\]\$\s*)?ognl\s+(.+)$").expect("valid regex"));

/// The start of a rendering: `@Type[` (array types end in `[]`); group 2 = the rest.
static RENDERING: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^@([A-Za-z_$][\w$.]*(?:\[\])*)\[(.*)$").expect("valid regex"));

/// A `watch`/`tt` result line: `ts=2021-08-31 15:22:57; [cost=0.220625ms] result=@ArrayList[`;
/// group 1 = the timestamp, group 2 = the cost in ms, group 3 = the rendering that follows.
static WATCH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^ts=([^;\]]*);\s*\[cost=([0-9.eE+-]+)ms\]\s*result=(.*)$").expect("valid regex")
});

/// The line `watch` prints before each result: `method=demo.MathGame.primeFactors
/// location=AtExit`; group 1 = the method, group 2 = the location.
static WATCH_METHOD: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^method=(\S+)\s+location=(\S+)\s*$").expect("valid regex"));

/// A `watch` command, echoed (`$ watch …`, `[arthas@6527]$ watch …`) or bare; group 1 =
/// its arguments.
static WATCH_COMMAND: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:\[arthas@\d+\]\$|\$)?\s*watch\s+(.+)$").expect("valid regex")
});

/// `class.method` of a `watch` command's arguments: the first two that are not options
/// (`-x 2 demo.MathGame print 'params'` → `demo.MathGame.print`).
fn watched_method(args: &str) -> Option<String> {
    let mut words = args.split_whitespace();
    let mut names = Vec::new();
    while let Some(w) = words.next() {
        if w.starts_with('-') {
            // Options that take a value: skip it too.
            if matches!(
                w,
                "-c" | "-n" | "-x" | "-m" | "-M" | "--exclude-class-pattern"
            ) {
                words.next();
            }
        } else {
            names.push(w);
            if names.len() == 2 {
                return Some(names.join("."));
            }
        }
    }
    None
}

/// A local time as Arthas prints it, `2021-08-31 15:22:57`.
static LOCAL_TIME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})$").expect("valid regex")
});

/// An echoed `$ getstatic …`, `$ watch …`, `$ ognl …` or `$ tt …` command.
static ARTHAS_COMMAND: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\$\s+(?:getstatic|watch|ognl|tt|vmtool)\s+\S").expect("valid regex")
});

/// A static member reference `@pkg.Class@member`.
static STATIC_REF: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^@([\w.$]+)@([\w$]+)$").expect("valid regex"));

/// A named field line `name=<value>`.
static FIELD: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^([\w$]+)=(.*)$").expect("valid regex"));

/// Classes Arthas renders as `@Class[<number>]`.
const NUMBER_TYPES: &[&str] = &[
    "Long",
    "Integer",
    "Short",
    "Byte",
    "Double",
    "Float",
    "AtomicLong",
    "AtomicInteger",
    "LongAdder",
    "DoubleAdder",
    "LongAccumulator",
    "DoubleAccumulator",
    "BigInteger",
    "BigDecimal",
];

/// Holders whose expanded rendering stands for their `value` field.
const ATOMIC_TYPES: &[&str] = &["AtomicLong", "AtomicInteger", "AtomicBoolean"];

/// Deepest nesting accepted; Arthas itself expands at most 4 levels.
const MAX_DEPTH: usize = 64;

/// Confidence that `head` is an Arthas `ognl` session or rendering.
pub fn sniff(head: &Head) -> u8 {
    let mut prompt = false;
    let mut leaf_line = false;
    let mut commands = 0;
    let mut renderings = 0;
    let mut first: Option<&str> = None;
    for line in head.text.lines() {
        let t = line.trim();
        if t.is_empty() {
            continue;
        }
        if first.is_none() {
            first = Some(t);
        }
        if COMMAND.is_match(t) && t.starts_with("[arthas@") {
            prompt = true;
            break;
        }
        // A console session of Arthas's value-printing commands, prompt echoed.
        if ARTHAS_COMMAND.is_match(t) {
            commands += 1;
        }
        if ["@Long[", "@AtomicLong[", "@Integer[", "@Double["]
            .iter()
            .any(|p| t.starts_with(p))
        {
            leaf_line = true;
        }
    }
    for line in head.text.lines() {
        if RENDERING.is_match(line.trim()) || WATCH.is_match(line.trim()) {
            renderings += 1;
        }
    }
    let first = first.unwrap_or("");
    let name = head.file_name.to_ascii_lowercase();
    if prompt {
        95
    } else if commands >= 1 && renderings >= 1 {
        85
    } else if RENDERING
        .captures(first)
        .is_some_and(|c| c[2].is_empty() || c[2].ends_with(']'))
    {
        70
    } else if leaf_line {
        50
    } else if first == "null" && (name.contains("ognl") || name.contains("arthas")) {
        30
    } else {
        0
    }
}

/// Parses the `ognl` values of a session.
pub fn parse<'a>(r: Box<dyn BufRead + 'a>) -> ParseIter<'a> {
    Box::new(Parser {
        reader: LineReader::new(r),
        labels: LabelTracker::new(),
        command: None,
        watched: None,
        watch_command: None,
        block: None,
        out: VecDeque::new(),
        done: false,
    })
}

/// A rendered value, with numbers already parsed.
#[derive(Debug)]
enum Node {
    Null,
    Num(Option<f64>),
    Bool(bool),
    Text(String),
    /// An object's `toString` or a collection summary: kept out of the model.
    Opaque,
    Object {
        ty: String,
        children: Vec<(Option<String>, Node)>,
    },
}

/// What one rendered line starts: a complete value or an object still open.
enum Start {
    /// A complete value and its rendered class (empty for `null`).
    Done(String, Node),
    Open(String),
}

/// Classifies the rendering `s` (one line, trailing comma removed) read at `line`.
/// `Ok(None)` when `s` is not a rendering at all.
fn classify(s: &str, line: u64) -> Result<Option<Start>, ParseError> {
    if s == "null" {
        return Ok(Some(Start::Done(String::new(), Node::Null)));
    }
    let Some(c) = RENDERING.captures(s) else {
        return Ok(None);
    };
    let ty = c[1].to_string();
    let rest = &c[2];
    if rest.is_empty() {
        return Ok(Some(Start::Open(ty)));
    }
    // The text runs to the last `]`: strings are not escaped, so `]` may occur inside.
    let Some(text) = rest.strip_suffix(']') else {
        return Ok(None);
    };
    let node = if NUMBER_TYPES.contains(&ty.as_str()) {
        let v = java_number(text).map_err(|_| {
            ParseError::new(line, format!("`@{ty}[{text}]`: `{text}` is not a number"))
        })?;
        Node::Num(v)
    } else if ty == "Boolean" || ty == "AtomicBoolean" {
        match text {
            "true" => Node::Bool(true),
            "false" => Node::Bool(false),
            _ => {
                return Err(ParseError::new(
                    line,
                    format!("`@{ty}[{text}]`: expected true or false"),
                ));
            }
        }
    } else if matches!(ty.as_str(), "String" | "Character" | "Date") {
        Node::Text(text.to_string())
    } else {
        Node::Opaque
    };
    Ok(Some(Start::Done(ty, node)))
}

/// Splits a child line into its name (field name or map key) and its rendering.
fn split_child(t: &str) -> (Option<String>, &str) {
    let t = t.strip_suffix(',').unwrap_or(t);
    if let Some(c) = FIELD.captures(t) {
        let name = c.get(1).map(|m| m.as_str().to_string());
        return (name, c.get(2).map_or("", |m| m.as_str()));
    }
    // Map entry `@String[key]:<value>`.
    if t.starts_with('@') {
        for sep in ["]:@", "]:null"] {
            if let Some(i) = t.find(sep) {
                let key = RENDERING
                    .captures(&t[..=i])
                    .map(|c| c[2].trim_end_matches(']').to_string());
                return (key, &t[i + 2..]);
            }
        }
    }
    (None, t)
}

/// An object still open while its fields are read.
struct Frame {
    name: Option<String>,
    ty: String,
    line: u64,
    children: Vec<(Option<String>, Node)>,
}

impl Frame {
    fn into_node(self) -> (Option<String>, Node) {
        (
            self.name,
            Node::Object {
                ty: self.ty,
                children: self.children,
            },
        )
    }
}

/// Arthas's own marks of a rendering cut at its size limit.
fn size_limit_mark(t: &str) -> bool {
    t.ends_with("...") || t.contains("exceeds size limit")
}

/// Reads the rest of an object opened as `@ty[` at `line`, up to its closing `]`.
/// Returns the object and whether Arthas cut it at its size limit.
fn read_object<R: BufRead>(
    reader: &mut LineReader<R>,
    ty: String,
    line: u64,
) -> Result<(Node, bool), ParseError> {
    let mut stack = vec![Frame {
        name: None,
        ty,
        line,
        children: Vec::new(),
    }];
    loop {
        let open = stack.last().expect("stack is never empty here");
        let (open_ty, open_line) = (open.ty.clone(), open.line);
        let last = reader.line_number();
        let Some((n, l)) = reader.next_numbered()? else {
            return Err(ParseError::new(
                last,
                format!(
                    "input ends inside `@{open_ty}[` opened at line {open_line}: \
                     its closing `]` is missing"
                ),
            ));
        };
        let t = l.trim();
        if t.is_empty() {
            continue;
        }
        if t == "]" || t == "]," {
            let done = stack.pop().expect("an open frame").into_node();
            match stack.last_mut() {
                Some(parent) => parent.children.push(done),
                None => return Ok((done.1, false)),
            }
            continue;
        }
        if size_limit_mark(t) {
            let mut node = stack.pop().expect("an open frame").into_node();
            while let Some(mut parent) = stack.pop() {
                parent.children.push(node);
                node = parent.into_node();
            }
            return Ok((node.1, true));
        }
        let (name, rendering) = split_child(t);
        let not_closed = || {
            ParseError::new(
                n,
                format!(
                    "`@{open_ty}[` opened at line {open_line} is not closed: expected a field \
                     `name=@Type[value],` or `]`, found `{t}`"
                ),
            )
        };
        // A collection may hold a multi-line `toString` (an exception with its stack trace
        // in a `watch -e` result): such lines are an opaque child, not a cut.
        let collection =
            open_ty.ends_with("[]") || open_ty.contains("List") || open_ty.contains("Set");
        let start = match classify(rendering, n)? {
            Some(s) => s,
            None if collection => {
                stack
                    .last_mut()
                    .expect("an open frame")
                    .children
                    .push((None, Node::Opaque));
                continue;
            }
            None => return Err(not_closed()),
        };
        match start {
            Start::Done(_, node) => stack
                .last_mut()
                .expect("an open frame")
                .children
                .push((name, node)),
            Start::Open(ty) => {
                if stack.len() >= MAX_DEPTH {
                    return Err(ParseError::new(
                        n,
                        format!("objects nested deeper than {MAX_DEPTH} levels"),
                    ));
                }
                stack.push(Frame {
                    name,
                    ty,
                    line: n,
                    children: Vec::new(),
                });
            }
        }
    }
}

/// Where flattened values go.
#[derive(Default)]
struct Flat {
    series: Vec<Series>,
    params: BTreeMap<String, Param>,
}

/// Flattens `node` named `metric` (displayed as `display`) into series and parameters.
fn flatten(metric: &str, display: &str, node: Node, out: &mut Flat) {
    match node {
        Node::Null | Node::Opaque => {}
        Node::Num(v) => out
            .series
            .push(Series::new(metric, display, "", Data::Value { value: v })),
        Node::Bool(b) => {
            out.params.insert(metric.to_string(), b.into());
        }
        Node::Text(s) => {
            out.params.insert(metric.to_string(), s.into());
        }
        Node::Object { ty, mut children } => {
            if ATOMIC_TYPES.contains(&ty.as_str())
                && let Some(i) = children
                    .iter()
                    .position(|(n, _)| n.as_deref() == Some("value"))
            {
                let (_, v) = children.swap_remove(i);
                return flatten(metric, display, v, out);
            }
            for (i, (name, child)) in children.into_iter().enumerate() {
                let name = name.unwrap_or_else(|| i.to_string());
                // A serialization constant, never a measurement.
                if name == "serialVersionUID" {
                    continue;
                }
                let m = format!("{metric}.{}", metric_name(&name));
                flatten(&m, &format!("{display}.{name}"), child, out);
            }
        }
    }
}

/// The metric name and display name of an `ognl` expression.
fn expression_name(expr: &str) -> (String, String) {
    if let Some(c) = STATIC_REF.captures(expr) {
        let class = c[1].rsplit(['.', '$']).next().unwrap_or(&c[1]);
        let name = format!("{}.{}", metric_name(class), metric_name(&c[2]));
        return (name, expr.to_string());
    }
    (metric_name(expr), expr.to_string())
}

/// The expression of an `ognl` command's arguments: the quoted one, else the last word.
fn expression(args: &str) -> &str {
    for q in ['\'', '"'] {
        if let (Some(a), Some(b)) = (args.find(q), args.rfind(q))
            && b > a
        {
            return &args[a + 1..b];
        }
    }
    args.split_whitespace().last().unwrap_or(args)
}

/// The run being filled.
struct RunBuilder {
    first_line: u64,
    last_line: u64,
    flat: Flat,
    /// The watched method, its location (config) and the result's time, for a `watch` result.
    watch: Option<Watched>,
}

/// What `watch` printed about one result besides its value.
struct Watched {
    method: Option<String>,
    location: Option<String>,
    time: Option<String>,
}

impl RunBuilder {
    /// The finished run, with the derived ZooKeeper average latency; `None` when it
    /// holds no numbers.
    fn finish(mut self, index: u32) -> Option<Run> {
        let get = |m: &str| {
            self.flat.series.iter().find_map(|s| match s.data {
                Data::Value { value } if s.metric == m => Some(value),
                _ => None,
            })
        };
        // ZooKeeper's ServerStats keeps the total request time (ms) and the request count.
        if let (Some(time), Some(count)) = (get("serverstats.time"), get("serverstats.count")) {
            let avg = match (time, count) {
                (Some(t), Some(c)) if c > 0.0 => Some(t / c),
                _ => None,
            };
            self.flat.series.push(Series::new(
                "latency_avg",
                "latency_avg (time/count)",
                "ms",
                Data::Value { value: avg },
            ));
        }
        if self.flat.series.is_empty() {
            return None;
        }
        let mut run = Run {
            index,
            first_line: self.first_line,
            last_line: self.last_line,
            params: self.flat.params,
            series: self.flat.series,
            ..Default::default()
        };
        if let Some(w) = self.watch {
            run.bench = w.method;
            if let Some(l) = w.location {
                run.set_config("location", l);
            }
            if let Some(t) = w.time {
                run.tags.insert("time".into(), t);
            }
        }
        Some(run)
    }
}

/// The block being filled.
struct BlockBuilder {
    label: Option<String>,
    first_line: u64,
    last_line: u64,
    runs: Vec<Run>,
    run: Option<RunBuilder>,
}

impl BlockBuilder {
    fn close_run(&mut self) {
        if let Some(r) = self.run.take()
            && let Some(run) = r.finish(self.runs.len() as u32 + 1)
        {
            self.runs.push(run);
        }
    }

    fn finish(mut self) -> Parsed {
        self.close_run();
        if self.runs.is_empty() {
            return Parsed::Warning {
                line: self.first_line,
                message: format!(
                    "ognl values at lines {}-{} hold no numbers; nothing stored",
                    self.first_line, self.last_line
                ),
            };
        }
        Parsed::Block(Block {
            label: self.label,
            first_line: self.first_line,
            last_line: self.last_line,
            runs: self.runs,
            printed: Vec::new(),
        })
    }

    /// Adds one value read at `first..=last` to the current run, or to a new run when
    /// one of its names is already there.
    fn add(&mut self, first: u64, last: u64, flat: Flat) {
        let repeats = self.run.as_ref().is_some_and(|r| {
            flat.series
                .iter()
                .any(|s| r.flat.series.iter().any(|o| o.metric == s.metric))
        });
        if repeats {
            self.close_run();
        }
        let run = self.run.get_or_insert_with(|| RunBuilder {
            first_line: first,
            last_line: last,
            flat: Flat::default(),
            watch: None,
        });
        run.last_line = last;
        run.flat.series.extend(flat.series);
        run.flat.params.extend(flat.params);
        self.last_line = last;
    }
}

struct Parser<'a> {
    reader: LineReader<Box<dyn BufRead + 'a>>,
    labels: LabelTracker,
    /// The last `ognl` command not yet followed by its value: names and its line.
    command: Option<(String, String, u64)>,
    /// The `method=… location=…` line before the next `watch` result.
    watched: Option<(String, String)>,
    /// `class.method` of the last `$ watch` command, for results printed without a
    /// `method=` line (Arthas before 3.5).
    watch_command: Option<String>,
    block: Option<BlockBuilder>,
    out: VecDeque<Result<Parsed, ParseError>>,
    done: bool,
}

impl Parser<'_> {
    /// Reads the value whose first line, `n`, starts `start`, and files it.
    fn value(&mut self, start: Start, n: u64) -> Result<(), ParseError> {
        let (metric, display, first) = match self.command.take() {
            Some((m, d, line)) => (m, d, line),
            None => {
                let ty = match &start {
                    Start::Open(ty) | Start::Done(ty, _) => ty.clone(),
                };
                (metric_name(&ty), ty, n)
            }
        };
        let (node, truncated) = match start {
            Start::Done(_, node) => (node, false),
            Start::Open(ty) => read_object(&mut self.reader, ty, n)?,
        };
        let last = self.reader.line_number();
        if truncated {
            self.out.push_back(Ok(Parsed::Warning {
                line: last,
                message: "value cut at Arthas's size limit; fields after it are missing".into(),
            }));
        }
        let mut flat = Flat::default();
        flatten(&metric, &display, node, &mut flat);
        let label = self.labels.label();
        if self.block.as_ref().is_some_and(|b| b.label != label)
            && let Some(b) = self.block.take()
        {
            self.out.push_back(Ok(b.finish()));
        }
        let block = self.block.get_or_insert_with(|| BlockBuilder {
            label,
            first_line: first,
            last_line: last,
            runs: Vec::new(),
            run: None,
        });
        block.add(first, last, flat);
        Ok(())
    }

    /// Handles one line outside any value.
    fn step(&mut self, t: &str, n: u64) -> Result<(), ParseError> {
        if let Some(c) = WATCH.captures(t) {
            // One `watch` result: its cost, then the rendered `result` value, as one run.
            let cost = java_number(&c[2]).map_err(|_| {
                ParseError::new(n, format!("watch cost `{}` is not a number", &c[2]))
            })?;
            let rest = c[3].trim().trim_end_matches(',').to_string();
            if let Some(start) = classify(&rest, n)? {
                // A watch result is a run of its own, never merged into an `ognl` value's.
                if let Some(b) = self.block.as_mut() {
                    b.close_run();
                }
                let (method, location) = self.watched.take().unzip();
                let method = method.or_else(|| self.watch_command.clone());
                let time = LOCAL_TIME
                    .captures(c[1].trim())
                    .map(|t| format!("{}T{}Z", &t[1], &t[2]));
                self.command = Some(("result".into(), "result".into(), n));
                self.value(start, n)?;
                if let Some(run) = self.block.as_mut().and_then(|b| b.run.as_mut()) {
                    run.flat.series.push(Series::value("cost", "ms", cost));
                    run.watch = Some(Watched {
                        method,
                        location,
                        time,
                    });
                }
                return Ok(());
            }
        }
        if let Some(c) = WATCH_METHOD.captures(t) {
            self.watched = Some((c[1].to_string(), c[2].to_string()));
            return Ok(());
        }
        if let Some(c) = WATCH_COMMAND.captures(t) {
            self.watch_command = watched_method(&c[1]);
        } else if ARTHAS_COMMAND.is_match(t) {
            self.watch_command = None;
        }
        if let Some(c) = COMMAND.captures(t) {
            let (m, d) = expression_name(expression(&c[1]));
            self.command = Some((m, d, n));
            return Ok(());
        }
        // A bare `null` is a value only right after a command.
        if t != "null" || self.command.is_some() {
            match classify(t, n) {
                Ok(Some(start)) => return self.value(start, n),
                Err(e) if self.command.is_some() => return Err(e),
                _ => {}
            }
        }
        if !t.is_empty() {
            self.command = None;
        }
        // Arthas's own status lines (`Press Q or Ctrl+C to abort.`, `Affect(class count: 1
        // , method count: 1) cost in 32 ms, …`) say how it ran, not what the user measured.
        if !(t.starts_with("Affect(") || t.starts_with("Press ") && t.contains("Ctrl+C")) {
            self.labels.observe(t);
        }
        Ok(())
    }
}

impl Iterator for Parser<'_> {
    type Item = Result<Parsed, ParseError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(item) = self.out.pop_front() {
                return Some(item);
            }
            if self.done {
                return None;
            }
            let res = match self.reader.next_line() {
                Ok(Some(l)) => {
                    let t = l.trim().to_string();
                    let n = self.reader.line_number();
                    self.step(&t, n)
                }
                Ok(None) => {
                    self.done = true;
                    if let Some(b) = self.block.take() {
                        self.out.push_back(Ok(b.finish()));
                    }
                    Ok(())
                }
                Err(e) => Err(e),
            };
            if let Err(e) = res {
                self.out.push_back(Err(e));
                self.done = true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{detect_file, fixture, parse_err, value, warnings};
    use crate::testutil::{parse_ok, shared};

    fn metrics(run: &Run) -> Vec<&str> {
        run.series.iter().map(|s| s.metric.as_str()).collect()
    }

    #[test]
    fn seed_004_before_and_after() {
        let Some(seeds) = shared("seeds") else {
            return;
        };
        let path = seeds.join("004_b9ec09d331214652.txt");
        assert_eq!(detect_file(&path), Some("arthas"));
        let blocks = parse_ok(&FORMAT, &std::fs::read(&path).unwrap());
        assert_eq!(blocks.len(), 2);
        let expected = [
            (
                "Before this changes",
                116413386.0,
                13108831.0,
                320.0,
                8.88053145242318,
            ),
            (
                "After these changes",
                31908309.0,
                13024907.0,
                412.0,
                2.4497916952497243,
            ),
        ];
        for (b, (label, time, count, max, avg)) in blocks.iter().zip(expected) {
            assert_eq!(b.label.as_deref(), Some(label));
            assert_eq!(b.runs.len(), 1, "{label}");
            let run = &b.runs[0];
            assert_eq!(
                metrics(run),
                [
                    "serverstats.time",
                    "serverstats.count",
                    "serverstats.maxlatency",
                    "latency_avg"
                ]
            );
            assert_eq!(value(run, "serverstats.time"), Some(Some(time)));
            assert_eq!(value(run, "serverstats.count"), Some(Some(count)));
            assert_eq!(value(run, "serverstats.maxlatency"), Some(Some(max)));
            let got = value(run, "latency_avg").unwrap().unwrap();
            assert!((got - avg).abs() < 1e-9, "{label}: {got}");
            assert_eq!(format!("{got:.2}"), format!("{avg:.2}"));
            let derived = run
                .series
                .iter()
                .find(|s| s.metric == "latency_avg")
                .unwrap();
            assert_eq!(derived.display, "latency_avg (time/count)");
            assert_eq!(derived.unit, "ms");
            assert!(run.series[..3].iter().all(|s| s.unit.is_empty()));
            assert_eq!(
                run.series[0].display,
                "@org.apache.zookeeper.server.ServerStats@time"
            );
            assert!(run.params.is_empty());
        }
        assert_eq!(format!("{:.2}", 8.88053145242318), "8.88");
        assert_eq!(format!("{:.2}", 2.4497916952497243), "2.45");
        // From the first command to the last `@Long[…]` of each session.
        assert_eq!((blocks[0].first_line, blocks[0].last_line), (55, 74));
        assert_eq!((blocks[1].first_line, blocks[1].last_line), (80, 99));
    }

    #[test]
    fn static_field_random_sample() {
        let Some(dir) = shared("samples/arthas") else {
            return;
        };
        let path = dir.join("ognl-static-field-random.txt");
        assert_eq!(detect_file(&path), Some("arthas"));
        let blocks = parse_ok(&FORMAT, &std::fs::read(&path).unwrap());
        assert_eq!(blocks.len(), 1);
        assert_eq!(blocks[0].label, None);
        assert_eq!(blocks[0].runs.len(), 1);
        let run = &blocks[0].runs[0];
        assert_eq!((run.first_line, run.last_line), (1, 17));
        assert_eq!(
            metrics(run),
            [
                "random.seed",
                "random.multiplier",
                "random.addend",
                "random.mask",
                "random.double_unit",
                "random.seeduniquifier",
                "random.nextnextgaussian",
                "random.seedoffset"
            ]
        );
        assert_eq!(value(run, "random.seed"), Some(Some(125451474443703.0)));
        assert_eq!(value(run, "random.multiplier"), Some(Some(25214903917.0)));
        assert_eq!(value(run, "random.addend"), Some(Some(11.0)));
        assert_eq!(value(run, "random.mask"), Some(Some(281474976710655.0)));
        assert_eq!(
            value(run, "random.double_unit"),
            Some(Some(1.1102230246251565e-16))
        );
        assert_eq!(
            value(run, "random.seeduniquifier"),
            Some(Some(-3282039941672302964.0))
        );
        assert_eq!(value(run, "random.nextnextgaussian"), Some(Some(0.0)));
        assert_eq!(value(run, "random.seedoffset"), Some(Some(24.0)));
        assert_eq!(run.series[0].display, "Random.seed");
        assert_eq!(run.params.len(), 4);
        assert_eq!(
            run.params.get("random.badbound"),
            Some(&Param::Text("bound must be positive".into()))
        );
        assert_eq!(
            run.params.get("random.havenextnextgaussian"),
            Some(&Param::Bool(false))
        );
    }

    #[test]
    fn samples_without_numbers_store_nothing() {
        let Some(dir) = shared("samples/arthas") else {
            return;
        };
        let list = dir.join("ognl-arraylist.txt");
        assert_eq!(detect_file(&list), Some("arthas"));
        let bytes = std::fs::read(&list).unwrap();
        assert!(parse_ok(&FORMAT, &bytes).is_empty());
        let w = warnings(&FORMAT, &bytes);
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].0, 1);
        assert!(w[0].1.contains("no numbers"), "{}", w[0].1);

        let null = dir.join("ognl-null.txt");
        assert_eq!(detect_file(&null), Some("arthas"));
        let bytes = std::fs::read(&null).unwrap();
        assert!((FORMAT.parse)(Box::new(&bytes[..])).next().is_none());
    }

    #[test]
    fn session_fixture_blocks_runs_and_nesting() {
        let blocks = parse_ok(&FORMAT, &fixture("arthas/serverstats-session.txt"));
        assert_eq!(blocks.len(), 2);
        let b = &blocks[0];
        assert_eq!(b.label.as_deref(), Some("Sampled twice under load"));
        // The repeated `time` starts a second sample of the same block.
        assert_eq!(b.runs.len(), 2);
        let (r1, r2) = (&b.runs[0], &b.runs[1]);
        assert_eq!((r1.index, r2.index), (1, 2));
        assert_eq!((r1.first_line, r1.last_line), (2, 13));
        assert_eq!((r2.first_line, r2.last_line), (14, 17));
        assert_eq!(value(r1, "serverstats.time"), Some(Some(5000.0)));
        assert_eq!(value(r1, "serverstats.count"), Some(Some(2000.0)));
        assert_eq!(value(r1, "serverstats.maxlatency"), Some(Some(97.0)));
        assert_eq!(value(r1, "latency_avg"), Some(Some(2.5)));
        assert_eq!(value(r2, "serverstats.time"), Some(Some(9000.0)));
        assert_eq!(value(r2, "latency_avg"), Some(Some(3.0)));
        assert_eq!(value(r2, "serverstats.maxlatency"), None);

        let b = &blocks[1];
        assert_eq!(b.label.as_deref(), Some("Connection pool"));
        assert_eq!(b.runs.len(), 1);
        // The trailing `null` value belongs to the session too.
        assert_eq!((b.first_line, b.last_line), (20, 37));
        let run = &b.runs[0];
        assert_eq!(
            metrics(run),
            [
                "pool.instance.ratio",
                "pool.instance.sizes.0",
                "pool.instance.sizes.1",
                "pool.instance.limits.max"
            ]
        );
        assert_eq!(value(run, "pool.instance.ratio"), Some(Some(1.0e-4)));
        assert_eq!(value(run, "pool.instance.sizes.1"), Some(Some(16.0)));
        assert_eq!(value(run, "pool.instance.limits.max"), Some(Some(64.0)));
        assert_eq!(
            run.params.get("pool.instance.name"),
            Some(&Param::Text("main".into()))
        );
        assert_eq!(
            run.params.get("pool.instance.enabled"),
            Some(&Param::Bool(true))
        );
        assert_eq!(run.params.len(), 2);
    }

    #[test]
    fn atomiclong_cut_off_is_an_error_at_its_line() {
        let e = parse_err(&FORMAT, &fixture("malformed/arthas-atomiclong-cut.txt"));
        assert_eq!(e.line, 7);
        assert!(
            e.message.contains("`@AtomicLong[` opened at line 3"),
            "{}",
            e.message
        );
        let e = parse_err(
            &FORMAT,
            b"[arthas@1]$ ognl '@a.B@c'\n@AtomicLong[\n    value=@Long[5],\n",
        );
        assert_eq!(e.line, 3);
        assert!(
            e.message.contains("closing `]` is missing"),
            "{}",
            e.message
        );
    }

    #[test]
    fn bad_number_is_an_error() {
        let e = parse_err(&FORMAT, b"[arthas@1]$ ognl '@a.B@c'\n@Long[12x]\n");
        assert_eq!(e.line, 2);
        assert!(e.message.contains("`12x` is not a number"), "{}", e.message);
        let e = parse_err(
            &FORMAT,
            b"[arthas@1]$ ognl -x 2 '@a.B@c'\n@B[\n    n=@Integer[--]\n]\n",
        );
        assert_eq!(e.line, 3);
    }

    #[test]
    fn size_limit_keeps_what_was_printed() {
        let input = b"[arthas@1]$ ognl -x 2 '@a.Pool@p'\n@Pool[\n    size=@Integer[4],\n    ...\n";
        let blocks = parse_ok(&FORMAT, input);
        assert_eq!(value(&blocks[0].runs[0], "pool.p.size"), Some(Some(4.0)));
        let w = warnings(&FORMAT, input);
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].0, 4);
    }

    #[test]
    fn watch_results_name_their_method_location_and_time() {
        let bytes = fixture("real/arthas/arthas-site-docs-en-watch.md.txt");
        let blocks = parse_ok(&FORMAT, &bytes);
        let runs: Vec<&Run> = blocks.iter().flat_map(|b| &b.runs).collect();
        let first = runs
            .iter()
            .find(|r| value(r, "cost") == Some(Some(0.220625)))
            .expect("the first watch result");
        assert_eq!(first.bench.as_deref(), Some("demo.MathGame.primeFactors"));
        assert_eq!(first.params["location"], Param::from("AtExceptionExit"));
        assert!(first.config.contains("location"));
        assert_eq!(first.tags["time"], "2021-08-31T15:22:57Z");
        let second = runs
            .iter()
            .find(|r| value(r, "cost") == Some(Some(1.020982)))
            .expect("the second watch result");
        assert_eq!(second.params["location"], Param::from("AtExit"));
        assert_eq!(second.tags["time"], "2021-08-31T15:22:58Z");
        // Results printed without a `method=` line take the `watch` command's method.
        let benches: std::collections::BTreeSet<_> =
            runs.iter().map(|r| r.bench.as_deref()).collect();
        assert_eq!(
            benches.into_iter().collect::<Vec<_>>(),
            [
                Some("demo.MathGame.*"),
                Some("demo.MathGame.primeFactors"),
                Some("demo.MathGame.print")
            ]
        );
        assert!(
            blocks
                .iter()
                .all(|b| !b.label.as_deref().is_some_and(|l| l.starts_with("Affect(")))
        );
    }

    #[test]
    fn fixtures_snapshot() {
        insta::glob!("../../../fixtures/arthas", "*.*", |path| {
            let blocks = parse_ok(&FORMAT, &std::fs::read(path).unwrap());
            insta::assert_json_snapshot!(blocks);
        });
    }

    #[test]
    fn expression_names() {
        assert_eq!(
            expression_name("@org.apache.zookeeper.server.ServerStats@maxLatency").0,
            "serverstats.maxlatency"
        );
        assert_eq!(expression_name("@a.Outer$Inner@FIELD").0, "inner.field");
        assert_eq!(
            expression_name("@java.lang.System@getProperty(\"java.home\")").0,
            "java_lang_system_getproperty_java_home"
        );
        assert_eq!(expression("-x 2 '@a.B@c'"), "@a.B@c");
        assert_eq!(expression("\"@a.B@c\""), "@a.B@c");
        assert_eq!(expression("-x 2 @a.B@c"), "@a.B@c");
    }

    #[test]
    fn deep_nesting_and_junk_never_panic() {
        let deep = "@A[\n".repeat(10_000);
        let e = parse_err(&FORMAT, deep.as_bytes());
        assert_eq!(e.line, MAX_DEPTH as u64 + 1);
        assert!(parse_ok(&FORMAT, b"").is_empty());
        let junk: Vec<u8> = (0..20_000u32).map(|i| (i * 7919 % 251) as u8).collect();
        let _ = (FORMAT.parse)(Box::new(&junk[..])).count();
    }

    #[test]
    fn sniffer_confidence() {
        let head = |file_name, text| Head {
            file_name,
            text,
            complete: true,
        };
        assert_eq!(
            sniff(&head("", "x\n[arthas@9]$ ognl '@a.B@c'\n@Long[1]\n")),
            95
        );
        assert_eq!(sniff(&head("", "@Random[\n    seed=@Long[1],\n]\n")), 70);
        assert_eq!(sniff(&head("", "text\n@Long[5]\n")), 50);
        assert_eq!(sniff(&head("ognl-out.txt", "null\n")), 30);
        assert_eq!(sniff(&head("out.txt", "null\n")), 0);
        assert_eq!(sniff(&head("", "the @Long[5] rendering\n")), 0);
    }
}
