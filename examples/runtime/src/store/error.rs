//! The store's one error type: what failed, for the log (handlers answer a bare 500, see
//! `errors::internal`).

/// A store failure: for the log only (handlers answer a bare 500, see `errors::internal`).
#[derive(Debug)]
pub enum Error {
    Sqlite(rusqlite::Error),
    Postgres(postgres::Error),
    /// No pooled PostgreSQL connection came in time.
    Pool(r2d2::Error),
    /// A stored row that does not read back (bad JSON, a secret of the wrong size).
    Data(String),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Sqlite(e) => write!(f, "sqlite: {e}"),
            Error::Postgres(e) => write!(f, "postgres: {e}"),
            Error::Pool(e) => write!(f, "postgres pool: {e}"),
            Error::Data(e) => write!(f, "stored data: {e}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<rusqlite::Error> for Error {
    fn from(e: rusqlite::Error) -> Self {
        Error::Sqlite(e)
    }
}

impl From<postgres::Error> for Error {
    fn from(e: postgres::Error) -> Self {
        Error::Postgres(e)
    }
}

impl From<r2d2::Error> for Error {
    fn from(e: r2d2::Error) -> Self {
        Error::Pool(e)
    }
}

pub type Result<T> = std::result::Result<T, Error>;
