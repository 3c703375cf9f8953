//! A game's status in its column: stored as its name, read back as [`GameStatus`], so no
//! status travels as text past the store.

use sqlx::encode::IsNull;
use sqlx::error::BoxDynError;
use sqlx::{Database, Decode, Encode, Type};

use crate::domain::GameStatus;

impl<DB: Database> Type<DB> for GameStatus
where
    str: Type<DB>,
{
    fn type_info() -> DB::TypeInfo {
        <str as Type<DB>>::type_info()
    }

    fn compatible(ty: &DB::TypeInfo) -> bool {
        <str as Type<DB>>::compatible(ty)
    }
}

impl<'q, DB: Database> Encode<'q, DB> for GameStatus
where
    &'static str: Encode<'q, DB>,
{
    fn encode_by_ref(&self, buf: &mut DB::ArgumentBuffer) -> Result<IsNull, BoxDynError> {
        self.as_str().encode(buf)
    }
}

impl<'r, DB: Database> Decode<'r, DB> for GameStatus
where
    &'r str: Decode<'r, DB>,
{
    fn decode(value: DB::ValueRef<'r>) -> Result<Self, BoxDynError> {
        let name = <&str as Decode<DB>>::decode(value)?;
        GameStatus::named(name).ok_or_else(|| format!("no game status is named {name:?}").into())
    }
}
