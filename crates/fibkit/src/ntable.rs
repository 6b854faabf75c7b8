//! The neighbour tables' parameters (`struct neigh_parms`): one set per device and
//! family, made with the family's state on the device (`neigh_parms_alloc`, from
//! `inetdev_init` and `ipv6_add_dev`) and gone with it, read and written by
//! `ip ntable` (`neightbl_dump_info`, `neightbl_set`) and by the
//! `net.ipv4|ipv6.neigh.DEV.*` sysctls, and read by the neighbour timers.
//!
//! The kernel keeps each value as an `int`: times in jiffies (HZ 250 here), the queue
//! in bytes (`QUEUE_LEN_BYTES`, a packet counting as `SKB_TRUESIZE(ETH_FRAME_LEN)`),
//! the rest as counts; what `ip ntable` and the sysctls write is converted to that,
//! and what they read is converted back, so values come back rounded to a jiffy and
//! wrapped as the kernel's conversions wrap them. The table-wide settings (thresholds,
//! garbage collection interval) and the tables' default parameters belong to the
//! initial namespace: a namespace lists them and cannot change them.
//!
//! `reachable` is drawn at random (`neigh_rand_reach_time`: below the base time, plus
//! half of it) when the parameters are made and whenever their base time changes
//! (and every 300 s by `neigh_periodic_work`, not modelled); it is only predictable
//! for a base time of at most one jiffy (0). fibkit draws from its own generator.

use crate::error::Errno;
use crate::netns::Netns;

/// Milliseconds per jiffy (HZ 250).
const JIFFY_MS: i64 = 4;
/// `HZ`.
const HZ: i64 = 250;
/// `USER_HZ`: the unit of the `..._delay`, `locktime` and IPv4 `retrans_time` sysctls.
const USER_HZ: i64 = 100;
/// `SKB_TRUESIZE(ETH_FRAME_LEN)` on this kernel: `unres_qlen` and `queue` count
/// packets of this many bytes (recorded: `unres_qlen`'s maximum is INT_MAX / 2090).
pub const QUEUE_TRUESIZE: i64 = 2090;
/// `MAX_JIFFY_OFFSET` as an `int` keeps it (`msecs_to_jiffies` of a "negative" time).
const MAX_JIFFY_INT: i32 = -2;

/// The neighbour table of a family: `arp_cache` (IPv4) or `ndisc_cache` (IPv6).
pub fn table_name(v6: bool) -> &'static str {
    if v6 {
        "ndisc_cache"
    } else {
        "arp_cache"
    }
}

/// One device's parameters (or a table's defaults), each as the kernel's `int`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NeighParms {
    /// Creation order: the kernel lists the newest first.
    pub(crate) seq: u64,
    /// `reachable_time`, jiffies (an `unsigned long`).
    pub reachable: u64,
    /// `BASE_REACHABLE_TIME`, jiffies.
    pub base_reachable: i32,
    /// `RETRANS_TIME`, jiffies.
    pub retrans: i32,
    /// `GC_STALETIME`, jiffies.
    pub gc_stale: i32,
    /// `DELAY_PROBE_TIME`, jiffies.
    pub delay_probe: i32,
    /// `QUEUE_LEN_BYTES`.
    pub queue_bytes: i32,
    /// `APP_PROBES`.
    pub app_probes: i32,
    /// `UCAST_PROBES`.
    pub ucast_probes: i32,
    /// `MCAST_PROBES`.
    pub mcast_probes: i32,
    /// `MCAST_REPROBES`.
    pub mcast_reprobes: i32,
    /// `ANYCAST_DELAY`, jiffies.
    pub anycast_delay: i32,
    /// `PROXY_DELAY`, jiffies.
    pub proxy_delay: i32,
    /// `PROXY_QLEN`.
    pub proxy_qlen: i32,
    /// `LOCKTIME`, jiffies.
    pub locktime: i32,
}

/// What `ip ntable change` writes into a set of parameters (`NDTPA_*`): times in
/// milliseconds (`nla_get_msecs`), the others as the unsigned 32-bit numbers sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParmChange {
    /// `base_reachable MSEC`
    BaseReachable(u64),
    /// `retrans MSEC`
    Retrans(u64),
    /// `gc_stale MSEC`
    GcStale(u64),
    /// `delay_probe MSEC`
    DelayProbe(u64),
    /// `queue LEN` (packets)
    Queue(u32),
    /// `app_probes VAL`
    AppProbes(u32),
    /// `ucast_probes VAL`
    UcastProbes(u32),
    /// `mcast_probes VAL`
    McastProbes(u32),
    /// `anycast_delay MSEC`
    AnycastDelay(u64),
    /// `proxy_delay MSEC`
    ProxyDelay(u64),
    /// `proxy_queue LEN`
    ProxyQueue(u32),
    /// `locktime MSEC`
    Locktime(u64),
}

/// One entry of `ip ntable show` (`RTM_NEWNEIGHTBL`): a table's header with its
/// default parameters (`dev` none), or a device's parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NtableEntry {
    /// IPv6's `ndisc_cache` rather than IPv4's `arp_cache`.
    pub v6: bool,
    /// The device (none: the table's header).
    pub dev: Option<u32>,
    /// `NDTPA_REFCNT`.
    pub refcnt: u32,
    /// The parameters.
    pub parms: NeighParms,
}

/// The initial namespace's table-wide settings a namespace lists: `gc_thresh1..3`
/// and `gc_interval` (ms), at the kernel's defaults.
pub const THRESHOLDS: [u32; 3] = [128, 512, 1024];
/// `gc_interval`, milliseconds.
pub const GC_INTERVAL_MS: u64 = 30_000;

/// `msecs_to_jiffies` of an `unsigned int` (rounded up; a "negative" one is
/// `MAX_JIFFY_OFFSET`), kept in an `int`.
fn ms_to_jiffies(ms: u64) -> i32 {
    let m = ms as u32;
    if (m as i32) < 0 {
        return MAX_JIFFY_INT;
    }
    (i64::from(m) + JIFFY_MS - 1).div_euclid(JIFFY_MS) as i32
}

/// `jiffies_to_msecs` as netlink reports a time (`nla_put_msecs`): the `int` widened
/// to an `unsigned long`, the result an `unsigned int`.
pub fn jiffies_ms(j: i32) -> u64 {
    u64::from((i64::from(j) as u64).wrapping_mul(JIFFY_MS as u64) as u32)
}

/// `reachable_time` in milliseconds (`jiffies_to_msecs` of an `unsigned long`).
pub fn reachable_ms(j: u64) -> u64 {
    u64::from(j.wrapping_mul(JIFFY_MS as u64) as u32)
}

fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl NeighParms {
    /// The kernel's defaults (`arp_tbl.parms`, `nd_tbl.parms`): the same but for the
    /// lock time, which IPv6 does without.
    pub fn defaults(v6: bool, seq: u64) -> Self {
        let mut p = NeighParms {
            seq,
            reachable: 0,
            base_reachable: (30 * HZ) as i32,
            retrans: HZ as i32,
            gc_stale: (60 * HZ) as i32,
            delay_probe: (5 * HZ) as i32,
            // SK_WMEM_MAX
            queue_bytes: 212_992,
            app_probes: 0,
            ucast_probes: 3,
            mcast_probes: 3,
            mcast_reprobes: 0,
            anycast_delay: HZ as i32,
            proxy_delay: (8 * HZ / 10) as i32,
            proxy_qlen: 64,
            locktime: if v6 { 0 } else { HZ as i32 },
        };
        p.draw_reachable(v6);
        p
    }

    /// `neigh_rand_reach_time`: below the base time, plus half of it; 0 for a base
    /// time of at most one jiffy.
    fn draw_reachable(&mut self, v6: bool) {
        let base = i64::from(self.base_reachable) as u64;
        self.reachable = if base == 0 {
            0
        } else {
            let r = splitmix(self.seq.wrapping_mul(2).wrapping_add(u64::from(v6)) ^ base);
            (r % base).wrapping_add(base >> 1)
        };
    }

    /// `unres_qlen` / `queue`: the queue in packets, as the kernel divides the `int`
    /// widened to a `size_t`.
    pub fn queue_len(&self) -> u32 {
        ((i64::from(self.queue_bytes) as u64) / QUEUE_TRUESIZE as u64) as u32
    }

    /// The delay before a STALE entry's first probe, in milliseconds.
    pub(crate) fn delay_probe_ms(&self) -> u64 {
        self.delay_probe.max(0) as u64 * JIFFY_MS as u64
    }

    /// The time between probes in jiffies (none below 0).
    pub(crate) fn retrans_jiffies(&self) -> u64 {
        self.retrans.max(0) as u64
    }

    fn apply(&mut self, c: ParmChange, v6: bool) {
        match c {
            ParmChange::BaseReachable(ms) => {
                self.base_reachable = ms_to_jiffies(ms);
                self.draw_reachable(v6);
            }
            ParmChange::Retrans(ms) => self.retrans = ms_to_jiffies(ms),
            ParmChange::GcStale(ms) => self.gc_stale = ms_to_jiffies(ms),
            ParmChange::DelayProbe(ms) => self.delay_probe = ms_to_jiffies(ms),
            ParmChange::Queue(n) => {
                self.queue_bytes = (u64::from(n).wrapping_mul(QUEUE_TRUESIZE as u64)) as i32
            }
            ParmChange::AppProbes(n) => self.app_probes = n as i32,
            ParmChange::UcastProbes(n) => self.ucast_probes = n as i32,
            ParmChange::McastProbes(n) => self.mcast_probes = n as i32,
            ParmChange::AnycastDelay(ms) => self.anycast_delay = ms_to_jiffies(ms),
            ParmChange::ProxyDelay(ms) => self.proxy_delay = ms_to_jiffies(ms),
            ParmChange::ProxyQueue(n) => self.proxy_qlen = n as i32,
            ParmChange::Locktime(ms) => self.locktime = ms_to_jiffies(ms),
        }
    }

    /// A write of `value` (as the file's handler read it) to the sysctl `knob` of
    /// these parameters (`neigh_sysctl_template`'s handlers); false for a file that
    /// is not one of them.
    pub fn set_sysctl(&mut self, knob: &str, value: i64, v6: bool) -> bool {
        let int = |v: i64| v as i32;
        // proc_dointvec_jiffies (seconds), proc_dointvec_userhz_jiffies (USER_HZ:
        // clock_t_to_jiffies), proc_dointvec_ms_jiffies (milliseconds, rounded up)
        let secs = |v: i64| v.wrapping_mul(HZ) as i32;
        // clock_t_to_jiffies takes the value as unsigned: a negative one is past its
        // ceiling and saturates (-1 jiffy whatever the number); the product wraps
        let userhz = |v: i64| {
            let x = v as u64;
            if x >= u64::MAX / HZ as u64 * USER_HZ as u64 {
                -1
            } else {
                (x.wrapping_mul(HZ as u64) / USER_HZ as u64) as i32
            }
        };
        let ms = |v: i64| {
            if v < 0 {
                -((-v + JIFFY_MS - 1) / JIFFY_MS) as i32
            } else {
                ((v + JIFFY_MS - 1) / JIFFY_MS) as i32
            }
        };
        match knob {
            "mcast_solicit" => self.mcast_probes = int(value),
            "ucast_solicit" => self.ucast_probes = int(value),
            "app_solicit" => self.app_probes = int(value),
            "mcast_resolicit" => self.mcast_reprobes = int(value),
            // ndisc_ifinfo_sysctl_change hands IPv6's to proc_dointvec: jiffies
            "retrans_time" if v6 => self.retrans = int(value),
            "retrans_time" => self.retrans = userhz(value),
            "retrans_time_ms" => self.retrans = ms(value),
            "base_reachable_time" | "base_reachable_time_ms" => {
                self.base_reachable = if knob.ends_with("_ms") {
                    ms(value)
                } else {
                    secs(value)
                };
                // neigh_proc_base_reachable_time / ndisc_ifinfo_sysctl_change
                self.draw_reachable(v6);
            }
            "delay_first_probe_time" => self.delay_probe = secs(value),
            "gc_stale_time" => self.gc_stale = secs(value),
            "unres_qlen" => self.queue_bytes = value.wrapping_mul(QUEUE_TRUESIZE) as i32,
            "unres_qlen_bytes" => self.queue_bytes = int(value),
            "proxy_qlen" => self.proxy_qlen = int(value),
            "anycast_delay" => self.anycast_delay = userhz(value),
            "proxy_delay" => self.proxy_delay = userhz(value),
            "locktime" => self.locktime = userhz(value),
            _ => return false,
        }
        true
    }
}

impl Netns {
    /// `neigh_parms_alloc`: device `dev` gets its family's parameters (its state of
    /// that family was just made), the kernel's defaults with a reachable time drawn.
    pub(crate) fn ntable_parms_alloc(&mut self, dev: u32, v6: bool) {
        let s = &mut self.sysctl;
        s.ntable_seq += 1;
        let p = NeighParms::defaults(v6, s.ntable_seq);
        s.neigh_parms.insert((v6, dev), p);
    }

    /// `neigh_parms_release`: the family's state on `dev` is gone.
    pub(crate) fn ntable_parms_release(&mut self, dev: u32, v6: bool) {
        self.sysctl.neigh_parms.remove(&(v6, dev));
    }

    /// Device `dev`'s parameters of a family, if it has that family's state.
    pub fn neigh_parms(&self, dev: u32, v6: bool) -> Option<&NeighParms> {
        self.sysctl.neigh_parms.get(&(v6, dev))
    }

    /// Device `dev`'s parameters of a family, to write (the sysctls).
    pub fn neigh_parms_mut(&mut self, dev: u32, v6: bool) -> Option<&mut NeighParms> {
        self.sysctl.neigh_parms.get_mut(&(v6, dev))
    }

    /// `neightbl_dump_info`: each table (IPv4's first; `family` limits them) with its
    /// header, then the namespace's devices' parameters, the newest first. A device's
    /// reference count is its parameters' own and one per neighbour entry on it
    /// (`arp_constructor` / `ndisc_constructor` clone them).
    pub fn ntable_dump(&self, family: Option<bool>) -> Vec<NtableEntry> {
        let mut out = Vec::new();
        for v6 in [false, true] {
            if family.is_some_and(|f| f != v6) {
                continue;
            }
            // the initial namespace's defaults (its reachable time drawn once)
            out.push(NtableEntry {
                v6,
                dev: None,
                refcnt: 1,
                parms: NeighParms::defaults(v6, 0),
            });
            let mut devs: Vec<(&u32, &NeighParms)> = self
                .sysctl
                .neigh_parms
                .iter()
                .filter(|((f, _), _)| *f == v6)
                .map(|((_, d), p)| (d, p))
                .collect();
            devs.sort_by_key(|d| std::cmp::Reverse(d.1.seq));
            for (&dev, p) in devs {
                let held = self
                    .neigh
                    .iter()
                    .filter(|n| n.dev == dev && n.v6 == v6)
                    .count();
                out.push(NtableEntry {
                    v6,
                    dev: Some(dev),
                    refcnt: 1 + held as u32,
                    parms: p.clone(),
                });
            }
        }
        out
    }

    /// `neightbl_set` (`ip ntable change`): the table named `name` (of `family`, if
    /// given; ENOENT if none), then the parameters of `dev` (0: the table's defaults,
    /// which belong to the initial namespace: ENOENT) if `parms` is given, changed in
    /// order; then the table-wide settings, which only the initial namespace may
    /// change (ENOENT, with the parameters already changed).
    pub fn ntable_change(
        &mut self,
        name: &str,
        family: Option<bool>,
        parms: Option<(u32, &[ParmChange])>,
        table_wide: bool,
    ) -> Result<(), Errno> {
        let v6 = [false, true]
            .into_iter()
            .find(|&v6| family.is_none_or(|f| f == v6) && table_name(v6) == name)
            .ok_or(Errno::ENOENT)?;
        if let Some((dev, changes)) = parms {
            let p = self
                .sysctl
                .neigh_parms
                .get_mut(&(v6, dev))
                .ok_or(Errno::ENOENT)?;
            for &c in changes {
                p.apply(c, v6);
            }
        }
        if table_wide {
            return Err(Errno::ENOENT);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_wrap_as_the_kernels() {
        // rounded up to a jiffy, back in milliseconds
        assert_eq!(jiffies_ms(ms_to_jiffies(1)), 4);
        assert_eq!(jiffies_ms(ms_to_jiffies(1234)), 1236);
        // an unsigned int above INT_MAX is MAX_JIFFY_OFFSET, kept as -2
        assert_eq!(jiffies_ms(ms_to_jiffies(2_147_483_648)), 4_294_967_288);
        // only the low 32 bits of the milliseconds count
        assert_eq!(jiffies_ms(ms_to_jiffies(99_999_999_999)), 1_215_752_192);
        let mut p = NeighParms::defaults(false, 1);
        assert_eq!(p.queue_len(), 101);
        p.apply(ParmChange::Queue(u32::MAX), false);
        assert_eq!(p.queue_len(), 1_183_684_765);
        p.apply(ParmChange::BaseReachable(1), false);
        assert_eq!((p.base_reachable, p.reachable), (1, 0));
        p.apply(ParmChange::BaseReachable(30_000), false);
        assert!((3750..11250).contains(&p.reachable));
    }
}
