//! `bench-db gate`.

use crate::cli::GateArgs;
use std::path::Path;

pub fn run(_db: &Path, _args: &GateArgs) -> anyhow::Result<u8> {
    anyhow::bail!("'gate' is not available in this build")
}
