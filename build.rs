//! Puts the git commit the binary is built from into `BENCH_DB_COMMIT` for `--version`
//! (`unknown` outside a git checkout, e.g. from a source tarball).

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    // No optional locks: `git status` must not rewrite the index it is watched by, or
    // every build would trigger the next one.
    let out = Command::new("git")
        .arg("--no-optional-locks")
        .args(args)
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
        .filter(|s| !s.is_empty())
}

fn main() {
    let commit = git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".into());
    let dirty = git(&["status", "--porcelain", "--untracked-files=no"]).is_some();
    let suffix = if dirty && commit != "unknown" {
        "-dirty"
    } else {
        ""
    };
    println!("cargo:rustc-env=BENCH_DB_COMMIT={commit}{suffix}");
    // Rebuild when HEAD moves (a commit, a checkout); worktrees keep HEAD elsewhere.
    if let Some(head) = git(&["rev-parse", "--git-path", "HEAD"]) {
        println!("cargo:rerun-if-changed={head}");
    }
    if let Some(refs) = git(&["rev-parse", "--git-path", "refs/heads"]) {
        println!("cargo:rerun-if-changed={refs}");
    }
    if let Some(index) = git(&["rev-parse", "--git-path", "index"]) {
        println!("cargo:rerun-if-changed={index}");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
