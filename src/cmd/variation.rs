//! `bench-db variation`.

use crate::cli::VariationArgs;
use std::path::Path;

pub fn run(_db: &Path, _args: &VariationArgs) -> anyhow::Result<u8> {
    anyhow::bail!("'variation' is not available in this build")
}
