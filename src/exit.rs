//! Exit codes shared by every command: the contract scripts and CI read. The constants,
//! and the one mapping from a gate outcome to its code that `cmd::gate` (the process
//! exit) and `output::gate` (the JSON verdict's `exit_code`) both read. `main` maps an
//! error to [`ERROR`].

use crate::analysis::gate::Outcome;

/// Success; the gate passed.
pub const OK: u8 = 0;
/// The gate found a regression.
pub const REGRESSION: u8 = 1;
/// Usage, IO, parse or database error.
pub const ERROR: u8 = 2;
/// The gate could not decide (no or too little baseline).
pub const UNDECIDED: u8 = 3;

/// The process exit code of a gate outcome.
pub fn exit_code(outcome: Outcome) -> u8 {
    match outcome {
        Outcome::Pass => OK,
        Outcome::Regression => REGRESSION,
        Outcome::Undecided => UNDECIDED,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_gate_outcome_has_its_documented_code() {
        assert_eq!(exit_code(Outcome::Pass), 0);
        assert_eq!(exit_code(Outcome::Regression), 1);
        assert_eq!(exit_code(Outcome::Undecided), 3);
    }
}
