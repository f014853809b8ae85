//! What each chart and table of the report shows, computed from runs and analyses:
//! plain structs (one module per chart kind, named as the `report` module that draws
//! it). The report draws these and computes nothing itself.

pub mod changes;
pub mod curve;
pub mod history;
pub mod spectrum;
pub mod timeseries;
pub mod variation;
