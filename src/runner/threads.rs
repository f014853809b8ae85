//! The thread-count experiment of seed 001: a loopback request/response service whose
//! handler burns `cpu_time` of CPU and then sleeps `io_wait` per request, served by a pool
//! of N worker threads and driven closed-loop by one client per worker, for each N. Per N
//! it measures qps, response times, CPU utilisation and Little's-law concurrency, then
//! finds where qps stops rising and sets it beside `(wait/cpu + 1) × cores`.

use super::jlbh_numbers::value_ns;
use super::net::{REPLY_TIMEOUT, cpu_count};
use super::record::new_histogram;
use crate::analysis::pool_size;
use anyhow::Context;
use bench_db_parsers::{Block, Data, LadderPoint, Param, PrintedStat, Run, Series};
use hdrhistogram::Histogram;
use std::collections::BTreeMap;
use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// What to run.
#[derive(Debug, Clone)]
pub struct ThreadsConfig {
    /// Pool sizes, in the order given.
    pub threads: Vec<usize>,
    pub cpu_time: Duration,
    pub io_wait: Duration,
    /// Measuring time per pool size (after a short warm-up).
    pub duration: Duration,
    pub progress: bool,
}

/// What one pool size achieved.
#[derive(Debug, Clone)]
pub struct ThreadsPoint {
    pub threads: usize,
    /// Closed-loop clients (one per worker).
    pub clients: usize,
    /// Requests completed per second in the measuring window.
    pub qps: f64,
    /// Response times seen by the clients, ns.
    pub rt: Histogram<u64>,
    /// Process CPU time over the window as % of all CPUs' wall time.
    pub cpu_pct: f64,
    /// Little's law: qps × mean response time.
    pub concurrency: f64,
    pub window_s: f64,
}

/// Response-time percentiles stored and printed.
const RT_PERCENTILES: [f64; 5] = [50.0, 90.0, 99.0, 99.9, 100.0];

/// (threads, qps) of each measured pool size, for the pool-sizing maths.
fn qps_by_threads(points: &[ThreadsPoint]) -> Vec<(usize, f64)> {
    points.iter().map(|p| (p.threads, p.qps)).collect()
}

/// Runs every pool size of `cfg`.
pub fn run(cfg: &ThreadsConfig) -> anyhow::Result<Vec<ThreadsPoint>> {
    anyhow::ensure!(!cfg.threads.is_empty(), "no pool size to run");
    anyhow::ensure!(
        cfg.threads.iter().all(|&n| (1..=4096).contains(&n)),
        "--threads values must be between 1 and 4096"
    );
    anyhow::ensure!(!cfg.duration.is_zero(), "--duration must be above 0");
    let mut out = Vec::new();
    for (i, &n) in cfg.threads.iter().enumerate() {
        if cfg.progress {
            eprintln!(
                "pool size {n} ({} of {}): {:.1} s",
                i + 1,
                cfg.threads.len(),
                cfg.duration.as_secs_f64()
            );
        }
        let p = run_pool(cfg, n)?;
        if cfg.progress {
            eprintln!("pool size {n}: {:.1} req/s, cpu {:.0}%", p.qps, p.cpu_pct);
        }
        out.push(p);
    }
    Ok(out)
}

/// One request waiting for a worker: where to send the reply.
struct Job {
    conn: Arc<TcpStream>,
    payload: [u8; 8],
}

/// Burns `d` of this thread's CPU time (not wall time, so a busy machine stretches the
/// request as a real CPU-bound handler would be stretched).
fn burn_cpu(d: Duration) {
    let start = thread_cpu();
    let mut x = 0u64;
    while thread_cpu().saturating_sub(start) < d {
        for i in 0..2_000u64 {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(i));
        }
    }
    std::hint::black_box(x);
}

/// CPU time of the calling thread.
fn thread_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec through a valid pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// User + system CPU time of the whole process.
fn process_cpu() -> Duration {
    // SAFETY: getrusage fills one rusage struct through a valid pointer.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

fn start_workers(
    n: usize,
    rx: Receiver<Job>,
    cfg: &ThreadsConfig,
) -> anyhow::Result<Vec<JoinHandle<()>>> {
    let rx = Arc::new(Mutex::new(rx));
    (0..n)
        .map(|i| {
            let rx = rx.clone();
            let (cpu, io) = (cfg.cpu_time, cfg.io_wait);
            std::thread::Builder::new()
                .name(format!("worker-{i}"))
                .spawn(move || {
                    loop {
                        let job = rx.lock().unwrap_or_else(|e| e.into_inner()).recv();
                        let Ok(job) = job else { return };
                        burn_cpu(cpu);
                        std::thread::sleep(io);
                        // A client gone at the end of the window is not an error.
                        let _ = (&*job.conn).write_all(&job.payload);
                    }
                })
                .context("starting a worker thread")
        })
        .collect()
}

/// Accepts `clients` connections and starts one reader per connection that hands each
/// request to the pool.
fn start_readers(
    listener: TcpListener,
    clients: usize,
    tx: Sender<Job>,
    stop: Arc<AtomicBool>,
) -> anyhow::Result<JoinHandle<anyhow::Result<()>>> {
    std::thread::Builder::new()
        .name("acceptor".into())
        .spawn(move || {
            let mut readers = Vec::new();
            // Non-blocking accept so a client that never connects cannot hang the run.
            listener.set_nonblocking(true)?;
            while readers.len() < clients {
                let s = match listener.accept() {
                    Ok((s, _)) => s,
                    Err(e) if e.kind() == ErrorKind::WouldBlock => {
                        if stop.load(Ordering::Relaxed) {
                            break;
                        }
                        std::thread::sleep(Duration::from_millis(1));
                        continue;
                    }
                    Err(e) => return Err(e).context("accepting a client"),
                };
                s.set_nonblocking(false)?;
                s.set_nodelay(true)?;
                s.set_read_timeout(Some(Duration::from_millis(50)))?;
                let conn = Arc::new(s);
                let (tx, stop) = (tx.clone(), stop.clone());
                readers.push(std::thread::spawn(move || {
                    let mut payload = [0u8; 8];
                    loop {
                        match (&*conn).read_exact(&mut payload) {
                            Ok(()) => {
                                let job = Job {
                                    conn: conn.clone(),
                                    payload,
                                };
                                if tx.send(job).is_err() {
                                    return;
                                }
                            }
                            Err(e)
                                if matches!(
                                    e.kind(),
                                    ErrorKind::WouldBlock | ErrorKind::TimedOut
                                ) =>
                            {
                                if stop.load(Ordering::Relaxed) {
                                    return;
                                }
                            }
                            Err(_) => return,
                        }
                    }
                }));
            }
            drop(tx);
            for r in readers {
                let _ = r.join();
            }
            Ok(())
        })
        .context("starting the acceptor")
}

/// A closed-loop client: request, wait for the reply, record, repeat until `end`.
/// Only requests that start after `from` count.
fn client(addr: SocketAddr, from: Instant, end: Instant) -> anyhow::Result<(Histogram<u64>, u64)> {
    let mut s = TcpStream::connect_timeout(&addr, REPLY_TIMEOUT).context("connecting a client")?;
    s.set_nodelay(true)?;
    s.set_read_timeout(Some(REPLY_TIMEOUT))?;
    let mut h = new_histogram();
    let mut buf = [0u8; 8];
    loop {
        let t0 = Instant::now();
        if t0 >= end {
            return Ok((h, 0));
        }
        s.write_all(&buf).context("client write")?;
        s.read_exact(&mut buf).map_err(|e| {
            anyhow::anyhow!(
                "no reply from the service within {} s: {e}",
                REPLY_TIMEOUT.as_secs()
            )
        })?;
        let t1 = Instant::now();
        if t0 >= from && t1 <= end {
            h.saturating_record(t1.duration_since(t0).as_nanos().max(1) as u64);
        }
    }
}

/// One pool size: start the service, drive it with `n` clients, measure.
fn run_pool(cfg: &ThreadsConfig, n: usize) -> anyhow::Result<ThreadsPoint> {
    let clients = n;
    let listener = TcpListener::bind("127.0.0.1:0").context("binding 127.0.0.1:0")?;
    let addr = listener.local_addr()?;
    let (tx, rx) = channel();
    let stop = Arc::new(AtomicBool::new(false));
    let workers = start_workers(n, rx, cfg)?;
    let acceptor = start_readers(listener, clients, tx, stop.clone())?;
    // Warm up for a fifth of the window (at most 0.5 s) so every worker has started.
    let warm = (cfg.duration / 5).min(Duration::from_millis(500));
    let from = Instant::now() + warm;
    let end = from + cfg.duration;
    let handles: Vec<_> = (0..clients)
        .map(|_| std::thread::spawn(move || client(addr, from, end)))
        .collect();
    std::thread::sleep(from.saturating_duration_since(Instant::now()));
    let cpu0 = process_cpu();
    let wall0 = Instant::now();
    std::thread::sleep(end.saturating_duration_since(Instant::now()));
    let cpu1 = process_cpu();
    let wall = wall0.elapsed().as_secs_f64();
    let mut rt = new_histogram();
    let mut first_err = None;
    for h in handles {
        match h.join() {
            Ok(Ok((hist, _))) => rt.add(&hist).context("merging histograms")?,
            Ok(Err(e)) => {
                first_err.get_or_insert(e);
            }
            Err(_) => {
                first_err.get_or_insert(anyhow::anyhow!("a client thread panicked"));
            }
        }
    }
    stop.store(true, Ordering::Relaxed);
    let accepted = acceptor
        .join()
        .map_err(|_| anyhow::anyhow!("the acceptor panicked"))?;
    for w in workers {
        let _ = w.join();
    }
    if let Some(e) = first_err {
        return Err(e);
    }
    accepted?;
    let window_s = cfg.duration.as_secs_f64();
    let qps = rt.len() as f64 / window_s;
    let mean_s = rt.mean() / 1e9;
    Ok(ThreadsPoint {
        threads: n,
        clients,
        qps,
        cpu_pct: 100.0 * (cpu1.saturating_sub(cpu0)).as_secs_f64() / (wall * cpu_count() as f64),
        concurrency: qps * mean_s,
        rt,
        window_s,
    })
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The default block label: `threads cpu 1ms io 4ms`.
pub fn default_label(cfg: &ThreadsConfig) -> String {
    format!(
        "threads cpu {}ms io {}ms",
        ms(cfg.cpu_time),
        ms(cfg.io_wait)
    )
}

/// The points as one model block: one run per pool size, with the measured and the
/// formula's best thread count as printed derived numbers.
pub fn to_block(cfg: &ThreadsConfig, points: &[ThreadsPoint], label: &str, cores: usize) -> Block {
    let formula = pool_size::formula_best(cfg.cpu_time, cfg.io_wait, cores);
    let runs = points
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let mut params = BTreeMap::new();
            params.insert("threads".into(), Param::Num(p.threads as f64));
            params.insert("clients".into(), Param::Num(p.clients as f64));
            params.insert("cpu_time_ms".into(), Param::Num(ms(cfg.cpu_time)));
            params.insert("io_wait_ms".into(), Param::Num(ms(cfg.io_wait)));
            params.insert("duration_s".into(), Param::Num(p.window_s));
            params.insert("cores".into(), Param::Num(cores as f64));
            let points = RT_PERCENTILES
                .iter()
                .map(|&pc| LadderPoint {
                    percentile: pc,
                    value: (!p.rt.is_empty()).then(|| value_ns(&p.rt, pc) as f64 / 1e6),
                    line_value: None,
                })
                .collect();
            let mut rt = Series::new(
                "rt",
                "rt",
                "ms",
                Data::Ladder {
                    count: Some(p.rt.len()),
                    points,
                },
            );
            if !p.rt.is_empty() {
                rt.stats.insert("mean".into(), p.rt.mean() / 1e6);
            }
            Run {
                bench: None,
                config: Default::default(),
                index: i as u32 + 1,
                first_line: 0,
                last_line: 0,
                params,
                tags: BTreeMap::new(),
                series: vec![
                    Series::value("qps", "req/s", Some(p.qps)),
                    rt,
                    Series::value("cpu", "%", Some(p.cpu_pct)),
                    Series::value("concurrency", "", Some(p.concurrency)),
                ],
            }
        })
        .collect();
    let stat = |name: &str, value: Option<f64>| PrintedStat {
        metric: "qps".into(),
        percentile: None,
        name: name.into(),
        value,
    };
    Block {
        label: Some(label.to_string()),
        first_line: 0,
        last_line: 0,
        runs,
        printed: vec![
            stat(
                "best_threads",
                pool_size::measured_best(&qps_by_threads(points)).map(|n| n as f64),
            ),
            stat(
                "saturation_threads",
                pool_size::saturation_threads(&qps_by_threads(points)),
            ),
            stat(
                "formula_best_threads",
                formula.is_finite().then_some(formula),
            ),
        ],
    }
}

/// The printed report: a label line, one table row per pool size, and the best thread
/// count measured beside the formula's. Sets the block's and runs' line ranges.
pub fn render(
    cfg: &ThreadsConfig,
    points: &[ThreadsPoint],
    block: &mut Block,
    cores: usize,
) -> String {
    let mut lines = vec![
        format!("{}:", block.label.as_deref().unwrap_or("threads")),
        String::new(),
        format!(
            "{:>7} {:>7} {:>10} {:>10} {:>10} {:>10} {:>10} {:>6} {:>11}",
            "threads",
            "clients",
            "qps",
            "rt p50 ms",
            "rt p90 ms",
            "rt p99 ms",
            "rt mean ms",
            "cpu %",
            "concurrency"
        ),
    ];
    block.first_line = lines.len() as u64;
    for (p, run) in points.iter().zip(block.runs.iter_mut()) {
        let q = |pc: f64| {
            if p.rt.is_empty() {
                f64::NAN
            } else {
                value_ns(&p.rt, pc) as f64 / 1e6
            }
        };
        lines.push(format!(
            "{:>7} {:>7} {:>10.1} {:>10.2} {:>10.2} {:>10.2} {:>10.2} {:>6.1} {:>11.2}",
            p.threads,
            p.clients,
            p.qps,
            q(50.0),
            q(90.0),
            q(99.0),
            p.rt.mean() / 1e6,
            p.cpu_pct,
            p.concurrency
        ));
        run.first_line = lines.len() as u64;
        run.last_line = run.first_line;
    }
    let formula = pool_size::formula_best(cfg.cpu_time, cfg.io_wait, cores);
    let max = points.iter().map(|p| p.qps).fold(0.0, f64::max);
    lines.push(String::new());
    lines.push(match pool_size::measured_best(&qps_by_threads(points)) {
        Some(n) => format!(
            "best thread count: measured {n} (first pool size within 5% of the highest qps, {max:.1} req/s)"
        ),
        None => "best thread count: measured n/a".to_string(),
    });
    if let Some(k) = pool_size::saturation_threads(&qps_by_threads(points)) {
        let per = points
            .iter()
            .map(|p| p.qps / p.threads as f64)
            .fold(0.0, f64::max);
        lines.push(format!(
            "best thread count: saturation at {k:.1} threads (highest qps {max:.1} / best qps per thread {per:.1})"
        ));
    }
    lines.push(format!(
        "best thread count: formula (io wait / cpu time + 1) × cores = ({} / {} + 1) × {cores} = {}",
        fmt_ms(cfg.io_wait),
        fmt_ms(cfg.cpu_time),
        if formula.is_finite() { format!("{formula:.1}") } else { "n/a".into() }
    ));
    block.last_line = lines.len() as u64;
    let mut s = lines.join("\n");
    s.push('\n');
    s
}

fn fmt_ms(d: Duration) -> String {
    format!("{}ms", ms(d))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiny_sweep_gives_one_run_per_pool_size() {
        let cfg = ThreadsConfig {
            threads: vec![1, 2],
            cpu_time: Duration::from_micros(500),
            io_wait: Duration::from_millis(2),
            duration: Duration::from_millis(200),
            progress: false,
        };
        let started = Instant::now();
        let pts = run(&cfg).unwrap();
        assert!(started.elapsed() < Duration::from_secs(10));
        assert_eq!(pts.iter().map(|p| p.threads).collect::<Vec<_>>(), [1, 2]);
        for p in &pts {
            assert!(!p.rt.is_empty(), "pool {} completed nothing", p.threads);
            assert!(p.qps > 0.0);
            // No request can beat its own handler time.
            assert!(p.rt.min() >= 2_500_000, "{}", p.rt.min());
            assert!(p.cpu_pct > 0.0);
            assert!(p.concurrency > 0.0 && p.concurrency <= p.clients as f64 + 0.5);
        }
        let mut block = to_block(&cfg, &pts, &default_label(&cfg), 2);
        assert_eq!(block.runs.len(), 2);
        assert_eq!(block.label.as_deref(), Some("threads cpu 0.5ms io 2ms"));
        let rt = block.runs[0].series[1].ladder().unwrap();
        assert_eq!(rt.len(), 5);
        assert!(rt.windows(2).all(|w| w[0].value <= w[1].value));
        assert_eq!(block.printed[0].name, "best_threads");
        assert_eq!(block.printed[2].value, Some(10.0));
        let text = render(&cfg, &pts, &mut block, 2);
        assert!(
            text.contains(
                "formula (io wait / cpu time + 1) × cores = (2ms / 0.5ms + 1) × 2 = 10.0"
            )
        );
        assert!(text.contains("best thread count: measured "));
        let lines: Vec<&str> = text.lines().collect();
        assert!(
            lines[block.runs[1].first_line as usize - 1]
                .trim_start()
                .starts_with("2 ")
        );
    }
}
