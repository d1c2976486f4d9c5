//! The module's static constructors, run once per instance (the page's and the
//! worker's), at start.
//!
//! Some dependencies register things before `main` through `.init_array` constructors
//! (cubecl's WGSL compiler through `inventory::submit!`, dozens of them). wasm-ld
//! gathers them into a synthetic `__wasm_call_ctors`, and when no input calls that
//! function it assumes a "command" module that is entered once, so it wraps *every*
//! exported function as `<name>.command_export`, which runs all the constructors and
//! then the function. wasm-bindgen's glue calls those exports for everything (closures,
//! `__wbindgen_malloc`, each event handler), so each call from JavaScript ran the
//! constructors again: 80-700 ms per redraw on the page (profiled on branch web6), and
//! the same per message and per timer in the worker. Calling `__wasm_call_ctors` here,
//! from `main`, is the documented way out (lld's `Writer::run`: "If the input contains
//! a call to `__wasm_call_ctors` ... we assume ctors and dtors are taken care of
//! already"; `inventory`'s README says the same for wasm): wasm-ld then writes the
//! exports unwrapped, and the constructors run once, here.
//!
//! `scripts/check-wasm-exports.py` (run by the browser test and the browser benchmark
//! on every build) fails if any export is wrapped again.

unsafe extern "C" {
    /// Synthesized by wasm-ld: every `.init_array` constructor of the module, in order.
    fn __wasm_call_ctors();
}

/// Runs the constructors. Call exactly once, first thing in `main` (wasm-bindgen's
/// start function), before any code that reads a registry they fill.
pub fn run_once() {
    // SAFETY: wasm-ld defines this function for every linked module (empty when there
    // are no constructors); it is called once per instance, before anything reads what
    // the constructors register.
    unsafe { __wasm_call_ctors() }
}
