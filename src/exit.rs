//! Exit codes shared by every command: the contract scripts and CI read. Constants only;
//! `main` maps an error to [`ERROR`].

/// Success; the gate passed.
pub const OK: u8 = 0;
/// The gate found a regression.
pub const REGRESSION: u8 = 1;
/// Usage, IO, parse or database error.
pub const ERROR: u8 = 2;
/// The gate could not decide (no or too little baseline).
pub const UNDECIDED: u8 = 3;
