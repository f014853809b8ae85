//! Static HTML reports with inline SVG charts, drawn from the site model the analysis
//! builds ([`crate::analysis::site`], chart inputs in [`crate::analysis::charts`]). The
//! report only draws: it computes no statistic and reads no run. Every function returns
//! a String; only `cmd::report` writes files.

pub mod axis;
pub mod changes;
pub mod chart;
pub mod curve;
pub mod fmt;
pub mod history;
pub mod html;
pub mod replicates;
pub mod series;
pub mod shift;
pub mod spectrum;
pub mod style;
pub mod timeseries;
pub mod variation;
