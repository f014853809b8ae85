//! Synthetic current-layout (V10) JLBH output for benchmarks: many complete outputs of
//! five runs, three probes, OS Jitter and summary tables, with reproducible values.
//! It lives in the library so the parser benchmark and the store benchmark measure the
//! same input.

use std::io::Write;

const RUNS: usize = 5;
const PROBES: [&str; 3] = ["End to End:", "client2server", "server2clientProbe"];
const LABELS: [&str; 9] = [
    "50.0", "90.0", "99.0", "99.7", "99.9", "99.97", "99.99", "99.997", "worst",
];

/// xorshift: reproducible values without a dependency.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// A latency-like value in µs: rising with the percentile rank `k`.
    fn latency(&mut self, k: usize) -> f64 {
        let base = 5.0 + (self.next() % 1000) as f64 / 100.0;
        base * (1.0 + k as f64 * k as f64 * 0.8)
    }
}

/// A header padded with dashes to 100 characters, as JLBH prints it since 2022.
fn header(title: &str) -> String {
    let s = format!("-------------------------------- {title} us ");
    format!("{s}{}", "-".repeat(100usize.saturating_sub(s.len())))
}

/// JLBH's probe-line number format (`Histogram.p`, resolution 2.56): 3, 2, 1 or 0
/// decimals, or rounded to 10 with grouping.
fn p(v: f64) -> String {
    if v < 2.56 {
        format!("{v:.3}")
    } else if v < 25.6 {
        format!("{v:.2}")
    } else if v < 256.0 {
        format!("{v:.1}")
    } else if v < 2560.0 {
        format!("{}", v.round())
    } else {
        let r = ((v / 10.0).round() * 10.0) as u64;
        format!("{},{:03}", r / 1000, r % 1000)
    }
}

/// Writes output number `n`: a lead line, then one complete JLBH output.
fn write_output(w: &mut impl Write, n: usize, rng: &mut Rng) -> std::io::Result<()> {
    writeln!(w, "Benchmark {n}, 1,000,000 msg/s:\n")?;
    writeln!(w, "Warm up complete (500000 iterations took 0.731 s)")?;
    let mut table = vec![[[0.0f64; 9]; RUNS]; PROBES.len()];
    for run in 0..RUNS {
        writeln!(
            w,
            "{}",
            header(&format!("BENCHMARK RESULTS (RUN {})", run + 1))
        )?;
        writeln!(w, "Run time: 3.0 s, distribution: NORMAL")?;
        writeln!(w, "Correcting for co-ordinated:true")?;
        writeln!(w, "Target throughput:1000000/s = 1 message every 1us")?;
        for (name, probe) in PROBES.iter().zip(table.iter_mut()) {
            let v: [f64; 9] = std::array::from_fn(|k| rng.latency(k));
            probe[run] = v;
            let label = format!("{name} (3,000,000)");
            writeln!(
                w,
                "{label:<48}50/90 99/99.9 99.99/99.999 - worst was {} / {}  {} / {}  {} / {} - {}",
                p(v[0]),
                p(v[1]),
                p(v[2]),
                p(v[4]),
                p(v[6]),
                p(v[7]),
                p(v[8])
            )?;
        }
        let j = 1000 + rng.next() % 9000;
        writeln!(
            w,
            "{:<48}50/90 99/99.9 99.99 - worst was 1.41 / 2.05  9.12 / 22.53  22.53 - 22.53",
            format!("OS Jitter ({},{:03})", j / 1000, j % 1000)
        )?;
        writeln!(w, "{}", "-".repeat(100))?;
    }
    for (name, probe) in ["end to end", "client2server", "server2clientProbe"]
        .iter()
        .zip(&table)
    {
        writeln!(w, "{}", header(&format!("SUMMARY ({name})")))?;
        writeln!(
            w,
            "Percentile   run1         run2         run3         run4         run5      % Variation"
        )?;
        for (k, label) in LABELS.iter().enumerate() {
            let mut line = format!("{:<9}", format!("{label}:"));
            for run in probe {
                line.push_str(&format!("{:12.2} ", run[k]));
            }
            line.push_str(&format!("{:12.2}", (k as f64) * 1.37));
            writeln!(w, "{line}")?;
        }
        writeln!(w, "{}", "-".repeat(100))?;
    }
    writeln!(w)
}

/// Writes outputs to `path` until it holds at least `megabytes` MB; returns its size and
/// the number of outputs.
pub fn generate(path: &std::path::Path, megabytes: u64) -> std::io::Result<(u64, usize)> {
    use std::fs::File;
    use std::io::BufWriter;
    let mut w = BufWriter::with_capacity(1 << 20, File::create(path)?);
    let mut rng = Rng(SEED);
    let mut outputs = 0;
    fill(&mut w, megabytes * 1_000_000 + 1, &mut outputs, &mut rng)?;
    Ok((std::fs::metadata(path)?.len(), outputs))
}

/// The state of the values' generator at the first output.
const SEED: u64 = 0x2545_f491_4f6c_dd1d;

/// Writes outputs (numbered on from `outputs`) to `w` until it holds at least `bytes`, and
/// flushes it.
fn fill(
    w: &mut std::io::BufWriter<std::fs::File>,
    bytes: u64,
    outputs: &mut usize,
    rng: &mut Rng,
) -> std::io::Result<()> {
    while w.get_ref().metadata()?.len() + (w.buffer().len() as u64) < bytes {
        write_output(w, *outputs, rng)?;
        *outputs += 1;
    }
    w.flush()
}

/// Writes the outputs [`generate`] writes, in the same order, as files of about `file_kb`
/// KiB each (`out-0000.log`, …) in `dir` until they hold at least `megabytes` MB; returns
/// their total size and the number of files.
pub fn generate_folder(
    dir: &std::path::Path,
    megabytes: u64,
    file_kb: u64,
) -> std::io::Result<(u64, usize)> {
    use std::fs::File;
    use std::io::BufWriter;
    let mut rng = Rng(SEED);
    let target = megabytes * 1_000_000;
    let (mut total, mut files, mut outputs) = (0u64, 0usize, 0usize);
    while total <= target {
        let path = dir.join(format!("out-{files:04}.log"));
        let mut w = BufWriter::new(File::create(&path)?);
        fill(&mut w, file_kb * 1024, &mut outputs, &mut rng)?;
        total += std::fs::metadata(&path)?.len();
        files += 1;
    }
    Ok((total, files))
}
