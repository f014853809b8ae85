//! `bench-db ingest`.

use crate::cli::IngestArgs;
use std::path::Path;

pub fn run(_db: &Path, _args: &IngestArgs) -> anyhow::Result<u8> {
    anyhow::bail!("'ingest' is not available in this build")
}
