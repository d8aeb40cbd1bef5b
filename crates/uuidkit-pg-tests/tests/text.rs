//! Short text forms and TypeID through SQL: each encoder gives the library's
//! text, each decoder the library's UUID, and every malformed text is SQL
//! error 22P02 with the library's message, never a crash.

use uuidkit::Uuid;
use uuidkit::encoding::{DecodeError, TypeId};
use uuidkit_pg_tests::postgres::Client;
use uuidkit_pg_tests::{Scope, Server, scalar, sql_error};

/// The SQL function pairs and the library's encoder and decoder for each.
type Encode = fn(Uuid) -> String;
type Decode = fn(&str) -> Result<Uuid, DecodeError>;
const FORMS: &[(&str, &str, Encode, Decode)] = &[
    (
        "to_base58",
        "from_base58",
        |u| u.base58().to_string(),
        |s| Uuid::parse_base58(s),
    ),
    (
        "to_base32",
        "from_base32",
        |u| u.base32().to_string(),
        |s| Uuid::parse_base32(s),
    ),
    (
        "to_ulid",
        "from_ulid",
        |u| u.to_ulid().to_string(),
        |s| Uuid::from_ulid(s),
    ),
    (
        "to_base32hex",
        "from_base32hex",
        |u| u.base32hex().to_string(),
        |s| Uuid::parse_base32hex(s),
    ),
    (
        "to_base64url",
        "from_base64url",
        |u| u.base64url().to_string(),
        |s| Uuid::parse_base64url(s),
    ),
    (
        "to_typeid('user', ",
        "from_typeid",
        |u| TypeId::new("user", u).unwrap().to_string(),
        |s| TypeId::parse(s).map(|t| t.uuid()),
    ),
];

/// `'…'` as an SQL string literal.
fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

fn samples() -> Vec<Uuid> {
    let mut v = vec![
        Uuid::NIL,
        Uuid::MAX,
        Uuid::from_u128(0x017F22E2_79B0_7CC3_98C4_DC0C0C07398F),
        Uuid::from_u128(0x01890a5d_ac96_774b_bcce_b302099a8057),
        Uuid::from_u128(1),
        Uuid::from_u128(u128::MAX - 1),
    ];
    v.extend((0..50).map(|_| Uuid::new_v4()));
    v
}

#[test]
fn encoders_and_decoders_are_the_librarys() {
    let name = "encoders_and_decoders_are_the_librarys";
    let Some(server) = Server::for_test(name, Scope::Backend) else {
        return;
    };
    let mut c = server.client();
    // Fixed texts, as the library documents them.
    let u = "'01890a5d-ac96-774b-bcce-b302099a8057'";
    for (sql, want) in [
        (format!("uuidkit.to_base58({u})"), "1BzmjTFLHWXwiSK4y3H5iW"),
        (
            format!("uuidkit.to_typeid('user', {u})"),
            "user_01h455vb4pex5vsknk084sn02q",
        ),
        (
            format!("uuidkit.to_base64url({u})"),
            "AYkKXayWd0u8zrMCCZqAVw",
        ),
        (
            "uuidkit.to_base32('f81d4fae-7dec-11d0-a765-00a0c91e6bf6')".into(),
            "7R3N7TWZFC278AES80M34HWTZP",
        ),
        (
            "uuidkit.to_base32hex('f81d4fae-7dec-11d0-a765-00a0c91e6bf6')".into(),
            "V0EKVBJTTG8T19R502GCI7JBUO",
        ),
        (
            "uuidkit.typeid_prefix('my__type_01h5fskfsk4fpeqwnsyz5hj55t')".into(),
            "my__type",
        ),
        (
            "uuidkit.typeid_prefix('01h5fskfsk4fpeqwnsyz5hj55t')".into(),
            "",
        ),
    ] {
        assert_eq!(
            scalar::<String>(&mut c, &format!("SELECT {sql}")),
            want,
            "{sql}"
        );
    }
    let ulid: Uuid = scalar(
        &mut c,
        "SELECT uuidkit.from_ulid('01ARZ3NDEKTSV4RRFFQ69G5FAV')",
    );
    assert_eq!(ulid.as_u128() >> 80, 1_469_922_850_259);
    for u in samples() {
        for &(to, from, encode, decode) in FORMS {
            let close = if to.ends_with(", ") { "" } else { "(" };
            let text: String = scalar(&mut c, &format!("SELECT uuidkit.{to}{close}'{u}')"));
            assert_eq!(text, encode(u), "{to} {u}");
            let back: Uuid = scalar(&mut c, &format!("SELECT uuidkit.{from}({})", quote(&text)));
            assert_eq!(Ok(back), decode(&text), "{from} {text}");
            assert_eq!(back, u);
        }
        // The decoders take either case where the form does.
        let lower = u.base32().to_string().to_lowercase();
        let back: Uuid = scalar(&mut c, &format!("SELECT uuidkit.from_base32('{lower}')"));
        assert_eq!(back, u);
    }
}

/// Malformed texts: empty, short, long, a bad character at each end and in
/// the middle, characters outside ASCII, an overflowing first digit, the
/// canonical UUID form, and a long string.
fn malformed() -> Vec<String> {
    let mut v: Vec<String> = [
        "",
        " ",
        "0",
        "_",
        "user_",
        "_01h455vb4pex5vsknk084sn02q",
        "1BzmjTFLHWXwiSK4y3H5i",
        "1BzmjTFLHWXwiSK4y3H5iWW",
        "0BzmjTFLHWXwiSK4y3H5iW",
        "1BzmjTFLHWXwiSK4y3H5i0",
        "zzzzzzzzzzzzzzzzzzzzzz",
        "8ZZZZZZZZZZZZZZZZZZZZZZZZZ",
        "7R3N7TWZFC278AES80M34HWTZU",
        "V0EKVBJTTG8T19R502GCI7JBUP",
        "V0EKVBJTTG8T19R502GCI7JBU",
        "AYkKXayWd0u8zrMCCZqAV=",
        "AYkKXayWd0u8zrMCCZqAV+",
        "AYkKXayWd0u8zrMCCZqAVx",
        "user_01h455vb4pex5vsknk084sn02",
        "User_01h455vb4pex5vsknk084sn02q",
        "user__01h455vb4pex5vsknk084sn02q_",
        "user_81h455vb4pex5vsknk084sn02q",
        "01890a5d-ac96-774b-bcce-b302099a8057",
        "é",
        "1BzmjTFLHWXwiSK4y3H5ié",
        "ünïcödé_01h455vb4pex5vsknk084sn02q",
        "7R3N7TWZFC278AES80M34HWT\u{1F600}",
        "\t7R3N7TWZFC278AES80M34HWTZ",
        "7R3N7TWZFC278AES80M34HWTZP ",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    v.push("1".repeat(10_000));
    v.push(format!("{}_01h455vb4pex5vsknk084sn02q", "a".repeat(64)));
    v
}

#[test]
fn malformed_text_to_every_decoder_is_22p02_with_the_librarys_message() {
    let name = "malformed_text_to_every_decoder_is_22p02_with_the_librarys_message";
    let Some(server) = Server::for_test(name, Scope::Backend) else {
        return;
    };
    let mut c = server.client();
    let pid: i32 = scalar(&mut c, "SELECT pg_backend_pid()");
    let mut refused = 0;
    let prefix = |t: &str| TypeId::parse(t).map(|t| t.prefix().to_string());
    for text in malformed() {
        for &(_, from, _, decode) in FORMS {
            let sql = format!("SELECT uuidkit.{from}({})", quote(&text));
            let Some(want) = decode(&text).err().map(|e| e.to_string()) else {
                // Valid for this form (the same text can be two forms).
                let _: Uuid = scalar(&mut c, &sql);
                continue;
            };
            let (code, msg) = sql_error(&mut c, &sql);
            assert_eq!(
                (code.as_str(), msg.as_str()),
                ("22P02", want.as_str()),
                "{from}({text:?})"
            );
            refused += 1;
        }
        let sql = format!("SELECT uuidkit.typeid_prefix({})", quote(&text));
        match prefix(&text) {
            Ok(p) => assert_eq!(scalar::<String>(&mut c, &sql), p),
            Err(e) => assert_eq!(sql_error(&mut c, &sql), ("22P02".into(), e.to_string())),
        }
        // The TypeID decoder that requires a prefix: the library's error
        // first, then the prefix check.
        let sql = format!("SELECT uuidkit.from_typeid({}, 'user')", quote(&text));
        let want = match prefix(&text) {
            Ok(p) if p == "user" => None,
            Ok(p) => Some(format!(
                "expected a TypeID with the prefix \"user\", found the prefix {p:?}"
            )),
            Err(e) => Some(e.to_string()),
        };
        match want {
            None => assert_eq!(
                scalar::<Uuid>(&mut c, &sql),
                TypeId::parse(&text).unwrap().uuid()
            ),
            Some(want) => {
                assert_eq!(sql_error(&mut c, &sql), ("22P02".into(), want), "{sql}");
                refused += 1;
            }
        }
    }
    assert!(refused > 150, "only {refused} refusals");
    // No backend crashed: this session is the one that started, and the
    // server never restarted its backends.
    let still: i32 = scalar(&mut c, "SELECT pg_backend_pid()");
    assert_eq!(still, pid);
    let log = server.postgres().log_tail();
    assert!(!log.contains("terminated by signal"), "{log}");
}

#[test]
fn typeid_prefix_rules_are_the_librarys() {
    let name = "typeid_prefix_rules_are_the_librarys";
    let Some(server) = Server::for_test(name, Scope::Backend) else {
        return;
    };
    let mut c: Client = server.client();
    let u = "01890a5d-ac96-774b-bcce-b302099a8057";
    for prefix in [
        "user_",
        "_user",
        "User",
        "us3r",
        "a".repeat(64).as_str(),
        "é",
    ] {
        let want = TypeId::new(prefix, Uuid::NIL).unwrap_err().to_string();
        let (code, msg) = sql_error(
            &mut c,
            &format!("SELECT uuidkit.to_typeid({}, '{u}')", quote(prefix)),
        );
        assert_eq!(
            (code.as_str(), msg.as_str()),
            ("22023", want.as_str()),
            "{prefix:?}"
        );
    }
    assert_eq!(
        scalar::<String>(&mut c, &format!("SELECT uuidkit.to_typeid('', '{u}')")),
        "01h455vb4pex5vsknk084sn02q"
    );
    // With a required prefix: the right one gives the UUID, another is 22P02.
    let t = "user_01h455vb4pex5vsknk084sn02q";
    let got: Uuid = scalar(
        &mut c,
        &format!("SELECT uuidkit.from_typeid('{t}', 'user')"),
    );
    assert_eq!(got.to_string(), u);
    let (code, msg) = sql_error(&mut c, &format!("SELECT uuidkit.from_typeid('{t}', 'org')"));
    assert_eq!(code, "22P02");
    assert_eq!(
        msg,
        "expected a TypeID with the prefix \"org\", found the prefix \"user\""
    );
    let (code, msg) = sql_error(&mut c, "SELECT uuidkit.from_typeid('user_0', 'user')");
    assert_eq!(code, "22P02");
    assert_eq!(msg, TypeId::parse("user_0").unwrap_err().to_string());
}
