//! The warm-up rule shared by `variation`, `compare` and `gate`: JLBH prints its first run
//! while the JIT and caches are still warming up and leaves it out of its own summary, so
//! run 1 of a block whose format says so (`Format::first_run_is_warmup`: `jlbh`), or of the
//! `loopback` runner that prints the same layout, is skipped unless `--include-first`
//! keeps it. Other formats' runs are all measured runs.

use crate::dataset::StoredRun;

/// The runner's format: not a parser format, it prints JLBH's layout, warm-up run first.
const LOOPBACK: &str = "loopback";

/// Whether this run is the warm-up run the rule skips.
pub fn is_warmup(run: &StoredRun) -> bool {
    run.run.index == 1
        && (run.format == LOOPBACK
            || bench_db_parsers::format_by_name(&run.format).is_some_and(|f| f.first_run_is_warmup))
}

/// The runs that count as replicates: all of them with `include_first`, else all but the
/// warm-up runs.
pub fn measured(runs: &[StoredRun], include_first: bool) -> Vec<StoredRun> {
    runs.iter()
        .filter(|r| include_first || !is_warmup(r))
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::testdata::*;

    #[test]
    fn only_jlbh_run_one_is_a_warm_up() {
        let runs = ladder_runs("end_to_end", "us", &[(99.0, &[1.0, 2.0, 3.0])], 1);
        assert!(is_warmup(&runs[0]));
        assert_eq!(measured(&runs, false).len(), 2);
        assert_eq!(measured(&runs, true).len(), 3);
        // JGroups' four runs are all measured.
        assert_eq!(measured(&seed002_tcp(), false).len(), 4);
    }
}
