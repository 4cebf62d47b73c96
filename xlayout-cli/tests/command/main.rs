//! The `xlayout` command as people and scripts run it: one test binary, a module per
//! subject, the running of the command in [`support`].

mod columns;
mod hlo;
mod hostile;
mod oom;
mod peak;
mod pictures;
mod relayouts;
mod scripting;
mod support;
#[cfg(unix)]
mod terminal;
