//! `bench-db runs`.

use crate::cli::RunsArgs;
use std::path::Path;

pub fn run(_db: &Path, _args: &RunsArgs) -> anyhow::Result<u8> {
    anyhow::bail!("'runs' is not available in this build")
}
