//! Game endpoints (coming next).
