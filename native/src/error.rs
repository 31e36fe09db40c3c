//! The error type of the core: a kind (mapped one-to-one onto the `DGEN4J_ERR_*` codes of
//! `jextract/dgen4j.h` by `lib.rs`) and a precise human message.

use std::fmt;

/// What went wrong; `lib.rs` maps each kind to its C error code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// A parameter is invalid (`DGEN4J_ERR_INVALID_ARGUMENT`).
    InvalidArgument,
    /// A byte range lies outside the stream (`DGEN4J_ERR_OUT_OF_RANGE`).
    OutOfRange,
    /// The system refused a resource, e.g. a worker thread (`DGEN4J_ERR_RESOURCE`).
    Resource,
    /// A panic was caught (`DGEN4J_ERR_PANIC`).
    Panic,
    /// The operating system reported an I/O error (`DGEN4J_ERR_IO`).
    Io,
}

/// An error of the core with its human-readable message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    message: String,
}

impl Error {
    /// An error of `kind` with `message`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error { kind, message: message.into() }
    }

    /// A `DGEN4J_ERR_INVALID_ARGUMENT` error.
    pub fn invalid(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::InvalidArgument, message)
    }

    /// A `DGEN4J_ERR_IO` error.
    pub fn io(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Io, message)
    }

    /// The kind of the error.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The message of the error.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// An error describing a caught panic from its payload.
    pub fn from_panic(context: &str, payload: &(dyn std::any::Any + Send)) -> Error {
        let what = if let Some(s) = payload.downcast_ref::<&str>() {
            s
        } else if let Some(s) = payload.downcast_ref::<String>() {
            s.as_str()
        } else {
            "(non-string panic payload)"
        };
        Error::new(ErrorKind::Panic, format!("{context} panicked: {what}"))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}
