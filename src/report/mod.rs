//! Static HTML reports with inline SVG charts. Every function returns a String; only
//! `cmd::report` writes files.
//!
//! Chart kinds take plain input structs defined beside them (so they do not depend on
//! how the analysis computes its numbers) and most can be built from stored runs.

pub mod axis;
pub mod changes;
pub mod chart;
pub mod curve;
pub mod delta;
pub mod demo;
pub mod fmt;
pub mod history;
pub mod html;
pub mod pairing;
pub mod series;
pub mod shift;
pub mod slo;
pub mod spectrum;
pub mod style;
pub mod timeseries;
pub mod variation;
