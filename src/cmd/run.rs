//! `bench-db run loopback|threads`.

use crate::cli::{LoopbackArgs, ThreadsArgs};
use std::path::Path;

pub fn loopback(_db: &Path, _args: &LoopbackArgs) -> anyhow::Result<u8> {
    anyhow::bail!("'run loopback' is not available in this build")
}

pub fn threads(_db: &Path, _args: &ThreadsArgs) -> anyhow::Result<u8> {
    anyhow::bail!("'run threads' is not available in this build")
}
