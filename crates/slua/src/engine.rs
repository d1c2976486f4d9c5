//! The demo game's engine: a small turn-based dungeon simulation in Rust that runs
//! translated sLua scripts in real Lua 5.4 (through `mlua`, vendored). Native only.
//!
//! The API functions are Rust closures over the shared [`World`]; actors reach Lua
//! as tables `{__id = n}` whose metatable reads fields from the world and holds the
//! methods. Every API function accepts any value of its declared types without
//! failing: dead actors stay valid, lookups go through callbacks, numbers are
//! sanitised (NaN, infinities), loops and callbacks spend a per-hook budget, strings
//! are capped, and hooks nest at most three deep.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;
use std::rc::Rc;
use std::time::{Duration, Instant};

use mlua::{Function, HookTriggers, Lua, Table, Value, VmState};

use crate::translate::PRELUDE;
use crate::walker::Rng;

/// Deepest nesting of hook calls (a hook that deals damage runs OnDamageReceived ...).
pub const MAX_HOOK_DEPTH: usize = 3;
/// Loop iterations and callback calls one top-level hook call may spend.
pub const HOOK_BUDGET: i64 = 1000;

/// An engine failure: a Lua error inside a script (what the guarantee rules out) or
/// a script that ran past its time limit.
#[derive(Debug, Clone)]
pub enum EngineError {
    /// Loading the translated chunk failed.
    Load(String),
    /// A hook raised a Lua error.
    Runtime {
        /// Which script and hook.
        hook: String,
        /// Lua's message.
        message: String,
    },
    /// A script ran past the time limit.
    Timeout(String),
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineError::Load(m) => write!(f, "translated script does not load: {m}"),
            EngineError::Runtime { hook, message } => write!(f, "Lua error in {hook}: {message}"),
            EngineError::Timeout(h) => write!(f, "{h} ran past the time limit"),
        }
    }
}

impl std::error::Error for EngineError {}

#[derive(Clone, Debug)]
struct EffectInst {
    name: String,
    data: Table,
}

/// One creature.
#[derive(Clone, Debug)]
struct ActorS {
    name: String,
    hp: f64,
    max_hp: f64,
    power: f64,
    team: f64,
    x: i64,
    y: i64,
    shield: f64,
    stun: i64,
    player: bool,
    effects: Vec<EffectInst>,
}

/// The game state scripts act on.
#[derive(Debug)]
pub struct World {
    width: i64,
    height: i64,
    depth: f64,
    walls: Vec<bool>,
    actors: Vec<ActorS>,
    turn: f64,
    rng: Rng,
    log: Vec<String>,
    hook_depth: usize,
    effects: HashMap<String, Table>,
    talents: Vec<(String, Table)>,
}

fn num(x: f64) -> f64 {
    if x.is_nan() {
        0.0
    } else {
        x.clamp(-1e9, 1e9)
    }
}

fn cell(x: f64) -> i64 {
    num(x).round() as i64
}

impl World {
    fn random(seed: u64) -> World {
        let mut rng = Rng::new(seed);
        let width = 8 + rng.below(9) as i64;
        let height = 8 + rng.below(9) as i64;
        let walls = (0..width * height).map(|_| rng.below(10) == 0).collect();
        let mut w = World {
            width,
            height,
            depth: 1.0 + rng.below(5) as f64,
            walls,
            actors: Vec::new(),
            turn: 0.0,
            rng,
            log: Vec::new(),
            hook_depth: 0,
            effects: HashMap::new(),
            talents: Vec::new(),
        };
        let monsters = 3 + w.rng.below(5);
        for i in 0..=monsters {
            let (x, y) = w.free_cell();
            let hp = 10.0 + w.rng.below(30) as f64;
            w.actors.push(ActorS {
                name: if i == 0 { "player".into() } else { format!("goblin{i}") },
                hp,
                max_hp: hp,
                power: 1.0 + w.rng.below(5) as f64,
                team: if i == 0 { 0.0 } else { 1.0 + (i % 2) as f64 },
                x,
                y,
                shield: 0.0,
                stun: 0,
                player: i == 0,
                effects: Vec::new(),
            });
        }
        w
    }

    fn walkable(&self, x: i64, y: i64) -> bool {
        x >= 0 && y >= 0 && x < self.width && y < self.height && !self.walls[(y * self.width + x) as usize]
    }

    fn actor_at(&self, x: i64, y: i64) -> Option<usize> {
        self.actors.iter().position(|a| a.hp > 0.0 && a.x == x && a.y == y)
    }

    fn free(&self, x: i64, y: i64) -> bool {
        self.walkable(x, y) && self.actor_at(x, y).is_none()
    }

    fn free_cell(&mut self) -> (i64, i64) {
        for _ in 0..1000 {
            let x = self.rng.below(self.width as usize) as i64;
            let y = self.rng.below(self.height as usize) as i64;
            if self.free(x, y) {
                return (x, y);
            }
        }
        // A crowded level: clear a wall and stand there.
        let (x, y) = (0, 0);
        self.walls[0] = false;
        (x, y)
    }

    fn say(&mut self, s: String) {
        if self.log.len() < 2000 {
            self.log.push(s.chars().take(200).collect());
        }
    }
}

/// A loaded game: a Lua state with the API, the world and the scripts.
pub struct Game {
    lua: Lua,
    world: Rc<RefCell<World>>,
    deadline: Rc<RefCell<Instant>>,
}

/// What a loaded script is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loaded {
    /// `effect` or `talent`.
    pub kind: String,
    /// Its name.
    pub name: String,
}

fn rt(hook: &str, e: mlua::Error) -> EngineError {
    let message = e.to_string();
    if message.contains("time limit") {
        EngineError::Timeout(hook.to_string())
    } else {
        EngineError::Runtime { hook: hook.to_string(), message }
    }
}

impl Game {
    /// A random level (size, walls, 4-8 actors) from `seed`.
    pub fn new(seed: u64) -> Result<Game, EngineError> {
        let lua = Lua::new();
        let world = Rc::new(RefCell::new(World::random(seed)));
        let deadline = Rc::new(RefCell::new(Instant::now() + Duration::from_secs(3600)));
        let game = Game { lua, world, deadline };
        game.install().map_err(|e| EngineError::Load(e.to_string()))?;
        let d = game.deadline.clone();
        game.lua.set_hook(HookTriggers::new().every_nth_instruction(10_000), move |_, _| {
            if Instant::now() > *d.borrow() {
                Err(mlua::Error::runtime("script ran past its time limit"))
            } else {
                Ok(VmState::Continue)
            }
        });
        Ok(game)
    }

    /// Lines the scripts wrote to the game log.
    pub fn log(&self) -> Vec<String> {
        self.world.borrow().log.clone()
    }

    /// Loads a translated script: an effect becomes callable as `Name(actor, data)`.
    pub fn load(&mut self, lua_source: &str) -> Result<Loaded, EngineError> {
        let t: Table = self.lua.load(lua_source).eval().map_err(|e| EngineError::Load(e.to_string()))?;
        let kind: String = t.get("kind").map_err(|e| EngineError::Load(e.to_string()))?;
        let name: String = t.get("name").map_err(|e| EngineError::Load(e.to_string()))?;
        let hooks: Table = t.get("hooks").map_err(|e| EngineError::Load(e.to_string()))?;
        if kind == "effect" {
            self.world.borrow_mut().effects.insert(name.clone(), hooks);
            let w = self.world.clone();
            let n = name.clone();
            let f = self
                .lua
                .create_function(move |lua, (actor, data): (Table, Table)| apply_effect(lua, &w, &n, &actor, data))
                .map_err(|e| EngineError::Load(e.to_string()))?;
            self.lua.globals().set(name.as_str(), f).map_err(|e| EngineError::Load(e.to_string()))?;
        } else {
            self.world.borrow_mut().talents.push((name.clone(), hooks));
        }
        Ok(Loaded { kind, name })
    }

    /// Puts every loaded effect on a random actor, then runs `turns` turns: actors use
    /// random talents (or attack and wander), effects tick. Stops at the first error.
    pub fn run(&mut self, turns: usize, time_limit: Duration) -> Result<(), EngineError> {
        *self.deadline.borrow_mut() = Instant::now() + time_limit;
        let lua = &self.lua;
        let effects: Vec<String> = self.world.borrow().effects.keys().cloned().collect();
        let mut names = effects;
        names.sort();
        for name in &names {
            let (target, power, turns_left) = {
                let mut w = self.world.borrow_mut();
                let n = w.actors.len();
                (w.rng.below(n), 1.0 + w.rng.below(5) as f64, 2.0 + w.rng.below(6) as f64)
            };
            let data = lua.create_table().map_err(|e| rt(name, e))?;
            for (k, v) in [("power", Value::Number(power)), ("turns", Value::Number(turns_left)), ("stacks", Value::Number(1.0))] {
                data.set(k, v).map_err(|e| rt(name, e))?;
            }
            data.set("label", "").map_err(|e| rt(name, e))?;
            let actor = actor_table(lua, target).map_err(|e| rt(name, e))?;
            apply_effect(lua, &self.world, name, &actor, data).map_err(|e| rt(&format!("{name}.OnApply"), e))?;
            let desc = self.world.borrow().effects.get(name).cloned();
            if let Some(h) = desc {
                let data = lua.create_table().map_err(|e| rt(name, e))?;
                data.set("power", 1.0).and_then(|_| data.set("turns", 1.0)).and_then(|_| data.set("stacks", 1.0)).and_then(|_| data.set("label", "")).map_err(|e| rt(name, e))?;
                let d = call_hook(lua, &self.world, &h, "GetDescription", (data,)).map_err(|e| rt(&format!("{name}.GetDescription"), e))?;
                if let Value::String(s) = d {
                    self.world.borrow_mut().say(format!("{name}: {}", s.to_string_lossy()));
                }
            }
        }
        for _ in 0..turns {
            self.turn().map_err(|e| rt("turn", e))?;
        }
        Ok(())
    }

    fn turn(&mut self) -> mlua::Result<()> {
        let lua = &self.lua;
        let w = &self.world;
        w.borrow_mut().turn += 1.0;
        let n = w.borrow().actors.len();
        for i in 0..n {
            let (alive, stunned) = {
                let a = &w.borrow().actors[i];
                (a.hp > 0.0, a.stun > 0)
            };
            if !alive {
                continue;
            }
            if stunned {
                w.borrow_mut().actors[i].stun -= 1;
                continue;
            }
            let talent = {
                let mut wb = w.borrow_mut();
                let k = wb.talents.len();
                (k > 0 && wb.rng.below(2) == 0).then(|| {
                    let j = wb.rng.below(k);
                    wb.talents[j].clone()
                })
            };
            if let Some((name, hooks)) = talent {
                let me = actor_table(lua, i)?;
                let can: Value = if hooks.contains_key("CanUse")? {
                    call_hook(lua, w, &hooks, "CanUse", (me.clone(),)).map_err(|e| ctx(&name, "CanUse", e))?
                } else {
                    Value::Boolean(true)
                };
                if can == Value::Boolean(true) {
                    let (x, y) = {
                        let mut wb = w.borrow_mut();
                        let a = &wb.actors[i];
                        let (ax, ay) = (a.x, a.y);
                        (ax + wb.rng.below(5) as i64 - 2, ay + wb.rng.below(5) as i64 - 2)
                    };
                    let c = coord(lua, x as f64, y as f64)?;
                    call_hook(lua, w, &hooks, "Do", (me.clone(), c)).map_err(|e| ctx(&name, "Do", e))?;
                    let desc = call_hook(lua, w, &hooks, "GetDescription", (me,)).map_err(|e| ctx(&name, "GetDescription", e))?;
                    if !matches!(desc, Value::String(_)) {
                        return Err(mlua::Error::runtime(format!("{name}.GetDescription returned no string")));
                    }
                }
            } else {
                let target = nearest_enemy(&w.borrow(), i);
                match target {
                    Some(t) if dist(&w.borrow(), i, t) <= 1 => {
                        let p = w.borrow().actors[i].power;
                        deal_damage(lua, w, t, p, "physical")?;
                    }
                    _ => {
                        let mut wb = w.borrow_mut();
                        let dx = wb.rng.below(3) as i64 - 1;
                        let dy = wb.rng.below(3) as i64 - 1;
                        let (x, y) = (wb.actors[i].x + dx, wb.actors[i].y + dy);
                        if wb.free(x, y) {
                            wb.actors[i].x = x;
                            wb.actors[i].y = y;
                        }
                    }
                }
            }
        }
        // Effects tick at the end of the turn.
        let count = w.borrow().actors.len();
        for i in 0..count {
            let effs = w.borrow().actors[i].effects.clone();
            for e in effs {
                let hooks = w.borrow().effects.get(&e.name).cloned();
                let Some(hooks) = hooks else { continue };
                let me = actor_table(lua, i)?;
                call_hook(lua, w, &hooks, "OnTurnEnd", (me.clone(), e.data.clone())).map_err(|x| ctx(&e.name, "OnTurnEnd", x))?;
                let left: f64 = e.data.get::<f64>("turns").map(num)? - 1.0;
                e.data.set("turns", left)?;
                if left <= 0.0 {
                    w.borrow_mut().actors[i].effects.retain(|x| x.data != e.data);
                    call_hook(lua, w, &hooks, "OnRemove", (me, e.data.clone())).map_err(|x| ctx(&e.name, "OnRemove", x))?;
                }
            }
        }
        // Keep the level lively: at most 12 actors, at least 2 alive.
        let alive = w.borrow().actors.iter().filter(|a| a.hp > 0.0).count();
        if alive < 2 && w.borrow().actors.len() < 12 {
            let mut wb = w.borrow_mut();
            let (x, y) = wb.free_cell();
            let k = wb.actors.len();
            wb.actors.push(ActorS {
                name: format!("goblin{k}"),
                hp: 15.0,
                max_hp: 15.0,
                power: 2.0,
                team: 1.0,
                x,
                y,
                shield: 0.0,
                stun: 0,
                player: false,
                effects: Vec::new(),
            });
        }
        Ok(())
    }

    fn install(&self) -> mlua::Result<()> {
        let lua = &self.lua;
        lua.load(PRELUDE).exec()?;
        let g = lua.globals();
        let w = &self.world;
        lua.set_named_registry_value("actor_cache", lua.create_table()?)?;

        // Actor metatable: fields from the world, methods from a table.
        let methods = lua.create_table()?;
        macro_rules! method {
            ($name:expr, $args:ty, $body:expr) => {{
                let w = w.clone();
                let f = lua.create_function(move |lua, a: $args| {
                    #[allow(clippy::redundant_closure_call)]
                    ($body)(lua, &w, a)
                })?;
                methods.set($name, f)?;
            }};
        }
        method!("IsAlive", (Table,), |_: &Lua, w: &Rc<RefCell<World>>, (s,): (Table,)| Ok(w.borrow().actors[id(&s)].hp > 0.0));
        method!("IsPlayer", (Table,), |_: &Lua, w: &Rc<RefCell<World>>, (s,): (Table,)| Ok(w.borrow().actors[id(&s)].player));
        method!("Heal", (Table, f64), |_: &Lua, w: &Rc<RefCell<World>>, (s, n): (Table, f64)| {
            heal(&mut w.borrow_mut(), id(&s), n);
            Ok(())
        });
        method!("TakeDamage", (Table, f64), |lua: &Lua, w: &Rc<RefCell<World>>, (s, n): (Table, f64)| deal_damage(lua, w, id(&s), n, "physical"));
        method!("MoveTo", (Table, Table), |_: &Lua, w: &Rc<RefCell<World>>, (s, c): (Table, Table)| Ok(move_to(&mut w.borrow_mut(), id(&s), &c)));
        method!("HasEffect", (Table, String), |_: &Lua, w: &Rc<RefCell<World>>, (s, n): (Table, String)| {
            Ok(w.borrow().actors[id(&s)].effects.iter().any(|e| e.name == n))
        });
        method!("EffectCount", (Table,), |_: &Lua, w: &Rc<RefCell<World>>, (s,): (Table,)| Ok(w.borrow().actors[id(&s)].effects.len() as f64));
        method!("DistanceTo", (Table, Table), |_: &Lua, w: &Rc<RefCell<World>>, (s, o): (Table, Table)| Ok(dist(&w.borrow(), id(&s), id(&o)) as f64));
        method!("Say", (Table, String), |_: &Lua, w: &Rc<RefCell<World>>, (s, t): (Table, String)| {
            let n = w.borrow().actors[id(&s)].name.clone();
            w.borrow_mut().say(format!("{n}: {t}"));
            Ok(())
        });
        method!("IsEnemyOf", (Table, Table), |_: &Lua, w: &Rc<RefCell<World>>, (s, o): (Table, Table)| {
            let wb = w.borrow();
            Ok(wb.actors[id(&s)].team != wb.actors[id(&o)].team)
        });
        let mt = lua.create_table()?;
        {
            let w = w.clone();
            let methods = methods.clone();
            mt.set(
                "__index",
                lua.create_function(move |lua, (t, k): (Table, String)| -> mlua::Result<Value> {
                    let m: Value = methods.get(k.as_str())?;
                    if m != Value::Nil {
                        return Ok(m);
                    }
                    let wb = w.borrow();
                    let a = &wb.actors[id(&t)];
                    Ok(match k.as_str() {
                        "name" => Value::String(lua.create_string(&a.name)?),
                        "hp" => Value::Number(a.hp),
                        "maxHp" => Value::Number(a.max_hp),
                        "power" => Value::Number(a.power),
                        "team" => Value::Number(a.team),
                        "pos" => Value::Table(coord(lua, a.x as f64, a.y as f64)?),
                        _ => Value::Nil,
                    })
                })?,
            )?;
        }
        lua.set_named_registry_value("actor_mt", mt)?;

        macro_rules! func {
            ($name:expr, $args:ty, $body:expr) => {{
                let w = w.clone();
                let f = lua.create_function(move |lua, a: $args| {
                    #[allow(clippy::redundant_closure_call)]
                    ($body)(lua, &w, a)
                })?;
                g.set($name, f)?;
            }};
        }
        type W = Rc<RefCell<World>>;
        func!("Player", (), |lua: &Lua, _: &W, ()| actor_table(lua, 0));
        func!("ActorCount", (), |_: &Lua, w: &W, ()| Ok(w.borrow().actors.iter().filter(|a| a.hp > 0.0).count() as f64));
        func!("WithActorAt", (Table, Function), |lua: &Lua, w: &W, (c, f): (Table, Function)| {
            let (x, y) = xy(&c);
            let found = w.borrow().actor_at(x, y);
            if let Some(i) = found {
                callback(lua, &f, actor_table(lua, i)?)?;
            }
            Ok(())
        });
        func!("WithNearestEnemy", (Table, Function), |lua: &Lua, w: &W, (a, f): (Table, Function)| {
            let t = nearest_enemy(&w.borrow(), id(&a));
            if let Some(t) = t {
                callback(lua, &f, actor_table(lua, t)?)?;
            }
            Ok(())
        });
        func!("ForEachActor", (Function,), |lua: &Lua, w: &W, (f,): (Function,)| {
            let ids: Vec<usize> = living(&w.borrow(), |_| true);
            for i in ids {
                if !callback(lua, &f, actor_table(lua, i)?)? {
                    break;
                }
            }
            Ok(())
        });
        func!("ForEachEnemy", (Table, Function), |lua: &Lua, w: &W, (a, f): (Table, Function)| {
            let me = id(&a);
            let team = w.borrow().actors[me].team;
            let ids = living(&w.borrow(), |x| x.team != team);
            for i in ids {
                if !callback(lua, &f, actor_table(lua, i)?)? {
                    break;
                }
            }
            Ok(())
        });
        func!("ForEachActorInRadius", (Table, f64, Function), |lua: &Lua, w: &W, (c, r, f): (Table, f64, Function)| {
            let (x, y) = xy(&c);
            let r = num(r);
            let ids = living(&w.borrow(), |a| ((a.x - x).abs().max((a.y - y).abs()) as f64) <= r);
            for i in ids {
                if !callback(lua, &f, actor_table(lua, i)?)? {
                    break;
                }
            }
            Ok(())
        });
        func!("ForEachCoordInRadius", (Table, f64, Function), |lua: &Lua, w: &W, (c, r, f): (Table, f64, Function)| {
            let (x, y) = xy(&c);
            let r = num(r).clamp(0.0, 5.0) as i64;
            let (wd, ht) = (w.borrow().width, w.borrow().height);
            'outer: for yy in (y - r).max(0)..=(y + r).min(ht - 1) {
                for xx in (x - r).max(0)..=(x + r).min(wd - 1) {
                    if !callback(lua, &f, coord(lua, xx as f64, yy as f64)?)? {
                        break 'outer;
                    }
                }
            }
            Ok(())
        });
        func!("Repeat", (f64, Function), |lua: &Lua, _: &W, (n, f): (f64, Function)| {
            let n = num(n).clamp(0.0, 100.0) as i64;
            for i in 1..=n {
                if !callback(lua, &f, i as f64)? {
                    break;
                }
            }
            Ok(())
        });
        func!("CountActorsInRadius", (Table, f64), |_: &Lua, w: &W, (c, r): (Table, f64)| {
            let (x, y) = xy(&c);
            let r = num(r);
            Ok(living(&w.borrow(), |a| ((a.x - x).abs().max((a.y - y).abs()) as f64) <= r).len() as f64)
        });
        func!("IsWalkable", (Table,), |_: &Lua, w: &W, (c,): (Table,)| {
            let (x, y) = xy(&c);
            Ok(w.borrow().walkable(x, y))
        });
        func!("IsFree", (Table,), |_: &Lua, w: &W, (c,): (Table,)| {
            let (x, y) = xy(&c);
            Ok(w.borrow().free(x, y))
        });
        func!("LevelWidth", (), |_: &Lua, w: &W, ()| Ok(w.borrow().width as f64));
        func!("LevelHeight", (), |_: &Lua, w: &W, ()| Ok(w.borrow().height as f64));
        func!("Depth", (), |_: &Lua, w: &W, ()| Ok(w.borrow().depth));
        func!("Turn", (), |_: &Lua, w: &W, ()| Ok(w.borrow().turn));
        func!("Distance", (Table, Table), |_: &Lua, _: &W, (a, b): (Table, Table)| {
            let ((ax, ay), (bx, by)) = (xy(&a), xy(&b));
            Ok((ax - bx).abs().max((ay - by).abs()) as f64)
        });
        func!("MakeCoord", (f64, f64), |lua: &Lua, _: &W, (x, y): (f64, f64)| coord(lua, num(x), num(y)));
        func!("Offset", (Table, f64, f64), |lua: &Lua, _: &W, (c, dx, dy): (Table, f64, f64)| {
            let (x, y): (f64, f64) = (c.get::<f64>("x").map(num)?, c.get::<f64>("y").map(num)?);
            coord(lua, num(x + num(dx)), num(y + num(dy)))
        });
        func!("RandomCoordNear", (Table, f64), |lua: &Lua, w: &W, (c, r): (Table, f64)| {
            let (x, y) = xy(&c);
            let r = num(r).clamp(0.0, 50.0) as usize;
            let mut wb = w.borrow_mut();
            let dx = wb.rng.below(2 * r + 1) as i64 - r as i64;
            let dy = wb.rng.below(2 * r + 1) as i64 - r as i64;
            coord(lua, (x + dx) as f64, (y + dy) as f64)
        });
        func!("Damage", (Table, f64), |lua: &Lua, w: &W, (a, n): (Table, f64)| deal_damage(lua, w, id(&a), n, "physical"));
        func!("DamageOfKind", (Table, f64, String), |lua: &Lua, w: &W, (a, n, k): (Table, f64, String)| deal_damage(lua, w, id(&a), n, &k));
        func!("HealActor", (Table, f64), |_: &Lua, w: &W, (a, n): (Table, f64)| {
            heal(&mut w.borrow_mut(), id(&a), n);
            Ok(())
        });
        func!("GrantShield", (Table, f64), |_: &Lua, w: &W, (a, n): (Table, f64)| {
            let s = &mut w.borrow_mut().actors[id(&a)].shield;
            *s = (*s + num(n).max(0.0)).min(1e6);
            Ok(())
        });
        func!("ShieldOf", (Table,), |_: &Lua, w: &W, (a,): (Table,)| Ok(w.borrow().actors[id(&a)].shield));
        func!("ModifyPower", (Table, f64), |_: &Lua, w: &W, (a, n): (Table, f64)| {
            let p = &mut w.borrow_mut().actors[id(&a)].power;
            *p = (*p + num(n)).clamp(0.0, 1e6);
            Ok(())
        });
        func!("Stun", (Table, f64), |_: &Lua, w: &W, (a, n): (Table, f64)| {
            let s = &mut w.borrow_mut().actors[id(&a)].stun;
            *s = (*s).max(num(n).clamp(0.0, 10.0) as i64);
            Ok(())
        });
        func!("IsStunned", (Table,), |_: &Lua, w: &W, (a,): (Table,)| Ok(w.borrow().actors[id(&a)].stun > 0));
        func!("Teleport", (Table, Table), |_: &Lua, w: &W, (a, c): (Table, Table)| Ok(move_to(&mut w.borrow_mut(), id(&a), &c)));
        func!("Push", (Table, f64, f64), |_: &Lua, w: &W, (a, dx, dy): (Table, f64, f64)| {
            let i = id(&a);
            let mut wb = w.borrow_mut();
            let (dx, dy) = (cell(dx).clamp(-10, 10), cell(dy).clamp(-10, 10));
            let steps = dx.abs().max(dy.abs());
            for _ in 0..steps {
                let (x, y) = (wb.actors[i].x + dx.signum(), wb.actors[i].y + dy.signum());
                if !wb.free(x, y) {
                    break;
                }
                wb.actors[i].x = x;
                wb.actors[i].y = y;
            }
            Ok(())
        });
        func!("SpawnMonster", (String, Table), |_: &Lua, w: &W, (n, c): (String, Table)| {
            let (x, y) = xy(&c);
            let mut wb = w.borrow_mut();
            if wb.actors.len() >= 24 || !wb.free(x, y) {
                return Ok(false);
            }
            wb.actors.push(ActorS {
                name: n.chars().take(40).collect(),
                hp: 8.0,
                max_hp: 8.0,
                power: 1.0,
                team: 1.0,
                x,
                y,
                shield: 0.0,
                stun: 0,
                player: false,
                effects: Vec::new(),
            });
            Ok(true)
        });
        func!("RemoveEffect", (Table, String), |_: &Lua, w: &W, (a, n): (Table, String)| {
            w.borrow_mut().actors[id(&a)].effects.retain(|e| e.name != n);
            Ok(())
        });
        func!("EffectStacks", (Table, String), |_: &Lua, w: &W, (a, n): (Table, String)| {
            let effs = w.borrow().actors[id(&a)].effects.clone();
            let mut total = 0.0;
            for e in effs.iter().filter(|e| e.name == n) {
                total += e.data.get::<f64>("stacks").map(num)?;
            }
            Ok(total)
        });
        func!("Log", (String,), |_: &Lua, w: &W, (s,): (String,)| {
            w.borrow_mut().say(s);
            Ok(())
        });
        func!("Random", (f64, f64), |_: &Lua, w: &W, (lo, hi): (f64, f64)| {
            let (lo, hi) = (num(lo).ceil() as i64, num(hi).floor() as i64);
            let (lo, hi) = if lo <= hi { (lo, hi) } else { (hi, lo) };
            let span = (hi - lo + 1).max(1) as usize;
            Ok((lo + w.borrow_mut().rng.below(span) as i64) as f64)
        });
        func!("RandomFloat", (), |_: &Lua, w: &W, ()| Ok(w.borrow_mut().rng.float()));
        func!("Chance", (f64,), |_: &Lua, w: &W, (p,): (f64,)| Ok(w.borrow_mut().rng.float() < num(p)));
        func!("Min", (f64, f64), |_: &Lua, _: &W, (a, b): (f64, f64)| Ok(a.min(b)));
        func!("Max", (f64, f64), |_: &Lua, _: &W, (a, b): (f64, f64)| Ok(a.max(b)));
        func!("Abs", (f64,), |_: &Lua, _: &W, (a,): (f64,)| Ok(a.abs()));
        func!("Floor", (f64,), |_: &Lua, _: &W, (a,): (f64,)| Ok(a.floor()));
        func!("Ceil", (f64,), |_: &Lua, _: &W, (a,): (f64,)| Ok(a.ceil()));
        func!("Round", (f64,), |_: &Lua, _: &W, (a,): (f64,)| Ok(a.round()));
        func!("Clamp", (f64, f64, f64), |_: &Lua, _: &W, (x, lo, hi): (f64, f64, f64)| Ok(x.max(lo.min(hi)).min(hi.max(lo))));
        func!("Sqrt", (f64,), |_: &Lua, _: &W, (a,): (f64,)| Ok(if a > 0.0 { a.sqrt() } else { 0.0 }));
        func!("NumStr", (f64,), |_: &Lua, _: &W, (a,): (f64,)| {
            Ok(if a.fract() == 0.0 && a.abs() < 1e15 { format!("{}", a as i64) } else { format!("{a}") })
        });
        func!("BoolStr", (bool,), |_: &Lua, _: &W, (b,): (bool,)| Ok(b.to_string()));
        func!("Upper", (String,), |_: &Lua, _: &W, (s,): (String,)| Ok(s.to_uppercase()));
        func!("Lower", (String,), |_: &Lua, _: &W, (s,): (String,)| Ok(s.to_lowercase()));
        func!("Len", (mlua::String,), |_: &Lua, _: &W, (s,): (mlua::String,)| Ok(s.as_bytes().len() as f64));
        func!("Sub", (mlua::String, f64, f64), |lua: &Lua, _: &W, (s, a, b): (mlua::String, f64, f64)| {
            let bytes = s.as_bytes();
            let n = bytes.len() as i64;
            let a = (num(a).round() as i64).max(1);
            let b = (num(b).round() as i64).min(n);
            let out: &[u8] = if a <= b { &bytes[(a - 1) as usize..b as usize] } else { &[] };
            lua.create_string(out)
        });
        func!("Contains", (mlua::String, mlua::String), |_: &Lua, _: &W, (s, p): (mlua::String, mlua::String)| {
            let (s, p) = (s.as_bytes(), p.as_bytes());
            Ok(p.is_empty() || s.windows(p.len()).any(|w| w == &p[..]))
        });
        Ok(())
    }
}

fn ctx(script: &str, hook: &str, e: mlua::Error) -> mlua::Error {
    mlua::Error::runtime(format!("{script}.{hook}: {e}"))
}

/// The actor index stored in an actor table.
fn id(t: &Table) -> usize {
    t.raw_get::<usize>("__id").unwrap_or(0)
}

fn xy(c: &Table) -> (i64, i64) {
    (c.get::<f64>("x").map(cell).unwrap_or(-1), c.get::<f64>("y").map(cell).unwrap_or(-1))
}

fn coord(lua: &Lua, x: f64, y: f64) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    t.set("x", x)?;
    t.set("y", y)?;
    Ok(t)
}

fn actor_table(lua: &Lua, i: usize) -> mlua::Result<Table> {
    let cache: Table = lua.named_registry_value("actor_cache")?;
    if let Some(t) = cache.raw_get::<Option<Table>>(i)? {
        return Ok(t);
    }
    let t = lua.create_table()?;
    t.raw_set("__id", i)?;
    let mt: Table = lua.named_registry_value("actor_mt")?;
    t.set_metatable(Some(mt));
    cache.raw_set(i, t.clone())?;
    Ok(t)
}

/// Spends one unit of the hook budget and calls `f(arg)`; false when the budget is gone.
fn callback(lua: &Lua, f: &Function, arg: impl mlua::IntoLuaMulti) -> mlua::Result<bool> {
    let g = lua.globals();
    let b: f64 = g.get::<Option<f64>>("__budget")?.unwrap_or(0.0);
    if b <= 0.0 {
        return Ok(false);
    }
    g.set("__budget", b - 1.0)?;
    f.call::<()>(arg)?;
    Ok(true)
}

fn living(w: &World, keep: impl Fn(&ActorS) -> bool) -> Vec<usize> {
    (0..w.actors.len()).filter(|&i| w.actors[i].hp > 0.0 && keep(&w.actors[i])).collect()
}

fn dist(w: &World, a: usize, b: usize) -> i64 {
    let (a, b) = (&w.actors[a], &w.actors[b]);
    (a.x - b.x).abs().max((a.y - b.y).abs())
}

fn nearest_enemy(w: &World, me: usize) -> Option<usize> {
    let team = w.actors[me].team;
    living(w, |a| a.team != team).into_iter().min_by_key(|&j| dist(w, me, j))
}

fn heal(w: &mut World, i: usize, n: f64) {
    let a = &mut w.actors[i];
    if a.hp > 0.0 {
        a.hp = (a.hp + num(n).max(0.0)).min(a.max_hp);
    }
}

fn move_to(w: &mut World, i: usize, c: &Table) -> bool {
    let (x, y) = xy(c);
    if w.actors[i].hp > 0.0 && w.free(x, y) {
        w.actors[i].x = x;
        w.actors[i].y = y;
        true
    } else {
        false
    }
}

/// Calls `hooks[name](args)` if the hook exists and the nesting allows; the budget is
/// refilled for each outermost call.
fn call_hook(lua: &Lua, w: &Rc<RefCell<World>>, hooks: &Table, name: &str, args: impl mlua::IntoLuaMulti) -> mlua::Result<Value> {
    let f: Option<Function> = hooks.get(name)?;
    let Some(f) = f else { return Ok(Value::Nil) };
    let depth = w.borrow().hook_depth;
    if depth >= MAX_HOOK_DEPTH {
        return Ok(Value::Nil);
    }
    if depth == 0 {
        lua.globals().set("__budget", HOOK_BUDGET as f64)?;
    }
    w.borrow_mut().hook_depth += 1;
    let r = f.call::<Value>(args);
    w.borrow_mut().hook_depth -= 1;
    r
}

fn apply_effect(lua: &Lua, w: &Rc<RefCell<World>>, name: &str, actor: &Table, data: Table) -> mlua::Result<()> {
    let i = id(actor);
    let hooks = w.borrow().effects.get(name).cloned();
    let Some(hooks) = hooks else { return Ok(()) };
    {
        let mut wb = w.borrow_mut();
        if wb.actors[i].hp <= 0.0 || wb.actors[i].effects.len() >= 8 {
            return Ok(());
        }
        wb.actors[i].effects.push(EffectInst { name: name.to_string(), data: data.clone() });
    }
    call_hook(lua, w, &hooks, "OnApply", (actor.clone(), data))?;
    Ok(())
}

fn deal_damage(lua: &Lua, w: &Rc<RefCell<World>>, i: usize, amount: f64, kind: &str) -> mlua::Result<()> {
    if w.borrow().actors[i].hp <= 0.0 {
        return Ok(());
    }
    let info = lua.create_table()?;
    info.set("amount", num(amount).max(0.0))?;
    info.set("kind", kind)?;
    let effs = w.borrow().actors[i].effects.clone();
    let me = actor_table(lua, i)?;
    for e in effs {
        let hooks = w.borrow().effects.get(&e.name).cloned();
        if let Some(h) = hooks {
            call_hook(lua, w, &h, "OnDamageReceived", (me.clone(), e.data.clone(), info.clone()))?;
        }
    }
    let mut amount = num(info.get::<f64>("amount")?).max(0.0);
    let mut wb = w.borrow_mut();
    let a = &mut wb.actors[i];
    let absorbed = a.shield.min(amount);
    a.shield -= absorbed;
    amount -= absorbed;
    a.hp = (a.hp - amount).max(0.0);
    if a.hp <= 0.0 {
        let n = a.name.clone();
        wb.say(format!("{n} dies"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const TALENT: &str = "local __hooks = {}\n__hooks.Do = function(user, target)\n  BODY\nend\n__hooks.GetDescription = function(user) return \"t\" end\nreturn { kind = \"talent\", name = \"T\", hooks = __hooks }\n";

    fn run(body: &str) -> Result<(), EngineError> {
        let mut g = Game::new(3)?;
        g.load(&TALENT.replace("BODY", body))?;
        g.run(20, Duration::from_secs(10))
    }

    #[test]
    fn well_typed_calls_run_and_lua_errors_are_reported() {
        run("Damage(user, 0/0); WithActorAt(MakeCoord(-5, 99), function(a) a:Heal(1) end); Repeat(1e9, function(i) end)").unwrap();
        let err = run("local x = nil; x.y = 1").unwrap_err();
        assert!(matches!(err, EngineError::Runtime { .. }), "{err}");
    }

    #[test]
    fn runaway_scripts_hit_the_time_limit() {
        let mut g = Game::new(1).unwrap();
        g.load(&TALENT.replace("BODY", "while true do end")).unwrap();
        let err = g.run(5, Duration::from_millis(200)).unwrap_err();
        assert!(matches!(err, EngineError::Timeout(_)), "{err}");
    }
}
