//! Stable privacy interface identifiers (RFC 7217) as the kernel draws them
//! (`ipv6_generate_stable_address`): one SHA-1 compression of a single 64-byte block
//! holding the secret (`stable_secret`), the /64 prefix, the device's permanent
//! hardware address and the DAD attempt count, without SHA-1's padding or length;
//! the identifier is the first two digest words as the CPU stores them
//! (little-endian on the x86-64 this models). Virtual devices (dummy, veth, bridge,
//! tun) have no permanent hardware address: those bytes are zero.

/// SHA-1's initial state.
const H0: [u32; 5] = [
    0x6745_2301,
    0xefcd_ab89,
    0x98ba_dcfe,
    0x1032_5476,
    0xc3d2_e1f0,
];

/// One SHA-1 compression of `block` into `h` (FIPS 180-4, section 6.1.2).
fn sha1_compress(h: &mut [u32; 5], block: &[u8; 64]) {
    let mut w = [0u32; 80];
    for (i, c) in block.chunks_exact(4).enumerate() {
        w[i] = u32::from_be_bytes([c[0], c[1], c[2], c[3]]);
    }
    for i in 16..80 {
        w[i] = (w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16]).rotate_left(1);
    }
    let [mut a, mut b, mut c, mut d, mut e] = *h;
    for (i, wi) in w.iter().enumerate() {
        let (f, k) = match i {
            0..=19 => ((b & c) | (!b & d), 0x5a82_7999),
            20..=39 => (b ^ c ^ d, 0x6ed9_eba1),
            40..=59 => ((b & c) | (b & d) | (c & d), 0x8f1b_bcdc),
            _ => (b ^ c ^ d, 0xca62_c1d6),
        };
        let t = a
            .rotate_left(5)
            .wrapping_add(f)
            .wrapping_add(e)
            .wrapping_add(k)
            .wrapping_add(*wi);
        e = d;
        d = c;
        c = b.rotate_left(30);
        b = a;
        a = t;
    }
    for (x, y) in h.iter_mut().zip([a, b, c, d, e]) {
        *x = x.wrapping_add(y);
    }
}

/// `ipv6_reserved_interfaceid` (RFC 5453): the subnet-router anycast identifier, the
/// proxy mobile IPv6 range and the reserved subnet anycast range.
fn reserved(iid: u64) -> bool {
    iid == 0
        || iid >> 32 == 0x0200_5eff && iid & 0xfe00_0000 == 0xfe00_0000
        || iid >> 32 == 0xfdff_ffff && iid & 0xffff_ff80 == 0xffff_ff80
}

/// The stable address of `prefix` (its upper 64 bits are used) for `secret` and a
/// device without a permanent hardware address, from DAD attempt `dad_count` on; `None`
/// when every attempt up to `idgen_retries` (3) gives a reserved identifier.
pub fn stable_address(prefix: u128, secret: u128, dad_count: u8) -> Option<u128> {
    let mut count = dad_count;
    loop {
        let mut block = [0u8; 64];
        block[..16].copy_from_slice(&secret.to_be_bytes());
        block[16..24].copy_from_slice(&prefix.to_be_bytes()[..8]);
        // 24..56: the permanent hardware address (none), 56: the DAD count
        block[56] = count;
        let mut h = H0;
        sha1_compress(&mut h, &block);
        let mut iid = [0u8; 8];
        iid[..4].copy_from_slice(&h[0].to_le_bytes());
        iid[4..].copy_from_slice(&h[1].to_le_bytes());
        let iid = u64::from_be_bytes(iid);
        if !reserved(iid) {
            return Some((prefix & !u128::from(u64::MAX)) | u128::from(iid));
        }
        count += 1;
        if count > 3 {
            return None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a(s: &str) -> u128 {
        u128::from(s.parse::<std::net::Ipv6Addr>().expect("an address"))
    }

    #[test]
    fn sha1_of_abc() {
        // FIPS 180-4's one-block example: "abc", padded
        let mut block = [0u8; 64];
        block[..3].copy_from_slice(b"abc");
        block[3] = 0x80;
        block[63] = 24;
        let mut h = H0;
        sha1_compress(&mut h, &block);
        assert_eq!(
            h,
            [
                0xa999_3e36,
                0x4706_816a,
                0xba3e_2571,
                0x7850_c26c,
                0x9cd0_d89d
            ]
        );
    }

    #[test]
    fn link_local_addresses_as_the_kernel_drew_them() {
        // recorded in conformance scenario 363
        let ll = a("fe80::");
        assert_eq!(
            stable_address(ll, a("2001:db8::99"), 0),
            Some(a("fe80::94bc:ed1a:88c7:f565"))
        );
        assert_eq!(
            stable_address(ll, a("2001:db8::1"), 0),
            Some(a("fe80::88cf:4891:a68c:e03f"))
        );
        assert_eq!(
            stable_address(ll, a("2001:db8::1234"), 0),
            Some(a("fe80::d820:30f:5afc:84be"))
        );
    }

    #[test]
    fn reserved_identifiers() {
        assert!(reserved(0));
        assert!(reserved(0x0200_5eff_fe12_3456));
        assert!(reserved(0xfdff_ffff_ffff_ff80));
        assert!(!reserved(0xfdff_ffff_ffff_ff7f));
        assert!(!reserved(0x0200_5eff_fd00_0000));
    }
}
