//! The IPsec security policy database (`net/xfrm/xfrm_policy.c` and the netlink side in
//! `net/xfrm/xfrm_user.c`, behind `ip xfrm policy`), without any packet processing.
//!
//! What the model keeps of the kernel:
//!
//! * the order of a dump: `xfrm_policy_walk` follows `net->xfrm.policy_all`, where
//!   `__xfrm_policy_link` puts every policy inserted (a new one or one replacing
//!   another through `update`) at the head, so dumps list the newest first;
//! * index numbering (`xfrm_gen_index`): an index asked for is taken when no policy
//!   has it, else (and when none is asked for) the generator gives `gen | dir` and
//!   steps by 8, an index of 0 becoming 8; a policy replacing another keeps its index;
//! * what makes two policies the same (`xfrm_policy_insert_list`): direction, type,
//!   `if_id`, the whole selector, the mark (its value kept under its mask) and the
//!   security context;
//!   `add` refuses such a policy with EEXIST, `update` replaces it;
//! * the checks of `verify_newpolicy_info`, `verify_policy_type` and `validate_tmpl`,
//!   with their extack messages, in the kernel's order;
//! * lookups by index or by selector for `get`/`delete` (`xfrm_policy_byid`,
//!   `xfrm_policy_bysel_ctx`), flushes by type, per-direction counts, the hash
//!   thresholds and the default actions.
//!
//! Not modelled: lifetimes running out (a policy's `limit time-hard` never expires
//! it), use times, socket policies and the hash tables' sizes. Security contexts are
//! dropped as this kernel drops them (no LSM with xfrm hooks), so a `ctx` changes
//! nothing. The SA database has no entries here: the kernel this is recorded against
//! has no ESP/AH/IPcomp types, so it makes no state (`ip xfrm state add` fails), and
//! the model keeps none.

use crate::error::{Errno, Error, Result};
use crate::netns::Netns;

/// `AF_INET`.
pub const AF_INET: u16 = 2;
/// `AF_INET6`.
pub const AF_INET6: u16 = 10;

/// `XFRM_POLICY_IN`, `_OUT`, `_FWD`.
pub const DIR_IN: u8 = 0;
/// Outbound.
pub const DIR_OUT: u8 = 1;
/// Forwarded.
pub const DIR_FWD: u8 = 2;
/// `XFRM_POLICY_MAX`: directions at or above it are socket policies.
pub const DIR_MAX: u8 = 3;

/// `XFRM_POLICY_TYPE_MAIN` / `_SUB`.
pub const TYPE_MAIN: u8 = 0;
/// The sub policy type (`CONFIG_XFRM_SUB_POLICY` is built in).
pub const TYPE_SUB: u8 = 1;

/// `XFRM_POLICY_ALLOW` / `_BLOCK`.
pub const ACTION_ALLOW: u8 = 0;
/// Blocking action.
pub const ACTION_BLOCK: u8 = 1;

/// `XFRM_MODE_*` of a template.
pub mod mode {
    /// Transport mode.
    pub const TRANSPORT: u8 = 0;
    /// Tunnel mode.
    pub const TUNNEL: u8 = 1;
    /// Route optimization (Mobile IPv6).
    pub const RO: u8 = 2;
    /// Inbound trigger.
    pub const IN_TRIGGER: u8 = 3;
    /// Bound end-to-end tunnel.
    pub const BEET: u8 = 4;
    /// `XFRM_MODE_MAX` of this kernel (IP-TFS is 5).
    pub const MAX: u8 = 6;
}

/// `XFRM_USERPOLICY_BLOCK` / `_ACCEPT` (the default actions).
pub const USERPOLICY_BLOCK: u8 = 1;
/// Accept by default.
pub const USERPOLICY_ACCEPT: u8 = 2;

/// `struct xfrm_selector`, as the kernel stores it (addresses as 16 raw bytes,
/// ports in network byte order as iproute2 sends them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Selector {
    /// Destination address.
    pub daddr: [u8; 16],
    /// Source address.
    pub saddr: [u8; 16],
    /// Destination port (or ICMP code, GRE key low half).
    pub dport: u16,
    /// Its mask.
    pub dport_mask: u16,
    /// Source port (or ICMP type, GRE key high half).
    pub sport: u16,
    /// Its mask.
    pub sport_mask: u16,
    /// Address family.
    pub family: u16,
    /// Destination prefix length.
    pub prefixlen_d: u8,
    /// Source prefix length.
    pub prefixlen_s: u8,
    /// Upper-layer protocol (0: any).
    pub proto: u8,
    /// Device index (0: any).
    pub ifindex: i32,
    /// User id.
    pub user: u32,
}

/// `struct xfrm_user_tmpl`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Template {
    /// Destination address of the SA.
    pub daddr: [u8; 16],
    /// SPI, network byte order as a number.
    pub spi: u32,
    /// IPsec protocol (ESP 50, AH 51, IPcomp 108, routing 43, dstopts 60).
    pub proto: u8,
    /// Family of the addresses (0: the policy's).
    pub family: u16,
    /// Source address.
    pub saddr: [u8; 16],
    /// Request id.
    pub reqid: u32,
    /// Mode (`mode::*`).
    pub mode: u8,
    /// Share.
    pub share: u8,
    /// `level use` (1) or `required` (0).
    pub optional: u8,
    /// Allowed authentication algorithms.
    pub aalgos: u32,
    /// Allowed encryption algorithms.
    pub ealgos: u32,
    /// Allowed compression algorithms.
    pub calgos: u32,
}

/// `struct xfrm_lifetime_cfg`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LifetimeCfg {
    /// Soft byte limit.
    pub soft_byte_limit: u64,
    /// Hard byte limit.
    pub hard_byte_limit: u64,
    /// Soft packet limit.
    pub soft_packet_limit: u64,
    /// Hard packet limit.
    pub hard_packet_limit: u64,
    /// Soft expiry after adding, seconds.
    pub soft_add_expires_seconds: u64,
    /// Hard expiry after adding, seconds.
    pub hard_add_expires_seconds: u64,
    /// Soft expiry after use, seconds.
    pub soft_use_expires_seconds: u64,
    /// Hard expiry after use, seconds.
    pub hard_use_expires_seconds: u64,
}

/// One security policy (`struct xfrm_userpolicy_info` plus its attributes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Policy {
    /// The selector.
    pub sel: Selector,
    /// Lifetime limits as configured.
    pub lft: LifetimeCfg,
    /// Priority.
    pub priority: u32,
    /// Index (assigned at insertion).
    pub index: u32,
    /// Direction.
    pub dir: u8,
    /// Action.
    pub action: u8,
    /// Flags (`localok` 1, `icmp` 2).
    pub flags: u8,
    /// Share.
    pub share: u8,
    /// Type (main or sub).
    pub ptype: u8,
    /// Mark value and mask.
    pub mark: (u32, u32),
    /// XFRM interface id.
    pub if_id: u32,
    /// Templates.
    pub tmpls: Vec<Template>,
    /// When it was inserted (wall-clock seconds, as given by the caller).
    pub add_time: u64,
}

/// What a `get`/`delete` names a policy by (`struct xfrm_userpolicy_id` and its
/// attributes).
#[derive(Clone, Copy, Debug)]
pub struct PolicyId {
    /// The selector (used when `index` is 0).
    pub sel: Selector,
    /// The index (0: by selector).
    pub index: u32,
    /// Direction.
    pub dir: u8,
    /// Type.
    pub ptype: u8,
    /// Mark value and mask (0/0 when none was sent).
    pub mark: (u32, u32),
    /// Interface id.
    pub if_id: u32,
}

/// The per-namespace xfrm state.
#[derive(Clone, Debug)]
pub struct Xfrm {
    /// `policy_all`: the newest first.
    policies: Vec<Policy>,
    /// `idx_generator`.
    idx_generator: u32,
    /// Default actions for in, fwd, out.
    defaults: [u8; 3],
    /// `hthresh4` local and remote bits.
    pub hthresh4: (u8, u8),
    /// `hthresh6` local and remote bits.
    pub hthresh6: (u8, u8),
    /// The hash masks of the per-direction `bydst` tables.
    bydst_hmask: [u32; 3],
    /// `policy_idx_hmask` (what `ip -s -s xfrm policy count` reports as buckets).
    idx_hmask: u32,
}

impl Default for Xfrm {
    fn default() -> Self {
        Xfrm {
            policies: Vec::new(),
            idx_generator: 0,
            defaults: [USERPOLICY_ACCEPT; 3],
            hthresh4: (32, 32),
            hthresh6: (128, 128),
            bydst_hmask: [7; 3],
            idx_hmask: 7,
        }
    }
}

/// `xfrm_policy_hashmax`.
const HASH_MAX: u32 = 1024 * 1024;

/// `XFRM_MAX_DEPTH`.
pub const MAX_DEPTH: usize = 6;

fn einval(m: &'static str) -> Error {
    Error::msg(Errno::EINVAL, m)
}

/// `xfrm_id_proto_valid` (IPv6 built in).
fn id_proto_valid(p: u8) -> bool {
    matches!(p, 50 | 51 | 108 | 43 | 60)
}

impl Xfrm {
    /// The policies in dump order (newest first).
    pub fn policies(&self) -> &[Policy] {
        &self.policies
    }

    /// Per-direction counts (in, out, fwd) of policies of both types.
    pub fn counts(&self) -> [u32; 3] {
        let mut c = [0u32; 3];
        for p in &self.policies {
            if let Some(x) = c.get_mut(usize::from(p.dir)) {
                *x += 1;
            }
        }
        c
    }

    /// `policy_idx_hmask`.
    pub fn idx_hmask(&self) -> u32 {
        self.idx_hmask
    }

    /// `xfrm_hash_resize`, which an insert schedules when its direction's table holds
    /// more policies than its mask (run at once here): each direction's table over
    /// its mask and the index table (against all policies) double once.
    fn hash_resize(&mut self) {
        let c = self.counts();
        for (m, n) in self.bydst_hmask.iter_mut().zip(c) {
            if n > *m && *m + 1 < HASH_MAX {
                *m = *m * 2 + 1;
            }
        }
        let total: u32 = c.iter().sum();
        if total > self.idx_hmask && self.idx_hmask + 1 < HASH_MAX {
            self.idx_hmask = self.idx_hmask * 2 + 1;
        }
    }

    /// Default actions (in, fwd, out).
    pub fn defaults(&self) -> [u8; 3] {
        self.defaults
    }

    /// `xfrm_set_default`: a value other than block or accept leaves that direction
    /// as it is.
    pub fn set_defaults(&mut self, v: [u8; 3]) {
        for (d, x) in self.defaults.iter_mut().zip(v) {
            if x == USERPOLICY_BLOCK || x == USERPOLICY_ACCEPT {
                *d = x;
            }
        }
    }

    /// `xfrm_gen_index`.
    fn gen_index(&mut self, dir: u8, mut want: u32) -> u32 {
        loop {
            let mut idx = if want == 0 {
                let i = self.idx_generator | u32::from(dir);
                self.idx_generator = self.idx_generator.wrapping_add(8);
                i
            } else {
                let i = want;
                want = 0;
                i
            };
            if idx == 0 {
                idx = 8;
            }
            if !self.policies.iter().any(|p| p.index == idx) {
                return idx;
            }
        }
    }

    /// `xfrm_add_policy` (`excl`: `add`; else `update`): the checks of
    /// `verify_newpolicy_info`, `xfrm_policy_construct` and `xfrm_policy_insert`.
    pub fn insert(&mut self, mut p: Policy, excl: bool) -> Result<u32> {
        if p.share > 3 {
            return Err(einval("Invalid policy share"));
        }
        if p.action > ACTION_BLOCK {
            return Err(einval("Invalid policy action"));
        }
        match p.sel.family {
            AF_INET => {
                if p.sel.prefixlen_d > 32 || p.sel.prefixlen_s > 32 {
                    return Err(einval(
                        "Invalid prefix length in selector (must be <= 32 for IPv4)",
                    ));
                }
            }
            AF_INET6 => {
                if p.sel.prefixlen_d > 128 || p.sel.prefixlen_s > 128 {
                    return Err(einval(
                        "Invalid prefix length in selector (must be <= 128 for IPv6)",
                    ));
                }
            }
            _ => return Err(einval("Invalid selector family")),
        }
        if p.dir >= DIR_MAX {
            return Err(einval("Invalid policy direction"));
        }
        if p.index != 0 && (p.index & 7) as u8 != p.dir {
            return Err(einval("Policy index doesn't match direction"));
        }
        if p.ptype > TYPE_SUB {
            return Err(einval("Invalid policy type"));
        }
        validate_tmpls(&mut p.tmpls, p.sel.family, p.dir)?;
        // xfrm_policy_construct keeps the mark's value under its mask only (a lookup's
        // mark is compared as sent)
        p.mark.0 &= p.mark.1;
        let same = self.policies.iter().position(|q| {
            q.dir == p.dir
                && q.ptype == p.ptype
                && q.if_id == p.if_id
                && q.sel == p.sel
                && q.mark == p.mark
        });
        if same.is_some() && excl {
            return Err(Error::new(Errno::EEXIST));
        }
        let old = same.map(|i| self.policies.remove(i).index);
        let new = old.is_none();
        p.index = match old {
            Some(i) => i,
            None => self.gen_index(p.dir, p.index),
        };
        let idx = p.index;
        let dir = usize::from(p.dir);
        self.policies.insert(0, p);
        if new && self.counts()[dir] > self.bydst_hmask[dir] {
            self.hash_resize();
        }
        Ok(idx)
    }

    /// `xfrm_get_policy`: the policy a `get` (or a `delete`, which then removes it)
    /// names. ENOENT when there is none.
    pub fn lookup(&mut self, id: &PolicyId, delete: bool) -> Result<Policy> {
        if id.ptype > TYPE_SUB {
            return Err(einval("Invalid policy type"));
        }
        if id.dir >= DIR_MAX {
            return Err(einval("Invalid policy direction"));
        }
        let pos = if id.index != 0 {
            if (id.index & 7) as u8 != id.dir {
                return Err(Error::new(Errno::ENOENT));
            }
            self.policies.iter().position(|q| {
                q.ptype == id.ptype
                    && q.index == id.index
                    && q.if_id == id.if_id
                    && q.mark == id.mark
            })
        } else {
            self.policies.iter().position(|q| {
                q.dir == id.dir
                    && q.ptype == id.ptype
                    && q.if_id == id.if_id
                    && q.sel == id.sel
                    && q.mark == id.mark
            })
        };
        let i = pos.ok_or(Error::new(Errno::ENOENT))?;
        Ok(if delete {
            self.policies.remove(i)
        } else {
            self.policies[i].clone()
        })
    }

    /// `xfrm_policy_flush` of one type (an empty table is no error).
    pub fn flush(&mut self, ptype: u8) -> Result<()> {
        if ptype > TYPE_SUB {
            return Err(einval("Invalid policy type"));
        }
        self.policies.retain(|p| p.ptype != ptype);
        Ok(())
    }
}

/// `validate_tmpl`: the templates' count, modes and families, in the kernel's order;
/// a template without a family takes the policy's.
fn validate_tmpls(t: &mut [Template], family: u16, dir: u8) -> Result<()> {
    if t.len() > MAX_DEPTH {
        return Err(einval("Template count must be <= XFRM_MAX_DEPTH (6)"));
    }
    let mut prev = family;
    for u in t.iter_mut() {
        if u.family == 0 {
            u.family = family;
        }
        match u.mode {
            mode::TUNNEL | mode::BEET => {
                if u.optional != 0 && dir == DIR_OUT {
                    return Err(einval(
                        "Mode in optional template not allowed in outbound policy",
                    ));
                }
            }
            5 => {}
            _ => {
                if u.family != prev {
                    return Err(einval("Mode in template doesn't support a family change"));
                }
            }
        }
        if u.mode >= mode::MAX {
            return Err(einval("Mode in template must be < XFRM_MODE_MAX (6)"));
        }
        prev = u.family;
        if u.family != AF_INET && u.family != AF_INET6 {
            return Err(einval("Invalid family in template"));
        }
        if !id_proto_valid(u.proto) {
            return Err(einval("Invalid XFRM protocol in template"));
        }
    }
    Ok(())
}

impl Netns {
    /// The xfrm state (`ip xfrm`).
    pub fn xfrm(&self) -> &Xfrm {
        &self.xfrm
    }

    /// The xfrm state, to change it.
    pub fn xfrm_mut(&mut self) -> &mut Xfrm {
        &mut self.xfrm
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pol(dir: u8, s: u8) -> Policy {
        let mut sel = Selector {
            family: AF_INET,
            prefixlen_s: 24,
            ..Default::default()
        };
        sel.saddr[..4].copy_from_slice(&[10, 0, s, 0]);
        Policy {
            sel,
            lft: LifetimeCfg::default(),
            priority: 0,
            index: 0,
            dir,
            action: ACTION_ALLOW,
            flags: 0,
            share: 0,
            ptype: TYPE_MAIN,
            mark: (0, 0),
            if_id: 0,
            tmpls: Vec::new(),
            add_time: 0,
        }
    }

    #[test]
    fn indexes_and_order() {
        let mut x = Xfrm::default();
        assert_eq!(x.insert(pol(DIR_OUT, 1), true).unwrap(), 1);
        assert_eq!(x.insert(pol(DIR_IN, 1), true).unwrap(), 8);
        // an index in use falls back to the generator
        let mut p = pol(DIR_OUT, 2);
        p.index = 1;
        assert_eq!(x.insert(p, true).unwrap(), 17);
        assert_eq!(
            x.insert(pol(DIR_OUT, 1), true).unwrap_err().errno,
            Errno::EEXIST
        );
        // update keeps the index and moves the policy to the head
        let mut u = pol(DIR_OUT, 1);
        u.priority = 7;
        assert_eq!(x.insert(u, false).unwrap(), 1);
        assert_eq!(x.policies()[0].priority, 7);
        assert_eq!(x.policies().len(), 3);
    }
}
