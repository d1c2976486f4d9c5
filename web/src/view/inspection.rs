//! The constraint's state after the shown step, from `Constraint::inspect()`: the
//! tree of parsers and current regex (sLua), or the parser stack, accept sequences
//! and remainder (Python), under fill-in-the-middle what the suffix still needs, and
//! in mode `names` the names in scope at the cursor (the names layer's).

use espalier_constraint::TreeNode;
use espalier_decode::StepTrace;
use yew::prelude::*;

fn tree(node: &TreeNode) -> Html {
    html! {
        <li>
            <span class="node-kind">{node.kind.clone()}</span>
            if !node.state.is_empty() { <span class="node-state">{format!(" · {}", node.state)}</span> }
            if !node.children.is_empty() {
                <ul>{ for node.children.iter().map(tree) }</ul>
            }
        </li>
    }
}

/// The names in scope at the cursor (mode `names`: `Inspection::names_in_scope`, the
/// names layer's scopes, builtins left out), one item each.
fn names_in_scope(names: &[String]) -> Html {
    html! {
        <>
            <p>{"names in scope at the cursor (besides the builtins): "}
                if names.is_empty() { <span class="muted">{"none"}</span> }
            </p>
            <ul id="names" class="names">{ for names.iter().map(|n| html!{ <li><code>{n.to_string()}</code></li> }) }</ul>
        </>
    }
}

/// The inspection panel of `step`.
pub fn inspection(step: Option<&StepTrace>) -> Html {
    let Some(step) = step else { return html! {} };
    let mask = step.mask_size.map(|n| format!("mask: {n} tokens allowed")).unwrap_or_default();
    let Some(ins) = &step.inspect else {
        return html! { <p id="inspection" class="muted">{"No constraint (mode none)."} {mask}</p> };
    };
    html! {
        <div id="inspection" class="inspection">
            <p class="muted">{format!("{} · {}{}", ins.kind, mask, if step.wrap_up { " · wrapping up: finishing mask" } else { "" })}</p>
            if let Some(re) = &ins.regex { <p>{"next segment regex: "}<code id="regex">{re.clone()}</code></p> }
            if let Some(names) = &ins.names_in_scope { { names_in_scope(names) } }
            if let Some(root) = &ins.tree { <ul id="tree" class="tree">{ tree(root) }</ul> }
            if !ins.stack.is_empty() {
                <p>{"parser stack: "}<code id="stack">{ins.stack.join(" ")}</code></p>
            }
            if !ins.accept_sequences.is_empty() {
                <p>{"accept sequences:"}</p>
                <ul id="accept">{ for ins.accept_sequences.iter().take(24).map(|seq| html!{ <li><code>{seq.join(" ")}</code></li> }) }</ul>
            }
            if let Some(rem) = &ins.remainder { <p>{"remainder: "}<code id="remainder">{format!("{rem:?}")}</code></p> }
            if !ins.needs.is_empty() {
                <p>{"what the suffix still needs:"}</p>
                <ul id="needs">{ for ins.needs.iter().map(|n| html!{ <li>{n.clone()}</li> }) }</ul>
            }
        </div>
    }
}
