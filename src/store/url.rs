//! What `--db` names: a SQLite file, or a PostgreSQL database given as a URL
//! (`postgres://USER[:PASSWORD]@HOST[:PORT]/DB[?sslmode=…&sslrootcert=…&schema=…]`).
//!
//! This module owns the password: it is read from the URL, `PGPASSWORD` or the pgpass file
//! (`PGPASSFILE`, else `~/.pgpass`), and every URL shown to a user is the masked form
//! ([`PgUrl::masked`]). Errors that could carry it pass through [`PgUrl::scrub`]. It opens
//! no connection.

use anyhow::{Context, Result, bail};
use percent_encoding::percent_decode_str;
use std::fmt;
use std::path::{Path, PathBuf};

/// The database a command works on.
#[derive(Clone, PartialEq, Eq)]
pub enum Target {
    /// A SQLite file.
    Sqlite(PathBuf),
    /// A PostgreSQL database.
    Postgres(PgUrl),
}

impl Target {
    /// Reads a `--db` value: a `postgres://` or `postgresql://` URL, else a file path.
    pub fn parse(s: &str) -> Result<Target> {
        if is_pg_url(s) {
            Ok(Target::Postgres(PgUrl::parse(s)?))
        } else {
            Ok(Target::Sqlite(PathBuf::from(s)))
        }
    }

    /// A SQLite file target.
    pub fn sqlite(path: impl Into<PathBuf>) -> Target {
        Target::Sqlite(path.into())
    }

    /// The SQLite path, when it is one.
    pub fn as_path(&self) -> Option<&Path> {
        match self {
            Target::Sqlite(p) => Some(p),
            Target::Postgres(_) => None,
        }
    }
}

/// Shows the path, or the URL with its password masked.
impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Target::Sqlite(p) => write!(f, "{}", p.display()),
            Target::Postgres(u) => f.write_str(&u.masked()),
        }
    }
}

/// Same as `Display`: a target's debug form must not leak the password either.
impl fmt::Debug for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")
    }
}

/// Whether `s` is a PostgreSQL URL rather than a file name.
pub fn is_pg_url(s: &str) -> bool {
    let lower = s.get(..13).unwrap_or(s).to_ascii_lowercase();
    lower.starts_with("postgres://") || lower.starts_with("postgresql://")
}

/// How a connection uses TLS (`sslmode=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SslMode {
    /// Plain TCP only.
    Disable,
    /// TLS when the server offers it, plain otherwise; the certificate is not checked (as
    /// libpq's `prefer`).
    Prefer,
    /// TLS or fail; the server's certificate is verified against `sslrootcert` or the
    /// system's roots, host name included (`require`, `verify-ca`, `verify-full`).
    Require,
}

/// Where the server is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Host {
    Tcp(String),
    /// The folder holding the server's unix socket.
    Unix(PathBuf),
}

/// A parsed PostgreSQL URL. The password stays inside; [`PgUrl::masked`] is what users see.
#[derive(Clone, PartialEq, Eq)]
pub struct PgUrl {
    pub user: String,
    password: Option<String>,
    pub host: Host,
    pub port: u16,
    pub dbname: String,
    pub sslmode: SslMode,
    pub sslrootcert: Option<PathBuf>,
    /// The schema that holds bench-db's tables (`public` unless the URL names another).
    pub schema: String,
    pub application_name: Option<String>,
    pub connect_timeout: Option<u64>,
    /// The URL as given, with the password replaced.
    masked: String,
}

impl fmt::Debug for PgUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.masked)
    }
}

const MASK: &str = "********";

impl PgUrl {
    /// Parses a URL; the password is looked up in `PGPASSWORD` and the pgpass file when the
    /// URL has none.
    pub fn parse(url: &str) -> Result<PgUrl> {
        let masked = mask_url(url);
        Self::parse_inner(url, &Env::process())
            .with_context(|| format!("bad database URL {masked}"))
    }

    fn parse_inner(url: &str, env: &Env) -> Result<PgUrl> {
        let masked = mask_url(url);
        let rest = url
            .split_once("://")
            .map(|(_, r)| r)
            .context("expected postgres://")?;
        let (main, query) = match rest.split_once('?') {
            Some((m, q)) => (m, Some(q)),
            None => (rest, None),
        };
        let (authority, path) = match main.split_once('/') {
            Some((a, p)) => (a, p),
            None => (main, ""),
        };
        let (userinfo, hostport) = match authority.rsplit_once('@') {
            Some((u, h)) => (Some(u), h),
            None => (None, authority),
        };
        let (mut user, mut password) = (None, None);
        if let Some(u) = userinfo {
            match u.split_once(':') {
                Some((name, pw)) => {
                    user = Some(decode(name)?);
                    password = Some(decode(pw)?);
                }
                None => user = Some(decode(u)?),
            }
        }
        let (mut host, mut port) = split_host_port(hostport)?;
        let mut dbname = (!path.is_empty()).then(|| decode(path)).transpose()?;
        let mut sslmode = SslMode::Prefer;
        let mut sslrootcert = None;
        let mut schema = None;
        let mut application_name = None;
        let mut connect_timeout = None;
        for pair in query.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            let v = decode(v)?;
            match k {
                "sslmode" => {
                    sslmode = match v.as_str() {
                        "disable" => SslMode::Disable,
                        "allow" | "prefer" => SslMode::Prefer,
                        "require" | "verify-ca" | "verify-full" => SslMode::Require,
                        other => bail!(
                            "unknown sslmode {other:?} (disable, prefer, require, verify-ca, verify-full)"
                        ),
                    }
                }
                "sslrootcert" => sslrootcert = Some(PathBuf::from(v)),
                "schema" => schema = Some(v),
                "options" => schema = Some(search_path_option(&v)?),
                "host" => host = Some(v),
                "port" => port = Some(v.parse().with_context(|| format!("bad port {v:?}"))?),
                "user" => user = Some(v),
                "password" => password = Some(v),
                "dbname" => dbname = Some(v),
                "application_name" => application_name = Some(v),
                "connect_timeout" => {
                    connect_timeout = Some(
                        v.parse()
                            .with_context(|| format!("bad connect_timeout {v:?}"))?,
                    )
                }
                other => bail!(
                    "unknown URL parameter {other:?} (sslmode, sslrootcert, schema, options, host, \
                     port, user, password, dbname, application_name, connect_timeout)"
                ),
            }
        }
        let host = match host.or_else(|| env.var("PGHOST")) {
            Some(h) if h.starts_with('/') => Host::Unix(PathBuf::from(h)),
            Some(h) if !h.is_empty() => Host::Tcp(h),
            _ => Host::Tcp("localhost".to_string()),
        };
        let port = match port {
            Some(p) => p,
            None => match env.var("PGPORT") {
                Some(p) => p.parse().with_context(|| format!("bad PGPORT {p:?}"))?,
                None => 5432,
            },
        };
        let user = user
            .filter(|u| !u.is_empty())
            .or_else(|| env.var("PGUSER"))
            .or_else(|| env.var("USER"))
            .context("no user name in the URL, PGUSER or USER")?;
        let dbname = dbname
            .filter(|d| !d.is_empty())
            .unwrap_or_else(|| user.clone());
        let schema = schema.unwrap_or_else(|| "public".to_string());
        check_identifier(&schema)?;
        if password.is_none() {
            password = env.var("PGPASSWORD");
        }
        if password.is_none() {
            password = env.pgpass_file().and_then(|file| {
                let text = std::fs::read_to_string(file).ok()?;
                let host_key = match &host {
                    Host::Tcp(h) => h.clone(),
                    Host::Unix(_) => "localhost".to_string(),
                };
                pgpass_lookup(&text, &host_key, port, &dbname, &user)
            });
        }
        Ok(PgUrl {
            user,
            password,
            host,
            port,
            dbname,
            sslmode,
            sslrootcert,
            schema,
            application_name,
            connect_timeout,
            masked,
        })
    }

    /// The URL as the user wrote it, password replaced by asterisks.
    pub fn masked(&self) -> String {
        self.masked.clone()
    }

    /// The password, for the connection only.
    pub(crate) fn password(&self) -> Option<&str> {
        self.password.as_deref()
    }

    /// `text` with every occurrence of the password (plain or percent-encoded) masked.
    pub fn scrub(&self, text: &str) -> String {
        let mut out = text.to_string();
        if let Some(pw) = self.password.as_deref().filter(|p| !p.is_empty()) {
            out = out.replace(pw, MASK);
            let enc = percent_encoding::utf8_percent_encode(pw, percent_encoding::NON_ALPHANUMERIC)
                .to_string();
            out = out.replace(&enc, MASK);
        }
        out
    }

    /// The same database and server with another schema (tests, copies between schemas).
    pub fn with_schema(&self, schema: &str) -> Result<PgUrl> {
        check_identifier(schema)?;
        let mut u = self.clone();
        u.schema = schema.to_string();
        Ok(u)
    }
}

/// The URL with the password of its user-info part (and any `password=` parameter) masked.
/// Works on text that does not parse, so an error about a bad URL can show it safely.
pub fn mask_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let (main, query) = match rest.split_once('?') {
        Some((m, q)) => (m, Some(q)),
        None => (rest, None),
    };
    let auth_end = main.find('/').unwrap_or(main.len());
    let (authority, path) = main.split_at(auth_end);
    let authority = match authority.rsplit_once('@') {
        Some((userinfo, hostport)) => match userinfo.split_once(':') {
            Some((user, _)) => format!("{user}:{MASK}@{hostport}"),
            None => authority.to_string(),
        },
        None => authority.to_string(),
    };
    let mut out = format!("{scheme}://{authority}{path}");
    if let Some(q) = query {
        let pairs: Vec<String> = q
            .split('&')
            .map(|p| match p.split_once('=') {
                Some(("password", _)) => format!("password={MASK}"),
                _ => p.to_string(),
            })
            .collect();
        out.push('?');
        out.push_str(&pairs.join("&"));
    }
    out
}

fn decode(s: &str) -> Result<String> {
    Ok(percent_decode_str(s)
        .decode_utf8()
        .context("URL part is not UTF-8 after percent-decoding")?
        .into_owned())
}

fn split_host_port(hostport: &str) -> Result<(Option<String>, Option<u16>)> {
    if hostport.is_empty() {
        return Ok((None, None));
    }
    if hostport.contains(',') {
        bail!("several hosts are not supported; name one");
    }
    // [IPv6]:port
    if let Some(rest) = hostport.strip_prefix('[') {
        let (h, after) = rest.split_once(']').context("unclosed '[' in host")?;
        let port = match after.strip_prefix(':') {
            Some(p) => Some(p.parse().with_context(|| format!("bad port {p:?}"))?),
            None => None,
        };
        return Ok((Some(h.to_string()), port));
    }
    match hostport.rsplit_once(':') {
        Some((h, p)) => Ok((
            (!h.is_empty()).then(|| decode(h)).transpose()?,
            Some(p.parse().with_context(|| format!("bad port {p:?}"))?),
        )),
        None => Ok((Some(decode(hostport)?), None)),
    }
}

/// The schema named by `options=-c search_path=NAME` (the only option accepted).
fn search_path_option(v: &str) -> Result<String> {
    let v = v.trim();
    let rest = v
        .strip_prefix("-csearch_path=")
        .or_else(|| v.strip_prefix("-c search_path="))
        .or_else(|| v.strip_prefix("--search_path="))
        .with_context(|| format!("options {v:?}: only `-c search_path=SCHEMA` is understood"))?;
    if rest.contains(',') || rest.contains(' ') {
        bail!("search_path {rest:?}: name exactly one schema");
    }
    Ok(rest.trim_matches('"').to_string())
}

/// Schema names are quoted in SQL; refuse what could not be a plain name anyway.
fn check_identifier(name: &str) -> Result<()> {
    let ok = !name.is_empty()
        && name.len() <= 63
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
        && !name.starts_with(|c: char| c.is_ascii_digit());
    if !ok {
        bail!("schema name {name:?}: use letters, digits and '_' (at most 63)");
    }
    Ok(())
}

/// The password of the first pgpass line matching host, port, database and user (`*` matches
/// anything; `\:` and `\\` are escapes), as libpq reads it.
pub fn pgpass_lookup(text: &str, host: &str, port: u16, db: &str, user: &str) -> Option<String> {
    let port = port.to_string();
    for line in text.lines() {
        if line.trim_start().starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let fields = split_pgpass(line);
        if fields.len() < 5 {
            continue;
        }
        let matches = |field: &str, want: &str| field == "*" || field == want;
        if matches(&fields[0], host)
            && matches(&fields[1], &port)
            && matches(&fields[2], db)
            && matches(&fields[3], user)
        {
            return Some(fields[4..].join(":"));
        }
    }
    None
}

fn split_pgpass(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(n) = chars.next() {
                    fields.last_mut().expect("one field").push(n);
                }
            }
            ':' if fields.len() < 5 => fields.push(String::new()),
            c => fields.last_mut().expect("one field").push(c),
        }
    }
    fields
}

/// The environment variables the URL reader consults (a seam for tests).
struct Env {
    get: Lookup,
}

type Lookup = Box<dyn Fn(&str) -> Option<String>>;

impl Env {
    fn process() -> Env {
        Env {
            get: Box::new(|k| std::env::var(k).ok()),
        }
    }

    fn var(&self, k: &str) -> Option<String> {
        (self.get)(k).filter(|v| !v.is_empty())
    }

    fn pgpass_file(&self) -> Option<PathBuf> {
        self.var("PGPASSFILE")
            .map(PathBuf::from)
            .or_else(|| self.var("HOME").map(|h| Path::new(&h).join(".pgpass")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(pairs: &[(&str, &str)]) -> Env {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Env {
            get: Box::new(move |k| map.get(k).cloned()),
        }
    }

    #[test]
    fn parses_a_full_url_and_masks_its_password() {
        let u = PgUrl::parse_inner(
            "postgres://ci:s3cr%40t@db.example:6543/perf?sslmode=require&sslrootcert=/etc/ca.pem&schema=bench",
            &env(&[]),
        )
        .unwrap();
        assert_eq!(u.user, "ci");
        assert_eq!(u.password(), Some("s3cr@t"));
        assert_eq!(u.host, Host::Tcp("db.example".into()));
        assert_eq!(u.port, 6543);
        assert_eq!(u.dbname, "perf");
        assert_eq!(u.sslmode, SslMode::Require);
        assert_eq!(u.sslrootcert, Some(PathBuf::from("/etc/ca.pem")));
        assert_eq!(u.schema, "bench");
        assert_eq!(
            u.masked(),
            "postgres://ci:********@db.example:6543/perf?sslmode=require&sslrootcert=/etc/ca.pem&schema=bench"
        );
        assert!(!format!("{u:?}").contains("s3cr"));
        assert_eq!(
            u.scrub("auth failed for s3cr@t and s3cr%40t"),
            "auth failed for ******** and ********"
        );
    }

    #[test]
    fn defaults_schema_sslmode_port_and_reads_search_path() {
        let u = PgUrl::parse_inner("postgresql://me@localhost/db", &env(&[])).unwrap();
        assert_eq!(
            (u.port, u.sslmode, u.schema.as_str()),
            (5432, SslMode::Prefer, "public")
        );
        assert_eq!(u.password(), None);
        let u = PgUrl::parse_inner(
            "postgresql://me@localhost/db?options=-csearch_path%3Dteam_perf",
            &env(&[]),
        )
        .unwrap();
        assert_eq!(u.schema, "team_perf");
        assert!(PgUrl::parse_inner("postgres://me@h/db?schema=a;drop", &env(&[])).is_err());
        assert!(PgUrl::parse_inner("postgres://me@h/db?sslmode=sometimes", &env(&[])).is_err());
    }

    #[test]
    fn unix_socket_hosts() {
        let u = PgUrl::parse_inner("postgres://me:pw@%2Ftmp%2Fpg:5433/db", &env(&[])).unwrap();
        assert_eq!(u.host, Host::Unix("/tmp/pg".into()));
        assert_eq!(u.port, 5433);
        let u = PgUrl::parse_inner("postgres:///db?host=/run/pg&user=x", &env(&[])).unwrap();
        assert_eq!(u.host, Host::Unix("/run/pg".into()));
        assert_eq!(u.user, "x");
    }

    #[test]
    fn password_from_environment_then_pgpass() {
        let u =
            PgUrl::parse_inner("postgres://me@h/db", &env(&[("PGPASSWORD", "fromenv")])).unwrap();
        assert_eq!(u.password(), Some("fromenv"));
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pgpass");
        std::fs::write(
            &file,
            "# comment\nother:*:*:*:no\nh:5432:db:me:pa\\:ss:word\n*:*:*:*:fallback\n",
        )
        .unwrap();
        let e = env(&[("PGPASSFILE", file.to_str().unwrap())]);
        let u = PgUrl::parse_inner("postgres://me@h/db", &e).unwrap();
        assert_eq!(u.password(), Some("pa:ss:word"));
        let u = PgUrl::parse_inner("postgres://you@h/db", &e).unwrap();
        assert_eq!(u.password(), Some("fallback"));
        // The URL's own password wins.
        let u = PgUrl::parse_inner("postgres://me:url@h/db", &e).unwrap();
        assert_eq!(u.password(), Some("url"));
    }

    #[test]
    fn masks_urls_that_do_not_parse() {
        assert_eq!(
            mask_url("postgres://u:p@h:notaport/d"),
            "postgres://u:********@h:notaport/d"
        );
        assert_eq!(
            mask_url("postgres://h/d?password=x&sslmode=require"),
            "postgres://h/d?password=********&sslmode=require"
        );
        let err = PgUrl::parse("postgres://u:hunter2@h:notaport/d").unwrap_err();
        assert!(!format!("{err:#}").contains("hunter2"), "{err:#}");
    }

    #[test]
    fn targets() {
        assert!(matches!(
            Target::parse("bench.db").unwrap(),
            Target::Sqlite(_)
        ));
        assert!(matches!(
            Target::parse("POSTGRES://u@h/d").unwrap(),
            Target::Postgres(_)
        ));
        let t = Target::parse("postgres://u:pw@h/d").unwrap();
        assert_eq!(t.to_string(), "postgres://u:********@h/d");
    }
}
