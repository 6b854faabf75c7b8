//! The MPTCP in-kernel path manager's endpoints and limits (`net/mptcp/pm_kernel.c`
//! and `pm_netlink.c`, the `mptcp_pm` generic netlink family behind `ip mptcp`).
//!
//! An endpoint is a local address (with, for a `signal`-only endpoint, a port), an ID
//! of 1 to 255, flags and an optional device index. At most [`MAX_ENDPOINTS`] exist.
//! IDs are handed out from `next_id` upwards (the last ID taken, or the highest one
//! given), wrapping to 1 once the last one reaches 255. A `signal` endpoint with a
//! port also gets a listening socket bound to its address and port when it is added,
//! so the bind's refusals (a port in use, an IPv6 address the namespace does not have,
//! a link-local one without a device) refuse the endpoint.
//!
//! Dumps come in ID order (the kernel walks its ID bitmap), and so does
//! [`Netns::mptcp_endpoints`]. Lookups by address walk the kernel's list, where an
//! endpoint with a port is put first and any other last.
//!
//! The model carries no MPTCP connection, so nothing an endpoint change would do to
//! connections (announcements, subflows) happens.

use crate::error::{Errno, Error, Result};
use crate::netns::Netns;
use crate::prefix::v6;

/// `MPTCP_PM_ADDR_FLAG_*`.
pub mod flag {
    /// Announce the address to peers.
    pub const SIGNAL: u32 = 1;
    /// Open subflows from it.
    pub const SUBFLOW: u32 = 2;
    /// Subflows from it are backups.
    pub const BACKUP: u32 = 4;
    /// Subflows from it to every address the peer announced.
    pub const FULLMESH: u32 = 8;

    /// The flags `ip mptcp endpoint` names, in the order it prints them.
    pub const NAMED: [(&str, u32); 4] = [
        ("signal", SIGNAL),
        ("subflow", SUBFLOW),
        ("backup", BACKUP),
        ("fullmesh", FULLMESH),
    ];
}

/// `MPTCP_PM_ADDR_MAX`: the most endpoints, and the largest limit.
pub const MAX_ENDPOINTS: usize = 8;

/// `MPTCP_PM_MAX_ADDR_ID`.
const MAX_ID: u32 = 255;

/// An endpoint's address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MpAddr {
    /// `AF_INET`.
    V4(u32),
    /// `AF_INET6` (an IPv4-mapped address stays IPv6).
    V6(u128),
}

impl MpAddr {
    /// The IPv4 address an address stands for, if any (an IPv4-mapped IPv6 one too).
    fn v4(self) -> Option<u32> {
        match self {
            MpAddr::V4(a) => Some(a),
            MpAddr::V6(a) if a >> 32 == 0xffff => Some(a as u32),
            MpAddr::V6(_) => None,
        }
    }
}

/// `mptcp_addresses_equal`: the same address (an IPv4 one and its mapped IPv6 form
/// included), and the same port when `use_port`.
fn addresses_equal(a: MpAddr, ap: u16, b: MpAddr, bp: u16, use_port: bool) -> bool {
    let same = match (a, b) {
        (MpAddr::V6(x), MpAddr::V6(y)) => x == y,
        // one IPv4 address: the other one's if it is that address, mapped
        _ => matches!((a.v4(), b.v4()), (Some(x), Some(y)) if x == y),
    };
    same && (!use_port || ap == bp)
}

/// A path manager endpoint, and what an `MPTCP_PM_CMD_ADD_ADDR` request carries (an
/// ID of 0 asking for the next free one, a port dropped unless `signal` alone).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Endpoint {
    /// Its address.
    pub addr: MpAddr,
    /// Its port (0: none; only a `signal`-only endpoint keeps one).
    pub port: u16,
    /// Its ID (1-255).
    pub id: u8,
    /// Its [`flag`]s.
    pub flags: u32,
    /// The device index given with it (0: none); the kernel keeps it as given.
    pub ifindex: u32,
    /// Whether the listening socket of an IPv6 endpoint with a port is IPv6-only:
    /// `net.ipv6.bindv6only` when [`Netns::mptcp_add`] made it (what a request
    /// carries is not read).
    pub v6only: bool,
}

/// A network namespace's path manager state (`struct pm_nl_pernet`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mptcp {
    /// The endpoints in the kernel's list order.
    list: Vec<Endpoint>,
    /// Where the next ID search starts.
    next_id: u32,
    /// `add_addr_accept_max`.
    accept_max: u32,
    /// `subflows_max`.
    subflows_max: u32,
}

impl Default for Mptcp {
    /// `pm_nl_init_net`: two subflows, no accepted announcements, IDs from 1.
    fn default() -> Self {
        Mptcp {
            list: Vec::new(),
            next_id: 1,
            accept_max: 0,
            subflows_max: 2,
        }
    }
}

/// A listening socket as the bind conflict check sees it: the IPv6 address of an
/// IPv6 socket (`None` for an IPv4 one), its IPv4 receive address (the IPv4 address,
/// the one an IPv4-mapped address stands for, else 0; the kernel gives an IPv6 socket
/// bound to any other address `LOOPBACK4_IPV6`, which no check below reaches) and
/// whether it is IPv6-only (`net.ipv6.bindv6only` when it was made).
#[derive(Clone, Copy)]
struct Bound {
    v6: Option<u128>,
    v4: u32,
    v6only: bool,
}

impl Bound {
    fn of(a: MpAddr, v6only: bool) -> Bound {
        match a {
            MpAddr::V4(x) => Bound {
                v6: None,
                v4: x,
                v6only: false,
            },
            MpAddr::V6(x) => Bound {
                v6: Some(x),
                v4: if x >> 32 == 0xffff { x as u32 } else { 0 },
                v6only,
            },
        }
    }

    /// The address type of the socket's bind bucket (`inet_bind2_bucket_init`): an
    /// IPv4 socket's is its address mapped.
    fn bucket_type(self) -> u32 {
        self.v6.map_or(v6::MAPPED, v6::addr_type)
    }

    /// The bucket's IPv6 address: an IPv4 socket's address mapped.
    fn bucket_addr(self) -> u128 {
        self.v6.unwrap_or(0xffff_0000_0000 | u128::from(self.v4))
    }

    /// `inet_use_bhash2_on_bind` is false: the IPv4 or IPv6 wildcard, or the mapped
    /// IPv4 wildcard.
    fn wildcard(self) -> bool {
        match self.v6 {
            None => self.v4 == 0,
            Some(x) => x == 0 || (x >> 32 == 0xffff && self.v4 == 0),
        }
    }

    /// `inet_csk_bind_conflict` for binding `self` to a port `old` holds (no reuse
    /// options). A wildcard bind walks every owner of the port with
    /// `inet_rcv_saddr_equal(.., match_wildcard = true)`. Any other is checked against
    /// the wildcard buckets (`inet_bhash2_addr_any_conflict`) and its own address's
    /// bucket only (`inet_bind2_bucket_match`), where an IPv4 socket is keyed by its
    /// address mapped; an IPv4 bind, or an IPv4-mapped one, passes over IPv6-only
    /// owners (they take no IPv4 traffic).
    fn clashes(self, old: Bound) -> bool {
        if self.wildcard() {
            let Some(a6) = self.v6 else {
                // ipv4_rcv_saddr_equal with this side's wildcard
                return !old.v6only;
            };
            return self.v6_rcv_saddr_equal(a6, old);
        }
        if self.v6.is_none_or(|x| x >> 32 == 0xffff) && old.v6only {
            return false;
        }
        let t = old.bucket_type();
        // inet_bind2_bucket_match_addr_any: the IPv6 wildcard's bucket for anyone, the
        // IPv4 one for an IPv4 or mapped bind
        let any = t == v6::ANY
            || (t == v6::MAPPED && old.v4 == 0 && self.v6.is_none_or(|x| x >> 32 == 0xffff));
        let same = match self.v6 {
            Some(a6) => old.bucket_addr() == a6,
            None => t == v6::MAPPED && old.v4 == self.v4,
        };
        any || same
    }

    /// `ipv6_rcv_saddr_equal` (both wildcards matched) for an IPv6 bind.
    fn v6_rcv_saddr_equal(self, a6: u128, old: Bound) -> bool {
        let t1 = v6::addr_type(a6);
        let t2 = old.bucket_type();
        if t1 == v6::MAPPED && t2 == v6::MAPPED {
            return !old.v6only && (self.v4 == old.v4 || self.v4 == 0 || old.v4 == 0);
        }
        if t1 == v6::ANY && t2 == v6::ANY {
            return true;
        }
        if t2 == v6::ANY && !(old.v6only && t1 == v6::MAPPED) {
            return true;
        }
        if t1 == v6::ANY && !(self.v6only && t2 == v6::MAPPED) {
            return true;
        }
        old.v6 == Some(a6)
    }
}

impl Netns {
    /// `net.ipv4.ip_nonlocal_bind` / `net.ipv6.ip_nonlocal_bind` (`fam`), kept with
    /// the sysctls the model does not otherwise read.
    fn nonlocal_bind(&self, fam: &str) -> bool {
        self.sysctl
            .other
            .get(&format!("net.{fam}.ip_nonlocal_bind"))
            .and_then(|v| crate::sysctl::parse_long(v))
            .is_some_and(|v| v != 0)
    }

    /// The path manager's endpoints, by ID.
    pub fn mptcp_endpoints(&self) -> Vec<&Endpoint> {
        let mut v: Vec<&Endpoint> = self.mptcp.list.iter().collect();
        v.sort_by_key(|e| e.id);
        v
    }

    /// The endpoint of an ID (`mptcp_pm_nl_get_addr`; ID 0 is never one).
    pub fn mptcp_endpoint(&self, id: u8) -> Option<&Endpoint> {
        self.mptcp.list.iter().find(|e| e.id == id)
    }

    /// The limits: (`add_addr_accepted`, `subflows`).
    pub fn mptcp_limits(&self) -> (u32, u32) {
        (self.mptcp.accept_max, self.mptcp.subflows_max)
    }

    /// `MPTCP_PM_CMD_SET_LIMITS` (`mptcp_pm_nl_set_limits_doit`): each limit given at
    /// most [`MAX_ENDPOINTS`], checked in turn before either is set.
    pub fn mptcp_set_limits(&mut self, accept: Option<u32>, subflows: Option<u32>) -> Result<()> {
        for v in [accept, subflows].into_iter().flatten() {
            if v as usize > MAX_ENDPOINTS {
                return Err(Error::msg(Errno::EINVAL, "limit greater than maximum (8)"));
            }
        }
        if let Some(a) = accept {
            self.mptcp.accept_max = a;
        }
        if let Some(s) = subflows {
            self.mptcp.subflows_max = s;
        }
        Ok(())
    }

    /// The bind of a `signal` endpoint's listening socket
    /// (`mptcp_pm_nl_create_listen_socket`, then `__inet_bind`/`__inet6_bind`): an
    /// IPv6 address needing a scope is EINVAL (the socket has no device); an address
    /// the namespace does not have is EADDRNOTAVAIL unless `ip_nonlocal_bind` allows
    /// it (IPv4: one whose local-table route is not local, broadcast or multicast,
    /// while a local table exists; IPv6: no non-tentative address of any device; a
    /// mapped address is IPv4's case); a port an endpoint's socket holds for a
    /// clashing address is EADDRINUSE.
    fn mptcp_listen(&self, addr: MpAddr, port: u16, v6only: bool) -> Result<()> {
        use crate::addr::ifa;
        use crate::route::RouteType;
        const EINVAL: Error = Error::msg(Errno::EINVAL, "create listen socket error: -22");
        const EADDRNOTAVAIL: Error =
            Error::msg(Errno::EADDRNOTAVAIL, "create listen socket error: -99");
        const EADDRINUSE: Error = Error::msg(Errno::EADDRINUSE, "create listen socket error: -98");
        let v4_ok = |a: u32| {
            a == 0
                || self.nonlocal_bind("ipv4")
                || matches!(
                    self.addr_type4_dev(a),
                    RouteType::Local | RouteType::Broadcast | RouteType::Multicast
                )
        };
        match addr {
            MpAddr::V4(a) => {
                if !v4_ok(a) {
                    return Err(EADDRNOTAVAIL);
                }
            }
            MpAddr::V6(a) => {
                let t = v6::addr_type(a);
                if t & v6::MAPPED != 0 {
                    // __inet6_bind: a mapped address on an IPv6-only socket
                    if v6only {
                        return Err(EINVAL);
                    }
                    if !v4_ok(a as u32) {
                        return Err(EADDRNOTAVAIL);
                    }
                } else if t != v6::ANY {
                    // __ipv6_addr_needs_scope_id: link-local unicast, interface- and
                    // link-local multicast
                    let needs_scope = t & v6::LINKLOCAL != 0
                        || (t & v6::MULTICAST != 0 && t & (v6::LOOPBACK | v6::LINKLOCAL) != 0);
                    if needs_scope {
                        return Err(EINVAL);
                    }
                    // ipv6_chk_addr(net, addr, NULL, 0): any device, not tentative
                    let have = self.addrs6.values().flatten().any(|x| {
                        x.addr == a
                            && (x.flags & ifa::TENTATIVE == 0 || x.flags & ifa::OPTIMISTIC != 0)
                    });
                    if t & v6::MULTICAST == 0 && !have && !self.nonlocal_bind("ipv6") {
                        return Err(EADDRNOTAVAIL);
                    }
                }
            }
        }
        let new = Bound::of(addr, v6only);
        let taken = self
            .mptcp
            .list
            .iter()
            .filter(|e| e.port == port)
            .any(|e| new.clashes(Bound::of(e.addr, e.v6only)));
        if taken {
            return Err(EADDRINUSE);
        }
        Ok(())
    }

    /// `MPTCP_PM_CMD_ADD_ADDR` (`mptcp_pm_nl_add_addr_doit`): the flag checks, the
    /// listening socket of a port, then `mptcp_pm_nl_append_new_local_addr`'s (ERANGE
    /// when [`MAX_ENDPOINTS`] exist, EBUSY for an ID in use, EEXIST for an address
    /// an endpoint has, compared with the ports when either has one). An ID of 0 asks
    /// for the next free one. In restore mode ([`Netns::set_restore_mode`]) the
    /// listening socket's bind is not checked (the kernel's endpoint keeps its socket
    /// after its address went).
    pub fn mptcp_add(&mut self, req: &Endpoint) -> Result<()> {
        let use_port = req.flags & (flag::SIGNAL | flag::SUBFLOW) == flag::SIGNAL;
        if req.port != 0 && !use_port {
            return Err(Error::msg(
                Errno::EINVAL,
                "flags must have signal and not subflow when using port",
            ));
        }
        if req.flags & flag::SIGNAL != 0 && req.flags & flag::FULLMESH != 0 {
            return Err(Error::msg(
                Errno::EINVAL,
                "flags mustn't have both signal and fullmesh",
            ));
        }
        // the socket is IPv6-only as inet6_create makes it: bindv6only's value now
        let v6only = req.port != 0
            && matches!(req.addr, MpAddr::V6(_))
            && self
                .sysctl
                .other_long("net.ipv6.bindv6only")
                .is_some_and(|v| v != 0);
        // in restore mode (a mirror rebuilding the kernel's endpoints) the socket is
        // taken to be bound as the kernel has it: the address may have gone since
        if req.port != 0 && !self.restore_mode {
            self.mptcp_listen(req.addr, req.port, v6only)?;
        }
        let pm = &mut self.mptcp;
        if pm.next_id == MAX_ID {
            pm.next_id = 1;
        }
        if pm.list.len() >= MAX_ENDPOINTS {
            return Err(Error::msg(
                Errno::ERANGE,
                "too many addresses or duplicate one: -34",
            ));
        }
        if req.id != 0 && pm.list.iter().any(|e| e.id == req.id) {
            return Err(Error::msg(
                Errno::EBUSY,
                "too many addresses or duplicate one: -16",
            ));
        }
        let port = if use_port { req.port } else { 0 };
        let dup = pm
            .list
            .iter()
            .any(|e| addresses_equal(e.addr, e.port, req.addr, port, e.port != 0 || port != 0));
        if dup {
            return Err(Error::msg(
                Errno::EEXIST,
                "too many addresses or duplicate one: -17",
            ));
        }
        let mut id = u32::from(req.id);
        if id == 0 {
            let free = |from: u32| {
                (from..=MAX_ID).find(|&i| !pm.list.iter().any(|e| u32::from(e.id) == i))
            };
            id = match free(pm.next_id) {
                Some(i) => i,
                None if pm.next_id != 1 => {
                    pm.next_id = 1;
                    free(1).unwrap_or(0)
                }
                None => 0,
            };
            if id == 0 {
                return Err(Error::msg(
                    Errno::EINVAL,
                    "too many addresses or duplicate one: -22",
                ));
            }
        }
        if id > pm.next_id {
            pm.next_id = id;
        }
        let e = Endpoint {
            addr: req.addr,
            port,
            id: id as u8,
            flags: req.flags,
            ifindex: req.ifindex,
            v6only,
        };
        if port == 0 {
            pm.list.push(e);
        } else {
            pm.list.insert(0, e);
        }
        Ok(())
    }

    /// `MPTCP_PM_CMD_DEL_ADDR` (`mptcp_pm_nl_del_addr_doit`): ID 0 stands for the
    /// first address of each connection, of which there are none here (success, no
    /// change); any other ID must be an endpoint's.
    pub fn mptcp_del(&mut self, id: u8) -> Result<()> {
        if id == 0 {
            return Ok(());
        }
        let i = self
            .mptcp
            .list
            .iter()
            .position(|e| e.id == id)
            .ok_or(Error::msg(Errno::EINVAL, "address not found"))?;
        self.mptcp.list.remove(i);
        Ok(())
    }

    /// `MPTCP_PM_CMD_SET_FLAGS` (`mptcp_pm_nl_set_flags`): the endpoint of the address
    /// (its port compared when the endpoint has one) or, with no address, of the ID
    /// (EOPNOTSUPP for none); `fullmesh` is refused on a `signal` endpoint. Only the
    /// `backup` and `fullmesh` bits change.
    pub fn mptcp_set_flags(
        &mut self,
        addr: Option<(MpAddr, u16)>,
        id: u8,
        flags: u32,
    ) -> Result<()> {
        let found = match addr {
            None => {
                if id == 0 {
                    return Err(Error::msg(Errno::EOPNOTSUPP, "missing address ID"));
                }
                self.mptcp.list.iter().position(|e| e.id == id)
            }
            Some((a, p)) => self
                .mptcp
                .list
                .iter()
                .position(|e| addresses_equal(e.addr, e.port, a, p, e.port != 0)),
        };
        let i = found.ok_or(Error::msg(Errno::EINVAL, "address not found"))?;
        let e = &mut self.mptcp.list[i];
        if flags & flag::FULLMESH != 0 && e.flags & flag::SIGNAL != 0 {
            return Err(Error::msg(Errno::EINVAL, "invalid addr flags"));
        }
        let mask = flag::BACKUP | flag::FULLMESH;
        e.flags = (e.flags & !mask) | (flags & mask);
        Ok(())
    }

    /// `MPTCP_PM_CMD_FLUSH_ADDRS`: every endpoint goes (their sockets with them) and
    /// IDs start again from 1; the limits stay.
    pub fn mptcp_flush(&mut self) {
        self.mptcp.list.clear();
        self.mptcp.next_id = 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ep(addr: MpAddr, id: u8, flags: u32, port: u16) -> Endpoint {
        Endpoint {
            addr,
            port,
            id,
            flags,
            ifindex: 0,
            v6only: false,
        }
    }

    #[test]
    fn ids_follow_the_highest_and_wrap() {
        let mut ns = Netns::new();
        ns.mptcp_add(&ep(MpAddr::V4(1), 254, 0, 0)).unwrap();
        ns.mptcp_add(&ep(MpAddr::V4(2), 0, 0, 0)).unwrap();
        ns.mptcp_add(&ep(MpAddr::V4(3), 0, 0, 0)).unwrap();
        let ids: Vec<u8> = ns.mptcp_endpoints().iter().map(|e| e.id).collect();
        assert_eq!(ids, vec![1, 254, 255]);
        assert_eq!(
            ns.mptcp_add(&ep(MpAddr::V4(4), 255, 0, 0))
                .unwrap_err()
                .errno,
            Errno::EBUSY
        );
    }

    #[test]
    fn mapped_addresses_are_their_ipv4_ones() {
        let mut ns = Netns::new();
        ns.mptcp_add(&ep(MpAddr::V6(0xffff_0a00_0009), 0, flag::SUBFLOW, 0))
            .unwrap();
        let e = ns
            .mptcp_add(&ep(MpAddr::V4(0x0a00_0009), 0, 0, 0))
            .unwrap_err();
        assert_eq!(e.errno, Errno::EEXIST);
    }

    #[test]
    fn listening_sockets_clash_on_wildcards() {
        let mut ns = Netns::new();
        ns.mptcp_add(&ep(MpAddr::V4(0), 0, flag::SIGNAL, 1000))
            .unwrap();
        let e = ns
            .mptcp_add(&ep(MpAddr::V6(0), 0, flag::SIGNAL, 1000))
            .unwrap_err();
        assert_eq!(e.errno, Errno::EADDRINUSE);
        // a local address of its own (127.0.0.5, lo's /8) does not clash
        ns.mptcp_add(&ep(MpAddr::V4(0x7f00_0005), 0, flag::SIGNAL, 1001))
            .unwrap();
        // a global IPv6 address the namespace lacks
        let e = ns
            .mptcp_add(&ep(MpAddr::V6(0x2001_0db8 << 96), 0, flag::SIGNAL, 1002))
            .unwrap_err();
        assert_eq!(e.errno, Errno::EADDRNOTAVAIL);
    }

    #[test]
    fn restore_mode_takes_a_listening_socket_as_bound() {
        let mut ns = Netns::new();
        let gone = ep(MpAddr::V4(0xc000_0201), 4, flag::SIGNAL, 4000);
        assert_eq!(ns.mptcp_add(&gone).unwrap_err().errno, Errno::EADDRNOTAVAIL);
        let was = ns.set_restore_mode(true);
        ns.mptcp_add(&gone).unwrap();
        ns.set_restore_mode(was);
        assert_eq!(ns.mptcp_endpoint(4).map(|e| e.port), Some(4000));
    }

    #[test]
    fn limits_are_checked_before_either_is_set() {
        let mut ns = Netns::new();
        assert!(ns.mptcp_set_limits(Some(3), Some(9)).is_err());
        assert_eq!(ns.mptcp_limits(), (0, 2));
        ns.mptcp_set_limits(None, Some(8)).unwrap();
        ns.mptcp_flush();
        assert_eq!(ns.mptcp_limits(), (0, 8));
    }
}
