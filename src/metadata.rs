//! Run metadata captured without asking: `commit`, `branch`, `time` (RFC 3339, UTC),
//! `host` and `dirty`, stored as run tags.
//!
//! Sources, per key, first wins: explicit `--tag KEY=…` (and `--time`); CI variables
//! (GitHub Actions, GitLab, Buildkite, Jenkins); `git` in the current directory. `time`
//! falls back to the commit's time, then the file's modification time, then now, so a
//! backfilled folder of old logs orders sensibly. `--no-git` turns off the CI and git
//! sources. This module runs `git` (read-only) and reads the environment; it does not
//! touch the store.

use chrono::{DateTime, SecondsFormat, Utc};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::SystemTime;

/// What the CI variables or git say about the checkout being measured.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Detected {
    pub commit: Option<String>,
    pub branch: Option<String>,
}

/// What `git` says about the current directory's HEAD.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GitHead {
    pub commit: String,
    /// `None` on a detached HEAD.
    pub branch: Option<String>,
    /// Committer time, RFC 3339 UTC.
    pub time: Option<String>,
    /// Tracked files differ from HEAD.
    pub dirty: bool,
}

/// Parses an RFC 3339 time and returns it in UTC (`2024-05-01T12:00:00Z`); a clap
/// value parser for `--time`.
pub fn parse_time(s: &str) -> Result<String, String> {
    DateTime::parse_from_rfc3339(s.trim())
        .map(|t| utc(t.with_timezone(&Utc)))
        .map_err(|e| {
            format!("expected an RFC 3339 time like 2024-05-01T12:00:00Z, got {s:?} ({e})")
        })
}

fn utc(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// The commit and branch the CI variables name, if any (`get` reads a variable).
pub fn from_ci(get: &dyn Fn(&str) -> Option<String>) -> Detected {
    let var = |k: &str| get(k).filter(|v| !v.trim().is_empty());
    // GitHub Actions: GITHUB_HEAD_REF is the pull request's branch (empty on pushes).
    if let Some(commit) = var("GITHUB_SHA") {
        return Detected {
            commit: Some(commit),
            branch: var("GITHUB_HEAD_REF").or_else(|| var("GITHUB_REF_NAME")),
        };
    }
    if let Some(commit) = var("CI_COMMIT_SHA") {
        return Detected {
            commit: Some(commit),
            branch: var("CI_COMMIT_REF_NAME"),
        };
    }
    if let Some(commit) = var("BUILDKITE_COMMIT") {
        return Detected {
            commit: Some(commit),
            branch: var("BUILDKITE_BRANCH"),
        };
    }
    if let Some(commit) = var("GIT_COMMIT") {
        // Jenkins names remote branches `origin/main`.
        let branch = var("GIT_BRANCH").map(|b| b.strip_prefix("origin/").unwrap_or(&b).to_string());
        return Detected {
            commit: Some(commit),
            branch,
        };
    }
    Detected::default()
}

/// Starts `git ARGS` in the current directory.
fn start_git(args: &[&str]) -> Option<Child> {
    Command::new("git")
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()
}

/// The trimmed stdout of a started `git`, when it succeeds.
fn git_output(child: Option<Child>) -> Option<String> {
    let out = child?.wait_with_output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Runs `git ARGS` in the current directory; its trimmed stdout when it succeeds.
fn git(args: &[&str]) -> Option<String> {
    git_output(start_git(args))
}

/// HEAD of the git repository around the current directory, if there is one. The three
/// questions go to three `git` processes at once (one after another they were a third
/// of the ingest of a small file); the commit and its time come from one of them, so
/// they agree even when HEAD moves meanwhile.
pub fn git_head() -> Option<GitHead> {
    let head = start_git(&[
        "log",
        "-1",
        "--no-show-signature",
        "--format=%H%n%cI",
        "HEAD",
        "--",
    ]);
    let branch = start_git(&["rev-parse", "--abbrev-ref", "HEAD"]);
    let status = start_git(&["status", "--porcelain", "--untracked-files=no"]);
    let head = git_output(head);
    let branch = git_output(branch).filter(|b| b != "HEAD" && !b.is_empty());
    let dirty = git_output(status).is_some_and(|s| !s.is_empty());
    let head = head?;
    let mut lines = head.lines();
    let commit = lines.next().filter(|c| !c.is_empty())?.to_string();
    let time = lines.next().and_then(|t| parse_time(t).ok());
    Some(GitHead {
        commit,
        branch,
        time,
        dirty,
    })
}

/// The committer time of a commit the local repository knows.
fn commit_time(commit: &str) -> Option<String> {
    git(&["show", "-s", "--format=%cI", commit, "--"]).and_then(|t| parse_time(&t).ok())
}

/// The host name (`gethostname`).
pub fn host() -> Option<String> {
    let mut buf = [0u8; 256];
    // SAFETY: the buffer is valid for its length; gethostname NUL-terminates on success
    // (and we stop at the first NUL or the buffer's end either way).
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    if rc != 0 {
        return None;
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    let name = String::from_utf8_lossy(&buf[..end]).trim().to_string();
    (!name.is_empty()).then_some(name)
}

/// Everything known before looking at a file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sources {
    /// From `--tag` (and `--time` as `time`).
    pub explicit: BTreeMap<String, String>,
    pub ci: Detected,
    pub git: Option<GitHead>,
    pub host: Option<String>,
    /// Committer time of an explicit or CI commit that git does not have at HEAD.
    pub other_commit_time: Option<String>,
}

impl Sources {
    /// The tags for one run (or file): explicit > CI > git per key; `time` falls back to
    /// the commit time, then `mtime`, then `now`.
    pub fn tags(&self, mtime: Option<SystemTime>, now: SystemTime) -> BTreeMap<String, String> {
        let mut tags = self.explicit.clone();
        let git = self.git.as_ref();
        let commit = tags
            .get("commit")
            .cloned()
            .or_else(|| self.ci.commit.clone())
            .or_else(|| git.map(|g| g.commit.clone()));
        // Git's branch, time and dirty state describe the commit only when it is HEAD.
        let head = git.filter(|g| commit.as_deref() == Some(g.commit.as_str()));
        let branch = self
            .ci
            .branch
            .clone()
            .or_else(|| head.and_then(|g| g.branch.clone()));
        if let Some(c) = commit {
            tags.entry("commit".into()).or_insert(c);
        }
        if let Some(b) = branch {
            tags.entry("branch".into()).or_insert(b);
        }
        if let Some(g) = head {
            tags.entry("dirty".into()).or_insert(g.dirty.to_string());
        }
        if let Some(h) = &self.host {
            tags.entry("host".into()).or_insert(h.clone());
        }
        if !tags.contains_key("time") {
            let time = head
                .and_then(|g| g.time.clone())
                .or_else(|| self.other_commit_time.clone())
                .unwrap_or_else(|| utc(DateTime::<Utc>::from(mtime.unwrap_or(now))));
            tags.insert("time".into(), time);
        }
        tags
    }
}

/// Asks CI variables and git on another thread, so that `git` runs while the caller
/// opens its store; the first reader of [`sources`] then waits for the answer, if
/// still needed.
pub fn detect_beside() {
    std::thread::spawn(detected);
}

/// CI variables and git HEAD, asked once per process (git is not run once per file).
fn detected() -> &'static (Detected, Option<GitHead>, Option<String>) {
    static DETECTED: OnceLock<(Detected, Option<GitHead>, Option<String>)> = OnceLock::new();
    DETECTED.get_or_init(|| (from_ci(&|k| std::env::var(k).ok()), git_head(), host()))
}

/// Committer times of commits other than HEAD, looked up once each.
fn commit_time_cached(commit: &str) -> Option<String> {
    static TIMES: OnceLock<Mutex<HashMap<String, Option<String>>>> = OnceLock::new();
    let times = TIMES.get_or_init(Default::default);
    if let Some(t) = times.lock().ok().and_then(|m| m.get(commit).cloned()) {
        return t;
    }
    let t = commit_time(commit);
    if let Ok(mut m) = times.lock() {
        m.insert(commit.to_string(), t.clone());
    }
    t
}

/// The sources for these explicit tags and `--time`; `no_git` leaves out CI and git.
pub fn sources(explicit: &[(String, String)], time: Option<&str>, no_git: bool) -> Sources {
    let mut map: BTreeMap<String, String> = explicit.iter().cloned().collect();
    if let Some(t) = time {
        map.insert("time".into(), t.to_string());
    }
    if let Some(t) = map.get("time").and_then(|t| parse_time(t).ok()) {
        map.insert("time".into(), t);
    }
    if no_git {
        return Sources {
            explicit: map,
            host: host(),
            ..Sources::default()
        };
    }
    let (ci, git, host) = detected().clone();
    let commit = map.get("commit").cloned().or_else(|| ci.commit.clone());
    let other_commit_time = match (&commit, &git) {
        (Some(c), Some(g)) if *c != g.commit && !map.contains_key("time") => commit_time_cached(c),
        _ => None,
    };
    Sources {
        explicit: map,
        ci,
        git,
        host,
        other_commit_time,
    }
}

/// The metadata tags of a run read from `file` (or produced now, `None`).
pub fn run_tags(
    explicit: &[(String, String)],
    time: Option<&str>,
    no_git: bool,
    file: Option<&Path>,
) -> BTreeMap<String, String> {
    let mtime = file
        .and_then(|f| f.metadata().ok())
        .and_then(|m| m.modified().ok());
    sources(explicit, time, no_git).tags(mtime, SystemTime::now())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let m: BTreeMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| m.get(k).cloned()
    }

    fn head() -> GitHead {
        GitHead {
            commit: "aaa".into(),
            branch: Some("feature".into()),
            time: Some("2024-01-02T03:04:05Z".into()),
            dirty: true,
        }
    }

    #[test]
    fn ci_variables_per_provider() {
        let gh = from_ci(&env(&[
            ("GITHUB_SHA", "abc"),
            ("GITHUB_REF_NAME", "12/merge"),
            ("GITHUB_HEAD_REF", "fix-x"),
        ]));
        assert_eq!(gh.commit.as_deref(), Some("abc"));
        assert_eq!(gh.branch.as_deref(), Some("fix-x"));
        let push = from_ci(&env(&[
            ("GITHUB_SHA", "abc"),
            ("GITHUB_REF_NAME", "main"),
            ("GITHUB_HEAD_REF", ""),
        ]));
        assert_eq!(push.branch.as_deref(), Some("main"));
        let gl = from_ci(&env(&[
            ("CI_COMMIT_SHA", "def"),
            ("CI_COMMIT_REF_NAME", "dev"),
        ]));
        assert_eq!(
            (gl.commit.as_deref(), gl.branch.as_deref()),
            (Some("def"), Some("dev"))
        );
        let jenkins = from_ci(&env(&[
            ("GIT_COMMIT", "123"),
            ("GIT_BRANCH", "origin/main"),
        ]));
        assert_eq!(jenkins.branch.as_deref(), Some("main"));
        assert_eq!(from_ci(&env(&[])), Detected::default());
    }

    #[test]
    fn explicit_beats_ci_beats_git() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        let git_only = Sources {
            git: Some(head()),
            host: Some("h1".into()),
            ..Sources::default()
        };
        let t = git_only.tags(None, now);
        assert_eq!(t["commit"], "aaa");
        assert_eq!(t["branch"], "feature");
        assert_eq!(t["dirty"], "true");
        assert_eq!(t["time"], "2024-01-02T03:04:05Z");
        assert_eq!(t["host"], "h1");

        let ci = Sources {
            ci: Detected {
                commit: Some("bbb".into()),
                branch: Some("main".into()),
            },
            git: Some(head()),
            ..Sources::default()
        };
        let t = ci.tags(None, now);
        assert_eq!(
            (t["commit"].as_str(), t["branch"].as_str()),
            ("bbb", "main")
        );
        // HEAD is another commit: its dirty state and time say nothing about bbb.
        assert!(!t.contains_key("dirty"));
        assert_eq!(t["time"], "2023-11-14T22:13:20Z");

        let explicit = Sources {
            explicit: [("commit".to_string(), "ccc".to_string())].into(),
            ..ci.clone()
        };
        let t = explicit.tags(None, now);
        assert_eq!(
            (t["commit"].as_str(), t["branch"].as_str()),
            ("ccc", "main")
        );
    }

    #[test]
    fn time_falls_back_to_the_file_then_now() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        let mtime = SystemTime::UNIX_EPOCH + Duration::from_secs(1_600_000_000);
        let s = Sources::default();
        assert_eq!(s.tags(Some(mtime), now)["time"], "2020-09-13T12:26:40Z");
        assert_eq!(s.tags(None, now)["time"], "2023-11-14T22:13:20Z");
    }

    #[test]
    fn times_are_normalised_to_utc() {
        assert_eq!(
            parse_time("2024-05-01T14:00:00+02:00").unwrap(),
            "2024-05-01T12:00:00Z"
        );
        assert!(parse_time("yesterday").is_err());
    }
}
