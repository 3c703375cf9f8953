//! The edge every request passes: it gets its id and span, a client past the rate limit is
//! answered `429` there, and once answered it is logged and counted (`seen.rs`).
//!
//! One middleware written out, not `from_fn` wrappers: those box the inner service's future
//! on every request, and a limit switched off by `Condition` still adds a layer to every
//! answer; together a few percent of a meld validation (docs/performance.md).

use std::future::{Future, Ready, ready};
use std::pin::Pin;
use std::task::{Context, Poll};

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{Service, ServiceRequest, ServiceResponse, Transform, forward_ready};
use actix_web::web;
use pin_project_lite::pin_project;
use tracing::Instrument;
use tracing::instrument::Instrumented;

use super::rate_limit;
use super::seen::Seen;
use crate::state::AppState;

/// The middleware; wrap it last, so that it runs first.
pub struct Edge;

impl<S, B> Transform<S, ServiceRequest> for Edge
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    type Response = ServiceResponse<EitherBody<B>>;
    type Error = actix_web::Error;
    type Transform = EdgeService<S>;
    type InitError = ();
    type Future = Ready<Result<EdgeService<S>, ()>>;

    fn new_transform(&self, service: S) -> Self::Future {
        ready(Ok(EdgeService { service }))
    }
}

/// [`Edge`] around the application's service.
pub struct EdgeService<S> {
    service: S,
}

impl<S, B> Service<ServiceRequest> for EdgeService<S>
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    type Response = ServiceResponse<EitherBody<B>>;
    type Error = actix_web::Error;
    type Future = Edged<S::Future>;

    forward_ready!(service);

    fn call(&self, req: ServiceRequest) -> Self::Future {
        let state = req.app_data::<web::Data<AppState>>();
        let seen = Seen::new(&req, state.map(|s| s.get_ref()));
        if let Some(refused) = state.and_then(|s| rate_limit::refusal(&req, s)) {
            return Edged::Refused {
                answer: Some(req.error_response(refused)),
                seen: Some(seen),
            };
        }
        let span = seen.span();
        Edged::Passed {
            inner: self.service.call(req).instrument(span),
            seen: Some(seen),
        }
    }
}

pin_project! {
    /// A request at the edge: passed on to the application, or refused there.
    #[project = EdgedProj]
    pub enum Edged<F> {
        /// In the application, inside the request's span.
        Passed { #[pin] inner: Instrumented<F>, seen: Option<Seen> },
        /// Refused at the edge; both are taken when polled.
        Refused { answer: Option<ServiceResponse>, seen: Option<Seen> },
    }
}

impl<F, B> Future for Edged<F>
where
    F: Future<Output = Result<ServiceResponse<B>, actix_web::Error>>,
{
    type Output = Result<ServiceResponse<EitherBody<B>>, actix_web::Error>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        const DONE: &str = "a request's future polled after its answer";
        let (result, seen) = match self.project() {
            EdgedProj::Passed { inner, seen } => match inner.poll(cx) {
                Poll::Ready(result) => (result.map(ServiceResponse::map_into_left_body), seen),
                Poll::Pending => return Poll::Pending,
            },
            EdgedProj::Refused { answer, seen } => {
                (Ok(answer.take().expect(DONE).map_into_right_body()), seen)
            }
        };
        Poll::Ready(seen.take().expect(DONE).answered(result))
    }
}
