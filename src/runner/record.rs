//! Latency recording: one HDR histogram (nanoseconds) per series of a loopback run.
//! Recording must stay cheap (tens of nanoseconds): no allocation, no locking.

use hdrhistogram::Histogram;

/// Highest value a histogram tracks (one hour in ns); larger samples saturate rather
/// than fail, so one pathological stall cannot abort a run.
const MAX_NS: u64 = 3_600_000_000_000;
/// Three significant figures, as JLBH's and wrk2's histograms.
const SIGFIG: u8 = 3;

/// A new empty nanosecond histogram with the runner's bounds.
pub fn new_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, MAX_NS, SIGFIG).expect("constant histogram bounds are valid")
}

/// Timestamps of one round trip, all from the same clock (ns).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RoundTrip {
    /// When the message should have been sent (start + i/rate).
    pub intended: u64,
    /// When it was actually sent.
    pub sent: u64,
    /// When the server read it (carried back in the reply).
    pub server: u64,
    /// When the client had read the whole reply.
    pub received: u64,
}

/// The four histograms of a loopback run.
#[derive(Debug, Clone)]
pub struct Recorder {
    /// From the intended send time: corrects for coordinated omission.
    pub end_to_end: Histogram<u64>,
    /// From the actual send time: what a naive client reports.
    pub end_to_end_uncorrected: Histogram<u64>,
    pub client2server: Histogram<u64>,
    pub server2client: Histogram<u64>,
}

impl Default for Recorder {
    fn default() -> Self {
        Self::new()
    }
}

impl Recorder {
    pub fn new() -> Self {
        Recorder {
            end_to_end: new_histogram(),
            end_to_end_uncorrected: new_histogram(),
            client2server: new_histogram(),
            server2client: new_histogram(),
        }
    }

    /// Records one round trip. Zero durations are recorded as 1 ns (the histogram's
    /// lowest trackable value is 1) and clock steps backwards as 0-length, i.e. 1 ns.
    #[inline]
    pub fn record(&mut self, rt: &RoundTrip) {
        let at_least_1 = |d: u64| d.max(1);
        self.end_to_end
            .saturating_record(at_least_1(rt.received.saturating_sub(rt.intended)));
        self.end_to_end_uncorrected
            .saturating_record(at_least_1(rt.received.saturating_sub(rt.sent)));
        self.client2server
            .saturating_record(at_least_1(rt.server.saturating_sub(rt.sent)));
        self.server2client
            .saturating_record(at_least_1(rt.received.saturating_sub(rt.server)));
    }

    /// Number of round trips recorded.
    pub fn count(&self) -> u64 {
        self.end_to_end.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_each_leg_from_its_timestamps() {
        let mut r = Recorder::new();
        r.record(&RoundTrip {
            intended: 1_000,
            sent: 1_500,
            server: 1_700,
            received: 2_000,
        });
        assert_eq!(r.count(), 1);
        assert!(r.end_to_end.equivalent(r.end_to_end.max(), 1_000));
        assert!(
            r.end_to_end_uncorrected
                .equivalent(r.end_to_end_uncorrected.max(), 500)
        );
        assert!(r.client2server.equivalent(r.client2server.max(), 200));
        assert!(r.server2client.equivalent(r.server2client.max(), 300));
    }

    #[test]
    fn clock_steps_backwards_do_not_panic() {
        let mut r = Recorder::new();
        r.record(&RoundTrip {
            intended: 10,
            sent: 10,
            server: 5,
            received: 10,
        });
        assert!(r.client2server.equivalent(r.client2server.max(), 1));
        assert_eq!(r.count(), 1);
    }
}
