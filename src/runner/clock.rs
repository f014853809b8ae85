//! The time source of the runner, behind a small trait so the scheduler can be driven by
//! a fake clock in tests instead of sleeping. Owns no scheduling policy.

use std::cell::Cell;
use std::time::{Duration, Instant};

/// A monotonic nanosecond clock that can wait for a point in time.
pub trait Clock {
    /// Nanoseconds since the clock's origin.
    fn now_ns(&self) -> u64;
    /// Returns once `now_ns() >= t_ns` (at once when that time has passed), with the
    /// time it last read: callers use it as "now" instead of reading the clock again.
    fn wait_until(&self, t_ns: u64) -> u64;
}

/// The real clock: `Instant` nanoseconds since an origin shared by copies, so the client
/// and server threads can subtract each other's timestamps.
#[derive(Debug, Clone, Copy)]
pub struct MonotonicClock {
    origin: Instant,
}

impl MonotonicClock {
    pub fn new() -> Self {
        MonotonicClock {
            origin: Instant::now(),
        }
    }
}

impl Default for MonotonicClock {
    fn default() -> Self {
        Self::new()
    }
}

/// Waits longer than this are slept through (less the margin); shorter ones are spun,
/// because a sleep wakes up tens of microseconds late, which would shift the schedule.
const SLEEP_ABOVE_NS: u64 = 2_000_000;
const SLEEP_MARGIN_NS: u64 = 1_000_000;

impl Clock for MonotonicClock {
    fn now_ns(&self) -> u64 {
        self.origin.elapsed().as_nanos() as u64
    }

    fn wait_until(&self, t_ns: u64) -> u64 {
        loop {
            let now = self.now_ns();
            if now >= t_ns {
                return now;
            }
            let left = t_ns - now;
            if left > SLEEP_ABOVE_NS {
                std::thread::sleep(Duration::from_nanos(left - SLEEP_MARGIN_NS));
            } else {
                std::hint::spin_loop();
            }
        }
    }
}

/// A clock that only moves when told to: `wait_until` jumps to the target time.
/// For deterministic tests of scheduling and recording.
#[derive(Debug, Default)]
pub struct FakeClock {
    now: Cell<u64>,
}

impl FakeClock {
    pub fn new(start_ns: u64) -> Self {
        FakeClock {
            now: Cell::new(start_ns),
        }
    }

    /// Moves the clock forward by `ns`.
    pub fn advance(&self, ns: u64) {
        self.now.set(self.now.get() + ns);
    }
}

impl Clock for FakeClock {
    fn now_ns(&self) -> u64 {
        self.now.get()
    }

    fn wait_until(&self, t_ns: u64) -> u64 {
        if t_ns > self.now.get() {
            self.now.set(t_ns);
        }
        self.now.get()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fake_clock_waits_by_jumping() {
        let c = FakeClock::new(10);
        assert_eq!(c.wait_until(5), 10);
        assert_eq!(c.now_ns(), 10);
        assert_eq!(c.wait_until(100), 100);
        assert_eq!(c.now_ns(), 100);
        c.advance(7);
        assert_eq!(c.now_ns(), 107);
    }

    #[test]
    fn monotonic_clock_waits_at_least_until_target() {
        let c = MonotonicClock::new();
        let t = c.now_ns() + 200_000;
        let woke = c.wait_until(t);
        assert!(woke >= t);
        assert!(c.now_ns() >= woke);
    }
}
