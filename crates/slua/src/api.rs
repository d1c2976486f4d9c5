//! The scripting API a script may call: named table types (fields, methods), global
//! functions and the hooks of each script kind. Loaded at run time from JSON (the
//! demo's is `static/api/dungeon.json`) so users can bring their own API.
//!
//! Besides lookup, [`Api`] precomputes the *type graph* closure the prefix-expression
//! node searches: from a table type, which types can a chain of field reads and
//! method calls end in.

use std::collections::HashMap;
use std::fmt;

use serde::Deserialize;

use crate::types::Type;

/// A field of an API table type.
#[derive(Clone, Debug)]
pub struct Field {
    /// Field name.
    pub name: String,
    /// Field type (base or table type).
    pub ty: Type,
    /// Whether scripts may assign it.
    pub mutable: bool,
    /// For optional fields: the Lua literal used when a constructor omits it.
    pub default: Option<String>,
}

/// A function of the API (global function, method or hook signature).
#[derive(Clone, Debug)]
pub struct Function {
    /// Its name.
    pub name: String,
    /// Parameter names (for documentation and hook parameter hints).
    pub param_names: Vec<String>,
    /// Its type (a [`Type::Func`]).
    pub ty: Type,
    /// One line saying what it does.
    pub doc: String,
    /// For hooks: whether every script of the kind must define it.
    pub required: bool,
}

/// A named fixed-shape table type.
#[derive(Clone, Debug)]
pub struct TableType {
    /// Type name.
    pub name: String,
    /// Whether scripts may build it with a table constructor.
    pub constructible: bool,
    /// Fields in declaration order (constructors list them in this order).
    pub fields: Vec<Field>,
    /// Methods, called with `.`; `self` is passed implicitly.
    pub methods: Vec<Function>,
    /// One line saying what it is.
    pub doc: String,
}

/// A loaded API.
#[derive(Clone, Debug)]
pub struct Api {
    /// Table types; [`Type::Table`] indexes this.
    pub tables: Vec<TableType>,
    /// Table type names, parallel to `tables` (for [`Type::display`]).
    pub table_names: Vec<String>,
    /// Global functions.
    pub functions: Vec<Function>,
    /// Hooks per script kind (`effect`, `talent`); `GetDescription` is the last hook.
    pub hooks: HashMap<String, Vec<Function>>,
    /// `reach[t]`: the types reachable from table `t` by field reads and method calls.
    reach: Vec<Vec<Type>>,
}

/// Why an API file could not be loaded; names the offending entry.
#[derive(Debug)]
pub enum ApiError {
    /// The JSON is malformed or has the wrong shape.
    Json(String),
    /// A type string could not be read.
    BadType {
        /// Where it was (e.g. `function Damage, parameter 2`).
        at: String,
        /// The type text.
        text: String,
    },
    /// Two entries share a name.
    Duplicate(String),
    /// Something the engine needs is missing (e.g. a hook kind).
    Missing(String),
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ApiError::Json(e) => write!(f, "API file is not valid: {e}"),
            ApiError::BadType { at, text } => write!(f, "API {at}: unknown type `{text}`"),
            ApiError::Duplicate(n) => write!(f, "API: `{n}` is declared twice"),
            ApiError::Missing(n) => write!(f, "API: missing {n}"),
        }
    }
}

impl std::error::Error for ApiError {}

#[derive(Deserialize)]
struct RawApi {
    types: Vec<RawTable>,
    functions: Vec<RawFunction>,
    hooks: HashMap<String, Vec<RawFunction>>,
}

#[derive(Deserialize)]
struct RawTable {
    name: String,
    #[serde(default)]
    constructible: bool,
    #[serde(default)]
    doc: String,
    fields: Vec<RawField>,
    #[serde(default)]
    methods: Vec<RawFunction>,
}

#[derive(Deserialize)]
struct RawField {
    name: String,
    #[serde(rename = "type")]
    ty: String,
    #[serde(default)]
    mutable: bool,
    #[serde(default)]
    default: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct RawParam {
    name: String,
    #[serde(rename = "type")]
    ty: String,
}

#[derive(Deserialize)]
struct RawFunction {
    name: String,
    params: Vec<RawParam>,
    ret: String,
    #[serde(default)]
    doc: String,
    #[serde(default)]
    required: bool,
}

/// The demo game's API (`static/api/dungeon.json`), compiled in for the browser and tests.
pub const DUNGEON_JSON: &str = include_str!("../../../static/api/dungeon.json");

/// Lua words and sLua words no script name may take.
pub const RESERVED: &[&str] = &[
    "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if", "in",
    "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while", "hook",
    "effect", "talent", "self", "number", "string", "boolean", "void",
];

impl Api {
    /// The demo game's API.
    pub fn dungeon() -> Api {
        Api::from_json(DUNGEON_JSON).expect("the bundled dungeon API is valid (tested)")
    }

    /// Loads an API from its JSON text.
    pub fn from_json(text: &str) -> Result<Api, ApiError> {
        let raw: RawApi = serde_json::from_str(text).map_err(|e| ApiError::Json(e.to_string()))?;
        let table_names: Vec<String> = raw.types.iter().map(|t| t.name.clone()).collect();
        let mut seen = std::collections::HashSet::new();
        for n in table_names.iter().chain(raw.functions.iter().map(|f| &f.name)) {
            if !seen.insert(n.clone()) {
                return Err(ApiError::Duplicate(n.clone()));
            }
        }
        let parse = |at: String, text: &str| {
            parse_type(text, &table_names).ok_or(ApiError::BadType { at, text: text.to_string() })
        };
        let func = |kind: &str, f: &RawFunction| -> Result<Function, ApiError> {
            let mut params = Vec::new();
            for (i, p) in f.params.iter().enumerate() {
                params.push(parse(format!("{kind} {}, parameter {}", f.name, i + 1), &p.ty)?);
            }
            let ret = parse(format!("{kind} {}, return type", f.name), &f.ret)?;
            Ok(Function {
                name: f.name.clone(),
                param_names: f.params.iter().map(|p| p.name.clone()).collect(),
                ty: Type::func(params, ret),
                doc: f.doc.clone(),
                required: f.required,
            })
        };
        let mut tables = Vec::new();
        for t in &raw.types {
            let mut fields = Vec::new();
            for fd in &t.fields {
                let ty = parse(format!("type {}, field {}", t.name, fd.name), &fd.ty)?;
                let default = fd.default.as_ref().map(|v| match v {
                    serde_json::Value::String(s) => format!("{s:?}"),
                    other => other.to_string(),
                });
                fields.push(Field { name: fd.name.clone(), ty, mutable: fd.mutable, default });
            }
            let methods = t
                .methods
                .iter()
                .map(|m| func(&format!("method {}.", t.name), m))
                .collect::<Result<_, _>>()?;
            tables.push(TableType {
                name: t.name.clone(),
                constructible: t.constructible,
                fields,
                methods,
                doc: t.doc.clone(),
            });
        }
        let functions =
            raw.functions.iter().map(|f| func("function", f)).collect::<Result<_, _>>()?;
        let mut hooks = HashMap::new();
        for (kind, list) in &raw.hooks {
            let fs: Vec<Function> =
                list.iter().map(|f| func("hook", f)).collect::<Result<_, _>>()?;
            if fs.last().map(|f| f.name.as_str()) != Some("GetDescription") {
                return Err(ApiError::Missing(format!("GetDescription as the last {kind} hook")));
            }
            hooks.insert(kind.clone(), fs);
        }
        for kind in ["effect", "talent"] {
            if !hooks.contains_key(kind) {
                return Err(ApiError::Missing(format!("hooks for `{kind}` scripts")));
            }
        }
        let mut api = Api { tables, table_names, functions, hooks, reach: Vec::new() };
        api.reach = api.compute_reach();
        Ok(api)
    }

    /// Index of the table type called `name`.
    pub fn table(&self, name: &str) -> Option<usize> {
        self.table_names.iter().position(|n| n == name)
    }

    /// The global function called `name`.
    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions.iter().find(|f| f.name == name)
    }

    /// Whether a chain of field reads / method calls from `from` can end in a type
    /// accepted by `want`.
    pub fn reaches(&self, from: &Type, want: &dyn Fn(&Type) -> bool) -> bool {
        if want(from) {
            return true;
        }
        match from {
            Type::Table(i) => self.reach[*i].iter().any(want),
            Type::Func(f) => self.reaches(&f.ret, want),
            _ => false,
        }
    }

    /// Whether a statement can start from a value of type `from`: some chain ends in a
    /// call or in a mutable field.
    pub fn stmt_reaches(&self, from: &Type) -> bool {
        match from {
            Type::Func(_) => true,
            Type::Table(i) => {
                let t = &self.tables[*i];
                !t.methods.is_empty()
                    || t.fields.iter().any(|f| f.mutable)
                    || self.reach[*i].iter().any(|r| match r {
                        Type::Table(j) => {
                            !self.tables[*j].methods.is_empty()
                                || self.tables[*j].fields.iter().any(|f| f.mutable)
                        }
                        _ => false,
                    })
            }
            _ => false,
        }
    }

    fn compute_reach(&self) -> Vec<Vec<Type>> {
        let direct = |i: usize| -> Vec<Type> {
            let t = &self.tables[i];
            let mut out: Vec<Type> = t.fields.iter().map(|f| f.ty.clone()).collect();
            out.extend(t.methods.iter().filter_map(|m| m.ty.as_func().map(|f| f.ret.clone())));
            out
        };
        let mut reach: Vec<Vec<Type>> = (0..self.tables.len()).map(direct).collect();
        loop {
            let mut changed = false;
            for i in 0..reach.len() {
                let mut add = Vec::new();
                for t in &reach[i] {
                    if let Type::Table(j) = t {
                        for u in &reach[*j] {
                            if !reach[i].contains(u) && !add.contains(u) {
                                add.push(u.clone());
                            }
                        }
                    }
                }
                if !add.is_empty() {
                    changed = true;
                    reach[i].extend(add);
                }
            }
            if !changed {
                return reach;
            }
        }
    }

    /// A compact text listing of the API for prompting a model.
    pub fn summary(&self) -> String {
        let n = &self.table_names;
        let mut s = String::new();
        for t in &self.tables {
            s.push_str(&format!(
                "type {}{} -- {}\n",
                t.name,
                if t.constructible { " (constructible)" } else { "" },
                t.doc
            ));
            for f in &t.fields {
                s.push_str(&format!(
                    "  {}: {}{}{}\n",
                    f.name,
                    f.ty.display(n),
                    if f.mutable { " (mutable)" } else { "" },
                    f.default
                        .as_ref()
                        .map(|d| format!(" (optional, default {d})"))
                        .unwrap_or_default()
                ));
            }
            for m in &t.methods {
                s.push_str(&format!("  {}{} -- {}\n", m.name, signature(m, n), m.doc));
            }
        }
        s.push_str("functions:\n");
        for f in &self.functions {
            s.push_str(&format!("  {}{} -- {}\n", f.name, signature(f, n), f.doc));
        }
        let mut kinds: Vec<_> = self.hooks.keys().collect();
        kinds.sort();
        for k in kinds {
            s.push_str(&format!("{k} hooks:\n"));
            for f in &self.hooks[k] {
                s.push_str(&format!(
                    "  {}{}{} -- {}\n",
                    f.name,
                    signature(f, n),
                    if f.required { " (required)" } else { "" },
                    f.doc
                ));
            }
        }
        s
    }
}

fn signature(f: &Function, names: &[String]) -> String {
    let ft = f.ty.as_func().expect("functions have function types");
    let ps: Vec<String> = f
        .param_names
        .iter()
        .zip(&ft.params)
        .map(|(p, t)| format!("{p}: {}", t.display(names)))
        .collect();
    format!("({}) -> {}", ps.join(", "), ft.ret.display(names))
}

/// Parses a type written in sLua syntax (`number`, `Actor`, `(Actor, number) -> void`).
pub fn parse_type(text: &str, tables: &[String]) -> Option<Type> {
    let mut p = TypeParser { s: text.as_bytes(), i: 0, tables };
    let t = p.ty()?;
    p.ws();
    (p.i == p.s.len()).then_some(t)
}

struct TypeParser<'a> {
    s: &'a [u8],
    i: usize,
    tables: &'a [String],
}

impl TypeParser<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }
    fn eat(&mut self, t: &str) -> bool {
        self.ws();
        if self.s[self.i..].starts_with(t.as_bytes()) {
            self.i += t.len();
            true
        } else {
            false
        }
    }
    fn ty(&mut self) -> Option<Type> {
        if self.eat("(") {
            let mut params = Vec::new();
            if !self.eat(")") {
                loop {
                    params.push(self.ty()?);
                    if self.eat(")") {
                        break;
                    }
                    if !self.eat(",") {
                        return None;
                    }
                }
            }
            if !self.eat("->") {
                return None;
            }
            let ret = self.ty()?;
            return Some(Type::func(params, ret));
        }
        self.ws();
        let start = self.i;
        while self.i < self.s.len()
            && (self.s[self.i].is_ascii_alphanumeric() || self.s[self.i] == b'_')
        {
            self.i += 1;
        }
        let word = std::str::from_utf8(&self.s[start..self.i]).ok()?;
        match word {
            "number" => Some(Type::Number),
            "string" => Some(Type::String),
            "boolean" => Some(Type::Boolean),
            "void" => Some(Type::Void),
            _ => self.tables.iter().position(|t| t == word).map(Type::Table),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dungeon_api_loads_with_about_fifty_functions() {
        let api = Api::dungeon();
        let methods: usize = api.tables.iter().map(|t| t.methods.len()).sum();
        assert!(api.functions.len() + methods >= 50, "{} functions", api.functions.len());
        let actor = Type::Table(api.table("Actor").unwrap());
        assert!(api.reaches(&actor, &|t| *t == Type::Number));
        assert!(api.stmt_reaches(&actor));
        assert!(!api.summary().is_empty());
    }

    #[test]
    fn bad_types_are_reported_by_name() {
        let text = r#"{"types":[],"functions":[{"name":"F","params":[{"name":"a","type":"Nope"}],"ret":"void"}],"hooks":{}}"#;
        let err = Api::from_json(text).unwrap_err().to_string();
        assert!(err.contains("F, parameter 1") && err.contains("Nope"), "{err}");
    }

    #[test]
    fn type_strings_parse() {
        let t = parse_type("(number, (string) -> boolean) -> void", &[]).unwrap();
        assert_eq!(t.display(&[]).to_string(), "(number, (string) -> boolean) -> void");
        assert!(parse_type("(number", &[]).is_none());
    }
}
