//! The page's end of the engine's worker (`worker.rs`): starts it on this app's own
//! compiled WebAssembly module, forwards the page's requests and hands the worker's
//! reports to the page's reducer. Requests made before the worker is alive wait here.

use std::{cell::RefCell, rc::Rc};

use wasm_bindgen::{closure::Closure, JsCast, JsValue};

use crate::{
    host,
    protocol::{self, FromWorker, ToWorker},
};

/// The running worker.
pub struct EngineLink {
    worker: JsValue,
    /// Requests waiting for the worker's `Alive`, then `None`.
    waiting: Rc<RefCell<Option<Vec<String>>>>,
    // The callbacks the worker calls; kept as long as the link.
    _on_message: Closure<dyn FnMut(String)>,
    _on_error: Closure<dyn FnMut(String)>,
}

impl EngineLink {
    /// Starts the worker; every report goes to `on_report` (a failure of the worker
    /// itself as a failed load).
    pub fn spawn(on_report: impl Fn(FromWorker) + 'static) -> EngineLink {
        let on_report = Rc::new(on_report);
        let waiting = Rc::new(RefCell::new(Some(Vec::<String>::new())));
        let worker_cell: Rc<RefCell<JsValue>> = Rc::new(RefCell::new(JsValue::NULL));
        let (report, queue, cell) = (on_report.clone(), waiting.clone(), worker_cell.clone());
        let on_message = Closure::<dyn FnMut(String)>::new(move |text: String| {
            match protocol::decode::<FromWorker>(&text) {
                Ok(FromWorker::Alive) => {
                    // Send what was asked before the worker could listen.
                    for queued in queue.borrow_mut().take().unwrap_or_default() {
                        host::post_to_worker(&cell.borrow(), &queued);
                    }
                }
                Ok(message) => (*report)(message),
                Err(e) => (*report)(FromWorker::Loaded(Err(e))),
            }
        });
        let report = on_report.clone();
        let on_error = Closure::<dyn FnMut(String)>::new(move |why: String| (*report)(FromWorker::Loaded(Err(why))));
        let worker = host::spawn_worker(
            &wasm_bindgen::module(),
            on_message.as_ref().unchecked_ref(),
            on_error.as_ref().unchecked_ref(),
        );
        *worker_cell.borrow_mut() = worker.clone();
        EngineLink { worker, waiting, _on_message: on_message, _on_error: on_error }
    }

    /// Sends a request (queued until the worker is alive).
    pub fn send(&self, message: &ToWorker) {
        let text = protocol::encode(message);
        match self.waiting.borrow_mut().as_mut() {
            Some(queue) => queue.push(text),
            None => host::post_to_worker(&self.worker, &text),
        }
    }
}
