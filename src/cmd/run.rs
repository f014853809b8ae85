//! `bench-db run loopback|threads`: run a built-in benchmark, print its report (JLBH
//! layout or a table; JSON with `--json`), write the optional interval log, and store the
//! runs like any ingested source. Measuring and rendering live in `crate::runner`.

use crate::cli::{self, LoopbackArgs, ThreadsArgs};
use crate::exit;
use crate::runner::{hlog, loopback, render, threads};
use crate::store::url::Target;
use crate::store::{Db, Generated};
use anyhow::Context;
use bench_db_parsers::Block;
use std::collections::BTreeMap;
use std::io::Write;

/// Runs the loopback benchmark.
pub fn loopback(db: &Target, args: &LoopbackArgs) -> anyhow::Result<u8> {
    let throughputs = if args.sweep.is_empty() {
        vec![args.throughput]
    } else {
        args.sweep.clone()
    };
    let cfg = loopback::LoopbackConfig {
        throughputs,
        iterations: args.iterations,
        warmup: args.warmup.unwrap_or(args.iterations),
        runs: args.runs,
        msg_size: args.msg_size,
        mode: match args.mode {
            cli::Mode::Block => loopback::Mode::Block,
            cli::Mode::Spin => loopback::Mode::Spin,
        },
        pin_client: args.pin_client,
        pin_server: args.pin_server,
        label: args.label.clone(),
        os_jitter: match args.os_jitter {
            cli::Switch::Auto => loopback::Switch::Auto,
            cli::Switch::On => loopback::Switch::On,
            cli::Switch::Off => loopback::Switch::Off,
        },
        progress: true,
    };
    let sets = loopback::run(&cfg)?;
    let mut rendered = render::render(&sets);
    let tags: BTreeMap<String, String> =
        crate::metadata::run_tags(&args.tags, None, args.no_git, None);
    tag_runs(&mut rendered.blocks, &tags);
    for set in &sets {
        for run in &set.runs {
            for w in &run.warnings {
                eprintln!(
                    "bench-db: warning: {} run {}: {}",
                    crate::output::escape::text(&set.label),
                    run.index,
                    crate::output::escape::message(w)
                );
            }
        }
    }
    if let Some(path) = &args.hlog {
        let bytes = hlog::interval_log(&sets)?;
        std::fs::write(path, bytes).with_context(|| format!("cannot write {}", path.display()))?;
    }
    print(|out| {
        if args.output.json() {
            serde_json::to_writer_pretty(&mut *out, &rendered.json)?;
            writeln!(out)
        } else {
            out.write_all(rendered.text.as_bytes())
        }
    })?;
    if !args.no_store {
        let ids = store(
            db,
            "run loopback",
            "loopback",
            &rendered.text,
            &rendered.blocks,
            args.label.as_deref(),
            &tags,
        )?;
        eprintln!("stored {} in {db}", crate::numfmt::plural(ids.len(), "run"));
    }
    Ok(exit::OK)
}

/// Runs the thread-count sweep.
pub fn threads(db: &Target, args: &ThreadsArgs) -> anyhow::Result<u8> {
    let cfg = threads::ThreadsConfig {
        threads: args.threads.clone(),
        cpu_time: args.cpu_time,
        io_wait: args.io_wait,
        duration: args.duration,
        progress: true,
    };
    let points = threads::run(&cfg)?;
    let cores = crate::runner::net::cpu_count();
    let label = args
        .label
        .clone()
        .unwrap_or_else(|| threads::default_label(&cfg));
    let mut block = threads::to_block(&cfg, &points, &label, cores);
    let text = threads::render(&cfg, &points, &mut block, cores);
    let tags: BTreeMap<String, String> =
        crate::metadata::run_tags(&args.tags, None, args.no_git, None);
    let mut blocks = vec![block];
    tag_runs(&mut blocks, &tags);
    print(|out| {
        if args.output.json() {
            serde_json::to_writer_pretty(&mut *out, &blocks[0])?;
            writeln!(out)
        } else {
            out.write_all(text.as_bytes())
        }
    })?;
    if !args.no_store {
        let ids = store(
            db,
            "run threads",
            "threads",
            &text,
            &blocks,
            args.label.as_deref(),
            &tags,
        )?;
        eprintln!("stored {} in {db}", crate::numfmt::plural(ids.len(), "run"));
    }
    Ok(exit::OK)
}

/// Prints what `write` writes. A closed standard output is the reader's choice, not an
/// error: the results are stored whether or not anybody reads them.
fn print(write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    match write(&mut out).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        done => done,
    }
}

/// `--tag` on every run.
fn tag_runs(blocks: &mut [Block], tags: &BTreeMap<String, String>) {
    for run in blocks.iter_mut().flat_map(|b| b.runs.iter_mut()) {
        run.tags
            .extend(tags.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
}

/// Stores the generated blocks as one source; returns the run ids.
fn store(
    db: &Target,
    origin: &str,
    format: &str,
    text: &str,
    blocks: &[Block],
    label: Option<&str>,
    tags: &BTreeMap<String, String>,
) -> anyhow::Result<Vec<i64>> {
    let mut store = Db::open(db)?;
    store.insert_generated(&Generated {
        origin,
        format,
        text,
        blocks,
        suite: format,
        label_override: label,
        tags,
    })
}
