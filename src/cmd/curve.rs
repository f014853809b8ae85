//! `bench-db curve`: throughput versus latency of the selected runs.

use crate::analysis::curve::curve;
use crate::cli::CurveArgs;
use crate::output;
use crate::selector::Selector;
use crate::store::Db;
use crate::store::url::Target;
use anyhow::{Context, Result};
use std::io::Write;

pub fn run(db: &Target, args: &CurveArgs) -> Result<u8> {
    let store = Db::open_read(db)?;
    let runs = store
        .select(&Selector::parse_opt(args.selector.as_deref())?)
        .context("selecting runs")?;
    let c = curve(
        &runs,
        args.metric.as_deref(),
        &args.percentiles,
        args.slo.as_deref(),
    )?;
    let text = if args.json {
        output::curve::json(&c)
    } else {
        output::curve::text(&c)
    };
    std::io::stdout().write_all(text.as_bytes())?;
    Ok(crate::exit::OK)
}
