//! Policy routing rules (`ip rule`), as `net/core/fib_rules.c` keeps and walks them.

use crate::prefix::{Prefix4, Prefix6};

/// The interface index of a rule whose `iif`/`oif` names no existing device: it never
/// matches (the kernel keeps -1 there).
pub const DETACHED: u32 = u32::MAX;

/// A rule's action (`FR_ACT_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RuleAction {
    /// Look up a table.
    Lookup(u32),
    /// Jump to the first rule with this priority.
    Goto(u32),
    /// Continue with the next rule.
    Nop,
    /// Drop silently (EINVAL).
    Blackhole,
    /// ENETUNREACH.
    Unreachable,
    /// EACCES.
    Prohibit,
    /// Another `FR_ACT_*` value (iproute2 sends route type numbers as actions); lookups
    /// that reach it fail with EINVAL.
    Other(u8),
}

/// A rule's address selector of either family.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RulePrefix {
    /// IPv4 prefix (address kept as written, host bits included).
    V4(Prefix4),
    /// IPv6 prefix (address kept as written).
    V6(Prefix6),
}

impl RulePrefix {
    /// Whether the prefix has length 0 (selects every address).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The prefix length.
    pub fn len(&self) -> u8 {
        match self {
            RulePrefix::V4(p) => p.len,
            RulePrefix::V6(p) => p.len,
        }
    }
}

/// A port or uid range, inclusive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Range {
    /// Start.
    pub start: u32,
    /// End.
    pub end: u32,
}

/// One policy rule (`struct fib_rule` with its family part).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Rule {
    /// Priority.
    pub pref: u32,
    /// Source selector (`from`); `None` = all.
    pub src: Option<RulePrefix>,
    /// Destination selector (`to`).
    pub dst: Option<RulePrefix>,
    /// Input interface name (`iif`).
    pub iif: Option<String>,
    /// Output interface name (`oif`).
    pub oif: Option<String>,
    /// Resolved iif index (0 = detached or none).
    pub iif_index: u32,
    /// Resolved oif index.
    pub oif_index: u32,
    /// DS field / TOS.
    pub tos: u8,
    /// Firewall mark.
    pub mark: u32,
    /// Mark mask; 0 = no mask given.
    pub mark_mask: u32,
    /// Whether a mask attribute was given.
    pub has_mask: bool,
    /// uid range.
    pub uid: Option<Range>,
    /// IP protocol.
    pub ipproto: u8,
    /// Source port range.
    pub sport: Option<Range>,
    /// Destination port range.
    pub dport: Option<Range>,
    /// `not`.
    pub invert: bool,
    /// The action.
    pub action: RuleAction,
    /// `suppress_prefixlength` (-1 = unset).
    pub suppress_prefixlen: i32,
    /// `suppress_ifgroup` (-1 = unset).
    pub suppress_ifgroup: i32,
    /// Rule protocol (`protocol`).
    pub protocol: u8,
    /// Whether the goto target currently resolves (a rule with `pref == target` exists).
    pub goto_resolved: bool,
    /// Realms (IPv4 only; kept for printing).
    pub realms: u32,
    /// `l3mdev`: look up the table of the flow's L3 master device.
    pub l3mdev: bool,
    /// Tunnel id selector (0: none); route lookups carry no tunnel id.
    pub tun_id: u64,
    /// The rule's table attribute (kept for any action; the lookup target of
    /// [`RuleAction::Lookup`]).
    pub table: u32,
}

impl Rule {
    /// A rule that looks up `table` for every flow.
    pub fn lookup(pref: u32, table: u32) -> Rule {
        Rule {
            pref,
            src: None,
            dst: None,
            iif: None,
            oif: None,
            iif_index: 0,
            oif_index: 0,
            tos: 0,
            mark: 0,
            mark_mask: 0,
            has_mask: false,
            uid: None,
            ipproto: 0,
            sport: None,
            dport: None,
            invert: false,
            action: RuleAction::Lookup(table),
            suppress_prefixlen: -1,
            suppress_ifgroup: -1,
            protocol: 0,
            goto_resolved: false,
            realms: 0,
            l3mdev: false,
            tun_id: 0,
            table,
        }
    }

    /// `fib_rule_requires_fldissect`: the rule selects on the protocol or a port and
    /// its input device is not lo (index 1; none, a detached name or another device
    /// all count), so input routes must dissect their packet for it.
    pub fn requires_fldissect(&self) -> bool {
        // fib_rule_port_range_set: a range counts only with both ends non-zero
        let set = |p: Option<Range>| p.is_some_and(|p| p.start != 0 && p.end != 0);
        self.iif_index != 1 && (self.ipproto != 0 || set(self.sport) || set(self.dport))
    }

    /// A default rule as the kernel installs it (`proto kernel`).
    pub fn kernel_default(pref: u32, table: u32) -> Rule {
        let mut r = Rule::lookup(pref, table);
        r.protocol = 2;
        r
    }

    /// `rule_exists` (`ip rule add` sends NLM_F_EXCL): whether the existing rule `self`
    /// makes adding `new` fail with EEXIST. The kernel compares the action (not a
    /// goto's target), table, priority, interface names, suppressors, mark and mask,
    /// tun_id, l3mdev, uid range, ipproto, protocol and port ranges, but the family's
    /// selectors only where `new` has them: its `from`/`to` prefix when it has one, its
    /// tos when non-zero, its realms when the request carried `FRA_FLOW` at all
    /// (`realms`: `fib4_rule_compare` tests the attribute, so `realms 0` differs from a
    /// rule's realms 2; IPv6 has none, `fib6_rule_compare`); `not` is not compared at
    /// all (conformance scenarios 219, 951).
    pub fn blocks_add_of(&self, new: &Rule, realms: Option<u32>) -> bool {
        let prefix_ok = |mine: &Option<RulePrefix>, theirs: &Option<RulePrefix>| match theirs {
            Some(p) if !p.is_empty() => mine == theirs,
            _ => true,
        };
        let action_ok = match (self.action, new.action) {
            (RuleAction::Goto(_), RuleAction::Goto(_)) => true,
            (a, b) => a == b,
        };
        action_ok
            && self.table == new.table
            && self.pref == new.pref
            && self.iif == new.iif
            && self.oif == new.oif
            && self.suppress_prefixlen == new.suppress_prefixlen
            && self.suppress_ifgroup == new.suppress_ifgroup
            && self.mark == new.mark
            && self.mark_mask == new.mark_mask
            && self.tun_id == new.tun_id
            && self.l3mdev == new.l3mdev
            && self.uid == new.uid
            && self.ipproto == new.ipproto
            && self.protocol == new.protocol
            && self.sport == new.sport
            && self.dport == new.dport
            && prefix_ok(&self.src, &new.src)
            && prefix_ok(&self.dst, &new.dst)
            && (new.tos == 0 || self.tos == new.tos)
            && realms.is_none_or(|f| self.realms == f)
    }
}

/// What a rule request specified, for `ip rule del` matching (unset fields match any rule).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RuleSpec {
    /// Priority given.
    pub pref: Option<u32>,
    /// Source given.
    pub src: Option<RulePrefix>,
    /// Destination given.
    pub dst: Option<RulePrefix>,
    /// iif given.
    pub iif: Option<String>,
    /// oif given.
    pub oif: Option<String>,
    /// tos given (non-zero).
    pub tos: Option<u8>,
    /// mark given.
    pub mark: Option<u32>,
    /// mask given.
    pub mask: Option<u32>,
    /// uid range given.
    pub uid: Option<Range>,
    /// ipproto given.
    pub ipproto: Option<u8>,
    /// sport given.
    pub sport: Option<Range>,
    /// dport given.
    pub dport: Option<Range>,
    /// `not` given.
    pub invert: bool,
    /// Action given (`None`: unspecified).
    pub action: Option<RuleAction>,
    /// The table was given as a number `>= 256` or a name (`FRA_TABLE`), or in the header.
    pub table: Option<u32>,
    /// suppress_prefixlength given.
    pub suppress_prefixlen: Option<i32>,
    /// suppress_ifgroup given.
    pub suppress_ifgroup: Option<i32>,
    /// protocol given.
    pub protocol: Option<u8>,
    /// goto target given.
    pub goto: Option<u32>,
    /// `l3mdev` given.
    pub l3mdev: bool,
    /// realms given.
    pub realms: Option<u32>,
    /// tun_id given.
    pub tun_id: Option<u64>,
}

/// The flow fields rules match on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RuleFlow {
    /// Input interface (lo for locally generated).
    pub iif: u32,
    /// Output interface.
    pub oif: u32,
    /// Mark.
    pub mark: u32,
    /// uid.
    pub uid: u32,
    /// Source address (IPv4 in the low 32 bits).
    pub src: u128,
    /// Destination address.
    pub dst: u128,
    /// TOS / traffic class.
    pub tos: u8,
    /// IP protocol.
    pub proto: u8,
    /// Source port.
    pub sport: u16,
    /// Destination port.
    pub dport: u16,
}

impl Rule {
    /// `fib_rule_match` with the family match: whether the rule selects the flow.
    pub fn matches(&self, fl: &RuleFlow, v6: bool) -> bool {
        let m = self.matches_inner(fl, v6);
        m ^ self.invert
    }

    #[allow(clippy::collapsible_match)]
    fn matches_inner(&self, fl: &RuleFlow, v6: bool) -> bool {
        if self.l3mdev || self.tun_id != 0 {
            return false;
        }
        if self.iif.is_some() && self.iif_index != fl.iif {
            return false;
        }
        if self.oif.is_some() && self.oif_index != fl.oif {
            return false;
        }
        if (self.mark ^ fl.mark) & self.mark_mask != 0 {
            return false;
        }
        if let Some(u) = self.uid {
            if fl.uid < u.start || fl.uid > u.end {
                return false;
            }
        }
        // family part (fib4_rule_match / fib6_rule_match)
        match self.src {
            Some(RulePrefix::V4(p)) if p.len > 0 => {
                if (fl.src as u32 ^ p.addr) & crate::prefix::mask4(p.len) != 0 {
                    return false;
                }
            }
            Some(RulePrefix::V6(p)) if p.len > 0 => {
                // no source (RT6_LOOKUP_F_HAS_SADDR unset): a `from` rule fails
                // whatever its prefix, ::/1 included (conformance scenario 217)
                if fl.src == 0 || (fl.src ^ p.addr) & crate::prefix::mask6(p.len) != 0 {
                    return false;
                }
            }
            _ => {}
        }
        match self.dst {
            Some(RulePrefix::V4(p)) if p.len > 0 => {
                if (fl.dst as u32 ^ p.addr) & crate::prefix::mask4(p.len) != 0 {
                    return false;
                }
            }
            Some(RulePrefix::V6(p)) if p.len > 0 => {
                if (fl.dst ^ p.addr) & crate::prefix::mask6(p.len) != 0 {
                    return false;
                }
            }
            _ => {}
        }
        if self.tos != 0 {
            let ft = if v6 { fl.tos & 0xfc } else { fl.tos & 0x1c };
            if self.tos != ft {
                return false;
            }
        }
        if self.ipproto != 0 && self.ipproto != fl.proto {
            return false;
        }
        if let Some(r) = self.sport {
            let p = u32::from(fl.sport);
            if p < r.start || p > r.end {
                return false;
            }
        }
        if let Some(r) = self.dport {
            let p = u32::from(fl.dport);
            if p < r.start || p > r.end {
                return false;
            }
        }
        true
    }
}

/// One rule compiled for the lookup path: every selector as plain integers (an unset
/// selector matches everything), the goto target resolved to a list index. The rule
/// walk reads only these (about 100 bytes each, in one array).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompiledRule {
    iif: u32,
    oif: u32,
    mark: u32,
    mark_mask: u32,
    uid_lo: u32,
    uid_hi: u32,
    src: u128,
    src_mask: u128,
    dst: u128,
    dst_mask: u128,
    tos: u8,
    tos_mask: u8,
    ipproto: u8,
    invert: bool,
    never: bool,
    /// An IPv6 `from` prefix (length > 0): fib6_rule_match fails a flow without a
    /// source (no RT6_LOOKUP_F_HAS_SADDR) before comparing, whatever the prefix.
    needs_src: bool,
    sport_lo: u16,
    sport_hi: u16,
    dport_lo: u16,
    dport_hi: u16,
    /// The action.
    pub action: RuleAction,
    /// For a resolved goto: the index of the target rule.
    pub goto_index: u32,
    /// `suppress_prefixlength` (-1 unset).
    pub suppress_prefixlen: i32,
    /// `suppress_ifgroup` (-1 unset).
    pub suppress_ifgroup: i32,
    /// The rule's realms (`fib4_rule.tclassid`; 0 for IPv6), which a lookup it ends
    /// passes on as `res->tclassid`.
    pub realms: u32,
}

/// Compile a family's rule list (in priority order) for the walk.
pub fn compile_rules(rules: &[Rule], v6: bool) -> Vec<CompiledRule> {
    rules
        .iter()
        .map(|r| {
            let (src, src_mask) = prefix_bits(r.src);
            let (dst, dst_mask) = prefix_bits(r.dst);
            let (uid_lo, uid_hi) = r.uid.map_or((0, u32::MAX), |u| (u.start, u.end));
            let port =
                |p: Option<Range>| p.map_or((0, u16::MAX), |p| (p.start as u16, p.end as u16));
            let (sport_lo, sport_hi) = port(r.sport);
            let (dport_lo, dport_hi) = port(r.dport);
            let goto_index = match r.action {
                RuleAction::Goto(t) => rules
                    .iter()
                    .position(|x| x.pref == t)
                    .map_or(u32::MAX, |i| i as u32),
                _ => u32::MAX,
            };
            CompiledRule {
                iif: if r.iif.is_some() { r.iif_index } else { 0 },
                oif: if r.oif.is_some() { r.oif_index } else { 0 },
                mark: r.mark,
                mark_mask: r.mark_mask,
                uid_lo,
                uid_hi,
                src,
                src_mask,
                dst,
                dst_mask,
                tos: r.tos,
                tos_mask: if r.tos == 0 {
                    0
                } else if v6 {
                    0xfc
                } else {
                    0x1c
                },
                ipproto: r.ipproto,
                invert: r.invert,
                never: r.l3mdev || r.tun_id != 0,
                needs_src: v6 && src_mask != 0,
                sport_lo,
                sport_hi,
                dport_lo,
                dport_hi,
                action: match r.action {
                    // fib_rule_get_table: an l3mdev rule looks up `arg->table`, which
                    // only a flow through an L3 master device sets; a flow that reaches
                    // the action otherwise (a `not l3mdev` rule) has table 0 there, and
                    // fib_get_table / fib6_get_table read table 0 as main
                    RuleAction::Lookup(_) if r.l3mdev => {
                        RuleAction::Lookup(crate::route::table::MAIN)
                    }
                    a => a,
                },
                goto_index,
                suppress_prefixlen: r.suppress_prefixlen,
                suppress_ifgroup: r.suppress_ifgroup,
                realms: if v6 { 0 } else { r.realms },
            }
        })
        .collect()
}

fn prefix_bits(p: Option<RulePrefix>) -> (u128, u128) {
    match p {
        Some(RulePrefix::V4(p)) if p.len > 0 => {
            let m = u128::from(crate::prefix::mask4(p.len));
            (u128::from(p.addr) & m, m)
        }
        Some(RulePrefix::V6(p)) if p.len > 0 => {
            let m = crate::prefix::mask6(p.len);
            (p.addr & m, m)
        }
        _ => (0, 0),
    }
}

impl RuleFlow {
    /// The rule fields of an IPv4 flow as `fib_lookup` sees it.
    #[inline]
    pub fn of4(fl: &crate::lookup::Flow4) -> RuleFlow {
        RuleFlow {
            iif: fl.iif,
            oif: fl.oif,
            mark: fl.mark,
            uid: fl.uid,
            src: u128::from(fl.src),
            dst: u128::from(fl.dst),
            tos: fl.tos,
            proto: fl.proto,
            sport: fl.sport,
            dport: fl.dport,
        }
    }

    /// The rule fields of an IPv6 flow as `fib6_rule_lookup` sees it.
    #[inline]
    pub fn of6(fl: &crate::fib6::Flow6) -> RuleFlow {
        RuleFlow {
            iif: fl.iif,
            oif: fl.oif,
            mark: fl.mark,
            uid: fl.uid,
            src: fl.src,
            dst: fl.dst,
            tos: fl.tos,
            proto: fl.proto,
            sport: fl.sport,
            dport: fl.dport,
        }
    }
}

impl CompiledRule {
    /// Whether the rule selects no flow whose input interface, output interface and
    /// source are `iif`, `oif` and `src` (and whose TOS is `tos`, when given), whatever
    /// its other fields: a selector on those fields fails and the rule is not `not`.
    pub fn never_selects(&self, iif: u32, oif: u32, src: u128, tos: Option<u8>) -> bool {
        let fails = self.never
            || (self.iif != 0 && self.iif != iif)
            || (self.oif != 0 && self.oif != oif)
            || (self.needs_src && src == 0)
            || (src ^ self.src) & self.src_mask != 0
            || tos.is_some_and(|t| t & self.tos_mask != self.tos);
        fails && !self.invert
    }

    /// How the rule treats the flows that take compiled output answers when custom
    /// rules are compiled into them: output flows (input interface lo) with no output
    /// interface, no source, no firewall mark and, when `tos` is given, that TOS.
    /// `Some(true)`: it selects every such flow; `Some(false)`: none of them; `None`:
    /// it depends on fields the compiled answers leave free (destination, protocol,
    /// ports, uid, or the TOS when `tos` is `None`).
    pub fn selects_plain_output(&self, tos: Option<u8>) -> Option<bool> {
        let fixed_fail = self.never
            || (self.iif != 0 && self.iif != 1)
            || self.oif != 0
            || self.mark & self.mark_mask != 0
            || self.needs_src
            || self.src & self.src_mask != 0
            || tos.is_some_and(|t| t & self.tos_mask != self.tos);
        if fixed_fail {
            return Some(self.invert);
        }
        let free = self.uid_lo == 0
            && self.uid_hi == u32::MAX
            && self.dst_mask == 0
            && self.ipproto == 0
            && (self.sport_lo, self.sport_hi) == (0, u16::MAX)
            && (self.dport_lo, self.dport_hi) == (0, u16::MAX)
            && (tos.is_some() || (self.tos_mask == 0 && self.tos == 0));
        free.then_some(!self.invert)
    }

    /// Whether the rule selects no flow carrying firewall mark `mark`.
    pub fn never_selects_mark(&self, mark: u32) -> bool {
        (self.never || (self.mark ^ mark) & self.mark_mask != 0) && !self.invert
    }

    /// Whether the rule selects the flow (`fib_rule_match` with the family match).
    #[inline]
    pub fn matches(&self, fl: &RuleFlow) -> bool {
        let m = !self.never
            && (self.iif == 0 || self.iif == fl.iif)
            && (self.oif == 0 || self.oif == fl.oif)
            && (self.mark ^ fl.mark) & self.mark_mask == 0
            && fl.uid >= self.uid_lo
            && fl.uid <= self.uid_hi
            && !(self.needs_src && fl.src == 0)
            && (fl.src ^ self.src) & self.src_mask == 0
            && (fl.dst ^ self.dst) & self.dst_mask == 0
            && fl.tos & self.tos_mask == self.tos
            && (self.ipproto == 0 || self.ipproto == fl.proto)
            && fl.sport >= self.sport_lo
            && fl.sport <= self.sport_hi
            && fl.dport >= self.dport_lo
            && fl.dport <= self.dport_hi;
        m ^ self.invert
    }
}
