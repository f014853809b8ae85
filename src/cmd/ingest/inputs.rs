//! What `ingest` reads: the files under its paths, walked in name order, and standard
//! input; the paths as they are stored and printed.

use std::path::{Path, PathBuf};

/// One thing to ingest, or a walk error standing in for an entry that cannot be read.
pub(super) enum Input {
    Stdin,
    File(PathBuf),
    Unreadable {
        path: String,
        error: String,
    },
    /// An entry of a walked folder that is no file to read (a FIFO, a socket, a device,
    /// a link to a folder): skipped, with what it is. A FIFO would block the walk.
    NotAFile {
        path: String,
        what: &'static str,
    },
}

impl Input {
    /// The bytes of a regular file (0 for anything else): what the progress bar counts.
    pub(super) fn size(&self) -> u64 {
        match self {
            Input::File(p) => p
                .metadata()
                .ok()
                .filter(|m| m.is_file())
                .map_or(0, |m| m.len()),
            _ => 0,
        }
    }
}

pub(super) fn is_stdin(p: &Path) -> bool {
    p.as_os_str() == "-"
}

/// A path as stored and printed: as is when it is UTF-8 and plain, else quoted the way
/// `ls` quotes names, so that bytes that are not UTF-8 survive as `$'\NNN'`.
pub fn shown_path(path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let bytes = path.as_os_str().as_bytes();
    let plain = |c: char| !c.is_control() && c != '\'';
    match std::str::from_utf8(bytes) {
        Ok(s) if s.chars().all(plain) => s.to_string(),
        _ => {
            let mut out = String::new();
            let mut quoted = false;
            for chunk in bytes.utf8_chunks() {
                for c in chunk.valid().chars() {
                    if plain(c) {
                        if !quoted {
                            out.push('\'');
                            quoted = true;
                        }
                        out.push(c);
                    } else {
                        if quoted {
                            out.push('\'');
                            quoted = false;
                        }
                        let mut buf = [0u8; 4];
                        for b in c.encode_utf8(&mut buf).bytes() {
                            out.push_str(&format!("$'\\{b:03o}'"));
                        }
                    }
                }
                if !chunk.invalid().is_empty() {
                    if quoted {
                        out.push('\'');
                        quoted = false;
                    }
                    for b in chunk.invalid() {
                        out.push_str(&format!("$'\\{b:03o}'"));
                    }
                }
            }
            if quoted {
                out.push('\'');
            }
            out
        }
    }
}

/// Whether `entry` is the database or one of its companion files (`-wal`, `-shm`,
/// `-journal`), which a walk of the folder holding the database meets.
fn is_own_file(entry: &Path, db: &Path) -> bool {
    let (Some(name), Some(db_name)) = (entry.file_name(), db.file_name()) else {
        return false;
    };
    let mut ours = false;
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let mut own = db_name.to_os_string();
        own.push(suffix);
        ours |= own == name;
    }
    let dir = |p: &Path| {
        let parent = p.parent().filter(|d| !d.as_os_str().is_empty());
        parent.unwrap_or(Path::new(".")).canonicalize().ok()
    };
    ours && dir(entry).is_some_and(|d| dir(db) == Some(d))
}

/// Every file under the given paths, folders walked recursively in name order; an
/// entry that cannot be read becomes an [`Input::Unreadable`] and the walk goes on.
/// The database's own files are left out.
pub(super) fn collect_inputs(paths: &[PathBuf], db: &Path) -> Vec<Input> {
    let mut out = Vec::new();
    for p in paths {
        if is_stdin(p) {
            out.push(Input::Stdin);
            continue;
        }
        match std::fs::metadata(p) {
            Err(e) => out.push(Input::Unreadable {
                path: shown_path(p),
                error: if e.kind() == std::io::ErrorKind::NotFound {
                    "no such file or folder".to_string()
                } else {
                    e.to_string()
                },
            }),
            Ok(m) if m.is_dir() => {
                let mut walked = Vec::new();
                for entry in walkdir::WalkDir::new(p).sort_by_file_name() {
                    match entry {
                        Ok(entry) if entry.file_type().is_dir() => {}
                        Ok(entry) if is_own_file(entry.path(), db) => {}
                        Ok(entry) => match not_a_file(&entry) {
                            Some(what) => out.push(Input::NotAFile {
                                path: shown_path(entry.path()),
                                what,
                            }),
                            None => walked.push(entry.into_path()),
                        },
                        Err(e) => out.push(Input::Unreadable {
                            path: e.path().map_or_else(|| shown_path(p), shown_path),
                            error: e
                                .io_error()
                                .map_or_else(|| e.to_string(), ToString::to_string),
                        }),
                    }
                }
                // A Criterion measurement folder is one source, not its files.
                out.extend(
                    crate::cmd::criterion_dirs::group(walked)
                        .into_iter()
                        .map(Input::File),
                );
            }
            Ok(_) => out.push(Input::File(p.clone())),
        }
    }
    out
}

/// What a walked entry is when it is no regular file (nor a link to one); `None` for a
/// file, and for a link that cannot be followed (reading it names the error).
fn not_a_file(entry: &walkdir::DirEntry) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    let t = entry.file_type();
    let t = if t.is_symlink() {
        match std::fs::metadata(entry.path()) {
            Ok(m) if m.is_dir() => return Some("a link to a folder, not followed"),
            Ok(m) => m.file_type(),
            Err(_) => return None,
        }
    } else {
        t
    };
    if t.is_file() {
        None
    } else if t.is_fifo() {
        Some("a named pipe (FIFO), not a file")
    } else if t.is_socket() {
        Some("a socket, not a file")
    } else if t.is_block_device() || t.is_char_device() {
        Some("a device, not a file")
    } else {
        Some("not a regular file")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;

    #[test]
    fn paths_that_are_not_plain_utf8_are_quoted_like_ls() {
        assert_eq!(shown_path(Path::new("logs/a b.txt")), "logs/a b.txt");
        let p = Path::new(OsStr::from_bytes(b"logs/caf\xe9.txt"));
        assert_eq!(shown_path(p), "'logs/caf'$'\\351''.txt'");
        assert_eq!(shown_path(Path::new("a\nb")), "'a'$'\\012''b'");
    }
}
