//! Helpers shared by the benches that run the release `bench-db` binary: wall time and
//! peak RSS of a child process (from `wait4`), and the bytes a folder holds.

#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

/// Wall seconds and peak RSS (MB) of a command whose stdout goes to `out`; it must exit 0.
pub fn measure(cmd: &mut Command, out: &Path) -> anyhow::Result<(f64, f64)> {
    measure_exit(cmd, out, &[0])
}

/// [`measure`] for a command that may exit with any of `codes` (a gate's verdicts).
pub fn measure_exit(cmd: &mut Command, out: &Path, codes: &[i32]) -> anyhow::Result<(f64, f64)> {
    measure_cpu(cmd, out, codes).map(|m| (m.secs, m.mb))
}

/// What one command cost.
#[derive(Debug, Clone, Copy)]
pub struct Cost {
    /// Wall seconds.
    pub secs: f64,
    /// User + system CPU seconds: steadier than wall time on a shared machine.
    pub cpu: f64,
    /// Peak RSS, MB.
    pub mb: f64,
}

/// [`measure_exit`] with the child's CPU time.
pub fn measure_cpu(cmd: &mut Command, out: &Path, codes: &[i32]) -> anyhow::Result<Cost> {
    let started = Instant::now();
    let child = cmd
        .stdout(std::fs::File::create(out)?)
        .stderr(Stdio::inherit())
        .spawn()?;
    let mut status = 0;
    // SAFETY: rusage is plain data; wait4 fills it for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = child.id() as libc::pid_t;
    // SAFETY: waiting for the child we spawned, with valid out-pointers.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    anyhow::ensure!(r == pid, "wait4 failed");
    let secs = started.elapsed().as_secs_f64();
    anyhow::ensure!(
        libc::WIFEXITED(status) && codes.contains(&libc::WEXITSTATUS(status)),
        "{cmd:?} failed ({status})"
    );
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    Ok(Cost {
        secs,
        cpu: tv(usage.ru_utime) + tv(usage.ru_stime),
        mb: usage.ru_maxrss as f64 / 1024.0,
    })
}

/// The bytes of every file under `dir`.
pub fn dir_bytes(dir: &Path) -> u64 {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter_map(|e| e.metadata().ok())
        .filter(|m| m.is_file())
        .map(|m| m.len())
        .sum()
}
