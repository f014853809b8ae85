//! `bench-db compare`.

use crate::cli::CompareArgs;
use std::path::Path;

pub fn run(_db: &Path, _args: &CompareArgs) -> anyhow::Result<u8> {
    anyhow::bail!("'compare' is not available in this build")
}
