//! Socket plumbing shared by the loopback runners: whole-message reads and writes over a
//! TCP stream in blocking or busy-poll mode, with bounded waits so a dead or silent peer
//! becomes an error (or a clean stop), never a hang; and thread placement helpers.

use std::io::{self, ErrorKind, Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How long a client waits for a reply before it calls the peer dead.
pub const REPLY_TIMEOUT: Duration = Duration::from_secs(5);
/// How often a blocked server wakes up to look at its stop flag.
const SERVER_POLL: Duration = Duration::from_millis(50);
/// Busy-poll iterations between two looks at the clock or the stop flag.
const SPINS_PER_CHECK: u32 = 4096;

/// One end of a message connection.
pub struct Conn {
    stream: TcpStream,
    spin: bool,
    /// Client side: give up after this long without data. Server side: `None`, stop
    /// when `stop` is raised instead.
    idle_limit: Option<Duration>,
    stop: Option<std::sync::Arc<AtomicBool>>,
    /// Busy-poll by yielding the CPU: when both ends share one core, plain spinning
    /// would keep the peer off it for a whole scheduler time slice.
    yield_idle: bool,
}

impl Conn {
    /// Sets TCP_NODELAY and the mode: non-blocking for busy-poll, otherwise blocking
    /// reads with a timeout so the idle limit or stop flag is honoured.
    pub fn new(
        stream: TcpStream,
        spin: bool,
        idle_limit: Option<Duration>,
        stop: Option<std::sync::Arc<AtomicBool>>,
    ) -> io::Result<Conn> {
        stream.set_nodelay(true)?;
        stream.set_nonblocking(spin)?;
        if !spin {
            stream.set_read_timeout(Some(idle_limit.unwrap_or(SERVER_POLL).min(SERVER_POLL)))?;
        }
        Ok(Conn {
            stream,
            spin,
            idle_limit,
            stop,
            yield_idle: false,
        })
    }

    /// In busy-poll mode, yield the CPU between polls instead of spinning.
    pub fn yielding(mut self, yes: bool) -> Self {
        self.yield_idle = yes;
        self
    }

    /// One idle busy-poll step. Plain spinning adds no pause: the non-blocking read
    /// that comes next is a system call, which paces the loop already, and a pause
    /// would only delay seeing a reply that has just arrived.
    fn idle(&self) {
        if self.yield_idle {
            std::thread::yield_now();
        }
    }

    fn stopped(&self) -> bool {
        self.stop
            .as_ref()
            .is_some_and(|s| s.load(Ordering::Relaxed))
    }

    /// Reads exactly `buf.len()` bytes. `Ok(false)` when the peer closed the connection
    /// cleanly before the first byte, or the stop flag was raised while idle.
    pub fn read_msg(&mut self, buf: &mut [u8]) -> io::Result<bool> {
        let mut got = 0;
        let mut idle_since: Option<Instant> = None;
        let mut spins = 0u32;
        while got < buf.len() {
            match self.stream.read(&mut buf[got..]) {
                Ok(0) if got == 0 => return Ok(false),
                Ok(0) => {
                    return Err(io::Error::new(
                        ErrorKind::UnexpectedEof,
                        format!(
                            "peer closed the connection after {got} of {} bytes",
                            buf.len()
                        ),
                    ));
                }
                Ok(n) => {
                    got += n;
                    idle_since = None;
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                    if self.spin {
                        spins += 1;
                        if spins < SPINS_PER_CHECK {
                            self.idle();
                            continue;
                        }
                        spins = 0;
                    }
                    if got == 0 && self.stopped() {
                        return Ok(false);
                    }
                    let since = *idle_since.get_or_insert_with(Instant::now);
                    if let Some(limit) = self.idle_limit
                        && since.elapsed() >= limit
                    {
                        return Err(io::Error::new(
                            ErrorKind::TimedOut,
                            format!("no reply from the peer within {} s", limit.as_secs_f64()),
                        ));
                    }
                }
                Err(e) => return Err(e),
            }
        }
        Ok(true)
    }

    /// Writes all of `buf`, busy-polling on a full send buffer in spin mode.
    pub fn write_msg(&mut self, buf: &[u8]) -> io::Result<()> {
        let mut sent = 0;
        let start = Instant::now();
        while sent < buf.len() {
            match self.stream.write(&buf[sent..]) {
                Ok(0) => return Err(io::Error::new(ErrorKind::WriteZero, "peer stopped reading")),
                Ok(n) => sent += n,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) if e.kind() == ErrorKind::WouldBlock => {
                    if start.elapsed() > REPLY_TIMEOUT {
                        return Err(io::Error::new(
                            ErrorKind::TimedOut,
                            "the peer stopped reading for 5 s",
                        ));
                    }
                    self.idle();
                }
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

/// The CPU the calling thread runs on now (`sched_getcpu`), when the OS says.
pub fn current_cpu() -> Option<usize> {
    // SAFETY: sched_getcpu takes no arguments and only reads per-thread kernel state.
    let c = unsafe { libc::sched_getcpu() };
    usize::try_from(c).ok()
}

/// Pins the calling thread to `cpu`; an error when the CPU does not exist or the OS refuses.
/// (Not checked against `core_affinity::get_core_ids`, which lists only the CPUs of the
/// calling thread's current mask, so a thread started by a pinned thread would see one.)
pub fn pin(cpu: usize) -> anyhow::Result<()> {
    // CPU ids beyond the kernel's cpu_set_t would make `CPU_SET` index out of bounds.
    let in_set = cpu < libc::CPU_SETSIZE as usize;
    if !in_set || !core_affinity::set_for_current(core_affinity::CoreId { id: cpu }) {
        anyhow::bail!(
            "cannot pin a thread to CPU {cpu}: this machine has CPUs 0 to {}",
            online_cpus().saturating_sub(1)
        );
    }
    Ok(())
}

/// CPUs online on the machine, whatever this thread's affinity.
fn online_cpus() -> usize {
    // SAFETY: sysconf only reads a system constant.
    let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    usize::try_from(n).unwrap_or(1)
}

/// How many CPUs this process may use.
pub fn cpu_count() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    fn pair(spin: bool) -> (Conn, Conn) {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let c = TcpStream::connect(l.local_addr().unwrap()).unwrap();
        let (s, _) = l.accept().unwrap();
        (
            Conn::new(c, spin, Some(Duration::from_millis(300)), None).unwrap(),
            Conn::new(s, spin, None, None).unwrap(),
        )
    }

    #[test]
    fn messages_cross_in_both_modes() {
        for spin in [false, true] {
            let (mut c, mut s) = pair(spin);
            c.write_msg(&[7u8; 16]).unwrap();
            let mut buf = [0u8; 16];
            assert!(s.read_msg(&mut buf).unwrap());
            assert_eq!(buf, [7u8; 16]);
        }
    }

    #[test]
    fn yielding_poll_still_delivers() {
        let (c, s) = pair(true);
        let (mut c, mut s) = (c.yielding(true), s.yielding(true));
        let t = std::thread::spawn(move || {
            let mut buf = [0u8; 8];
            assert!(s.read_msg(&mut buf).unwrap());
            s.write_msg(&buf).unwrap();
        });
        c.write_msg(&[3u8; 8]).unwrap();
        let mut buf = [0u8; 8];
        assert!(c.read_msg(&mut buf).unwrap());
        assert_eq!(buf, [3u8; 8]);
        t.join().unwrap();
    }

    #[test]
    fn a_silent_peer_is_an_error_and_a_closed_one_a_clean_end() {
        for spin in [false, true] {
            let (mut c, s) = pair(spin);
            let mut buf = [0u8; 8];
            let e = c.read_msg(&mut buf).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::TimedOut);
            drop(s);
            assert!(!c.read_msg(&mut buf).unwrap());
        }
    }

    #[test]
    fn current_cpu_is_known_on_linux() {
        assert!(current_cpu().is_some_and(|c| c < 4096));
    }
}
