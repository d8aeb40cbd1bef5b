-- uuidkit 0.1.0 → 0.2.0, run by `ALTER EXTENSION uuidkit UPDATE` in a database that has 0.1.0.
--
-- It creates what 0.2.0 has and 0.1.0 did not, each object as 0.2.0's own script creates it (the
-- generated uuidkit--0.2.0.sql, or the SQL files that script includes): the extension's tests
-- compare every object of an updated extension with those of a fresh 0.2.0 install, so a function
-- added to 0.2.0 without its line here fails them. 0.1.0's objects are unchanged in 0.2.0 and stay
-- as they are, so column defaults, indexes and views that use them keep working.
\echo Use "ALTER EXTENSION uuidkit UPDATE" to load this file. \quit

-- The `ulid` type (src/ulid.rs): uuid's representation with ULID text. Its binary I/O,
-- comparisons, hashes and sort support are PostgreSQL's own uuid functions, so its order is
-- uuid's byte order and both casts between the two are binary-coercible.
CREATE TYPE ulid;
CREATE FUNCTION ulid_in(cstring) RETURNS ulid
  IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'ulid_in_wrapper';
CREATE FUNCTION ulid_out(ulid) RETURNS cstring
  IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'ulid_out_wrapper';
CREATE FUNCTION ulid_recv(internal) RETURNS ulid
  IMMUTABLE STRICT PARALLEL SAFE LANGUAGE internal AS 'uuid_recv';
CREATE FUNCTION ulid_send(ulid) RETURNS bytea
  IMMUTABLE STRICT PARALLEL SAFE LANGUAGE internal AS 'uuid_send';
CREATE TYPE ulid (
  INPUT = ulid_in, OUTPUT = ulid_out, RECEIVE = ulid_recv, SEND = ulid_send,
  INTERNALLENGTH = 16, ALIGNMENT = char, STORAGE = plain
);
COMMENT ON TYPE ulid IS 'a 128-bit identifier shown as a ULID (26 characters of Crockford''s base32), ordered as uuid';

CREATE FUNCTION ulid_eq(ulid, ulid) RETURNS bool
  IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_eq';
CREATE FUNCTION ulid_ne(ulid, ulid) RETURNS bool
  IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_ne';
CREATE FUNCTION ulid_lt(ulid, ulid) RETURNS bool
  IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_lt';
CREATE FUNCTION ulid_le(ulid, ulid) RETURNS bool
  IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_le';
CREATE FUNCTION ulid_gt(ulid, ulid) RETURNS bool
  IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_gt';
CREATE FUNCTION ulid_ge(ulid, ulid) RETURNS bool
  IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_ge';
CREATE FUNCTION ulid_cmp(ulid, ulid) RETURNS int4
  IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_cmp';
CREATE FUNCTION ulid_sortsupport(internal) RETURNS void
  IMMUTABLE STRICT PARALLEL SAFE LANGUAGE internal AS 'uuid_sortsupport';
CREATE FUNCTION ulid_hash(ulid) RETURNS int4
  IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_hash';
CREATE FUNCTION ulid_hash_extended(ulid, int8) RETURNS int8
  IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_hash_extended';

-- The operators are in pg_catalog, which every search path includes, so that `id = '…'` on a
-- ulid column works without the uuidkit schema on the search path, as it does for uuid.
CREATE OPERATOR pg_catalog.= (LEFTARG = ulid, RIGHTARG = ulid, FUNCTION = ulid_eq,
  COMMUTATOR = OPERATOR(pg_catalog.=), NEGATOR = OPERATOR(pg_catalog.<>),
  RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES);
CREATE OPERATOR pg_catalog.<> (LEFTARG = ulid, RIGHTARG = ulid, FUNCTION = ulid_ne,
  COMMUTATOR = OPERATOR(pg_catalog.<>), NEGATOR = OPERATOR(pg_catalog.=),
  RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR pg_catalog.< (LEFTARG = ulid, RIGHTARG = ulid, FUNCTION = ulid_lt,
  COMMUTATOR = OPERATOR(pg_catalog.>), NEGATOR = OPERATOR(pg_catalog.>=),
  RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR pg_catalog.<= (LEFTARG = ulid, RIGHTARG = ulid, FUNCTION = ulid_le,
  COMMUTATOR = OPERATOR(pg_catalog.>=), NEGATOR = OPERATOR(pg_catalog.>),
  RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR pg_catalog.> (LEFTARG = ulid, RIGHTARG = ulid, FUNCTION = ulid_gt,
  COMMUTATOR = OPERATOR(pg_catalog.<), NEGATOR = OPERATOR(pg_catalog.<=),
  RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR pg_catalog.>= (LEFTARG = ulid, RIGHTARG = ulid, FUNCTION = ulid_ge,
  COMMUTATOR = OPERATOR(pg_catalog.<=), NEGATOR = OPERATOR(pg_catalog.<),
  RESTRICT = scalargesel, JOIN = scalargejoinsel);

CREATE OPERATOR CLASS ulid_ops DEFAULT FOR TYPE ulid USING btree AS
  OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
  FUNCTION 1 ulid_cmp(ulid, ulid),
  FUNCTION 2 ulid_sortsupport(internal),
  FUNCTION 4 btequalimage(oid);
CREATE OPERATOR CLASS ulid_ops DEFAULT FOR TYPE ulid USING hash AS
  OPERATOR 1 =,
  FUNCTION 1 ulid_hash(ulid),
  FUNCTION 2 ulid_hash_extended(ulid, int8);

-- Both ways by assignment (INSERT, UPDATE, defaults), neither implicitly: an implicit cast
-- would let `ulid_column = uuid_value` compare as uuid, which no ulid index serves.
CREATE CAST (ulid AS uuid) WITHOUT FUNCTION AS ASSIGNMENT;
CREATE CAST (uuid AS ulid) WITHOUT FUNCTION AS ASSIGNMENT;

CREATE FUNCTION gen_ulid() RETURNS ulid
  VOLATILE STRICT PARALLEL RESTRICTED LANGUAGE c AS 'MODULE_PATHNAME', 'gen_ulid_wrapper';
CREATE FUNCTION ulid_timestamp(id ulid) RETURNS timestamptz
  IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'ulid_timestamp_wrapper';
CREATE CAST (ulid AS timestamptz) WITH FUNCTION ulid_timestamp(ulid);
CREATE FUNCTION ulid_lower(start timestamptz) RETURNS ulid
  IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'ulid_lower_wrapper';
CREATE FUNCTION ulid_upper("end" timestamptz) RETURNS ulid
  IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'ulid_upper_wrapper';

-- The functions of src/compat.rs: v7(shift interval), extract_version, the sub-millisecond
-- extract_timestamp, and uuid <-> bytea.
CREATE FUNCTION "v7"("shift" interval) RETURNS uuid
  STRICT VOLATILE PARALLEL RESTRICTED LANGUAGE c AS 'MODULE_PATHNAME', 'v7_shifted_wrapper';
CREATE FUNCTION "extract_version"("id" uuid) RETURNS smallint
  IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'extract_version_wrapper';
CREATE FUNCTION "extract_timestamp"("id" uuid, "sub_millisecond" bool) RETURNS timestamp with time zone
  IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'extract_timestamp_sub_ms_wrapper';
CREATE FUNCTION "to_bytea"("id" uuid) RETURNS bytea
  IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'to_bytea_wrapper';
CREATE FUNCTION "from_bytea"("bytes" bytea) RETURNS uuid
  IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'from_bytea_wrapper';
