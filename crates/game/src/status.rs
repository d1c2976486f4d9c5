//! What a call into the rules returned: the one-string status every entry of
//! `lua/dungeon.lua` answers (`ok`, `ok\tKIND\tNAME` or `error\tKIND\tmessage`), read
//! the same way by every host.

use std::fmt;

/// An engine failure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EngineError {
    /// The translated chunk does not load, or its top level failed.
    Load(String),
    /// A hook raised a Lua error (what the sLua guarantee rules out).
    Runtime(String),
    /// A hook ran past its instruction budget.
    Budget(String),
    /// A script ran past the wall-clock limit.
    Timeout(String),
    /// A script ran past the memory limit.
    Memory(String),
    /// The host itself failed (creating the state, a call into it).
    Host(String),
}

impl EngineError {
    /// The error kind as the rules name it (`load`, `runtime`, `budget`, `timeout`,
    /// `memory`, `host`).
    pub fn kind(&self) -> &'static str {
        match self {
            EngineError::Load(_) => "load",
            EngineError::Runtime(_) => "runtime",
            EngineError::Budget(_) => "budget",
            EngineError::Timeout(_) => "timeout",
            EngineError::Memory(_) => "memory",
            EngineError::Host(_) => "host",
        }
    }

    /// The message without the kind.
    pub fn message(&self) -> &str {
        match self {
            EngineError::Load(m)
            | EngineError::Runtime(m)
            | EngineError::Budget(m)
            | EngineError::Timeout(m)
            | EngineError::Memory(m)
            | EngineError::Host(m) => m,
        }
    }

    /// `kind: message`, as the wasmoon host's runner writes an outcome.
    pub fn outcome(&self) -> String {
        format!("{}: {}", self.kind(), self.message())
    }

    /// Whether the script was stopped by a limit (time, instructions, memory) rather
    /// than by a Lua error.
    pub fn is_limit(&self) -> bool {
        matches!(self, EngineError::Budget(_) | EngineError::Timeout(_) | EngineError::Memory(_))
    }
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineError::Load(m) => write!(f, "translated script does not load: {m}"),
            EngineError::Runtime(m)
            | EngineError::Budget(m)
            | EngineError::Timeout(m)
            | EngineError::Memory(m) => f.write_str(m),
            EngineError::Host(m) => write!(f, "Lua host: {m}"),
        }
    }
}

impl std::error::Error for EngineError {}

/// What a loaded script is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loaded {
    /// `effect` or `talent`.
    pub kind: String,
    /// Its name.
    pub name: String,
}

/// Reads a status string; `Ok(Some(..))` when it names a loaded script.
pub fn parse(status: &str) -> Result<Option<Loaded>, EngineError> {
    let mut parts = status.splitn(3, '\t');
    let head = parts.next().unwrap_or("");
    let (a, b) = (parts.next(), parts.next());
    match (head, a, b) {
        ("ok", None, _) => Ok(None),
        ("ok", Some(kind), Some(name)) => {
            Ok(Some(Loaded { kind: kind.to_string(), name: name.to_string() }))
        }
        ("error", Some(kind), Some(msg)) => Err(match kind {
            "load" => EngineError::Load(msg.to_string()),
            "runtime" => EngineError::Runtime(msg.to_string()),
            "budget" => EngineError::Budget(msg.to_string()),
            "timeout" => EngineError::Timeout(msg.to_string()),
            "memory" => EngineError::Memory(msg.to_string()),
            other => EngineError::Host(format!("unknown error kind {other}: {msg}")),
        }),
        _ => Err(EngineError::Host(format!("unreadable status {status:?}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_read_back() {
        assert_eq!(parse("ok"), Ok(None));
        assert_eq!(
            parse("ok\ttalent\tZap"),
            Ok(Some(Loaded { kind: "talent".into(), name: "Zap".into() }))
        );
        assert_eq!(
            parse("error\tbudget\tT.Do ran\tpast"),
            Err(EngineError::Budget("T.Do ran\tpast".into()))
        );
        assert!(matches!(parse("what"), Err(EngineError::Host(_))));
    }
}
