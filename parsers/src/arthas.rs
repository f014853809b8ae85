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
//! Blocks and runs: values read one after the other form one run of one block; a lead
//! line (see [`LabelTracker`]) between commands starts a new block labelled by it, and a
//! value whose name is already in the run starts a new run (a second sample) in the same
//! block. Prose, fences and other commands' output are ignored. A value cut off before its
//! closing `]`, or a number that does not parse, is an error naming the line; Arthas's own
//! size-limit truncation (`...`) keeps what was printed, with a warning.
//! Fixture: `fixtures/arthas/serverstats-session.txt` (seed 004 has the same shape).

use crate::error::ParseError;
use crate::model::{Block, Data, Param, Parsed, Run, Series};
use crate::registry::{Format, Head, ParseIter};
use crate::text::{LabelTracker, LineReader, metric_name};
use crate::zookeeper::java_number;
use regex::Regex;
use std::collections::{BTreeMap, VecDeque};
use std::io::BufRead;
use std::sync::LazyLock;

/// The `arthas` format.
pub const FORMAT: Format = Format {
    name: "arthas",
    version: "1",
    sniff,
    parse,
};

/// The console prompt (optional) and an `ognl` command; group 1 = its arguments.
static COMMAND: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(?:\[arthas@\d+\]\$\s*)?ognl\s+(.+)$").expect("valid regex"));

/// The start of a rendering: `@Type[` (array types end in `[]`); group 2 = the rest.
static RENDERING: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^@([A-Za-z_$][\w$.]*(?:\[\])*)\[(.*)$").expect("valid regex"));

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
        if ["@Long[", "@AtomicLong[", "@Integer[", "@Double["]
            .iter()
            .any(|p| t.starts_with(p))
        {
            leaf_line = true;
        }
    }
    let first = first.unwrap_or("");
    let name = head.file_name.to_ascii_lowercase();
    if prompt {
        95
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
        // The number the next line will have (the reader counts from 1).
        let n = reader.line_number() + 1;
        let Some(l) = reader.next_line()? else {
            return Err(ParseError::new(
                n - 1,
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
        match classify(rendering, n)?.ok_or_else(not_closed)? {
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
        Some(Run {
            index,
            first_line: self.first_line,
            last_line: self.last_line,
            params: self.flat.params,
            series: self.flat.series,
            ..Default::default()
        })
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
        self.labels.observe(t);
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
