//! # fibkit: the Linux kernel's IP routing decision, as a library
//!
//! fibkit models one Linux network namespace's routing state and answers route lookups
//! exactly as the kernel does (checked against a running kernel with the project's
//! oracle recordings). The layers, from requests to answers:
//!
//! 1. **Control plane** — [`Netns`]: links ([`link`]), addresses ([`addr`]), tables of
//!    route entries ([`table`], [`route`]), policy rules ([`rule`]) and sysctls
//!    ([`sysctl`]). Each request is validated as the kernel validates it and either
//!    applied completely or refused with the kernel's [`Errno`] and extack message.
//!    Routes the kernel derives itself (from addresses, link state, IPv6 address
//!    configuration) are derived here too ([`fib4`], [`fib6`]).
//! 2. **Lookups** — [`Netns::route_get4`] and [`Netns::route_get6`]: the rule walk (or
//!    the fast path while only the default rules ever existed), longest-prefix match with
//!    the kernel's entry selection and backtracking, ECMP ([`ecmp`]), preferred source
//!    selection, and the IPv4/IPv6 output and input semantics of `ip route get`.
//! 3. **Data plane** — [`snapshot::Snapshot`], published to reader threads by
//!    [`fib::Fib`]: a frozen namespace with per-prefix precomputed answers for the flows
//!    only the destination decides (custom rules are checked first; a flow one of them
//!    selects, and every other case, takes the namespace's lookup; rules that select
//!    every such flow are compiled into the answers), single and batch (over destinations,
//!    or over whole flows of any kind).
//!
//! The engine performs no I/O and reads no clock: time is passed in with
//! [`Netns::set_now`]. Nothing in it panics on any input.
//!
//! ```
//! use fibkit::{Netns, lookup::Flow4};
//! let ns = Netns::new();
//! let r = ns.route_get4(&Flow4 { dst: 0x7f00_0001, ..Default::default() }).unwrap();
//! assert_eq!(r.rtype, fibkit::route::RouteType::Local);
//! ```

#![forbid(unsafe_code)]

pub mod addr;
pub mod addrlabel;
pub mod bridge;
pub mod cowvec;
pub mod ecmp;
pub mod encap;
pub mod error;
pub mod fdb;
pub mod fib;
pub mod fib4;
pub mod fib6;
pub mod fib6tree;
pub mod flowhash;
pub mod ioam;
pub mod kconfig;
pub mod link;
pub mod linkstate;
pub mod lookup;
pub mod lookup6;
pub mod macvlan;
pub mod mcast;
pub mod mptcp;
pub mod netns;
pub mod nexthop;
pub mod nhres;
pub mod ntable;
pub mod pcpu6;
pub mod prefix;
pub mod route;
pub(crate) mod rt6probe;
pub mod rtcache;
pub mod rule;
pub mod rules;
pub mod snapshot;
pub mod stable;
pub mod sysctl;
pub mod table;
pub mod vxlan;
pub mod xfrm;

pub use error::{Errno, Error, Result};
pub use netns::Netns;
