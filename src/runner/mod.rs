//! Built-in benchmarks on loopback: the JLBH-style TCP round-trip runner (`run
//! loopback`) and the thread-count sweep (`run threads`). They yield the same model
//! values as a parser, so nothing downstream special-cases them. Printing and model
//! building are pure; only `net`, `loopback` and `threads` touch sockets and threads.

pub mod clock;
pub mod hlog;
pub mod jlbh_numbers;
pub mod loopback;
pub mod net;
pub mod record;
pub mod render;
pub mod results;
pub mod schedule;
pub mod threads;
