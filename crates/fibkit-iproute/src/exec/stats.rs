//! `ip stats`: iproute2 6.1's ipstats.c over fibkit's devices (`RTM_GETSTATS`,
//! `RTM_SETSTATS`).
//!
//! - **What is shown.** The statistics are a tree of groups, subgroups and suites
//!   whose leaves each print one line headed `IFINDEX: NAME: group G [subgroup S
//!   [suite T]]`, then what the kernel sent for it: `link` the device's counters
//!   (`IFLA_STATS_LINK_64`, `print_stats64`, with the error counters when iproute2's
//!   `show_stats` is above 1: `ip -s stats show`, `ip -d stats show`), `offload
//!   l3_stats` the L3 offload request and use and, when requested (`ip stats set dev
//!   DEV l3_stats on`), its counters, `offload hw_stats_info` the request and use again,
//!   `xstats bridge mcast` a bridge's IGMP/MLD counters, `xstats_slave bridge mcast`
//!   and `stp` a bridge port's IGMP/MLD and spanning tree counters; `afstats mpls`
//!   (this kernel has no MPLS), `offload cpu_hit` (no driver counts it) and the bond
//!   suites (no bonds) print their heading only.
//! - **Order.** iproute2 keeps the selected leaves sorted by the address of their
//!   descriptors in its binary (`ipstats_comp_enabled`), so they come out in that
//!   order whatever the order of the `group` arguments: [`Leaf`]'s order, taken from
//!   iproute2 6.1's output.
//! - **Counters.** fibkit's devices pass no packets: every traffic counter is 0 (a
//!   kernel's device that is up counts its IPv6 neighbour discovery and multicast
//!   listener reports, and a bridge with `mcast_stats_enabled 1` counts them in its
//!   IGMP/MLD statistics). The spanning tree transitions of a port are counted as the
//!   kernel counts them ([`fibkit::bridge::BridgePort::transition_blk`]), and so are
//!   the configuration BPDUs its hello timer and replies send and its ports hear
//!   ([`fibkit::bridge::BridgePort::tx_bpdu`]); no topology change notification is
//!   sent or heard (a bridge is its own root here).
//!   The L3 offload statistics are never in use (no hardware): `used off`, all 0.
//! - **`ip link xstats`.** The older command prints the same bridge blocks under the
//!   device's name alone (iplink_bridge.c's `bridge_print_xstats`):
//!   [`link_xstats_bridge`].

use std::collections::BTreeSet;

use fibkit::bridge::BridgePort;
use fibkit::{Errno, Netns};
use serde_json::{json, Map, Value};

use super::{dup_dev, incomplete, invarg, nodev, parse_on_off, Failure, Opts, Outcome, Res};

/// iproute2's names of the three levels of a selection.
const LEVELS: [&str; 3] = ["group", "subgroup", "suite"];

/// `do_help`'s text (on stderr).
const HELP: &str = "Usage: ip stats help
       ip stats show [ dev DEV ] [ group GROUP [ subgroup SUBGROUP [ suite SUITE ] ... ] ... ] ...
       ip stats set dev DEV l3_stats { on | off }
GROUP := { link | xstats | xstats_slave | offload | afstats }
xstats SUBGROUP := { bridge [ suite stp ] [ suite mcast ] | bond [ suite 802.3ad ] }
xstats_slave SUBGROUP := { bridge [ suite stp ] [ suite mcast ] | bond [ suite 802.3ad ] }
offload SUBGROUP := { cpu_hit | hw_stats_info | l3_stats }
afstats SUBGROUP := { mpls }
";

/// A leaf of the statistics tree, in the order iproute2 6.1 prints the selected ones
/// (its descriptors' addresses).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Leaf {
    AfMpls,
    Link,
    L3Stats,
    HwStatsInfo,
    CpuHit,
    SlaveBond3ad,
    Bond3ad,
    SlaveBridgeMcast,
    SlaveBridgeStp,
    BridgeMcast,
    BridgeStp,
}

impl Leaf {
    /// Its selection: group, subgroup, suite.
    fn path(self) -> &'static [&'static str] {
        match self {
            Leaf::AfMpls => &["afstats", "mpls"],
            Leaf::Link => &["link"],
            Leaf::L3Stats => &["offload", "l3_stats"],
            Leaf::HwStatsInfo => &["offload", "hw_stats_info"],
            Leaf::CpuHit => &["offload", "cpu_hit"],
            Leaf::SlaveBond3ad => &["xstats_slave", "bond", "802.3ad"],
            Leaf::Bond3ad => &["xstats", "bond", "802.3ad"],
            Leaf::SlaveBridgeMcast => &["xstats_slave", "bridge", "mcast"],
            Leaf::SlaveBridgeStp => &["xstats_slave", "bridge", "stp"],
            Leaf::BridgeMcast => &["xstats", "bridge", "mcast"],
            Leaf::BridgeStp => &["xstats", "bridge", "stp"],
        }
    }
}

/// A descriptor of the tree (`struct ipstats_stat_desc`).
struct Desc {
    name: &'static str,
    kind: Kind,
}

enum Kind {
    Leaf(Leaf),
    Group(&'static [Desc]),
}

const fn leaf(name: &'static str, l: Leaf) -> Desc {
    Desc {
        name,
        kind: Kind::Leaf(l),
    }
}

const fn group(name: &'static str, subs: &'static [Desc]) -> Desc {
    Desc {
        name,
        kind: Kind::Group(subs),
    }
}

/// `ipstats_stat_desc_toplev_group`, each group's members in iproute2's order.
const TOP: Desc = group(
    "top-level",
    &[
        leaf("link", Leaf::Link),
        group(
            "xstats",
            &[
                group(
                    "bridge",
                    &[
                        leaf("stp", Leaf::BridgeStp),
                        leaf("mcast", Leaf::BridgeMcast),
                    ],
                ),
                group("bond", &[leaf("802.3ad", Leaf::Bond3ad)]),
            ],
        ),
        group(
            "xstats_slave",
            &[
                group(
                    "bridge",
                    &[
                        leaf("stp", Leaf::SlaveBridgeStp),
                        leaf("mcast", Leaf::SlaveBridgeMcast),
                    ],
                ),
                group("bond", &[leaf("802.3ad", Leaf::SlaveBond3ad)]),
            ],
        ),
        group(
            "offload",
            &[
                leaf("cpu_hit", Leaf::CpuHit),
                leaf("hw_stats_info", Leaf::HwStatsInfo),
                leaf("l3_stats", Leaf::L3Stats),
            ],
        ),
        group("afstats", &[leaf("mpls", Leaf::AfMpls)]),
    ],
);

/// `ip stats ...` (the words after `stats`): `do_ipstats`, whose commands are matched
/// exactly.
pub(super) fn stats_cmd(ns: &mut Netns, opts: &Opts, a: &[String]) -> Res<Outcome> {
    let Some(cmd) = a.first().map(String::as_str) else {
        // a listing of everything at iproute2's own `show_stats`
        return show(ns, opts, &[], show_stats(opts, false));
    };
    let rest = &a[1..];
    match cmd {
        "help" => Err(help_ok()),
        "show" => show(ns, opts, rest, show_stats(opts, true)),
        "set" => set(ns, rest),
        _ => Err(Failure::parse(
            format!("Command \"{cmd}\" is unknown, try \"ip stats help\".\n"),
            1,
        )),
    }
}

/// iproute2's global `show_stats` for this command: `-s` given, plus for each `ip stats
/// show` of the process so far, this one included when `show` (`show_stats +=
/// show_details + 1`, never taken back: in a batch the second `ip stats show` already
/// prints the error counters).
fn show_stats(opts: &Opts, show: bool) -> u32 {
    // a single command is a process of its own, reset before it runs
    let shows = if show {
        crate::names::count_stats_show()
    } else {
        crate::names::stats_shows()
    };
    opts.stats
        .saturating_add(shows.saturating_mul(u32::from(opts.details) + 1))
}

/// `do_help` ending a command that succeeds: its text on stderr, status 0.
fn help_ok() -> Failure {
    Failure::parse(HELP, 0)
}

/// A word no parser knows: its question, the help, -EINVAL.
fn what_is(w: &str) -> Failure {
    Failure::parse(format!("What is \"{w}\"?\n{HELP}"), 22)
}

/// `NEXT_ARG`: the word after `a[*i]`, or iproute2's `incomplete_command`.
fn next_arg<'a>(a: &'a [String], i: &mut usize) -> Res<&'a str> {
    *i += 1;
    a.get(*i).map(String::as_str).ok_or_else(incomplete)
}

/// `dev NAME`'s checks (`duparg2`, `check_ifname`).
fn dev_word<'a>(dev: Option<&str>, v: &'a str) -> Res<&'a str> {
    if dev.is_some() {
        return Err(dup_dev(v));
    }
    if !crate::show::ifname_ok(v) {
        return Err(invarg("\"dev\" not a valid ifname", v));
    }
    Ok(v)
}

/// `ll_name_to_index` (see [`super::ll_index`]), 0 for none.
pub(super) fn name_to_index(ns: &Netns, name: &str) -> u32 {
    super::ll_index(ns, name).unwrap_or(0)
}

/// The device a request's (unsigned) ifindex names, as the kernel finds it
/// (`rtnl_stats_get`, `rtnl_stats_set`): ENODEV, without a message, when no device has
/// it.
fn kernel_dev(ns: &Netns, ifindex: u32) -> Res<u32> {
    ns.link(ifindex)
        .map(|l| l.index)
        .ok_or_else(|| Failure::errno(Errno::ENODEV))
}

// ------------------------------------------------------------------ selection

/// `ipstats_enable_find_stat_desc`: the descriptor a selection names, or its error.
fn find_desc(sel: &[Option<&str>; 3]) -> Res<&'static Desc> {
    let mut desc: &'static Desc = &TOP;
    for (i, s) in sel.iter().enumerate() {
        let Some(s) = s else {
            break;
        };
        let subs = match desc.kind {
            Kind::Leaf(_) => {
                return Err(Failure::parse(
                    format!(
                        "Error: {} {s} requested inside leaf {} {}\n",
                        LEVELS[i],
                        LEVELS[i - 1],
                        desc.name
                    ),
                    22,
                ))
            }
            Kind::Group(subs) => subs,
        };
        let Some(next) = subs.iter().find(|d| d.name == *s) else {
            return Err(Failure::parse(
                format!(
                    "Error: no {} named {s} found inside {}\n",
                    LEVELS[i], desc.name
                ),
                22,
            ));
        };
        desc = next;
    }
    Ok(desc)
}

/// `ipstats_enable_recursively`: every leaf under `desc`.
fn leaves_under(desc: &Desc, out: &mut BTreeSet<Leaf>) {
    match desc.kind {
        Kind::Leaf(l) => {
            out.insert(l);
        }
        Kind::Group(subs) => {
            for d in subs {
                leaves_under(d, out);
            }
        }
    }
}

/// `ipstats_enable_check`: the leaves of the selection join those enabled (every
/// group has leaves, so "did not match any known stats" never comes).
fn enable(sel: &[Option<&str>; 3], enabled: &mut BTreeSet<Leaf>) -> Res<()> {
    let desc = find_desc(sel)?;
    leaves_under(desc, enabled);
    Ok(())
}

/// `ipstats_select`: a new selection at `level`, the previous one (if it went that
/// deep) enabled first.
fn select<'a>(
    sel: &mut [Option<&'a str>; 3],
    new: &'a str,
    level: usize,
    enabled: &mut BTreeSet<Leaf>,
) -> Res<()> {
    for i in 0..level {
        if sel[i].is_none() {
            return Err(Failure::parse(
                format!(
                    "Error: {} {new} requested without selecting a {} first\n",
                    LEVELS[level], LEVELS[i]
                ),
                22,
            ));
        }
    }
    if sel[level..].iter().any(Option::is_some) {
        enable(sel, enabled)?;
    }
    sel[level] = Some(new);
    for s in sel.iter_mut().skip(level + 1) {
        *s = None;
    }
    Ok(())
}

/// What `ipstats_show` read: the help, or a device (if any) and the leaves.
enum ShowReq<'a> {
    Help,
    Show(Option<&'a str>, BTreeSet<Leaf>),
}

/// `ipstats_show`'s parser.
fn parse_show(a: &[String]) -> Res<ShowReq<'_>> {
    let mut sel: [Option<&str>; 3] = [None; 3];
    let mut enabled = BTreeSet::new();
    let mut dev: Option<&str> = None;
    let mut i = 0;
    while i < a.len() {
        let w = a[i].as_str();
        if w == "dev" {
            let v = next_arg(a, &mut i)?;
            dev = Some(dev_word(dev, v)?);
        } else if w == "help" {
            return Ok(ShowReq::Help);
        } else {
            // each level's keyword is compared with the word at hand, which a match
            // before moved on to its value (`group subgroup X` selects the group
            // "subgroup", then subgroup X)
            let mut found = false;
            for (level, kw) in LEVELS.iter().enumerate() {
                if a[i] == *kw {
                    let v = next_arg(a, &mut i)?;
                    select(&mut sel, v, level, &mut enabled)?;
                    found = true;
                }
            }
            if !found {
                return Err(what_is(w));
            }
        }
        i += 1;
    }
    // whatever was given last (nothing: the whole tree)
    enable(&sel, &mut enabled)?;
    Ok(ShowReq::Show(dev, enabled))
}

// ------------------------------------------------------------------ show

/// `ipstats_show`: one device's statistics (`RTM_GETSTATS`) or every device's (a
/// dump, by index), each device's selected leaves in [`Leaf`] order. `level` is
/// iproute2's `show_stats`.
fn show(ns: &Netns, opts: &Opts, a: &[String], level: u32) -> Res<Outcome> {
    let (dev, leaves) = match parse_show(a)? {
        ShowReq::Help => return Err(help_ok()),
        ShowReq::Show(d, l) => (d, l),
    };
    let ifindex = match dev {
        Some(d) => match name_to_index(ns, d) {
            0 => return Err(nodev(d)),
            i => Some(i),
        },
        None => None,
    };
    let p = Printer {
        ns,
        json: opts.json,
        sl: if opts.oneline { "\\" } else { "\n" },
        level,
    };
    let mut text = String::new();
    let mut objs = Vec::new();
    match ifindex {
        Some(i) => {
            // the JSON array is open before the kernel answers
            let idx = kernel_dev(ns, i).map_err(|f| Failure {
                stdout: if opts.json {
                    crate::show::json_list(&[], opts.pretty)
                } else {
                    String::new()
                },
                ..f
            })?;
            p.device(idx, &leaves, &mut text, &mut objs);
        }
        None => {
            let mut idxs: Vec<u32> = ns.links().map(|l| l.index).collect();
            idxs.sort_unstable();
            for idx in idxs {
                p.device(idx, &leaves, &mut text, &mut objs);
                // ipstats_dump_one: a line after each device
                text.push_str(p.sl);
            }
        }
    }
    if opts.json {
        return Ok(Outcome::Ok(crate::show::json_list(&objs, opts.pretty)));
    }
    Ok(Outcome::Ok(text))
}

/// `ipstats_process_ifsm` for one device.
struct Printer<'a> {
    ns: &'a Netns,
    json: bool,
    /// iproute2's `_SL_` (what `print_nl` prints): a line break, `\` with `-o`.
    sl: &'static str,
    /// `show_stats`.
    level: u32,
}

impl Printer<'_> {
    fn device(&self, idx: u32, leaves: &BTreeSet<Leaf>, text: &mut String, objs: &mut Vec<Value>) {
        let Some(l) = self.ns.link(idx) else {
            return;
        };
        let port = self.ns.bridge_port(idx);
        let bridge = self.ns.is_bridge(idx);
        let l3 = l.tuning.l3_stats;
        for &leaf in leaves {
            let mut o = Map::new();
            o.insert("ifindex".into(), json!(idx));
            o.insert("ifname".into(), json!(l.name));
            text.push_str(&format!("{idx}: {}:", l.name));
            for (lv, name) in LEVELS.iter().zip(leaf.path()) {
                o.insert((*lv).into(), json!(name));
                text.push_str(&format!(" {lv} {name}"));
            }
            match leaf {
                Leaf::Link => {
                    text.push_str(self.sl);
                    text.push_str(&self.stats64_text());
                    o.insert("stats64".into(), self.stats64_json());
                }
                Leaf::L3Stats => {
                    text.push_str(&format!(" {} used off", on_off(l3)));
                    o.insert("info".into(), json!({ "request": l3, "used": false }));
                    if l3 {
                        text.push_str(self.sl);
                        text.push_str(&self.hw_stats64_text());
                        o.insert("stats64".into(), hw_stats64_json());
                    }
                }
                Leaf::HwStatsInfo => {
                    text.push_str(self.sl);
                    text.push_str(&format!("    l3_stats {} used off", on_off(l3)));
                    o.insert(
                        "info".into(),
                        json!({ "l3_stats": { "request": l3, "used": false } }),
                    );
                }
                // no driver with offload statistics: the line ipstats_show_64 breaks
                // before it finds none
                Leaf::CpuHit => text.push_str(self.sl),
                Leaf::BridgeMcast if bridge => {
                    text.push_str(self.sl);
                    text.push_str(MCAST_TEXT);
                    o.insert("multicast".into(), mcast_json());
                }
                Leaf::SlaveBridgeMcast if port.is_some() => {
                    text.push_str(self.sl);
                    text.push_str(MCAST_TEXT);
                    o.insert("multicast".into(), mcast_json());
                }
                Leaf::SlaveBridgeStp => {
                    if let Some(p) = port {
                        text.push_str(self.sl);
                        text.push_str(&stp_text(p));
                        o.insert("stp".into(), stp_json(p));
                    }
                }
                // no MPLS in this kernel, no bonds; a bridge itself has no spanning
                // tree statistics (its ports do)
                _ => {}
            }
            text.push_str(self.sl);
            if self.json {
                objs.push(Value::Object(o));
            }
        }
    }

    /// `print_stats64` of counters that are all 0 (fixed column widths) without the
    /// carrier changes, the error counters when `show_stats` is above 1.
    fn stats64_text(&self) -> String {
        let sl = self.sl;
        let zeros6 = "             0       0      0       0       0       0 ";
        let mut s =
            format!("    RX:  bytes packets errors dropped  missed   mcast           {sl}{zeros6}");
        if self.level > 1 {
            s.push_str(&format!(
                "{sl}    RX errors:  length    crc   frame    fifo overrun{sl}                     0      0       0       0       0 "
            ));
        }
        s.push_str(&format!(
            "{sl}    TX:  bytes packets errors dropped carrier collsns           {sl}{zeros6}"
        ));
        if self.level > 1 {
            s.push_str(&format!(
                "{sl}    TX errors: aborted   fifo  window heartbt        {sl}                     0      0       0       0 "
            ));
        }
        s
    }

    /// `print_stats64`'s JSON of counters that are all 0 (no carrier changes).
    fn stats64_json(&self) -> Value {
        let mut out = Map::new();
        for (dir, counters, errors) in crate::show::STATS64_JSON_KEYS {
            let mut m = Map::new();
            for k in counters {
                m.insert(k.into(), json!(0));
            }
            if self.level > 1 {
                for &k in errors {
                    m.insert(k.into(), json!(0));
                }
            }
            out.insert(dir.into(), Value::Object(m));
        }
        Value::Object(out)
    }

    /// `print_hw_stats64` of counters that are all 0.
    fn hw_stats64_text(&self) -> String {
        let sl = self.sl;
        format!(
            "    RX: bytes packets errors dropped   mcast{sl}            0       0      0       0       0 {sl}    TX: bytes packets errors dropped{sl}            0       0      0       0 "
        )
    }
}

fn hw_stats64_json() -> Value {
    json!({
        "rx": { "bytes": 0, "packets": 0, "errors": 0, "dropped": 0, "multicast": 0 },
        "tx": { "bytes": 0, "packets": 0, "errors": 0, "dropped": 0 },
    })
}

fn on_off(b: bool) -> &'static str {
    if b {
        "on"
    } else {
        "off"
    }
}

/// `bridge_print_stats_mcast` of counters that are all 0.
const MCAST_TEXT: &str = "                    IGMP queries:
                      RX: v1 0 v2 0 v3 0
                      TX: v1 0 v2 0 v3 0
                    IGMP reports:
                      RX: v1 0 v2 0 v3 0
                      TX: v1 0 v2 0 v3 0
                    IGMP leaves: RX: 0 TX: 0
                    IGMP parse errors: 0
                    MLD queries:
                      RX: v1 0 v2 0
                      TX: v1 0 v2 0
                    MLD reports:
                      RX: v1 0 v2 0
                      TX: v1 0 v2 0
                    MLD leaves: RX: 0 TX: 0
                    MLD parse errors: 0
";

/// `bridge_print_stats_stp` of a port: its configuration BPDUs and transitions as
/// counted; topology change notifications are neither sent nor received (0: the bridge
/// is its own root).
fn stp_text(p: &BridgePort) -> String {
    let (blk, fwd) = (p.transition_blk, p.transition_fwd);
    let (rx, tx) = (p.rx_bpdu, p.tx_bpdu);
    format!(
        "                    STP BPDU:  RX: {rx} TX: {tx}
                    STP TCN:   RX: 0 TX: 0
                    STP Transitions: Blocked: {blk} Forwarding: {fwd}
"
    )
}

fn stp_json(p: &BridgePort) -> Value {
    json!({
        "rx_bpdu": p.rx_bpdu,
        "tx_bpdu": p.tx_bpdu,
        "rx_tcn": 0,
        "tx_tcn": 0,
        "transition_blk": p.transition_blk,
        "transition_fwd": p.transition_fwd,
    })
}

fn mcast_json() -> Value {
    let v3 = json!({ "rx_v1": 0, "rx_v2": 0, "rx_v3": 0, "tx_v1": 0, "tx_v2": 0, "tx_v3": 0 });
    let v2 = json!({ "rx_v1": 0, "rx_v2": 0, "tx_v1": 0, "tx_v2": 0 });
    json!({
        "igmp_queries": v3,
        "igmp_reports": v3,
        "igmp_leaves": { "rx": 0, "tx": 0 },
        "igmp_parse_errors": 0,
        "mld_queries": v2,
        "mld_reports": v2,
        "mld_leaves": { "rx": 0, "tx": 0 },
        "mld_parse_errors": 0,
    })
}

// ------------------------------------------------------------------ ip link xstats

/// The blocks `ip link xstats type bridge|bridge_slave` prints of each device
/// (`xstats_print_attr`): all the kernel sent, or only `BRIDGE_XSTATS_MCAST` (`igmp`,
/// `mcast`) or `BRIDGE_XSTATS_STP` (`stp`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum BridgeBlocks {
    All,
    Mcast,
    Stp,
}

/// The devices, in ifindex order, whose entry in the `RTM_GETSTATS` dump `ip link
/// xstats` asks for carries the nest it asks for, IFLA_STATS_LINK_XSTATS or (`slave`)
/// IFLA_STATS_LINK_XSTATS_SLAVE (`rtnl_fill_statsinfo`: a device whose own link ops, or
/// whose master's, fill extended statistics; of fibkit's kinds a bridge, and a bridge's
/// port), and that its `dev` filter keeps (`filter`: an ifindex, 0 for all).
pub(super) fn xstats_devices(ns: &Netns, slave: bool, filter: u32) -> Vec<u32> {
    let mut idxs: Vec<u32> = ns
        .links()
        .map(|l| l.index)
        .filter(|&i| filter == 0 || filter == i)
        .filter(|&i| {
            if slave {
                ns.bridge_port(i).is_some()
            } else {
                ns.is_bridge(i)
            }
        })
        .collect();
    idxs.sort_unstable();
    idxs
}

/// `bridge_print_xstats` (iproute2 6.1's `ip link xstats type bridge|bridge_slave`) over
/// [`xstats_devices`]: each device's name padded to 16 columns on a line of its own,
/// then the blocks of its nest in the kernel's order (`br_fill_linkxstats`: the VLAN
/// entries, which this printer skips, the IGMP/MLD counters, a port's spanning tree
/// counters), `blocks` selecting; with `-j` one object per device (`ifname`,
/// `multicast`, `stp`) in a list. The same printers as `ip stats`'s bridge suites.
pub(super) fn link_xstats_bridge(
    ns: &Netns,
    opts: &Opts,
    slave: bool,
    blocks: BridgeBlocks,
    filter: u32,
) -> String {
    let mut text = String::new();
    let mut objs = Vec::new();
    for idx in xstats_devices(ns, slave, filter) {
        let Some(l) = ns.link(idx) else {
            continue;
        };
        let mut o = Map::new();
        o.insert("ifname".into(), json!(l.name));
        text.push_str(&format!("{:<16}\n", l.name));
        if blocks != BridgeBlocks::Stp {
            text.push_str(MCAST_TEXT);
            o.insert("multicast".into(), mcast_json());
        }
        let port = if slave { ns.bridge_port(idx) } else { None };
        if let Some(p) = port.filter(|_| blocks != BridgeBlocks::Mcast) {
            text.push_str(&stp_text(p));
            o.insert("stp".into(), stp_json(p));
        }
        objs.push(Value::Object(o));
    }
    if opts.json {
        return crate::show::json_list(&objs, opts.pretty);
    }
    text
}

// ------------------------------------------------------------------ set

/// `ipstats_set`: `dev DEV l3_stats on|off` in any order, each once.
fn set(ns: &mut Netns, a: &[String]) -> Res<Outcome> {
    let mut dev: Option<&str> = None;
    let mut l3: Option<bool> = None;
    let mut i = 0;
    while i < a.len() {
        let w = a[i].as_str();
        if w == "dev" {
            let v = next_arg(a, &mut i)?;
            dev = Some(dev_word(dev, v)?);
        } else if w == "l3_stats" {
            let v = next_arg(a, &mut i)?;
            if l3.is_some() {
                return Err(Failure::parse(
                    "A statistics suite to toggle was already given.\n",
                    22,
                ));
            }
            l3 = Some(parse_on_off("l3_stats", v)?);
        } else if w == "help" {
            return Err(help_ok());
        } else {
            return Err(what_is(w));
        }
        i += 1;
    }
    let Some(dev) = dev else {
        return Err(Failure::parse(
            "Not enough information: \"dev\" argument is required.\n",
            255,
        ));
    };
    let Some(on) = l3 else {
        return Err(Failure::parse(
            "Not enough information: stat type to toggle is required.\n",
            255,
        ));
    };
    let idx = match name_to_index(ns, dev) {
        0 => return Err(nodev(dev)),
        i => kernel_dev(ns, i)?,
    };
    ns.link_set_l3_stats(idx, on).map_err(Failure::kernel)?;
    Ok(Outcome::Ok(String::new()))
}
