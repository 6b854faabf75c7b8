//! The kbench knobs and the timing driver.

use std::time::Instant;

use super::walk::{DestWalk, DestWalkV4};
use super::{histogram, stats_line, Stats};

/// The interface of the flow, by index or by name, as the module's `flow_oif` / `flow_iif`
/// knobs accept it. Index 0 means none.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Iface {
    /// An interface index; 0 is no interface.
    Index(u32),
    /// An interface name, to be resolved by the caller.
    Name(String),
}

impl Default for Iface {
    fn default() -> Iface {
        Iface::Index(0)
    }
}

/// The module's knobs, with its defaults ([`Default`]).
///
/// The driver ([`run`], [`run_v4`], [`run_walk`]) uses the counts and the destination
/// range; the other flow fields are for the lookup closure to put into the flow it looks up.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct KbenchConfig {
    /// Lookups of the start address before timing (default 100,000).
    pub warmup_count: u64,
    /// Successful (timed) lookups wanted (default 5,000). Also sizes the destination step.
    pub loop_count: u64,
    /// Cap on all timed attempts, hits and misses (default 1,000,000).
    pub max_loop_count: u64,
    /// Output interface of the flow (default index 0, none).
    pub flow_oif: Iface,
    /// Input interface of the flow (default index 0, none).
    pub flow_iif: Iface,
    /// Firewall mark of the flow (default 0).
    pub flow_mark: u32,
    /// IPv6 flow label (default 0).
    pub flow_label: u32,
    /// IPv6 source address (default `::`).
    pub flow_src: u128,
    /// First IPv6 destination of the scan (default `2000::`).
    pub flow_dst_start: u128,
    /// Last IPv6 destination of the scan (default `3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff`).
    pub flow_dst_end: u128,
    /// IP protocol of the flow (default 6, TCP).
    pub protocol: u8,
    /// IPv4 source address (default `0.0.0.0`). fibkit's extension, for [`run_v4`].
    pub flow_src4: u32,
    /// First IPv4 destination of the scan (default `1.0.0.0`). fibkit's extension, for
    /// [`run_v4`].
    pub flow_dst4_start: u32,
    /// Last IPv4 destination of the scan (default `223.255.255.255`, the end of the unicast
    /// space). fibkit's extension, for [`run_v4`].
    pub flow_dst4_end: u32,
}

impl Default for KbenchConfig {
    fn default() -> KbenchConfig {
        KbenchConfig {
            warmup_count: 100_000,
            loop_count: 5_000,
            max_loop_count: 1_000_000,
            flow_oif: Iface::default(),
            flow_iif: Iface::default(),
            flow_mark: 0,
            flow_label: 0,
            flow_src: 0,
            flow_dst_start: 0x2000u128 << 112,
            flow_dst_end: (0x4000u128 << 112) - 1,
            protocol: 6,
            flow_src4: 0,
            flow_dst4_start: 0x0100_0000,
            flow_dst4_end: 0xdfff_ffff,
        }
    }
}

/// What a timed lookup returned, as kbench counts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// Anything but "network unreachable", errors included: the time is recorded.
    Hit,
    /// No route (ENETUNREACH): the attempt counts, its time is not recorded.
    Miss,
}

impl From<bool> for Outcome {
    /// `true` is a hit.
    fn from(hit: bool) -> Outcome {
        if hit {
            Outcome::Hit
        } else {
            Outcome::Miss
        }
    }
}

/// The samples and counters of one run.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct KbenchResult {
    /// `t2 − t1` of every hit, in the order measured, in the clock's unit.
    pub samples: Vec<u64>,
    /// Timed attempts made, hits and misses.
    pub attempts: u64,
    /// Warm-up lookups made.
    pub warmups: u64,
}

impl KbenchResult {
    /// Number of hits (recorded samples).
    pub fn hits(&self) -> u64 {
        self.samples.len() as u64
    }

    /// Number of misses (attempts whose lookup found no route).
    pub fn misses(&self) -> u64 {
        self.attempts - self.hits()
    }

    /// The samples sorted ascending, as [`super::histogram`] wants them.
    pub fn sorted_samples(&self) -> Vec<u64> {
        let mut s = self.samples.clone();
        s.sort_unstable();
        s
    }

    /// The statistics, `None` when nothing hit.
    pub fn stats(&self) -> Option<Stats> {
        Stats::from_samples(&self.samples)
    }

    /// The module's first output line (see [`super::stats_line`]).
    pub fn stats_line(&self) -> String {
        stats_line(&self.samples)
    }

    /// The module's verbose histogram (see [`super::histogram`]).
    pub fn histogram(&self) -> String {
        histogram(&self.sorted_samples())
    }
}

/// The unit of [`default_clock`].
///
/// The module counts TSC cycles. On this project's toolchain `core::arch::x86_64::_rdtsc`
/// is still an `unsafe fn`, and this crate forbids `unsafe`, so the default clock reads
/// [`std::time::Instant`] and counts nanoseconds. A caller that has a cycle counter can
/// pass it to the driver instead; results must then be labelled in cycles.
pub const DEFAULT_CLOCK_UNIT: &str = "ns";

/// The default clock: nanoseconds elapsed since the clock was made, from
/// [`std::time::Instant`] (monotonic). See [`DEFAULT_CLOCK_UNIT`] for why not cycles.
pub fn default_clock() -> impl FnMut() -> u64 {
    let origin = Instant::now();
    move || u64::try_from(origin.elapsed().as_nanos()).unwrap_or(u64::MAX)
}

/// Runs kbench over IPv6 destinations: [`run_walk`] from `cfg.flow_dst_start` with a
/// [`DestWalk`] over `cfg.flow_dst_start..=cfg.flow_dst_end` sized by `cfg.loop_count`.
///
/// `lookup` gets the destination; the rest of the flow is in `cfg`.
pub fn run<C, F, R>(cfg: &KbenchConfig, clock: &mut C, lookup: F) -> KbenchResult
where
    C: FnMut() -> u64,
    F: FnMut(u128) -> R,
    R: Into<Outcome>,
{
    let walk = DestWalk::new(cfg.flow_dst_start, cfg.flow_dst_end, cfg.loop_count);
    run_walk(cfg, cfg.flow_dst_start, walk, clock, lookup)
}

/// Runs kbench over IPv4 destinations (fibkit's extension): [`run_walk`] from
/// `cfg.flow_dst4_start` with a [`DestWalkV4`] over
/// `cfg.flow_dst4_start..=cfg.flow_dst4_end` sized by `cfg.loop_count`.
pub fn run_v4<C, F, R>(cfg: &KbenchConfig, clock: &mut C, lookup: F) -> KbenchResult
where
    C: FnMut() -> u64,
    F: FnMut(u32) -> R,
    R: Into<Outcome>,
{
    let walk = DestWalkV4::new(cfg.flow_dst4_start, cfg.flow_dst4_end, cfg.loop_count);
    run_walk(cfg, cfg.flow_dst4_start, walk, clock, lookup)
}

/// The kbench loop over any destinations.
///
/// 1. `cfg.warmup_count` lookups of `warmup_dst`, untimed, results ignored.
/// 2. Up to `cfg.max_loop_count` attempts, stopping early once `cfg.loop_count` hits are
///    recorded or `walk` runs out: take the next destination, `t1 = clock()`,
///    `r = lookup(dst)`, `t2 = clock()`, then convert `r` into an [`Outcome`] (and drop
///    it) outside the timed region; on a hit record `t2 − t1` (wrapping, as the module's
///    unsigned subtraction).
///
/// Nothing here reads a clock of its own: `clock` is the only time source.
pub fn run_walk<A, W, C, F, R>(
    cfg: &KbenchConfig,
    warmup_dst: A,
    walk: W,
    clock: &mut C,
    mut lookup: F,
) -> KbenchResult
where
    A: Copy,
    W: IntoIterator<Item = A>,
    C: FnMut() -> u64,
    F: FnMut(A) -> R,
    R: Into<Outcome>,
{
    let mut result = KbenchResult::default();
    for _ in 0..cfg.warmup_count {
        drop(lookup(warmup_dst));
        result.warmups += 1;
    }
    let mut walk = walk.into_iter();
    while result.attempts < cfg.max_loop_count && result.hits() < cfg.loop_count {
        let Some(dst) = walk.next() else { break };
        let t1 = clock();
        let r = lookup(dst);
        let t2 = clock();
        result.attempts += 1;
        if r.into() == Outcome::Hit {
            result.samples.push(t2.wrapping_sub(t1));
        }
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ticking() -> impl FnMut() -> u64 {
        let mut t = 0u64;
        move || {
            t += 10;
            t
        }
    }

    #[test]
    fn defaults_are_the_module_knobs() {
        let c = KbenchConfig::default();
        assert_eq!(c.warmup_count, 100_000);
        assert_eq!(c.loop_count, 5_000);
        assert_eq!(c.max_loop_count, 1_000_000);
        assert_eq!(
            c.flow_dst_start,
            "2000::".parse::<std::net::Ipv6Addr>().unwrap().into()
        );
        assert_eq!(
            c.flow_dst_end,
            "3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"
                .parse::<std::net::Ipv6Addr>()
                .unwrap()
                .into()
        );
        assert_eq!(
            (c.flow_src, c.flow_mark, c.flow_label, c.protocol),
            (0, 0, 0, 6)
        );
        assert_eq!(
            (c.flow_oif.clone(), c.flow_iif.clone()),
            (Iface::Index(0), Iface::Index(0))
        );
    }

    #[test]
    fn warmup_then_walk_until_loop_count_hits() {
        let cfg = KbenchConfig {
            warmup_count: 7,
            loop_count: 3,
            ..KbenchConfig::default()
        };
        let mut seen = Vec::new();
        let mut clock = ticking();
        let res = run(&cfg, &mut clock, |dst| {
            seen.push(dst);
            Outcome::Hit
        });
        assert_eq!(res.warmups, 7);
        assert_eq!(res.attempts, 3);
        assert_eq!(res.samples, vec![10, 10, 10]);
        assert!(seen[..7].iter().all(|&d| d == cfg.flow_dst_start));
        let walk: Vec<u128> = DestWalk::new(cfg.flow_dst_start, cfg.flow_dst_end, 3)
            .take(3)
            .collect();
        assert_eq!(&seen[7..], &walk[..]);
    }

    #[test]
    fn misses_are_not_recorded_and_attempts_are_capped() {
        let cfg = KbenchConfig {
            warmup_count: 0,
            loop_count: 10,
            max_loop_count: 25,
            ..KbenchConfig::default()
        };
        let mut n = 0u32;
        let res = run_v4(&cfg, &mut ticking(), |_| {
            n += 1;
            n % 5 == 0
        });
        assert_eq!(res.attempts, 25);
        assert_eq!(res.hits(), 5);
        assert_eq!(res.misses(), 20);
    }

    #[test]
    fn finite_walk_stops_the_run_and_no_hit_is_no_match() {
        let cfg = KbenchConfig {
            warmup_count: 1,
            ..KbenchConfig::default()
        };
        let res = run_walk(&cfg, 0u32, [1u32, 2, 3], &mut ticking(), |_| Outcome::Miss);
        assert_eq!(res.attempts, 3);
        assert_eq!(res.stats_line(), "msg=\"no match\"\n");
        assert_eq!(res.histogram(), "");
        assert_eq!(res.stats(), None);
    }

    #[test]
    fn default_clock_is_monotonic() {
        let mut c = default_clock();
        let a = c();
        let b = c();
        assert!(b >= a);
    }
}
