//! The game panel's state and its reducer (pure, tested natively): what the fight
//! looks like after each turn, the log, and why it stopped.

/// Turns "Run" plays in all.
pub const RUN_TURNS: u32 = 100;

/// One actor as the panel draws it.
#[derive(Clone, Debug, PartialEq)]
pub struct ActorView {
    /// Its name.
    pub name: String,
    /// Hit points now.
    pub hp: f64,
    /// Hit points at most.
    pub max_hp: f64,
    /// Its team (0 = the player's).
    pub team: f64,
    /// Its shield.
    pub shield: f64,
    /// Whether it is the player.
    pub player: bool,
}

/// What the game's `state_text` says: the actors and the scripts' descriptions.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Snapshot {
    /// Every actor, dead ones too.
    pub actors: Vec<ActorView>,
    /// (script name, the text its GetDescription returned last).
    pub descriptions: Vec<(String, String)>,
}

impl Snapshot {
    /// Reads `state_text` (see crates/game/lua/dungeon.lua); unreadable lines are skipped.
    pub fn parse(text: &str) -> Snapshot {
        let mut s = Snapshot::default();
        for line in text.lines() {
            let f: Vec<&str> = line.split('\t').collect();
            if f.first() == Some(&"describe") && f.len() >= 3 {
                s.descriptions.push((f[1].to_string(), f[2..].join("\t")));
            } else if f.len() >= 9 {
                let n = |k: usize| f[k].parse::<f64>().unwrap_or(0.0);
                s.actors.push(ActorView {
                    name: f[0].to_string(),
                    hp: n(1),
                    max_hp: n(2),
                    team: n(3),
                    shield: n(4),
                    player: f[8] == "1",
                });
            }
        }
        s
    }
}

/// Where the fight is.
#[derive(Clone, Debug, PartialEq)]
pub enum Phase {
    /// Not started: "Play" starts it.
    Idle,
    /// Lua (wasmoon) is loading and the script is being loaded.
    Loading,
    /// Between turns: Step or Run go on.
    Ready,
    /// Run is playing turns.
    Running,
    /// All turns played.
    Finished,
    /// Stopped: a Lua error, or a limit (instructions, time, memory); the message.
    Stopped {
        /// `runtime`, `budget`, `timeout`, `memory`, `load` or `host`.
        kind: String,
        /// What happened.
        message: String,
    },
}

/// The panel's state.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayState {
    /// The game's seed.
    pub seed: u64,
    /// Where the fight is.
    pub phase: Phase,
    /// Turns played.
    pub turn: u32,
    /// Every log line so far.
    pub log: Vec<String>,
    /// The fight after the last turn.
    pub snapshot: Snapshot,
    /// Milliseconds the turns took in Lua, in all.
    pub lua_ms: f64,
}

/// What happened.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// A new seed (only before Play).
    Seed(u64),
    /// Play was pressed.
    Load,
    /// The script loaded and the effects are on: the first log and snapshot.
    Loaded {
        /// Log lines written so far.
        lines: Vec<String>,
        /// The fight.
        snapshot: Snapshot,
    },
    /// Run was pressed.
    Run,
    /// Pause was pressed (Run stops after the turn in flight).
    Pause,
    /// A turn was played (or failed): its new log lines and the fight after it.
    Turned {
        /// Log lines the turn wrote.
        lines: Vec<String>,
        /// The fight.
        snapshot: Snapshot,
        /// `Err((kind, message))` when the turn stopped the game.
        result: Result<(), (String, String)>,
        /// Milliseconds the turn took.
        ms: f64,
    },
    /// The game failed outside a turn (loading, the host).
    Failed(String, String),
    /// Back to Idle with the same seed.
    Reset,
}

impl PlayState {
    /// A fresh state.
    pub fn new(seed: u64) -> PlayState {
        PlayState {
            seed,
            phase: Phase::Idle,
            turn: 0,
            log: Vec::new(),
            snapshot: Snapshot::default(),
            lua_ms: 0.0,
        }
    }

    /// Whether another turn may be played.
    pub fn can_step(&self) -> bool {
        matches!(self.phase, Phase::Ready | Phase::Running) && self.turn < RUN_TURNS
    }

    /// The state after `action`.
    pub fn reduce(mut self, action: Action) -> PlayState {
        match action {
            Action::Seed(s) if self.phase == Phase::Idle => self.seed = s,
            Action::Seed(_) => {}
            Action::Load => {
                self = PlayState::new(self.seed);
                self.phase = Phase::Loading;
            }
            Action::Loaded { lines, snapshot } => {
                self.log.extend(lines);
                self.snapshot = snapshot;
                self.phase = Phase::Ready;
            }
            Action::Run if self.can_step() => self.phase = Phase::Running,
            Action::Run => {}
            Action::Pause if self.phase == Phase::Running => self.phase = Phase::Ready,
            Action::Pause => {}
            Action::Turned { lines, snapshot, result, ms } => {
                self.log.extend(lines);
                self.snapshot = snapshot;
                self.lua_ms += ms;
                match result {
                    Ok(()) => {
                        self.turn += 1;
                        if self.turn >= RUN_TURNS {
                            self.phase = Phase::Finished;
                        }
                    }
                    Err((kind, message)) => self.phase = Phase::Stopped { kind, message },
                }
            }
            Action::Failed(kind, message) => self.phase = Phase::Stopped { kind, message },
            Action::Reset => self = PlayState::new(self.seed),
        }
        self
    }

    /// The banner for a stopped game: limits are told apart from Lua errors.
    pub fn stop_banner(&self) -> Option<String> {
        let Phase::Stopped { kind, message } = &self.phase else { return None };
        Some(match kind.as_str() {
            "budget" => format!("Stopped: the script ran past its instruction budget ({message})."),
            "timeout" => format!("Stopped: the script ran past its time limit ({message})."),
            "memory" => format!("Stopped: the script ran past its memory limit ({message})."),
            "runtime" => format!("Stopped by a Lua error: {message}"),
            _ => format!("The game could not run: {message}"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STATE: &str = "player\t20\t30\t0\t0\t0\t1\t2\t1\ngoblin1\t0\t12\t1\t3\t0\t4\t4\t0\ndescribe\tZap\tZaps for 3";

    #[test]
    fn the_state_text_is_read() {
        let s = Snapshot::parse(STATE);
        assert_eq!(s.actors.len(), 2);
        assert_eq!((s.actors[0].hp, s.actors[0].max_hp, s.actors[0].player), (20.0, 30.0, true));
        assert_eq!((s.actors[1].hp, s.actors[1].shield, s.actors[1].player), (0.0, 3.0, false));
        assert_eq!(s.descriptions, vec![("Zap".to_string(), "Zaps for 3".to_string())]);
    }

    fn turned(result: Result<(), (String, String)>) -> Action {
        Action::Turned {
            lines: vec!["turn".into()],
            snapshot: Snapshot::parse(STATE),
            result,
            ms: 1.0,
        }
    }

    #[test]
    fn turns_count_up_to_the_end_and_a_limit_stops_the_fight_with_a_banner() {
        let mut s = PlayState::new(1).reduce(Action::Load);
        assert!(!s.can_step());
        s = s.reduce(Action::Loaded {
            lines: vec!["load talent Zap".into()],
            snapshot: Snapshot::default(),
        });
        s = s.reduce(Action::Run);
        assert_eq!(s.phase, Phase::Running);
        for _ in 0..RUN_TURNS {
            s = s.reduce(turned(Ok(())));
        }
        assert_eq!(
            (s.phase.clone(), s.turn, s.log.len()),
            (Phase::Finished, RUN_TURNS, RUN_TURNS as usize + 1)
        );
        assert!(!s.can_step());
        let s = PlayState::new(1)
            .reduce(Action::Load)
            .reduce(Action::Loaded { lines: vec![], snapshot: Snapshot::default() });
        let s = s.reduce(turned(Err((
            "budget".into(),
            "Zap.Do ran past its instruction budget".into(),
        ))));
        assert_eq!(s.turn, 0);
        assert!(s.stop_banner().unwrap().contains("instruction budget"), "{:?}", s.stop_banner());
        assert!(!s.can_step());
        assert_eq!(s.reduce(Action::Reset).phase, Phase::Idle);
    }

    #[test]
    fn the_seed_changes_only_before_play() {
        let s = PlayState::new(1).reduce(Action::Seed(9));
        assert_eq!(s.seed, 9);
        let s = s.reduce(Action::Load).reduce(Action::Seed(3));
        assert_eq!(s.seed, 9);
    }
}
