//! Invocations that repeat another's values exactly: an output ingested again (under
//! another commit, from another path, pasted into another log) is a copy of one
//! measurement, not a new one. A side of a comparison counts it once, so that copies never
//! pass for replicates that agree to the last digit (a spread of 0, an interval of no
//! width). Counting two truly independent but identical invocations once only widens the
//! interval, never narrows it.

use crate::dataset::StoredRun;
use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::hash::{Hash, Hasher};

/// One content held by several invocations (blocks) of a side: the first (lowest block
/// id, the first stored) counts, the others are left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Copies {
    /// The source of the block that counts.
    pub path: String,
    /// Every block with this content, the one that counts first.
    pub blocks: Vec<i64>,
}

/// The copies among `runs`' blocks: the blocks to leave out, and each content held by
/// more than one block, in the order of the block that counts. A block's content is what
/// its selected runs measured: each run's suite, given label, place, benchmark,
/// parameters and every value of every series; tags and paths are not content.
pub fn find<'a>(runs: impl IntoIterator<Item = &'a StoredRun>) -> (HashSet<i64>, Vec<Copies>) {
    let blocks = contents(runs);
    let mut by_content: HashMap<u64, BTreeMap<i64, &str>> = HashMap::new();
    for (block, (content, path)) in &blocks {
        by_content.entry(*content).or_default().insert(*block, path);
    }
    let mut left_out = HashSet::new();
    let mut groups: Vec<Copies> = by_content
        .into_values()
        .filter(|blocks| blocks.len() > 1)
        .map(|blocks| {
            let path = blocks.values().next().map_or("", |p| *p).to_string();
            let ids: Vec<i64> = blocks.into_keys().collect();
            left_out.extend(&ids[1..]);
            Copies { path, blocks: ids }
        })
        .collect();
    groups.sort_by_key(|g| g.blocks[0]);
    (left_out, groups)
}

/// The pairs of blocks, one on each side, that hold the same content (baseline block,
/// candidate block), in baseline order; a block on both sides is not a pair.
pub fn across<'a>(
    baseline: impl IntoIterator<Item = &'a StoredRun>,
    candidate: impl IntoIterator<Item = &'a StoredRun>,
) -> Vec<(i64, i64)> {
    let cand: HashMap<u64, i64> = contents(candidate)
        .into_iter()
        .map(|(block, (content, _))| (content, block))
        .collect();
    contents(baseline)
        .into_iter()
        .filter_map(|(b, (content, _))| {
            let c = *cand.get(&content)?;
            (c != b).then_some((b, c))
        })
        .collect()
}

/// Each block's content hash and source path, by block id.
fn contents<'a>(runs: impl IntoIterator<Item = &'a StoredRun>) -> BTreeMap<i64, (u64, &'a str)> {
    let mut hashers: BTreeMap<i64, (DefaultHasher, &str)> = BTreeMap::new();
    for r in runs {
        let (h, _) = hashers
            .entry(r.block_id)
            .or_insert_with(|| (DefaultHasher::new(), &r.source));
        // Serialized, floats and all: two runs hash alike only when every value is equal.
        // The suite and a given label are part of what was measured: the same output
        // ingested as two suites is two benchmarks, never pooled.
        let measured = (
            &r.suite,
            r.given_label(),
            &r.run.index,
            &r.run.bench,
            &r.run.params,
            &r.run.series,
        );
        serde_json::to_vec(&measured).unwrap_or_default().hash(h);
    }
    hashers
        .into_iter()
        .map(|(block, (h, path))| (block, (h.finish(), path)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::testdata::stored;
    use bench_db_parsers::Series;

    fn run(id: i64, block: i64, index: u32, path: &str, value: f64) -> StoredRun {
        let mut r = stored(
            id,
            "s",
            "x",
            vec![Series::value("ns_op", "ns", Some(value))],
        );
        r.block_id = block;
        r.run.index = index;
        r.source = path.to_string();
        r
    }

    #[test]
    fn a_block_stored_three_times_counts_once_at_its_first_block() {
        // Blocks 2, 7 and 9 hold 1064 and 1289 as runs 1 and 2; block 4 holds them the
        // other way round, block 5 only one of them: neither is a copy.
        let runs = [
            run(1, 2, 1, "a.txt", 1064.0),
            run(2, 2, 2, "a.txt", 1289.0),
            run(3, 4, 1, "b.txt", 1289.0),
            run(4, 4, 2, "b.txt", 1064.0),
            run(5, 5, 1, "c.txt", 1064.0),
            run(6, 7, 1, "again/a.txt", 1064.0),
            run(7, 7, 2, "again/a.txt", 1289.0),
            run(8, 9, 1, "a.txt", 1064.0),
            run(9, 9, 2, "a.txt", 1289.0),
        ];
        let (left_out, groups) = find(&runs);
        assert_eq!(left_out, HashSet::from([7, 9]));
        assert_eq!(
            groups,
            [Copies {
                path: "a.txt".into(),
                blocks: vec![2, 7, 9]
            }]
        );
        // The same content on both sides, but not the same block.
        assert_eq!(across(&runs[..2], &runs[5..7]), [(2, 7)]);
        assert!(across(&runs[..2], &runs[..2]).is_empty());
        assert!(across(&runs[..2], &runs[2..4]).is_empty());
    }
}
