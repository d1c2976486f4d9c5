-- The dungeon game's rules, in Lua 5.4 itself (about 650 lines, over the house limit with a reason: one concept, the rules
-- and the sandbox they run scripts in, kept in one chunk so that every VM runs the
-- same code).
--
-- Why Lua and not Rust: the game runs natively (mlua, `crates/game/src/native.rs`)
-- and in the browser (wasmoon, `crates/game/js/game.mjs`). With the rules, the
-- seeded random generator and the budgets written here, both hosts run identical
-- code on identical Lua 5.4 VMs, so their turn logs agree by construction; a host
-- only creates a state (standard libraries, a memory limit), runs this chunk, and
-- calls the functions of the game it returns:
--
--   local M = <this chunk>
--   local g = M.new(seed, prelude, now)   -- seed < 2^53; prelude = translate::PRELUDE;
--                                          -- now() = milliseconds (host clock)
--   g.load(lua_source)  -> "ok\tKIND\tNAME" | "error\tERROR_KIND\tmessage"
--   g.start()           -> "ok" | "error\t..."   (puts the loaded effects on actors)
--   g.turn()            -> "ok" | "error\t..."   (one turn)
--   g.set_time_limit(ms)
--   g.log_text(k)       -> the log lines after the first k, joined by "\n"
--   g.log_len()         -> number of log lines
--   g.state_text()      -> one line per actor, "name\thp\tmaxHp\tteam\tshield\tstun\tx\ty\tplayer",
--                          then one "describe\tname\ttext" line per script
--
-- Every entry returns one string, so hosts need no table conversion. ERROR_KIND is "load", "runtime", "budget" (instruction budget), "timeout" (wall
-- clock) or "memory". Scripts run in an environment of their own: the API functions,
-- the prelude and the effects; no os, io, load, require, debug, collectgarbage,
-- pcall, coroutine, getmetatable, and no string patterns (the string metatable is
-- replaced by a pattern-free table). Every 1000 instructions a count hook checks the
-- wall-clock deadline and, inside a script's hook, the instruction budget.
--
-- Numbers scripts see are floats (as sLua's literals are), never Lua integers.
--
-- Every hook call, HP change and random draw is written to the log ("hook ...",
-- "hp ...", "rng ..."), so two hosts that disagree anywhere disagree in the log.

local M = {}

-- The standard functions the rules keep for themselves before scripts run.
local floor, ceil, abs, sqrt, tointeger, huge = math.floor, math.ceil, math.abs, math.sqrt, math.tointeger, math.huge
local mmin, mmax = math.min, math.max
local sformat, ssub, sfind, supper, slower, srep, sbyte, schar = string.format, string.sub, string.find, string.upper, string.lower, string.rep, string.byte, string.char
local type, rawget, rawset, setmetatable, error, pcall, ipairs, tostring = type, rawget, rawset, setmetatable, error, pcall, ipairs, tostring
local sgsub, tconcat = string.gsub, table.concat
local sethook = debug.sethook
local lload = load
local tinsert, tremove = table.insert, table.remove

-- Limits (the same in every VM).
M.MAX_HOOK_DEPTH = 3           -- nested hook calls (a hook that deals damage runs OnDamageReceived ...)
M.HOOK_BUDGET = 1000           -- loop iterations and callbacks one top-level hook call may spend
M.INSTRUCTION_BUDGET = 10000000 -- Lua instructions one top-level hook call may run
M.COUNT = 10000                -- instructions between two checks of the count hook
M.MAX_LOG = 100000             -- lines kept in the log
M.MAX_LINE = 200               -- bytes kept of one line

-- Strings scripts may use: no patterns (find, match, gmatch, gsub can run away), a
-- capped rep. Also the string metatable's __index, so ("x"):find(...) is gone too.
local safe_string = {
  sub = ssub, len = string.len, upper = supper, lower = slower, byte = sbyte, char = schar,
  rep = function(s, n)
    if type(s) ~= "string" or type(n) ~= "number" or n ~= n then return "" end
    n = floor(mmax(0, mmin(n, 65536)))
    if #s * n > 65536 then return "" end
    return srep(s, n)
  end,
}
do
  local smt = getmetatable("")
  if type(smt) == "table" then
    smt.__index = safe_string
    smt.__metatable = false
  end
end

-- Sentinels raised by the count hook (scripts cannot make tables that are these).
local TIMEOUT, BUDGET = {}, {}

local function num(x)
  if type(x) ~= "number" or x ~= x then return 0.0 end
  return mmax(-1e9, mmin(1e9, x + 0.0))
end
local function str(s) if type(s) == "string" then return s end return "" end
local function fl(x) return floor(x) + 0.0 end
-- Rounds half away from zero, as a float.
local function round(x)
  if x >= 0 then return fl(x + 0.5) end
  return -fl(-x + 0.5)
end
local function cell(x) return round(num(x)) end
-- A number as the log writes it: whole numbers without a fraction, others exactly.
local function fmt(x)
  if type(x) ~= "number" then return "?" end
  if x == x and abs(x) < 1e15 and x == floor(x) then return sformat("%d", floor(x)) end
  return sformat("%.17g", x)
end

-- splitmix64 on Lua's 64-bit integers (wrapping arithmetic, logical shifts).
local function rng_new(seed)
  return { s = (tointeger(seed) or 0) ~ 0x9E3779B97F4A7C15 }
end
local function rng_next(r)
  local z = r.s + 0x9E3779B97F4A7C15
  r.s = z
  z = (z ~ (z >> 30)) * 0xBF58476D1CE4E5B9
  z = (z ~ (z >> 27)) * 0x94D049BB133111EB
  return z ~ (z >> 31)
end

function M.new(seed, prelude, now)
  local g = {}
  local log = {}
  local function say(s)
    if #log < M.MAX_LOG then log[#log + 1] = (sgsub(ssub(s, 1, M.MAX_LINE), "[\r\n\t]", " ")) end
  end

  local rng = rng_new(seed)
  -- A whole number in 0..n-1 (n >= 1), logged.
  local function below(n)
    local k = tointeger(mmax(1, floor(n)))
    local v = ((rng_next(rng) >> 1) % k) + 0.0
    say("rng " .. fmt(k) .. " " .. fmt(v))
    return v
  end
  local function float()
    local v = (rng_next(rng) >> 11) * (1.0 / 9007199254740992.0)
    say("rng f " .. fmt(v))
    return v
  end

  -- The world.
  local W = { turn = 0.0, depth = 0.0, width = 0.0, height = 0.0 }
  local walls, actors = {}, {}
  local effects, effect_order, talents = {}, {}, {}
  local descriptions = {}

  local function walkable(x, y)
    return x >= 0 and y >= 0 and x < W.width and y < W.height and not walls[floor(y * W.width + x) + 1]
  end
  local function actor_at(x, y)
    for i, a in ipairs(actors) do
      if a.hp > 0 and a.x == x and a.y == y then return i end
    end
    return nil
  end
  local function free(x, y) return walkable(x, y) and actor_at(x, y) == nil end
  local function free_cell()
    for _ = 1, 1000 do
      local x, y = below(W.width), below(W.height)
      if free(x, y) then return x, y end
    end
    walls[1] = false -- a crowded level: clear a wall and stand there
    return 0.0, 0.0
  end
  local function new_actor(name, hp, power, team, x, y, player)
    actors[#actors + 1] = { name = name, hp = hp, max_hp = hp, power = power, team = team,
      x = x, y = y, shield = 0.0, stun = 0.0, player = player, effects = {} }
    say("spawn " .. name .. " hp " .. fmt(hp) .. " at " .. fmt(x) .. "," .. fmt(y))
  end

  W.width = 8 + below(9)
  W.height = 8 + below(9)
  for i = 1, floor(W.width * W.height) do walls[i] = below(10) == 0 end
  W.depth = 1 + below(5)
  local monsters = 3 + below(5)
  for i = 0, floor(monsters) do
    local x, y = free_cell()
    local hp = 10 + below(30)
    local power = 1 + below(5)
    new_actor(i == 0 and "player" or ("goblin" .. i), hp, power, i == 0 and 0.0 or (1.0 + i % 2), x, y, i == 0)
  end

  -- The sandbox scripts run in.
  local env = { string = safe_string }
  local depth, spent = 0, 0
  local deadline = huge
  local hooks_running = {} -- "Script.Hook" of the hooks now running, innermost last

  local function on_count()
    if now() > deadline then error(TIMEOUT, 0) end
    if depth > 0 then
      spent = spent + M.COUNT
      if spent > M.INSTRUCTION_BUDGET then error(BUDGET, 0) end
    end
  end
  -- Hooks are per coroutine and a host may call in on a fresh one: every entry arms it.
  local function arm() sethook(on_count, "", M.COUNT) end

  -- Calls script.hooks[name](...) if it exists and the nesting allows; the budgets
  -- are refilled for each outermost call.
  local function call_hook(script, name, ...)
    local f = script.hooks[name]
    if type(f) ~= "function" or depth >= M.MAX_HOOK_DEPTH then return nil end
    if depth == 0 then
      env.__budget = M.HOOK_BUDGET + 0.0
      spent = 0
    end
    say("hook " .. script.name .. "." .. name)
    depth = depth + 1
    hooks_running[depth] = script.name .. "." .. name
    local r = f(...)
    hooks_running[depth] = nil
    depth = depth - 1
    return r
  end

  -- Spends one unit of the hook budget and calls f(arg); false when the budget is gone.
  local function callback(f, arg)
    local b = num(env.__budget)
    if b <= 0 or type(f) ~= "function" then return false end
    env.__budget = b - 1
    f(arg)
    return true
  end

  -- Actors reach scripts as proxies { __id = i } whose fields are read from the world.
  local methods = {}
  local actor_mt = {
    __index = function(t, k)
      local m = methods[k]
      if m then return m end
      local a = actors[rawget(t, "__id")]
      if k == "name" then return a.name
      elseif k == "hp" then return a.hp
      elseif k == "maxHp" then return a.max_hp
      elseif k == "power" then return a.power
      elseif k == "team" then return a.team
      elseif k == "pos" then return { x = a.x, y = a.y }
      end
      return nil
    end,
    __newindex = function() end,
    __metatable = false,
  }
  local proxies = {}
  local function actor_table(i)
    local t = proxies[i]
    if not t then
      t = setmetatable({ __id = i }, actor_mt)
      proxies[i] = t
    end
    return t
  end
  local function id(t)
    local i = type(t) == "table" and rawget(t, "__id")
    if type(i) == "number" and actors[i] then return i end
    return 1
  end
  local function xy(c)
    if type(c) ~= "table" then return -1.0, -1.0 end
    return cell(c.x), cell(c.y)
  end
  local function living(keep)
    local out = {}
    for i, a in ipairs(actors) do
      if a.hp > 0 and keep(a) then out[#out + 1] = i end
    end
    return out
  end
  local function dist(i, j)
    local a, b = actors[i], actors[j]
    return mmax(abs(a.x - b.x), abs(a.y - b.y))
  end
  local function nearest_enemy(me)
    local team, best, bd = actors[me].team, nil, huge
    for _, j in ipairs(living(function(a) return a.team ~= team end)) do
      local d = dist(me, j)
      if d < bd then best, bd = j, d end
    end
    return best
  end
  local function set_hp(i, hp, why)
    local a = actors[i]
    local before = a.hp
    a.hp = hp
    if hp ~= before then say("hp " .. a.name .. " " .. fmt(before) .. " -> " .. fmt(hp) .. " " .. why) end
  end
  local function heal(i, n)
    local a = actors[i]
    if a.hp > 0 then set_hp(i, mmin(a.hp + mmax(num(n), 0.0), a.max_hp), "heal") end
  end
  local function move_to(i, c)
    local x, y = xy(c)
    local a = actors[i]
    if a.hp > 0 and free(x, y) then
      a.x, a.y = x, y
      return true
    end
    return false
  end
  local function deal_damage(i, amount, kind)
    local a = actors[i]
    if a.hp <= 0 then return end
    kind = ssub(str(kind), 1, 40)
    local info = { amount = mmax(num(amount), 0.0), kind = kind }
    local me = actor_table(i)
    local list = {}
    for k, e in ipairs(a.effects) do list[k] = e end
    for _, e in ipairs(list) do
      call_hook(effects[e.name], "OnDamageReceived", me, e.data, info)
    end
    local amt = mmax(num(info.amount), 0.0)
    local absorbed = mmin(a.shield, amt)
    a.shield = a.shield - absorbed
    amt = amt - absorbed
    set_hp(i, mmax(a.hp - amt, 0.0), kind)
    if a.hp <= 0 then say(a.name .. " dies") end
  end
  local function apply_effect(name, actor, data)
    local i = id(actor)
    local script = effects[name]
    local a = actors[i]
    if not script or a.hp <= 0 or #a.effects >= 8 or type(data) ~= "table" then return end
    a.effects[#a.effects + 1] = { name = name, data = data }
    call_hook(script, "OnApply", actor, data)
  end
  local function coord(x, y) return { x = x, y = y } end

  methods.IsAlive = function(s) return actors[id(s)].hp > 0 end
  methods.IsPlayer = function(s) return actors[id(s)].player end
  methods.Heal = function(s, n) heal(id(s), n) end
  methods.TakeDamage = function(s, n) deal_damage(id(s), n, "physical") end
  methods.MoveTo = function(s, c) return move_to(id(s), c) end
  methods.HasEffect = function(s, n)
    for _, e in ipairs(actors[id(s)].effects) do if e.name == n then return true end end
    return false
  end
  methods.EffectCount = function(s) return #actors[id(s)].effects + 0.0 end
  methods.DistanceTo = function(s, o) return dist(id(s), id(o)) end
  methods.Say = function(s, t) say("say " .. actors[id(s)].name .. ": " .. str(t)) end
  methods.IsEnemyOf = function(s, o) return actors[id(s)].team ~= actors[id(o)].team end

  local function each(ids, f)
    for _, i in ipairs(ids) do
      if not callback(f, actor_table(i)) then break end
    end
  end
  local function in_radius(c, r)
    local x, y = xy(c)
    r = num(r)
    return function(a) return mmax(abs(a.x - x), abs(a.y - y)) <= r end
  end

  local api = {}
  api.Player = function() return actor_table(1) end
  api.ActorCount = function() return #living(function() return true end) + 0.0 end
  api.WithActorAt = function(c, f)
    local i = actor_at(xy(c))
    if i then callback(f, actor_table(i)) end
  end
  api.WithNearestEnemy = function(a, f)
    local t = nearest_enemy(id(a))
    if t then callback(f, actor_table(t)) end
  end
  api.ForEachActor = function(f) each(living(function() return true end), f) end
  api.ForEachEnemy = function(a, f)
    local team = actors[id(a)].team
    each(living(function(x) return x.team ~= team end), f)
  end
  api.ForEachActorInRadius = function(c, r, f) each(living(in_radius(c, r)), f) end
  api.ForEachCoordInRadius = function(c, r, f)
    local x, y = xy(c)
    r = fl(mmax(0, mmin(num(r), 5)))
    for yy = mmax(y - r, 0.0), mmin(y + r, W.height - 1) do
      for xx = mmax(x - r, 0.0), mmin(x + r, W.width - 1) do
        if not callback(f, coord(xx, yy)) then return end
      end
    end
  end
  api.Repeat = function(n, f)
    n = fl(mmax(0, mmin(num(n), 100)))
    for i = 1.0, n do
      if not callback(f, i) then break end
    end
  end
  api.CountActorsInRadius = function(c, r) return #living(in_radius(c, r)) + 0.0 end
  api.IsWalkable = function(c) return walkable(xy(c)) end
  api.IsFree = function(c) return free(xy(c)) end
  api.LevelWidth = function() return W.width end
  api.LevelHeight = function() return W.height end
  api.Depth = function() return W.depth end
  api.Turn = function() return W.turn end
  api.Distance = function(a, b)
    local ax, ay = xy(a)
    local bx, by = xy(b)
    return mmax(abs(ax - bx), abs(ay - by))
  end
  api.MakeCoord = function(x, y) return coord(num(x), num(y)) end
  api.Offset = function(c, dx, dy)
    if type(c) ~= "table" then c = coord(0.0, 0.0) end
    return coord(num(num(c.x) + num(dx)), num(num(c.y) + num(dy)))
  end
  api.RandomCoordNear = function(c, r)
    local x, y = xy(c)
    r = fl(mmax(0, mmin(num(r), 50)))
    local dx = below(2 * r + 1) - r
    local dy = below(2 * r + 1) - r
    return coord(x + dx, y + dy)
  end
  api.Damage = function(a, n) deal_damage(id(a), n, "physical") end
  api.DamageOfKind = function(a, n, k) deal_damage(id(a), n, k) end
  api.HealActor = function(a, n) heal(id(a), n) end
  api.GrantShield = function(a, n)
    local x = actors[id(a)]
    x.shield = mmin(x.shield + mmax(num(n), 0.0), 1e6)
    say("shield " .. x.name .. " " .. fmt(x.shield))
  end
  api.ShieldOf = function(a) return actors[id(a)].shield end
  api.ModifyPower = function(a, n)
    local x = actors[id(a)]
    x.power = mmax(0.0, mmin(x.power + num(n), 1e6))
  end
  api.Stun = function(a, n)
    local x = actors[id(a)]
    x.stun = mmax(x.stun, fl(mmax(0, mmin(num(n), 10))))
  end
  api.IsStunned = function(a) return actors[id(a)].stun > 0 end
  api.Teleport = function(a, c) return move_to(id(a), c) end
  api.Push = function(a, dx, dy)
    local x = actors[id(a)]
    dx, dy = mmax(-10, mmin(cell(dx), 10)), mmax(-10, mmin(cell(dy), 10))
    local sx = dx > 0 and 1 or (dx < 0 and -1 or 0)
    local sy = dy > 0 and 1 or (dy < 0 and -1 or 0)
    for _ = 1, mmax(abs(dx), abs(dy)) do
      if not free(x.x + sx, x.y + sy) then break end
      x.x, x.y = x.x + sx, x.y + sy
    end
  end
  api.SpawnMonster = function(n, c)
    local x, y = xy(c)
    if #actors >= 24 or not free(x, y) then return false end
    new_actor(ssub(str(n), 1, 40), 8.0, 1.0, 1.0, x, y, false)
    return true
  end
  api.RemoveEffect = function(a, n)
    local list = actors[id(a)].effects
    for k = #list, 1, -1 do
      if list[k].name == n then tremove(list, k) end
    end
  end
  api.EffectStacks = function(a, n)
    local total = 0.0
    for _, e in ipairs(actors[id(a)].effects) do
      if e.name == n then total = total + num(e.data.stacks) end
    end
    return total
  end
  api.Log = function(s) say("log " .. str(s)) end
  api.Random = function(lo, hi)
    lo, hi = ceil(num(lo)) + 0.0, fl(num(hi))
    if lo > hi then lo, hi = hi, lo end
    return lo + below(mmax(hi - lo + 1, 1))
  end
  api.RandomFloat = function() return float() end
  api.Chance = function(p) return float() < num(p) end
  api.Min = function(a, b) return mmin(num(a), num(b)) end
  api.Max = function(a, b) return mmax(num(a), num(b)) end
  api.Abs = function(a) return abs(num(a)) end
  api.Floor = function(a) return fl(num(a)) end
  api.Ceil = function(a) return ceil(num(a)) + 0.0 end
  api.Round = function(a) return round(num(a)) end
  api.Clamp = function(x, lo, hi)
    x, lo, hi = num(x), num(lo), num(hi)
    return mmin(mmax(x, mmin(lo, hi)), mmax(hi, lo))
  end
  api.Sqrt = function(a) a = num(a); if a > 0 then return sqrt(a) end return 0.0 end
  api.NumStr = function(a)
    a = num(a)
    if a == floor(a) then return sformat("%d", floor(a)) end
    return sformat("%.14g", a)
  end
  api.BoolStr = function(b) return b and "true" or "false" end
  api.Upper = function(s) return supper(str(s)) end
  api.Lower = function(s) return slower(str(s)) end
  api.Len = function(s) return #str(s) + 0.0 end
  api.Sub = function(s, a, b)
    s = str(s)
    a = mmax(round(num(a)), 1)
    b = mmin(round(num(b)), #s)
    if a > b then return "" end
    return ssub(s, tointeger(a), tointeger(b))
  end
  api.Contains = function(s, p)
    s, p = str(s), str(p)
    return p == "" or sfind(s, p, 1, true) ~= nil
  end
  for k, f in pairs(api) do env[k] = f end
  env.__budget = M.HOOK_BUDGET + 0.0

  -- Runs f(...) under a fresh deadline-checked hook; the error becomes (kind, message).
  local function guarded(f, ...)
    arm()
    local ok, a, b = pcall(f, ...)
    if ok then return true, a, b end
    local where = hooks_running[depth] or "the game"
    depth = 0
    hooks_running = {}
    if a == TIMEOUT then return false, "timeout", where .. " ran past the time limit" end
    if a == BUDGET then return false, "budget", where .. " ran past its instruction budget" end
    local msg = type(a) == "string" and a or "error object"
    if sfind(msg, "not enough memory", 1, true) then return false, "memory", where .. " ran out of memory" end
    return false, "runtime", "Lua error in " .. where .. ": " .. msg
  end
  local function status(ok, a, b)
    if ok then
      if a then return "ok\t" .. a .. "\t" .. b end
      return "ok"
    end
    return "error\t" .. a .. "\t" .. b
  end

  -- The prelude defines __cat, __step, __tick in the scripts' environment.
  do
    local chunk = lload(prelude, "=prelude", "t", env)
    chunk()
  end

  local function load_script(src)
    if type(src) ~= "string" then error("script source is not a string", 0) end
    local chunk, err = lload(src, "=script", "t", env)
    if not chunk then error("does not load: " .. tostring(err), 0) end
    local top = { name = "script", hooks = { top = chunk } }
    local t = call_hook(top, "top")
    if type(t) ~= "table" or type(t.kind) ~= "string" or type(t.name) ~= "string" or type(t.hooks) ~= "table" then
      error("the chunk does not return { kind, name, hooks }", 0)
    end
    local script = { name = ssub(t.name, 1, 40), hooks = t.hooks, kind = t.kind }
    if t.kind == "effect" then
      effects[script.name] = script
      effect_order[#effect_order + 1] = script.name
      env[script.name] = function(actor, data) apply_effect(script.name, actor, data) end
    else
      talents[#talents + 1] = script
    end
    say("load " .. t.kind .. " " .. script.name)
    return t.kind, script.name
  end

  -- Puts every loaded effect on a random actor and logs its description.
  local function start()
    for _, name in ipairs(effect_order) do
      local target = below(#actors) + 1
      local power, turns = 1 + below(5), 2 + below(6)
      apply_effect(name, actor_table(target), { power = power, turns = turns, stacks = 1.0, label = "" })
      local d = call_hook(effects[name], "GetDescription", { power = 1.0, turns = 1.0, stacks = 1.0, label = "" })
      if type(d) == "string" then
        descriptions[name] = (sgsub(ssub(d, 1, M.MAX_LINE), "[\r\n\t]", " "))
        say("describe " .. name .. ": " .. d)
      end
    end
  end

  local function use_talent(i, script)
    local me = actor_table(i)
    local can = true
    if script.hooks.CanUse ~= nil then can = call_hook(script, "CanUse", me) end
    if can ~= true then return end
    local x = actors[i].x + below(5) - 2
    local y = actors[i].y + below(5) - 2
    say("use " .. actors[i].name .. " " .. script.name .. " at " .. fmt(x) .. "," .. fmt(y))
    call_hook(script, "Do", me, coord(x, y))
    local d = call_hook(script, "GetDescription", me)
    if type(d) ~= "string" then error(script.name .. ".GetDescription returned no string", 0) end
    descriptions[script.name] = (sgsub(ssub(d, 1, M.MAX_LINE), "[\r\n\t]", " "))
  end

  local function act(i)
    local a = actors[i]
    if a.hp <= 0 then return end
    if a.stun > 0 then
      a.stun = a.stun - 1
      say("stunned " .. a.name)
      return
    end
    if #talents > 0 and below(2) == 0 then
      return use_talent(i, talents[floor(below(#talents)) + 1])
    end
    local t = nearest_enemy(i)
    if t and dist(i, t) <= 1 then
      say("attack " .. a.name .. " " .. actors[t].name)
      return deal_damage(t, a.power, "physical")
    end
    local x, y = a.x + below(3) - 1, a.y + below(3) - 1
    if free(x, y) then a.x, a.y = x, y end
  end

  -- Effects tick at the end of the turn; turns run down to removal.
  local function tick_effects(i)
    local list = {}
    for k, e in ipairs(actors[i].effects) do list[k] = e end
    for _, e in ipairs(list) do
      local script = effects[e.name]
      local me = actor_table(i)
      call_hook(script, "OnTurnEnd", me, e.data)
      local left = num(e.data.turns) - 1
      e.data.turns = left
      if left <= 0 then
        local l = actors[i].effects
        for k = #l, 1, -1 do
          if l[k].data == e.data then tremove(l, k) end
        end
        call_hook(script, "OnRemove", me, e.data)
      end
    end
  end

  local function turn()
    W.turn = W.turn + 1
    say("turn " .. fmt(W.turn))
    local n = #actors
    for i = 1, n do act(i) end
    for i = 1, #actors do tick_effects(i) end
    -- Keep the level lively: at most 12 actors, at least 2 alive.
    if #living(function() return true end) < 2 and #actors < 12 then
      local x, y = free_cell()
      new_actor("goblin" .. #actors, 15.0, 2.0, 1.0, x, y, false)
    end
  end

  function g.load(src)
    local ok, a, b = guarded(load_script, src)
    if not ok and a == "runtime" then
      a = "load"
      b = (sgsub(b, "^Lua error in the game: ", ""))
    end
    return status(ok, a, b)
  end
  function g.start() return status(guarded(start)) end
  function g.turn() return status(guarded(turn)) end
  function g.set_time_limit(ms) deadline = now() + num(ms) end
  function g.log_len() return #log end
  function g.log_text(k)
    k = tointeger(num(k)) or 0
    if k >= #log then return "" end
    return tconcat(log, "\n", k + 1, #log)
  end
  function g.state_text()
    local out = {}
    for _, a in ipairs(actors) do
      out[#out + 1] = tconcat({ a.name, fmt(a.hp), fmt(a.max_hp), fmt(a.team), fmt(a.shield), fmt(a.stun),
        fmt(a.x), fmt(a.y), a.player and "1" or "0" }, "\t")
    end
    for _, t in ipairs(talents) do out[#out + 1] = "describe\t" .. t.name .. "\t" .. (descriptions[t.name] or "") end
    for _, n in ipairs(effect_order) do out[#out + 1] = "describe\t" .. n .. "\t" .. (descriptions[n] or "") end
    return tconcat(out, "\n")
  end
  return g
end

return M
