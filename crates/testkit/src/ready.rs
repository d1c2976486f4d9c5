//! [`ready`]: the value of a future that must not wait (a CPU device's "asynchronous"
//! read-back is ready at once), polled once; a test fails if it would wait.

/// Polls `f` once with a waker that does nothing and returns its value; panics (fails
/// the test) when the future is not ready at once.
pub fn ready<T>(f: impl std::future::Future<Output = T>) -> T {
    let mut f = std::pin::pin!(f);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    match f.as_mut().poll(&mut cx) {
        std::task::Poll::Ready(v) => v,
        std::task::Poll::Pending => panic!("a future that must be ready at once waited"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ready_future_gives_its_value_and_a_waiting_one_fails() {
        assert_eq!(ready(async { 7 }), 7);
        let waits = std::panic::catch_unwind(|| ready(std::future::pending::<()>()));
        assert!(waits.is_err());
    }
}
