//! Built-in benchmarks on loopback: the JLBH-style TCP round-trip runner and the
//! thread-count sweep. They yield the same model values as a parser.
