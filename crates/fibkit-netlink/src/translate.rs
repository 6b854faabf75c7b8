//! From a [`KernelState`] to `ip` commands applied to a fresh [`Netns`].
//!
//! The phases, in the order fibkit accepts them:
//!
//! 1. namespace-wide sysctls and the `all`/`default` device knobs;
//! 2. links (`link add`; kinds fibkit does not model become `dummy` links);
//! 3. per-device sysctls, then `link set ... up`;
//! 4. addresses, reconciled: fibkit derives some itself (`lo`'s, IPv6 link-local ones),
//!    so only the missing ones are added and the ones the kernel lacks deleted;
//! 5. neighbour entries: the ARP and ND entries fibkit models (`ip neigh add ... nud
//!    STATE`). fibkit creates none by itself, and nothing later in the translation
//!    flushes them (only link changes do), so they are simply added, and proxy entries
//!    after them (oldest first, to keep the kernel's order in each hash bucket); states
//!    fibkit does not have, entries on unknown devices and proxies without a device are
//!    skipped with a warning, and the kernel's multicast and broadcast mappings (never a gateway, so
//!    never consulted by a lookup) are left out silently;
//! 6. nexthop objects (singles, then groups), then routes, a first time: the kernel
//!    checked each gateway when it was added, under the rules of that moment, so a
//!    route (or nexthop object) added before a rule that now makes its gateway
//!    unreachable is only accepted before the rules. Those fibkit refuses here are
//!    kept for phase 8 (each pass repeats its refused commands while some succeed);
//!    the kernel's own routes (local, broadcast, connected prefix, IPv6 link-local,
//!    multicast, anycast) are derived by fibkit from the links and addresses, so a
//!    route is added only when fibkit lacks it;
//! 7. rules (only when the kernel's differ from the defaults: flush, then add); when
//!    they are the defaults but the probe found the kernel's IPv4 local and main
//!    tables unmerged ([`KernelState::tables4_unmerged`]), a rule added and deleted
//!    (`pref 32765`) unmerges fibkit's too. fibkit keeps the local and main tables
//!    apart and only looks them up together while merged, so the routes added in phase
//!    6 stay in their tables, in their order, as the kernel's `fib_unmerge` copies them.
//!    The multicast routing rules (`ip mrule`) follow, when a family's are not its
//!    one default rule: flushed, then added as the kernel lists them;
//! 8. routes, a second time: the nexthop objects and routes refused before the rules
//!    (a gateway only a rule-selected table reaches); then the routes the kernel lacks
//!    are deleted, and what is still refused is tried once more. Where a prefix holds
//!    the same entries as the kernel's in another order (routes added now come behind
//!    the others), the entries after the longest head in the kernel's order are
//!    deleted and added again, in its order (on a copy first: an entry added before
//!    the rules may be refused now; then the order is left and a warning says so).
//!    Only accepted commands are recorded, in the order they were applied, so `fib
//!    -batch` of the script rebuilds the same state.
//!
//! A last pass compares fibkit's routes, addresses and neighbour entries with the
//! kernel's again and warns about any that still differ. Then the multicast
//! memberships fibkit does not derive are copied ([`crate::mcast`]): the link-layer
//! addresses `ip maddr add` marked (`maddr add`), and the groups processes joined
//! through their sockets (`mcjoin DEV GROUP`, [`Netns::mc_socket_join`]).
//!
//! Last comes the generic netlink state ([`crate::genl`]): the MPTCP path manager's
//! limits (`mptcp limits set`) and endpoints (`mptcp endpoint add ADDR [port P] id ID
//! [dev DEV] FLAGS...`, with the kernel's IDs, in its dump order) and the SRv6 tunnel
//! source (`sr tunsrc set`); each only where it differs from a new namespace's.
//!
//! Then the IPsec security policy database ([`crate::xfrm`]): the hash thresholds
//! (`xfrm policy set hthresh4 L R hthresh6 L R`) and default actions (`xfrm policy
//! setdefault ...`) where they differ from a new namespace's, then each policy as
//! `xfrm policy add SELECTOR dir DIR index N [ptype sub] [action block] priority P
//! [flag ...] [mark V mask M] [if_id I] [limit ...] [tmpl ...]`, oldest first (the
//! kernel dumps the newest first, and puts each policy added at the head), with the
//! kernel's index (whose low bits are the direction, as an explicit index must be).
//! A selector keeps its host bits, its ports (ICMP type and code, GRE key) and its
//! device, written `ifN` when the device is gone. Socket policies and what `ip`
//! cannot set are warnings, and so are security contexts and use counters.

use std::collections::HashMap;

use fibkit::route::{nhflags, RouteType};
use fibkit::Netns;
use fibkit_iproute::exec::{run_ip, run_sysctl};
use fibkit_iproute::names::{proto_n2a, scope_n2a, table_n2a};

use crate::kernel::{ntf, nud, Ip, KAddr, KLink, KNeigh, KNexthop, KRoute, KRule, AF_INET6};
use crate::nl::{NLM_F_APPEND, NLM_F_EXCL, NLM_F_REPLACE};
use crate::{KernelState, Warning};

/// The comment line before the rule added and deleted to unmerge fibkit's IPv4 tables.
const UNMERGE_COMMENT: &str =
    "# the kernel's IPv4 local and main tables are unmerged (a rule was added \
     once; the rules are the defaults again): a rule added and deleted unmerges fibkit's";

/// The comment line before the IPv6 rule added and deleted to set fibkit's one-way
/// custom-rules flag.
const CUSTOM6_COMMENT: &str =
    "# the kernel's IPv6 rules are not the defaults, so a rule was added once (only \
     deletes leave them otherwise): a rule added and deleted makes fibkit walk them too";

/// The comment line before a command the mirror applied in restore mode
/// ([`Netns::set_restore_mode`]), which the script keeps commented out.
const TRUSTED_COMMENT: &str = "the kernel accepted this when it was added (its gateway \
     reachable, its preferred source present); fibkit mirrors it as it is, but refuses to \
     add it now:";

/// The comment line before an MPTCP endpoint the mirror added in restore mode.
const ENDPOINT_COMMENT: &str = "the kernel bound this endpoint's listening socket when it \
     was added (its address present then); fibkit mirrors it as it is, but refuses to add \
     it now:";

/// The comment line before a route the mirror made again in restore mode so that its
/// gateway keeps the link scope the kernel gave it.
const LINK_SCOPE_COMMENT: &str = "the kernel keeps this route's gateway at link scope \
     (it was not local when the route was added); a replay gives it the scope its \
     lookup finds then";

/// The result of translating a [`KernelState`].
#[derive(Debug)]
pub struct Translation {
    /// The commands applied, in order: `ip` command lines without the leading `ip`
    /// (what `fib -batch` reads), `sysctl KEY=VALUE` lines, and `# ...` comment lines
    /// saying why the commands after them are there.
    pub commands: Vec<String>,
    /// What could not be mirrored exactly.
    pub warnings: Vec<Warning>,
    /// The namespace the commands built.
    pub netns: Netns,
}

/// `IFA_F_*` flags that are configuration (the others are state or derived).
const ADDR_CFG_FLAGS: u32 = 0x02 | 0x04 | 0x10 | 0x100 | 0x200 | 0x400;
const IFA_F_SECONDARY: u32 = 0x01;
const IFA_F_NODAD: u32 = 0x02;
const IFA_F_DADFAILED: u32 = 0x08;
const IFA_F_DEPRECATED: u32 = 0x20;
const IFA_F_TENTATIVE: u32 = 0x40;

struct Ctx {
    ns: Netns,
    commands: Vec<String>,
    warnings: Vec<Warning>,
}

impl Ctx {
    fn warn(&mut self, s: impl Into<String>) {
        self.warnings.push(Warning::new(s));
    }

    /// Apply one `ip` command (words after `ip`); record it when it succeeds.
    fn ip(&mut self, words: Vec<String>) -> bool {
        let line = words.join(" ");
        match run_ip(&mut self.ns, &words) {
            Ok(_) => {
                self.commands.push(line);
                true
            }
            Err(f) => {
                let e = f.stderr.trim_end().replace('\n', " / ");
                self.warn(format!("fibkit refused `{line}`: {e}"));
                false
            }
        }
    }

    /// Apply one command; record it if it succeeds, say nothing if not. An IPv6
    /// gateway route is added with `add` (so that it does not become a path of another
    /// gateway route), but where the kernel keeps it beside an entry of the same
    /// metric that takes no paths (a reject route: `unreachable PFX` then `append PFX
    /// via GW`), `add` says EEXIST, and `append` puts it after that entry, as the
    /// kernel has it.
    fn try_ip(&mut self, words: Vec<String>) -> bool {
        let mut words = words;
        let mut ok = run_ip(&mut self.ns, &words).is_ok();
        if !ok && words.len() > 2 && words[..3] == ["-6", "route", "add"] {
            words[2] = w("append");
            ok = run_ip(&mut self.ns, &words).is_ok();
        }
        if ok {
            self.commands.push(words.join(" "));
        }
        ok
    }

    /// Apply each command, silently, again and again while some succeed (one may need
    /// another after it: a nexthop group its members, a route its nexthop object or
    /// the route that reaches its gateway); returns the ones still refused, in order.
    fn try_all(&mut self, mut pending: Vec<Vec<String>>) -> Vec<Vec<String>> {
        loop {
            let before = pending.len();
            pending.retain(|o| !self.try_ip(o.clone()));
            if pending.is_empty() || pending.len() == before {
                return pending;
            }
        }
    }

    fn sysctl(&mut self, key: &str, value: &str) {
        let a = format!("{key}={value}");
        match run_sysctl(&mut self.ns, &a) {
            Ok(()) => self.commands.push(format!("sysctl {a}")),
            Err(e) => self.warn(format!("fibkit refused `sysctl {a}`: {e}")),
        }
    }
}

fn w(s: impl Into<String>) -> String {
    s.into()
}

pub(crate) fn mac_str(m: &[u8; 6]) -> String {
    m.iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(":")
}

fn num(s: &str) -> Option<i64> {
    let s = s.trim();
    if let Some(h) = s.strip_prefix("0x") {
        i64::from_str_radix(h, 16).ok()
    } else {
        s.parse().ok()
    }
}

/// fibkit's value of a modelled sysctl key, for comparison.
fn fib_value(ns: &Netns, key: &str) -> Option<i64> {
    let s = &ns.sysctl;
    let parts: Vec<&str> = key.split('.').collect();
    let v = match parts.as_slice() {
        ["net", "ipv4", "fib_multipath_hash_policy"] => s.fib_multipath_hash_policy,
        ["net", "ipv4", "fib_multipath_hash_fields"] => s.fib_multipath_hash_fields,
        ["net", "ipv4", "fib_multipath_hash_seed"] => s.fib_multipath_hash_seed,
        ["net", "ipv4", "fib_multipath_use_neigh"] => s.fib_multipath_use_neigh,
        ["net", "ipv6", "fib_multipath_hash_policy"] => s.fib6_multipath_hash_policy,
        ["net", "ipv6", "fib_multipath_hash_fields"] => s.fib6_multipath_hash_fields,
        ["net", "ipv4", "conf", dev, knob] => {
            let c = match *dev {
                "all" => &s.v4_all,
                "default" => &s.v4_default,
                d => s.v4_dev.get(&ns.link_index_by_name(d)?)?,
            };
            match *knob {
                "forwarding" => c.forwarding,
                "rp_filter" => c.rp_filter,
                "accept_local" => c.accept_local,
                "route_localnet" => c.route_localnet,
                "ignore_routes_with_linkdown" => c.ignore_routes_with_linkdown,
                "promote_secondaries" => c.promote_secondaries,
                "src_valid_mark" => c.src_valid_mark,
                "send_redirects" => c.send_redirects,
                "shared_media" => c.shared_media,
                "arp_evict_nocarrier" => c.arp_evict_nocarrier,
                "bc_forwarding" => c.bc_forwarding,
                "proxy_arp" => c.proxy_arp,
                _ => return None,
            }
        }
        ["net", "ipv6", "conf", dev, knob] => {
            let c = match *dev {
                "all" => &s.v6_all,
                "default" => &s.v6_default,
                d => s.v6_dev.get(&ns.link_index_by_name(d)?)?,
            };
            return Some(match *knob {
                "forwarding" => i64::from(c.forwarding),
                "ignore_routes_with_linkdown" => i64::from(c.ignore_routes_with_linkdown),
                "keep_addr_on_down" => i64::from(c.keep_addr_on_down),
                "accept_dad" => i64::from(c.accept_dad),
                "disable_ipv6" => i64::from(c.disable_ipv6),
                "router_solicitations" => i64::from(c.router_solicitations),
                "use_oif_addrs_only" => i64::from(c.use_oif_addrs_only),
                "ndisc_evict_nocarrier" => i64::from(c.ndisc_evict_nocarrier),
                "proxy_ndp" => i64::from(c.proxy_ndp),
                _ => return None,
            });
        }
        _ => return None,
    };
    Some(i64::from(v))
}

// ----------------------------------------------------------------- routes

/// One path in the canonical form both sides are compared in.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct HSpec {
    gw: Option<Ip>,
    dev: String,
    weight: u32,
    onlink: bool,
    /// Realms (`RTA_FLOW`, IPv4 only).
    realm: u32,
    /// Its encapsulation.
    encap: Option<std::sync::Arc<fibkit::encap::Encap>>,
    /// The name of the encapsulation's own device (a seg6local `oif`), if any.
    encap_dev: String,
}

/// A route in the canonical form both sides are compared in.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct RSpec {
    v6: bool,
    table: u32,
    rtype: u8,
    dst: (u128, u8),
    src: (u128, u8),
    tos: u8,
    proto: u8,
    scope: u8,
    metric: u32,
    prefsrc: Option<Ip>,
    nhid: u32,
    hops: Vec<HSpec>,
    metrics: Vec<(u8, u32)>,
    locks: u32,
    congctl: Option<String>,
    pref: u8,
    /// Seconds left before an IPv6 route expires (the kernel's side only).
    expires: Expiry,
}

/// An IPv6 route's seconds left: carried into the command that mirrors the route, and
/// left out of every comparison (they count down between two dumps; fibkit's clock
/// does not run while it mirrors).
#[derive(Clone, Copy, Debug, Default)]
struct Expiry(Option<u32>);

impl PartialEq for Expiry {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for Expiry {}

impl std::hash::Hash for Expiry {
    fn hash<H: std::hash::Hasher>(&self, _: &mut H) {}
}

fn is_reject(t: u8) -> bool {
    (6..=9).contains(&t)
}

fn ip_of(v6: bool, a: u128) -> Ip {
    if v6 {
        Ip::V6(a)
    } else {
        Ip::V4(a as u32)
    }
}

impl RSpec {
    fn normalize(mut self) -> RSpec {
        if self.nhid != 0 {
            self.hops.clear();
        } else if is_reject(self.rtype) {
            // a reject route has no path, but keeps its realms (`unreachable PFX realm N`)
            let realm = self.hops.first().map_or(0, |h| h.realm);
            self.hops.clear();
            if realm != 0 {
                self.hops.push(HSpec {
                    gw: None,
                    dev: String::new(),
                    weight: 1,
                    onlink: false,
                    realm,
                    encap: None,
                    encap_dev: String::new(),
                });
            }
        }
        if self.v6 {
            self.scope = 0;
        } else {
            self.pref = 0;
        }
        if self.hops.len() == 1 {
            self.hops[0].weight = 1;
        }
        self.metrics.retain(|(_, v)| *v != 0);
        self.metrics.sort_unstable();
        self
    }

    fn words(&self, verb: &str, with_metrics: bool) -> Vec<String> {
        let mut o = Vec::new();
        if self.v6 {
            o.push(w("-6"));
        }
        o.push(w("route"));
        o.push(w(verb));
        let t = RouteType::from_u8(self.rtype).unwrap_or(RouteType::Unicast);
        if t != RouteType::Unicast {
            o.push(w(t.name()));
        }
        o.push(format!("{}/{}", ip_of(self.v6, self.dst.0), self.dst.1));
        if self.v6 && self.src.1 != 0 {
            o.push(w("from"));
            o.push(format!("{}/{}", ip_of(true, self.src.0), self.src.1));
        }
        if self.tos != 0 {
            o.push(w("tos"));
            o.push(format!("0x{:02x}", self.tos));
        }
        o.push(w("table"));
        o.push(table_n2a(self.table));
        o.push(w("proto"));
        o.push(proto_n2a(self.proto));
        if !self.v6 {
            o.push(w("scope"));
            o.push(scope_n2a(self.scope));
        }
        o.push(w("metric"));
        o.push(self.metric.to_string());
        if let Some(s) = self.prefsrc {
            o.push(w("src"));
            o.push(s.to_string());
        }
        if self.nhid != 0 {
            o.push(w("nhid"));
            o.push(self.nhid.to_string());
        } else if self.hops.len() == 1 {
            hop_words(&mut o, &self.hops[0], self.v6, false);
        }
        if self.v6 && self.pref != 0 {
            o.push(w("pref"));
            o.push(w(match self.pref {
                1 => "high",
                3 => "low",
                _ => "medium",
            }));
        }
        if with_metrics {
            metric_words(&mut o, self);
            if let (true, Some(e)) = (self.v6, self.expires.0) {
                o.push(w("expires"));
                o.push(e.to_string());
            }
        }
        // a single path's encapsulation last: its words end only at a word they do not
        // know (an `ip6` one's `hoplimit` would take the metric's)
        if let (0, [h]) = (self.nhid, self.hops.as_slice()) {
            if let Some(e) = &h.encap {
                o.extend(encap_words(e, &h.encap_dev));
            }
        }
        // `ip` reads everything after the first `nexthop` as paths: they come last
        if self.nhid == 0 && self.hops.len() > 1 {
            for h in &self.hops {
                o.push(w("nexthop"));
                hop_words(&mut o, h, self.v6, true);
            }
        }
        o
    }
}

/// A seg6local encapsulation's own device.
fn encap_oif(e: Option<&fibkit::encap::Encap>) -> Option<u32> {
    match e? {
        fibkit::encap::Encap::Seg6Local { oif, .. } => *oif,
        _ => None,
    }
}

/// The `encap ...` words that make `e` again (`dev`: the name of a seg6local `oif`).
fn encap_words(e: &fibkit::encap::Encap, dev: &str) -> Vec<String> {
    use fibkit::encap::{srh_listed, Encap, Seg6Mode, TUNNEL_FLAG_NAMES};
    let mut o = vec![w("encap"), w(e.type_name())];
    // the segments of an SRH, without the last slot `ip` adds itself
    let segs_word = |segs: &[u128], slot: bool| -> String {
        srh_listed(segs, slot)
            .iter()
            .map(|s| Ip::V6(*s).to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    let flag_words = |o: &mut Vec<String>, f: u16| {
        for (bit, name) in TUNNEL_FLAG_NAMES {
            if f & bit != 0 {
                o.push(w(name));
            }
        }
    };
    match e {
        Encap::Ip {
            id,
            src,
            dst,
            ttl,
            tos,
            flags,
            vxlan_gbp,
        } => {
            for (k, v) in [
                ("id", id.to_string()),
                ("src", Ip::V4(*src).to_string()),
                ("dst", Ip::V4(*dst).to_string()),
                ("ttl", ttl.to_string()),
                // (a DS field is read as hex)
                ("tos", format!("0x{tos:x}")),
            ] {
                o.push(w(k));
                o.push(v);
            }
            flag_words(&mut o, *flags);
            if let Some(g) = vxlan_gbp {
                o.push(w("vxlan_opts"));
                o.push(g.to_string());
            }
        }
        Encap::Ip6 {
            id,
            src,
            dst,
            hoplimit,
            tc,
            flags,
            vxlan_gbp,
        } => {
            for (k, v) in [
                ("id", id.to_string()),
                ("src", Ip::V6(*src).to_string()),
                ("dst", Ip::V6(*dst).to_string()),
                ("hoplimit", hoplimit.to_string()),
                ("tc", format!("0x{tc:x}")),
            ] {
                o.push(w(k));
                o.push(v);
            }
            flag_words(&mut o, *flags);
            if let Some(g) = vxlan_gbp {
                o.push(w("vxlan_opts"));
                o.push(g.to_string());
            }
        }
        Encap::Seg6Local {
            action,
            table,
            nh4,
            nh6,
            oif,
            srh,
            count,
            flavors,
        } => {
            o.extend([w("action"), w(*action)]);
            if let Some((segs, hmac)) = srh {
                let list = segs_word(segs, *action != "End.B6.Encaps");
                // `hmac` always follows: iproute2 reads again segments that end the
                // line (hmac 0 is none)
                o.extend([w("srh"), w("segs"), list, w("hmac"), hmac.to_string()]);
            }
            if let Some(t) = table {
                o.extend([w("table"), t.to_string()]);
            }
            if let Some(a) = nh4 {
                o.extend([w("nh4"), Ip::V4(*a).to_string()]);
            }
            if let Some(a) = nh6 {
                o.extend([w("nh6"), Ip::V6(*a).to_string()]);
            }
            if oif.is_some() {
                o.extend([w("oif"), dev.to_string()]);
            }
            if *count {
                o.push(w("count"));
            }
            if let Some((ops, lb, nf)) = flavors {
                let names = fibkit::encap::seg6_flavor::names(*ops);
                o.extend([w("flavors"), names.join(",")]);
                if ops & fibkit::encap::seg6_flavor::NEXT_CSID != 0 {
                    o.extend([w("lblen"), lb.to_string(), w("nflen"), nf.to_string()]);
                }
            }
        }
        Encap::Seg6 { mode, segs, hmac } => {
            let list = segs_word(segs, *mode == Seg6Mode::Inline);
            o.extend([w("mode"), w(mode.name()), w("segs"), list]);
            if *hmac != 0 {
                o.extend([w("hmac"), hmac.to_string()]);
            }
        }
        // the engine never keeps one
        Encap::Unsupported { .. } | Encap::Refused { .. } => {}
    }
    o
}

fn hop_words(o: &mut Vec<String>, h: &HSpec, v6: bool, multi: bool) {
    if multi {
        if let Some(e) = &h.encap {
            o.extend(encap_words(e, &h.encap_dev));
        }
    }
    if let Some(g) = h.gw {
        o.push(w("via"));
        if g.is_v6() != v6 {
            o.push(w(if g.is_v6() { "inet6" } else { "inet" }));
        }
        o.push(g.to_string());
    }
    if !h.dev.is_empty() {
        o.push(w("dev"));
        o.push(h.dev.clone());
    }
    if multi {
        o.push(w("weight"));
        o.push(h.weight.to_string());
    }
    if h.onlink {
        o.push(w("onlink"));
    }
    if h.realm != 0 {
        // the raw 32-bit form: FROM << 16 | TO
        o.push(w("realms"));
        o.push(h.realm.to_string());
    }
}

fn metric_words(o: &mut Vec<String>, s: &RSpec) {
    use fibkit::route::rtax;
    for &(id, v) in &s.metrics {
        let lock = s.locks & (1 << id) != 0;
        let (name, val) = match id {
            // a bare number is sent unscaled (in the kernel's 1/8 and 1/4 ms): exact
            rtax::RTT => ("rtt", v.to_string()),
            rtax::RTTVAR => ("rttvar", v.to_string()),
            rtax::RTO_MIN => ("rto_min", format!("{v}ms")),
            rtax::FEATURES => {
                o.push(w("features"));
                o.push(w("ecn"));
                continue;
            }
            rtax::CC_ALGO | rtax::LOCK => continue,
            id => (rtax::name(id), v.to_string()),
        };
        o.push(w(name));
        if lock && id != rtax::RTO_MIN {
            o.push(w("lock"));
        }
        o.push(val);
    }
    if let Some(c) = &s.congctl {
        o.push(w("congctl"));
        if s.locks & (1 << rtax::CC_ALGO) != 0 {
            o.push(w("lock"));
        }
        o.push(c.clone());
    }
}

fn kernel_rspec(r: &KRoute, names: &HashMap<u32, String>) -> Result<RSpec, String> {
    if matches!(RouteType::from_u8(r.rtype), None | Some(RouteType::Unspec)) {
        return Err(format!("route type {} not modelled", r.rtype));
    }
    let mut hops = Vec::new();
    for h in &r.hops {
        let dev = if h.oif == 0 {
            String::new()
        } else {
            names
                .get(&h.oif)
                .cloned()
                .ok_or_else(|| format!("unknown device index {}", h.oif))?
        };
        hops.push(HSpec {
            gw: h.gw,
            dev,
            weight: h.weight,
            onlink: h.flags & nhflags::ONLINK != 0,
            realm: h.realm,
            encap: h.encap.clone(),
            encap_dev: encap_oif(h.encap.as_deref())
                .and_then(|i| names.get(&i).cloned())
                .unwrap_or_default(),
        });
    }
    Ok(RSpec {
        v6: r.v6,
        table: r.table,
        rtype: r.rtype,
        dst: r.dst,
        src: r.src,
        tos: r.tos,
        proto: r.proto,
        scope: r.scope,
        metric: r.priority,
        prefsrc: r.prefsrc,
        nhid: r.nhid,
        hops,
        metrics: r.metrics.clone(),
        locks: r.locks,
        congctl: r.congctl.clone(),
        pref: r.pref,
        expires: Expiry(r.expires.filter(|_| r.v6)),
    }
    .normalize())
}

fn gw_ip(g: fibkit::route::Gateway) -> Ip {
    match g {
        fibkit::route::Gateway::V4(a) => Ip::V4(a),
        fibkit::route::Gateway::V6(a) => Ip::V6(a),
    }
}

fn dev_name(ns: &Netns, i: u32) -> String {
    if i == 0 {
        String::new()
    } else {
        ns.link_name(i).to_string()
    }
}

/// fibkit's routes, in the canonical form, in dump order.
fn fib_rspecs(ns: &Netns) -> Vec<RSpec> {
    let mut out = Vec::new();
    for t in ns.tables4() {
        for r in t.iter() {
            let i = &r.info;
            out.push(
                RSpec {
                    v6: false,
                    table: r.table,
                    rtype: r.rtype as u8,
                    dst: (u128::from(r.dst.addr), r.dst.len),
                    src: (0, 0),
                    tos: r.tos,
                    proto: i.proto,
                    scope: i.scope,
                    metric: i.priority,
                    prefsrc: (i.prefsrc != 0).then_some(Ip::V4(i.prefsrc)),
                    nhid: i.nh_id,
                    hops: i
                        .nhs
                        .iter()
                        .filter(|n| n.gw.is_some() || n.dev != 0 || n.realm != 0)
                        .map(|n| HSpec {
                            gw: n.gw.map(gw_ip),
                            dev: dev_name(ns, n.dev),
                            weight: n.weight,
                            onlink: (n.flags | i.flags) & nhflags::ONLINK != 0,
                            realm: n.realm,
                            encap: n.encap.clone(),
                            encap_dev: encap_oif(n.encap.as_deref())
                                .map(|i| dev_name(ns, i))
                                .unwrap_or_default(),
                        })
                        .collect(),
                    metrics: i.metrics.vals.clone(),
                    locks: i.metrics.locks,
                    congctl: i.metrics.congctl.clone(),
                    pref: 0,
                    expires: Expiry::default(),
                }
                .normalize(),
            );
        }
    }
    for t in ns.tables6() {
        let mut groups: HashMap<u64, usize> = HashMap::new();
        for r in t.dump_order() {
            let hop = HSpec {
                gw: r.nh.gw.map(Ip::V6),
                dev: dev_name(ns, r.nh.dev),
                weight: r.nh.weight,
                onlink: r.nh.flags & nhflags::ONLINK != 0,
                realm: 0,
                encap: r.nh.encap.clone(),
                encap_dev: encap_oif(r.nh.encap.as_deref())
                    .map(|i| dev_name(ns, i))
                    .unwrap_or_default(),
            };
            if r.sibling_group != 0 {
                if let Some(&k) = groups.get(&r.sibling_group) {
                    let s: &mut RSpec = &mut out[k];
                    s.hops.push(hop);
                    continue;
                }
                groups.insert(r.sibling_group, out.len());
            }
            out.push(RSpec {
                v6: true,
                table: r.table,
                rtype: r.rtype as u8,
                dst: (r.dst.addr, r.dst.len),
                src: (r.src.addr, r.src.len),
                tos: 0,
                proto: r.proto,
                scope: 0,
                metric: r.metric,
                prefsrc: r.prefsrc.map(Ip::V6),
                nhid: r.nh_id,
                hops: vec![hop],
                metrics: r.metrics.vals.clone(),
                locks: r.metrics.locks,
                congctl: r.metrics.congctl.clone(),
                pref: match r.pref {
                    fibkit::route::Pref::High => 1,
                    fibkit::route::Pref::Low => 3,
                    fibkit::route::Pref::Medium => 0,
                },
                expires: Expiry::default(),
            });
        }
    }
    out.into_iter().map(RSpec::normalize).collect()
}

/// Multiset difference: the items of `a` not matched by one of `b`, in `a`'s order.
fn minus<'a, T: Eq + std::hash::Hash>(a: &'a [T], b: &[T]) -> Vec<&'a T> {
    let mut count: HashMap<&T, usize> = HashMap::new();
    for x in b {
        *count.entry(x).or_default() += 1;
    }
    let mut out = Vec::new();
    for x in a {
        match count.get_mut(x) {
            Some(n) if *n > 0 => *n -= 1,
            _ => out.push(x),
        }
    }
    out
}

/// A route's prefix: family, table, destination and source.
type PrefixKey = (bool, u32, (u128, u8), (u128, u8));

/// Routes grouped by prefix, each group in the order given.
fn by_prefix(v: &[RSpec]) -> HashMap<PrefixKey, Vec<RSpec>> {
    let mut m: HashMap<PrefixKey, Vec<RSpec>> = HashMap::new();
    for r in v {
        m.entry((r.v6, r.table, r.dst, r.src))
            .or_default()
            .push(r.clone());
    }
    m
}

/// The command that adds a route behind the entries its prefix has: `append` for IPv4,
/// and for an IPv6 route without a gateway (it cannot join another as a multipath leg;
/// `add` would find the prefix's entry of the same metric and refuse); `add` for the
/// other IPv6 routes, whose same-metric gateway routes the kernel merges anyway.
fn add_words(r: &RSpec) -> Vec<String> {
    // without a gateway: a device route, a reject route (no path at all: the order of
    // `throw PFX` behind `PFX via GW` could not be restored, follow --verify seed 87),
    // a route through a nexthop object
    let gateway = r.nhid == 0 && r.hops.iter().any(|h| h.gw.is_some());
    r.words(if !r.v6 || !gateway { "append" } else { "add" }, true)
}

/// The deletes of a route: one per path for an IPv6 multipath route (its legs are
/// separate entries), one otherwise.
fn del_words(r: &RSpec) -> Vec<Vec<String>> {
    if r.v6 && r.hops.len() > 1 {
        r.hops
            .iter()
            .map(|h| {
                let mut one = r.clone();
                one.hops = vec![h.clone()];
                one.words("del", false)
            })
            .collect()
    } else {
        vec![r.words("del", false)]
    }
}

// -------------------------------------------------------------- addresses

/// An address in the canonical form both sides are compared in.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct ASpec {
    dev: String,
    local: Ip,
    plen: u8,
    peer: Option<Ip>,
    broadcast: Option<u32>,
    scope: u8,
    flags: u32,
    metric: u32,
    label: Option<String>,
}

impl ASpec {
    fn words(&self, verb: &str) -> Vec<String> {
        let mut o = Vec::new();
        if self.local.is_v6() {
            o.push(w("-6"));
        }
        o.extend([w("addr"), w(verb)]);
        match self.peer {
            Some(p) => {
                o.push(self.local.to_string());
                o.push(w("peer"));
                o.push(format!("{p}/{}", self.plen));
            }
            None => o.push(format!("{}/{}", self.local, self.plen)),
        }
        if verb == "add" {
            if let Some(b) = self.broadcast {
                o.push(w("broadcast"));
                o.push(Ip::V4(b).to_string());
            }
            o.push(w("scope"));
            o.push(scope_n2a(self.scope));
            if self.metric != 0 {
                o.push(w("metric"));
                o.push(self.metric.to_string());
            }
            if let Some(l) = &self.label {
                if *l != self.dev {
                    o.push(w("label"));
                    o.push(l.clone());
                }
            }
            for (bit, name) in [
                (0x02, "nodad"),
                (0x04, "optimistic"),
                (0x10, "home"),
                (0x100, "mngtmpaddr"),
                (0x200, "noprefixroute"),
                (0x400, "autojoin"),
            ] {
                if self.flags & bit != 0 {
                    o.push(w(name));
                }
            }
        }
        o.push(w("dev"));
        o.push(self.dev.clone());
        o
    }
}

fn kernel_aspec(a: &KAddr, dev: &str) -> ASpec {
    let v6 = a.local.is_v6();
    ASpec {
        dev: dev.to_string(),
        local: a.local,
        plen: a.plen,
        peer: a.peer,
        broadcast: a.broadcast.filter(|b| *b != 0),
        scope: a.scope,
        flags: a.flags & ADDR_CFG_FLAGS,
        metric: a.metric,
        label: if v6 {
            None
        } else {
            Some(a.label.clone().unwrap_or_else(|| dev.to_string()))
        },
    }
}

fn fib_aspecs(ns: &Netns) -> Vec<ASpec> {
    let mut out = Vec::new();
    for l in ns.links() {
        for a in ns.addrs4(l.index) {
            out.push(ASpec {
                dev: l.name.clone(),
                local: Ip::V4(a.local),
                plen: a.plen,
                peer: (a.address != a.local).then_some(Ip::V4(a.address)),
                broadcast: (a.broadcast != 0).then_some(a.broadcast),
                scope: a.scope,
                flags: a.flags & ADDR_CFG_FLAGS,
                metric: a.metric,
                label: Some(a.label.clone()),
            });
        }
    }
    for l in ns.links() {
        for a in ns.addrs6(l.index) {
            out.push(ASpec {
                dev: l.name.clone(),
                local: Ip::V6(a.addr),
                plen: a.plen,
                peer: a.peer.map(Ip::V6),
                broadcast: None,
                scope: a.scope,
                flags: a.flags & ADDR_CFG_FLAGS,
                metric: a.metric,
                label: None,
            });
        }
    }
    out
}

// ------------------------------------------------------------- neighbours

/// A neighbour entry in the form both sides are compared in.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct NSpec {
    dev: String,
    addr: Ip,
    /// The `nud` word of `ip neigh`.
    state: &'static str,
    lladdr: Option<[u8; 6]>,
}

/// The `nud` word of a kernel state; `None` for a combination fibkit does not have.
fn nud_word(state: u16) -> Option<&'static str> {
    Some(match state {
        nud::NONE => "none",
        nud::INCOMPLETE => "incomplete",
        nud::REACHABLE => "reachable",
        nud::STALE => "stale",
        nud::DELAY => "delay",
        nud::PROBE => "probe",
        nud::FAILED => "failed",
        nud::NOARP => "noarp",
        nud::PERMANENT => "permanent",
        _ => return None,
    })
}

fn fib_nud_word(s: fibkit::netns::NudState) -> &'static str {
    use fibkit::netns::NudState as S;
    match s {
        S::None => "none",
        S::Incomplete => "incomplete",
        S::Reachable => "reachable",
        S::Stale => "stale",
        S::Delay => "delay",
        S::Probe => "probe",
        S::Failed => "failed",
        S::Noarp => "noarp",
        S::Permanent => "permanent",
    }
}

/// `RTN_BROADCAST`, `RTN_MULTICAST`: `ndm_type` of the kernel's own mappings.
const RTN_BROADCAST: u8 = 3;
const RTN_MULTICAST: u8 = 5;

/// Whether an entry is one of the kernel's multicast or broadcast mappings, made by
/// itself when it sends such packets: a gateway is always unicast, so no lookup ever
/// consults them.
fn is_mapping(n: &KNeigh) -> bool {
    let multicast = match n.dst {
        Ip::V4(a) => a >> 28 == 0xe || a == u32::MAX,
        Ip::V6(a) => a >> 120 == 0xff,
    };
    multicast || n.ntype == RTN_MULTICAST || n.ntype == RTN_BROADCAST
}

/// The spec of a kernel entry to mirror, with a warning about what of it is lost;
/// `Ok(None)` for an entry left out silently, `Err` for one skipped with a warning.
fn kernel_nspec(
    n: &KNeigh,
    names: &HashMap<u32, String>,
) -> Result<Option<(NSpec, Option<String>)>, String> {
    if is_mapping(n) {
        return Ok(None);
    }
    let dev = names
        .get(&n.index)
        .ok_or_else(|| format!("unknown device index {}", n.index))?;
    let state = nud_word(n.state)
        .ok_or_else(|| format!("state 0x{:x} is not one fibkit models", n.state))?;
    let (lladdr, lost) = match n.lladdr.as_deref() {
        None | Some([]) => (None, None),
        Some(b) => match <[u8; 6]>::try_from(b) {
            Ok(m) => (Some(m), None),
            Err(_) => (
                None,
                Some(format!(
                    "a {}-byte link-layer address (fibkit models 6-byte ones): mirrored without it",
                    b.len()
                )),
            ),
        },
    };
    let s = NSpec {
        dev: dev.clone(),
        addr: n.dst,
        state,
        lladdr,
    };
    Ok(Some((s, lost)))
}

/// A proxy (`pneigh`) entry in the form both sides are compared in.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct PSpec {
    dev: String,
    addr: Ip,
    /// `NTF_ROUTER`, `NTF_EXT_LEARNED`.
    flags: u8,
    protocol: u8,
}

/// The spec of a kernel proxy entry; `Err` for one skipped with a warning.
fn kernel_pspec(n: &KNeigh, names: &HashMap<u32, String>) -> Result<PSpec, String> {
    if n.index == 0 {
        // `pneigh_update` takes an entry without a device; `ip neigh` has no way to
        // make one
        return Err("a proxy entry without a device".into());
    }
    let dev = names
        .get(&n.index)
        .ok_or_else(|| format!("unknown device index {}", n.index))?;
    Ok(PSpec {
        dev: dev.clone(),
        addr: n.dst,
        flags: n.flags & (ntf::ROUTER | ntf::EXT_LEARNED),
        protocol: n.protocol,
    })
}

impl PSpec {
    fn words(&self) -> Vec<String> {
        let mut o = Vec::new();
        if self.addr.is_v6() {
            o.push(w("-6"));
        }
        o.extend([w("neigh"), w("add"), w("proxy"), self.addr.to_string()]);
        o.extend([w("dev"), self.dev.clone()]);
        neigh_flag_words(&mut o, self.flags, self.protocol);
        o
    }
}

/// The `router` / `extern_learn` / `protocol` words of an `ip neigh add`.
fn neigh_flag_words(o: &mut Vec<String>, flags: u8, protocol: u8) {
    if flags & ntf::ROUTER != 0 {
        o.push(w("router"));
    }
    if flags & ntf::EXT_LEARNED != 0 {
        o.push(w("extern_learn"));
    }
    if protocol != 0 {
        o.extend([w("protocol"), protocol.to_string()]);
    }
}

fn fib_pspecs(ns: &Netns) -> Vec<PSpec> {
    ns.proxies()
        .iter()
        .map(|p| PSpec {
            dev: dev_name(ns, p.dev),
            addr: ip_of(p.v6, p.addr),
            flags: p.flags & (ntf::ROUTER | ntf::EXT_LEARNED),
            protocol: p.protocol,
        })
        .collect()
}

impl NSpec {
    fn words(&self, flags: u8, protocol: u8) -> Vec<String> {
        let mut o = Vec::new();
        if self.addr.is_v6() {
            o.push(w("-6"));
        }
        o.extend([w("neigh"), w("add"), self.addr.to_string()]);
        if let Some(m) = &self.lladdr {
            o.extend([w("lladdr"), mac_str(m)]);
        }
        o.extend([w("dev"), self.dev.clone(), w("nud"), w(self.state)]);
        neigh_flag_words(&mut o, flags, protocol);
        o
    }
}

fn fib_nspecs(ns: &Netns) -> Vec<NSpec> {
    ns.neighbours()
        .iter()
        .map(|n| NSpec {
            dev: dev_name(ns, n.dev),
            addr: ip_of(n.v6, n.addr),
            state: fib_nud_word(n.state),
            lladdr: n.lladdr,
        })
        .collect()
}

// ------------------------------------------------------------------ rules

/// Whether the family's rules are exactly the kernel's defaults (IPv4: `0 local`,
/// `32766 main`, `32767 default`; IPv6: `0 local`, `32766 main`).
pub(crate) fn default_rules(rules: &[KRule], v6: bool) -> bool {
    let rules: Vec<&KRule> = rules.iter().filter(|r| r.v6 == v6 && !r.mc).collect();
    let defaults = if v6 { 2 } else { 3 };
    rules.len() == defaults && rules.iter().all(|r| is_default_rule(r))
}

/// Whether the IPv6 rules are default ones with the main rule deleted (what deletes
/// alone leave, with `fib6_has_custom_rules` unset unless a rule was added once).
pub(crate) fn deleted_defaults6(rules: &[KRule]) -> bool {
    let v6: Vec<&KRule> = rules.iter().filter(|r| r.v6 && !r.mc).collect();
    v6.iter().all(|r| is_default_rule(r)) && !v6.iter().any(|r| r.pref == 32766)
}

fn is_default_rule(r: &KRule) -> bool {
    let defaults: &[(u32, u32)] = if r.v6 {
        &[(0, 255), (32766, 254)]
    } else {
        &[(0, 255), (32766, 254), (32767, 253)]
    };
    plain_lookup(r) && defaults.contains(&(r.pref, r.table))
}

/// Whether `r` looks a table up for every flow: no selector, no inversion.
fn plain_lookup(r: &KRule) -> bool {
    r.action == 1
        && r.flags & 2 == 0
        && r.src.is_none()
        && r.dst.is_none()
        && r.tos == 0
        && r.iif.is_none()
        && r.oif.is_none()
        && r.mark.unwrap_or(0) == 0
        && r.mask.unwrap_or(0) == 0
        && r.uid.is_none()
        && r.ipproto.is_none()
        && r.sport.is_none()
        && r.dport.is_none()
        && r.suppress_prefixlen.is_none()
        && r.suppress_ifgroup.is_none()
        && !r.l3mdev
        && r.realms.unwrap_or(0) == 0
        && r.tun_id.unwrap_or(0) == 0
        && r.unsupported.is_empty()
}

fn rule_words(r: &KRule) -> Result<Vec<String>, String> {
    let mut o = Vec::new();
    if r.v6 {
        o.push(w("-6"));
    }
    o.extend([w("rule"), w("add")]);
    if r.flags & 2 != 0 {
        o.push(w("not"));
    }
    o.push(w("pref"));
    o.push(r.pref.to_string());
    for (k, p) in [("from", r.src), ("to", r.dst)] {
        if let Some((a, len)) = p {
            o.push(w(k));
            o.push(format!("{a}/{len}"));
        }
    }
    if r.tos != 0 {
        o.push(w("tos"));
        o.push(format!("0x{:02x}", r.tos));
    }
    if r.mark.is_some() || r.mask.is_some() {
        o.push(w("fwmark"));
        o.push(format!(
            "0x{:x}/0x{:x}",
            r.mark.unwrap_or(0),
            r.mask.unwrap_or(u32::MAX)
        ));
    }
    if let Some(i) = &r.iif {
        o.push(w("iif"));
        o.push(i.clone());
    }
    if let Some(i) = &r.oif {
        o.push(w("oif"));
        o.push(i.clone());
    }
    if let Some((a, b)) = r.uid {
        o.push(w("uidrange"));
        o.push(format!("{a}-{b}"));
    }
    if let Some(p) = r.ipproto {
        o.push(w("ipproto"));
        o.push(p.to_string());
    }
    for (k, p) in [("sport", r.sport), ("dport", r.dport)] {
        if let Some((a, b)) = p {
            o.push(w(k));
            o.push(format!("{a}-{b}"));
        }
    }
    if let Some(n) = r.suppress_prefixlen {
        o.push(w("suppress_prefixlength"));
        o.push(n.to_string());
    }
    if let Some(n) = r.suppress_ifgroup {
        o.push(w("suppress_ifgroup"));
        o.push(n.to_string());
    }
    if r.l3mdev {
        o.push(w("l3mdev"));
    }
    if let Some(x) = r.realms.filter(|x| *x != 0) {
        o.push(w("realms"));
        o.push(x.to_string());
    }
    if let Some(x) = r.tun_id.filter(|x| *x != 0) {
        o.push(w("tun_id"));
        o.push(x.to_string());
    }
    if r.protocol != 0 {
        o.push(w("protocol"));
        o.push(proto_n2a(r.protocol));
    }
    match r.action {
        1 if !r.l3mdev => {
            o.push(w("lookup"));
            o.push(table_n2a(r.table));
        }
        1 => {}
        2 => {
            o.push(w("goto"));
            o.push(r.goto.unwrap_or(0).to_string());
        }
        3 => o.push(w("nop")),
        6 => o.push(w("blackhole")),
        7 => o.push(w("unreachable")),
        8 => o.push(w("prohibit")),
        a => return Err(format!("rule action {a} not modelled")),
    }
    Ok(o)
}

// --------------------------------------------------------------- nexthops

/// An IPv4 nexthop object whose gateway was a local address when it was made has a
/// host scope (`fib_check_nh_v4_gw`: the gateway's route was a local one), and is
/// answered without `via` for as long as it lives; the dump shows it only in
/// `nhm_scope`. Such an object is made again the same way: with the gateway a local
/// address of its device for the moment (`addr add GW/32`, `nexthop add`, `addr del`).
/// Returns whether the object was made (else it goes with the others).
fn host_scoped_nexthop(
    c: &mut Ctx,
    n: &KNexthop,
    names: &HashMap<u32, String>,
    add: &[String],
) -> bool {
    const RT_SCOPE_HOST: u8 = 254;
    let (Some(Ip::V4(gw)), Some(dev)) = (n.gw, names.get(&n.oif)) else {
        return false;
    };
    if n.scope != RT_SCOPE_HOST || !n.group.is_empty() {
        return false;
    }
    with_local_gateway(c, gw, dev, add)
}

/// The scope of the nexthop of fibkit's IPv4 route (table, destination, metric) with one
/// gateway path, if there is one.
fn nh_scope4(ns: &Netns, key: (u32, (u128, u8), u32)) -> Option<u8> {
    let p = fibkit::prefix::Prefix4::new(key.1 .0 as u32, key.1 .1);
    // (a local route lives in main's table while the two are merged)
    [key.0, 254]
        .iter()
        .filter_map(|&id| ns.table4(id).and_then(|t| t.get(p)))
        .flat_map(|list| list.iter())
        .find(|r| {
            r.table == key.0
                && r.info.priority == key.2
                && r.info.nhs.len() == 1
                && r.info.nhs[0].gw.is_some()
        })
        .map(|r| r.info.nhs[0].scope)
}

/// The IPv4 gateway routes whose nexthop scope the probe found other than the one
/// fibkit gave them (it takes the scope of what the gateway's lookup finds as the
/// mirror is built, the kernel kept the one of when the route was added): deleted and
/// made again, with the gateway local for the moment (host scope), or in restore mode
/// (link scope, which a replay of the saved script may not give).
fn fix_gateway_scopes(c: &mut Ctx, k: &KernelState, kroutes: &[RSpec]) {
    const HOST: u8 = 254;
    const LINK: u8 = 253;
    // the kernel has local routes a user added: one more for a moment changes nothing
    // lookups see (`fib_has_custom_local_routes` is set either way)
    let user_local = k
        .routes
        .iter()
        .any(|r| !r.v6 && r.rtype == 2 && r.proto != 2);
    for r in kroutes.iter().filter(|r| !r.v6) {
        let key = (r.table, r.dst, r.metric);
        let want = if k.host_gw4.contains(&key) {
            HOST
        } else if k.link_gw4.contains(&key) {
            LINK
        } else {
            continue;
        };
        let Some(have) = nh_scope4(&c.ns, key) else {
            continue;
        };
        if have == want {
            continue;
        }
        let Some((Some(Ip::V4(g)), d)) = r.hops.first().map(|h| (h.gw, h.dev.clone())) else {
            continue;
        };
        let words = add_words(r);
        let others =
            c.ns.link_index(&d)
                .is_some_and(|i| c.ns.addrs4(i).iter().any(|a| a.local != g));
        if want == HOST && !others && !user_local {
            // the last address of a device going takes its routes with it
            // (`fib_disable_ip`), and a local route would be a user's
            c.warn(format!(
                "route {}/{} table {}: the kernel keeps its gateway with a host scope \
                 (it was local when the route was added), which the mirror cannot make \
                 again here: it answers with the gateway",
                ip_of(false, r.dst.0),
                r.dst.1,
                r.table
            ));
            continue;
        }
        for dw in del_words(r) {
            c.ip(dw);
        }
        let made = if want == LINK {
            let was = c.ns.set_restore_mode(true);
            let line = words.join(" ");
            let ok = c.try_ip(words.clone());
            c.ns.set_restore_mode(was);
            if ok {
                // (the script says how it was made)
                c.commands.pop();
                c.commands.push(format!("# {LINK_SCOPE_COMMENT}"));
                c.commands.push(line);
            }
            ok
        } else if others {
            with_local_gateway(c, g, &d, &words)
        } else {
            with_local_route(c, g, &d, r.table, &words)
        };
        if !made {
            c.warn(format!(
                "route {}/{} table {}: could not be made again with the kernel's \
                 gateway scope",
                ip_of(false, r.dst.0),
                r.dst.1,
                r.table
            ));
            c.ip(words);
        }
    }
}

/// Run `add` (a route add) with a local route for `gw` through `dev` for the moment,
/// in the route's own table (which the kernel's gateway check looks in first) or,
/// for table main, in table local; whether the add was made.
fn with_local_route(c: &mut Ctx, gw: u32, dev: &str, table: u32, add: &[String]) -> bool {
    let t = if table == 254 { 255 } else { table };
    let words = |verb: &str| {
        vec![
            w("route"),
            w(verb),
            w("local"),
            format!("{}/32", std::net::Ipv4Addr::from(gw)),
            w("dev"),
            dev.to_string(),
            w("table"),
            t.to_string(),
        ]
    };
    if !c.try_ip(words("add")) {
        return false;
    }
    let made = c.try_ip(add.to_vec());
    if !c.try_ip(words("del")) {
        c.warn(format!(
            "fibkit refused to delete the local route {} it added a moment before",
            std::net::Ipv4Addr::from(gw)
        ));
    }
    made
}

/// Run `add` (a route or nexthop add) with `gw` a local address of `dev` for the
/// moment (`addr add GW/32`, the add, `addr del`), so that its gateway takes the host
/// scope of a local route, as when it was made; whether the add was made (not when
/// the address could not be added).
fn with_local_gateway(c: &mut Ctx, gw: u32, dev: &str, add: &[String]) -> bool {
    let dev = dev.to_string();
    let tmp = format!("{}/32", std::net::Ipv4Addr::from(gw));
    if !c.try_ip(vec![
        w("addr"),
        w("add"),
        tmp.clone(),
        w("dev"),
        dev.clone(),
    ]) {
        return false;
    }
    let made = c.try_ip(add.to_vec());
    if !c.try_ip(vec![
        w("addr"),
        w("del"),
        tmp.clone(),
        w("dev"),
        dev.clone(),
    ]) {
        c.warn(format!(
            "fibkit refused to delete the address {tmp} it added on {dev} a moment before"
        ));
    }
    made
}

fn nexthop_words(n: &KNexthop, names: &HashMap<u32, String>) -> Result<Vec<String>, String> {
    if n.encap {
        return Err(format!("nexthop {} has an encapsulation", n.id));
    }
    if n.group_type > 1 {
        return Err(format!(
            "nexthop {} is a group of unknown type {}",
            n.id, n.group_type
        ));
    }
    let mut o = Vec::new();
    if n.family == AF_INET6 && n.gw.is_none() {
        o.push(w("-6"));
    }
    o.extend([w("nexthop"), w("add"), w("id"), n.id.to_string()]);
    if let Some(e) = &n.lwt {
        let dev = encap_oif(Some(e))
            .and_then(|i| names.get(&i).cloned())
            .unwrap_or_default();
        o.extend(encap_words(e, &dev));
    }
    if n.blackhole {
        o.push(w("blackhole"));
    } else if !n.group.is_empty() {
        o.push(w("group"));
        o.push(
            n.group
                .iter()
                .map(|(id, wt)| format!("{id},{wt}"))
                .collect::<Vec<_>>()
                .join("/"),
        );
        if n.group_type == 1 {
            // whole seconds: what `ip` can say (the kernel's are hundredths)
            let r = n.res.clone().unwrap_or_default();
            o.extend([
                w("type"),
                w("resilient"),
                w("buckets"),
                r.buckets.to_string(),
                w("idle_timer"),
                (r.idle_timer / 100).to_string(),
                w("unbalanced_timer"),
                (r.unbalanced_timer / 100).to_string(),
            ]);
        }
    } else {
        if let Some(g) = n.gw {
            o.push(w("via"));
            o.push(g.to_string());
        }
        if n.oif != 0 {
            let d = names
                .get(&n.oif)
                .ok_or_else(|| format!("nexthop {}: unknown device {}", n.id, n.oif))?;
            o.push(w("dev"));
            o.push(d.clone());
        }
        if n.flags & nhflags::ONLINK != 0 {
            o.push(w("onlink"));
        }
    }
    if n.fdb {
        o.push(w("fdb"));
    }
    o.push(w("proto"));
    o.push(proto_n2a(n.proto));
    Ok(o)
}

// ------------------------------------------------------------- the phases

/// Translate and apply `k` to a fresh namespace.
pub fn translate(k: &KernelState) -> Translation {
    let mut c = Ctx {
        ns: Netns::new(),
        commands: Vec::new(),
        warnings: k.warnings.clone(),
    };
    // one bulk load: the lookup indexes are compiled once at the end instead of after
    // every command (answers in between, such as gateway checks, stay exact: they
    // read the tables directly)
    let was_bulk = c.ns.begin_bulk();
    let names = k.link_names();

    // 0. the kernel's build options that change answers
    if k.kernel != c.ns.kernel {
        c.ns.kernel = k.kernel;
        c.commands
            .push(format!("kernel-config {}", k.kernel.words().join(" ")));
    }

    // 1. namespace-wide and all/default sysctls
    let (global, per_dev): (Vec<_>, Vec<_>) = k.sysctls.iter().partition(|s| {
        let p: Vec<&str> = s.key.split('.').collect();
        p.len() < 4 || matches!(p[3], "all" | "default")
    });
    // accept_dad last: the kernel's addresses are past DAD (a tentative one is warned
    // about below), while with it on the mirror's would start DAD when added
    let dad = |s: &&crate::KSysctl| s.key.ends_with(".accept_dad");
    for s in global.iter().filter(|s| !dad(s)) {
        if s.key == "net.ipv4.fib_multipath_hash_seed" && num(&s.value) == Some(0) {
            c.warn(
                "net.ipv4.fib_multipath_hash_seed is 0 (a random per-boot seed): multipath \
                 path choices may differ from the kernel's",
            );
            continue;
        }
        if num(&s.value) != fib_value(&c.ns, &s.key) {
            c.sysctl(&s.key, &s.value);
        }
    }

    // 2. links
    let mut done: Vec<u32> = Vec::new();
    let mut links = k.links.clone();
    links.sort_by_key(|l| l.index);
    for l in &links {
        if l.loopback || l.name == "lo" {
            if l.mtu != 0 && l.mtu != 65536 {
                c.ip(vec![
                    w("link"),
                    w("set"),
                    w("lo"),
                    w("mtu"),
                    l.mtu.to_string(),
                ]);
            }
            continue;
        }
        if done.contains(&l.index) {
            continue;
        }
        let mut o = vec![w("link"), w("add"), l.name.clone()];
        if let Some(m) = &l.mac {
            o.extend([w("address"), mac_str(m)]);
        }
        // a link made with an MTU below 68 would keep its IPv4 state (the kernel makes
        // it at registration and drops it only on a change): such an MTU is set after
        if l.mtu >= 68 {
            o.extend([w("mtu"), l.mtu.to_string()]);
        }
        if l.group != 0 {
            o.extend([w("group"), l.group.to_string()]);
        }
        let kind = l.kind.as_deref();
        let peer = links
            .iter()
            .find(|p| Some(p.index) == l.link && p.index != l.index && !l.link_other_ns);
        match (kind, peer) {
            (Some("veth"), Some(p)) if p.kind.as_deref() == Some("veth") => {
                // the kernel registers the peer first: it has the lower index, so the
                // end met first (lower index) is the peer of the `link add`
                let (main, p) = if p.index > l.index { (p, l) } else { (l, p) };
                let mut o = vec![w("link"), w("add"), main.name.clone()];
                if let Some(m) = &main.mac {
                    o.extend([w("address"), mac_str(m)]);
                }
                if main.mtu != 0 {
                    o.extend([w("mtu"), main.mtu.to_string()]);
                }
                if main.group != 0 {
                    o.extend([w("group"), main.group.to_string()]);
                }
                o.extend([w("type"), w("veth"), w("peer"), w("name"), p.name.clone()]);
                done.push(main.index);
                done.push(p.index);
                if c.ip(o) {
                    let mut s = vec![w("link"), w("set"), p.name.clone()];
                    if let Some(m) = &p.mac {
                        s.extend([w("address"), mac_str(m)]);
                    }
                    if p.mtu != 0 {
                        s.extend([w("mtu"), p.mtu.to_string()]);
                    }
                    if p.group != 0 {
                        s.extend([w("group"), p.group.to_string()]);
                    }
                    if s.len() > 3 {
                        c.ip(s);
                    }
                }
            }
            // a tun or tap without carrier: no process holds it (a persistent one), as
            // fibkit's own; one a process holds has carrier, which a dummy has too
            (Some("tun"), _) if !l.carrier && l.tun.is_some() => {
                let t = l.tun.unwrap_or_default();
                let mut o = vec![
                    w("tuntap"),
                    w("add"),
                    w("dev"),
                    l.name.clone(),
                    w("mode"),
                    w(if t.tap { "tap" } else { "tun" }),
                ];
                for (on, word) in [
                    (t.pi, "pi"),
                    (t.vnet_hdr, "vnet_hdr"),
                    (t.multi_queue, "multi_queue"),
                ] {
                    if on {
                        o.push(w(word));
                    }
                }
                for (word, id) in [("user", t.owner), ("group", t.group)] {
                    if let Some(id) = id {
                        o.extend([w(word), id.to_string()]);
                    }
                }
                if c.ip(o) {
                    let mut s = vec![w("link"), w("set"), l.name.clone()];
                    if let Some(m) = l.mac.filter(|_| t.tap) {
                        s.extend([w("address"), mac_str(&m)]);
                    }
                    if l.mtu >= 68 && l.mtu != 1500 {
                        s.extend([w("mtu"), l.mtu.to_string()]);
                    }
                    if l.group != 0 {
                        s.extend([w("group"), l.group.to_string()]);
                    }
                    if s.len() > 3 {
                        c.ip(s);
                    }
                }
            }
            // a macvlan on a device of this namespace (made before it: a lower index)
            (Some(k @ ("macvlan" | "macvtap")), Some(lower)) if l.macvlan.is_some() => {
                let m = l.macvlan.clone().unwrap_or_default();
                let mode = match m.mode {
                    1 => "private",
                    4 => "bridge",
                    8 => "passthru",
                    16 => "source",
                    _ => "vepa",
                };
                o.extend([
                    w("link"),
                    lower.name.clone(),
                    w("type"),
                    w(k),
                    w("mode"),
                    w(mode),
                ]);
                for (bit, word) in [(1u16, "nopromisc"), (2, "nodst")] {
                    if m.flags & bit != 0 {
                        o.extend([w("flag"), w(word)]);
                    }
                }
                if let Some(q) = m.bcqueuelen.filter(|&q| q != 1000) {
                    o.extend([w("bcqueuelen"), q.to_string()]);
                }
                // the source addresses, given in the reverse of the kernel's order:
                // each goes to the head of its hash bucket, so the copy lists them as
                // the host does
                if m.mode == 16 && !m.macaddrs.is_empty() {
                    o.extend([w("macaddr"), w("set")]);
                    o.extend(m.macaddrs.iter().rev().map(mac_str));
                }
                c.ip(o);
            }
            // a VXLAN device (its lower device, if any, made before it: a lower index)
            (Some("vxlan"), _)
                if l.vxlan.as_ref().is_some_and(|v| {
                    v.conf.lower == 0
                        || links
                            .iter()
                            .any(|x| x.index == v.conf.lower && x.index < l.index)
                }) && !l.link_other_ns =>
            {
                let k = l.vxlan.clone().unwrap_or_default();
                let v = &k.conf;
                if !k.unmodelled.is_empty() {
                    c.warn(format!(
                        "vxlan {} has settings fibkit does not model ({}): mirrored without them",
                        l.name,
                        k.unmodelled.join(", ")
                    ));
                }
                o.extend([w("type"), w("vxlan")]);
                if v.external {
                    o.push(w("external"));
                } else {
                    o.extend([w("id"), v.vni.to_string()]);
                }
                if let Some(a) = v.remote {
                    o.extend([
                        w(if a.is_multicast() { "group" } else { "remote" }),
                        a.to_string(),
                    ]);
                }
                if let Some(a) = v.local {
                    o.extend([w("local"), a.to_string()]);
                }
                if let Some(d) = links.iter().find(|x| x.index == v.lower && v.lower != 0) {
                    o.extend([w("dev"), d.name.clone()]);
                }
                o.extend([w("dstport"), v.dstport.to_string()]);
                if v.srcport != (0, 0) {
                    o.extend([
                        w("srcport"),
                        v.srcport.0.to_string(),
                        v.srcport.1.to_string(),
                    ]);
                }
                // `external` turns learning off; otherwise it is on
                if v.learning == v.external {
                    o.push(w(if v.learning { "learning" } else { "nolearning" }));
                }
                if v.ttl_inherit {
                    o.extend([w("ttl"), w("inherit")]);
                } else if v.ttl != 0 {
                    o.extend([w("ttl"), v.ttl.to_string()]);
                }
                match v.tos {
                    0 => {}
                    1 => o.extend([w("tos"), w("inherit")]),
                    t => o.extend([w("tos"), format!("{t:#x}")]),
                }
                o.extend([w("ageing"), v.ageing.to_string()]);
                if !v.udp_csum {
                    o.push(w("noudpcsum"));
                }
                if v.zero_csum6_tx {
                    o.push(w("udp6zerocsumtx"));
                }
                if v.zero_csum6_rx {
                    o.push(w("udp6zerocsumrx"));
                }
                for (on, word) in [
                    (v.proxy, "proxy"),
                    (v.rsc, "rsc"),
                    (v.l2miss, "l2miss"),
                    (v.l3miss, "l3miss"),
                    (v.remcsum_tx, "remcsumtx"),
                    (v.remcsum_rx, "remcsumrx"),
                    (v.gbp, "gbp"),
                    (v.gpe, "gpe"),
                    (v.vnifilter, "vnifilter"),
                ] {
                    if on {
                        o.push(w(word));
                    }
                }
                if v.limit != 0 {
                    o.extend([w("maxaddress"), v.limit.to_string()]);
                }
                match v.df {
                    1 => o.extend([w("df"), w("set")]),
                    2 => o.extend([w("df"), w("inherit")]),
                    _ => {}
                }
                if v.label != 0 {
                    o.extend([w("flowlabel"), format!("{:#x}", v.label)]);
                }
                c.ip(o);
            }
            (Some("bridge"), _) => {
                // its carrier and MTU follow its ports, made its ports below
                let live_port = links
                    .iter()
                    .any(|p| p.master == l.index && p.up && p.carrier);
                if l.up && l.carrier && !live_port {
                    // br_port_state_selection has not run yet: a bridge made without
                    // an address keeps the carrier it was born with until a port
                    // comes or its address is set
                    c.warn(format!(
                        "bridge {} has carrier without a forwarding port (made without \
                         an address, never a port): the mirror's copy has none",
                        l.name
                    ));
                }
                o.extend([w("type"), w("bridge")]);
                if let Some(b) = &l.bridge {
                    for u in &b.unmodelled {
                        c.warn(format!(
                            "bridge {}: `{u}` is not modelled: mirrored without it",
                            l.name
                        ));
                    }
                    for (k, v) in &b.opts {
                        o.extend([w(*k), v.clone()]);
                    }
                }
                c.ip(o);
            }
            _ => {
                if kind != Some("dummy") {
                    let what = kind.map_or_else(
                        || "a device without a kind".into(),
                        |k| {
                            if k == "veth" {
                                "a veth whose peer is in another namespace".to_string()
                            } else {
                                format!("kind {k}")
                            }
                        },
                    );
                    c.warn(format!(
                        "link {} ({what}) mirrored as a dummy link (always has carrier)",
                        l.name
                    ));
                }
                if l.up && !l.carrier {
                    c.warn(format!(
                        "link {} is up without carrier: the dummy mirroring it has carrier",
                        l.name
                    ));
                }
                o.extend([w("type"), w("dummy")]);
                c.ip(o);
            }
        }
    }

    // bridge ports, once every link exists; then a bridge's MTU where it is not its
    // ports' smallest (its user set it)
    for l in links.iter().filter(|l| l.master != 0) {
        let Some(m) = links.iter().find(|x| x.index == l.master) else {
            continue;
        };
        if m.kind.as_deref() != Some("bridge") {
            c.warn(format!(
                "link {} is a port of {} ({}), which fibkit does not model: mirrored \
                 without its master",
                l.name,
                m.name,
                m.kind
                    .as_deref()
                    .map_or("no kind".to_string(), |k| format!("kind {k}"))
            ));
            continue;
        }
        c.ip(vec![
            w("link"),
            w("set"),
            l.name.clone(),
            w("master"),
            m.name.clone(),
        ]);
    }
    // the ports' own settings (those that are not a new port's), then their backup
    // ports, once every port is in
    for l in links.iter().filter(|l| l.master != 0) {
        let (Some(p), Some(idx)) = (&l.port, c.ns.link_index(&l.name)) else {
            continue;
        };
        let Some(have) = c.ns.bridge_port(idx).cloned() else {
            continue;
        };
        let default = |k: &str, v: &str| match k {
            "priority" => v == "32",
            "mcast_router" => v == "1",
            "group_fwd_mask" => v == "0",
            "learning" | "flood" | "mcast_flood" | "bcast_flood" => v == "on",
            _ => v == "off",
        };
        let mut s = vec![
            w("link"),
            w("set"),
            l.name.clone(),
            w("type"),
            w("bridge_slave"),
        ];
        for (k, v) in p.opts.iter().filter(|(k, v)| !default(k, v)) {
            s.extend([w(*k), v.clone()]);
        }
        if p.cost != have.cost && p.cost != 0 {
            s.extend([w("cost"), p.cost.to_string()]);
        }
        if s.len() > 5 {
            c.ip(s);
        }
    }
    for l in links
        .iter()
        .filter(|l| l.port.as_ref().is_some_and(|p| p.backup != 0))
    {
        let b = l.port.as_ref().map_or(0, |p| p.backup);
        if let Some(bl) = links.iter().find(|x| x.index == b) {
            c.ip(vec![
                w("link"),
                w("set"),
                l.name.clone(),
                w("type"),
                w("bridge_slave"),
                w("backup_port"),
                bl.name.clone(),
            ]);
        }
    }
    for l in links.iter().filter(|l| l.kind.as_deref() == Some("bridge")) {
        let have =
            c.ns.link_index(&l.name)
                .and_then(|i| c.ns.link(i))
                .map(|x| x.mtu);
        if have.is_some_and(|m| m != l.mtu) && l.mtu >= 68 {
            c.ip(vec![
                w("link"),
                w("set"),
                l.name.clone(),
                w("mtu"),
                l.mtu.to_string(),
            ]);
        }
    }

    // a VXLAN device keeps the MTU it was made with when its lower device's goes below
    // it later (the kernel checks it at a change only): made again it is clamped, so
    // the mirror sets it as the kernel has it, in restore mode (mirror-diff seed 5854)
    for l in links.iter().filter(|l| l.kind.as_deref() == Some("vxlan")) {
        let have =
            c.ns.link_index(&l.name)
                .and_then(|i| c.ns.link(i))
                .map(|x| x.mtu);
        if have.is_some_and(|m| m != l.mtu) && l.mtu >= 68 {
            let words = vec![
                w("link"),
                w("set"),
                l.name.clone(),
                w("mtu"),
                l.mtu.to_string(),
            ];
            let line = words.join(" ");
            let was = c.ns.set_restore_mode(true);
            let ok = c.try_ip(words);
            c.ns.set_restore_mode(was);
            if ok {
                c.commands.pop();
                c.warn(format!(
                    "`{line}`: above what its lower device allows now (the lower device's \
                     MTU lowered since): mirrored as the kernel has it; a `fib -batch` of \
                     the saved script refuses it"
                ));
                c.commands.push(format!("# {TRUSTED_COMMENT}"));
                c.commands.push(format!("# {line}"));
            }
        }
    }

    // alternative names, in the kernel's order (none of the mirror's own yet)
    for l in &links {
        let Some(have) = c.ns.link_index_by_name(&l.name).and_then(|i| c.ns.link(i)) else {
            continue;
        };
        if l.altnames.is_empty() || have.altnames == l.altnames {
            continue;
        }
        let mut s = vec![w("link"), w("property"), w("add"), w("dev"), l.name.clone()];
        for a in &l.altnames {
            s.extend([w("altname"), a.clone()]);
        }
        c.ip(s);
    }

    // queue lengths (a real dummy device's is 1000, the ifb model's 32) and aliases
    for l in &links {
        let Some(have) = c.ns.link_index(&l.name).and_then(|i| c.ns.link(i)) else {
            continue;
        };
        let mut s = vec![w("link"), w("set"), l.name.clone()];
        if l.mtu != 0 && l.mtu < 68 && have.mtu != l.mtu {
            s.extend([w("mtu"), l.mtu.to_string()]);
        }
        if let Some(q) = l.txqlen.filter(|q| *q != have.txqlen) {
            s.extend([w("txqueuelen"), (q as i32).to_string()]);
        }
        if let Some(a) = l.alias.as_ref().filter(|a| have.alias.as_ref() != Some(*a)) {
            s.extend([w("alias"), a.clone()]);
        }
        // interface flags iproute2 can set (a dummy mirroring an ethernet device
        // resolves neighbours as it does: `arp on`), set while the link is down
        use fibkit::link::iff;
        for (bit, word, on_sets) in [
            (iff::NOARP, "arp", false),
            (iff::MULTICAST, "multicast", true),
            (iff::ALLMULTI, "allmulticast", true),
            (iff::PROMISC, "promisc", true),
            (iff::DYNAMIC, "dynamic", true),
            (iff::NOTRAILERS, "trailers", false),
        ] {
            let want = l.flags & bit != 0;
            if want != (have.flags & bit != 0) {
                let on = want == on_sets;
                s.extend([w(word), w(if on { "on" } else { "off" })]);
            }
        }
        if s.len() > 3 {
            c.ip(s);
        }
    }

    // IPv6 address generation: a link without a link-local address of its own making
    // (`none`) must not get one when it comes up. The stable-privacy and random modes
    // made addresses fibkit cannot draw: the link's addresses are copied (step 4) and
    // its mode is set to none, with a warning
    for l in &links {
        let Some(m) = l.addr_gen_mode6.filter(|m| *m != 0) else {
            continue;
        };
        if m != 1 {
            c.warn(format!(
                "link {}: IPv6 address generation mode {} mirrored as none (its \
                 link-local addresses are copied; a new one is not drawn)",
                l.name,
                if m == 2 { "stable_secret" } else { "random" }
            ));
        }
        c.ip(vec![
            w("link"),
            w("set"),
            l.name.clone(),
            w("addrgenmode"),
            w("none"),
        ]);
    }

    // 3. per-device sysctls, then up/down
    for s in per_dev.iter().filter(|s| !dad(s)) {
        if num(&s.value) != fib_value(&c.ns, &s.key) {
            c.sysctl(&s.key, &s.value);
        }
    }
    // an IPv6 address the kernel kept over a link down (keep_addr_on_down) waits there
    // for DAD again (tentative: no source address, no local route). Added to a down
    // link it would be usable at once, so such a link is brought up for the addresses
    // it had then, and down after them (step 4)
    let kept = |a: &KAddr| {
        a.local.is_v6()
            && a.flags & IFA_F_TENTATIVE != 0
            && a.flags & (IFA_F_DADFAILED | IFA_F_NODAD) == 0
    };
    let kept_down: Vec<&KLink> = links
        .iter()
        .filter(|l| {
            !(l.up || l.loopback || l.name == "lo")
                && k.addrs.iter().any(|a| a.index == l.index && kept(a))
        })
        .collect();
    for l in &links {
        let is_lo = l.loopback || l.name == "lo";
        if (l.up || kept_down.iter().any(|d| d.index == l.index)) && !is_lo {
            c.ip(vec![w("link"), w("set"), l.name.clone(), w("up")]);
        } else if !l.up && is_lo {
            c.ip(vec![w("link"), w("set"), w("lo"), w("down")]);
        }
    }
    // a port's spanning tree state set by hand (`type bridge_slave state`), which the
    // links' states alone do not give
    for l in links.iter().filter(|l| l.master != 0) {
        let (Some(p), Some(idx)) = (&l.port, c.ns.link_index(&l.name)) else {
            continue;
        };
        if c.ns.bridge_port(idx).is_some_and(|h| h.state != p.state) {
            c.ip(vec![
                w("link"),
                w("set"),
                l.name.clone(),
                w("type"),
                w("bridge_slave"),
                w("state"),
                p.state.to_string(),
            ]);
        }
    }

    // IPv6 tokens (after the sysctls: a token needs router advertisements and
    // solicitations on); the kernel keeps one set before its device became NOARP,
    // which fibkit then refuses with a warning
    for l in links.iter().filter(|l| l.token6 != 0) {
        let have = c.ns.link_index(&l.name).and_then(|i| c.ns.token(i));
        if have != Some(l.token6 as u64) {
            c.ip(vec![
                w("token"),
                w("set"),
                std::net::Ipv6Addr::from(l.token6).to_string(),
                w("dev"),
                l.name.clone(),
            ]);
        }
    }

    // 4. addresses
    let mut kaddrs = Vec::new();
    for a in &k.addrs {
        let Some(dev) = names.get(&a.index) else {
            c.warn(format!(
                "address {} on unknown device {}: skipped",
                a.local, a.index
            ));
            continue;
        };
        let reproduced = kept(a) && kept_down.iter().any(|l| l.index == a.index);
        if a.flags & (IFA_F_TENTATIVE | IFA_F_DADFAILED) != 0 && !reproduced {
            c.warn(format!(
                "address {}/{} dev {dev} is tentative or failed DAD in the kernel: mirrored as usable",
                a.local, a.plen
            ));
        }
        kaddrs.push(kernel_aspec(a, dev));
    }
    let fib = fib_aspecs(&c.ns);
    for a in minus(&fib, &kaddrs) {
        c.ip(a.words("del"));
    }
    let fib = fib_aspecs(&c.ns);
    // primaries before secondaries, as the kernel lists them
    let missing: Vec<ASpec> = minus(&kaddrs, &fib).into_iter().cloned().collect();
    // an address is added with the lifetimes it has left (counting down from now on
    // the mirror's clock); a permanent IPv4 address that is deprecated had a preferred
    // lifetime of 0
    let addr_add_words = |a: &ASpec| -> Vec<String> {
        let mut o = a.words("add");
        let life = k
            .addrs
            .iter()
            .find(|x| x.local == a.local && x.plen == a.plen && names.get(&x.index) == Some(&a.dev))
            .map(|x| {
                let (v, p) = x.lifetimes;
                if (v, p) == (u32::MAX, u32::MAX) && x.flags & IFA_F_DEPRECATED != 0 {
                    (v, 0)
                } else {
                    (v, p)
                }
            });
        if let Some((v, p)) = life.filter(|&l| l != (u32::MAX, u32::MAX)) {
            let word = |x: u32| {
                if x == u32::MAX {
                    w("forever")
                } else {
                    x.to_string()
                }
            };
            let at = o.len() - 2;
            o.splice(
                at..at,
                [w("valid_lft"), word(v), w("preferred_lft"), word(p)],
            );
        }
        o
    };
    let secondary = |a: &ASpec| {
        k.addrs.iter().any(|x| {
            x.local == a.local
                && names.get(&x.index) == Some(&a.dev)
                && x.flags & IFA_F_SECONDARY != 0
        })
    };
    for a in missing.iter().filter(|a| !a.local.is_v6() && !secondary(a)) {
        c.ip(addr_add_words(a));
    }
    for a in missing.iter().filter(|a| !a.local.is_v6() && secondary(a)) {
        c.ip(addr_add_words(a));
    }
    // the kernel lists a device's IPv6 addresses of one scope newest first; those it
    // kept over its link's going down come first, then the link goes down
    let kept_spec = |a: &ASpec| {
        k.addrs
            .iter()
            .any(|x| x.local == a.local && names.get(&x.index) == Some(&a.dev) && kept(x))
    };
    let kept_over_down = |a: &ASpec| kept_spec(a) && kept_down.iter().any(|l| l.name == a.dev);
    let (first, then): (Vec<&ASpec>, Vec<&ASpec>) = missing
        .iter()
        .rev()
        .filter(|a| a.local.is_v6())
        .partition(|a| kept_over_down(a));
    for a in first {
        c.ip(addr_add_words(a));
    }
    for l in &kept_down {
        c.ip(vec![w("link"), w("set"), l.name.clone(), w("down")]);
    }
    for a in then {
        c.ip(addr_add_words(a));
    }

    // 5. neighbour entries: fibkit makes none itself, so each is added
    let mut kneighs = Vec::new();
    let (kproxy, kentries): (Vec<&KNeigh>, Vec<&KNeigh>) =
        k.neighs.iter().partition(|n| n.flags & ntf::PROXY != 0);
    for n in kentries {
        match kernel_nspec(n, &names) {
            Ok(None) => {}
            Ok(Some((s, lost))) => {
                if let Some(l) = lost {
                    c.warn(format!("neighbour {} dev {}: {l}", s.addr, s.dev));
                }
                if c.ip(s.words(n.flags, n.protocol)) {
                    kneighs.push(s);
                }
            }
            Err(e) => c.warn(format!("neighbour {}: {e}: skipped", n.dst)),
        }
    }
    // proxy entries: the dump lists each hash bucket newest first, and a new entry
    // goes to the head of its bucket, so they are added in the reverse order
    let mut kproxies = Vec::new();
    for n in kproxy.iter().rev() {
        match kernel_pspec(n, &names) {
            Ok(s) => {
                if c.ip(s.words()) {
                    kproxies.push(s);
                }
            }
            Err(e) => c.warn(format!("proxy neighbour {}: {e}: skipped", n.dst)),
        }
    }
    kproxies.reverse();

    // 6. nexthop objects (singles, then groups) and routes, a first time. The kernel
    // checked each gateway when it was added, under the rules of that moment: one
    // added before a rule that now makes its gateway unreachable is refused after the
    // rules, one whose gateway only a rule-selected table reaches is refused before
    // them. So they are added before the rules, and the refused ones again after
    let mut nhs = k.nexthops.clone();
    nhs.sort_by_key(|n| (!n.group.is_empty(), n.id));
    let mut pending = Vec::new();
    for n in &nhs {
        match nexthop_words(n, &names) {
            Ok(o) => {
                if !host_scoped_nexthop(&mut c, n, &names, &o) {
                    pending.push(o);
                }
            }
            Err(e) => c.warn(format!("{e}: not mirrored")),
        }
    }
    let mut kroutes = Vec::new();
    for r in &k.routes {
        if r.encap {
            c.warn(format!(
                "route {}/{} has an encapsulation: not mirrored",
                ip_of(r.v6, r.dst.0),
                r.dst.1
            ));
            continue;
        }
        if !r.v6 && r.src.1 != 0 {
            c.warn("an IPv4 route with a source prefix: the prefix is ignored");
        }
        match kernel_rspec(r, &names) {
            Ok(s) => kroutes.push(s),
            Err(e) => c.warn(format!(
                "route {}/{}: {e}: skipped",
                ip_of(r.v6, r.dst.0),
                r.dst.1
            )),
        }
    }
    let fib = fib_rspecs(&c.ns);
    pending.extend(minus(&kroutes, &fib).into_iter().map(add_words));
    let pending = c.try_all(pending);
    fix_gateway_scopes(&mut c, k, &kroutes);

    // 7. rules
    for v6 in [false, true] {
        let rules: Vec<&KRule> = k.rules.iter().filter(|r| r.v6 == v6 && !r.mc).collect();
        if default_rules(&k.rules, v6) {
            if !v6 && k.tables4_unmerged == Some(true) {
                // the rules are the defaults, but a rule was added once: the kernel's
                // local and main tables stay unmerged (and answers come from table
                // local); a rule added and deleted does the same to fibkit's
                c.commands.push(w(UNMERGE_COMMENT));
                c.ip(vec![
                    w("rule"),
                    w("add"),
                    w("pref"),
                    w("32765"),
                    w("lookup"),
                    w("main"),
                ]);
                c.ip(vec![w("rule"), w("del"), w("pref"), w("32765")]);
            }
            continue;
        }
        if v6 && k.rules6_custom == Some(false) {
            // probed: the kernel's rules were only ever deleted, so its lookups take
            // the local-then-main shortcut; deletes alone leave fibkit's the same
            for pref in ["32766", "0"] {
                if !rules.iter().any(|r| r.pref.to_string() == pref) {
                    c.ip(vec![w("-6"), w("rule"), w("del"), w("pref"), w(pref)]);
                }
            }
            continue;
        }
        if v6 && !rules.is_empty() {
            // fib6_has_custom_rules is set by an added rule (never by a delete) and never
            // cleared: a list that is not the defaults is taken to come from adds
            // (mirror-diff seed 2949: rules flushed down to `0 local`)
            c.commands.push(w(CUSTOM6_COMMENT));
            for verb in [
                ["add", "pref", "32765", "lookup", "main"].as_slice(),
                &["del", "pref", "32765"],
            ] {
                let mut o = vec![w("-6"), w("rule")];
                o.extend(verb.iter().map(|x| w(*x)));
                c.ip(o);
            }
        }
        let mut flush = vec![w("rule"), w("flush")];
        if v6 {
            flush.insert(0, w("-6"));
        }
        c.ip(flush);
        let mut skipped_local = false;
        for r in rules {
            if !skipped_local && r.pref == 0 && is_default_rule(r) {
                // the permanent local rule survives the flush
                skipped_local = true;
                continue;
            }
            if !r.unsupported.is_empty() {
                c.warn(format!(
                    "rule pref {} has selectors fibkit does not model (FRA {:?}): mirrored without them",
                    r.pref, r.unsupported
                ));
            }
            match rule_words(r) {
                Ok(o) => {
                    c.ip(o);
                }
                Err(e) => c.warn(format!("rule pref {}: {e}: not mirrored", r.pref)),
            }
        }
    }

    // 7b. the multicast routing rules (of a kernel built with multicast routing), when
    // they are not the family's one default
    // rule (32767 into table `default` for IPv4, `main` for IPv6): flushed, then
    // added as the kernel lists them
    for v6 in [false, true] {
        // a kernel without the family's multicast routing has none of its rules
        if !k.kernel.mroute(v6) {
            continue;
        }
        let rules: Vec<&KRule> = k.rules.iter().filter(|r| r.v6 == v6 && r.mc).collect();
        let default = |r: &KRule| {
            plain_lookup(r)
                && r.pref == 32767
                && r.table == if v6 { 254 } else { 253 }
                && r.protocol == 2
        };
        if rules.len() == 1 && default(rules[0]) {
            continue;
        }
        let flush = if v6 {
            vec![w("-6"), w("mrule"), w("flush")]
        } else {
            vec![w("mrule"), w("flush")]
        };
        c.ip(flush);
        for r in rules {
            match rule_words(r) {
                Ok(mut o) => {
                    if let Some(x) = o.iter_mut().find(|x| *x == "rule") {
                        *x = w("mrule");
                    }
                    c.ip(o);
                }
                Err(e) => c.warn(format!("multicast rule pref {}: {e}: not mirrored", r.pref)),
            }
        }
    }

    // 8. the nexthop objects and routes refused before the rules, then the deletes:
    // a route whose gateway the kernel still reaches through a route the user deleted
    // since (a connected prefix) is only accepted while fibkit has that route; an add
    // still refused is tried once more after them
    let pending = c.try_all(pending);
    let fib = fib_rspecs(&c.ns);
    for r in minus(&fib, &kroutes) {
        for d in del_words(r) {
            c.ip(d);
        }
    }
    let pending = c.try_all(pending);
    // what is still refused names a gateway the kernel accepted when it was added and
    // no longer reaches (its prefix deleted since, IPv6 gone from the device), a path
    // through a device whose IPv4 state went since (an MTU below 68), or a preferred
    // source gone since: taken as the kernel has it, in restore mode; a
    // replay of the script would refuse it
    let was = c.ns.set_restore_mode(true);
    let trusted_from = c.commands.len();
    let pending = c.try_all(pending);
    c.ns.set_restore_mode(was);
    let trusted: Vec<String> = c.commands.drain(trusted_from..).collect();
    for line in trusted {
        c.warn(format!(
            "`{line}`: refused now (a gateway it no longer reaches, a preferred source \
             gone since, a loopback or a path's device down since, the IPv4 or IPv6 state \
             of its device gone since), accepted by the kernel when it was added: \
             mirrored as the kernel has it; a `fib -batch` of the saved script refuses it"
        ));
        c.commands.push(format!("# {TRUSTED_COMMENT}"));
        c.commands.push(format!("# {line}"));
    }
    for o in pending {
        c.ip(o);
    }
    // the gateway scopes of the routes made since
    fix_gateway_scopes(&mut c, k, &kroutes);
    // same prefix, other order (routes added after the rules come behind the others):
    // the first entry that fits a flow wins, so the kernel's order is restored
    let fib = fib_rspecs(&c.ns);
    let kg = by_prefix(&kroutes);
    let fg = by_prefix(&fib);
    let mut keys: Vec<_> = kg.keys().copied().collect();
    keys.sort_unstable();
    for key in keys {
        let (Some(kl), Some(fl)) = (kg.get(&key), fg.get(&key)) else {
            continue;
        };
        if kl == fl || kl.len() < 2 {
            continue;
        }
        let mut sorted_k = kl.clone();
        let mut sorted_f = fl.clone();
        let ord = |a: &RSpec, b: &RSpec| format!("{a:?}").cmp(&format!("{b:?}"));
        sorted_k.sort_by(ord);
        sorted_f.sort_by(ord);
        if sorted_k != sorted_f {
            continue;
        }
        // the longest head of the kernel's list that fibkit has in the same order
        // stays; the others are deleted and added again (each lands behind the
        // entries of its type of service and metric), in the kernel's order. Tried on
        // a copy first: a route added before the rules may be refused now
        let mut keep = 0;
        for r in fl {
            if keep < kl.len() && *r == kl[keep] {
                keep += 1;
            }
        }
        let moved = &kl[keep..];
        let mut cmds: Vec<Vec<String>> = moved.iter().flat_map(del_words).collect();
        cmds.extend(moved.iter().map(add_words));
        let mut trial = c.ns.clone();
        if cmds.iter().all(|o| run_ip(&mut trial, o).is_ok()) {
            c.ns = trial;
            c.commands.extend(cmds.iter().map(|o| o.join(" ")));
        } else {
            let (v6, table, dst, _) = key;
            c.warn(format!(
                "the routes of {}/{} table {} are in another order than the kernel's \
                 (adding them again in its order is refused)",
                ip_of(v6, dst.0),
                dst.1,
                table_n2a(table)
            ));
        }
    }

    // 9. check
    let fib = fib_rspecs(&c.ns);
    for r in minus(&kroutes, &fib) {
        c.warn(format!(
            "route still missing in fibkit: {}",
            r.words("add", true).join(" ")
        ));
    }
    for r in minus(&fib, &kroutes) {
        c.warn(format!(
            "route fibkit has and the kernel has not: {}",
            r.words("add", true).join(" ")
        ));
    }
    let fib = fib_aspecs(&c.ns);
    for a in minus(&kaddrs, &fib) {
        c.warn(format!(
            "address still missing in fibkit: {}",
            a.words("add").join(" ")
        ));
    }
    for a in minus(&fib, &kaddrs) {
        c.warn(format!(
            "address fibkit has and the kernel has not: {}",
            a.words("add").join(" ")
        ));
    }
    // fibkit's model sends membership reports, whose NOARP entries the host may not
    // have (the kernel sends them a few jiffies later, and repeats them at random) or
    // may have lost since: the host's entries win
    let stray: Vec<(u32, u128, bool)> =
        c.ns.neighbours()
            .iter()
            .filter(|n| fib_nud_word(n.state) == "noarp")
            .filter(|n| {
                let (dev, addr) = (dev_name(&c.ns, n.dev), ip_of(n.v6, n.addr));
                !kneighs.iter().any(|k| k.dev == dev && k.addr == addr)
            })
            .map(|n| (n.dev, n.addr, n.v6))
            .collect();
    for (dev, addr, v6) in stray {
        let _ = c.ns.neigh_del(dev, addr, v6);
    }
    let fib = fib_nspecs(&c.ns);
    // an entry mirrored without its link-layer address (one fibkit cannot hold) has the
    // one fibkit's constructor gave it (a device without ARP: its own)
    for k in kneighs.iter_mut().filter(|k| k.lladdr.is_none()) {
        if let Some(f) = fib
            .iter()
            .find(|f| f.dev == k.dev && f.addr == k.addr && f.state == k.state)
        {
            k.lladdr = f.lladdr;
        }
    }
    for n in minus(&kneighs, &fib) {
        c.warn(format!(
            "neighbour still missing in fibkit: {} dev {} nud {}",
            n.addr, n.dev, n.state
        ));
    }
    for n in minus(&fib, &kneighs) {
        c.warn(format!(
            "neighbour fibkit has and the kernel has not: {} dev {} nud {}",
            n.addr, n.dev, n.state
        ));
    }
    let fib = fib_pspecs(&c.ns);
    for p in minus(&kproxies, &fib) {
        c.warn(format!(
            "proxy neighbour still missing in fibkit: {} dev {}",
            p.addr, p.dev
        ));
    }
    for p in minus(&fib, &kproxies) {
        c.warn(format!(
            "proxy neighbour fibkit has and the kernel has not: {} dev {}",
            p.addr, p.dev
        ));
    }
    if fib != kproxies && minus(&kproxies, &fib).is_empty() && minus(&fib, &kproxies).is_empty() {
        c.warn("proxy neighbours listed in another order than the kernel's".to_string());
    }
    // 10. the buckets of resilient groups, as the kernel has them (no `ip` command
    // sets them: the script's groups fill theirs afresh)
    restore_buckets(&mut c, k);
    // the kernel's IPv6 trees hold history the dump does not show: start them afresh
    // (crates/fibkit-netlink/README.md, "Not mirrored")
    c.ns.forget_tree_history();
    // 11. accept_dad (see step 1)
    for s in global.iter().chain(per_dev.iter()).filter(|s| dad(s)) {
        if num(&s.value) != fib_value(&c.ns, &s.key) {
            c.sysctl(&s.key, &s.value);
        }
    }
    // 12. multicast memberships fibkit does not derive: `ip maddr add` marks, and the
    // groups processes joined through their sockets
    restore_memberships(&mut c, k, &names);
    // 13. the paths of IPv6 multipath routes that have attributes of their own
    restore_legs6(&mut c, k, &names);
    // 14. the generic netlink state: MPTCP limits and endpoints, the SRv6 tunnel source
    // (after the addresses: an endpoint with a port binds a socket to its address)
    restore_genl(&mut c, k, &names);
    // 15. the IPsec policy database: thresholds, default actions, then the policies
    restore_xfrm(&mut c, k, &names);
    c.ns.end_bulk(was_bulk);
    Translation {
        commands: c.commands,
        warnings: c.warnings,
        netns: c.ns,
    }
}

/// The `ip mptcp endpoint add` words of an endpoint, or why it cannot be mirrored.
/// The device is named as the kernel names it; an index no kernel device has (the
/// kernel keeps an endpoint's index as given, also after its device went) is written
/// `ifN`, which `ip` also prints, unless the mirror has a device of that index.
fn mptcp_endpoint_words(
    e: &crate::KMptcpEndpoint,
    names: &HashMap<u32, String>,
    ns: &Netns,
) -> Result<(Vec<String>, u32), String> {
    use fibkit::mptcp::flag;
    let mut o = vec![w("mptcp"), w("endpoint"), w("add"), e.addr.to_string()];
    if e.port != 0 {
        o.extend([w("port"), e.port.to_string()]);
    }
    o.extend([w("id"), e.id.to_string()]);
    if e.ifindex != 0 {
        match names.get(&e.ifindex) {
            Some(n) => o.extend([w("dev"), n.clone()]),
            None if ns.link(e.ifindex).is_some() => {
                return Err(format!(
                    "its device index {} names no device in the kernel and another one in \
                     the mirror",
                    e.ifindex
                ))
            }
            None => o.extend([w("dev"), format!("if{}", e.ifindex)]),
        }
    }
    let mut rest = e.flags;
    for (name, bit) in flag::NAMED {
        if e.flags & bit != 0 {
            o.push(w(name));
            rest &= !bit;
        }
    }
    Ok((o, rest))
}

/// Step 14: the MPTCP path manager's limits and endpoints (with the kernel's IDs, in
/// its dump order) and the SRv6 tunnel source, as `ip mptcp ...` and `ip sr tunsrc set`
/// commands. An endpoint with a port whose listening socket fibkit's bind refuses now
/// (its address gone since) is taken as the kernel has it, in restore mode, and kept
/// commented out in the script. The HMAC keys cannot be: fibkit has no HMAC key table
/// (`ip sr hmac set` reads the secret from a terminal), so each is a warning.
fn restore_genl(c: &mut Ctx, k: &KernelState, names: &HashMap<u32, String>) {
    if let Some(l) = k.mptcp_limits {
        if (l.add_addr_accepted, l.subflows) != c.ns.mptcp_limits() {
            c.ip(vec![
                w("mptcp"),
                w("limits"),
                w("set"),
                w("subflows"),
                l.subflows.to_string(),
                w("add_addr_accepted"),
                l.add_addr_accepted.to_string(),
            ]);
        }
    }
    for e in &k.mptcp_endpoints {
        let (words, rest) = match mptcp_endpoint_words(e, names, &c.ns) {
            Ok(x) => x,
            Err(why) => {
                c.warn(format!(
                    "MPTCP endpoint id {} ({}): {why}: not mirrored",
                    e.id, e.addr
                ));
                continue;
            }
        };
        let line = words.join(" ");
        if rest != 0 {
            c.warn(format!(
                "MPTCP endpoint id {}: flags 0x{rest:x} (implicit: made by a connection, or \
                 newer than fibkit) cannot be set by `ip`: mirrored as `{line}`",
                e.id
            ));
        }
        if c.try_ip(words.clone()) {
            continue;
        }
        let was = c.ns.set_restore_mode(true);
        let ok = run_ip(&mut c.ns, &words).is_ok();
        c.ns.set_restore_mode(was);
        if ok {
            c.warn(format!(
                "`{line}`: refused now (its listening socket's bind fails: the address gone \
                 since), accepted by the kernel when it was added: mirrored as the kernel \
                 has it; a `fib -batch` of the saved script refuses it"
            ));
            c.commands.push(format!("# {ENDPOINT_COMMENT}"));
            c.commands.push(format!("# {line}"));
        } else {
            c.ip(words);
        }
    }
    if let Some(a) = k.seg6_tunsrc {
        if a != c.ns.seg6_tunsrc() {
            c.ip(vec![
                w("sr"),
                w("tunsrc"),
                w("set"),
                std::net::Ipv6Addr::from(a).to_string(),
            ]);
        }
    }
    for h in &k.seg6_hmac {
        c.warn(format!(
            "SRv6 HMAC key {} ({}): not mirrored (fibkit keeps no HMAC keys: `ip sr hmac \
             set` reads the secret from a terminal)",
            h.id,
            h.alg_name()
        ));
    }
}

/// IPv6 multipath routes whose paths have attributes of their own, as probed (see
/// [`crate::LegProbe6`]; the dump gives the first path's for all): each probed path of
/// fibkit's copy takes its own protocol, preferred source, metrics and preference
/// ([`Netns::route6_set_path_attrs`]), recorded as `pathattrs ...` (no `ip` command
/// sets them apart from the route's other paths: a saved script keeps it as a comment).
fn restore_legs6(c: &mut Ctx, k: &KernelState, names: &HashMap<u32, String>) {
    use fibkit::prefix::Prefix6;
    use fibkit::route::{Metrics, Pref};
    for p in &k.legs6 {
        let Some(kr) = k
            .routes
            .iter()
            .find(|r| r.v6 && r.hops.len() > 1 && (r.table, r.dst, r.src, r.priority) == p.key)
        else {
            continue;
        };
        for (h, a) in kr.hops.iter().zip(&p.legs) {
            let Some(a) = a else {
                continue;
            };
            let same = a.proto == kr.proto
                && a.prefsrc == kr.prefsrc
                && a.metrics == kr.metrics
                && a.locks == kr.locks
                && a.congctl == kr.congctl
                && a.pref == kr.pref;
            let Some(dev) = names.get(&h.oif).and_then(|n| c.ns.link_index(n)) else {
                continue;
            };
            if same {
                continue;
            }
            let gw = match h.gw {
                Some(Ip::V6(g)) => Some(g),
                _ => None,
            };
            let prefsrc = match a.prefsrc {
                Some(Ip::V6(s)) => Some(s),
                _ => None,
            };
            let pref = match a.pref {
                1 => Pref::High,
                3 => Pref::Low,
                _ => Pref::Medium,
            };
            let mut vals = a.metrics.clone();
            vals.sort_unstable();
            let metrics = Metrics {
                vals,
                locks: a.locks,
                congctl: a.congctl.clone(),
                ..Metrics::default()
            };
            let (dst, src) = (
                Prefix6::new(kr.dst.0, kr.dst.1),
                Prefix6::new(kr.src.0, kr.src.1),
            );
            let what = format!(
                "{}/{} via {} dev {}",
                ip_of(true, kr.dst.0),
                kr.dst.1,
                gw.map_or("-".to_string(), |g| ip_of(true, g).to_string()),
                names.get(&h.oif).cloned().unwrap_or_default()
            );
            let line = pathattrs_line(kr, gw, names.get(&h.oif).map_or("", |n| n), a);
            match c.ns.route6_set_path_attrs(
                kr.table,
                dst,
                src,
                kr.priority,
                (gw, dev),
                a.proto,
                pref,
                prefsrc,
                metrics,
            ) {
                Ok(()) => c.commands.push(line),
                Err(e) => c.warn(format!(
                    "the path {what} could not be given its own attributes: {e}"
                )),
            }
        }
    }
}

/// The `pathattrs` line of [`restore_legs6`] (see [`run_pathattrs`]): `pathattrs TABLE
/// DST/LEN SRC/LEN METRIC GW|- DEV PROTO PREF PREFSRC|- LOCKS CONGCTL|- ID:VAL,...|-`.
fn pathattrs_line(r: &KRoute, gw: Option<u128>, dev: &str, a: &KRoute) -> String {
    let opt = |x: Option<String>| x.unwrap_or_else(|| "-".into());
    let metrics: Vec<String> = a.metrics.iter().map(|(i, v)| format!("{i}:{v}")).collect();
    format!(
        "pathattrs {} {}/{} {}/{} {} {} {dev} {} {} {} {} {} {}",
        r.table,
        ip_of(true, r.dst.0),
        r.dst.1,
        ip_of(true, r.src.0),
        r.src.1,
        r.priority,
        opt(gw.map(|g| ip_of(true, g).to_string())),
        a.proto,
        a.pref,
        opt(a.prefsrc.map(|p| p.to_string())),
        a.locks,
        opt(a.congctl.clone()),
        if metrics.is_empty() {
            "-".to_string()
        } else {
            metrics.join(",")
        }
    )
}

/// Apply a `pathattrs` line (the words after `pathattrs`; see [`pathattrs_line`]) to
/// `ns`: a saved mirror's record of a path's own attributes.
pub fn run_pathattrs(ns: &mut Netns, line: &str) -> Result<(), String> {
    use fibkit::prefix::Prefix6;
    use fibkit::route::{Metrics, Pref};
    let f: Vec<&str> = line.split_whitespace().collect();
    let [table, dst, src, metric, gw, dev, proto, pref, prefsrc, locks, congctl, metrics] =
        f.as_slice()
    else {
        return Err(format!("bad pathattrs line: {line}"));
    };
    let bad = |what: &str| format!("pathattrs: bad {what} in {line}");
    let num = |s: &str, what: &str| s.parse::<u32>().map_err(|_| bad(what));
    let addr = |s: &str| s.parse::<std::net::Ipv6Addr>().map(u128::from);
    let pfx = |s: &str, what: &str| -> Result<Prefix6, String> {
        let (a, l) = s.split_once('/').ok_or_else(|| bad(what))?;
        let l: u8 = l.parse().map_err(|_| bad(what))?;
        Ok(Prefix6::new(addr(a).map_err(|_| bad(what))?, l))
    };
    let opt_addr = |s: &str, what: &str| -> Result<Option<u128>, String> {
        if s == "-" {
            Ok(None)
        } else {
            addr(s).map(Some).map_err(|_| bad(what))
        }
    };
    let dev = ns.link_index(dev).ok_or_else(|| bad("device"))?;
    let mut vals = Vec::new();
    if *metrics != "-" {
        for m in metrics.split(',') {
            let (i, v) = m.split_once(':').ok_or_else(|| bad("metric"))?;
            vals.push((
                i.parse::<u8>().map_err(|_| bad("metric"))?,
                num(v, "metric")?,
            ));
        }
    }
    vals.sort_unstable();
    ns.route6_set_path_attrs(
        num(table, "table")?,
        pfx(dst, "destination")?,
        pfx(src, "source")?,
        num(metric, "metric")?,
        (opt_addr(gw, "gateway")?, dev),
        proto.parse().map_err(|_| bad("protocol"))?,
        match *pref {
            "1" => Pref::High,
            "3" => Pref::Low,
            _ => Pref::Medium,
        },
        opt_addr(prefsrc, "preferred source")?,
        Metrics {
            vals,
            locks: num(locks, "locks")?,
            congctl: (*congctl != "-").then(|| congctl.to_string()),
            ..Metrics::default()
        },
    )
    .map_err(|e| format!("pathattrs {line}: {e}"))
}

/// The `ip maddr add` marks the kernel's links have (an `ip maddr add` command each),
/// and the groups its processes joined through their sockets: each group the kernel
/// lists with more joins than fibkit derived is joined the difference
/// ([`Netns::mc_socket_join`]), recorded as `mcjoin DEV GROUP` (no `ip` command joins
/// a group: a saved script keeps it as a comment its `--load` applies). Fewer joins
/// than fibkit derived are warned about.
fn restore_memberships(c: &mut Ctx, k: &KernelState, names: &HashMap<u32, String>) {
    use crate::mcast::KMcastEntry;
    for m in &k.mcast {
        let Some(name) = names.get(&m.ifindex) else {
            continue;
        };
        let Some(dev) = c.ns.link_index(name) else {
            continue;
        };
        let have = c.ns.maddrs(dev);
        match &m.entry {
            KMcastEntry::Link { addr, global, .. } => {
                let marked = have.link.iter().any(|e| e.addr == *addr && e.global);
                if *global && !marked {
                    c.ip(vec![
                        w("maddr"),
                        w("add"),
                        mac_str(addr),
                        w("dev"),
                        name.clone(),
                    ]);
                }
            }
            KMcastEntry::V4 { group, users } => {
                let g = u32::from(*group);
                let n = have.v4.iter().find(|x| x.addr == g).map_or(0, |x| x.users);
                join_more(c, dev, name, std::net::IpAddr::V4(*group), *users, n);
            }
            KMcastEntry::V6 { group, users } => {
                let g = u128::from(*group);
                let n = have.v6.iter().find(|x| x.addr == g).map_or(0, |x| x.users);
                join_more(c, dev, name, std::net::IpAddr::V6(*group), *users, n);
            }
        }
    }
}

fn join_more(c: &mut Ctx, dev: u32, name: &str, g: std::net::IpAddr, want: u32, have: u32) {
    if want < have {
        c.warn(format!(
            "fibkit derived {have} joins of {g} on {name}, the kernel lists {want}"
        ));
    }
    for _ in have..want {
        match c.ns.mc_socket_join(dev, g) {
            Ok(()) => c.commands.push(format!("mcjoin {name} {g}")),
            Err(e) => {
                c.warn(format!("fibkit refused to join {g} on {name}: {e}"));
                return;
            }
        }
    }
}

/// Sets each mirrored resilient group's buckets to the kernel's.
fn restore_buckets(c: &mut Ctx, k: &KernelState) {
    for n in k.nexthops.iter().filter(|n| n.group_type == 1) {
        if c.ns.nh_res_table(n.id).is_none() {
            continue;
        }
        let mut b: Vec<&crate::KBucket> = k.nh_buckets.iter().filter(|b| b.group == n.id).collect();
        b.sort_by_key(|b| b.index);
        let buckets: Vec<(u32, u64)> = b.iter().map(|b| (b.nh, b.idle_time * 10)).collect();
        let in_order = b.iter().enumerate().all(|(i, b)| usize::from(b.index) == i);
        let unbalanced = n.res.as_ref().map_or(0, |r| r.unbalanced_time * 10);
        let r = if in_order {
            c.ns.nexthop_res_restore(n.id, &buckets, unbalanced)
        } else {
            Err(fibkit::Error::msg(
                fibkit::Errno::EINVAL,
                "buckets missing from the dump",
            ))
        };
        match r {
            Ok(()) => c.commands.push(format!(
                "# nexthop {}: the kernel's {} buckets restored",
                n.id,
                buckets.len()
            )),
            Err(e) => c.warn(format!(
                "nexthop {}: its buckets could not be restored ({}): they are fibkit's own",
                n.id,
                e.iproute_text()
            )),
        }
    }
}

// -------------------------------------------------------------- route events

/// The `ip` command that applies one route event of the kernel to a mirror (see
/// `Follower::wait_and_update`): the route as the event carries it, with the verb the
/// event's `nlmsg_flags` imply (`fib_table_insert` notifies a replace with
/// `NLM_F_REPLACE`, an append behind the routes of the same type of service and metric
/// with `NLM_F_APPEND`, an add in front of them with `NLM_F_CREATE` alone, an add of
/// the first such route with `NLM_F_CREATE | NLM_F_EXCL`; `fib6_add_rt2node` sets the
/// same flags); a deleted route's every attribute names it, so the first route they
/// match is the one the kernel deleted. An IPv6 event of a multipath route is refused.
pub(crate) fn route_event_words(
    r: &KRoute,
    new: bool,
    nlflags: u16,
    names: &HashMap<u32, String>,
) -> Result<Vec<String>, String> {
    if r.encap || (!r.v6 && r.src.1 != 0) {
        return Err("a route fibkit does not model".into());
    }
    if r.v6 && r.hops.len() > 1 {
        // the kernel describes an IPv6 multipath route as a whole after a path's
        // change (the changed path first, not in the route's order): only a dump says
        // what the route is now
        return Err("an IPv6 multipath route".into());
    }
    let s = kernel_rspec(r, names)?;
    if !new {
        let mut words = s.words("del", false);
        if s.rtype == RouteType::Unicast as u8 {
            // a delete without a type matches any type: name it
            let at = words.iter().position(|x| x == "del").map_or(0, |i| i + 1);
            words.insert(at, w("unicast"));
        }
        return Ok(words);
    }
    let verb = if nlflags & NLM_F_REPLACE != 0 {
        "replace"
    } else if nlflags & NLM_F_APPEND != 0 {
        "append"
    } else if nlflags & NLM_F_EXCL != 0 {
        "add"
    } else {
        "prepend"
    };
    Ok(s.words(verb, true))
}

/// The routes of a kernel dump that `ns` does not have as the kernel has them: each
/// route one side has and the other lacks (`kernel: ...` / `mirror: ...`, as the `ip
/// route add` that makes it), and each prefix whose routes are the same but in another order.
/// Used by follow mode's `--verify`; the seconds left of expiring routes are not
/// compared.
pub(crate) fn route_differences(k: &KernelState, ns: &Netns) -> Vec<String> {
    let names = k.link_names();
    let kroutes: Vec<RSpec> = k
        .routes
        .iter()
        .filter(|r| !r.encap)
        .filter_map(|r| kernel_rspec(r, &names).ok())
        .collect();
    let fib = fib_rspecs(ns);
    let mut out = Vec::new();
    for r in minus(&kroutes, &fib) {
        out.push(format!("kernel: {}", r.words("add", true).join(" ")));
    }
    for r in minus(&fib, &kroutes) {
        out.push(format!("mirror: {}", r.words("add", true).join(" ")));
    }
    if !out.is_empty() {
        return out;
    }
    let (kg, fg) = (by_prefix(&kroutes), by_prefix(&fib));
    let mut keys: Vec<&PrefixKey> = kg.keys().collect();
    keys.sort_unstable();
    for key in keys {
        if fg.get(key) != kg.get(key) {
            let (v6, table, dst, _) = *key;
            out.push(format!(
                "the routes of {}/{} table {} are in another order",
                ip_of(v6, dst.0),
                dst.1,
                table_n2a(table)
            ));
        }
    }
    out
}

/// An xfrm address of `family` as `ip` reads it back.
fn xfrm_addr(family: u16, a: &[u8; 16]) -> Option<String> {
    match family {
        fibkit::xfrm::AF_INET => Some(std::net::Ipv4Addr::new(a[0], a[1], a[2], a[3]).to_string()),
        fibkit::xfrm::AF_INET6 => Some(std::net::Ipv6Addr::from(*a).to_string()),
        _ => None,
    }
}

/// The selector words of an `ip xfrm policy add`: addresses with their prefix lengths
/// (host bits kept), the device, and the upper-layer spec `ip` would have sent for
/// the ports (or ICMP type and code, GRE key) the kernel keeps; or why `ip` cannot
/// make this selector.
fn xfrm_selector_words(
    s: &fibkit::xfrm::Selector,
    names: &HashMap<u32, String>,
    ns: &Netns,
) -> Result<Vec<String>, String> {
    let fam = s.family;
    let (Some(src), Some(dst)) = (xfrm_addr(fam, &s.saddr), xfrm_addr(fam, &s.daddr)) else {
        return Err(format!("its selector's family {fam} is not IPv4 or IPv6"));
    };
    let mut o = vec![
        w("src"),
        format!("{src}/{}", s.prefixlen_s),
        w("dst"),
        format!("{dst}/{}", s.prefixlen_d),
    ];
    if s.ifindex < 0 {
        return Err(format!("its selector's device index {}", s.ifindex));
    }
    if s.ifindex > 0 {
        let i = s.ifindex as u32;
        match names.get(&i) {
            Some(n) => o.extend([w("dev"), n.clone()]),
            None if ns.link(i).is_some() => {
                return Err(format!(
                    "its device index {i} names no device in the kernel and another one \
                     in the mirror"
                ))
            }
            None => o.extend([w("dev"), format!("if{i}")]),
        }
    }
    if s.user != 0 {
        return Err(format!(
            "its selector's user {} (`ip` cannot set it)",
            s.user
        ));
    }
    if s.proto != 0 {
        o.extend([w("proto"), s.proto.to_string()]);
    }
    let full = |m: u16| m == 0xffff;
    let none = |v: u16, m: u16| v == 0 && m == 0;
    let ports = |o: &mut Vec<String>, a: &str, v: u16, m: u16| -> Result<(), String> {
        if none(v, m) {
            Ok(())
        } else if full(m) && v != 0 {
            o.extend([w(a), v.to_string()]);
            Ok(())
        } else {
            Err(format!(
                "its selector's {a} {v} with mask {m:#x} (`ip` cannot set it)"
            ))
        }
    };
    match s.proto {
        0 | 6 | 17 | 132 | 33 => {
            ports(&mut o, "sport", s.sport, s.sport_mask)?;
            ports(&mut o, "dport", s.dport, s.dport_mask)?;
        }
        1 | 58 | 135 => {
            for (word, v, m) in [
                ("type", s.sport, s.sport_mask),
                ("code", s.dport, s.dport_mask),
            ] {
                if none(v, m) {
                    continue;
                }
                if !full(m) || v > 0xff {
                    return Err(format!(
                        "its selector's {word} {v} with mask {m:#x} (`ip` cannot set it)"
                    ));
                }
                o.extend([w(word), v.to_string()]);
            }
        }
        47 => {
            if !(none(s.sport, s.sport_mask) && none(s.dport, s.dport_mask)) {
                if !(full(s.sport_mask) && full(s.dport_mask)) {
                    return Err("its selector's GRE key is masked (`ip` cannot set it)".into());
                }
                let key = (u32::from(s.sport) << 16) | u32::from(s.dport);
                o.extend([w("key"), key.to_string()]);
            }
        }
        p => {
            if !(none(s.sport, s.sport_mask) && none(s.dport, s.dport_mask)) {
                return Err(format!(
                    "its selector has ports with protocol {p} (`ip` cannot set them)"
                ));
            }
        }
    }
    Ok(o)
}

/// The `ip xfrm policy add` words of a policy, or why `ip` cannot make it.
fn xfrm_policy_words(
    k: &crate::KXfrmPolicy,
    names: &HashMap<u32, String>,
    ns: &Netns,
) -> Result<Vec<String>, String> {
    use fibkit::xfrm::{mode, DIR_MAX};
    let p = &k.policy;
    if p.dir >= DIR_MAX {
        return Err("a socket's policy (`ip` cannot add one; `ip xfrm policy` lists it)".into());
    }
    if p.share != 0 {
        return Err(format!("share {} (`ip` cannot set it)", p.share));
    }
    let mut o = vec![w("xfrm"), w("policy"), w("add")];
    o.extend(xfrm_selector_words(&p.sel, names, ns)?);
    let dir = ["in", "out", "fwd"][usize::from(p.dir)];
    o.extend([w("dir"), w(dir), w("index"), p.index.to_string()]);
    match p.ptype {
        fibkit::xfrm::TYPE_MAIN => {}
        fibkit::xfrm::TYPE_SUB => o.extend([w("ptype"), w("sub")]),
        t => return Err(format!("policy type {t}")),
    }
    match p.action {
        fibkit::xfrm::ACTION_ALLOW => {}
        fibkit::xfrm::ACTION_BLOCK => o.extend([w("action"), w("block")]),
        a => return Err(format!("action {a}")),
    }
    o.extend([w("priority"), p.priority.to_string()]);
    if p.flags != 0 {
        o.push(w("flag"));
        if p.flags & !3 == 0 {
            if p.flags & 1 != 0 {
                o.push(w("localok"));
            }
            if p.flags & 2 != 0 {
                o.push(w("icmp"));
            }
        } else {
            o.push(format!("{:#x}", p.flags));
        }
    }
    if p.mark.1 != 0 {
        o.extend([
            w("mark"),
            format!("{:#x}", p.mark.0),
            w("mask"),
            format!("{:#x}", p.mark.1),
        ]);
    }
    if p.if_id != 0 {
        o.extend([w("if_id"), p.if_id.to_string()]);
    }
    let l = &p.lft;
    for (name, v, dflt) in [
        ("time-soft", l.soft_add_expires_seconds, 0),
        ("time-hard", l.hard_add_expires_seconds, 0),
        ("time-use-soft", l.soft_use_expires_seconds, 0),
        ("time-use-hard", l.hard_use_expires_seconds, 0),
        ("byte-soft", l.soft_byte_limit, u64::MAX),
        ("byte-hard", l.hard_byte_limit, u64::MAX),
        ("packet-soft", l.soft_packet_limit, u64::MAX),
        ("packet-hard", l.hard_packet_limit, u64::MAX),
    ] {
        if v != dflt {
            o.extend([w("limit"), w(name), v.to_string()]);
        }
    }
    for t in &p.tmpls {
        let (Some(src), Some(dst)) = (xfrm_addr(t.family, &t.saddr), xfrm_addr(t.family, &t.daddr))
        else {
            return Err(format!("a template of family {}", t.family));
        };
        let proto = match t.proto {
            50 => "esp",
            51 => "ah",
            108 => "comp",
            43 => "route2",
            60 => "hao",
            255 => "ipsec-any",
            x => return Err(format!("a template of protocol {x}")),
        };
        let m = match t.mode {
            mode::TRANSPORT => "transport",
            mode::TUNNEL => "tunnel",
            mode::RO => "ro",
            mode::IN_TRIGGER => "in_trigger",
            mode::BEET => "beet",
            x => return Err(format!("a template of mode {x}")),
        };
        if t.share != 0 {
            return Err(format!(
                "a template's share {} (`ip` cannot set it)",
                t.share
            ));
        }
        if (t.aalgos, t.ealgos, t.calgos) != (u32::MAX, u32::MAX, u32::MAX) {
            return Err("a template's algorithm masks (`ip` cannot set them)".into());
        }
        o.extend([
            w("tmpl"),
            w("src"),
            src,
            w("dst"),
            dst,
            w("proto"),
            w(proto),
        ]);
        if t.spi != 0 {
            o.extend([w("spi"), t.spi.to_string()]);
        }
        o.extend([w("reqid"), t.reqid.to_string(), w("mode"), w(m)]);
        match t.optional {
            0 => {}
            1 => o.extend([w("level"), w("use")]),
            x => return Err(format!("a template's level {x}")),
        }
    }
    Ok(o)
}

/// Step 15: the IPsec security policy database, as `ip xfrm policy` commands: the
/// hash thresholds (`set`) and default actions (`setdefault`) where they differ from a
/// new namespace's, then the policies oldest first (the kernel dumps the newest first
/// and lists each new one at the head), each with the kernel's index, so that the
/// listings come in the kernel's order with its indexes. What `ip` cannot make (a
/// socket's policy, a share, masked ports, ...) is a warning; so are a security
/// context (fibkit drops it, as a kernel without an LSM's xfrm hooks does) and
/// traffic counters, which `-s` prints. The add time is the mirror's own.
fn restore_xfrm(c: &mut Ctx, k: &KernelState, names: &HashMap<u32, String>) {
    let (t4, t6) = k.xfrm_hthresh;
    let x = c.ns.xfrm();
    let mut set = vec![w("xfrm"), w("policy"), w("set")];
    if let Some((l, r)) = t4.filter(|t| *t != x.hthresh4) {
        set.extend([w("hthresh4"), l.to_string(), r.to_string()]);
    }
    if let Some((l, r)) = t6.filter(|t| *t != x.hthresh6) {
        set.extend([w("hthresh6"), l.to_string(), r.to_string()]);
    }
    if set.len() > 3 {
        c.ip(set);
    }
    if let Some(d) = k.xfrm_defaults {
        let have = c.ns.xfrm().defaults();
        if d != have {
            let mut o = vec![w("xfrm"), w("policy"), w("setdefault")];
            for (i, dir) in ["in", "fwd", "out"].iter().enumerate() {
                let v = match d[i] {
                    fibkit::xfrm::USERPOLICY_BLOCK => "block",
                    fibkit::xfrm::USERPOLICY_ACCEPT => "accept",
                    _ => continue,
                };
                o.extend([w(*dir), w(v)]);
            }
            if o.len() > 3 {
                c.ip(o);
            }
        }
    }
    for kp in k.xfrm_policies.iter().rev() {
        let p = &kp.policy;
        let dir = match p.dir {
            0 => "in".to_string(),
            1 => "out".to_string(),
            2 => "fwd".to_string(),
            d => format!("{d} (a socket's)"),
        };
        let words = match xfrm_policy_words(kp, names, &c.ns) {
            Ok(o) => o,
            Err(why) => {
                c.warn(format!(
                    "IPsec policy index {} dir {dir}: {why}: not mirrored",
                    p.index
                ));
                continue;
            }
        };
        if kp.sec_ctx {
            c.warn(format!(
                "IPsec policy index {}: its security context is dropped (fibkit keeps none)",
                p.index
            ));
        }
        if kp.cur[0] != 0 || kp.cur[1] != 0 || kp.cur[3] != 0 {
            c.warn(format!(
                "IPsec policy index {}: its use counters ({} bytes, {} packets, last use \
                 {}) are not mirrored (fibkit's start at 0)",
                p.index, kp.cur[0], kp.cur[1], kp.cur[3]
            ));
        }
        c.ip(words);
    }
}
