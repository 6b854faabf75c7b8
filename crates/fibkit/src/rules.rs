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
        let rules = if v6 { &self.rules6 } else { &self.rules4 };
        let pref = spec.pref.unwrap_or_else(|| {
            if rules.len() >= 2 && rules[1].pref != 0 {
                rules[1].pref - 1
            } else {
                0
            }
        });
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
        if rule.realms != 0 {
            self.realms4_seen = true;
        }
        // fib_nl2rule checks
        if let Some(t) = spec.goto {
            if !matches!(action, RuleAction::Goto(_)) {
                return Err(einval("Unexpected goto"));
            }
            if t <= pref {
                return Err(einval("Backward goto not supported"));
            }
            rule.action = RuleAction::Goto(t);
        } else if matches!(action, RuleAction::Goto(_)) && spec.goto.is_none() {
            if let RuleAction::Goto(t) = action {
                if t <= pref {
                    return Err(einval("Backward goto not supported"));
                }
            }
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
        // rule_exists (NLM_F_EXCL)
        let rules = if v6 { &self.rules6 } else { &self.rules4 };
        if rules.iter().any(|r| r.blocks_add_of(&rule)) {
            return Err(Error::new(Errno::EEXIST));
        }
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
        let rules = if v6 {
            self.custom_rules6 = true;
            &mut self.rules6
        } else {
            self.custom_rules4 = true;
            &mut self.rules4
        };
        let pos = rules
            .iter()
            .position(|r| r.pref > rule.pref)
            .unwrap_or(rules.len());
        rules.insert(pos, rule);
        self.rules_resolve(v6);
        if !v6 {
            self.rt_cache_flush4();
        }
        self.bump();
        Ok(())
    }

    /// `rule_find`: the first rule a delete request selects.
    fn rule_find(&self, v6: bool, spec: &RuleSpec) -> Option<usize> {
        let rules = if v6 { &self.rules6 } else { &self.rules4 };
        rules.iter().position(|r| {
            if let Some(a) = spec.action {
                let same_kind = std::mem::discriminant(&a) == std::mem::discriminant(&r.action);
                if !same_kind {
                    return false;
                }
                if let (RuleAction::Goto(x), RuleAction::Goto(y)) = (a, r.action) {
                    if x != y && spec.goto.is_some() {
                        return false;
                    }
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
            if let Some(m) = spec.mask {
                if m != 0 && r.mark_mask != m {
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
            // family compare
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
            true
        })
    }

    /// `ip [-6] rule del`.
    pub fn rule_del(&mut self, v6: bool, spec: &RuleSpec) -> Result<()> {
        let Some(i) = self.rule_find(v6, spec) else {
            return Err(Error::new(Errno::ENOENT));
        };
        let rules = if v6 {
            &mut self.rules6
        } else {
            self.custom_rules4 = true;
            &mut self.rules4
        };
        rules.remove(i);
        self.rules_resolve(v6);
        if !v6 {
            self.rt_cache_flush4();
        }
        self.bump();
        Ok(())
    }

    /// `ip [-6] rule flush [SELECTOR]`: delete the rules at the given positions of the
    /// family's list (iproute2 picks them from one dump and deletes each; positions
    /// out of range are ignored). Every IPv4 delete flushes the route cache.
    pub fn rule_flush(&mut self, v6: bool, positions: &[usize]) -> Result<()> {
        let rules = if v6 {
            &mut self.rules6
        } else {
            &mut self.rules4
        };
        let before = rules.len();
        let mut i = 0;
        rules.retain(|_| {
            i += 1;
            !positions.contains(&(i - 1))
        });
        if rules.len() == before {
            return Ok(());
        }
        if !v6 {
            self.custom_rules4 = true;
            self.rt_cache_flush4();
        }
        self.rules_resolve(v6);
        self.bump();
        Ok(())
    }
}
