/*
 * tests/core/check_attention.c -- core/attention: logits, bias, causal mask, masked softmax,
 * weights . v and pe_attention_run, by hand and against the /attention oracle cases.
 *
 * Expected values: hand derivations (comments) and oracle cases named in the comments
 * (tests/vectors/attention/<name>.json; tolerance |got - want| <= abs + rel*|want| with
 * abs = rel = 1e-9 as the oracle states). Masked weights must be exactly +0.0.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/alibi.h"
#include "core/attention.h"

Suite *attention_suite(void);

/* JSON null in expected scores: the entry is masked (PE_MASKED). */
#define MSK NAN

static int close_to(double got, double want, double abs_tol, double rel_tol)
{
    return fabs(got - want) <= abs_tol + rel_tol * fabs(want);
}

static void check_entry(const char *id, const char *what, size_t idx, double got, double want,
                        double tol)
{
    if (isnan(want)) {
        ck_assert_msg(pe_attention_is_masked(got), "%s %s[%zu]: got %.17g, want masked", id, what,
                      idx, got);
        return;
    }
    ck_assert_msg(!pe_attention_is_masked(got) && close_to(got, want, tol, tol),
                  "%s %s[%zu]: got %.17g want %.17g", id, what, idx, got, want);
}

/* clang-format off */
/* ---- oracle data (from tests/vectors/attention/<name>.json; case ids in the comments) ---- */

/* attn-none-00-T4-d4-full (attention/none.json) */
/* request: {"causal": false, "method": "none"} */
static const double Q_4[] = {
    0.9287, 1.2598, -1.6196, 0.436,
    0.0353, 2.1339, -2.3276, 0.365,
    0.372, 0.2949, 1.1095, 0.2108,
    0.4105, -0.7825, 0.5737, 0.4292,
};
static const double K_4[] = {
    0.2026, -0.6992, -0.1277, -0.2265,
    -0.1178, 0.302, 0.0325, -0.4195,
    0.541, 0.458, 0.4383, -1.6511,
    1.0389, -1.039, 0.9114, 0.8496,
};
static const double V_4[] = {
    -0.5504, -0.1433, -0.8073,
    -1.9876, 1.0637, -0.7143,
    1.471, 0.4339, 0.8722,
    -1.4521, -0.8587, -0.9256,
};
static const double XSC_4[] = { /* expected scores */
    -0.2923143100000001, 0.017759870000000025, -0.17516758999999993, -0.724891805,
    -0.63515454, 0.20575748, -0.3132075399999999, -1.995859785,
    -0.16012811500000002, -0.0035668250000000026, 0.237279085, 0.63518184,
    0.22990800500000003, -0.22303802499999997, -0.29675195499999996, 1.063502225,
};
static const double XWE_4[] = { /* expected weights */
    0.24174178636758406, 0.3296212730678995, 0.271786512615833, 0.1568504279486835,
    0.20182563438312193, 0.46792880042965307, 0.27848136037994925, 0.051764204807275865,
    0.17028315093528834, 0.1991431544552313, 0.2533748075496364, 0.37719888705984406,
    0.22085279121156395, 0.14040770183438425, 0.13042996505457582, 0.508309541899476,
};
static const double XOU_4[] = { /* expected output */
    -0.6161744679328682, 0.2992172555203253, -0.3387351792927231,
    -0.7066608335801887, 0.5451973912107728, -0.30219688223061836,
    -0.6645569420640848, -0.026534357457498103, -0.40785932569522876,
    -0.9468855316458149, -0.2621883743312821, -0.6353179762269501,
};
/* attn-none-04-T3-d16-causal (attention/none.json) */
/* request: {"causal": true, "method": "none"} */
static const double Q_5[] = {
    0.8917, -0.694, 0.3478, -0.1434,
    0.9552, 0.6665, -0.735, -0.3311,
    -0.0408, -2.3295, 0.154, -0.8148,
    -2.7107, 0.3646, -1.3008, 0.6578,
    0.849, -0.874, -0.3098, -0.5477,
    -2.4692, 0.2184, -0.5293, 1.2019,
    -0.3106, -0.0474, -1.0518, -0.2332,
    -1.3821, 0.2312, 0.9638, -0.1453,
    2.0379, -0.5321, 0.8878, 0.3176,
    -0.4749, -1.6574, -0.2189, 0.1705,
    -0.0901, -0.4418, -0.3345, 0.8014,
    0.271, -0.5835, -0.1274, 0.0804,
};
static const double K_5[] = {
    -0.9075, 1.1739, -1.9026, -0.6774,
    -0.7036, -2.1383, -1.0158, 0.5962,
    -1.8748, -0.2641, 0.5313, 0.5845,
    -1.1302, -0.6303, -0.2996, -0.4616,
    -0.1901, -0.2441, -0.0465, -0.7287,
    -0.5814, -0.9864, 1.8875, 0.8738,
    0.41, 1.0042, 0.7046, 1.0011,
    -1.4657, 0.5034, -1.5466, 0.889,
    0.7391, -0.6063, -0.2406, 0.9395,
    0.4248, -0.0402, 0.2847, -0.0185,
    1.2773, -0.5728, -0.0458, -0.5629,
    -0.139, -1.1964, -1.3707, 0.6973,
};
static const double V_5[] = {
    -1.5342, -0.5165, -1.3823, -0.653,
    0.5307,
    -0.6636, -0.5375, 1.2201, -1.1588,
    1.4706,
    -0.2677, 0.1848, 1.2611, 0.9277,
    -1.6767,
};
static const double XSC_5[] = { /* expected scores */
    -0.1298366525000001, MSK, MSK,
    0.695721505, 0.27740954250000005, MSK,
    0.11568034499999996, 0.19502712249999998, 0.5765825925,
};
static const double XWE_5[] = { /* expected weights */
    1.0, 0.0, 0.0,
    0.6030792468402416, 0.3969207531597585, 0.0,
    0.2726219270546948, 0.2951349561683694, 0.4322431167769358,
};
static const double XOU_5[] = { /* expected output */
    -1.5342, -0.5165, -1.3823, -0.653,
    0.5307,
    -1.1886407922991145, -0.524835335816355, -0.3493534319770447, -0.8537625169482059,
    0.9037658158948569,
    -0.7298195997618283, -0.2195657362838707, 0.5283506648207166, -0.11903256614065877,
    -0.14603611067075772,
};
/* attn-alibi-00-h2-T4-causal-press (attention/alibi.json) */
/* request: {"causal": true, "method": "alibi", "alibi": {"num_heads": 2, "mode": "causal",
 * "slopes_rule": "press"}} */
static const double Q_6[] = {
    -0.8022, 0.0263, 1.7121, 0.7771,
    -0.219, 0.1478, 0.8417, 0.0816,
    -0.4094, 0.083, -0.7279, 1.0828,
    0.4575, -0.5627, 1.8762, 0.3069,
};
static const double K_6[] = {
    -0.8186, 0.4847, -1.0189, 0.6878,
    1.1707, -0.848, 2.1369, -1.0743,
    -1.0394, -1.9866, 1.2475, 1.3966,
    0.9971, 0.3553, 0.2044, -1.0621,
};
static const double V_6[] = {
    0.0708, 1.7873, 0.5491,
    -1.3772, -1.097, 0.6227,
    0.8659, -1.62, -0.18,
    1.284, -1.8483, -1.1389,
};
static const double XSC_6[] = { /* expected scores */
    -0.27027038999999986, MSK, MSK, MSK,
    -0.33778579499999994, 0.664624075, MSK, MSK,
    0.805886045, -1.6966850649999998, 0.432412895, MSK,
    -1.361412275, 2.22115698, 1.6432551800000001, 0.15689136499999995,
    -0.27027038999999986, MSK, MSK, MSK,
    -0.27919204499999994, 0.664624075, MSK, MSK,
    0.923073545, -1.6380913149999998, 0.432412895, MSK,
    -1.185631025, 2.33834448, 1.7018489300000001, 0.15689136499999995,
};
static const double XWE_6[] = { /* expected weights */
    1.0, 0.0, 0.0, 0.0,
    0.2684678760796366, 0.7315321239203635, 0.0, 0.0,
    0.5649035518802077, 0.04625103776819507, 0.38884541035159725, 0.0,
    0.016204879551876095, 0.5828219046404752, 0.3270064380044922, 0.07396677780315641,
    1.0, 0.0, 0.0, 0.0,
    0.2801301490279407, 0.7198698509720594, 0.0, 0.0,
    0.591913325175582, 0.04570443567849344, 0.3623822391459245, 0.0,
    0.017638016493809697, 0.5982639865343736, 0.3165675210856863, 0.06753047588613044,
};
static const double XOU_6[] = { /* expected output */
    0.0708, 1.7873, 0.5491,
    -0.9884585154366864, -0.3226581050235041, 0.6029407643205389,
    0.3129994830822085, 0.3289851650741976, 0.2689968876923896,
    -0.4233868042312471, -1.2768558731483846, 0.22871937730073566,
    0.0708, 1.7873, 0.5491,
    -0.9715715442075419, -0.2890206111587107, 0.6020824210315436,
    0.29275009548246606, 0.420729692730613, 0.28825095590464356,
    -0.46185544314149035, -1.2624271290879685, 0.24833140648956792,
};
/* clang-format on */

/*
 * Hand-derived 2x2 case, scale 1, d = 2, dv = 2:
 *   q = [[ln 3, 0], [0, 0]], k = I, v = [[1, 2], [3, 4]].
 *   logits = q k^T = [[ln 3, 0], [0, 0]].
 *   row 0: softmax(ln 3, 0) = (3/4, 1/4); output 3/4 (1, 2) + 1/4 (3, 4) = (1.5, 2.5).
 *   row 1: softmax(0, 0) = (1/2, 1/2); output (2, 3).
 * Causal (positions 0, 1): row 0 sees only key 0 -> weights (1, 0) with the 0 exact, output
 * (1, 2); row 1 unchanged. Tolerance 1e-15 (a few ulps of values <= 4).
 */
static const double HQ[4] = {1.0986122886681098, 0.0, 0.0, 0.0}; /* ln 3 */
static const double HK[4] = {1.0, 0.0, 0.0, 1.0};
static const double HV[4] = {1.0, 2.0, 3.0, 4.0};

START_TEST(test_hand_2x2)
{
    pe_attention_params p;
    pe_attention_params_init(&p);
    p.tq = p.tk = p.d = p.dv = 2;
    double sc[4], w[4], out[4];
    ck_assert_int_eq(pe_attention_run(&p, HQ, HK, HV, sc, w, out, NULL), PE_OK);
    const double ws[4] = {0.75, 0.25, 0.5, 0.5};
    const double os[4] = {1.5, 2.5, 2.0, 3.0};
    ck_assert_double_eq_tol(sc[0], log(3.0), 1e-15);
    ck_assert_double_eq(sc[1], 0.0);
    for (int e = 0; e < 4; e++) {
        ck_assert_double_eq_tol(w[e], ws[e], 1e-15);
        ck_assert_double_eq_tol(out[e], os[e], 1e-15);
    }
    p.causal = 1;
    ck_assert_int_eq(pe_attention_run(&p, HQ, HK, HV, sc, w, out, NULL), PE_OK);
    ck_assert(pe_attention_is_masked(sc[1]));
    ck_assert_double_eq(w[0], 1.0);
    ck_assert(w[1] == 0.0 && !signbit(w[1])); /* masked weight exactly +0.0 */
    ck_assert_double_eq(out[0], 1.0);
    ck_assert_double_eq(out[1], 2.0);
    ck_assert_double_eq_tol(w[2], 0.5, 1e-15);
    ck_assert_double_eq_tol(out[3], 3.0, 1e-15);
    /* the scale multiplies the dot product: scale 2 -> row 0 softmax(2 ln 3, 0) = (9/10, 1/10) */
    p.causal = 0;
    p.scale = 2.0;
    ck_assert_int_eq(pe_attention_run(&p, HQ, HK, HV, sc, w, out, NULL), PE_OK);
    ck_assert_double_eq_tol(w[0], 0.9, 1e-15);
    ck_assert_double_eq_tol(w[1], 0.1, 1e-15);
    /* without v nothing is written to out */
    out[0] = 42.0;
    ck_assert_int_eq(pe_attention_run(&p, HQ, HK, NULL, sc, w, out, NULL), PE_OK);
    ck_assert_double_eq(out[0], 42.0);
}
END_TEST

/*
 * Causal mask geometry: explicit positions (query 2 over keys 0..4: keys 3, 4 masked) and index
 * mode with tq < tk aligned to the end (tq 2, tk 4: query 0 at 2 sees keys 0..2, query 1 at 3
 * sees all), and tq == tk (plain j > i).
 */
START_TEST(test_causal_mask)
{
    double l[8];
    static const int64_t q[1] = {2};
    static const int64_t k[5] = {0, 1, 2, 3, 4};
    for (int e = 0; e < 8; e++)
        l[e] = 1.0;
    pe_attention_causal_mask(l, 1, 5, q, k);
    ck_assert(!pe_attention_is_masked(l[2]));
    ck_assert(pe_attention_is_masked(l[3]) && pe_attention_is_masked(l[4]));
    for (int e = 0; e < 8; e++)
        l[e] = 1.0;
    pe_attention_causal_mask(l, 2, 4, NULL, NULL);
    static const int masked_24[8] = {0, 0, 0, 1, 0, 0, 0, 0};
    for (int e = 0; e < 8; e++)
        ck_assert_int_eq(pe_attention_is_masked(l[e]), masked_24[e]);
    for (int e = 0; e < 8; e++)
        l[e] = 1.0;
    pe_attention_causal_mask(l, 2, 2, NULL, NULL);
    ck_assert(!pe_attention_is_masked(l[0]) && pe_attention_is_masked(l[1]));
    ck_assert(!pe_attention_is_masked(l[2]) && !pe_attention_is_masked(l[3]));
}
END_TEST

/*
 * Softmax details: large logits do not overflow (row max subtracted): (1000, 1001) ->
 * (1/(1+e), e/(1+e)) = (0.2689414213699951, 0.7310585786300049) (1e-15); in place works; a
 * masked entry gets exactly 0 and does not take part in the max; one visible entry gets exactly 1.
 */
START_TEST(test_softmax)
{
    double r[3] = {1000.0, 1001.0, PE_MASKED};
    ck_assert_int_eq(pe_attention_softmax_row(r, 3, r), PE_OK);
    ck_assert_double_eq_tol(r[0], 0.2689414213699951, 1e-15);
    ck_assert_double_eq_tol(r[1], 0.7310585786300049, 1e-15);
    ck_assert(r[2] == 0.0 && !signbit(r[2]));
    double s[3] = {PE_MASKED, -5000.0, PE_MASKED};
    double w[3];
    ck_assert_int_eq(pe_attention_softmax_row(s, 3, w), PE_OK);
    ck_assert_double_eq(w[0], 0.0);
    ck_assert_double_eq(w[1], 1.0);
    ck_assert_double_eq(w[2], 0.0);
    /* a uniform row: exactly 1/4 each (exp(0) = 1, sum 4) */
    double u[4] = {0.3, 0.3, 0.3, 0.3};
    ck_assert_int_eq(pe_attention_softmax_row(u, 4, u), PE_OK);
    for (int j = 0; j < 4; j++)
        ck_assert_double_eq(u[j], 0.25);
}
END_TEST

/* A query row with no visible key: PE_ERR_EMPTY_ROW, naming the first such row. */
START_TEST(test_empty_row)
{
    double m[4] = {PE_MASKED, PE_MASKED, 0.0, 1.0};
    double w[4];
    size_t bad = 99;
    ck_assert_int_eq(pe_attention_softmax_row(m, 2, w), PE_ERR_EMPTY_ROW);
    ck_assert_int_eq(pe_attention_softmax_row(m, 0, w), PE_ERR_EMPTY_ROW);
    double m2[4] = {0.0, 1.0, PE_MASKED, PE_MASKED};
    ck_assert_int_eq(pe_attention_softmax_rows(m2, 2, 2, w, &bad), PE_ERR_EMPTY_ROW);
    ck_assert_uint_eq(bad, 1);
    /* causal with every key after the query (query position 0, keys 1, 2) */
    static const int64_t qp[1] = {0};
    static const int64_t kp[2] = {1, 2};
    pe_attention_params p;
    pe_attention_params_init(&p);
    p.tq = 1;
    p.tk = 2;
    p.d = p.dv = 2;
    p.causal = 1;
    p.q_positions = qp;
    p.k_positions = kp;
    double sc[2], out[2];
    bad = 99;
    ck_assert_int_eq(pe_attention_run(&p, HQ, HK, HV, sc, w, out, &bad), PE_ERR_EMPTY_ROW);
    ck_assert_uint_eq(bad, 0);
    /* an all-masked bias row (alibi causal with tq > tk in index mode) */
    double bias[2] = {PE_MASKED, PE_MASKED};
    p.causal = 0;
    p.bias = bias;
    ck_assert_int_eq(pe_attention_run(&p, HQ, HK, HV, sc, w, out, NULL), PE_ERR_EMPTY_ROW);
    p.tq = 0;
    ck_assert_int_eq(pe_attention_run(&p, HQ, HK, HV, sc, w, out, NULL), PE_ERR_ARG);
}
END_TEST

/* The dot products are summed in order c = 0 .. d-1 whichever way the kernel groups the keys
 * (four at a time, then one at a time). Keys chosen so that the order shows (doubles from 2^53 to
 * 2^54 are the even integers, a tie rounds to the even significand: 1e16 = 2 * 5e15 is even, so
 * 1e16 + 1 -> 1e16 and -1e16 + 1 -> -1e16), q = (1, 1, 1, 1), scale 0.5:
 *   (1, 1e16, 1, -1e16): 1 + 1e16 -> 1e16, + 1 -> 1e16, - 1e16 = 0  (reversed it would be 1,
 *                        two chains of even and odd c would give 2)      -> 0
 *   (1, 1, 1e16, -1e16): 2 + 1e16 = 1e16 + 2 exactly, - 1e16 = 2        -> 1
 *   (1e16, -1e16, 1, 1): 0 + 1 + 1 = 2                                   -> 1
 *   (1, 1e16, -1e16, 1): 1e16, 0, 1                                      -> 0.5
 * then the first and the last again (keys 4 and 5 take the one-at-a-time loop). q = (2, 2, 2, 2)
 * doubles every partial sum exactly (2e16 + 2 is again a tie rounded to 2e16), so its row is
 * twice the first. And on values with no such pattern, every entry has the bits of the same
 * key's logit computed alone (tk = 1, the one-at-a-time loop). */
START_TEST(test_logits_order)
{
    static const double q[2][4] = {{1, 1, 1, 1}, {2, 2, 2, 2}};
    static const double k[6][4] = {{1, 1e16, 1, -1e16}, {1, 1, 1e16, -1e16}, {1e16, -1e16, 1, 1},
                                   {1, 1e16, -1e16, 1}, {1, 1e16, 1, -1e16}, {1, 1e16, -1e16, 1}};
    static const double want[2][6] = {{0, 1, 1, 0.5, 0, 0.5}, {0, 2, 2, 1, 0, 1}};
    double l[2][6];
    ck_assert_int_eq(pe_attention_logits(&q[0][0], &k[0][0], 2, 6, 4, 0.5, &l[0][0]), PE_OK);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 6; j++)
            ck_assert_msg(l[i][j] == want[i][j], "logit [%d][%d] = %.17g, want %.17g", i, j,
                          l[i][j], want[i][j]);

    enum { TQ = 3, TK = 7, D = 37 };
    double qq[TQ * D], kk[TK * D], all[TQ * TK], one;
    for (int e = 0; e < TQ * D; e++)
        qq[e] = sin(0.37 * e + 0.1) * pow(10.0, e % 7 - 3);
    for (int e = 0; e < TK * D; e++)
        kk[e] = cos(0.53 * e + 0.2) * pow(10.0, e % 5 - 2);
    ck_assert_int_eq(pe_attention_logits(qq, kk, TQ, TK, D, 0.125, all), PE_OK);
    for (int i = 0; i < TQ; i++)
        for (int j = 0; j < TK; j++) {
            ck_assert_int_eq(pe_attention_logits(qq + i * D, kk + j * D, 1, 1, D, 0.125, &one),
                             PE_OK);
            ck_assert_msg(memcmp(&one, &all[i * TK + j], sizeof one) == 0,
                          "logit [%d][%d]: %.17g grouped, %.17g alone", i, j, all[i * TK + j], one);
        }
    /* an overflow in a group of four is reported too */
    static const double big[4] = {1e200, 1e200, 1e200, 1e200};
    double l4[4];
    ck_assert_int_eq(pe_attention_logits(big, &k[0][0], 1, 4, 4, 1.0, l4), PE_OK);
    double kb[4][4] = {{0}};
    kb[2][0] = 1e200;
    ck_assert_int_eq(pe_attention_logits(big, &kb[0][0], 1, 4, 4, 1.0, l4), PE_ERR_NONFINITE);
}
END_TEST

/* Nothing infinite or NaN ever leaves a function as a visible value. */
START_TEST(test_nonfinite)
{
    static const double big[2] = {1e200, 1e200};
    double l[1];
    ck_assert_int_eq(pe_attention_logits(big, big, 1, 1, 2, 1.0, l), PE_ERR_NONFINITE);
    double a[2] = {1e308, -1e308};
    static const double b[2] = {1e308, -1e308};
    ck_assert_int_eq(pe_attention_add_bias(a, b, 2), PE_ERR_NONFINITE);
    double c[2] = {1.0, INFINITY};
    static const double z[2] = {0.0, 0.0};
    ck_assert_int_eq(pe_attention_add_bias(c, z, 2), PE_ERR_NONFINITE);
    double d[2] = {1.0, NAN};
    double w[2];
    ck_assert_int_eq(pe_attention_softmax_row(d, 2, w), PE_ERR_NONFINITE);
    double e[2] = {INFINITY, 0.0};
    ck_assert_int_eq(pe_attention_softmax_row(e, 2, w), PE_ERR_NONFINITE);
    static const double w1[2] = {0.5, 0.5};
    static const double v[2] = {1e308, 1e308};
    double out[1];
    ck_assert_int_eq(pe_attention_apply(w1, v, 1, 2, 1, out), PE_OK); /* 0.5e308 + 0.5e308 */
    ck_assert_double_eq(out[0], 1e308);
    static const double w2[2] = {1.0, 1.0};
    ck_assert_int_eq(pe_attention_apply(w2, v, 1, 2, 1, out), PE_ERR_NONFINITE);
    /* a masked bias entry masks, it is not an overflow */
    double f[2] = {1.0, 2.0};
    static const double mb[2] = {0.5, PE_MASKED};
    ck_assert_int_eq(pe_attention_add_bias(f, mb, 2), PE_OK);
    ck_assert_double_eq(f[0], 1.5);
    ck_assert(pe_attention_is_masked(f[1]));
}
END_TEST

typedef struct {
    const char *id;
    size_t t, d, dv;
    int causal;
    size_t num_heads; /* 0: method none; else method alibi with press slopes */
    const double *q, *k, *v;
    const double *scores, *weights, *output; /* expected, with a leading [H] for alibi */
} attn_case;

static const attn_case ATTN_CASES[] = {
    {"attn-none-00-T4-d4-full", 4, 4, 3, 0, 0, Q_4, K_4, V_4, XSC_4, XWE_4, XOU_4},
    {"attn-none-04-T3-d16-causal", 3, 16, 5, 1, 0, Q_5, K_5, V_5, XSC_5, XWE_5, XOU_5},
    {"attn-alibi-00-h2-T4-causal-press", 4, 4, 3, 1, 2, Q_6, K_6, V_6, XSC_6, XWE_6, XOU_6},
};

/* /attention through pe_attention_run: scale 1/sqrt(d); alibi adds each head's causal bias. */
START_TEST(test_oracle)
{
    static const int64_t pos[4] = {0, 1, 2, 3};
    for (size_t c = 0; c < sizeof ATTN_CASES / sizeof ATTN_CASES[0]; c++) {
        const attn_case *tc = &ATTN_CASES[c];
        size_t heads = tc->num_heads ? tc->num_heads : 1;
        double slopes[8];
        double bias[16], sc[16], w[16], out[32];
        if (tc->num_heads)
            ck_assert_int_eq(pe_alibi_slopes(PE_ALIBI_PRESS, tc->num_heads, 8.0, slopes), PE_OK);
        pe_attention_params p;
        pe_attention_params_init(&p);
        p.tq = p.tk = tc->t;
        p.d = tc->d;
        p.dv = tc->dv;
        p.scale = 1.0 / sqrt((double)tc->d);
        p.causal = tc->causal;
        size_t per = tc->t * tc->t;
        size_t po = tc->t * tc->dv;
        for (size_t h = 0; h < heads; h++) {
            if (tc->num_heads) {
                ck_assert_int_eq(
                    pe_alibi_bias(slopes[h], PE_ALIBI_CAUSAL, pos, tc->t, pos, tc->t, bias), PE_OK);
                p.bias = bias;
            }
            ck_assert_int_eq(pe_attention_run(&p, tc->q, tc->k, tc->v, sc, w, out, NULL), PE_OK);
            for (size_t e = 0; e < per; e++) {
                check_entry(tc->id, "scores", h * per + e, sc[e], tc->scores[h * per + e], 1e-9);
                check_entry(tc->id, "weights", h * per + e, w[e], tc->weights[h * per + e], 1e-9);
                if (pe_attention_is_masked(sc[e]))
                    ck_assert(w[e] == 0.0 && !signbit(w[e]));
            }
            for (size_t e = 0; e < po; e++)
                check_entry(tc->id, "output", h * po + e, out[e], tc->output[h * po + e], 1e-9);
        }
    }
}
END_TEST

Suite *attention_suite(void)
{
    Suite *s = suite_create("attention");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_hand_2x2);
    tcase_add_test(tc, test_causal_mask);
    tcase_add_test(tc, test_softmax);
    tcase_add_test(tc, test_empty_row);
    tcase_add_test(tc, test_logits_order);
    tcase_add_test(tc, test_nonfinite);
    tcase_add_test(tc, test_oracle);
    suite_add_tcase(s, tc);
    return s;
}
