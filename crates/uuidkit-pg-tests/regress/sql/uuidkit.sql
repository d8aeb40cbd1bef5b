-- The uuidkit extension through psql: every function, with fixed answers
-- where there are (the RFC 9562 vectors), and its errors.
CREATE EXTENSION uuidkit;
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
SET extra_float_digits = 0;

-- Generation: the version digit and the RFC 9562 variant of what is made now.
SELECT f, substr(u::text, 15, 1) AS version, substr(u::text, 20, 1) IN ('8', '9', 'a', 'b') AS rfc9562
FROM (VALUES ('v7()', uuidkit.v7()),
             ('v4()', uuidkit.v4()),
             ('v6()', uuidkit.v6()),
             ('v7(timestamptz)', uuidkit.v7(timestamptz '2022-02-22 19:22:22.5+00'))) AS t(f, u);
-- Without shared_preload_libraries, v7() is ordered per session.
SELECT uuidkit.v7_scope();
-- v7() carries the current time; v7(timestamptz) the given millisecond.
SELECT uuidkit.extract_timestamp(uuidkit.v7()) BETWEEN date_trunc('milliseconds', now()) AND clock_timestamp() AS v7_is_now;
SELECT uuidkit.extract_timestamp(uuidkit.v7(timestamptz '2022-02-22 19:22:22.5678+00'));
-- A session's values increase, within a statement and across statements.
CREATE TEMP TABLE keys (n int, id uuid PRIMARY KEY DEFAULT uuidkit.v7());
INSERT INTO keys (n) SELECT g FROM generate_series(1, 1000) g;
INSERT INTO keys (n) SELECT g FROM generate_series(1001, 2000) g;
SELECT count(*) AS out_of_order FROM (SELECT n, row_number() OVER (ORDER BY id) AS r FROM keys) s WHERE n <> r;

-- Name-based: RFC 9562 A.2 (v3), A.4 (v5) and B.2 (v8, SHA-256).
SELECT uuidkit.v3(uuidkit.namespace('dns'), 'www.example.com') AS a2_v3,
       uuidkit.v5(uuidkit.namespace('dns'), 'www.example.com') AS a4_v5,
       uuidkit.v8_sha256(uuidkit.namespace('dns'), 'www.example.com') AS b2_v8;
SELECT uuidkit.namespace('dns') AS dns, uuidkit.namespace('URL') AS url,
       uuidkit.namespace('oid') AS oid, uuidkit.namespace('x500') AS x500;
SELECT uuidkit.v5(NULL, 'www.example.com') IS NULL AS strict;

-- Time: A.1 (v1), A.5 (v6) and A.6 (v7) are all 2022-02-22T19:22:22Z; the
-- other versions hold no time.
SELECT id, uuidkit.extract_timestamp(id)
FROM (VALUES ('c232ab00-9414-11ec-b3c8-9f6bdeced846'::uuid),
             ('1ec9414c-232a-6b00-b3c8-9f6bdeced846'),
             ('017f22e2-79b0-7cc3-98c4-dc0c0c07398f'),
             ('919108f7-52d1-4320-9bac-f847db4148a8'),
             ('5c146b14-3c52-8afd-938a-375d0df1fbf6')) AS t(id);
-- v7 bounds of a window: the start rounds up, the end down, both inclusive.
SELECT uuidkit.v7_lower('2022-02-22 19:22:21.9995+00') AS lower,
       uuidkit.v7_upper('2022-02-22 19:22:22.0005+00') AS upper;
SELECT '017f22e2-79b0-7cc3-98c4-dc0c0c07398f'::uuid
       BETWEEN uuidkit.v7_lower('2022-02-22 19:22:22+00') AND uuidkit.v7_upper('2022-02-22 19:22:22+00') AS a6_inside;

-- Conversion: A.1 ↔ A.5.
SELECT uuidkit.v1_to_v6('c232ab00-9414-11ec-b3c8-9f6bdeced846') AS a5_v6,
       uuidkit.v6_to_v1('1ec9414c-232a-6b00-b3c8-9f6bdeced846') AS a1_v1;

-- Short text forms of A.6, and back.
SELECT uuidkit.to_base58(u) AS base58, uuidkit.to_base32(u) AS base32, uuidkit.to_ulid(u) AS ulid,
       uuidkit.to_base32hex(u) AS base32hex, uuidkit.to_base64url(u) AS base64url,
       uuidkit.to_typeid('user', u) AS typeid
FROM (VALUES ('017f22e2-79b0-7cc3-98c4-dc0c0c07398f'::uuid)) AS t(u);
SELECT uuidkit.from_base58('1BzmjTFLHWXwiSK4y3H5iW'),
       uuidkit.from_base32('01h455vb4pex5vsknk084sn02q'),
       uuidkit.from_ulid('01ARZ3NDEKTSV4RRFFQ69G5FAV'),
       uuidkit.from_base32hex('V0EKVBJTTG8T19R502GCI7JBUO'),
       uuidkit.from_base64url('AYkKXayWd0u8zrMCCZqAVw');
SELECT uuidkit.from_typeid('user_01h455vb4pex5vsknk084sn02q'),
       uuidkit.from_typeid('user_01h455vb4pex5vsknk084sn02q', 'user'),
       uuidkit.typeid_prefix('user_01h455vb4pex5vsknk084sn02q');

-- Errors: the library's words; bad text is SQLSTATE 22P02.
SELECT uuidkit.from_base58('0BzmjTFLHWXwiSK4y3H5iW');
SELECT uuidkit.from_base58('1BzmjTFLHWXwiSK4y3H5i');
SELECT uuidkit.from_base32('8ZZZZZZZZZZZZZZZZZZZZZZZZZ');
SELECT uuidkit.from_ulid('01ARZ3NDEKTSV4RRFFQ69G5FAU');
SELECT uuidkit.from_base32hex('V0EKVBJTTG8T19R502GCI7JBUP');
SELECT uuidkit.from_base64url('AYkKXayWd0u8zrMCCZqAV=');
SELECT uuidkit.from_typeid('User_01h455vb4pex5vsknk084sn02q');
SELECT uuidkit.from_typeid('user_01h455vb4pex5vsknk084sn02q', 'org');
SELECT uuidkit.to_typeid('user_', '017f22e2-79b0-7cc3-98c4-dc0c0c07398f');
SELECT uuidkit.v1_to_v6('919108f7-52d1-4320-9bac-f847db4148a8');
SELECT uuidkit.namespace('isbn');
SELECT uuidkit.v7(timestamptz '1969-12-31 23:59:59+00');
SELECT uuidkit.v7_upper('infinity');
-- The session is still there.
SELECT 1 AS alive;
