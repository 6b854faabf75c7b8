//! IPv6 IOAM namespaces and schemas (`net/ipv6/ioam6.c`, the `IOAM6` generic netlink
//! family behind `ip ioam`): what a node puts into the IOAM data of a namespace it
//! traces. A namespace has an ID (16 bits), optional 32- and 64-bit data and at most
//! one schema; a schema has an ID (32 bits) and opaque data, kept padded to a multiple
//! of four bytes, and belongs to at most one namespace.
//!
//! The kernel keeps both in hash tables seeded at random per namespace, so its dumps
//! come in an order that changes from one network namespace to the next; fibkit lists
//! them by ID.

use std::collections::BTreeMap;

use crate::error::{Errno, Error, Result};
use crate::netns::Netns;

/// `IOAM6_MAX_SCHEMA_DATA_LEN`: the most schema data, padded, in bytes.
pub const MAX_SCHEMA_DATA_LEN: usize = 255 * 4;

/// `IOAM6_U32_UNAVAILABLE`: 32-bit data of this value is not reported.
const U32_UNAVAILABLE: u32 = u32::MAX;
/// `IOAM6_U64_UNAVAILABLE`.
const U64_UNAVAILABLE: u64 = u64::MAX;

/// An IOAM namespace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Namespace {
    /// Its 32-bit data (`IOAM6_U32_UNAVAILABLE` when none).
    pub data: u32,
    /// Its 64-bit data (`IOAM6_U64_UNAVAILABLE` when none).
    pub wide: u64,
    /// Its schema's ID, if it has one.
    pub schema: Option<u32>,
}

impl Namespace {
    /// The 32-bit data a dump reports (`IOAM6_ATTR_NS_DATA`).
    pub fn data(&self) -> Option<u32> {
        (self.data != U32_UNAVAILABLE).then_some(self.data)
    }

    /// The 64-bit data a dump reports (`IOAM6_ATTR_NS_DATA_WIDE`).
    pub fn wide(&self) -> Option<u64> {
        (self.wide != U64_UNAVAILABLE).then_some(self.wide)
    }
}

/// An IOAM schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schema {
    /// Its data, zero-padded to a multiple of four bytes.
    pub data: Vec<u8>,
    /// The namespace it belongs to, if any.
    pub ns: Option<u16>,
}

/// A network namespace's IOAM namespaces and schemas.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ioam {
    namespaces: BTreeMap<u16, Namespace>,
    schemas: BTreeMap<u32, Schema>,
}

impl Netns {
    /// The IOAM namespaces, by ID.
    pub fn ioam_namespaces(&self) -> impl Iterator<Item = (u16, &Namespace)> {
        self.ioam.namespaces.iter().map(|(&k, v)| (k, v))
    }

    /// The IOAM schemas, by ID.
    pub fn ioam_schemas(&self) -> impl Iterator<Item = (u32, &Schema)> {
        self.ioam.schemas.iter().map(|(&k, v)| (k, v))
    }

    /// `IOAM6_CMD_ADD_NAMESPACE` (`ioam6_genl_addns`): EEXIST for an ID in use. Data
    /// not given is unavailable.
    pub fn ioam_ns_add(&mut self, id: u16, data: Option<u32>, wide: Option<u64>) -> Result<()> {
        if self.ioam.namespaces.contains_key(&id) {
            return Err(Error::new(Errno::EEXIST));
        }
        self.ioam.namespaces.insert(
            id,
            Namespace {
                data: data.unwrap_or(U32_UNAVAILABLE),
                wide: wide.unwrap_or(U64_UNAVAILABLE),
                schema: None,
            },
        );
        Ok(())
    }

    /// `IOAM6_CMD_DEL_NAMESPACE` (`ioam6_genl_delns`): ENOENT for an unknown ID; its
    /// schema, if any, is left without a namespace.
    pub fn ioam_ns_del(&mut self, id: u16) -> Result<()> {
        let ns = self
            .ioam
            .namespaces
            .remove(&id)
            .ok_or(Error::new(Errno::ENOENT))?;
        if let Some(sc) = ns.schema.and_then(|s| self.ioam.schemas.get_mut(&s)) {
            sc.ns = None;
        }
        Ok(())
    }

    /// `IOAM6_CMD_ADD_SCHEMA` (`ioam6_genl_addsc`): EEXIST for an ID in use, EINVAL
    /// for data longer than [`MAX_SCHEMA_DATA_LEN`] once padded.
    pub fn ioam_sc_add(&mut self, id: u32, data: &[u8]) -> Result<()> {
        if self.ioam.schemas.contains_key(&id) {
            return Err(Error::new(Errno::EEXIST));
        }
        let padded = data.len().div_ceil(4) * 4;
        if padded > MAX_SCHEMA_DATA_LEN {
            return Err(Error::new(Errno::EINVAL));
        }
        let mut d = data.to_vec();
        d.resize(padded, 0);
        self.ioam.schemas.insert(id, Schema { data: d, ns: None });
        Ok(())
    }

    /// `IOAM6_CMD_DEL_SCHEMA` (`ioam6_genl_delsc`): ENOENT for an unknown ID; its
    /// namespace, if any, is left without a schema.
    pub fn ioam_sc_del(&mut self, id: u32) -> Result<()> {
        let sc = self
            .ioam
            .schemas
            .remove(&id)
            .ok_or(Error::new(Errno::ENOENT))?;
        if let Some(ns) = sc.ns.and_then(|n| self.ioam.namespaces.get_mut(&n)) {
            ns.schema = None;
        }
        Ok(())
    }

    /// `IOAM6_CMD_NS_SET_SCHEMA` (`ioam6_genl_ns_set_schema`): namespace `id` takes
    /// schema `schema` (none: `None`), which leaves the namespace it had; the schema
    /// the namespace had is left without one. ENOENT for an unknown namespace, then
    /// for an unknown schema, before anything changes.
    pub fn ioam_ns_set_schema(&mut self, id: u16, schema: Option<u32>) -> Result<()> {
        let old = self
            .ioam
            .namespaces
            .get(&id)
            .ok_or(Error::new(Errno::ENOENT))?
            .schema;
        if schema.is_some_and(|s| !self.ioam.schemas.contains_key(&s)) {
            return Err(Error::new(Errno::ENOENT));
        }
        if let Some(sc) = old.and_then(|s| self.ioam.schemas.get_mut(&s)) {
            sc.ns = None;
        }
        if let Some(ns) = self.ioam.namespaces.get_mut(&id) {
            ns.schema = schema;
        }
        if let Some(sc) = schema.and_then(|s| self.ioam.schemas.get_mut(&s)) {
            let prev = sc.ns.replace(id);
            if let Some(p) = prev.and_then(|p| self.ioam.namespaces.get_mut(&p)) {
                p.schema = None;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_schema_moves_between_namespaces() {
        let mut ns = Netns::new();
        ns.ioam_ns_add(1, Some(0x11), None).unwrap();
        ns.ioam_ns_add(2, None, Some(0xff)).unwrap();
        assert_eq!(
            ns.ioam_ns_add(1, None, None).unwrap_err().errno,
            Errno::EEXIST
        );
        ns.ioam_sc_add(7, b"hello").unwrap();
        assert_eq!(ns.ioam_schemas().next().unwrap().1.data.len(), 8);
        ns.ioam_ns_set_schema(1, Some(7)).unwrap();
        ns.ioam_ns_set_schema(2, Some(7)).unwrap();
        let owners: Vec<Option<u32>> = ns.ioam_namespaces().map(|(_, n)| n.schema).collect();
        assert_eq!(owners, vec![None, Some(7)]);
        assert_eq!(ns.ioam_schemas().next().unwrap().1.ns, Some(2));
        assert_eq!(
            ns.ioam_ns_set_schema(9, Some(7)).unwrap_err().errno,
            Errno::ENOENT
        );
        assert_eq!(
            ns.ioam_ns_set_schema(2, Some(8)).unwrap_err().errno,
            Errno::ENOENT
        );
        ns.ioam_sc_del(7).unwrap();
        assert!(ns.ioam_namespaces().all(|(_, n)| n.schema.is_none()));
        assert!(ns.ioam_sc_add(8, &[b'x'; MAX_SCHEMA_DATA_LEN + 1]).is_err());
    }
}
