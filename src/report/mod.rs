//! Static HTML reports with inline SVG charts. Every function returns a String; only
//! `cmd::report` writes files.
