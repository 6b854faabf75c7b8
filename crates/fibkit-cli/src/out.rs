//! Writing to standard output like a Unix tool: when the reader of a pipe goes away
//! (`fib route show | head -1`), the process ends quietly with the status a shell
//! reports for a SIGPIPE death (141), as iproute2's `ip` does, instead of the panic of
//! `print!`. Any other write error is reported and ends the process with status 1.

use std::io::Write;

/// Status of a process ended by SIGPIPE, as shells report it (128 + 13).
const SIGPIPE_STATUS: i32 = 141;

/// Write formatted text to standard output (see the module documentation).
pub fn write(args: std::fmt::Arguments<'_>) {
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_fmt(args).and_then(|()| out.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(SIGPIPE_STATUS);
        }
        eprintln!("fib: cannot write the output: {e}");
        std::process::exit(1);
    }
}

/// `print!` through [`write()`].
macro_rules! out {
    ($($t:tt)*) => {
        $crate::out::write(format_args!($($t)*))
    };
}

/// `println!` through [`write()`].
macro_rules! outln {
    () => {
        $crate::out::write(format_args!("\n"))
    };
    ($($t:tt)*) => {
        $crate::out::write(format_args!("{}\n", format_args!($($t)*)))
    };
}
