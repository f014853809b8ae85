use std::io::BufRead;
fn main() {
    let p = std::env::args().nth(1).unwrap();
    let t = std::time::Instant::now();
    let mut r = std::io::BufReader::with_capacity(1 << 16, std::fs::File::open(&p).unwrap());
    let mut n = 0usize;
    let mut bytes = 0usize;
    loop {
        let buf = r.fill_buf().unwrap();
        if buf.is_empty() {
            break;
        }
        for &b in buf {
            if b == b'\n' {
                n += 1
            }
        }
        bytes += buf.len();
        let l = buf.len();
        r.consume(l);
    }
    println!(
        "raw read+count: {n} lines {:.0} MB/s",
        bytes as f64 / 1e6 / t.elapsed().as_secs_f64()
    );
    let t = std::time::Instant::now();
    let mut m = 0usize;
    for item in (bench_db_parsers::jlbh::FORMAT.parse)(Box::new(std::io::BufReader::with_capacity(
        1 << 16,
        std::fs::File::open(&p).unwrap(),
    ))) {
        if let Ok(bench_db_parsers::Parsed::Block(b)) = item {
            m += b.runs.len();
            std::hint::black_box(&b);
        }
    }
    println!(
        "parse: {m} runs {:.0} MB/s",
        bytes as f64 / 1e6 / t.elapsed().as_secs_f64()
    );
}
