-- uuidkit, the pure-SQL edition: the functions of the `uuidkit` extension that can be written in SQL and
-- PL/pgSQL, for PostgreSQL servers that load no C code of their own (managed services). One file, no superuser:
--
--     psql -v ON_ERROR_STOP=1 -1 -f uuidkit_pure.sql
--
-- run by any role with CREATE on the database; or as a pg_tle extension (docs/postgres-pure-sql.md). Every
-- function has the name, signature, result and errors (SQLSTATE and message) of the extension's function of the
-- same name; crates/uuidkit-pg-tests checks both editions against each other on the same inputs. PostgreSQL 14 or
-- later (multiranges, numeric `extract(epoch …)`); `v5` needs pgcrypto's `digest()` for SHA-1.
--
-- Differences, all in generation: `v7()` is monotonic within a session (the state is a session setting), not
-- across the cluster; see docs/postgres-pure-sql.md for exactly what holds. Random bits come from
-- `gen_random_uuid()` (the server's strong random source). Not offered: `facade_encode`/`facade_decode` and
-- `snowflake`.

CREATE SCHEMA IF NOT EXISTS uuidkit;

-- Errors, raised with the SQLSTATEs of the C edition: 22P02 bad text, 22023 a value the function cannot take,
-- 22008 a time outside the layout.
CREATE OR REPLACE FUNCTION uuidkit._raise(code text, message text) RETURNS void
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
    RAISE EXCEPTION USING ERRCODE = code, MESSAGE = message;
END $$;

-- The code points Rust's `{:?}` writes as `\u{…}` (not printable, or grapheme extenders): the C edition's
-- messages quote characters that way. Made from Rust 1.95's Unicode tables; `\t \r \n \\ \' \"` have their
-- own escapes, below.
CREATE OR REPLACE FUNCTION uuidkit._escaped() RETURNS int4multirange
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT '{
[1,9),[11,13),[14,32),[127,161),[173,174),[768,880),[888,890),[896,900),[907,908),[909,910),[930,931),
[1155,1162),[1328,1329),[1367,1369),[1419,1421),[1424,1470),[1471,1472),[1473,1475),[1476,1478),[1479,1488),
[1515,1519),[1525,1542),[1552,1563),[1564,1565),[1611,1632),[1648,1649),[1750,1758),[1759,1765),[1767,1769),
[1770,1774),[1806,1808),[1809,1810),[1840,1869),[1958,1969),[1970,1984),[2027,2036),[2043,2046),[2070,2074),
[2075,2084),[2085,2088),[2089,2096),[2111,2112),[2137,2142),[2143,2144),[2155,2160),[2192,2208),[2250,2307),
[2362,2363),[2364,2365),[2369,2377),[2381,2382),[2385,2392),[2402,2404),[2433,2434),[2436,2437),[2445,2447),
[2449,2451),[2473,2474),[2481,2482),[2483,2486),[2490,2493),[2494,2495),[2497,2503),[2505,2507),[2509,2510),
[2511,2524),[2526,2527),[2530,2534),[2558,2563),[2564,2565),[2571,2575),[2577,2579),[2601,2602),[2609,2610),
[2612,2613),[2615,2616),[2618,2622),[2625,2649),[2653,2654),[2655,2662),[2672,2674),[2677,2678),[2679,2691),
[2692,2693),[2702,2703),[2706,2707),[2729,2730),[2737,2738),[2740,2741),[2746,2749),[2753,2761),[2762,2763),
[2765,2768),[2769,2784),[2786,2790),[2802,2809),[2810,2818),[2820,2821),[2829,2831),[2833,2835),[2857,2858),
[2865,2866),[2868,2869),[2874,2877),[2878,2880),[2881,2887),[2889,2891),[2893,2908),[2910,2911),[2914,2918),
[2936,2947),[2948,2949),[2955,2958),[2961,2962),[2966,2969),[2971,2972),[2973,2974),[2976,2979),[2981,2984),
[2987,2990),[3002,3007),[3008,3009),[3011,3014),[3017,3018),[3021,3024),[3025,3046),[3067,3073),[3076,3077),
[3085,3086),[3089,3090),[3113,3114),[3130,3133),[3134,3137),[3141,3160),[3163,3164),[3166,3168),[3170,3174),
[3184,3191),[3201,3202),[3213,3214),[3217,3218),[3241,3242),[3252,3253),[3258,3261),[3263,3265),[3266,3267),
[3269,3292),[3295,3296),[3298,3302),[3312,3313),[3316,3330),[3341,3342),[3345,3346),[3387,3389),[3390,3391),
[3393,3398),[3401,3402),[3405,3406),[3408,3412),[3415,3416),[3426,3430),[3456,3458),[3460,3461),[3479,3482),
[3506,3507),[3516,3517),[3518,3520),[3527,3536),[3538,3544),[3551,3558),[3568,3570),[3573,3585),[3633,3634),
[3636,3647),[3655,3663),[3676,3713),[3715,3716),[3717,3718),[3723,3724),[3748,3749),[3750,3751),[3761,3762),
[3764,3773),[3774,3776),[3781,3782),[3783,3792),[3802,3804),[3808,3840),[3864,3866),[3893,3894),[3895,3896),
[3897,3898),[3912,3913),[3949,3967),[3968,3973),[3974,3976),[3981,4030),[4038,4039),[4045,4046),[4059,4096),
[4141,4145),[4146,4152),[4153,4155),[4157,4159),[4184,4186),[4190,4193),[4209,4213),[4226,4227),[4229,4231),
[4237,4238),[4253,4254),[4294,4295),[4296,4301),[4302,4304),[4681,4682),[4686,4688),[4695,4696),[4697,4698),
[4702,4704),[4745,4746),[4750,4752),[4785,4786),[4790,4792),[4799,4800),[4801,4802),[4806,4808),[4823,4824),
[4881,4882),[4886,4888),[4955,4960),[4989,4992),[5018,5024),[5110,5112),[5118,5120),[5760,5761),[5789,5792),
[5881,5888),[5906,5919),[5938,5941),[5943,5952),[5970,5984),[5997,5998),[6001,6016),[6068,6070),[6071,6078),
[6086,6087),[6089,6100),[6109,6112),[6122,6128),[6138,6144),[6155,6160),[6170,6176),[6265,6272),[6277,6279),
[6313,6314),[6315,6320),[6390,6400),[6431,6435),[6439,6441),[6444,6448),[6450,6451),[6457,6464),[6465,6468),
[6510,6512),[6517,6528),[6572,6576),[6602,6608),[6619,6622),[6679,6681),[6683,6686),[6742,6743),[6744,6753),
[6754,6755),[6757,6765),[6771,6784),[6794,6800),[6810,6816),[6830,6916),[6964,6974),[6978,6981),[6989,6990),
[7019,7028),[7040,7042),[7074,7078),[7080,7086),[7142,7143),[7144,7146),[7149,7150),[7151,7164),[7212,7220),
[7222,7227),[7242,7245),[7307,7312),[7355,7357),[7368,7379),[7380,7393),[7394,7401),[7405,7406),[7412,7413),
[7416,7418),[7419,7424),[7616,7680),[7958,7960),[7966,7968),[8006,8008),[8014,8016),[8024,8025),[8026,8027),
[8028,8029),[8030,8031),[8062,8064),[8117,8118),[8133,8134),[8148,8150),[8156,8157),[8176,8178),[8181,8182),
[8191,8208),[8232,8240),[8287,8304),[8306,8308),[8335,8336),[8349,8352),[8386,8448),[8588,8592),[9258,9280),
[9291,9312),[11124,11126),[11503,11506),[11508,11513),[11558,11559),[11560,11565),[11566,11568),[11624,11631),
[11633,11648),[11671,11680),[11687,11688),[11695,11696),[11703,11704),[11711,11712),[11719,11720),[11727,11728),
[11735,11736),[11743,11776),[11870,11904),[11930,11931),[12020,12032),[12246,12272),[12288,12289),[12330,12336),
[12352,12353),[12439,12443),[12544,12549),[12592,12593),[12687,12688),[12774,12783),[12831,12832),[42125,42128),
[42183,42192),[42540,42560),[42607,42611),[42612,42622),[42654,42656),[42736,42738),[42744,42752),[42973,42993),
[43010,43011),[43014,43015),[43019,43020),[43045,43047),[43052,43056),[43066,43072),[43128,43136),[43204,43214),
[43226,43250),[43263,43264),[43302,43310),[43335,43346),[43347,43359),[43389,43395),[43443,43444),[43446,43450),
[43452,43454),[43456,43457),[43470,43471),[43482,43486),[43493,43494),[43519,43520),[43561,43567),[43569,43571),
[43573,43584),[43587,43588),[43596,43597),[43598,43600),[43610,43612),[43644,43645),[43696,43697),[43698,43701),
[43703,43705),[43710,43712),[43713,43714),[43715,43739),[43756,43758),[43766,43777),[43783,43785),[43791,43793),
[43799,43808),[43815,43816),[43823,43824),[43884,43888),[44005,44006),[44008,44009),[44013,44016),[44026,44032),
[55204,55216),[55239,55243),[55292,63744),[64110,64112),[64218,64256),[64263,64275),[64280,64285),[64286,64287),
[64311,64312),[64317,64318),[64319,64320),[64322,64323),[64325,64326),[64976,65008),[65024,65040),[65050,65072),
[65107,65108),[65127,65128),[65132,65136),[65141,65142),[65277,65281),[65438,65440),[65471,65474),[65480,65482),
[65488,65490),[65496,65498),[65501,65504),[65511,65512),[65519,65532),[65534,65536),[65548,65549),[65575,65576),
[65595,65596),[65598,65599),[65614,65616),[65630,65664),[65787,65792),[65795,65799),[65844,65847),[65935,65936),
[65949,65952),[65953,66000),[66045,66176),[66205,66208),[66257,66273),[66300,66304),[66340,66349),[66379,66384),
[66422,66432),[66462,66463),[66500,66504),[66518,66560),[66718,66720),[66730,66736),[66772,66776),[66812,66816),
[66856,66864),[66916,66927),[66939,66940),[66955,66956),[66963,66964),[66966,66967),[66978,66979),[66994,66995),
[67002,67003),[67005,67008),[67060,67072),[67383,67392),[67414,67424),[67432,67456),[67462,67463),[67505,67506),
[67515,67584),[67590,67592),[67593,67594),[67638,67639),[67641,67644),[67645,67647),[67670,67671),[67743,67751),
[67760,67808),[67827,67828),[67830,67835),[67868,67871),[67898,67903),[67930,67968),[68024,68028),[68048,68050),
[68097,68112),[68116,68117),[68120,68121),[68150,68160),[68169,68176),[68185,68192),[68256,68288),[68325,68331),
[68343,68352),[68406,68409),[68438,68440),[68467,68472),[68498,68505),[68509,68521),[68528,68608),[68681,68736),
[68787,68800),[68851,68858),[68900,68912),[68922,68928),[68966,68974),[68998,69006),[69008,69216),[69247,69248),
[69290,69293),[69294,69296),[69298,69314),[69320,69328),[69337,69376),[69416,69424),[69446,69457),[69466,69488),
[69506,69510),[69514,69552),[69580,69600),[69623,69632),[69633,69634),[69688,69703),[69710,69714),[69744,69745),
[69747,69749),[69750,69762),[69811,69815),[69817,69819),[69821,69822),[69826,69840),[69865,69872),[69882,69891),
[69927,69932),[69933,69942),[69960,69968),[70003,70004),[70007,70018),[70070,70079),[70080,70081),[70089,70093),
[70095,70096),[70112,70113),[70133,70144),[70162,70163),[70191,70194),[70196,70200),[70206,70207),[70209,70272),
[70279,70280),[70281,70282),[70286,70287),[70302,70303),[70314,70320),[70367,70368),[70371,70384),[70394,70402),
[70404,70405),[70413,70415),[70417,70419),[70441,70442),[70449,70450),[70452,70453),[70458,70461),[70462,70463),
[70464,70465),[70469,70471),[70473,70475),[70477,70480),[70481,70493),[70500,70528),[70538,70539),[70540,70542),
[70543,70544),[70582,70583),[70584,70585),[70587,70602),[70603,70604),[70606,70609),[70610,70611),[70614,70615),
[70617,70656),[70712,70720),[70722,70725),[70726,70727),[70748,70749),[70750,70751),[70754,70784),[70832,70833),
[70835,70841),[70842,70843),[70845,70846),[70847,70849),[70850,70852),[70856,70864),[70874,71040),[71087,71088),
[71090,71096),[71100,71102),[71103,71105),[71132,71168),[71219,71227),[71229,71230),[71231,71233),[71237,71248),
[71258,71264),[71277,71296),[71339,71340),[71341,71342),[71344,71352),[71354,71360),[71370,71376),[71396,71424),
[71451,71454),[71455,71456),[71458,71462),[71463,71472),[71495,71680),[71727,71736),[71737,71739),[71740,71840),
[71923,71935),[71943,71945),[71946,71948),[71956,71957),[71959,71960),[71984,71985),[71990,71991),[71993,71999),
[72003,72004),[72007,72016),[72026,72096),[72104,72106),[72148,72156),[72160,72161),[72165,72192),[72193,72203),
[72243,72249),[72251,72255),[72263,72272),[72273,72279),[72281,72284),[72330,72343),[72344,72346),[72355,72368),
[72441,72448),[72458,72545),[72546,72549),[72550,72551),[72552,72640),[72674,72688),[72698,72704),[72713,72714),
[72752,72766),[72767,72768),[72774,72784),[72813,72816),[72848,72873),[72874,72881),[72882,72884),[72885,72960),
[72967,72968),[72970,72971),[73009,73030),[73031,73040),[73050,73056),[73062,73063),[73065,73066),[73103,73107),
[73109,73110),[73111,73112),[73113,73120),[73130,73136),[73180,73184),[73194,73440),[73459,73461),[73465,73474),
[73489,73490),[73526,73534),[73536,73539),[73562,73648),[73649,73664),[73714,73727),[74650,74752),[74863,74864),
[74869,74880),[75076,77712),[77811,77824),[78896,78913),[78919,78944),[82939,82944),[83527,90368),[90398,90410),
[90413,90416),[90426,92160),[92729,92736),[92767,92768),[92778,92782),[92863,92864),[92874,92880),[92910,92917),
[92918,92928),[92976,92983),[92998,93008),[93018,93019),[93026,93027),[93048,93053),[93072,93504),[93562,93760),
[93851,93856),[93881,93883),[93908,93952),[94027,94032),[94088,94099),[94112,94176),[94180,94194),[94199,94208),
[101590,101631),[101663,101760),[101875,110576),[110580,110581),[110588,110589),[110591,110592),[110883,110898),
[110899,110928),[110931,110933),[110934,110948),[110952,110960),[111356,113664),[113771,113776),[113789,113792),
[113801,113808),[113818,113820),[113821,113823),[113824,117760),[118013,118016),[118452,118458),[118481,118496),
[118513,118608),[118724,118784),[119030,119040),[119079,119081),[119141,119146),[119149,119171),[119173,119180),
[119210,119214),[119275,119296),[119362,119365),[119366,119488),[119508,119520),[119540,119552),[119639,119648),
[119673,119808),[119893,119894),[119965,119966),[119968,119970),[119971,119973),[119975,119977),[119981,119982),
[119994,119995),[119996,119997),[120004,120005),[120070,120071),[120075,120077),[120085,120086),[120093,120094),
[120122,120123),[120127,120128),[120133,120134),[120135,120138),[120145,120146),[120486,120488),[120780,120782),
[121344,121399),[121403,121453),[121461,121462),[121476,121477),[121484,122624),[122655,122661),[122667,122928),
[122990,123136),[123181,123191),[123198,123200),[123210,123214),[123216,123536),[123566,123584),[123628,123632),
[123642,123647),[123648,124112),[124140,124144),[124154,124368),[124398,124400),[124411,124415),[124416,124608),
[124639,124640),[124643,124644),[124646,124647),[124654,124656),[124661,124670),[124672,124896),[124903,124904),
[124908,124909),[124911,124912),[124927,124928),[125125,125127),[125136,125184),[125252,125259),[125260,125264),
[125274,125278),[125280,126065),[126133,126209),[126270,126464),[126468,126469),[126496,126497),[126499,126500),
[126501,126503),[126504,126505),[126515,126516),[126520,126521),[126522,126523),[126524,126530),[126531,126535),
[126536,126537),[126538,126539),[126540,126541),[126544,126545),[126547,126548),[126549,126551),[126552,126553),
[126554,126555),[126556,126557),[126558,126559),[126560,126561),[126563,126564),[126565,126567),[126571,126572),
[126579,126580),[126584,126585),[126589,126590),[126591,126592),[126602,126603),[126620,126625),[126628,126629),
[126634,126635),[126652,126704),[126706,126976),[127020,127024),[127124,127136),[127151,127153),[127168,127169),
[127184,127185),[127222,127232),[127406,127462),[127491,127504),[127548,127552),[127561,127568),[127570,127584),
[127590,127744),[128729,128732),[128749,128752),[128765,128768),[128986,128992),[129004,129008),[129009,129024),
[129036,129040),[129096,129104),[129114,129120),[129160,129168),[129198,129200),[129212,129216),[129218,129232),
[129241,129280),[129624,129632),[129646,129648),[129661,129664),[129675,129678),[129735,129736),[129737,129741),
[129757,129759),[129771,129775),[129785,129792),[129939,129940),[130043,131072),[173792,173824),[178206,178208),
[183982,183984),[191457,191472),[192094,194560),[195102,196608),[201547,201552),[210042,1114112)}'::int4multirange $$;

-- `s` as Rust's Debug writes it: in `quote` ('"' for a string, '''' for a character), with the escapes above.
CREATE OR REPLACE FUNCTION uuidkit._debug(s text, quote text) RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
    out text := quote;
    c text;
    escaped int4multirange;
BEGIN
    IF s ~ '^[ -~]$' AND s <> quote AND s <> '\' THEN
        RETURN quote || s || quote;
    END IF;
    FOR c IN SELECT m[1] FROM regexp_matches(s, '(.)', 'g') AS m LOOP
        IF c = quote OR c = '\' THEN
            out := out || '\' || c;
        ELSIF c = E'\t' THEN
            out := out || '\t';
        ELSIF c = E'\r' THEN
            out := out || '\r';
        ELSIF c = E'\n' THEN
            out := out || '\n';
        ELSE
            escaped := coalesce(escaped, uuidkit._escaped());
            IF escaped @> ascii(c) THEN
                out := out || '\u{' || to_hex(ascii(c)) || '}';
            ELSE
                out := out || c;
            END IF;
        END IF;
    END LOOP;
    RETURN out || quote;
END $$;

-- ASCII letters in upper case (`upper()` follows the collation: a Turkish one makes `i` into `İ`).
CREATE OR REPLACE FUNCTION uuidkit._upper(t text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$ SELECT translate(t, 'abcdefghijklmnopqrstuvwxyz', 'ABCDEFGHIJKLMNOPQRSTUVWXYZ') $$;

-- What a decoder found wrong with `t`, in `enc` (its name in messages) of `len` characters: the length (in
-- bytes), else the first character that cannot be where it is, as the library reports them. `first`, `digit` and
-- `last` are the characters allowed first, anywhere, and last (regular expression brackets; NULL: as `digit`),
-- with what the message says is expected there. Everything before the first refused character is ASCII, so its
-- place in characters is its place in bytes.
CREATE OR REPLACE FUNCTION uuidkit._refuse(t text, enc text, len int, first text, digit text, last text,
    first_desc text, digit_desc text, last_desc text, what text DEFAULT NULL, at0 int DEFAULT 0)
RETURNS void LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
    n int := octet_length(t);
    p int;
    expected text;
BEGIN
    IF n <> len THEN
        IF what IS NULL THEN
            PERFORM uuidkit._raise('22P02', format('invalid %s length %s: expected %s characters', enc, n, len));
        END IF;
        PERFORM uuidkit._raise('22P02',
            format('invalid %s length %s at position %s: expected %s characters', what, n, at0, len));
    END IF;
    IF first IS NOT NULL AND left(t, 1) !~ ('^[' || first || ']$') THEN
        p := 1;
        expected := first_desc;
    ELSE
        p := regexp_instr(t, '[^' || digit || ']', CASE WHEN first IS NULL THEN 1 ELSE 2 END);
        IF p > 0 THEN
            expected := CASE WHEN p = n AND last IS NOT NULL THEN last_desc ELSE digit_desc END;
        ELSIF last IS NOT NULL AND right(t, 1) !~ ('^[' || last || ']$') THEN
            p := n;
            expected := last_desc;
        END IF;
    END IF;
    IF p > 0 THEN
        PERFORM uuidkit._raise('22P02', format('invalid %s character %s at position %s: expected %s',
            coalesce(what, enc), uuidkit._debug(substr(t, p, 1), ''''), at0 + p - 1, expected));
    END IF;
    PERFORM uuidkit._raise('22P02', format('invalid %s length 0: expected %s characters', enc, len));
END $$;

-- A UUID from its two 64-bit halves, and the halves of a UUID.
CREATE OR REPLACE FUNCTION uuidkit._from_halves(hi int8, lo int8) RETURNS uuid
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$ SELECT (lpad(to_hex(hi), 16, '0') || lpad(to_hex(lo), 16, '0'))::uuid $$;

CREATE OR REPLACE FUNCTION uuidkit._hi(id uuid) RETURNS int8
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT ('x' || encode(substring(uuid_send(id) FROM 1 FOR 8), 'hex'))::bit(64)::int8
$$;

CREATE OR REPLACE FUNCTION uuidkit._lo(id uuid) RETURNS int8
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT ('x' || encode(substring(uuid_send(id) FROM 9 FOR 8), 'hex'))::bit(64)::int8
$$;

-- The 128-bit number in 26 digits of `a` (Crockford's base32 in either case), the first carrying 3 bits.
CREATE OR REPLACE FUNCTION uuidkit._crockford_text(id uuid, a text) RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
    hi int8 := uuidkit._hi(id);
    lo int8 := uuidkit._lo(id);
BEGIN
    RETURN substr(a, (((hi >> 61) & 7) + 1)::int, 1) || substr(a, (((hi >> 56) & 31) + 1)::int, 1) || substr(a, (((hi >> 51) & 31) + 1)::int, 1) || substr(a, (((hi >> 46) & 31) + 1)::int, 1)
        || substr(a, (((hi >> 41) & 31) + 1)::int, 1) || substr(a, (((hi >> 36) & 31) + 1)::int, 1) || substr(a, (((hi >> 31) & 31) + 1)::int, 1) || substr(a, (((hi >> 26) & 31) + 1)::int, 1)
        || substr(a, (((hi >> 21) & 31) + 1)::int, 1) || substr(a, (((hi >> 16) & 31) + 1)::int, 1) || substr(a, (((hi >> 11) & 31) + 1)::int, 1) || substr(a, (((hi >> 6) & 31) + 1)::int, 1)
        || substr(a, (((hi >> 1) & 31) + 1)::int, 1) || substr(a, ((((hi & 1) << 4) | ((lo >> 60) & 15)) + 1)::int, 1) || substr(a, (((lo >> 55) & 31) + 1)::int, 1) || substr(a, (((lo >> 50) & 31) + 1)::int, 1)
        || substr(a, (((lo >> 45) & 31) + 1)::int, 1) || substr(a, (((lo >> 40) & 31) + 1)::int, 1) || substr(a, (((lo >> 35) & 31) + 1)::int, 1) || substr(a, (((lo >> 30) & 31) + 1)::int, 1)
        || substr(a, (((lo >> 25) & 31) + 1)::int, 1) || substr(a, (((lo >> 20) & 31) + 1)::int, 1) || substr(a, (((lo >> 15) & 31) + 1)::int, 1) || substr(a, (((lo >> 10) & 31) + 1)::int, 1)
        || substr(a, (((lo >> 5) & 31) + 1)::int, 1) || substr(a, (((lo >> 0) & 31) + 1)::int, 1);
END $$;

-- The UUID of 26 Crockford digits `t` of alphabet `a` (checked by the caller).
CREATE OR REPLACE FUNCTION uuidkit._crockford_value(t text, a text) RETURNS uuid
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
BEGIN
    RETURN uuidkit._from_halves(
        ((strpos(a, substr(t, 1, 1)) - 1)::int8 << 61)
            | ((strpos(a, substr(t, 2, 1)) - 1)::int8 << 56)
            | ((strpos(a, substr(t, 3, 1)) - 1)::int8 << 51)
            | ((strpos(a, substr(t, 4, 1)) - 1)::int8 << 46)
            | ((strpos(a, substr(t, 5, 1)) - 1)::int8 << 41)
            | ((strpos(a, substr(t, 6, 1)) - 1)::int8 << 36)
            | ((strpos(a, substr(t, 7, 1)) - 1)::int8 << 31)
            | ((strpos(a, substr(t, 8, 1)) - 1)::int8 << 26)
            | ((strpos(a, substr(t, 9, 1)) - 1)::int8 << 21)
            | ((strpos(a, substr(t, 10, 1)) - 1)::int8 << 16)
            | ((strpos(a, substr(t, 11, 1)) - 1)::int8 << 11)
            | ((strpos(a, substr(t, 12, 1)) - 1)::int8 << 6)
            | ((strpos(a, substr(t, 13, 1)) - 1)::int8 << 1)
            | ((strpos(a, substr(t, 14, 1)) - 1)::int8 >> 4),
        (((strpos(a, substr(t, 14, 1)) - 1)::int8 & 15) << 60)
            | ((strpos(a, substr(t, 15, 1)) - 1)::int8 << 55)
            | ((strpos(a, substr(t, 16, 1)) - 1)::int8 << 50)
            | ((strpos(a, substr(t, 17, 1)) - 1)::int8 << 45)
            | ((strpos(a, substr(t, 18, 1)) - 1)::int8 << 40)
            | ((strpos(a, substr(t, 19, 1)) - 1)::int8 << 35)
            | ((strpos(a, substr(t, 20, 1)) - 1)::int8 << 30)
            | ((strpos(a, substr(t, 21, 1)) - 1)::int8 << 25)
            | ((strpos(a, substr(t, 22, 1)) - 1)::int8 << 20)
            | ((strpos(a, substr(t, 23, 1)) - 1)::int8 << 15)
            | ((strpos(a, substr(t, 24, 1)) - 1)::int8 << 10)
            | ((strpos(a, substr(t, 25, 1)) - 1)::int8 << 5)
            | ((strpos(a, substr(t, 26, 1)) - 1)::int8 << 0));
END $$;

-- Base32 (Crockford's alphabet over the 128-bit number, as ULID: 26 characters, upper case).
CREATE OR REPLACE FUNCTION uuidkit.to_base32(id uuid) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$ SELECT uuidkit._crockford_text(id, '0123456789ABCDEFGHJKMNPQRSTVWXYZ') $$;

CREATE OR REPLACE FUNCTION uuidkit._crockford(t text, enc text) RETURNS uuid
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
BEGIN
    IF t ~ '^[0-7][0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{25}$' THEN
        RETURN uuidkit._crockford_value(uuidkit._upper(t), '0123456789ABCDEFGHJKMNPQRSTVWXYZ');
    END IF;
    PERFORM uuidkit._refuse(t, enc, 26, '0-7', '0-9A-HJKMNP-TV-Za-hjkmnp-tv-z', NULL,
        '0-7 (the first of 26 digits carries 3 bits)', '0-9 or A-Z without I, L, O and U (either case)', NULL);
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION uuidkit.from_base32(text text) RETURNS uuid
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$ SELECT uuidkit._crockford(text, 'base32') $$;

CREATE OR REPLACE FUNCTION uuidkit.to_ulid(id uuid) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$ SELECT uuidkit._crockford_text(id, '0123456789ABCDEFGHJKMNPQRSTVWXYZ') $$;

CREATE OR REPLACE FUNCTION uuidkit.from_ulid(text text) RETURNS uuid
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$ SELECT uuidkit._crockford(text, 'ULID') $$;

-- Base32hex (RFC 4648 §7 over the 16 bytes, right-padded: 26 characters, upper case, no padding).
CREATE OR REPLACE FUNCTION uuidkit.to_base32hex(id uuid) RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
    hi int8 := uuidkit._hi(id);
    lo int8 := uuidkit._lo(id);
    a text := '0123456789ABCDEFGHIJKLMNOPQRSTUV';
BEGIN
    RETURN substr(a, (((hi >> 59) & 31) + 1)::int, 1) || substr(a, (((hi >> 54) & 31) + 1)::int, 1) || substr(a, (((hi >> 49) & 31) + 1)::int, 1) || substr(a, (((hi >> 44) & 31) + 1)::int, 1)
        || substr(a, (((hi >> 39) & 31) + 1)::int, 1) || substr(a, (((hi >> 34) & 31) + 1)::int, 1) || substr(a, (((hi >> 29) & 31) + 1)::int, 1) || substr(a, (((hi >> 24) & 31) + 1)::int, 1)
        || substr(a, (((hi >> 19) & 31) + 1)::int, 1) || substr(a, (((hi >> 14) & 31) + 1)::int, 1) || substr(a, (((hi >> 9) & 31) + 1)::int, 1) || substr(a, (((hi >> 4) & 31) + 1)::int, 1)
        || substr(a, ((((hi & 15) << 1) | ((lo >> 63) & 1)) + 1)::int, 1) || substr(a, (((lo >> 58) & 31) + 1)::int, 1) || substr(a, (((lo >> 53) & 31) + 1)::int, 1) || substr(a, (((lo >> 48) & 31) + 1)::int, 1)
        || substr(a, (((lo >> 43) & 31) + 1)::int, 1) || substr(a, (((lo >> 38) & 31) + 1)::int, 1) || substr(a, (((lo >> 33) & 31) + 1)::int, 1) || substr(a, (((lo >> 28) & 31) + 1)::int, 1)
        || substr(a, (((lo >> 23) & 31) + 1)::int, 1) || substr(a, (((lo >> 18) & 31) + 1)::int, 1) || substr(a, (((lo >> 13) & 31) + 1)::int, 1) || substr(a, (((lo >> 8) & 31) + 1)::int, 1)
        || substr(a, (((lo >> 3) & 31) + 1)::int, 1) || substr(a, (((lo & 7) << 2) + 1)::int, 1);
END $$;

CREATE OR REPLACE FUNCTION uuidkit.from_base32hex(text text) RETURNS uuid
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
    t text := uuidkit._upper(text);
    a text := '0123456789ABCDEFGHIJKLMNOPQRSTUV';
BEGIN
    IF text !~ '^[0-9A-Va-v]{25}[048CGKOScgkos]$' THEN
        PERFORM uuidkit._refuse(text, 'base32hex', 26, NULL, '0-9A-Va-v', '048CGKOScgkos', NULL,
            '0-9 or A-V (either case)', 'one of 0 4 8 C G K O S (the last digit carries 3 bits and 2 zero bits)');
    END IF;
    RETURN uuidkit._from_halves(
        ((strpos(a, substr(t, 1, 1)) - 1)::int8 << 59)
            | ((strpos(a, substr(t, 2, 1)) - 1)::int8 << 54)
            | ((strpos(a, substr(t, 3, 1)) - 1)::int8 << 49)
            | ((strpos(a, substr(t, 4, 1)) - 1)::int8 << 44)
            | ((strpos(a, substr(t, 5, 1)) - 1)::int8 << 39)
            | ((strpos(a, substr(t, 6, 1)) - 1)::int8 << 34)
            | ((strpos(a, substr(t, 7, 1)) - 1)::int8 << 29)
            | ((strpos(a, substr(t, 8, 1)) - 1)::int8 << 24)
            | ((strpos(a, substr(t, 9, 1)) - 1)::int8 << 19)
            | ((strpos(a, substr(t, 10, 1)) - 1)::int8 << 14)
            | ((strpos(a, substr(t, 11, 1)) - 1)::int8 << 9)
            | ((strpos(a, substr(t, 12, 1)) - 1)::int8 << 4)
            | ((strpos(a, substr(t, 13, 1)) - 1)::int8 >> 1),
        (((strpos(a, substr(t, 13, 1)) - 1)::int8 & 1) << 63)
            | ((strpos(a, substr(t, 14, 1)) - 1)::int8 << 58)
            | ((strpos(a, substr(t, 15, 1)) - 1)::int8 << 53)
            | ((strpos(a, substr(t, 16, 1)) - 1)::int8 << 48)
            | ((strpos(a, substr(t, 17, 1)) - 1)::int8 << 43)
            | ((strpos(a, substr(t, 18, 1)) - 1)::int8 << 38)
            | ((strpos(a, substr(t, 19, 1)) - 1)::int8 << 33)
            | ((strpos(a, substr(t, 20, 1)) - 1)::int8 << 28)
            | ((strpos(a, substr(t, 21, 1)) - 1)::int8 << 23)
            | ((strpos(a, substr(t, 22, 1)) - 1)::int8 << 18)
            | ((strpos(a, substr(t, 23, 1)) - 1)::int8 << 13)
            | ((strpos(a, substr(t, 24, 1)) - 1)::int8 << 8)
            | ((strpos(a, substr(t, 25, 1)) - 1)::int8 << 3)
            | ((strpos(a, substr(t, 26, 1)) - 1)::int8 >> 2));
END $$;

-- Base64url (RFC 4648 §5 over the 16 bytes: 22 characters, no padding).
CREATE OR REPLACE FUNCTION uuidkit.to_base64url(id uuid) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT translate(rtrim(encode(uuid_send(id), 'base64'), '='), '+/', '-_')
$$;

CREATE OR REPLACE FUNCTION uuidkit.from_base64url(text text) RETURNS uuid
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
BEGIN
    IF text ~ '^[A-Za-z0-9_-]{21}[AQgw]$' THEN
        RETURN encode(decode(translate(text, '-_', '+/') || '==', 'base64'), 'hex')::uuid;
    END IF;
    PERFORM uuidkit._refuse(text, 'base64url', 22, NULL, 'A-Za-z0-9_-', 'AQgw', NULL,
        'A-Z, a-z, 0-9, ''-'' or ''_''', 'one of A Q g w (the last digit carries 2 bits and 4 zero bits)');
    RETURN NULL;
END $$;

-- Base58 (Bitcoin's alphabet over the 128-bit number, left-padded with `1` to 22 characters): the number cut
-- into parts of 8, 7 and 7 digits, each small enough for int8.
CREATE OR REPLACE FUNCTION uuidkit.to_base58(id uuid) RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
    a text := '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
    v numeric := ((uuidkit._hi(id)::numeric + 18446744073709551616) % 18446744073709551616) * 18446744073709551616
        + (uuidkit._lo(id)::numeric + 18446744073709551616) % 18446744073709551616;
    p0 int8 := div(v, 4875194084160298409672704);
    p1 int8 := div(mod(v, 4875194084160298409672704), 2207984167552);
    p2 int8 := mod(v, 2207984167552);
BEGIN
    RETURN substr(a, (p0 / 2207984167552 % 58 + 1)::int, 1) || substr(a, (p0 / 38068692544 % 58 + 1)::int, 1) || substr(a, (p0 / 656356768 % 58 + 1)::int, 1) || substr(a, (p0 / 11316496 % 58 + 1)::int, 1)
        || substr(a, (p0 / 195112 % 58 + 1)::int, 1) || substr(a, (p0 / 3364 % 58 + 1)::int, 1) || substr(a, (p0 / 58 % 58 + 1)::int, 1) || substr(a, (p0 / 1 % 58 + 1)::int, 1)
        || substr(a, (p1 / 38068692544 % 58 + 1)::int, 1) || substr(a, (p1 / 656356768 % 58 + 1)::int, 1) || substr(a, (p1 / 11316496 % 58 + 1)::int, 1) || substr(a, (p1 / 195112 % 58 + 1)::int, 1)
        || substr(a, (p1 / 3364 % 58 + 1)::int, 1) || substr(a, (p1 / 58 % 58 + 1)::int, 1) || substr(a, (p1 / 1 % 58 + 1)::int, 1) || substr(a, (p2 / 38068692544 % 58 + 1)::int, 1)
        || substr(a, (p2 / 656356768 % 58 + 1)::int, 1) || substr(a, (p2 / 11316496 % 58 + 1)::int, 1) || substr(a, (p2 / 195112 % 58 + 1)::int, 1) || substr(a, (p2 / 3364 % 58 + 1)::int, 1)
        || substr(a, (p2 / 58 % 58 + 1)::int, 1) || substr(a, (p2 / 1 % 58 + 1)::int, 1);
END $$;

CREATE OR REPLACE FUNCTION uuidkit.from_base58(text text) RETURNS uuid
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
    a text := '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
    t text := text;
    v numeric;
BEGIN
    IF text !~ '^[1-9A-HJ-NP-Za-km-z]{22}$' THEN
        PERFORM uuidkit._refuse(text, 'base58', 22, NULL, '1-9A-HJ-NP-Za-km-z', NULL, NULL,
            '1-9, A-Z or a-z, without I, O and l', NULL);
    END IF;
    v := ((strpos(a, substr(t, 1, 1)) - 1)::int8 * 2207984167552 + (strpos(a, substr(t, 2, 1)) - 1)::int8 * 38068692544 + (strpos(a, substr(t, 3, 1)) - 1)::int8 * 656356768 + (strpos(a, substr(t, 4, 1)) - 1)::int8 * 11316496 + (strpos(a, substr(t, 5, 1)) - 1)::int8 * 195112 + (strpos(a, substr(t, 6, 1)) - 1)::int8 * 3364 + (strpos(a, substr(t, 7, 1)) - 1)::int8 * 58 + (strpos(a, substr(t, 8, 1)) - 1)::int8 * 1)::numeric * 4875194084160298409672704
        + ((strpos(a, substr(t, 9, 1)) - 1)::int8 * 38068692544 + (strpos(a, substr(t, 10, 1)) - 1)::int8 * 656356768 + (strpos(a, substr(t, 11, 1)) - 1)::int8 * 11316496 + (strpos(a, substr(t, 12, 1)) - 1)::int8 * 195112 + (strpos(a, substr(t, 13, 1)) - 1)::int8 * 3364 + (strpos(a, substr(t, 14, 1)) - 1)::int8 * 58 + (strpos(a, substr(t, 15, 1)) - 1)::int8 * 1)::numeric * 2207984167552
        + ((strpos(a, substr(t, 16, 1)) - 1)::int8 * 38068692544 + (strpos(a, substr(t, 17, 1)) - 1)::int8 * 656356768 + (strpos(a, substr(t, 18, 1)) - 1)::int8 * 11316496 + (strpos(a, substr(t, 19, 1)) - 1)::int8 * 195112 + (strpos(a, substr(t, 20, 1)) - 1)::int8 * 3364 + (strpos(a, substr(t, 21, 1)) - 1)::int8 * 58 + (strpos(a, substr(t, 22, 1)) - 1)::int8 * 1);
    IF v >= 340282366920938463463374607431768211456 THEN
        PERFORM uuidkit._raise('22P02',
            'base58 overflow: the value is 2^128 or more: expected at most "YcVfxkQb6JRzqk5kF2tNLv"');
    END IF;
    RETURN uuidkit._from_halves(((div(v, 18446744073709551616) + 9223372036854775808) % 18446744073709551616
            - 9223372036854775808)::int8,
        ((mod(v, 18446744073709551616) + 9223372036854775808) % 18446744073709551616 - 9223372036854775808)::int8);
END $$;

-- TypeID (specification v0.3): `prefix_` and the lower-case base32 form; the prefix is `a-z` and `_`, at most 63
-- characters, starting and ending with a letter, or empty (then no `_`).
CREATE OR REPLACE FUNCTION uuidkit._prefix_error(p text) RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
    n int := octet_length(p);
    q int;
BEGIN
    IF p ~ '^([a-z]([a-z_]{0,61}[a-z])?)?$' THEN
        RETURN NULL;
    ELSIF n > 63 THEN
        RETURN format('TypeID prefix of %s characters: expected at most 63', n);
    ELSIF left(p, 1) !~ '^[a-z]$' THEN
        q := 1;
    ELSE
        -- The first character that is neither a letter nor `_`; or else the last, an `_`.
        q := regexp_instr(p, '[^a-z_]', 2);
        q := CASE WHEN q = 0 THEN n ELSE q END;
    END IF;
    RETURN format('invalid TypeID prefix character %s at position %s: expected %s',
        uuidkit._debug(substr(p, q, 1), ''''), q - 1,
        CASE WHEN q = 1 OR q = n THEN 'a-z (a prefix starts and ends with a lower-case letter)' ELSE 'a-z or ''_''' END);
END $$;

CREATE OR REPLACE FUNCTION uuidkit.to_typeid(prefix text, id uuid) RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
    problem text := uuidkit._prefix_error(prefix);
BEGIN
    IF problem IS NOT NULL THEN
        PERFORM uuidkit._raise('22023', problem);
    END IF;
    RETURN CASE WHEN prefix = '' THEN '' ELSE prefix || '_' END
        || uuidkit._crockford_text(id, '0123456789abcdefghjkmnpqrstvwxyz');
END $$;

-- The prefix and UUID of a TypeID, or the library's error (22P02).
CREATE OR REPLACE FUNCTION uuidkit._typeid(t text, OUT prefix text, OUT id uuid)
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
    sep int;
    suffix text;
    problem text;
BEGIN
    IF t ~ '^([a-z]([a-z_]{0,61}[a-z])?_)?[0-7][0-9a-hjkmnp-tv-z]{25}$' THEN
        prefix := left(t, length(t) - 27 + (CASE WHEN length(t) = 26 THEN 1 ELSE 0 END));
        id := uuidkit._crockford_value(right(t, 26), '0123456789abcdefghjkmnpqrstvwxyz');
        RETURN;
    END IF;
    sep := CASE WHEN strpos(t, '_') = 0 THEN 0 ELSE length(t) - strpos(reverse(t), '_') + 1 END;
    IF sep = 1 THEN
        PERFORM uuidkit._raise('22P02', 'invalid TypeID prefix character ''_'' at position 0: expected a-z '
            '(a prefix starts and ends with a lower-case letter)');
    END IF;
    prefix := CASE WHEN sep = 0 THEN '' ELSE left(t, sep - 1) END;
    problem := uuidkit._prefix_error(prefix);
    IF problem IS NOT NULL THEN
        PERFORM uuidkit._raise('22P02', problem);
    END IF;
    suffix := substr(t, sep + 1);
    PERFORM uuidkit._refuse(suffix, 'TypeID', 26, '0-7', '0-9a-hjkmnp-tv-z', NULL,
        '0-7 (the first of 26 digits carries 3 bits)', '0-9 or a-z without i, l, o and u (lower case)', NULL,
        'TypeID suffix', CASE WHEN sep = 0 THEN 0 ELSE octet_length(prefix) + 1 END);
END $$;

CREATE OR REPLACE FUNCTION uuidkit.from_typeid(text text) RETURNS uuid
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$ SELECT (uuidkit._typeid(text)).id $$;

CREATE OR REPLACE FUNCTION uuidkit.from_typeid(text text, prefix text) RETURNS uuid
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
    t record := uuidkit._typeid(text);
BEGIN
    IF t.prefix <> prefix THEN
        PERFORM uuidkit._raise('22P02', format('expected a TypeID with the prefix %s, found the prefix %s',
            uuidkit._debug(prefix, '"'), uuidkit._debug(t.prefix, '"')));
    END IF;
    RETURN t.id;
END $$;

CREATE OR REPLACE FUNCTION uuidkit.typeid_prefix(text text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$ SELECT (uuidkit._typeid(text)).prefix $$;

-- Time. A `timestamptz` from microseconds since the Unix epoch, exactly (no floating point on the way).
CREATE OR REPLACE FUNCTION uuidkit._from_unix_micros(us int8) RETURNS timestamptz
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT (timestamp '1970-01-01' + make_interval(days => floor(us / 86400000000.0)::int)
        + (us - floor(us / 86400000000.0)::int8 * 86400000000) * interval '1 microsecond') AT TIME ZONE 'UTC'
$$;

-- The v7 millisecond of `t`, rounded up (`ceil`) or down; 22008 if a v7 timestamp cannot hold it.
CREATE OR REPLACE FUNCTION uuidkit._v7_millis(t timestamptz, ceil boolean) RETURNS int8
LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE AS $$
DECLARE
    us numeric;
    ms numeric;
BEGIN
    IF NOT isfinite(t) THEN
        PERFORM uuidkit._raise('22008', format('time %s is out of range for v7: expected a finite time', t));
    END IF;
    us := extract(epoch FROM t) * 1000000;
    ms := CASE WHEN ceil THEN ceiling(us / 1000) ELSE floor(us / 1000) END;
    IF ms < 0 OR ms > 281474976710655 THEN
        PERFORM uuidkit._raise('22008', format('time %s is out of range for v7: it is %s; expected %s to %s', t,
            CASE WHEN us < 0 THEN 'before its first timestamp' ELSE 'after its last timestamp' END,
            uuidkit._from_unix_micros(0), uuidkit._from_unix_micros(281474976710655999)));
    END IF;
    RETURN ms;
END $$;

-- A v7 UUID of the state word `st` (`unix_ms << 16 | counter`: the counter's top 12 bits in rand_a, its low 4 at
-- the top of rand_b) and 58 random bits from `r`, the layout of the C edition's `v7()`.
CREATE OR REPLACE FUNCTION uuidkit._v7_layout(st int8, r bytea) RETURNS uuid
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT (lpad(to_hex(st >> 16), 12, '0') || '7' || lpad(to_hex((st >> 4) & 4095), 3, '0')
        || lpad(to_hex(128 | (((st & 15)::int) << 2) | (get_byte(r, 8) & 3)), 2, '0')
        || substr(encode(r, 'hex'), 19, 14))::uuid
$$;

-- The next state of the session's v7 counter named `slot` for millisecond `ms` (RFC 9562 §6.2 Method 1): one more
-- than the last if that is not behind `ms`, else `ms` with a 15-bit random seed (the counter's top bit clear). A
-- counter overflow carries into the millisecond.
CREATE OR REPLACE FUNCTION uuidkit._v7_next(slot text, ms int8, r bytea) RETURNS int8
LANGUAGE plpgsql VOLATILE STRICT PARALLEL RESTRICTED AS $$
DECLARE
    last int8 := coalesce(nullif(current_setting(slot, true), '')::int8, 0);
    st int8;
BEGIN
    IF last >= ms << 16 THEN
        st := last + 1;
    ELSE
        st := (ms << 16) | (((get_byte(r, 0) << 8) | get_byte(r, 1)) & 32767);
    END IF;
    PERFORM set_config(slot, st::text, false);
    RETURN st;
END $$;

-- A v7 UUID for now, monotonic within the session (docs/postgres-pure-sql.md says what holds across sessions).
CREATE OR REPLACE FUNCTION uuidkit.v7() RETURNS uuid
LANGUAGE plpgsql VOLATILE PARALLEL RESTRICTED AS $$
DECLARE
    r bytea := uuid_send(gen_random_uuid());
BEGIN
    RETURN uuidkit._v7_layout(uuidkit._v7_next('uuidkit_pure.v7',
        floor(extract(epoch FROM clock_timestamp()) * 1000)::int8, r), r);
END $$;

-- A v7 UUID for now shifted by `shift` (timestamptz + interval arithmetic, as PostgreSQL 18's `uuidv7(interval)`),
-- monotonic within the session while the shift stays the same: a series of its own, apart from `v7()`'s, which
-- another shift starts again.
CREATE OR REPLACE FUNCTION uuidkit.v7(shift interval) RETURNS uuid
LANGUAGE plpgsql VOLATILE STRICT PARALLEL RESTRICTED AS $$
DECLARE
    r bytea := uuid_send(gen_random_uuid());
    key text := extract(month FROM shift) + 12 * extract(year FROM shift) || ' ' || extract(day FROM shift) || ' '
        || extract(epoch FROM shift - date_trunc('day', shift));
BEGIN
    IF current_setting('uuidkit_pure.v7_shift', true) IS DISTINCT FROM key THEN
        PERFORM set_config('uuidkit_pure.v7_shifted', '', false);
        PERFORM set_config('uuidkit_pure.v7_shift', key, false);
    END IF;
    RETURN uuidkit._v7_layout(uuidkit._v7_next('uuidkit_pure.v7_shifted',
        uuidkit._v7_millis(clock_timestamp() + shift, false), r), r);
END $$;

-- 'backend': this edition's `v7()` is ordered within each session only.
CREATE OR REPLACE FUNCTION uuidkit.v7_scope() RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE AS $$ SELECT 'backend'::text $$;

CREATE OR REPLACE FUNCTION uuidkit.v4() RETURNS uuid
LANGUAGE sql VOLATILE PARALLEL SAFE AS $$ SELECT gen_random_uuid() $$;

-- A v7 UUID whose timestamp is `at`'s millisecond (rounded down), with a random counter seed and random bits.
CREATE OR REPLACE FUNCTION uuidkit.v7(at timestamptz) RETURNS uuid
LANGUAGE plpgsql VOLATILE STRICT PARALLEL SAFE AS $$
DECLARE
    r bytea := uuid_send(gen_random_uuid());
BEGIN
    RETURN uuidkit._v7_layout((uuidkit._v7_millis(at, false) << 16) | (((get_byte(r, 0) << 8) | get_byte(r, 1)) & 32767), r);
END $$;

CREATE OR REPLACE FUNCTION uuidkit.v7_lower(start timestamptz) RETURNS uuid
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT (lpad(to_hex(uuidkit._v7_millis(start, true)), 12, '0') || '70008000000000000000')::uuid
$$;

CREATE OR REPLACE FUNCTION uuidkit.v7_upper("end" timestamptz) RETURNS uuid
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT (lpad(to_hex(uuidkit._v7_millis("end", false)), 12, '0') || '7fffbfffffffffffffff')::uuid
$$;

-- The 60-bit timestamp (100 ns since 1582-10-15) of a v1 or v6 UUID's bytes, NULL for any other.
CREATE OR REPLACE FUNCTION uuidkit._gregorian(b bytea) RETURNS int8
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
BEGIN
    IF (get_byte(b, 8) & 192) <> 128 THEN
        RETURN NULL;
    ELSIF get_byte(b, 6) >> 4 = 1 THEN
        RETURN ('x' || encode(substring(b FROM 1 FOR 4), 'hex'))::bit(32)::int8
            | (('x' || encode(substring(b FROM 5 FOR 2), 'hex'))::bit(16)::int8 << 32)
            | ((get_byte(b, 6) & 15)::int8 << 56) | (get_byte(b, 7)::int8 << 48);
    ELSIF get_byte(b, 6) >> 4 = 6 THEN
        RETURN (('x' || encode(substring(b FROM 1 FOR 6), 'hex'))::bit(48)::int8 << 12)
            | ((get_byte(b, 6) & 15)::int8 << 8) | get_byte(b, 7);
    END IF;
    RETURN NULL;
END $$;

-- The time of a v1, v6 or v7 UUID, to the microsecond (v1 and v6 count 100 ns, truncated); NULL for any other.
CREATE OR REPLACE FUNCTION uuidkit.extract_timestamp(id uuid) RETURNS timestamptz
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
    b bytea := uuid_send(id);
BEGIN
    IF (get_byte(b, 8) & 192) <> 128 THEN
        RETURN NULL;
    ELSIF get_byte(b, 6) >> 4 = 7 THEN
        RETURN uuidkit._from_unix_micros(('x' || encode(substring(b FROM 1 FOR 6), 'hex'))::bit(48)::int8 * 1000);
    ELSIF get_byte(b, 6) >> 4 IN (1, 6) THEN
        RETURN uuidkit._from_unix_micros(floor((uuidkit._gregorian(b) - 122192928000000000) / 10.0)::int8);
    END IF;
    RETURN NULL;
END $$;

-- As `extract_timestamp(id)`; with `sub_millisecond`, a v7's rand_a is read as the 12-bit fraction of the
-- millisecond that PostgreSQL 18's `uuidv7()` writes: the result is the microsecond of the first nanosecond that
-- gives that fraction, `ceil(f * 10^6 / 4096)`.
CREATE OR REPLACE FUNCTION uuidkit.extract_timestamp(id uuid, sub_millisecond boolean) RETURNS timestamptz
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
    b bytea := uuid_send(id);
    x int8;
BEGIN
    IF NOT sub_millisecond OR (get_byte(b, 8) & 192) <> 128 OR get_byte(b, 6) >> 4 <> 7 THEN
        RETURN uuidkit.extract_timestamp(id);
    END IF;
    x := ((get_byte(b, 6) & 15) * 256 + get_byte(b, 7)) * 15625;
    RETURN uuidkit._from_unix_micros(('x' || encode(substring(b FROM 1 FOR 6), 'hex'))::bit(48)::int8 * 1000
        + (x / 64 + CASE WHEN x % 64 <> 0 THEN 1 ELSE 0 END) / 1000);
END $$;

-- The version field of an RFC 9562 UUID (0 to 15, as PostgreSQL 18's `uuid_extract_version`); NULL for another
-- variant.
CREATE OR REPLACE FUNCTION uuidkit.extract_version(id uuid) RETURNS smallint
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
    b bytea := uuid_send(id);
BEGIN
    IF (get_byte(b, 8) & 192) <> 128 THEN
        RETURN NULL;
    END IF;
    RETURN get_byte(b, 6) >> 4;
END $$;

-- The 16 bytes of a UUID, and back (any other length is 22023).
CREATE OR REPLACE FUNCTION uuidkit.to_bytea(id uuid) RETURNS bytea
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$ SELECT uuid_send(id) $$;

CREATE OR REPLACE FUNCTION uuidkit.from_bytea(bytes bytea) RETURNS uuid
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
BEGIN
    IF octet_length(bytes) <> 16 THEN
        PERFORM uuidkit._raise('22023', format('a UUID has 16 bytes, got %s', octet_length(bytes)));
    END IF;
    RETURN encode(bytes, 'hex')::uuid;
END $$;

-- Name-based UUIDs of `name`'s UTF-8 bytes in `namespace`: the hash's first 16 bytes, with the version and variant.
CREATE OR REPLACE FUNCTION uuidkit._with_version(h bytea, version int) RETURNS uuid
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT encode(set_byte(set_byte(substring(h FROM 1 FOR 16), 6, (get_byte(h, 6) & 15) | (version << 4)),
        8, (get_byte(h, 8) & 63) | 128), 'hex')::uuid
$$;

CREATE OR REPLACE FUNCTION uuidkit.v3(namespace uuid, name text) RETURNS uuid
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT uuidkit._with_version(decode(md5(uuid_send(namespace) || convert_to(name, 'UTF8')), 'hex'), 3)
$$;

CREATE OR REPLACE FUNCTION uuidkit.v8_sha256(namespace uuid, name text) RETURNS uuid
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT uuidkit._with_version(sha256(uuid_send(namespace) || convert_to(name, 'UTF8')), 8)
$$;

-- SHA-1 is not in PostgreSQL's core: v5 calls pgcrypto's `digest()`, wherever pgcrypto is installed, and says how
-- to install it when it is not (55000).
CREATE OR REPLACE FUNCTION uuidkit.v5(namespace uuid, name text) RETURNS uuid
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
    schema text;
    h bytea;
BEGIN
    SELECT quote_ident(n.nspname) INTO schema
    FROM pg_catalog.pg_extension AS e JOIN pg_catalog.pg_namespace AS n ON n.oid = e.extnamespace
    WHERE e.extname = 'pgcrypto';
    IF schema IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '55000',
            MESSAGE = 'uuidkit.v5() needs the pgcrypto extension for SHA-1, which PostgreSQL''s core does not have',
            HINT = 'CREATE EXTENSION pgcrypto; (every managed service offers it), or use uuidkit.v8_sha256()';
    END IF;
    EXECUTE format('SELECT %s.digest($1, ''sha1'')', schema) INTO h
        USING uuid_send(namespace) || convert_to(name, 'UTF8');
    RETURN uuidkit._with_version(h, 5);
END $$;

-- The RFC 9562 namespace named `dns`, `url`, `oid` or `x500` (in any case of ASCII letters).
CREATE OR REPLACE FUNCTION uuidkit.namespace(name text) RETURNS uuid
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
BEGIN
    CASE translate(name, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')
        WHEN 'dns' THEN RETURN '6ba7b810-9dad-11d1-80b4-00c04fd430c8';
        WHEN 'url' THEN RETURN '6ba7b811-9dad-11d1-80b4-00c04fd430c8';
        WHEN 'oid' THEN RETURN '6ba7b812-9dad-11d1-80b4-00c04fd430c8';
        WHEN 'x500' THEN RETURN '6ba7b814-9dad-11d1-80b4-00c04fd430c8';
        ELSE PERFORM uuidkit._raise('22023',
            format('unknown namespace %s: expected dns, url, oid or x500', uuidkit._debug(name, '"')));
    END CASE;
    RETURN NULL;
END $$;

-- v1 ↔ v6 (RFC 9562 §5.6): the same timestamp, clock sequence and node in the other field order.
CREATE OR REPLACE FUNCTION uuidkit._describe(id uuid) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT CASE WHEN v & 192 = 128 AND n BETWEEN 1 AND 8 THEN format('version %s', n)
        ELSE format('no version (the %s variant, version field %s)',
            CASE WHEN v & 128 = 0 THEN 'NCS' WHEN v & 64 = 0 THEN 'RFC 9562' WHEN v & 32 = 0 THEN 'Microsoft'
                ELSE 'future' END, n)
    END
    FROM (SELECT get_byte(uuid_send(id), 8) AS v, get_byte(uuid_send(id), 6) >> 4 AS n) AS s
$$;

CREATE OR REPLACE FUNCTION uuidkit._convert(id uuid, to_version int, versions text) RETURNS uuid
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
    b bytea := uuid_send(id);
    ts int8 := uuidkit._gregorian(b);
    hex text;
BEGIN
    IF ts IS NULL THEN
        PERFORM uuidkit._raise('22023', format('expected a version %s UUID, found %s (%s)', versions,
            uuidkit._describe(id), id));
    END IF;
    IF get_byte(b, 6) >> 4 = to_version THEN
        RETURN id;
    END IF;
    IF to_version = 6 THEN
        hex := lpad(to_hex(ts >> 12), 12, '0') || '6' || lpad(to_hex(ts & 4095), 3, '0');
    ELSE
        hex := lpad(to_hex(ts & 4294967295), 8, '0') || lpad(to_hex((ts >> 32) & 65535), 4, '0') || '1'
            || lpad(to_hex((ts >> 48) & 4095), 3, '0');
    END IF;
    RETURN (hex || substr(encode(b, 'hex'), 17))::uuid;
END $$;

CREATE OR REPLACE FUNCTION uuidkit.v1_to_v6(id uuid) RETURNS uuid
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$ SELECT uuidkit._convert(id, 6, '1 or 6') $$;

CREATE OR REPLACE FUNCTION uuidkit.v6_to_v1(id uuid) RETURNS uuid
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$ SELECT uuidkit._convert(id, 1, '6 or 1') $$;

-- A v6 UUID: the 100-ns tick of now, increasing within the session, with a random clock sequence and a random
-- multicast node per UUID (never the host's MAC address).
CREATE OR REPLACE FUNCTION uuidkit.v6() RETURNS uuid
LANGUAGE plpgsql VOLATILE PARALLEL RESTRICTED AS $$
DECLARE
    r bytea := uuid_send(gen_random_uuid());
    last int8 := coalesce(nullif(current_setting('uuidkit_pure.v6', true), '')::int8, 0);
    ts int8 := greatest((extract(epoch FROM clock_timestamp()) * 10000000)::int8 + 122192928000000000, last + 1);
BEGIN
    PERFORM set_config('uuidkit_pure.v6', ts::text, false);
    RETURN (lpad(to_hex(ts >> 12), 12, '0') || '6' || lpad(to_hex(ts & 4095), 3, '0')
        || lpad(to_hex((get_byte(r, 8) & 63) | 128), 2, '0') || encode(substring(r FROM 10 FOR 1), 'hex')
        || lpad(to_hex(get_byte(r, 10) | 1), 2, '0') || encode(substring(r FROM 12 FOR 5), 'hex'))::uuid;
END $$;
