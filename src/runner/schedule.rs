//! The open-loop schedule: message i is due at start + i/rate, whatever happened to
//! message i−1. Measuring from that intended time is the coordinated-omission correction
//! (JLBH, wrk2); the actual send time gives the uncorrected view. No sockets here.

use super::clock::Clock;
use super::record::{Recorder, RoundTrip};

/// Intended send times of an open-loop schedule.
#[derive(Debug, Clone, Copy)]
pub struct Schedule {
    start_ns: u64,
    rate: u64,
}

impl Schedule {
    /// `rate` messages per second from `start_ns`; a rate of 0 is treated as 1.
    pub fn new(start_ns: u64, rate: u64) -> Self {
        Schedule {
            start_ns,
            rate: rate.max(1),
        }
    }

    /// When message `i` (0-based) is due. Computed from `i` rather than accumulated,
    /// so rounding never drifts the schedule.
    pub fn intended(&self, i: u64) -> u64 {
        self.start_ns + (i as u128 * 1_000_000_000 / self.rate as u128) as u64
    }

    /// The interval between two messages in ns (integer, as JLBH prints it).
    pub fn interval_ns(&self) -> u64 {
        1_000_000_000 / self.rate
    }
}

/// What one driven sequence of iterations achieved.
#[derive(Debug, Clone, PartialEq)]
pub struct Drive {
    /// Round trips completed (= requested unless the wall-clock cap stopped it).
    pub completed: u64,
    /// Actual send time of the first and last message (ns).
    pub first_sent: Option<u64>,
    pub last_sent: Option<u64>,
    /// When the last reply arrived (ns).
    pub end: u64,
    /// The wall-clock cap stopped the run early.
    pub capped: bool,
    /// Intended time of the first message and the schedule's interval (ns).
    pub scheduled_start: u64,
    pub interval_ns: u64,
}

impl Drive {
    /// Messages per second actually sent: n over the time from the schedule's start to
    /// the last send plus one interval (the time the schedule gives n messages). On
    /// schedule this is the target; a client that falls behind sends later and shows
    /// less; it can never show more than the target.
    pub fn achieved_rate(&self) -> Option<f64> {
        let last = self.last_sent?;
        let span = last.saturating_sub(self.scheduled_start) + self.interval_ns;
        (self.completed > 0 && span > 0).then(|| self.completed as f64 * 1e9 / span as f64)
    }
}

/// Runs `n` iterations on `schedule`: waits for each intended time, calls `round_trip`
/// with the actual send time, which returns the server's timestamp, and records the
/// round trip. Stops early (with `capped`) once the clock passes `deadline_ns`.
pub fn drive<C: Clock, E>(
    clock: &C,
    schedule: &Schedule,
    n: u64,
    deadline_ns: u64,
    recorder: &mut Recorder,
    mut round_trip: impl FnMut(u64) -> Result<u64, E>,
) -> Result<Drive, E> {
    let mut out = Drive {
        completed: 0,
        first_sent: None,
        last_sent: None,
        end: clock.now_ns(),
        capped: false,
        scheduled_start: schedule.intended(0),
        interval_ns: schedule.interval_ns(),
    };
    for i in 0..n {
        let intended = schedule.intended(i);
        // The time the wait ended is the send time: one clock read fewer per message,
        // which counts when sending back-to-back.
        let sent = clock.wait_until(intended);
        if sent > deadline_ns {
            out.capped = true;
            break;
        }
        let server = round_trip(sent)?;
        let received = clock.now_ns();
        recorder.record(&RoundTrip {
            intended,
            sent,
            server,
            received,
        });
        out.first_sent.get_or_insert(sent);
        out.last_sent = Some(sent);
        out.completed += 1;
        out.end = received;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::clock::FakeClock;

    #[test]
    fn intended_times_do_not_drift() {
        let s = Schedule::new(1_000, 3);
        assert_eq!(s.intended(0), 1_000);
        assert_eq!(s.intended(1), 1_000 + 333_333_333);
        assert_eq!(s.intended(3), 1_000 + 1_000_000_000);
        assert_eq!(s.interval_ns(), 333_333_333);
        assert_eq!(Schedule::new(0, 0).interval_ns(), 1_000_000_000);
    }

    /// Every reply takes 10 µs at 20k/s (50 µs apart): on schedule, corrected and
    /// uncorrected agree.
    #[test]
    fn on_schedule_both_views_agree() {
        let clock = FakeClock::new(0);
        let s = Schedule::new(0, 20_000);
        let mut rec = Recorder::new();
        let d = drive(&clock, &s, 100, u64::MAX, &mut rec, |_sent| {
            clock.advance(4_000);
            let server = clock.now_ns();
            clock.advance(6_000);
            Ok::<_, ()>(server)
        })
        .unwrap();
        assert_eq!(d.completed, 100);
        assert!(!d.capped);
        assert_eq!(d.first_sent, Some(0));
        assert_eq!(d.last_sent, Some(99 * 50_000));
        assert_eq!(d.achieved_rate(), Some(20_000.0));
        assert_eq!(rec.count(), 100);
        assert!(rec.end_to_end.equivalent(rec.end_to_end.max(), 10_000));
        assert!(
            rec.end_to_end_uncorrected
                .equivalent(rec.end_to_end_uncorrected.max(), 10_000)
        );
        assert!(rec.client2server.equivalent(rec.client2server.max(), 4_000));
        assert!(rec.server2client.equivalent(rec.server2client.max(), 6_000));
    }

    /// One 1 ms stall: the uncorrected view sees one slow sample, the corrected view
    /// also charges the messages that were queued behind it.
    #[test]
    fn a_stall_is_charged_to_the_messages_behind_it() {
        let clock = FakeClock::new(0);
        let s = Schedule::new(0, 20_000);
        let mut rec = Recorder::new();
        let mut i = 0;
        let d = drive(&clock, &s, 100, u64::MAX, &mut rec, |_| {
            i += 1;
            clock.advance(if i == 10 { 1_000_000 } else { 10_000 });
            Ok::<_, ()>(clock.now_ns())
        })
        .unwrap();
        assert_eq!(d.completed, 100);
        // Uncorrected: one sample of 1 ms, the rest 10 µs.
        assert_eq!(
            rec.end_to_end_uncorrected.count_between(999_000, 1_001_000),
            1
        );
        assert_eq!(rec.end_to_end_uncorrected.count_between(9_990, 10_010), 99);
        // Corrected: the stalled message and the 24 sent late behind it until the
        // client caught up (message k is sent at 1450 + 10·(k − 10) µs, due at 50·k µs).
        assert_eq!(rec.end_to_end.count_between(20_001, 1_001_000), 25);
        assert!(
            rec.end_to_end.value_at_quantile(0.9)
                > rec.end_to_end_uncorrected.value_at_quantile(0.9)
        );
        // It caught up before the end, so the send rate over the run is on target.
        assert_eq!(d.achieved_rate(), Some(20_000.0));
    }

    /// Replies take 100 µs at 20k/s: the client cannot keep the schedule.
    #[test]
    fn a_slow_peer_lowers_the_achieved_rate() {
        let clock = FakeClock::new(0);
        let s = Schedule::new(0, 20_000);
        let mut rec = Recorder::new();
        let d = drive(&clock, &s, 11, u64::MAX, &mut rec, |_| {
            clock.advance(100_000);
            Ok::<_, ()>(clock.now_ns())
        })
        .unwrap();
        // 11 messages sent by 1000 µs, where the schedule needed 550 µs.
        assert_eq!(d.achieved_rate(), Some(11.0 * 1e9 / 1_050_000.0));
        // The last message was due at 500 µs and answered at 1100 µs.
        assert!(rec.end_to_end.equivalent(rec.end_to_end.max(), 600_000));
    }

    #[test]
    fn deadline_caps_the_run() {
        let clock = FakeClock::new(0);
        let s = Schedule::new(0, 1_000);
        let mut rec = Recorder::new();
        let d = drive(&clock, &s, 1_000, 10_000_000, &mut rec, |_| {
            clock.advance(1);
            Ok::<_, ()>(clock.now_ns())
        })
        .unwrap();
        assert!(d.capped);
        assert_eq!(d.completed, 11);
        assert_eq!(rec.count(), 11);
    }

    #[test]
    fn errors_stop_the_drive() {
        let clock = FakeClock::new(0);
        let s = Schedule::new(0, 1_000);
        let mut rec = Recorder::new();
        let mut k = 0;
        let r = drive(&clock, &s, 10, u64::MAX, &mut rec, |_| {
            k += 1;
            if k == 3 {
                Err("peer closed")
            } else {
                Ok(clock.now_ns())
            }
        });
        assert_eq!(r, Err("peer closed"));
        assert_eq!(rec.count(), 2);
    }
}
