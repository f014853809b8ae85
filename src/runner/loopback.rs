//! The JLBH-style loopback TCP benchmark (seed 000): a server thread that stamps and
//! echoes fixed-size messages, a client that sends them open-loop at a target rate and
//! records four histograms, an optional OS-jitter thread, warm-up, runs and sweeps.
//! Produces [`MeasuredSet`]s; printing and storing are elsewhere.

use super::clock::{Clock, MonotonicClock};
use super::net::{Conn, REPLY_TIMEOUT, cpu_count, current_cpu, pin};
use super::record::{Recorder, new_histogram};
use super::results::{MeasuredRun, MeasuredSet};
use super::schedule::{Drive, Schedule, drive};
use anyhow::Context;
use hdrhistogram::Histogram;
use std::collections::BTreeSet;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// How the client and server wait for messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Blocking reads: the thread sleeps in the kernel between messages.
    Block,
    /// Busy-polling reads: lower latency, one CPU kept busy per side.
    Spin,
}

/// A feature that is on, off, or on when the machine can spare a CPU for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Switch {
    Auto,
    On,
    Off,
}

/// What to run.
#[derive(Debug, Clone)]
pub struct LoopbackConfig {
    /// One set of runs per target rate (messages per second).
    pub throughputs: Vec<u64>,
    pub iterations: u64,
    pub warmup: u64,
    pub runs: u32,
    /// Bytes per message, at least 8 (the timestamp).
    pub msg_size: usize,
    pub mode: Mode,
    pub pin_client: Option<usize>,
    pub pin_server: Option<usize>,
    /// Block label; default `loopback <rate>/s`.
    pub label: Option<String>,
    pub os_jitter: Switch,
    /// Report progress on stderr.
    pub progress: bool,
}

/// Gaps the jitter thread records: longer than this between two looks at the clock
/// (JLBH's default `recordJitterGreaterThanNs`).
const JITTER_THRESHOLD_NS: u64 = 1_000;
/// Sample the CPU a thread runs on once every this many messages.
const CPU_SAMPLE_EVERY: u64 = 256;

impl LoopbackConfig {
    /// Whether the jitter thread runs: `auto` turns it on only when it can have a CPU of
    /// its own beside the client and the server. The client busy-waits for each send
    /// time in both modes, so on 2 CPUs a spinning jitter thread would take the core the
    /// server needs (always in spin mode, at every wake-up in block mode).
    pub fn jitter_on(&self, cpus: usize) -> bool {
        match self.os_jitter {
            Switch::On => true,
            Switch::Off => false,
            Switch::Auto => cpus >= 3,
        }
    }

    /// Whether client and server must share one CPU: pinned to the same one, or only
    /// one available. Busy-polling then yields instead of spinning.
    pub fn shares_core(&self, cpus: usize) -> bool {
        cpus <= 1 || (self.pin_client.is_some() && self.pin_client == self.pin_server)
    }

    fn validate(&self) -> anyhow::Result<()> {
        anyhow::ensure!(
            self.msg_size >= 8,
            "--msg-size must be at least 8 bytes (the timestamp)"
        );
        anyhow::ensure!(self.runs >= 1, "--runs must be at least 1");
        anyhow::ensure!(self.iterations >= 1, "--iterations must be at least 1");
        anyhow::ensure!(!self.throughputs.is_empty(), "no throughput to run");
        anyhow::ensure!(
            self.throughputs.iter().all(|&t| t >= 1),
            "throughputs must be at least 1 message per second"
        );
        Ok(())
    }
}

/// Runs every throughput of `cfg` and returns one measured set per throughput.
pub fn run(cfg: &LoopbackConfig) -> anyhow::Result<Vec<MeasuredSet>> {
    cfg.validate()?;
    let mut sets = Vec::new();
    for &rate in &cfg.throughputs {
        let cfg = cfg.clone();
        // The client runs on its own thread so pinning never changes the caller's affinity.
        let set = std::thread::Builder::new()
            .name("loopback-client".into())
            .spawn(move || run_rate(&cfg, rate))
            .context("starting the client thread")?
            .join()
            .map_err(|_| anyhow::anyhow!("the client thread panicked"))??;
        sets.push(set);
    }
    Ok(sets)
}

/// The server side of one connection.
struct Server {
    handle: JoinHandle<anyhow::Result<()>>,
    stop: Arc<AtomicBool>,
    cpus: Arc<Mutex<BTreeSet<usize>>>,
}

fn start_server(
    cfg: &LoopbackConfig,
    clock: MonotonicClock,
    cpus_available: usize,
) -> anyhow::Result<(Server, SocketAddr)> {
    let listener = TcpListener::bind("127.0.0.1:0").context("binding 127.0.0.1:0")?;
    let addr = listener.local_addr()?;
    let stop = Arc::new(AtomicBool::new(false));
    let cpus = Arc::new(Mutex::new(BTreeSet::new()));
    let (spin, msg_size, pin_cpu) = (cfg.mode == Mode::Spin, cfg.msg_size, cfg.pin_server);
    let share = cfg.shares_core(cpus_available);
    let (stop2, cpus2) = (stop.clone(), cpus.clone());
    let handle = std::thread::Builder::new()
        .name("loopback-server".into())
        .spawn(move || -> anyhow::Result<()> {
            if let Some(c) = pin_cpu {
                pin(c).context("pinning the server")?;
            }
            let stream = accept_one(&listener, &stop2)?;
            let mut conn = Conn::new(stream, spin, None, Some(stop2))?.yielding(share);
            let mut buf = vec![0u8; msg_size];
            let mut n = 0u64;
            while conn.read_msg(&mut buf).context("server read")? {
                let t = clock.now_ns();
                buf[..8].copy_from_slice(&t.to_le_bytes());
                conn.write_msg(&buf).context("server write")?;
                if n.is_multiple_of(CPU_SAMPLE_EVERY)
                    && let Some(c) = current_cpu()
                {
                    cpus2.lock().unwrap_or_else(|e| e.into_inner()).insert(c);
                }
                n += 1;
            }
            Ok(())
        })
        .context("starting the server thread")?;
    Ok((Server { handle, stop, cpus }, addr))
}

/// Accepts the client's connection, giving up after the reply timeout or on stop.
fn accept_one(listener: &TcpListener, stop: &AtomicBool) -> anyhow::Result<TcpStream> {
    listener.set_nonblocking(true)?;
    let start = Instant::now();
    loop {
        match listener.accept() {
            Ok((s, _)) => {
                s.set_nonblocking(false)?;
                return Ok(s);
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                if stop.load(Ordering::Relaxed) || start.elapsed() > REPLY_TIMEOUT {
                    anyhow::bail!("no client connected to the loopback server");
                }
                std::thread::sleep(Duration::from_millis(1));
            }
            Err(e) => return Err(e).context("accepting the client"),
        }
    }
}

/// A thread that measures its own scheduling gaps, as JLBH's OS jitter monitor does.
struct Jitter {
    handle: JoinHandle<Histogram<u64>>,
    stop: Arc<AtomicBool>,
}

fn start_jitter(clock: MonotonicClock) -> anyhow::Result<Jitter> {
    let stop = Arc::new(AtomicBool::new(false));
    let stop2 = stop.clone();
    let handle = std::thread::Builder::new()
        .name("os-jitter".into())
        .spawn(move || {
            let mut h = new_histogram();
            let mut last = clock.now_ns();
            while !stop2.load(Ordering::Relaxed) {
                let now = clock.now_ns();
                if now - last > JITTER_THRESHOLD_NS {
                    h.saturating_record(now - last);
                }
                last = now;
            }
            h
        })
        .context("starting the OS jitter thread")?;
    Ok(Jitter { handle, stop })
}

impl Jitter {
    fn finish(self) -> Option<Histogram<u64>> {
        self.stop.store(true, Ordering::Relaxed);
        self.handle.join().ok()
    }
}

/// The client: connect, warm up, then the measured runs at `rate`.
fn run_rate(cfg: &LoopbackConfig, rate: u64) -> anyhow::Result<MeasuredSet> {
    let clock = MonotonicClock::new();
    // Counted before pinning: a pinned thread's affinity mask holds one CPU, which would
    // make every pinned client look like it shares its core (and yield instead of spin).
    let cpus_available = cpu_count();
    // The server thread starts before the client pins itself, so it does not inherit
    // the client's affinity.
    let (server, addr) = start_server(cfg, clock, cpus_available)?;
    if let Some(c) = cfg.pin_client
        && let Err(e) = pin(c).context("pinning the client")
    {
        server.stop.store(true, Ordering::Relaxed);
        let _ = server.handle.join();
        return Err(e);
    }
    let result = client_session(cfg, rate, clock, addr, &server.cpus, cpus_available);
    // Closing the connection (dropped with the session) ends the server; the flag also
    // covers a server still waiting to accept.
    server.stop.store(true, Ordering::Relaxed);
    let served = server
        .handle
        .join()
        .map_err(|_| anyhow::anyhow!("the server thread panicked"))?;
    // A failed server is the cause of whatever the client then saw.
    served.context("the loopback server failed")?;
    result
}

/// The client end: one connection, one reused message buffer, the CPUs it ran on.
struct Client {
    conn: Conn,
    buf: Vec<u8>,
    n: u64,
    cpus: BTreeSet<usize>,
}

impl Client {
    /// One round trip: stamp the send time, send, read the reply, return the server's stamp.
    fn round_trip(&mut self, sent: u64) -> anyhow::Result<u64> {
        self.buf[..8].copy_from_slice(&sent.to_le_bytes());
        self.conn.write_msg(&self.buf).context("client write")?;
        if !self.conn.read_msg(&mut self.buf).context("client read")? {
            anyhow::bail!("the server closed the connection");
        }
        if self.n.is_multiple_of(CPU_SAMPLE_EVERY)
            && let Some(c) = current_cpu()
        {
            self.cpus.insert(c);
        }
        self.n += 1;
        Ok(u64::from_le_bytes(
            self.buf[..8].try_into().expect("8 bytes"),
        ))
    }
}

/// A run may take at most twice its scheduled time plus 10 s.
fn deadline(start: u64, n: u64, rate: u64) -> u64 {
    let scheduled = (n as u128 * 1_000_000_000 / rate.max(1) as u128) as u64;
    start
        .saturating_add(scheduled.saturating_mul(2))
        .saturating_add(10_000_000_000)
}

/// Honest rate accounting: a run that fell behind its schedule, stalled longer than one
/// send interval, or hit the wall-clock cap says so.
fn run_warnings(d: &Drive, rec: &Recorder, rate: u64, iterations: u64) -> Vec<String> {
    let mut w = Vec::new();
    if d.capped {
        w.push(format!(
            "stopped by the wall-clock cap after {} of {iterations} iterations",
            d.completed
        ));
    }
    if let Some(a) = d.achieved_rate()
        && a < 0.99 * rate as f64
    {
        w.push(format!(
            "achieved {a:.0} msgs/s, below 99% of the target {rate}/s: the client could not keep the schedule"
        ));
    }
    let interval = Schedule::new(0, rate).interval_ns();
    let max = rec.end_to_end.max();
    if max > interval {
        w.push(format!(
            "max latency {:.1} us exceeds the send interval {:.1} us: later messages queued behind it",
            max as f64 / 1e3,
            interval as f64 / 1e3
        ));
    }
    w
}

fn client_session(
    cfg: &LoopbackConfig,
    rate: u64,
    clock: MonotonicClock,
    addr: SocketAddr,
    server_cpus: &Mutex<BTreeSet<usize>>,
    cpus_available: usize,
) -> anyhow::Result<MeasuredSet> {
    let stream = TcpStream::connect_timeout(&addr, REPLY_TIMEOUT)
        .context("connecting to the loopback server")?;
    let mut client = Client {
        conn: Conn::new(stream, cfg.mode == Mode::Spin, Some(REPLY_TIMEOUT), None)?
            .yielding(cfg.shares_core(cpus_available)),
        buf: vec![0u8; cfg.msg_size],
        n: 0,
        cpus: BTreeSet::new(),
    };
    let progress = |msg: String| {
        if cfg.progress {
            eprintln!("{msg}");
        }
    };
    let jitter_on = cfg.jitter_on(cpus_available);
    let mode = match cfg.mode {
        Mode::Spin => "spin",
        Mode::Block => "block",
    };
    let take_cpus = |m: &Mutex<BTreeSet<usize>>| {
        std::mem::take(&mut *m.lock().unwrap_or_else(|e| e.into_inner()))
    };

    // Warm-up at the same rate, recorded and thrown away.
    let mut warmup_ms = 0;
    if cfg.warmup > 0 {
        progress(format!("warm-up: {} iterations at {rate}/s", cfg.warmup));
        let start = clock.now_ns();
        let mut scratch = Recorder::new();
        let d = drive(
            &clock,
            &Schedule::new(start, rate),
            cfg.warmup,
            deadline(start, cfg.warmup, rate),
            &mut scratch,
            |sent| client.round_trip(sent),
        )?;
        warmup_ms = d.end.saturating_sub(start) / 1_000_000;
    }

    let mut runs = Vec::new();
    for index in 1..=cfg.runs {
        progress(format!(
            "run {index} of {} at {rate}/s ({} iterations)",
            cfg.runs, cfg.iterations
        ));
        take_cpus(server_cpus);
        client.cpus.clear();
        let jitter = if jitter_on {
            Some(start_jitter(clock)?)
        } else {
            None
        };
        let start_unix_s = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64());
        let start = clock.now_ns();
        let mut recorder = Recorder::new();
        let d = drive(
            &clock,
            &Schedule::new(start, rate),
            cfg.iterations,
            deadline(start, cfg.iterations, rate),
            &mut recorder,
            |sent| client.round_trip(sent),
        );
        let os_jitter = jitter.and_then(Jitter::finish);
        let d = d?;
        let client_cpus: Vec<usize> = client.cpus.iter().copied().collect();
        let server_cpus: Vec<usize> = take_cpus(server_cpus).into_iter().collect();
        let mut warnings = run_warnings(&d, &recorder, rate, cfg.iterations);
        let achieved = d.achieved_rate();
        if achieved.is_some_and(|a| a < 0.99 * rate as f64)
            && cfg.mode == Mode::Block
            && client_cpus != server_cpus
        {
            warnings.push(
                "client and server ran on different CPUs with blocking reads, so every \
                 message wakes the other CPU; compare with --pin-client N --pin-server N \
                 or --mode spin"
                    .to_string(),
            );
        }
        progress(format!(
            "run {index} of {}: achieved {} msgs/s (target {rate}/s)",
            cfg.runs,
            achieved.map_or("n/a".to_string(), |a| format!("{a:.0}"))
        ));
        runs.push(MeasuredRun {
            index,
            run_time_ms: d.end.saturating_sub(start) / 1_000_000,
            start_unix_s,
            achieved_rate: achieved,
            recorder,
            os_jitter,
            client_cpus,
            server_cpus,
            warnings,
        });
    }
    Ok(MeasuredSet {
        label: cfg
            .label
            .clone()
            .unwrap_or_else(|| format!("loopback {rate}/s")),
        target: rate,
        iterations: cfg.iterations,
        warmup: cfg.warmup,
        warmup_ms,
        mode,
        msg_size: cfg.msg_size,
        pin_client: cfg.pin_client,
        pin_server: cfg.pin_server,
        runs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny(mode: Mode, throughputs: Vec<u64>) -> LoopbackConfig {
        LoopbackConfig {
            throughputs,
            iterations: 2_000,
            warmup: 500,
            runs: 2,
            msg_size: 16,
            mode,
            pin_client: None,
            pin_server: None,
            label: None,
            os_jitter: Switch::Off,
            progress: false,
        }
    }

    fn assert_monotone(h: &Histogram<u64>) {
        let ps = [0.5, 0.9, 0.99, 0.999];
        let v: Vec<u64> = ps.iter().map(|&p| h.value_at_quantile(p)).collect();
        assert!(v.windows(2).all(|w| w[0] <= w[1]), "{v:?}");
        assert!(h.max() >= v[3]);
    }

    #[test]
    fn a_tiny_real_run_records_every_round_trip() {
        let sets = run(&tiny(Mode::Block, vec![20_000])).unwrap();
        assert_eq!(sets.len(), 1);
        let set = &sets[0];
        assert_eq!(set.label, "loopback 20000/s");
        assert_eq!(set.runs.len(), 2);
        for (i, r) in set.runs.iter().enumerate() {
            assert_eq!(r.index as usize, i + 1);
            assert_eq!(r.recorder.count(), 2_000);
            assert_eq!(r.recorder.client2server.len(), 2_000);
            assert_eq!(r.recorder.server2client.len(), 2_000);
            assert!(r.achieved_rate.is_some());
            assert!(!r.client_cpus.is_empty());
            assert!(!r.server_cpus.is_empty());
            // Measured from the intended time, never shorter than from the send time.
            assert!(r.recorder.end_to_end.max() >= r.recorder.end_to_end_uncorrected.max());
            assert_monotone(&r.recorder.end_to_end);
            assert_monotone(&r.recorder.end_to_end_uncorrected);
            assert!(r.os_jitter.is_none());
        }
    }

    #[test]
    fn spin_mode_sweep_gives_one_set_per_rate() {
        let mut cfg = tiny(Mode::Spin, vec![5_000, 20_000]);
        cfg.runs = 1;
        cfg.iterations = 500;
        cfg.warmup = 0;
        cfg.os_jitter = Switch::On;
        cfg.label = Some("sweep".into());
        let sets = run(&cfg).unwrap();
        assert_eq!(
            sets.iter().map(|s| s.target).collect::<Vec<_>>(),
            [5_000, 20_000]
        );
        for s in &sets {
            assert_eq!(s.label, "sweep");
            assert_eq!(s.runs.len(), 1);
            assert_eq!(s.runs[0].recorder.count(), 500);
            assert!(s.runs[0].os_jitter.is_some());
        }
    }

    #[test]
    fn bad_settings_are_refused() {
        let mut cfg = tiny(Mode::Block, vec![1_000]);
        cfg.msg_size = 4;
        assert!(run(&cfg).unwrap_err().to_string().contains("msg-size"));
        let mut cfg = tiny(Mode::Block, vec![1_000]);
        cfg.pin_client = Some(100_000);
        assert!(format!("{:#}", run(&cfg).unwrap_err()).contains("cannot pin"));
        let mut cfg = tiny(Mode::Block, vec![1_000]);
        cfg.pin_server = Some(4_000);
        assert!(format!("{:#}", run(&cfg).unwrap_err()).contains("cannot pin"));
    }

    /// Spin mode with both ends on one CPU must not degrade to one message per
    /// scheduler time slice.
    #[test]
    fn spin_mode_on_one_core_keeps_the_rate() {
        let Some(cpu) = core_affinity::get_core_ids().and_then(|v| v.first().copied()) else {
            return;
        };
        let mut cfg = tiny(Mode::Spin, vec![20_000]);
        cfg.runs = 1;
        cfg.iterations = 2_000;
        cfg.warmup = 0;
        cfg.pin_client = Some(cpu.id);
        cfg.pin_server = Some(cpu.id);
        assert!(cfg.shares_core(8));
        let started = Instant::now();
        let sets = run(&cfg).unwrap();
        assert_eq!(sets[0].runs[0].recorder.count(), 2_000);
        // 0.1 s scheduled; spinning without yielding took ~16 s here.
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{:?}",
            started.elapsed()
        );
    }

    /// A pinned spin client on a CPU of its own must spin, not yield: yielding hands the
    /// CPU to any other runnable thread there for a whole time slice per poll.
    #[test]
    fn a_pinned_spin_client_keeps_the_rate_beside_a_busy_thread() {
        let allowed = core_affinity::get_core_ids().unwrap_or_default();
        if allowed.len() < 2 {
            eprintln!("skipped: needs 2 CPUs");
            return;
        }
        let (c, s) = (allowed[0].id, allowed[1].id);
        let stop = Arc::new(AtomicBool::new(false));
        let stop2 = stop.clone();
        let hog = std::thread::spawn(move || {
            pin(c).unwrap();
            while !stop2.load(Ordering::Relaxed) {
                std::hint::spin_loop();
            }
        });
        let mut cfg = tiny(Mode::Spin, vec![20_000]);
        cfg.runs = 1;
        cfg.warmup = 0;
        cfg.pin_client = Some(c);
        cfg.pin_server = Some(s);
        let started = Instant::now();
        let sets = run(&cfg);
        stop.store(true, Ordering::Relaxed);
        hog.join().unwrap();
        assert_eq!(sets.unwrap()[0].runs[0].recorder.count(), 2_000);
        // 0.1 s scheduled; a yielding client managed ~250 round trips/s here.
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{:?}",
            started.elapsed()
        );
    }

    /// The server must not inherit the client's pinning.
    #[test]
    fn client_and_server_run_where_they_were_pinned() {
        let allowed = core_affinity::get_core_ids().unwrap_or_default();
        if allowed.len() < 2 {
            eprintln!("skipped: needs 2 CPUs");
            return;
        }
        let (c, s) = (allowed[0].id, allowed[1].id);
        let mut cfg = tiny(Mode::Block, vec![10_000]);
        cfg.runs = 1;
        cfg.iterations = 300;
        cfg.pin_client = Some(c);
        cfg.pin_server = Some(s);
        let sets = run(&cfg).unwrap();
        let r = &sets[0].runs[0];
        assert_eq!(r.client_cpus, [c]);
        assert_eq!(r.server_cpus, [s]);
        let params = sets[0].params(r);
        assert_eq!(params["pin_server"].as_f64(), Some(s as f64));
    }

    #[test]
    fn jitter_stays_off_where_it_would_steal_a_core() {
        let mut cfg = tiny(Mode::Spin, vec![1]);
        cfg.os_jitter = Switch::Auto;
        assert!(!cfg.jitter_on(2));
        assert!(cfg.jitter_on(3));
        cfg.mode = Mode::Block;
        assert!(!cfg.jitter_on(2));
        assert!(cfg.jitter_on(4));
        cfg.os_jitter = Switch::On;
        assert!(cfg.jitter_on(1));
        cfg.os_jitter = Switch::Off;
        assert!(!cfg.jitter_on(8));
    }

    #[test]
    fn warnings_report_a_missed_schedule() {
        let d = Drive {
            completed: 11,
            first_sent: Some(0),
            last_sent: Some(1_050_000),
            end: 1_100_000,
            capped: true,
            scheduled_start: 0,
            interval_ns: 50_000,
        };
        let mut rec = Recorder::new();
        rec.end_to_end.record(200_000).unwrap();
        let w = run_warnings(&d, &rec, 20_000, 100);
        assert_eq!(w.len(), 3, "{w:?}");
        assert!(w[0].contains("11 of 100"));
        assert!(w[1].contains("achieved 10000 msgs/s"));
        assert!(w[2].contains("exceeds the send interval 50.0 us"));
    }
}
