//! `bench-db report`.

use crate::cli::ReportArgs;
use std::path::Path;

pub fn run(_db: &Path, _args: &ReportArgs) -> anyhow::Result<u8> {
    anyhow::bail!("'report' is not available in this build")
}
