//! `bench-db export`.

use crate::cli::ExportArgs;
use std::path::Path;

pub fn run(_db: &Path, _args: &ExportArgs) -> anyhow::Result<u8> {
    anyhow::bail!("'export' is not available in this build")
}
