//! One line for a database that cannot be opened or written, saying what is wrong and
//! what to do, in place of the engine's words (`attempt to write a readonly database:
//! Error code 1544` blames the file when the folder is read-only). It looks at the error
//! and at the files beside the database; it opens nothing and changes nothing.
//!
//! [`sqlite`] explains a SQLite failure: a folder SQLite cannot create its `-wal` or
//! `-journal` in, a read-only file or mount, a `-shm`/`-wal` another user left behind, a
//! corrupt file. [`not_a_folder`] refuses a folder given as the database. [`connection_lost`] tells a PostgreSQL server that went away from an
//! error about one file, so that an ingest stops at the first one.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// What stands in the way of writing, as found beside the database.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Obstacle {
    /// The file system holding the database is mounted read-only.
    ReadOnlyMount,
    /// The folder cannot be written: SQLite cannot create `-wal`/`-journal` in it.
    ReadOnlyFolder(PathBuf),
    /// The database file itself cannot be written.
    ReadOnlyFile,
    /// A `-shm` or `-wal` file beside the database cannot be written (another user's
    /// read left it); `remove` are those safe to remove when no process uses the database
    /// (the `-shm`, and the `-wal` when it is empty).
    StaleCompanion {
        file: PathBuf,
        owner: Option<u32>,
        remove: Vec<PathBuf>,
    },
    /// The folder does not exist.
    NoFolder(PathBuf),
}

/// What an error says, reduced to what the explanation needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// SQLITE_READONLY or SQLITE_CANTOPEN (any extended code), or an IO error.
    CannotWrite,
    /// SQLITE_CORRUPT, SQLITE_NOTADB, or text in the schema that does not decode.
    Corrupt,
    /// SQLITE_FULL, or SQLITE_IOERR (a write the file system refused: a full disk, a
    /// file-size limit, a failing device).
    Full,
    /// Anything else: left as the engine said it.
    Other,
}

/// A failure [`sqlite`] explained: its one line, and what kind of failure it is (so that
/// `check` can tell a file too damaged to open, which it cannot check either).
#[derive(Debug)]
pub struct Explained {
    pub failure: Failure,
    pub line: String,
}

impl std::fmt::Display for Explained {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.line)
    }
}

impl std::error::Error for Explained {}

/// `e` (from opening or writing the SQLite database at `path`) as one line saying what
/// is wrong and what to do ([`Explained`]), when the error and the files beside the
/// database tell; else `e` unchanged.
pub fn sqlite(path: &Path, e: anyhow::Error) -> anyhow::Error {
    let failure = classify(&e);
    let obstacle = match failure {
        Failure::CannotWrite => obstacle(path),
        _ => None,
    };
    match explain(path, failure, obstacle.as_ref(), &engine_words(&e)) {
        Some(line) => anyhow::Error::new(Explained { failure, line }),
        None => e,
    }
}

/// Refuses a `--db` path that is a folder: SQLite would fail on it with a disk I/O error
/// or "unable to open database file", which blame the disk or the permissions.
pub fn not_a_folder(path: &Path) -> anyhow::Result<()> {
    if path.is_dir() {
        anyhow::bail!(
            "{} is a folder, not a database file: give --db the path of a file (bench-db \
             creates it on the first ingest), such as {}",
            path.display(),
            path.join("bench.db").display()
        );
    }
    Ok(())
}

/// The engine's own words for `e`: its deepest cause (rusqlite repeats the message in
/// its chain).
fn engine_words(e: &anyhow::Error) -> String {
    e.root_cause().to_string()
}

/// Which kind of failure `e` is, from the SQLite codes in its chain.
pub fn classify(e: &anyhow::Error) -> Failure {
    use rusqlite::ErrorCode;
    for cause in e.chain() {
        if let Some(err) = cause.downcast_ref::<rusqlite::Error>() {
            return match err {
                rusqlite::Error::SqliteFailure(f, _) => match f.code {
                    ErrorCode::ReadOnly | ErrorCode::CannotOpen => Failure::CannotWrite,
                    ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase => Failure::Corrupt,
                    ErrorCode::DiskFull | ErrorCode::SystemIoFailure => Failure::Full,
                    _ => Failure::Other,
                },
                // A table name or a stored text that is not UTF-8: the bytes are damaged.
                rusqlite::Error::Utf8Error(..) => Failure::Corrupt,
                rusqlite::Error::FromSqlConversionFailure(_, _, inner)
                    if inner.downcast_ref::<std::str::Utf8Error>().is_some() =>
                {
                    Failure::Corrupt
                }
                _ => Failure::Other,
            };
        }
        if cause.downcast_ref::<std::str::Utf8Error>().is_some() {
            return Failure::Corrupt;
        }
    }
    Failure::Other
}

/// The one line for `failure` at `path` given what stands in the way, or `None` when
/// there is nothing better to say than the engine's words.
pub fn explain(
    path: &Path,
    failure: Failure,
    obstacle: Option<&Obstacle>,
    engine: &str,
) -> Option<String> {
    let db = path.display();
    let line = match (failure, obstacle) {
        (Failure::Corrupt, _) => format!(
            "the database {db} is corrupt ({engine}); `bench-db --db {db} check` tells what is \
             damaged: restore a copy of the file, or move it aside and ingest the files again"
        ),
        (Failure::Full, _) => format!(
            "the disk holding {db} refused a write ({engine}): it is full, or a size limit or \
             the device stops writes; what was stored before is intact (each file is stored \
             whole or not at all): free space and ingest again"
        ),
        (Failure::CannotWrite, Some(Obstacle::ReadOnlyMount)) => format!(
            "the database {db} is on a read-only file system ({engine}): the read commands work \
             on it, but to write, copy it to a writable place (or remount read-write)"
        ),
        (Failure::CannotWrite, Some(Obstacle::ReadOnlyFolder(dir))) => format!(
            "the folder {} cannot be written ({engine}): SQLite writes its journal files \
             ({}-wal, -shm, -journal) beside the database, so make the folder writable (chmod \
             u+w) or move the database to a folder you can write",
            dir.display(),
            file_name(path)
        ),
        (Failure::CannotWrite, Some(Obstacle::ReadOnlyFile)) => format!(
            "the database {db} is read-only to you ({engine}): make it writable (chmod u+w, or \
             ask its owner) or work on a copy"
        ),
        (
            Failure::CannotWrite,
            Some(Obstacle::StaleCompanion {
                file,
                owner,
                remove,
            }),
        ) => {
            let remove: Vec<String> = remove.iter().map(|f| f.display().to_string()).collect();
            let what = if remove.is_empty() {
                "have that user write to the database once (`bench-db migrate`) or make it \
                 writable"
                    .to_string()
            } else {
                format!(
                    "when no bench-db uses the database, remove {} (rebuilt on the next open), \
                     or have that user make it writable",
                    remove.join(" and ")
                )
            };
            format!(
                "{} beside the database cannot be written by you ({engine}): another user{} \
                 read the database and left it; {what}",
                file.display(),
                owner.map_or(String::new(), |o| format!(" (uid {o})"))
            )
        }
        (Failure::CannotWrite, Some(Obstacle::NoFolder(dir))) => format!(
            "cannot create the database {db}: the folder {} does not exist ({engine})",
            dir.display()
        ),
        _ => return None,
    };
    Some(line)
}

/// What stands in the way of writing the database at `path`, checked in the order SQLite
/// meets it: the mount, the folder, the file, the companion files.
pub fn obstacle(path: &Path) -> Option<Obstacle> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if !dir.is_dir() {
        return Some(Obstacle::NoFolder(dir));
    }
    match can_write(&dir) {
        Err(e) if e.raw_os_error() == Some(libc::EROFS) => return Some(Obstacle::ReadOnlyMount),
        Err(_) => return Some(Obstacle::ReadOnlyFolder(dir)),
        Ok(()) => {}
    }
    if path.exists() && can_write(path).is_err() {
        return Some(Obstacle::ReadOnlyFile);
    }
    let [shm, wal] = ["-shm", "-wal"].map(|suffix| {
        let mut name = path.as_os_str().to_os_string();
        name.push(suffix);
        PathBuf::from(name)
    });
    let stale = |f: &PathBuf| f.exists() && can_write(f).is_err();
    let file = [&shm, &wal].into_iter().find(|f| stale(f))?.clone();
    use std::os::unix::fs::MetadataExt;
    let owner = std::fs::metadata(&file).ok().map(|m| m.uid());
    // The -shm is an index rebuilt from the -wal; a -wal holding frames holds data.
    let wal_empty = std::fs::metadata(&wal).map_or(true, |m| m.len() == 0);
    let remove = [&shm, &wal]
        .into_iter()
        .filter(|f| stale(f) && (*f == &shm || wal_empty))
        .cloned()
        .collect();
    Some(Obstacle::StaleCompanion {
        file,
        owner,
        remove,
    })
}

/// Whether a read of the WAL database at `path` should open it immutable: this process
/// cannot write the file and no `-shm` exists, so no writer is using it now, and a
/// read-only connection would create a `-shm` and `-wal` owned by this user that the
/// database's owner then cannot write (its next ingest fails).
pub fn read_without_shm(path: &Path) -> bool {
    let mut shm = path.as_os_str().to_os_string();
    shm.push("-shm");
    path.is_file() && can_write(path).is_err() && !Path::new(&shm).exists()
}

/// Whether this process may write `path`, as the kernel answers (`access(2)`: a
/// read-only mount says `EROFS` even to root).
fn can_write(path: &Path) -> std::io::Result<()> {
    let c = CString::new(path.as_os_str().as_bytes()).map_err(std::io::Error::other)?;
    // SAFETY: `c` is a valid NUL-terminated path that outlives the call.
    if unsafe { libc::access(c.as_ptr(), libc::W_OK) } == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// Whether `e` says the PostgreSQL server went away (the connection closed, an IO error
/// on it, or the server shutting down: SQLSTATE classes 08 and 57P), so that every later
/// file would fail the same way. The store shows its errors as text (a password is
/// scrubbed from them), so the text is read too: the driver's words for a closed
/// connection or an IO error, and the `SQLSTATE` the store writes.
pub fn connection_lost(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut cause = Some(e);
    while let Some(c) = cause {
        if let Some(pg) = c.downcast_ref::<postgres::Error>() {
            let code = pg.code().map(|s| s.code());
            let io = std::error::Error::source(pg).is_some_and(|s| s.is::<std::io::Error>());
            if pg.is_closed() || io || code.is_some_and(server_gone) {
                return true;
            }
        }
        if says_lost(&c.to_string()) {
            return true;
        }
        cause = c.source();
    }
    false
}

/// SQLSTATE classes 08 (connection exception) and 57P (the server shutting down or
/// ending the session).
fn server_gone(code: &str) -> bool {
    code.starts_with("08") || code.starts_with("57P")
}

/// Whether a message is the driver's for a lost connection (`connection closed`, `error
/// communicating with the server`) or carries a SQLSTATE of [`server_gone`].
fn says_lost(text: &str) -> bool {
    text.ends_with("connection closed")
        || text.contains("error communicating with the server")
        || text
            .match_indices("SQLSTATE ")
            .any(|(i, m)| server_gone(&text[i + m.len()..]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rusqlite::ffi;

    /// A real SQLite failure with the extended code `code`, as rusqlite returns it.
    fn failure(code: i32) -> anyhow::Error {
        let e = rusqlite::Error::SqliteFailure(ffi::Error::new(code), None);
        anyhow::Error::from(e).context("cannot use database x.db")
    }

    #[test]
    fn sqlite_codes_are_classified() {
        // SQLITE_READONLY_DIRECTORY (1544), SQLITE_READONLY (8), SQLITE_CANTOPEN (14).
        for code in [1544, 8, 14, ffi::SQLITE_READONLY_CANTINIT] {
            assert_eq!(classify(&failure(code)), Failure::CannotWrite, "{code}");
        }
        for code in [ffi::SQLITE_CORRUPT, ffi::SQLITE_NOTADB] {
            assert_eq!(classify(&failure(code)), Failure::Corrupt, "{code}");
        }
        let bytes = vec![b'a', b'b', 0xff, b'c'];
        let utf8 = std::str::from_utf8(&bytes).unwrap_err();
        let e = anyhow::Error::from(rusqlite::Error::Utf8Error(0, utf8));
        assert_eq!(classify(&e), Failure::Corrupt);
        for code in [ffi::SQLITE_FULL, ffi::SQLITE_IOERR_WRITE] {
            assert_eq!(classify(&failure(code)), Failure::Full, "{code}");
        }
        assert_eq!(classify(&failure(ffi::SQLITE_BUSY)), Failure::Other);
        assert_eq!(classify(&anyhow::anyhow!("no such file")), Failure::Other);
    }

    #[test]
    fn each_obstacle_gets_its_line() {
        let path = Path::new("/data/bench.db");
        let says = |f, o: Option<Obstacle>| explain(path, f, o.as_ref(), "engine").unwrap();
        let folder = says(
            Failure::CannotWrite,
            Some(Obstacle::ReadOnlyFolder("/data".into())),
        );
        assert!(
            folder.starts_with("the folder /data cannot be written"),
            "{folder}"
        );
        assert!(folder.contains("bench.db-wal"), "{folder}");
        let mount = says(Failure::CannotWrite, Some(Obstacle::ReadOnlyMount));
        assert!(mount.contains("read-only file system"), "{mount}");
        let file = says(Failure::CannotWrite, Some(Obstacle::ReadOnlyFile));
        assert!(file.contains("is read-only to you"), "{file}");
        let stale = says(
            Failure::CannotWrite,
            Some(Obstacle::StaleCompanion {
                file: "/data/bench.db-shm".into(),
                owner: Some(1001),
                remove: vec!["/data/bench.db-shm".into(), "/data/bench.db-wal".into()],
            }),
        );
        assert!(
            stale.starts_with("/data/bench.db-shm beside the database cannot be written"),
            "{stale}"
        );
        assert!(stale.contains("uid 1001"), "{stale}");
        assert!(
            stale.contains("remove /data/bench.db-shm and /data/bench.db-wal"),
            "{stale}"
        );
        let corrupt = says(Failure::Corrupt, None);
        assert!(corrupt.contains("is corrupt"), "{corrupt}");
        assert!(
            corrupt.contains("bench-db --db /data/bench.db check"),
            "{corrupt}"
        );
        for line in [folder, mount, file, stale, corrupt] {
            assert!(!line.contains('\n'), "{line}");
        }
        // Nothing found in the way: the engine's words stand.
        assert_eq!(explain(path, Failure::CannotWrite, None, "engine"), None);
        assert_eq!(explain(path, Failure::Other, None, "engine"), None);
    }

    #[test]
    fn lost_connections_are_told_from_other_errors() {
        let lost = [
            "PostgreSQL postgres://u:********@h/db: connection closed",
            "PostgreSQL postgres://u@h/db: FATAL: terminating connection due to administrator \
             command (SQLSTATE 57P01)",
            "error communicating with the server: Connection reset by peer (os error 104)",
            "PostgreSQL postgres://u@h/db: FATAL: the database system is shutting down (SQLSTATE 57P03)",
        ];
        for text in lost {
            let e = anyhow::anyhow!("{text}");
            assert!(connection_lost(e.as_ref()), "{text}");
        }
        let kept = [
            "PostgreSQL postgres://u@h/db: ERROR: duplicate key value (SQLSTATE 23505)",
            "database is locked",
        ];
        for text in kept {
            let e = anyhow::anyhow!("{text}");
            assert!(!connection_lost(e.as_ref()), "{text}");
        }
    }

    #[test]
    fn obstacles_found_beside_a_database() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("x.db");
        assert_eq!(obstacle(&db), None);
        assert_eq!(
            obstacle(&dir.path().join("missing/x.db")),
            Some(Obstacle::NoFolder(dir.path().join("missing")))
        );
    }

    #[test]
    fn a_corrupt_file_is_named_as_such() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("junk.db");
        std::fs::write(&db, vec![0x5a; 8192]).unwrap();
        let opened = rusqlite::Connection::open(&db)
            .and_then(|c| c.query_row("PRAGMA user_version", [], |r| r.get::<_, i64>(0)));
        let e = sqlite(&db, anyhow::Error::from(opened.unwrap_err()));
        let line = e.to_string();
        assert!(line.contains("junk.db is corrupt ("), "{line}");
        assert!(line.contains("file is not a database"), "{line}");
    }
}
