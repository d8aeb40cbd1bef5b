//! `sea-orm`: a `uuidkit::Uuid` is the `Value` a `uuid::Uuid` is (so the
//! same SQL and the same bound bytes), and an entity switched from one to
//! the other by its `use` line reads, through a real PostgreSQL, the rows
//! the other wrote: primary key, nullable foreign key and `uuid[]`.

use sea_orm::sea_query::{Expr, ExprTrait, PostgresQueryBuilder, Query, Value, ValueType};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, Database, EntityTrait, QueryFilter, QueryOrder,
    Set, TryFromU64,
};
use test_support::db::Postgres;

/// The entity, written once as a program writes it. Without a `use` line,
/// `Uuid` is what sea-orm's prelude names, `uuid::Uuid`; the switched
/// program adds `use uuidkit::Uuid;`, which shadows the prelude's.
macro_rules! item_entity {
    ($($switch:item)?) => {
        use sea_orm::entity::prelude::*;
        $($switch)?

        #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
        #[sea_orm(table_name = "item")]
        pub struct Model {
            #[sea_orm(primary_key, auto_increment = false)]
            pub id: Uuid,
            pub parent: Option<Uuid>,
            pub tags: Vec<Uuid>,
        }

        #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
        pub enum Relation {}

        impl ActiveModelBehavior for ActiveModel {}
    };
}

/// The entity a `uuid` program has.
mod theirs {
    item_entity!();
}

/// The same entity after the switch.
mod ours {
    item_entity!(
        use uuidkit::Uuid;
    );
}

#[test]
fn sea_orm_values_are_the_uuid_values() {
    let all: Vec<_> = crate::support::pairs().collect();
    for &(t, o) in &all {
        assert_eq!(Value::from(o), Value::from(t));
        assert_eq!(Value::from(Some(o)), Value::from(Some(t)));
        assert_eq!(
            Value::from(None::<uuidkit::Uuid>),
            Value::from(None::<uuid::Uuid>)
        );
        assert_eq!(Value::from(o.hyphenated()), Value::from(t.hyphenated()));
        assert_eq!(Value::from(o.simple()), Value::from(t.simple()));
        assert_eq!(Value::from(o.braced()), Value::from(t.braced()));
        assert_eq!(Value::from(o.urn()), Value::from(t.urn()));
        // Each reads the other's value.
        assert_eq!(
            <uuidkit::Uuid as ValueType>::try_from(Value::from(t)).ok(),
            Some(o)
        );
        assert_eq!(
            <uuid::Uuid as ValueType>::try_from(Value::from(o)).ok(),
            Some(t)
        );
        // The SQL sea-query writes with the value inlined.
        let sql = |v: Value| {
            Query::select()
                .column("id")
                .from("item")
                .and_where(Expr::col("id").eq(v))
                .to_string(PostgresQueryBuilder)
        };
        assert_eq!(sql(o.into()), sql(t.into()));
    }
    let theirs: Vec<_> = all.iter().map(|p| p.0).collect();
    let ours: Vec<_> = all.iter().map(|p| p.1).collect();
    assert_eq!(Value::from(ours.clone()), Value::from(theirs.clone()));
    assert_eq!(
        <Vec<uuidkit::Uuid> as ValueType>::try_from(Value::from(theirs)).ok(),
        Some(ours)
    );
    assert_eq!(
        <uuidkit::Uuid as ValueType>::column_type(),
        <uuid::Uuid as ValueType>::column_type()
    );
    assert_eq!(
        <uuidkit::Uuid as ValueType>::array_type(),
        <uuid::Uuid as ValueType>::array_type()
    );
    assert_eq!(
        <Vec<uuidkit::Uuid> as ValueType>::column_type(),
        <Vec<uuid::Uuid> as ValueType>::column_type()
    );
    // A UUID key is not an auto-increment one, for either type.
    assert!(<uuidkit::Uuid as TryFromU64>::try_from_u64(1).is_err());
    assert!(<uuid::Uuid as TryFromU64>::try_from_u64(1).is_err());
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn sea_orm_entities_read_what_the_other_wrote_in_postgres() {
    let Some(pg) =
        Postgres::for_test("sea_orm::sea_orm_entities_read_what_the_other_wrote_in_postgres")
    else {
        return;
    };
    runtime().block_on(async {
        let db = Database::connect(pg.url()).await.unwrap();
        db.execute_unprepared(
            "CREATE TABLE item (id uuid PRIMARY KEY, parent uuid REFERENCES item (id), tags uuid[] NOT NULL)",
        )
        .await
        .unwrap();
        let all: Vec<_> = crate::support::pairs().collect();
        let ours_tags: Vec<_> = all.iter().map(|p| p.1).collect();
        // uuidkit writes the first half (each row's parent the row before), `uuid` the rest.
        let half = all.len() / 2;
        for (i, &(t, o)) in all.iter().enumerate() {
            if i < half {
                let row = ours::ActiveModel {
                    id: Set(o),
                    parent: Set(i.checked_sub(1).map(|j| all[j].1)),
                    tags: Set(ours_tags.clone()),
                };
                let back = row.insert(&db).await.unwrap();
                assert_eq!(back.id, o);
            } else {
                let row = theirs::ActiveModel {
                    id: Set(t),
                    parent: Set(Some(all[i - 1].0)),
                    tags: Set(all.iter().map(|p| p.0).collect()),
                };
                row.insert(&db).await.unwrap();
            }
        }
        // Each entity reads every row, in the server's `uuid` order.
        let read_ours = ours::Entity::find().order_by_asc(ours::Column::Id).all(&db).await.unwrap();
        let read_theirs = theirs::Entity::find().order_by_asc(theirs::Column::Id).all(&db).await.unwrap();
        assert_eq!(read_ours.len(), all.len());
        for (o, t) in read_ours.iter().zip(&read_theirs) {
            assert_eq!(o.id.as_bytes(), t.id.as_bytes());
            assert_eq!(o.parent.map(|p| *p.as_bytes()), t.parent.map(|p| *p.as_bytes()));
            assert_eq!(o.tags.iter().map(|u| *u.as_bytes()).collect::<Vec<_>>(), t.tags.iter().map(|u| *u.as_bytes()).collect::<Vec<_>>());
            assert_eq!(o.tags, ours_tags);
        }
        let mut sorted = ours_tags.clone();
        sorted.sort();
        assert_eq!(read_ours.iter().map(|m| m.id).collect::<Vec<_>>(), sorted, "PostgreSQL's order is Ord's");
        // Lookups by key and by filter with a uuidkit value find `uuid`'s rows.
        let (t, o) = all[all.len() - 1];
        let found = ours::Entity::find_by_id(o).one(&db).await.unwrap().unwrap();
        assert_eq!(found.parent, Some(all[all.len() - 2].1));
        let children = ours::Entity::find().filter(ours::Column::Parent.eq(all[0].1)).all(&db).await.unwrap();
        assert_eq!(children.iter().map(|m| m.id).collect::<Vec<_>>(), vec![all[1].1]);
        assert!(theirs::Entity::find_by_id(t).one(&db).await.unwrap().is_some());
        // The scalar and array forms read as `TryGetable` on a raw row too.
        let row = db
            .query_one_raw(sea_orm::Statement::from_string(db.get_database_backend(), "SELECT id, tags, NULL::uuid AS none FROM item ORDER BY id LIMIT 1"))
            .await
            .unwrap()
            .unwrap();
        let id: uuidkit::Uuid = row.try_get("", "id").unwrap();
        let tags: Vec<uuidkit::Uuid> = row.try_get("", "tags").unwrap();
        let none: Option<uuidkit::Uuid> = row.try_get("", "none").unwrap();
        assert_eq!((id, tags, none), (sorted[0], ours_tags.clone(), None));
        assert!(row.try_get::<uuidkit::Uuid>("", "none").is_err(), "NULL is not a Uuid");
    });
}
