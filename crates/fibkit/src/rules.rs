//! `ip rule add|del|flush`: `fib_nl_newrule`, `fib_nl_delrule` and the family
//! `configure` hooks, with the kernel's priority assignment and errors.

use crate::error::{Errno, Error, Result};
use crate::netns::Netns;
use crate::route::table as tid;
use crate::rule::{Rule, RuleAction, RulePrefix, RuleSpec, DETACHED};

impl Netns {
    fn resolve_ifname(&self, n: &Option<String>) -> u32 {
        match n {
            None => 0,
            Some(name) => self.link_index(name).unwrap_or(DETACHED),
        }
    }

    /// `ip [-6] rule add`.
    pub fn rule_add(&mut self, v6: bool, spec: &RuleSpec) -> Result<()> {
        let rules = if v6 { &self.rules6 } else { &self.rules4 };
        let mut rule = self.new_rule(rules, v6, spec, false)?;
        let einval = |m| Error::msg(Errno::EINVAL, m);
        // configure
        if rule.tos & 0x03 != 0 {
            return Err(einval("Invalid dsfield (tos): ECN bits must be 0"));
        }
        if v6 {
            if let RuleAction::Lookup(t) = rule.action {
                if !rule.l3mdev {
                    if t == 0 {
                        return Err(einval("Invalid table"));
                    }
                    self.new_table6(t);
                }
            }
        } else {
            if rule.tos & !0x1e != 0 {
                return Err(einval("Invalid tos"));
            }
            if let RuleAction::Lookup(0) = rule.action {
                if !rule.l3mdev {
                    let id = (1..=u32::MAX)
                        .find(|i| !self.tables4.contains_key(i))
                        .ok_or(Error::new(Errno::ENOBUFS))?;
                    self.new_table4(id);
                    rule.action = RuleAction::Lookup(id);
                    rule.table = id;
                }
            }
        }
        if rule.realms != 0 {
            // fib4_rule_configure counts the rules with a class id
            self.realms4_seen = true;
        }
        if !v6 && rule.requires_fldissect() {
            // fib4_rule_configure, with the input device the rule has now
            self.fldissect4 += 1;
        }
        let rules = if v6 {
            self.custom_rules6 = true;
            &mut self.rules6
        } else {
            self.fib_unmerge4();
            &mut self.rules4
        };
        insert_by_pref(rules, rule);
        self.rules_resolve(v6);
        if v6 {
            // fib6_rule_flush_cache: rt_genid_bump_ipv6
            self.fib6_sernum_bump();
        } else {
            self.rt_cache_flush4();
        }
        self.bump();
        Ok(())
    }

    /// The checks `fib_nl2rule` and `fib_nl2rule_rtnl` make of an add or a delete
    /// request for the list `rules`, in their order; the priority the request stands
    /// for (its own, or `fib_default_rule_pref`: one below the second rule's).
    fn nl2rule_check(rules: &[Rule], v6: bool, spec: &RuleSpec) -> Result<u32> {
        let einval = |m| Error::msg(Errno::EINVAL, m);
        // family address sizes
        for (p, m) in [
            (&spec.src, "Invalid source address"),
            (&spec.dst, "Invalid dst address"),
        ] {
            match p {
                Some(RulePrefix::V4(_)) if v6 => return Err(einval(m)),
                Some(RulePrefix::V6(_)) if !v6 => return Err(einval(m)),
                _ => {}
            }
        }
        let pref = spec.pref.unwrap_or_else(|| {
            if rules.len() >= 2 && rules[1].pref != 0 {
                rules[1].pref - 1
            } else {
                0
            }
        });
        let target = match (spec.goto, spec.action) {
            (Some(_), a) if !matches!(a, Some(RuleAction::Goto(_))) => {
                return Err(einval("Unexpected goto"));
            }
            (Some(t), _) => Some(t),
            // an action of FR_ACT_GOTO (`type local`) sent without `FRA_GOTO`
            (None, Some(RuleAction::Goto(_))) => {
                return Err(einval("Missing goto target for action goto"));
            }
            _ => None,
        };
        if spec.l3mdev && spec.table.is_some_and(|t| t != 0) {
            return Err(einval("l3mdev and table are mutually exclusive"));
        }
        if let Some(u) = spec.uid {
            if u.start == u32::MAX || u.end == u32::MAX || u.start > u.end {
                return Err(einval("Invalid uid range"));
            }
        }
        let port_ok = |r: &crate::rule::Range| {
            r.start != 0 && r.end != 0 && r.end < 0xffff && r.start <= r.end
        };
        if let Some(r) = &spec.sport {
            if !port_ok(r) {
                return Err(einval("Invalid sport range"));
            }
        }
        if let Some(r) = &spec.dport {
            if !port_ok(r) {
                return Err(einval("Invalid dport range"));
            }
        }
        // fib_nl2rule_rtnl: backward jumps are refused, for a delete too
        if target.is_some_and(|t| t <= pref) {
            return Err(einval("Backward goto not supported"));
        }
        Ok(pref)
    }

    /// A rule made from an add request for the list `rules` (the checks of
    /// `fib_nl2rule` and `rule_exists`, none of a family's `configure`); `mc`: a
    /// multicast family's list.
    fn new_rule(&self, rules: &[Rule], v6: bool, spec: &RuleSpec, mc: bool) -> Result<Rule> {
        let pref = Self::nl2rule_check(rules, v6, spec)?;
        let action = spec
            .action
            .unwrap_or(RuleAction::Lookup(spec.table.unwrap_or(tid::MAIN)));
        let mut rule = Rule::lookup(pref, tid::MAIN);
        rule.action = action;
        rule.table = spec.table.unwrap_or(match action {
            RuleAction::Lookup(t) => t,
            _ => 0,
        });
        rule.src = spec.src.filter(|p| !p.is_empty());
        rule.dst = spec.dst.filter(|p| !p.is_empty());
        rule.tun_id = spec.tun_id.unwrap_or(0);
        rule.iif = spec.iif.clone();
        rule.oif = spec.oif.clone();
        rule.iif_index = self.resolve_ifname(&spec.iif);
        rule.oif_index = self.resolve_ifname(&spec.oif);
        rule.mark = spec.mark.unwrap_or(0);
        rule.mark_mask = if rule.mark != 0 { u32::MAX } else { 0 };
        if let Some(m) = spec.mask {
            rule.mark_mask = m;
        }
        rule.has_mask = spec.mask.is_some();
        rule.uid = spec.uid;
        rule.ipproto = spec.ipproto.unwrap_or(0);
        rule.sport = spec.sport;
        rule.dport = spec.dport;
        rule.invert = spec.invert;
        rule.tos = spec.tos.unwrap_or(0);
        rule.suppress_prefixlen = spec.suppress_prefixlen.unwrap_or(-1);
        rule.suppress_ifgroup = spec.suppress_ifgroup.unwrap_or(-1);
        rule.protocol = spec.protocol.unwrap_or(0);
        rule.l3mdev = spec.l3mdev;
        rule.realms = if v6 { 0 } else { spec.realms.unwrap_or(0) };
        if let Some(t) = spec.goto {
            rule.action = RuleAction::Goto(t);
        }
        if mc {
            // the multicast families keep no TOS or realms: their `configure` takes
            // anything, their `fill` reports a TOS of 0, and their `compare` finds
            // every rule equal in the family's selectors
            rule.tos = 0;
            rule.realms = 0;
        }
        // rule_exists (NLM_F_EXCL)
        let realms = spec.realms.filter(|_| !v6 && !mc);
        if rules.iter().any(|r| r.blocks_add_of(&rule, realms)) {
            return Err(Error::new(Errno::EEXIST));
        }
        Ok(rule)
    }

    /// `rule_find`: the first rule a delete request selects.
    fn rule_find(rules: &[Rule], spec: &RuleSpec, mc: bool, v6: bool) -> Option<usize> {
        rules.iter().position(|r| {
            // the action number must be the rule's (a lookup's table and a goto's
            // target are compared apart, or not at all): `throw` does not find a
            // `multicast` rule
            if let Some(a) = spec.action {
                let same = match (a, r.action) {
                    (RuleAction::Other(x), RuleAction::Other(y)) => x == y,
                    (a, b) => std::mem::discriminant(&a) == std::mem::discriminant(&b),
                };
                if !same {
                    return false;
                }
            }
            if let Some(t) = spec.table {
                if t != 0 && r.table != t {
                    return false;
                }
            }
            if let Some(p) = spec.pref {
                if r.pref != p {
                    return false;
                }
            }
            if spec.iif.is_some() && r.iif != spec.iif {
                return false;
            }
            if spec.oif.is_some() && r.oif != spec.oif {
                return false;
            }
            if let Some(m) = spec.mark {
                if m != 0 && r.mark != m {
                    return false;
                }
            }
            if let Some(g) = spec.suppress_ifgroup {
                if g != -1 && r.suppress_ifgroup != g {
                    return false;
                }
            }
            if let Some(g) = spec.suppress_prefixlen {
                if g != -1 && r.suppress_prefixlen != g {
                    return false;
                }
            }
            // fib_nl2rule: a non-zero mark without a mask compares all its bits, so a
            // request's mask is all ones then (a rule made with a mask is not found by
            // its mark alone)
            let mask = spec.mask.unwrap_or(if spec.mark.unwrap_or(0) != 0 {
                u32::MAX
            } else {
                0
            });
            if mask != 0 && r.mark_mask != mask {
                return false;
            }
            // a non-zero tunnel id must be the rule's (`rule_find`)
            if let Some(t) = spec.tun_id {
                if t != 0 && r.tun_id != t {
                    return false;
                }
            }
            if spec.l3mdev && !r.l3mdev {
                return false;
            }
            if let Some(u) = spec.uid {
                if r.uid != Some(u) {
                    return false;
                }
            }
            if let Some(p) = spec.ipproto {
                if p != 0 && r.ipproto != p {
                    return false;
                }
            }
            if let Some(p) = spec.protocol {
                if p != 0 && r.protocol != p {
                    return false;
                }
            }
            if spec.sport.is_some() && r.sport != spec.sport {
                return false;
            }
            if spec.dport.is_some() && r.dport != spec.dport {
                return false;
            }
            // family compare (the multicast families find every rule equal)
            if mc {
                return true;
            }
            if let Some(s) = spec.src {
                if !s.is_empty() && r.src != Some(s) {
                    return false;
                }
            }
            if let Some(d) = spec.dst {
                if !d.is_empty() && r.dst != Some(d) {
                    return false;
                }
            }
            if let Some(t) = spec.tos {
                if t != 0 && r.tos != t {
                    return false;
                }
            }
            // fib4_rule_compare: the realms given must be the rule's (IPv6 has none)
            if let Some(f) = spec.realms {
                if !v6 && r.realms != f {
                    return false;
                }
            }
            true
        })
    }

    /// `ip [-6] rule del`.
    pub fn rule_del(&mut self, v6: bool, spec: &RuleSpec) -> Result<()> {
        let rules = if v6 { &self.rules6 } else { &self.rules4 };
        // the request is read as an add's is (a goto's target is not compared)
        Self::nl2rule_check(rules, v6, spec)?;
        let Some(i) = Self::rule_find(rules, spec, false, v6) else {
            return Err(Error::new(Errno::ENOENT));
        };
        if !v6 {
            self.fldissect4_forget(&self.rules4[i].clone());
        }
        let rules = if v6 {
            &mut self.rules6
        } else {
            self.fib_unmerge4();
            &mut self.rules4
        };
        rules.remove(i);
        self.rules_resolve(v6);
        if v6 {
            // fib6_rule_flush_cache: rt_genid_bump_ipv6
            self.fib6_sernum_bump();
        } else {
            self.rt_cache_flush4();
        }
        self.bump();
        Ok(())
    }

    /// `fib4_rule_delete`: the count of rules needing flow dissection drops (never
    /// below 0) when the deleted rule needs it with the input device it has now, which
    /// may not be the one it was counted with.
    fn fldissect4_forget(&mut self, r: &Rule) {
        if self.fldissect4 > 0 && r.requires_fldissect() {
            self.fldissect4 -= 1;
        }
    }

    /// `fib_unmerge`, on the first IPv4 rule change: the local table's entries move out
    /// of the merged lookup into a table of their own, made anew (`fib_trie_unmerge`),
    /// so its count of default routes (`tb_num_default`) starts again from 0
    /// (conformance scenario 456).
    fn fib_unmerge4(&mut self) {
        if !self.custom_rules4 {
            if let Some(t) = self.tables4.get_mut(&tid::LOCAL) {
                t.num_default = 0;
            }
        }
        self.custom_rules4 = true;
    }

    /// `ip [-6] rule flush [SELECTOR]`: iproute2 picks the rules at `positions` of
    /// the family's list from one dump and sends each dumped message back as a delete
    /// (`flush_rule`). The kernel reads it as any delete (`rule_find`), whose partial
    /// compare takes the first rule carrying what the message names: an earlier rule
    /// of the same priority with more selectors (a mark, a TOS) and no `not` is
    /// deleted in place of the one listed. Every IPv4 delete flushes the route cache.
    pub fn rule_flush(&mut self, v6: bool, positions: &[usize]) -> Result<()> {
        let rules = if v6 { &self.rules6 } else { &self.rules4 };
        let msgs = dumped_deletes(rules, positions, v6);
        for spec in &msgs {
            let rules = if v6 { &self.rules6 } else { &self.rules4 };
            // a rule's own message always finds it or a rule before it, so a
            // one-part dump never meets ENOENT
            let Some(i) = Self::rule_find(rules, spec, false, v6) else {
                return Err(Error::new(Errno::ENOENT));
            };
            if !v6 {
                self.fldissect4_forget(&self.rules4[i].clone());
                self.fib_unmerge4();
                self.rt_cache_flush4();
            } else {
                self.fib6_sernum_bump();
            }
            let rules = if v6 {
                &mut self.rules6
            } else {
                &mut self.rules4
            };
            rules.remove(i);
            self.rules_resolve(v6);
            self.bump();
        }
        Ok(())
    }

    fn mrules_mut(&mut self, v6: bool) -> &mut Vec<Rule> {
        if v6 {
            &mut self.mrules6
        } else {
            &mut self.mrules4
        }
    }

    /// `ip [-6] mrule add`: a multicast routing rule (`RTNL_FAMILY_IPMR`/`IP6MR`),
    /// with the generic checks and priority choice of `ip rule add` and none of a
    /// unicast family's: any TOS is taken (and reported as 0), a table is not created.
    pub fn mrule_add(&mut self, v6: bool, spec: &RuleSpec) -> Result<()> {
        let rule = self.new_rule(self.mrules(v6), v6, spec, true)?;
        let rules = self.mrules_mut(v6);
        insert_by_pref(rules, rule);
        crate::netns::resolve_gotos(rules);
        self.bump();
        Ok(())
    }

    /// `ip [-6] mrule del`.
    pub fn mrule_del(&mut self, v6: bool, spec: &RuleSpec) -> Result<()> {
        Self::nl2rule_check(self.mrules(v6), v6, spec)?;
        let Some(i) = Self::rule_find(self.mrules(v6), spec, true, v6) else {
            return Err(Error::new(Errno::ENOENT));
        };
        let rules = self.mrules_mut(v6);
        rules.remove(i);
        crate::netns::resolve_gotos(rules);
        self.bump();
        Ok(())
    }

    /// `ip [-6] mrule flush`: as [`Netns::rule_flush`], on the multicast rules (whose
    /// family compare finds every rule equal in its selectors).
    pub fn mrule_flush(&mut self, v6: bool, positions: &[usize]) -> Result<()> {
        let msgs = dumped_deletes(self.mrules(v6), positions, v6);
        for spec in &msgs {
            let Some(i) = Self::rule_find(self.mrules(v6), spec, true, v6) else {
                return Err(Error::new(Errno::ENOENT));
            };
            let rules = self.mrules_mut(v6);
            rules.remove(i);
            crate::netns::resolve_gotos(rules);
            self.bump();
        }
        Ok(())
    }
}

/// The delete requests `flush_rule` sends: the dump messages of the rules at
/// `positions` (out of range ones ignored), read back as a delete is.
fn dumped_deletes(rules: &[Rule], positions: &[usize], v6: bool) -> Vec<RuleSpec> {
    rules
        .iter()
        .enumerate()
        .filter(|(i, _)| positions.contains(i))
        .map(|(_, r)| dump_message(r, v6))
        .collect()
}

/// What `fib_nl_fill_rule` (with the family's `fill`) puts in a rule's dump message,
/// as a request: the header's action, flags, protocol and prefix lengths, the table
/// and suppress_prefixlength always (-1 when unset), the rest only when set (a mark's
/// mask whenever the mark or the mask is).
fn dump_message(r: &Rule, v6: bool) -> RuleSpec {
    RuleSpec {
        pref: (r.pref != 0).then_some(r.pref),
        src: r.src,
        dst: r.dst,
        iif: r.iif.clone(),
        oif: r.oif.clone(),
        tos: Some(r.tos),
        mark: (r.mark != 0).then_some(r.mark),
        mask: (r.mark != 0 || r.mark_mask != 0).then_some(r.mark_mask),
        uid: r.uid,
        ipproto: Some(r.ipproto),
        sport: r.sport,
        dport: r.dport,
        invert: r.invert,
        action: Some(r.action),
        table: Some(r.table),
        suppress_prefixlen: Some(r.suppress_prefixlen),
        suppress_ifgroup: (r.suppress_ifgroup != -1).then_some(r.suppress_ifgroup),
        protocol: Some(r.protocol),
        // fib_nl_fill_rule puts FRA_GOTO whenever the rule has a target
        goto: match r.action {
            RuleAction::Goto(t) if t != 0 => Some(t),
            _ => None,
        },
        l3mdev: r.l3mdev,
        realms: (!v6 && r.realms != 0).then_some(r.realms),
        tun_id: (r.tun_id != 0).then_some(r.tun_id),
    }
}

/// Inserts `rule` after the rules of its priority or lower (`fib_nl_newrule`).
fn insert_by_pref(rules: &mut Vec<Rule>, rule: Rule) {
    let pos = rules
        .iter()
        .position(|r| r.pref > rule.pref)
        .unwrap_or(rules.len());
    rules.insert(pos, rule);
}
