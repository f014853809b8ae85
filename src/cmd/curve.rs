//! `bench-db curve`.

use crate::cli::CurveArgs;
use std::path::Path;

pub fn run(_db: &Path, _args: &CurveArgs) -> anyhow::Result<u8> {
    anyhow::bail!("'curve' is not available in this build")
}
