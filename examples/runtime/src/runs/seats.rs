//! The seats of the runs under way: each run (and each streamed request admitted to start
//! one) counts for its identity and its client address while it lives, so a limit refuses
//! the next one before it changes anything.

use super::lock;
use crate::auth::User;
use crate::clients::{self, Client, Clients, Kind, Share};
use crate::errors::json_error;
use axum::http::StatusCode;
use axum::response::Response;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The `Retry-After` of a run refused at a limit.
const RUN_RETRY: Duration = Duration::from_secs(5);

/// One of a user's runs (or a request admitted to start one), counted while it lives, for
/// its identity and for its client address.
pub struct Seat {
    pub(super) seats: Arc<Mutex<HashMap<String, usize>>>,
    pub(super) user: String,
    pub(super) _share: Share,
}

impl Seat {
    /// A seat of `user`, asking from `client`, or the refusal (429) when as many as a limit
    /// are under way (the identity's `cap`, the client's, or everyone's).
    #[allow(clippy::result_large_err)]
    pub(super) fn take(
        seats: &Arc<Mutex<HashMap<String, usize>>>,
        clients: &Arc<Clients>,
        cap: usize,
        user: &User,
        client: Client,
    ) -> Result<Seat, Response> {
        let share = clients
            .take(Kind::Run, client)
            .map_err(|refused| clients.too_many(refused))?;
        if !Seat::count(seats, &user.0, Some(cap)) {
            let mut refused = json_error(
                StatusCode::TOO_MANY_REQUESTS,
                "too_many_runs",
                &format!(
                    "{cap} answers are under way for this identity already: wait for one to end \
                     or stop it (threads.cancel_run)"
                ),
            );
            clients::retry_after_header(refused.headers_mut(), RUN_RETRY);
            return Err(refused);
        }
        Ok(Seat {
            seats: seats.clone(),
            user: user.0.clone(),
            _share: share,
        })
    }

    /// Counts one more seat of `user`, unless `cap` of them are taken.
    pub(super) fn count(
        seats: &Mutex<HashMap<String, usize>>,
        user: &str,
        cap: Option<usize>,
    ) -> bool {
        let mut all = lock(seats);
        let n = all.entry(user.to_owned()).or_default();
        if cap.is_some_and(|cap| *n >= cap) {
            if *n == 0 {
                all.remove(user);
            }
            return false;
        }
        *n += 1;
        true
    }

    /// The same seat held a second time, not checked against the caps (the run itself,
    /// after the request that was admitted to start it).
    pub(super) fn again(&self) -> Seat {
        Seat::count(&self.seats, &self.user, None);
        Seat {
            seats: self.seats.clone(),
            user: self.user.clone(),
            _share: self._share.again(),
        }
    }
}

impl Drop for Seat {
    fn drop(&mut self) {
        let mut all = lock(&self.seats);
        if let Some(n) = all.get_mut(&self.user) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                all.remove(&self.user);
            }
        }
    }
}
