//! A Lark grammar for a Python subset that llguidance can run: llguidance has no
//! INDENT / DEDENT layer, so indentation is spelled out in the grammar. The newline
//! terminal `NL_k` carries the next line's indentation (blank and comment lines
//! before it included): exactly `4k` spaces, for depths `k` up to [`DEPTH`], and
//! every rule that holds statements is repeated per depth (`block_k`, `suite_k`,
//! `if_k`, ...). Inside brackets newlines are whitespace, which a grammar cannot
//! switch on and off, so the optional terminal `BNL` (newlines plus any
//! indentation) is allowed where Python's bracketed continuation lines occur:
//! after an opening bracket and a comma, before a closing bracket, around binary
//! operators, between adjacent strings, before `for` / `if` in comprehensions.
//! That makes the grammar accept a superset of Python (e.g. a newline after a
//! binary operator outside brackets, deeper indentation than 4 spaces per level
//! through the ignored blanks): for a benchmark it only has to accept the files fed
//! to it (checked on every step), and it keeps the parser's work comparable: an
//! Earley parse of full expression syntax, strings, numbers, names, comments.

/// Deepest indentation level (4 spaces each) the grammar spells out.
pub const DEPTH: usize = 12;

/// Rules that hold statements, written once with `@` for the depth and `@+` for the
/// depth below it.
const PER_DEPTH: &str = r#"
block_@: stmt_@ (NL_@ stmt_@)*
stmt_@: simple_stmts | compound_@
suite_@: simple_stmts | NL_@+ block_@+
compound_@: if_@ | while_@ | for_@ | try_@ | with_@ | funcdef_@ | classdef_@ | decorated_@
if_@: "if" namedexpr ":" suite_@ (NL_@ "elif" namedexpr ":" suite_@)* (NL_@ "else" ":" suite_@)?
while_@: "while" namedexpr ":" suite_@ (NL_@ "else" ":" suite_@)?
for_@: "for" exprlist "in" testlist ":" suite_@ (NL_@ "else" ":" suite_@)?
try_@: "try" ":" suite_@ (NL_@ "except" (test ("as" NAME)?)? ":" suite_@)* (NL_@ "else" ":" suite_@)? (NL_@ "finally" ":" suite_@)?
with_@: "with" with_item ("," with_item)* ":" suite_@
funcdef_@: "def" NAME "(" BNL? parameters? BNL? ")" ("->" test)? ":" suite_@
classdef_@: "class" NAME ("(" BNL? arglist? BNL? ")")? ":" suite_@
decorated_@: ("@" namedexpr NL_@)+ (funcdef_@ | classdef_@)
"#;

/// Rules that do not depend on the depth.
const COMMON: &str = r#"
start: NL_0? block_0 NL_0?

simple_stmts: small_stmt (";" small_stmt)* ";"?
small_stmt: expr_stmt | "pass" | "break" | "continue" | return_stmt | raise_stmt
    | global_stmt | nonlocal_stmt | del_stmt | assert_stmt | import_stmt | yield_expr
expr_stmt: testlist_star (annassign | augassign (yield_expr | testlist) | ("=" (yield_expr | testlist_star))*)
annassign: ":" test ("=" (yield_expr | testlist_star))?
augassign: "+=" | "-=" | "*=" | "/=" | "//=" | "%=" | "&=" | "|=" | "^=" | "<<=" | ">>=" | "**=" | "@="
return_stmt: "return" testlist_star?
raise_stmt: "raise" (test ("from" test)?)?
global_stmt: "global" NAME ("," NAME)*
nonlocal_stmt: "nonlocal" NAME ("," NAME)*
del_stmt: "del" exprlist
assert_stmt: "assert" test ("," test)?
import_stmt: "import" dotted_as_name ("," dotted_as_name)*
    | "from" (dots? dotted_name | dots) "import" ("*" | "(" BNL? import_as_names BNL? ")" | import_as_names)
dots: ("." | "...")+
dotted_as_name: dotted_name ("as" NAME)?
import_as_names: import_as_name ("," BNL? import_as_name)* ","?
import_as_name: NAME ("as" NAME)?
dotted_name: NAME ("." NAME)*
with_item: test ("as" expr)?

parameters: param ("," BNL? param)* ","?
param: NAME (":" test)? ("=" test)? | "*" (NAME (":" test)?)? | "**" NAME (":" test)? | "/"
lparams: lparam ("," lparam)*
lparam: NAME ("=" test)? | "*" NAME? | "**" NAME

namedexpr: test (":=" test)?
test: or_test ("if" or_test "else" test)? | lambdef
lambdef: "lambda" lparams? ":" test
or_test: and_test (BNL? "or" BNL? and_test)*
and_test: not_test (BNL? "and" BNL? not_test)*
not_test: "not" not_test | comparison
comparison: expr (BNL? comp_op BNL? expr)*
comp_op: "<" | ">" | "==" | ">=" | "<=" | "!=" | "in" | "not" "in" | "is" | "is" "not"
expr: xor_expr (BNL? "|" BNL? xor_expr)*
xor_expr: and_expr (BNL? "^" BNL? and_expr)*
and_expr: shift_expr (BNL? "&" BNL? shift_expr)*
shift_expr: arith_expr (BNL? ("<<" | ">>") BNL? arith_expr)*
arith_expr: term (BNL? ("+" | "-") BNL? term)*
term: factor (BNL? ("*" | "/" | "%" | "//" | "@") BNL? factor)*
factor: ("+" | "-" | "~") factor | power
power: primary ("**" BNL? factor)?
primary: atom trailer*
trailer: "(" BNL? arglist? BNL? ")" | "[" BNL? subscriptlist BNL? "]" | "." NAME
atom: "(" BNL? (yield_expr | testlist_comp)? BNL? ")"
    | "[" BNL? testlist_comp? BNL? "]"
    | "{" BNL? dictorsetmaker? BNL? "}"
    | NAME | NUMBER | strings | "..."
strings: STRING (BNL? STRING)*
star_expr: "*" expr
testlist_comp: (namedexpr | star_expr) (comp_for | ("," BNL? (namedexpr | star_expr))* ","?)
comp_for: BNL? "for" exprlist "in" or_test comp_iter?
comp_iter: comp_for | BNL? "if" or_test comp_iter?
subscriptlist: subscript ("," BNL? subscript)* ","?
subscript: test | test? ":" test? (":" test?)?
exprlist: (expr | star_expr) ("," (expr | star_expr))* ","?
testlist: test ("," test)* ","?
testlist_star: (test | star_expr) ("," (test | star_expr))* ","?
dictorsetmaker: dict_item (comp_for | ("," BNL? dict_item)* ","?)
    | (test | star_expr) (comp_for | ("," BNL? (test | star_expr))* ","?)
dict_item: test ":" BNL? test | "**" expr
arglist: argument ("," BNL? argument)* ","?
argument: test comp_for? | NAME "=" BNL? test | "*" test | "**" test
yield_expr: "yield" ("from" test | testlist_star)?

NAME: /[a-zA-Z_][a-zA-Z0-9_]*/
NUMBER: /0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|([0-9][0-9_]*(\.[0-9_]*)?|\.[0-9][0-9_]*)([eE][+-]?[0-9]+)?[jJ]?/
STRING: /[rRbBuUfF]{0,2}('''([^'\\]|\\(.|\n)|'[^'\\]|'\\(.|\n)|''[^'\\]|''\\(.|\n))*'''|"""([^"\\]|\\(.|\n)|"[^"\\]|"\\(.|\n)|""[^"\\]|""\\(.|\n))*"""|'([^'\\\n]|\\(.|\n))*'|"([^"\\\n]|\\(.|\n))*")/
BNL: /(\n[ \t]*(#[^\n]*)?)*\n[ \t]*/
%ignore /[ \t\f]+/
%ignore /#[^\n]*/
%ignore /\\\n/
"#;

/// The grammar text (see the module doc).
pub fn grammar() -> String {
    let mut g = String::from(COMMON);
    for k in 0..=DEPTH {
        let indent = if k == 0 { String::new() } else { format!(" {{{}}}", 4 * k) };
        g.push_str(&format!("NL_{k}: /(\\n[ \\t]*(#[^\\n]*)?)*\\n{indent}/\n"));
    }
    for k in 0..DEPTH {
        let rules = PER_DEPTH.replace("@+", &(k + 1).to_string()).replace('@', &k.to_string());
        g.push_str(&rules);
    }
    // The deepest level holds simple statements only.
    g.push_str(&format!("block_{DEPTH}: simple_stmts (NL_{DEPTH} simple_stmts)*\n"));
    g
}
