//! Fixtures shared by the engine's integration tests.

use fibkit::addr::{ifa, Addr4, Addr6};
use fibkit::link::LinkKind;
use fibkit::netns::LinkAdd;
use fibkit::Netns;

/// A namespace with link `d0` (up) holding 192.0.2.1/24 and 2001:db8:1::1/64, and the
/// link's index.
pub fn ns_with_link() -> (Netns, u32) {
    let mut ns = Netns::new();
    let d0 = add_dummy(&mut ns, "d0");
    add_addr4(&mut ns, d0, 0xc000_0201, 24);
    ns.addr6_add(
        d0,
        Addr6 {
            predad: false,
            life: Default::default(),
            addr: 0x2001_0db8_0001_u128 << 80 | 1,
            plen: 64,
            flags: 0,
            metric: 0,
            scope: 0,
            peer: None,
        },
    )
    .expect("addr6");
    (ns, d0)
}

/// Adds dummy link `name`, up, and returns its index.
pub fn add_dummy(ns: &mut Netns, name: &str) -> u32 {
    ns.link_add(&LinkAdd {
        name: name.into(),
        kind: Some(LinkKind::Dummy),
        up: true,
        ..Default::default()
    })
    .expect("link")
}

/// Adds the permanent IPv4 address `addr/plen` to link `dev`.
pub fn add_addr4(ns: &mut Netns, dev: u32, addr: u32, plen: u8) {
    let a = Addr4 {
        life: Default::default(),
        local: addr,
        address: addr,
        plen,
        broadcast: 0,
        scope: 0,
        flags: ifa::PERMANENT,
        metric: 0,
        label: String::new(),
        hashed: 0,
    };
    ns.addr4_add(dev, a).expect("addr");
}

/// A property test's case count: `default`, or `PROPTEST_CASES` when set (a longer soak,
/// e.g. `PROPTEST_CASES=5000 cargo test --release -p fibkit --test engine`).
// (the benches that share this module run no property tests)
#[allow(dead_code)]
pub fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}
