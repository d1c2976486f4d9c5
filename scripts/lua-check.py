#!/usr/bin/env python3
"""Checks translated sLua in real Lua 5.4, independently of the project's own checker
and engine: the browser test runs it on the Lua the page shows, and the sLua tests on
the translation of every hand-written script.

    python3 scripts/lua-check.py [--api static/api/dungeon.json] [--effect NAME]... FILE.lua

1. `luac5.4 -p`: Lua's own compiler parses the chunk.
2. `luac5.4 -l -l -p`: every global the chunk reads is an API function, an effect named
   with --effect, or a translation helper (`__cat`, `__step`, `__tick`); it writes none.
3. `lua5.4` runs the chunk in a sandbox built here from the API file alone: every API
   function is a stub that checks the type of each argument (calls back each function
   argument once with stub values) and returns a stub value of its declared type; actors,
   coordinates, effect data and damage info are plain tables with their declared
   fields and methods. The chunk must return `{ kind = "effect"|"talent", name = NAME,
   hooks = {...} }` with only the kind's hooks, the required ones included; each hook is
   then called with stub arguments of its declared types and must return its declared
   type (nothing for void).

Exit 0 when all hold; otherwise exit 1 with Lua's or the harness's message. Needs
`lua5.4` and `luac5.4` (Debian's lua5.4, installed by scripts/setup.sh).
"""

import argparse
import json
import pathlib
import re
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
HELPERS = ["__cat", "__step", "__tick"]

# The sandbox: `API` (functions, types, hooks, effects) is filled in from the API file.
HARNESS = r"""
local API, path, expected_kind = ...
local function fail(msg) io.stderr:write("lua-check: ", msg, "\n"); os.exit(1) end

local stub, check_arg
local function fn_params(ty)  -- "(Actor, number) -> void" -> {"Actor", "number"}
  local inner = ty:match("^%((.*)%)%s*%->")
  local out = {}
  if inner then for p in inner:gmatch("[^,%s]+") do out[#out + 1] = p end end
  return out
end
function stub(ty)
  if ty == "number" then return 1.0 end
  if ty == "string" then return "s" end
  if ty == "boolean" then return true end
  if ty == "void" then return nil end
  local t = API.types[ty]
  if not t then fail("the API names an unknown type " .. ty) end
  local v = { __type = ty }
  for _, f in ipairs(t.fields) do v[f.name] = stub(f.type) end
  for _, m in ipairs(t.methods) do
    v[m.name] = function(self, ...)
      if type(self) ~= "table" or self.__type ~= ty then fail(ty .. ":" .. m.name .. " called without its object (use ':')") end
      local args = table.pack(...)
      for i, p in ipairs(m.params) do check_arg(ty .. ":" .. m.name, i, p, args[i]) end
      return stub(m.ret)
    end
  end
  return setmetatable(v, {
    __index = function(_, k) fail(ty .. " has no field " .. tostring(k)) end,
    __newindex = function(_, k) fail(ty .. " has no field " .. tostring(k) .. " to set") end,
  })
end
function check_arg(fname, i, p, v)
  local ty = p.type
  if ty:sub(1, 1) == "(" then
    if type(v) ~= "function" then fail(fname .. ": argument " .. i .. " (" .. p.name .. ") must be a function, got " .. type(v)) end
    local args = {}
    for j, pt in ipairs(fn_params(ty)) do args[j] = stub(pt) end
    v(table.unpack(args))
  elseif ty == "number" or ty == "string" or ty == "boolean" then
    if type(v) ~= ty then fail(fname .. ": argument " .. i .. " (" .. p.name .. ") must be " .. ty .. ", got " .. type(v)) end
  elseif type(v) ~= "table" then
    fail(fname .. ": argument " .. i .. " (" .. p.name .. ") must be a " .. ty .. " table, got " .. type(v))
  end
end

local env = {}
for _, f in ipairs(API.functions) do
  env[f.name] = function(...)
    local args = table.pack(...)
    if args.n > #f.params then fail(f.name .. ": " .. args.n .. " arguments, declared " .. #f.params) end
    for i, p in ipairs(f.params) do check_arg(f.name, i, p, args[i]) end
    return stub(f.ret)
  end
end
for _, name in ipairs(API.effects) do
  env[name] = function(target, data)
    if type(target) ~= "table" or type(data) ~= "table" then fail("effect " .. name .. ": expects (Actor, ParamData)") end
  end
end
-- The translation's helpers, written from their documented meaning (not copied).
local budget = 1000
env.__cat = function(a, b) return a .. b end
env.__step = function(s) if s ~= s or s == 0 then return 1.0 end return s end
env.__tick = function() budget = budget - 1; return budget >= 0 end
setmetatable(env, {
  __index = function(_, k) fail("the chunk reads the undefined global " .. tostring(k)) end,
  __newindex = function(_, k) fail("the chunk writes the global " .. tostring(k)) end,
})

local f = io.open(path, "rb") or fail("cannot open " .. path)
local src = f:read("a"); f:close()
local chunk, err = load(src, "@" .. path, "t", env)
if not chunk then fail("Lua refuses the chunk: " .. err) end
local ok, script = pcall(chunk)
if not ok then fail("running the chunk: " .. tostring(script)) end
if type(script) ~= "table" then fail("the chunk returned " .. type(script) .. ", not a table") end
local kind = script.kind
if kind ~= "effect" and kind ~= "talent" then fail("kind is " .. tostring(kind)) end
if expected_kind ~= "" and kind ~= expected_kind then fail("kind is " .. kind .. ", expected " .. expected_kind) end
if type(script.name) ~= "string" or not script.name:match("^[%a_][%w_]*$") then fail("name is " .. tostring(script.name)) end
if type(script.hooks) ~= "table" then fail("hooks is " .. type(script.hooks)) end
local declared, ran = {}, 0
for _, h in ipairs(API.hooks[kind]) do declared[h.name] = h end
for name, fn in pairs(script.hooks) do
  if not declared[name] then fail(kind .. " has no hook " .. tostring(name)) end
  if type(fn) ~= "function" then fail("hook " .. name .. " is a " .. type(fn)) end
end
for _, h in ipairs(API.hooks[kind]) do
  local fn = script.hooks[h.name]
  if fn == nil then
    if h.required then fail("the required hook " .. h.name .. " is missing") end
  else
    local args = {}
    for i, p in ipairs(h.params) do args[i] = stub(p.type) end
    local res = table.pack(pcall(fn, table.unpack(args)))
    if not res[1] then fail("hook " .. h.name .. ": " .. tostring(res[2])) end
    if h.ret == "void" then
      if res.n > 1 and res[2] ~= nil then fail("hook " .. h.name .. " returned a " .. type(res[2]) .. ", declared void") end
    elseif type(res[2]) ~= h.ret then
      fail("hook " .. h.name .. " returned " .. type(res[2]) .. ", declared " .. h.ret)
    end
    ran = ran + 1
  end
end
print(string.format("lua-check: %s %s: compiled, loaded and ran %d hooks in %s", kind, script.name, ran, _VERSION))
"""


def lua_literal(v):
    """A JSON value as a Lua table constructor."""
    if isinstance(v, dict):
        return "{" + ", ".join(f"[{json.dumps(k)}] = {lua_literal(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "{" + ", ".join(lua_literal(x) for x in v) + "}"
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "nil"
    # JSON's escapes of a string without control characters (\" \\) are Lua's too.
    return json.dumps(v, ensure_ascii=False)


def globals_used(listing):
    """(read, written) global names in a `luac -l -l` listing (accesses through _ENV)."""
    read, written = set(), set()
    for line in listing.splitlines():
        m = re.search(r"\b(GETTABUP|SETTABUP)\b.*;\s*_ENV\s+\"([^\"]+)\"", line)
        if m:
            (read if m.group(1) == "GETTABUP" else written).add(m.group(2))
    return read, written


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file", type=pathlib.Path)
    ap.add_argument("--api", type=pathlib.Path, default=ROOT / "static/api/dungeon.json")
    ap.add_argument("--effect", action="append", default=[], help="an effect the script may apply")
    ap.add_argument("--kind", choices=["effect", "talent"], default="", help="the kind the script must be")
    args = ap.parse_args()
    api = json.loads(args.api.read_text())

    def run(cmd, **kw):
        try:
            return subprocess.run(cmd, capture_output=True, text=True, **kw)
        except FileNotFoundError:
            sys.exit(f"lua-check: {cmd[0]} not found: run bash scripts/setup.sh (Debian's lua5.4)")

    r = run(["luac5.4", "-p", str(args.file)])
    if r.returncode != 0:
        sys.exit(f"lua-check: luac5.4 refuses it: {r.stderr.strip()}")
    r = run(["luac5.4", "-l", "-l", "-p", str(args.file)])
    read, written = globals_used(r.stdout)
    allowed = {f["name"] for f in api["functions"]} | set(args.effect) | set(HELPERS)
    if read - allowed:
        sys.exit(f"lua-check: reads globals that are not API functions, effects or helpers: {sorted(read - allowed)}")
    if written:
        sys.exit(f"lua-check: writes globals: {sorted(written)}")

    table = {
        "functions": api["functions"],
        "types": {t["name"]: {"fields": t.get("fields", []), "methods": t.get("methods", [])} for t in api["types"]},
        "hooks": api["hooks"],
        "effects": args.effect,
    }
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as h:
        h.write(f"local API = {lua_literal(table)}\nlocal run = assert(load([==[{HARNESS}]==]))\nrun(API, ...)\n")
    try:
        r = run(["lua5.4", h.name, str(args.file), args.kind], timeout=30)
    finally:
        pathlib.Path(h.name).unlink()
    sys.stdout.write(r.stdout)
    if r.returncode != 0:
        sys.exit(r.stderr.strip() or f"lua-check: lua5.4 exited with {r.returncode}")


if __name__ == "__main__":
    main()
