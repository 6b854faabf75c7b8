//! `fib bench`: the kbench measurement of the seed patch, reproduced on fibkit's
//! route-output path (see `../shared/docs/KBENCH.md`).

use std::time::Instant;

use fibkit::fib4::{NhCfg, RouteOp};
use fibkit::fib6::{Flow6, Route6Cfg};
use fibkit::link::LinkKind;
use fibkit::netns::LinkAdd;
use fibkit::prefix::Prefix6;
use fibkit::route::Gateway;
use fibkit::rule::{RulePrefix, RuleSpec};
use fibkit::{Errno, Netns};
use fibkit_bench::kbench::{self, KbenchConfig, Outcome};

/// Options of `fib bench kbench`.
struct KbenchOpts {
    routes: usize,
    unit_ns: bool,
    /// Time with the time-stamp counter, as the module does (else `Instant`).
    tsc: bool,
    /// Read the counter unordered, exactly like the module's `get_cycles()` (else in
    /// order with the lookup: `lfence; rdtsc; lfence`).
    unordered: bool,
    warmup: u64,
    loops: u64,
    max_loops: u64,
    svg: Option<String>,
    start: u128,
    end: u128,
    verbose: bool,
    /// Runs of the pair (default rules, one rule), alternating.
    repeat: usize,
}

fn usage() -> String {
    "Usage: fib bench kbench [--routes N] [--unit ns|cycles] [--clock tsc|tsc-unordered|instant] [--warmup N]\n\
     \x20                       [--loop N] [--max-loop N] [--start ADDR] [--end ADDR] [--svg FILE] [--quiet]\n\
     \x20                       [--repeat N]\n\
     Times fibkit's IPv6 route output lookup like the seed's kbench module: N routes\n\
     (default 40,000) sampled from the embedded RIS 2026 IPv6 table, round-robin over 5\n\
     gateways; once with only the default rules, once with one non-matching custom rule.\n\
     --clock tsc (default where the CPU has an invariant TSC): the time-stamp counter read\n\
     in order with the lookup (lfence; rdtsc; lfence), so that a sample holds the whole\n\
     lookup, its last load included; --clock tsc-unordered: read like the module's\n\
     get_cycles(), a plain rdtsc the CPU may execute before the lookup's loads return;\n\
     --clock instant: std::time::Instant, an ordered clock whose own cost is included.\n\
     --repeat N: N runs of each, alternating, then the spread of their medians (the host's\n\
     load moves a cold lookup's time from run to run).\n"
        .to_string()
}

fn parse_kbench(args: &[String]) -> Result<KbenchOpts, String> {
    let mut o = KbenchOpts {
        routes: fibkit_bench::data::DEFAULT_ROUTE_COUNT,
        unit_ns: true,
        tsc: true,
        unordered: false,
        warmup: 100_000,
        loops: 5_000,
        max_loops: 1_000_000,
        svg: None,
        start: 0x2000u128 << 112,
        end: (0x3fffu128 << 112) | ((1u128 << 112) - 1),
        verbose: true,
        repeat: 1,
    };
    let mut i = 0;
    let num = |v: Option<&String>| -> Result<u64, String> {
        v.and_then(|s| s.replace('_', "").parse::<u64>().ok())
            .ok_or_else(usage)
    };
    while i < args.len() {
        let a = args[i].as_str();
        let v = args.get(i + 1);
        match a {
            "--routes" => o.routes = num(v)? as usize,
            "--warmup" => o.warmup = num(v)?,
            "--loop" => o.loops = num(v)?,
            "--max-loop" => o.max_loops = num(v)?,
            "--repeat" => {
                o.repeat = usize::try_from(num(v)?)
                    .ok()
                    .filter(|n| (1..=10_000).contains(n))
                    .ok_or_else(|| "bad --repeat: runs, 1 to 10000\n".to_string())?
            }
            "--unit" => {
                o.unit_ns = match v.map(String::as_str) {
                    Some("ns") => true,
                    Some("cycles") => false,
                    _ => return Err(usage()),
                }
            }
            "--clock" => {
                (o.tsc, o.unordered) = match v.map(String::as_str) {
                    Some("tsc") => (true, false),
                    Some("tsc-unordered") => (true, true),
                    Some("instant") => (false, false),
                    _ => return Err(usage()),
                }
            }
            "--svg" => o.svg = Some(v.ok_or_else(usage)?.clone()),
            "--start" | "--end" => {
                let x: std::net::Ipv6Addr = v.and_then(|s| s.parse().ok()).ok_or_else(usage)?;
                if a == "--start" {
                    o.start = u128::from(x);
                } else {
                    o.end = u128::from(x);
                }
            }
            "--quiet" => {
                o.verbose = false;
                i += 1;
                continue;
            }
            _ => return Err(usage()),
        }
        i += 2;
    }
    Ok(o)
}

/// The benchmarks' base namespace: link `d0` (up) with 2001:db8:1::1/64 and, if `v4`,
/// 192.0.2.1/24; the gateways the benchmarks route through (2001:db8:1::3, ::5, ...
/// and 192.0.2.3, .5, ...) are on-link.
fn bench_namespace(v4: bool) -> Result<(Netns, u32), String> {
    let mut ns = Netns::new();
    let d0 = add_link(&mut ns, "d0", v4.then_some(0xc000_0201), 1)?;
    Ok((ns, d0))
}

/// The input benchmarks' router: a second link, d1, with 198.51.100.1/24 and
/// 2001:db8:2::1/64, where forwarded packets arrive (from [`ON_D1`]), and forwarding on
/// for the family. Returns d1.
fn forward_from_d1(ns: &mut Netns, v6: bool) -> Result<u32, String> {
    let d1 = add_link(ns, "d1", Some(0xc633_6401), 2)?;
    let key = if v6 {
        "net.ipv6.conf.all.forwarding=1"
    } else {
        "net.ipv4.ip_forward=1"
    };
    fibkit_iproute::exec::run_sysctl(ns, key)?;
    Ok(d1)
}

/// An on-link host of d1 (IPv4, IPv6): the forwarded packets' source.
const ON_D1: (u32, u128) = (0xc633_6407, (0x2001_0db8_0002u128 << 80) | 7);

/// Dummy link `name`, up, with `v4`/24 (if any) and 2001:db8:`net`::1/64.
fn add_link(ns: &mut Netns, name: &str, v4: Option<u32>, net: u128) -> Result<u32, String> {
    let dev = ns
        .link_add(&LinkAdd {
            name: name.into(),
            kind: Some(LinkKind::Dummy),
            up: true,
            ..Default::default()
        })
        .map_err(|e| e.to_string())?;
    if let Some(a) = v4 {
        let a4 = fibkit::addr::Addr4 {
            life: Default::default(),
            local: a,
            address: a,
            plen: 24,
            broadcast: 0,
            scope: 0,
            flags: 0,
            metric: 0,
            label: String::new(),
            hashed: 0,
        };
        ns.addr4_add(dev, a4).map_err(|e| e.to_string())?;
    }
    let a6 = fibkit::addr::Addr6 {
        predad: false,
        life: Default::default(),
        addr: ((0x2001_0db8_0000u128 | net) << 80) | 1,
        plen: 64,
        flags: 0,
        metric: 0,
        scope: 0,
        peer: None,
    };
    ns.addr6_add(dev, a6).map_err(|e| e.to_string())?;
    Ok(dev)
}

/// The kbench namespace: a dummy link with 2001:db8:1::1/64 and `routes` IPv6 routes.
pub fn kbench_namespace(routes: &[((u128, u8), u128)]) -> Result<Netns, String> {
    let (mut ns, d0) = bench_namespace(false)?;
    let mut failed = 0usize;
    ns.bulk(|ns| {
        for ((addr, len), gw) in routes {
            let cfg = Route6Cfg {
                dst: Prefix6::new(*addr, *len),
                nh: NhCfg {
                    gw: Some(Gateway::V6(*gw)),
                    dev: d0,
                    ..Default::default()
                },
                ..Default::default()
            };
            if ns.route6_modify(RouteOp::Add, &cfg).is_err() {
                failed += 1;
            }
        }
    });
    if failed > 0 {
        eprintln!("note: {failed} routes were refused");
    }
    Ok(ns)
}

/// The time-stamp counter (through `quanta`, which reads it when the CPU has an
/// invariant TSC) and its ticks per ns; `None` when `quanta` falls back to the
/// monotonic clock (its ticks are then ns: no counter to read).
fn tsc_clock() -> Option<(quanta::Clock, f64)> {
    let clock = quanta::Clock::new();
    let ns = clock.delta_as_nanos(0, 1 << 40);
    let ticks_per_ns = (1u64 << 40) as f64 / ns.max(1) as f64;
    ((ticks_per_ns - 1.0).abs() > 0.01).then_some((clock, ticks_per_ns))
}

fn cycles_per_ns() -> f64 {
    // calibrate the TSC-free clock: fibkit reports ns; cycles are derived from the
    // measured CPU frequency when /proc/cpuinfo gives one
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("cpu MHz"))
                .and_then(|l| l.split(':').nth(1))
                .and_then(|v| v.trim().parse::<f64>().ok())
        })
        .map_or(1.0, |mhz| mhz / 1000.0)
}

/// The clock's own cost ([`empty_region`]) and a kbench run timed by `clock`.
fn timed_run<C, F, R>(cfg: &KbenchConfig, mut clock: C, lookup: F) -> (u64, kbench::KbenchResult)
where
    C: FnMut() -> u64,
    F: FnMut(u128) -> R,
    R: Into<Outcome>,
{
    let empty = empty_region(&mut clock);
    (empty, kbench::run(cfg, &mut clock, lookup))
}

/// The clock's own cost: the median of 10,001 timed regions with nothing in them.
fn empty_region<C: FnMut() -> u64>(clock: &mut C) -> u64 {
    let mut v: Vec<u64> = (0..10_001)
        .map(|_| {
            let t1 = clock();
            let t2 = clock();
            t2.wrapping_sub(t1)
        })
        .collect();
    v.sort_unstable();
    v[v.len() / 2]
}

/// Passes of the chained measurement after each kbench run.
const CHAIN_PASSES: usize = 9;

/// The run's hits timed without a clock inside: the destinations the run timed (the
/// same walk, replayed untimed) looked up back to back, each destination XORed with a
/// word taken from the previous answer's address (always 0, which the compiler cannot
/// know), so no lookup can start before the previous one has chosen its answer. One
/// clock read before and after a pass of all the hits: ns per hit, the clock's own cost
/// spread over the whole pass. Returns (first pass, median of [`CHAIN_PASSES`] passes,
/// hits), `None` without hits. The first pass runs right after the timed run, on the
/// cache state it left.
fn chained_hits(
    snap: &fibkit::snapshot::Snapshot,
    cfg: &KbenchConfig,
) -> Option<(f64, f64, usize)> {
    let miss = fibkit::snapshot::Answer6::Error(Errno::ENETUNREACH);
    let flow = |dst| Flow6 {
        dst,
        proto: cfg.protocol,
        ..Default::default()
    };
    let view = snap.output6_view();
    let mut hits = Vec::new();
    let walk = kbench::DestWalk::new(cfg.flow_dst_start, cfg.flow_dst_end, cfg.loop_count);
    for dst in walk.take(usize::try_from(cfg.max_loop_count).unwrap_or(usize::MAX)) {
        if hits.len() as u64 >= cfg.loop_count {
            break;
        }
        if *snap.output6_ref(&flow(dst)) != miss {
            hits.push(dst);
        }
    }
    if hits.is_empty() {
        return None;
    }
    let mut passes: Vec<f64> = (0..CHAIN_PASSES)
        .map(|_| {
            let mut dep = 0u128;
            let t = Instant::now();
            for &dst in &hits {
                let a = view.output6_ref(&flow(dst ^ dep));
                // a user-space address never has its top bit set
                dep =
                    ((std::ptr::from_ref::<fibkit::snapshot::Answer6>(&a) as usize) >> 63) as u128;
            }
            let ns = t.elapsed().as_nanos() as f64 / hits.len() as f64;
            std::hint::black_box(dep);
            ns
        })
        .collect();
    let first = passes[0];
    passes.sort_by(f64::total_cmp);
    Some((first, passes[CHAIN_PASSES / 2], hits.len()))
}

/// One kbench run's results: the median of its timed hits and the chained pass's
/// first-pass ns per hit (`None`: no hit).
type RunMedians = (Option<u64>, Option<f64>);

/// One kbench run on `ns`; returns the median of its timed hits and the chained
/// measurement's first pass (`None`: no hit).
fn run_once(ns: &Netns, o: &KbenchOpts, label: &str) -> Result<RunMedians, String> {
    // the lookups run on a compiled snapshot, as a dataplane would use fibkit
    let snap = fibkit::snapshot::Snapshot::new(ns.clone());
    let cfg = KbenchConfig {
        warmup_count: o.warmup,
        loop_count: o.loops,
        max_loop_count: o.max_loops,
        flow_dst_start: o.start,
        flow_dst_end: o.end,
        ..Default::default()
    };
    // the module reads the result after its second clock read, but the kernel's lookup
    // has touched its route before returning it (the per-CPU copy's reference count);
    // fibkit reads its answer (whether it is a miss) inside the timed region
    // a reader thread resolves its snapshot once per generation, not per lookup
    let view = snap.output6_view();
    let lookup = |dst| {
        let fl = Flow6 {
            dst,
            proto: cfg.protocol,
            ..Default::default()
        };
        let a = view.output6_ref(&fl);
        // the answer's kind and errno, not all of its bytes: what the module reads of
        // the route it got (`dst->error`)
        Outcome::from(!matches!(
            *a,
            fibkit::snapshot::Answer6::Error(Errno::ENETUNREACH)
        ))
    };
    let (res, clock_name) = match tsc_clock().filter(|_| o.tsc) {
        Some((tsc, ticks_per_ns)) => {
            // the counter's ticks are the module's cycles; ns are scaled afterwards,
            // outside the timed region
            // (quanta reads the counter with a plain rdtsc; ordered, the same counter)
            // each clock is its own closure type, so that its reads are inlined into
            // the loop (a call through a `dyn` clock sat inside every timed region)
            let (empty, mut res) = if o.unordered {
                timed_run(&cfg, || tsc.raw(), lookup)
            } else {
                timed_run(
                    &cfg,
                    || fibkit_lpm::ordered_tsc().unwrap_or_else(|| tsc.raw()),
                    lookup,
                )
            };
            let scale = |t: u64| {
                if o.unit_ns {
                    tsc.delta_as_nanos(0, t)
                } else {
                    t
                }
            };
            for s in &mut res.samples {
                *s = scale(*s);
            }
            (
                res,
                format!(
                    "TSC, {:.3} GHz, {}; empty timed region: median {}",
                    ticks_per_ns,
                    if o.unordered {
                        "unordered like get_cycles()"
                    } else {
                        "read in order with the lookup"
                    },
                    scale(empty)
                ),
            )
        }
        None => {
            let origin = Instant::now();
            let scale = if o.unit_ns { 1.0 } else { cycles_per_ns() };
            let mut clock = move || {
                let ns = origin.elapsed().as_nanos() as f64;
                (ns * scale) as u64
            };
            let name = if o.unit_ns {
                "Instant"
            } else {
                "Instant, cycles from the CPU's MHz"
            };
            (kbench::run(&cfg, &mut clock, lookup), name.to_string())
        }
    };
    outln!(
        "## {label} (unit: {}; clock: {clock_name})",
        if o.unit_ns { "ns" } else { "cycles" }
    );
    out!("{}", res.stats_line());
    let chain = chained_hits(&snap, &cfg);
    if let Some((first, median, n)) = chain {
        outln!(
            "chained: {n} hits back to back, each destination depending on the previous answer, no clock inside: first pass {first:.1} ns/hit, median of {CHAIN_PASSES} passes {median:.1} ns/hit"
        );
    }
    let depth = match snap.fast6() {
        Some(f) => f.depth_stats(),
        None => ns
            .table6(254)
            .map(|t| t.index().depth_stats())
            .unwrap_or_default(),
    };
    out!(
        "{}",
        kbench::depth_line(254, depth.sum, depth.count, u64::from(depth.max))
    );
    if o.verbose {
        out!("{}", res.histogram());
    }
    if let Some(path) = &o.svg {
        let sorted = res.sorted_samples();
        let svg = kbench::svg_histogram(&sorted, &format!("fibkit kbench: {label}"));
        let p = format!(
            "{path}.{}.svg",
            label.split_whitespace().next().unwrap_or("run")
        );
        std::fs::write(&p, svg).map_err(|e| format!("cannot write {p}: {e}\n"))?;
        outln!("(histogram written to {p})");
    }
    Ok((res.stats().map(|st| st.p50), chain.map(|c| c.0)))
}

/// The spread of one kind of run's medians over `--repeat` runs.
fn medians_line(label: &str, medians: &[Option<u64>], unit: &str) -> String {
    let mut m: Vec<u64> = medians.iter().flatten().copied().collect();
    m.sort_unstable();
    let Some((&lo, &hi)) = m.first().zip(m.last()) else {
        return format!("# {label}: no run had a hit");
    };
    let list: Vec<String> = m.iter().map(u64::to_string).collect();
    format!(
        "# {label}: medians of {} runs ({unit}): min {lo}, middle {}, max {hi}; sorted: {}",
        m.len(),
        m[(m.len() - 1) / 2],
        list.join(" ")
    )
}

/// The spread of the chained measurement's first passes over `--repeat` runs.
fn chained_line(label: &str, runs: &[RunMedians]) -> String {
    let mut m: Vec<f64> = runs.iter().filter_map(|r| r.1).collect();
    m.sort_by(f64::total_cmp);
    let Some((&lo, &hi)) = m.first().zip(m.last()) else {
        return format!("# {label}: no run had a hit");
    };
    let list: Vec<String> = m.iter().map(|v| format!("{v:.1}")).collect();
    format!(
        "# {label}: chained first passes of {} runs (ns/hit): min {lo:.1}, middle {:.1}, max {hi:.1}; sorted: {}",
        m.len(),
        m[(m.len() - 1) / 2],
        list.join(" ")
    )
}

/// `fib bench kbench ...`.
pub fn kbench_main(args: &[String]) -> Result<(), String> {
    let o = parse_kbench(args)?;
    let all = fibkit_bench::data::embedded_v6().map_err(|e| e.to_string())?;
    let sample = fibkit_bench::data::sample(
        &all,
        o.routes.min(all.len()),
        fibkit_bench::data::DEFAULT_SAMPLE_SEED,
    );
    let routes = fibkit_bench::data::with_gateways_v6(&sample);
    let t = Instant::now();
    let ns_default = kbench_namespace(&routes)?;
    outln!(
        "# fibkit kbench: {} IPv6 routes (RIS 2026 sample, seed {}), gateways 2001:db8:1::3/5/7/9/11 round-robin; loaded in {:.2?}",
        routes.len(),
        fibkit_bench::data::DEFAULT_SAMPLE_SEED,
        t.elapsed()
    );
    // one custom rule that never matches, as in the seed's "before" measurement
    let mut ns_rule = ns_default.clone();
    let spec = RuleSpec {
        pref: Some(1000),
        src: Some(RulePrefix::V6(Prefix6::new(0x2001_0db8_ffffu128 << 80, 48))),
        table: Some(100),
        action: Some(fibkit::rule::RuleAction::Lookup(100)),
        ..Default::default()
    };
    ns_rule.rule_add(true, &spec).map_err(|e| e.to_string())?;
    let default_label = "default-rules (fast path: no custom rules)";
    let rule_label =
        "one-custom-rule (rule 1000 `from` cannot select a flow without a source: compiled answers)";
    let (mut m_default, mut m_rule) = (Vec::new(), Vec::new());
    for _ in 0..o.repeat {
        m_default.push(run_once(&ns_default, &o, default_label)?);
        m_rule.push(run_once(&ns_rule, &o, rule_label)?);
    }
    if o.repeat > 1 {
        let unit = if o.unit_ns { "ns" } else { "cycles" };
        for (label, runs) in [("default-rules", &m_default), ("one-custom-rule", &m_rule)] {
            let medians: Vec<Option<u64>> = runs.iter().map(|r| r.0).collect();
            outln!("{}", medians_line(label, &medians, unit));
            outln!("{}", chained_line(label, runs));
        }
    }
    Ok(())
}

/// Each benchmark's synopsis, for its own usage message and `fib bench`'s list.
const LPM_SYNOPSIS: &str =
    "lpm [--family 4|6] [--table FILE] [--routes N] [--batch N] [--passes N] [--wg-quick] [--input]";
const FLOOD_SYNOPSIS: &str = "flood [--threads 1,2] [--seconds S] [--family 4|6]";
const UPDATES_SYNOPSIS: &str =
    "updates [--family 4|6] [--batch N] [--limit N] [--readers 0|1] [--file F]";
const FILES_SYNOPSIS: &str = "files ROUTES LOOKUPS 4|6 [--rules 0,8] [--input]";

/// A count argument: `v` as a number inside `range`, else `err` (a line of its own).
fn count_in(v: &str, range: std::ops::RangeInclusive<usize>, err: &str) -> Result<usize, String> {
    v.parse()
        .ok()
        .filter(|n| range.contains(n))
        .ok_or_else(|| format!("{err}\n"))
}

/// `--family 4|6`: whether it is 6; any other value is refused.
fn is_v6(f: &str) -> Result<bool, String> {
    match f {
        "4" => Ok(false),
        "6" => Ok(true),
        _ => Err(format!("bad family {f:?}: 4 or 6\n")),
    }
}

/// `fib bench ...`.
pub fn main(args: &[String]) -> Result<(), String> {
    match args.first().map(String::as_str) {
        Some("kbench") => kbench_main(&args[1..]),
        Some("files") => files_main(&args[1..]),
        Some("lpm") => lpm_main(&args[1..]),
        Some("flood") => flood_main(&args[1..]),
        Some("updates") => updates_main(&args[1..]),
        _ => Err(format!(
            "Usage: fib bench {{ kbench | lpm | flood | updates | files }} [options]\n  \
             {LPM_SYNOPSIS}\n  {FLOOD_SYNOPSIS}\n  {UPDATES_SYNOPSIS}\n  {FILES_SYNOPSIS}\n\n{}",
            usage()
        )),
    }
}

/// `fib bench files ROUTES LOOKUPS FAMILY [--rules N,M]`: the userspace side of
/// `kernel-fib-bench --compare-cmd`: the same route and destination files, timed on
/// fibkit's `ip route get` path; median ns per lookup over 5 trials per rule count.
pub fn files_main(args: &[String]) -> Result<(), String> {
    let [routes, lookups, family, rest @ ..] = args else {
        return Err(format!("Usage: fib bench {FILES_SYNOPSIS}\n"));
    };
    let mut rule_counts = vec![0usize, 8];
    // --input: forwarded packets (input lookups, as bpf_fib_lookup's are) arriving on
    // d1 from an on-link source, forwarding on
    let mut input = false;
    let mut rest = rest;
    loop {
        match rest {
            [] => break,
            [flag, more @ ..] if flag == "--input" => {
                input = true;
                rest = more;
            }
            [flag, list, more @ ..] if flag == "--rules" => {
                rule_counts = list
                    .split(',')
                    .map(|x| x.parse().ok())
                    .collect::<Option<_>>()
                    .ok_or_else(|| format!("bad --rules {list:?}: a list of rule counts\n"))?;
                rest = more;
            }
            _ => return Err(format!("Usage: fib bench {FILES_SYNOPSIS}\n")),
        }
    }
    let v6 = is_v6(family)?;
    let rtext = std::fs::read_to_string(routes).map_err(|e| format!("{routes}: {e}\n"))?;
    let ltext = std::fs::read_to_string(lookups).map_err(|e| format!("{lookups}: {e}\n"))?;
    let first = |l: &str| l.split_whitespace().next().map(str::to_string);
    let (mut ns, d0) = bench_namespace(true)?;
    let t0 = Instant::now();
    let mut n = 0usize;
    ns.bulk(|ns| {
        for (i, line) in rtext.lines().filter(|l| !l.starts_with('#')).enumerate() {
            let Some(p) = first(line) else { continue };
            let gw = 3 + 2 * (i % 5) as u32;
            if v6 {
                let Ok((a, l)) = fibkit_bench::data::parse_prefix_v6(&p) else {
                    continue;
                };
                let cfg = Route6Cfg {
                    dst: Prefix6::new(a, l),
                    nh: NhCfg {
                        gw: Some(Gateway::V6((0x2001_0db8_0001u128 << 80) | u128::from(gw))),
                        dev: d0,
                        ..Default::default()
                    },
                    ..Default::default()
                };
                n += usize::from(ns.route6_modify(RouteOp::Add, &cfg).is_ok());
            } else {
                let Ok((a, l)) = fibkit_bench::data::parse_prefix_v4(&p) else {
                    continue;
                };
                let cfg = fibkit::fib4::Route4Cfg {
                    dst: a,
                    dst_len: l,
                    nh: NhCfg {
                        gw: Some(Gateway::V4(0xc000_0200 | gw)),
                        dev: d0,
                        ..Default::default()
                    },
                    ..Default::default()
                };
                n += usize::from(ns.route4_modify(RouteOp::Add, &cfg).is_ok());
            }
        }
    });
    let load = t0.elapsed();
    let d1 = if input {
        forward_from_d1(&mut ns, v6)?
    } else {
        0
    };
    // (the source of input lookups, none for output ones)
    let (src4, src6) = if input { ON_D1 } else { (0, 0) };
    let dsts: Vec<u128> = ltext
        .lines()
        .filter_map(first)
        .filter_map(|s| s.parse::<std::net::IpAddr>().ok())
        .map(|a| match a {
            std::net::IpAddr::V4(x) => u128::from(u32::from(x)),
            std::net::IpAddr::V6(x) => u128::from(x),
        })
        .collect();
    if dsts.is_empty() {
        return Err("no destinations\n".into());
    }
    outln!(
        "fibkit: {n} routes loaded in {load:.2?}; {} destinations",
        dsts.len()
    );
    let mut added = 0usize;
    for want in rule_counts {
        while added < want {
            let src = if v6 {
                RulePrefix::V6(Prefix6::new(
                    (0x2001_0db8_ff00u128 + added as u128) << 80,
                    48,
                ))
            } else {
                RulePrefix::V4(fibkit::prefix::Prefix4::new(0xcb00_7100 + added as u32, 32))
            };
            let spec = RuleSpec {
                pref: Some(1000 + added as u32),
                src: Some(src),
                table: Some(100),
                action: Some(fibkit::rule::RuleAction::Lookup(100)),
                ..Default::default()
            };
            ns.rule_add(v6, &spec).map_err(|e| e.to_string())?;
            added += 1;
        }
        let snap = fibkit::snapshot::Snapshot::new(ns.clone());
        let mut trials = Vec::new();
        let mut ok = 0usize;
        for _ in 0..5 {
            let t = Instant::now();
            let mut count = 0u64;
            while t.elapsed().as_millis() < 300 {
                for d in &dsts {
                    let r = if v6 {
                        !matches!(
                            snap.output6(&Flow6 {
                                dst: *d,
                                src: src6,
                                iif: d1,
                                proto: 17,
                                ..Default::default()
                            }),
                            fibkit::snapshot::Answer6::Error(_)
                        )
                    } else {
                        !matches!(
                            snap.output4(&fibkit::lookup::Flow4 {
                                dst: *d as u32,
                                src: src4,
                                iif: d1,
                                proto: 17,
                                ..Default::default()
                            }),
                            fibkit::snapshot::Answer4::Error(_)
                        )
                    };
                    ok += usize::from(r);
                    count += 1;
                }
            }
            trials.push(t.elapsed().as_nanos() as f64 / count as f64);
        }
        trials.sort_by(|a, b| a.total_cmp(b));
        outln!(
            "fibkit_ns_per_lookup family={family} routes={n} rules={want}{} {:.1}   (min {:.1}, max {:.1}; ok {ok})",
            if input { " input=d1" } else { "" },
            trials[2], trials[0], trials[4]
        );
    }
    Ok(())
}

fn splitmix(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// wg-quick's routing on top of a namespace: table 51820 with a default route through
/// `dev` (the tunnel), `not fwmark 0xca6c lookup 51820` and `lookup main
/// suppress_prefixlength 0`, both families. Every unmarked flow is then selected by
/// custom rules: the snapshot compiles the whole rule walk.
fn add_wg_quick(ns: &mut Netns, dev: u32) -> Result<(), String> {
    let nh = NhCfg {
        dev,
        ..Default::default()
    };
    ns.route4_modify(
        RouteOp::Add,
        &fibkit::fib4::Route4Cfg {
            table: 51820,
            scope: 253,
            nh: nh.clone(),
            ..Default::default()
        },
    )
    .map_err(|e| e.to_string())?;
    ns.route6_modify(
        RouteOp::Add,
        &Route6Cfg {
            table: 51820,
            nh,
            ..Default::default()
        },
    )
    .map_err(|e| e.to_string())?;
    for v6 in [false, true] {
        for spec in [
            RuleSpec {
                mark: Some(0xca6c),
                invert: true,
                action: Some(fibkit::rule::RuleAction::Lookup(51820)),
                ..Default::default()
            },
            RuleSpec {
                action: Some(fibkit::rule::RuleAction::Lookup(254)),
                suppress_prefixlen: Some(0),
                ..Default::default()
            },
        ] {
            ns.rule_add(v6, &spec).map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}

/// `fib bench lpm [--family 4|6] [--routes N] [--passes N] [--wg-quick]`: the full RIS 2026 table (or
/// its first N prefixes) loaded into a namespace, compiled into a snapshot; single and
/// batch output lookups of random destinations inside the prefixes and uniformly
/// random, in million lookups per second (one thread, best of N passes, default 5),
/// with build times and memory. Batches: answers copied out (`output*_batch`), read in
/// place (`output*_batch_with`), and the snapshot's index alone (answer numbers).
/// `--wg-quick` adds wg-quick's rules first (see `add_wg_quick`).
pub fn lpm_main(args: &[String]) -> Result<(), String> {
    let mut v6 = false;
    let mut limit = usize::MAX;
    let mut passes = 5usize;
    let mut wg = false;
    let mut table: Option<String> = None;
    let mut bsize = 1024usize;
    let mut input = false;
    let mut i = 0;
    while i < args.len() {
        match (args[i].as_str(), args.get(i + 1)) {
            ("--family", Some(f)) => v6 = is_v6(f)?,
            ("--routes", Some(n)) => limit = n.parse().map_err(|_| "bad --routes\n".to_string())?,
            ("--table", Some(f)) => table = Some(f.clone()),
            ("--batch", Some(n)) => {
                bsize = count_in(n, 1..=1 << 20, "bad --batch: lookups per batch, 1 to 1048576")?
            }
            ("--wg-quick", _) => {
                wg = true;
                i += 1;
                continue;
            }
            ("--input", _) => {
                input = true;
                i += 1;
                continue;
            }
            ("--passes", Some(n)) => passes = count_in(n, 1..=usize::MAX, "bad --passes")?,
            _ => {
                return Err(format!(
                    "Usage: fib bench {LPM_SYNOPSIS}\n\
                     --table FILE: one prefix of the family per line (plain or gzip; '#' comments);\n\
                     default: the embedded RIS 2026 table\n\
                     --batch N: lookups per batch call (default 1024)\n\
                     --input: forwarding on, and a line more: input lookups of forwarded packets\n\
                     (iif d0, an on-link source), single and as a flow batch\n"
                ))
            }
        }
        i += 2;
    }
    let (mut ns, d0) = bench_namespace(true)?;
    let mut inside: Vec<u128> = Vec::new();
    let mut seed = 42u64;
    // the route list is parsed before the clock starts: the load is timed from an
    // in-memory list to a published snapshot
    let in_file = |e: fibkit_bench::data::DataError, f: &str| format!("{f}: {e}\n");
    let (all4, all6) = if v6 {
        let all = match &table {
            Some(f) => fibkit_bench::data::read_prefixes_v6_file(f).map_err(|e| in_file(e, f))?,
            None => fibkit_bench::data::embedded_v6().map_err(|e| e.to_string())?,
        };
        (Vec::new(), all[..all.len().min(limit)].to_vec())
    } else {
        let all = match &table {
            Some(f) => fibkit_bench::data::read_prefixes_v4_file(f).map_err(|e| in_file(e, f))?,
            None => fibkit_bench::data::embedded_v4().map_err(|e| e.to_string())?,
        };
        (all[..all.len().min(limit)].to_vec(), Vec::new())
    };
    if all4.is_empty() && all6.is_empty() {
        return Err(format!(
            "no IPv{} prefix to look up in {}\n",
            if v6 { 6 } else { 4 },
            table
                .as_deref()
                .unwrap_or("the first --routes of the embedded table")
        ));
    }
    let source = table.as_deref().unwrap_or("RIS 2026");
    let t0 = Instant::now();
    if v6 {
        ns.bulk(|ns| {
            for (i, (a, l)) in all6.iter().enumerate() {
                let gw = (0x2001_0db8_0001u128 << 80) | (3 + 2 * (i % 5) as u128);
                let cfg = Route6Cfg {
                    dst: Prefix6::new(*a, *l),
                    nh: NhCfg {
                        gw: Some(Gateway::V6(gw)),
                        dev: d0,
                        ..Default::default()
                    },
                    ..Default::default()
                };
                let _ = ns.route6_modify(RouteOp::Add, &cfg);
            }
        });
    } else {
        ns.bulk(|ns| {
            for (i, (a, l)) in all4.iter().enumerate() {
                let cfg = fibkit::fib4::Route4Cfg {
                    dst: *a,
                    dst_len: *l,
                    nh: NhCfg {
                        gw: Some(Gateway::V4(0xc000_0200 | (3 + 2 * (i % 5) as u32))),
                        dev: d0,
                        ..Default::default()
                    },
                    ..Default::default()
                };
                let _ = ns.route4_modify(RouteOp::Add, &cfg);
            }
        });
    }
    let load = t0.elapsed();
    if wg {
        add_wg_quick(&mut ns, d0)?;
    }
    // (the route table is loaded first: the load time stays comparable)
    let d1 = if input {
        forward_from_d1(&mut ns, v6)?
    } else {
        0
    };
    let t1 = Instant::now();
    let snap = fibkit::snapshot::Snapshot::new(ns);
    let compile = t1.elapsed();
    let n = if v6 {
        for _ in 0..1 << 20 {
            let (a, l) = all6[(splitmix(&mut seed) % all6.len() as u64) as usize];
            let host = (u128::from(splitmix(&mut seed)) << 64 | u128::from(splitmix(&mut seed)))
                & !fibkit::prefix::mask6(l);
            inside.push(a | host);
        }
        all6.len()
    } else {
        for _ in 0..1 << 20 {
            let (a, l) = all4[(splitmix(&mut seed) % all4.len() as u64) as usize];
            let host = (splitmix(&mut seed) as u32) & !fibkit::prefix::mask4(l);
            inside.push(u128::from(a | host));
        }
        all4.len()
    };
    let uniform: Vec<u128> = (0..1 << 20)
        .map(|_| {
            let x = u128::from(splitmix(&mut seed)) << 64 | u128::from(splitmix(&mut seed));
            if v6 {
                x
            } else {
                x & 0xffff_ffff
            }
        })
        .collect();
    let (mem, answers) = if v6 {
        snap.fast6()
            .map_or((0, 0), |f| (f.memory_bytes(), f.answers()))
    } else {
        snap.fast4()
            .map_or((0, 0), |f| (f.memory_bytes(), f.answers()))
    };
    outln!(
        "# fibkit bench lpm: IPv{} {n} prefixes ({source}); from the parsed list: namespace load {load:.2?} (validation, RIB, per-table index) + snapshot compile {compile:.2?} = {:.2?}",
        if v6 { 6 } else { 4 },
        load + compile
    );
    if wg {
        outln!("# with wg-quick's rules (table 51820, `not fwmark 0xca6c`, `suppress_prefixlength 0`): the whole rule walk compiled; the lookups are unmarked flows");
    }
    outln!(
        "# snapshot index: {mem} bytes ({:.2} bytes/prefix), {answers} distinct answers",
        mem as f64 / n as f64
    );
    if std::env::var_os("FIB_BENCH_DEBUG").is_some() {
        if let Some(f) = snap.fast4() {
            eprintln!("{:?}", f.answer_list());
        }
    }
    use fibkit::snapshot::{Answer4, Answer6};
    let mlps = |n: usize, t: Instant| n as f64 / t.elapsed().as_secs_f64() / 1e6;
    for (name, keys) in [("inside prefixes", &inside), ("uniform random", &uniform)] {
        let k4: Vec<u32> = keys.iter().map(|k| *k as u32).collect();
        // a dataplane's buffer of `bsize` UDP flows, ports varying, refilled with the next
        // destinations before each batch (answered like the bare destinations: no custom
        // rule, no source, no interface)
        let mut fl6: Vec<Flow6> = (0..bsize)
            .map(|i| Flow6 {
                proto: 17,
                sport: 1024 + (i % 50_000) as u16,
                dport: 53,
                ..Default::default()
            })
            .collect();
        let mut fl4: Vec<fibkit::lookup::Flow4> = (0..bsize)
            .map(|i| fibkit::lookup::Flow4 {
                proto: 17,
                sport: 1024 + (i % 50_000) as u16,
                dport: 53,
                ..Default::default()
            })
            .collect();
        // best of `passes`; within a pass the five ways run back to back, so that the
        // host's noise falls on all of them alike
        let mut best = [0f64; 5];
        let mut out4 = vec![Answer4::Slow; bsize];
        let mut out6 = vec![Answer6::Slow; bsize];
        let mut ids = vec![0u32; bsize];
        for _ in 0..passes {
            // single lookups
            let t = Instant::now();
            let mut hits = 0usize;
            if v6 {
                for k in keys.iter() {
                    let fl = Flow6 {
                        dst: *k,
                        ..Default::default()
                    };
                    hits += usize::from(!matches!(snap.output6(&fl), Answer6::Error(_)));
                }
            } else {
                for k in &k4 {
                    let fl = fibkit::lookup::Flow4 {
                        dst: *k,
                        proto: 17,
                        ..Default::default()
                    };
                    hits += usize::from(!matches!(snap.output4(&fl), Answer4::Error(_)));
                }
            }
            std::hint::black_box(hits);
            best[0] = best[0].max(mlps(keys.len(), t));
            // batches of `bsize` (1,024 by default), answers copied out
            let t = Instant::now();
            if v6 {
                for c in keys.chunks(bsize) {
                    snap.output6_batch(c, &mut out6);
                    std::hint::black_box(&out6);
                }
            } else {
                for c in k4.chunks(bsize) {
                    snap.output4_batch(c, &mut out4);
                    std::hint::black_box(&out4);
                }
            }
            best[1] = best[1].max(mlps(keys.len(), t));
            // the same batches, each answer read in place (its device summed)
            let t = Instant::now();
            let mut acc = 0u64;
            if v6 {
                for c in keys.chunks(bsize) {
                    snap.output6_batch_with(c, |_, a| {
                        if let Answer6::Route { dev, .. } = a {
                            acc += u64::from(*dev);
                        }
                    });
                }
            } else {
                for c in k4.chunks(bsize) {
                    snap.output4_batch_with(c, |_, a| {
                        if let Answer4::Route { dev, .. } = a {
                            acc += u64::from(*dev);
                        }
                    });
                }
            }
            std::hint::black_box(acc);
            best[2] = best[2].max(mlps(keys.len(), t));
            // the snapshot's index alone (answer numbers, no answers)
            let t = Instant::now();
            if let (true, Some(f)) = (v6, snap.fast6()) {
                for c in keys.chunks(bsize) {
                    f.index().lookup_batch(c, &mut ids);
                    std::hint::black_box(&ids);
                }
            } else if let (false, Some(f)) = (v6, snap.fast4()) {
                for c in k4.chunks(bsize) {
                    f.index().lookup_batch(c, &mut ids);
                    std::hint::black_box(&ids);
                }
            }
            best[3] = best[3].max(mlps(keys.len(), t));
            // batches of `bsize` whole flows, answers copied out
            let t = Instant::now();
            flow_batches(&snap, keys, v6, &mut fl4, &mut fl6, &mut out4, &mut out6);
            best[4] = best[4].max(mlps(keys.len(), t));
        }
        outln!(
            "{name:>16}: single {:7.1} Mlps   batch {:7.1} Mlps   batch in place {:7.1} Mlps   index alone {:7.1} Mlps   flow batch {:7.1} Mlps   (best of {passes} x {} lookups{})",
            best[0], best[1], best[2], best[3], best[4], keys.len(),
            if bsize == 1024 { String::new() } else { format!(", batches of {bsize}") }
        );
    }
    if input {
        // packets to be forwarded, from an on-link host (`ip route get DST from SRC iif
        // DEV`): arriving on d1 and leaving by d0 (IPv4: the input answer compiled from
        // the destination's, the source checked by fib_validate_source's short way),
        // and arriving on d0 itself (a hairpin: IPv4 checks the route back to the
        // source, also compiled)
        let keys = &inside[..inside.len() / 4];
        let on_d0 = (0xc000_0207u32, (0x2001_0db8_0001u128 << 80) | 7);
        for (name, iif, (src4, src6)) in [("forwarded", d1, ON_D1), ("hairpin", d0, on_d0)] {
            let mut best = [0f64; 2];
            let mut routed = 0usize;
            let mut fl6 = vec![
                Flow6 {
                    src: src6,
                    iif,
                    ..Default::default()
                };
                bsize
            ];
            let mut fl4 = vec![
                fibkit::lookup::Flow4 {
                    src: src4,
                    iif,
                    proto: 17,
                    ..Default::default()
                };
                bsize
            ];
            let mut out4 = vec![Answer4::Slow; bsize];
            let mut out6 = vec![Answer6::Slow; bsize];
            for _ in 0..passes {
                let t = Instant::now();
                routed = 0;
                for k in keys {
                    routed += usize::from(if v6 {
                        let fl = Flow6 { dst: *k, ..fl6[0] };
                        matches!(snap.output6(&fl), Answer6::Route { .. })
                    } else {
                        let fl = fibkit::lookup::Flow4 {
                            dst: *k as u32,
                            ..fl4[0]
                        };
                        matches!(snap.output4(&fl), Answer4::Route { .. })
                    });
                }
                best[0] = best[0].max(mlps(keys.len(), t));
                let t = Instant::now();
                flow_batches(&snap, keys, v6, &mut fl4, &mut fl6, &mut out4, &mut out6);
                best[1] = best[1].max(mlps(keys.len(), t));
            }
            outln!(
                "{:>16}: single {:7.1} Mlps   flow batch {:7.1} Mlps   (input lookups, iif {}, source on-link, {:.1} % forwarded; best of {passes} x {} lookups)",
                name,
                best[0],
                best[1],
                if iif == d0 { "d0" } else { "d1" },
                100.0 * routed as f64 / keys.len() as f64,
                keys.len()
            );
        }
    }
    Ok(())
}

/// One pass of flow batches over `keys`: each batch refills the family's flow buffer
/// (`fl4` or `fl6`, whose length is the batch size) with the next destinations, as a
/// dataplane fills its burst, and looks it up, answers copied out.
fn flow_batches(
    snap: &fibkit::snapshot::Snapshot,
    keys: &[u128],
    v6: bool,
    fl4: &mut [fibkit::lookup::Flow4],
    fl6: &mut [Flow6],
    out4: &mut [fibkit::snapshot::Answer4],
    out6: &mut [fibkit::snapshot::Answer6],
) {
    if v6 {
        for c in keys.chunks(fl6.len()) {
            for (fl, k) in fl6.iter_mut().zip(c) {
                fl.dst = *k;
            }
            snap.output6_flows_batch(&fl6[..c.len()], out6);
            std::hint::black_box(&*out6);
        }
    } else {
        for c in keys.chunks(fl4.len()) {
            for (fl, k) in fl4.iter_mut().zip(c) {
                fl.dst = *k as u32;
            }
            snap.output4_flows_batch(&fl4[..c.len()], out4);
            std::hint::black_box(&*out4);
        }
    }
}

/// `fib bench flood [--threads 1,2] [--seconds S] [--family 4|6]`: the udpflood analogue.
/// Each thread owns a reader handle and 10,000 destinations under one /64 (IPv6) or /24
/// (IPv4) via-gateway route, and runs route output lookups for a fixed time; prints the
/// total and per-thread lookup rates for each thread count.
pub fn flood_main(args: &[String]) -> Result<(), String> {
    let mut threads = vec![1usize, 2];
    let mut secs = 2.0f64;
    let mut v6 = true;
    let mut i = 0;
    while i < args.len() {
        match (args[i].as_str(), args.get(i + 1)) {
            ("--threads", Some(t)) => {
                threads = t
                    .split(',')
                    .map(|x| x.parse().ok().filter(|n| *n > 0))
                    .collect::<Option<_>>()
                    .ok_or_else(|| "bad --threads: a list of thread counts above 0\n".to_string())?
            }
            ("--seconds", Some(t)) => {
                secs = t
                    .parse()
                    .ok()
                    .filter(|s: &f64| s.is_finite() && *s > 0.0 && *s <= 86_400.0)
                    .ok_or_else(|| "bad --seconds: above 0, at most 86400\n".to_string())?
            }
            ("--family", Some(f)) => v6 = is_v6(f)?,
            _ => return Err(format!("Usage: fib bench {FLOOD_SYNOPSIS}\n")),
        }
        i += 2;
    }
    let (mut ns, d0) = bench_namespace(true)?;
    let net6 = 0x2001_0db8_00aa_0001u128 << 64;
    ns.route6_modify(
        RouteOp::Add,
        &Route6Cfg {
            dst: Prefix6::new(net6, 64),
            nh: NhCfg {
                gw: Some(Gateway::V6((0x2001_0db8_0001u128 << 80) | 0xfe)),
                dev: d0,
                ..Default::default()
            },
            ..Default::default()
        },
    )
    .map_err(|e| e.to_string())?;
    ns.route4_modify(
        RouteOp::Add,
        &fibkit::fib4::Route4Cfg {
            dst: 0xcb00_7100,
            dst_len: 24,
            nh: NhCfg {
                gw: Some(Gateway::V4(0xc000_02fe)),
                dev: d0,
                ..Default::default()
            },
            ..Default::default()
        },
    )
    .map_err(|e| e.to_string())?;
    let fib = fibkit::fib::Fib::new(ns);
    outln!(
        "# fibkit bench flood: IPv{}, route output on per-thread reader handles, {secs} s per run",
        if v6 { 6 } else { 4 }
    );
    let mut base = 0f64;
    for &n in &threads {
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let mut hs = Vec::new();
        for t in 0..n {
            let mut r = fib.reader();
            let stop = stop.clone();
            hs.push(std::thread::spawn(move || {
                let dsts6: Vec<u128> = (0..10_000u128)
                    .map(|i| net6 | ((t as u128) << 32) | i)
                    .collect();
                let dsts4: Vec<u32> = (0..10_000u32).map(|i| 0xcb00_7100 | (i & 0xff)).collect();
                let mut count = 0u64;
                let start = Instant::now();
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let snap = r.snapshot();
                    if v6 {
                        for d in &dsts6 {
                            std::hint::black_box(snap.output6(&Flow6 {
                                dst: *d,
                                proto: 17,
                                ..Default::default()
                            }));
                        }
                    } else {
                        for d in &dsts4 {
                            std::hint::black_box(snap.output4(&fibkit::lookup::Flow4 {
                                dst: *d,
                                proto: 17,
                                ..Default::default()
                            }));
                        }
                    }
                    count += 10_000;
                }
                (count, start.elapsed().as_secs_f64())
            }));
        }
        std::thread::sleep(std::time::Duration::from_secs_f64(secs));
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        let mut total = 0f64;
        for h in hs {
            let (c, el) = h.join().map_err(|_| "thread panicked".to_string())?;
            total += c as f64 / el;
        }
        if n == threads[0] {
            base = total;
        }
        outln!(
            "threads={n} lookups/s={:.1}M per-thread={:.1}M scaling={:.2}x",
            total / 1e6,
            total / 1e6 / n as f64,
            total / base.max(1.0)
        );
    }
    Ok(())
}

/// `fib bench updates [--family 4|6] [--batch N] [--limit N] [--readers 0|1] [--file F]`:
/// replay the RIS update stream (`A`/`W` lines; default
/// `../shared/data/ris-2026/updates-v4.txt.gz`) on the full embedded table in batches,
/// publishing a snapshot after each batch, while a reader thread keeps looking up (none
/// with `--readers 0`: the writer's own cost, without the competition for cores); reports update and publish rates and the reader's lookup
/// rate during the replay against its idle rate.
pub fn updates_main(args: &[String]) -> Result<(), String> {
    let mut v6 = false;
    let mut batch = 10_000usize;
    let mut limit = 100_000usize;
    let mut file: Option<String> = None;
    let mut with_reader = true;
    let mut i = 0;
    while i < args.len() {
        match (args[i].as_str(), args.get(i + 1)) {
            ("--family", Some(f)) => v6 = is_v6(f)?,
            ("--readers", Some(n)) => {
                with_reader = match n.as_str() {
                    "0" => false,
                    "1" => true,
                    _ => return Err("bad --readers (0 or 1)\n".into()),
                }
            }
            ("--batch", Some(n)) => {
                batch = count_in(
                    n,
                    1..=usize::MAX,
                    "bad --batch: updates per publication, at least 1",
                )?
            }
            ("--limit", Some(n)) => limit = n.parse().map_err(|_| "bad --limit\n".to_string())?,
            ("--file", Some(f)) => file = Some(f.clone()),
            _ => return Err(format!("Usage: fib bench {UPDATES_SYNOPSIS}\n")),
        }
        i += 2;
    }
    let path = file.unwrap_or_else(|| {
        format!(
            "../shared/data/ris-2026/updates-v{}.txt.gz",
            if v6 { 6 } else { 4 }
        )
    });
    let raw = std::fs::read(&path)
        .map_err(|e| format!("{path}: {e} (give --file; the update streams are not embedded)\n"))?;
    // the stream's reader checks every line (`A|W prefix`, gzip or plain)
    use fibkit_bench::data::{read_updates_v4, read_updates_v6, Update};
    fn flat<A: Copy + Into<u128>>(u: &Update<(A, u8)>) -> (bool, u128, u8) {
        let &(a, len) = u.prefix();
        (matches!(u, Update::Announce(_)), a.into(), len)
    }
    let in_file = |e: fibkit_bench::data::DataError| format!("{path}: {e}\n");
    let updates: Vec<(bool, u128, u8)> = if v6 {
        let all = read_updates_v6(&raw[..]).map_err(in_file)?;
        all.iter().take(limit).map(flat).collect()
    } else {
        let all = read_updates_v4(&raw[..]).map_err(in_file)?;
        all.iter().take(limit).map(flat).collect()
    };
    if updates.is_empty() {
        return Err(format!("{path}: no update to replay\n"));
    }
    let (mut ns, d0) = bench_namespace(true)?;
    let add = |ns: &mut Netns, a: u128, l: u8, i: usize, op: RouteOp| {
        if v6 {
            let gw = (0x2001_0db8_0001u128 << 80) | (3 + 2 * (i % 5) as u128);
            let cfg = Route6Cfg {
                dst: Prefix6::new(a, l),
                nh: NhCfg {
                    gw: Some(Gateway::V6(gw)),
                    dev: d0,
                    ..Default::default()
                },
                ..Default::default()
            };
            ns.route6_modify(op, &cfg).is_ok()
        } else {
            let cfg = fibkit::fib4::Route4Cfg {
                dst: a as u32,
                dst_len: l,
                nh: NhCfg {
                    gw: Some(Gateway::V4(0xc000_0200 | (3 + 2 * (i % 5) as u32))),
                    dev: d0,
                    ..Default::default()
                },
                ..Default::default()
            };
            ns.route4_modify(op, &cfg).is_ok()
        }
    };
    let del = |ns: &mut Netns, a: u128, l: u8| {
        if v6 {
            let cfg = Route6Cfg {
                dst: Prefix6::new(a, l),
                ..Default::default()
            };
            ns.route6_modify(RouteOp::Delete, &cfg).is_ok()
        } else {
            let cfg = fibkit::fib4::Route4Cfg {
                dst: a as u32,
                dst_len: l,
                rtype: fibkit::route::RouteType::Unspec,
                proto: 0,
                scope: 255,
                ..Default::default()
            };
            ns.route4_modify(RouteOp::Delete, &cfg).is_ok()
        }
    };
    // the table is parsed before the clock starts: the load is timed from an in-memory
    // list to a published snapshot
    let (all4, all6) = if v6 {
        let all = fibkit_bench::data::embedded_v6().map_err(|e| e.to_string())?;
        (Vec::new(), all)
    } else {
        let all = fibkit_bench::data::embedded_v4().map_err(|e| e.to_string())?;
        (all, Vec::new())
    };
    let mut keys: Vec<u128> = Vec::new();
    let mut seed = 7u64;
    if v6 {
        for _ in 0..65536 {
            let (a, l) = all6[(splitmix(&mut seed) % all6.len() as u64) as usize];
            keys.push(
                a | ((u128::from(splitmix(&mut seed)) << 64 | u128::from(splitmix(&mut seed)))
                    & !fibkit::prefix::mask6(l)),
            );
        }
    } else {
        for _ in 0..65536 {
            let (a, l) = all4[(splitmix(&mut seed) % all4.len() as u64) as usize];
            keys.push(u128::from(
                a | ((splitmix(&mut seed) as u32) & !fibkit::prefix::mask4(l)),
            ));
        }
    }
    let t0 = Instant::now();
    ns.bulk(|ns| {
        if v6 {
            for (i, (a, l)) in all6.iter().enumerate() {
                add(ns, *a, *l, i, RouteOp::Add);
            }
        } else {
            for (i, (a, l)) in all4.iter().enumerate() {
                add(ns, u128::from(*a), *l, i, RouteOp::Add);
            }
        }
    });
    if std::env::var_os("FIB_BENCH_DEBUG").is_some() {
        let t = Instant::now();
        let c = ns.clone();
        let tc = t.elapsed();
        let t = Instant::now();
        let f = c.compile_fast4();
        eprintln!(
            "clone {tc:.2?} compile_fast4 {:.2?} ({})",
            t.elapsed(),
            f.map_or(0, |f| f.answers())
        );
    }
    let mut fib = fibkit::fib::Fib::new(ns);
    outln!("# fibkit bench updates: IPv{} full table loaded (from the parsed list) and published in {:.2?}; {} updates, batches of {batch}", if v6 { 6 } else { 4 }, t0.elapsed(), updates.len());
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let phase = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let counts = std::sync::Arc::new([
        std::sync::atomic::AtomicU64::new(0),
        std::sync::atomic::AtomicU64::new(0),
    ]);
    let reader = {
        let mut r = fib.reader();
        let (stop, phase, counts) = (stop.clone(), phase.clone(), counts.clone());
        std::thread::spawn(move || {
            while with_reader && !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let snap = r.snapshot();
                for k in keys.iter().take(4096) {
                    if v6 {
                        std::hint::black_box(snap.output6(&Flow6 {
                            dst: *k,
                            ..Default::default()
                        }));
                    } else {
                        std::hint::black_box(snap.output4(&fibkit::lookup::Flow4 {
                            dst: *k as u32,
                            proto: 17,
                            ..Default::default()
                        }));
                    }
                }
                let p = phase.load(std::sync::atomic::Ordering::Relaxed) as usize;
                counts[p.min(1)].fetch_add(4096, std::sync::atomic::Ordering::Relaxed);
            }
        })
    };
    if with_reader {
        std::thread::sleep(std::time::Duration::from_secs(1));
    }
    let idle = counts[0].load(std::sync::atomic::Ordering::Relaxed) as f64;
    phase.store(1, std::sync::atomic::Ordering::Relaxed);
    let t = Instant::now();
    let mut apply_time = 0f64;
    let mut publish_time = 0f64;
    let mut applied = 0usize;
    for (bi, chunk) in updates.chunks(batch.max(1)).enumerate() {
        let ta = Instant::now();
        applied += fib.apply(|ns| {
            let mut n = 0;
            for (j, (announce, a, l)) in chunk.iter().enumerate() {
                n += usize::from(if *announce {
                    add(ns, *a, *l, bi * batch + j, RouteOp::Replace)
                } else {
                    del(ns, *a, *l)
                });
            }
            n
        });
        apply_time += ta.elapsed().as_secs_f64();
        let tp = Instant::now();
        fib.publish();
        publish_time += tp.elapsed().as_secs_f64();
    }
    let total = t.elapsed().as_secs_f64();
    let during = counts[1].load(std::sync::atomic::Ordering::Relaxed) as f64;
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    reader.join().map_err(|_| "reader panicked".to_string())?;
    outln!(
        "updates={} applied={applied} apply={:.0} updates/s  with publish={:.0} updates/s  publishes={} ({:.1} ms each)",
        updates.len(),
        updates.len() as f64 / apply_time,
        updates.len() as f64 / total,
        updates.len().div_ceil(batch.max(1)),
        publish_time * 1e3 / updates.len().div_ceil(batch.max(1)) as f64
    );
    if with_reader {
        outln!(
            "reader: idle {:.1} M lookups/s, during the replay {:.1} M lookups/s ({:.0}% of idle)",
            idle / 1e6,
            during / total / 1e6,
            100.0 * (during / total) / idle.max(1.0)
        );
    } else {
        outln!("reader: none (--readers 0)");
    }
    Ok(())
}
