//! Errors: a Linux errno plus the extack message the kernel would attach.

use std::fmt;

/// The Linux errno values fibkit reports, by their kernel names.
#[allow(missing_docs)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Errno {
    EPERM,
    ENOENT,
    ESRCH,
    ENOBUFS,
    EAGAIN,
    EACCES,
    EEXIST,
    ENODEV,
    EINVAL,
    ERANGE,
    EMSGSIZE,
    EOPNOTSUPP,
    EAFNOSUPPORT,
    EADDRNOTAVAIL,
    EADDRINUSE,
    ENETDOWN,
    ENETUNREACH,
    EHOSTUNREACH,
    ENOTSUP,
    EBUSY,
    ENOSPC,
    ENXIO,
    ENOTCONN,
    ELOOP,
    /// Too many links (a stack of devices deeper than `MAX_NEST_DEV`).
    EMLINK,
    EOVERFLOW,
    /// Protocol not supported (an xfrm state of a type the kernel has no module for).
    EPROTONOSUPPORT,
    ENOTTY,
    ENOMEM,
    /// The kernel-internal 524 (`ENOTSUPP`), which reaches user space unnamed.
    ENOTSUPP,
}

impl Errno {
    /// The kernel's name of the errno (`"ENETUNREACH"`).
    pub fn name(self) -> &'static str {
        match self {
            Errno::EPERM => "EPERM",
            Errno::ENOENT => "ENOENT",
            Errno::ESRCH => "ESRCH",
            Errno::ENOBUFS => "ENOBUFS",
            Errno::EAGAIN => "EAGAIN",
            Errno::EACCES => "EACCES",
            Errno::EEXIST => "EEXIST",
            Errno::ENODEV => "ENODEV",
            Errno::EINVAL => "EINVAL",
            Errno::ERANGE => "ERANGE",
            Errno::EMSGSIZE => "EMSGSIZE",
            Errno::EOPNOTSUPP => "EOPNOTSUPP",
            Errno::EAFNOSUPPORT => "EAFNOSUPPORT",
            Errno::EADDRNOTAVAIL => "EADDRNOTAVAIL",
            Errno::EADDRINUSE => "EADDRINUSE",
            Errno::ENETDOWN => "ENETDOWN",
            Errno::ENETUNREACH => "ENETUNREACH",
            Errno::EHOSTUNREACH => "EHOSTUNREACH",
            Errno::ENOTSUP => "ENOTSUP",
            Errno::EBUSY => "EBUSY",
            Errno::ENOSPC => "ENOSPC",
            Errno::ENXIO => "ENXIO",
            Errno::ENOTCONN => "ENOTCONN",
            Errno::ELOOP => "ELOOP",
            Errno::EMLINK => "EMLINK",
            Errno::EOVERFLOW => "EOVERFLOW",
            Errno::EPROTONOSUPPORT => "EPROTONOSUPPORT",
            Errno::ENOTTY => "ENOTTY",
            Errno::ENOMEM => "ENOMEM",
            Errno::ENOTSUPP => "ENOTSUPP",
        }
    }

    /// glibc's `strerror` text, which iproute2 prints after `RTNETLINK answers: `.
    pub fn strerror(self) -> &'static str {
        match self {
            Errno::EPERM => "Operation not permitted",
            Errno::ENOENT => "No such file or directory",
            Errno::ESRCH => "No such process",
            Errno::ENOBUFS => "No buffer space available",
            Errno::EAGAIN => "Resource temporarily unavailable",
            Errno::EACCES => "Permission denied",
            Errno::EEXIST => "File exists",
            Errno::ENODEV => "No such device",
            Errno::EINVAL => "Invalid argument",
            Errno::ERANGE => "Numerical result out of range",
            Errno::EMSGSIZE => "Message too long",
            Errno::EOPNOTSUPP | Errno::ENOTSUP => "Operation not supported",
            Errno::EAFNOSUPPORT => "Address family not supported by protocol",
            Errno::EADDRNOTAVAIL => "Cannot assign requested address",
            Errno::EADDRINUSE => "Address already in use",
            Errno::ENETDOWN => "Network is down",
            Errno::ENETUNREACH => "Network is unreachable",
            Errno::EHOSTUNREACH => "No route to host",
            Errno::EBUSY => "Device or resource busy",
            Errno::ENOSPC => "No space left on device",
            Errno::ENXIO => "No such device or address",
            Errno::ENOTCONN => "Transport endpoint is not connected",
            Errno::ELOOP => "Too many levels of symbolic links",
            Errno::EMLINK => "Too many links",
            Errno::EOVERFLOW => "Value too large for defined data type",
            Errno::EPROTONOSUPPORT => "Protocol not supported",
            Errno::ENOTTY => "Inappropriate ioctl for device",
            Errno::ENOMEM => "Cannot allocate memory",
            Errno::ENOTSUPP => "Unknown error 524",
        }
    }
}

impl fmt::Display for Errno {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A failed request: the errno and, when the kernel sets one, its extack message
/// (without iproute2's `Error: ` prefix and trailing period).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// The errno the kernel returns.
    pub errno: Errno,
    /// The extack message, if the kernel reports one.
    pub msg: Option<&'static str>,
}

impl Error {
    /// An error without an extack message.
    pub const fn new(errno: Errno) -> Self {
        Error { errno, msg: None }
    }
    /// An error with an extack message.
    pub const fn msg(errno: Errno, msg: &'static str) -> Self {
        Error {
            errno,
            msg: Some(msg),
        }
    }
    /// The two lines iproute2 prints for this error, as one string
    /// (`Error: MSG.` when there is an extack message, else `RTNETLINK answers: STRERROR`).
    pub fn iproute_text(&self) -> String {
        match self.msg {
            // libnetlink adds a full stop unless the kernel's message has one
            Some(m) if m.ends_with('.') => format!("Error: {m}"),
            Some(m) => format!("Error: {m}."),
            None => format!("RTNETLINK answers: {}", self.errno.strerror()),
        }
    }
}

impl From<Errno> for Error {
    fn from(e: Errno) -> Self {
        Error::new(e)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.msg {
            Some(m) => write!(f, "{}: {}", self.errno, m),
            None => write!(f, "{}", self.errno),
        }
    }
}

impl std::error::Error for Error {}

/// Result of an engine operation.
pub type Result<T> = std::result::Result<T, Error>;
