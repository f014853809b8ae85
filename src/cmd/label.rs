//! `bench-db label`.

use crate::cli::LabelArgs;
use std::path::Path;

pub fn run(_db: &Path, _args: &LabelArgs) -> anyhow::Result<u8> {
    anyhow::bail!("'label' is not available in this build")
}
