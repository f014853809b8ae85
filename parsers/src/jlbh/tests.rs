//! Tests of the JLBH parser over the seed, the published samples and the fixtures.

use super::*;
use crate::testutil::{parse_ok, shared};

#[test]
fn dump_all() {
    let Some(dir) = shared("samples/jlbh") else {
        return;
    };
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.push(shared("seeds/000_6d13b013910482e6.txt").unwrap());
    files.sort();
    for f in files {
        let bytes = std::fs::read(&f).unwrap();
        let r: Vec<_> = (FORMAT.parse)(Box::new(&bytes[..])).collect();
        eprintln!("=== {}", f.display());
        for x in r {
            match x {
                Ok(Parsed::Block(b)) => {
                    eprintln!(
                        "block {:?} {}-{} runs {} printed {}",
                        b.label,
                        b.first_line,
                        b.last_line,
                        b.runs.len(),
                        b.printed.len()
                    );
                    for run in &b.runs {
                        eprintln!(
                            " run {} {}-{} {:?}",
                            run.index, run.first_line, run.last_line, run.params
                        );
                        for s in &run.series {
                            if let Data::Ladder { count, points } = &s.data {
                                eprintln!(
                                    "  {} [{}] {:?}: {}",
                                    s.metric,
                                    s.display,
                                    count,
                                    points
                                        .iter()
                                        .map(|p| format!(
                                            "{}={:?}/{:?}",
                                            p.percentile, p.value, p.line_value
                                        ))
                                        .collect::<Vec<_>>()
                                        .join(" ")
                                );
                            }
                        }
                    }
                    for p in b.printed.iter().take(14) {
                        eprintln!(
                            "  printed {} {:?} {} {:?}",
                            p.metric, p.percentile, p.name, p.value
                        );
                    }
                }
                other => eprintln!("{other:?}"),
            }
        }
    }
}
