/*
 * tests/core/check_alibi.c -- core/alibi: press and mpt slopes (exact powers of two), causal and
 * symmetric biases with explicit positions, and the masked-softmax pipeline of /alibi (slopes ->
 * bias -> scores + bias -> weights -> weights . v) through core/attention.
 *
 * Expected values: oracle cases named in the comments (tests/vectors/alibi/<name>.json; tolerance
 * |got - want| <= abs + rel*|want| with abs = rel = 1e-12 for slopes, biases and the teaching
 * example, 1e-9 for weights and outputs, as the oracle states) and hand derivations.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/alibi.h"
#include "core/attention.h"

Suite *alibi_suite(void);

/* JSON null in an expected bias: the entry is masked (PE_MASKED). */
#define MSK NAN

typedef struct {
    const char *id;
    pe_alibi_rule rule;
    size_t num_heads;
    double bias_max;
    const double *expected; /* [num_heads] */
} slope_case;

typedef struct {
    const char *id;
    pe_alibi_rule rule;
    double bias_max;
    size_t num_heads;
    pe_alibi_mode mode;
    const int64_t *q_positions;
    size_t n_q;
    const int64_t *k_positions;
    size_t n_k;
    const double *expected; /* [num_heads][n_q][n_k], MSK = masked */
} bias_case;

static int close_to(double got, double want, double abs_tol, double rel_tol)
{
    return fabs(got - want) <= abs_tol + rel_tol * fabs(want);
}

/* Expected MSK: got must be masked; else got must be within tolerance (and not masked). */
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
/* ---- oracle data (from tests/vectors/alibi/<name>.json; case ids in the comments) ---- */

/* alibi-slopes-press-h5 */
static const double SL_0[] = {
    0.25, 0.0625, 0.015625, 0.00390625,
    0.5,
};
/* alibi-slopes-press-h20 */
static const double SL_1[] = {
    0.7071067811865476, 0.5000000000000001, 0.35355339059327384, 0.25000000000000006,
    0.17677669529663692, 0.12500000000000006, 0.08838834764831849, 0.06250000000000004,
    0.044194173824159244, 0.03125000000000002, 0.022097086912079626, 0.01562500000000001,
    0.011048543456039816, 0.007812500000000007, 0.005524271728019908, 0.003906250000000004,
    0.8408964152537145, 0.5946035575013604, 0.42044820762685714, 0.2973017787506802,
};
/* alibi-slopes-press-h96; its first 71 are alibi-slopes-press-h71 (press takes a prefix of the
 * same list for 65 .. 128 heads; the oracle numbers agree digit for digit) */
static const double SL_3[] = {
    0.9170040432046712, 0.8408964152537145, 0.7711054127039704, 0.7071067811865475,
    0.6484197773255047, 0.5946035575013605, 0.5452538663326288, 0.4999999999999999,
    0.45850202160233555, 0.4204482076268572, 0.38555270635198513, 0.3535533905932737,
    0.32420988866275235, 0.2973017787506802, 0.27262693316631437, 0.24999999999999994,
    0.22925101080116772, 0.21022410381342857, 0.19277635317599254, 0.1767766952966368,
    0.16210494433137615, 0.14865088937534007, 0.13631346658315716, 0.12499999999999994,
    0.11462550540058385, 0.10511205190671426, 0.09638817658799625, 0.08838834764831839,
    0.08105247216568806, 0.07432544468767002, 0.06815673329157856, 0.062499999999999965,
    0.057312752700291916, 0.05255602595335713, 0.04819408829399812, 0.04419417382415919,
    0.040526236082844024, 0.037162722343835004, 0.03407836664578928, 0.031249999999999976,
    0.028656376350145955, 0.02627801297667856, 0.024097044146999057, 0.022097086912079594,
    0.020263118041422012, 0.0185813611719175, 0.017039183322894638, 0.015624999999999988,
    0.014328188175072976, 0.013139006488339279, 0.012048522073499527, 0.011048543456039795,
    0.010131559020711004, 0.00929068058595875, 0.008519591661447317, 0.007812499999999992,
    0.007164094087536487, 0.0065695032441696385, 0.0060242610367497625, 0.005524271728019897,
    0.005065779510355501, 0.004645340292979374, 0.004259795830723658, 0.0039062499999999952,
    0.9576032806985737, 0.8781260801866498, 0.8052451659746274, 0.73841307296975,
    0.6771277734684467, 0.6209289060367423, 0.5693943173783462, 0.5221368912137074,
    0.4788016403492873, 0.4390630400933253, 0.40262258298731407, 0.3692065364848753,
    0.33856388673422366, 0.3104644530183715, 0.28469715868917334, 0.2610684456068539,
    0.23940082017464384, 0.21953152004666288, 0.2013112914936572, 0.1846032682424378,
    0.169281943367112, 0.1552322265091859, 0.1423485793445868, 0.13053422280342705,
    0.11970041008732203, 0.10976576002333152, 0.10065564574682868, 0.09230163412121899,
    0.08464097168355605, 0.07761611325459301, 0.07117428967229347, 0.0652671114017136,
};
/* alibi-slopes-mpt-bmax16-h20 */
static const double SL_4[] = {
    0.5, 0.25, 0.125, 0.0625,
    0.03125, 0.015625, 0.0078125, 0.00390625,
    0.001953125, 0.0009765625, 0.00048828125, 0.000244140625,
    0.0001220703125, 6.103515625e-05, 3.0517578125e-05, 1.52587890625e-05,
    0.7071067811865475, 0.35355339059327373, 0.17677669529663687, 0.08838834764831843,
};
/* alibi-slopes-mpt-bmax16-h71 */
static const double SL_5[] = {
    0.8408964152537146, 0.7071067811865475, 0.5946035575013605, 0.5,
    0.4204482076268573, 0.35355339059327373, 0.29730177875068026, 0.25,
    0.21022410381342865, 0.17677669529663687, 0.14865088937534013, 0.125,
    0.10511205190671433, 0.08838834764831843, 0.07432544468767006, 0.0625,
    0.05255602595335716, 0.044194173824159216, 0.03716272234383503, 0.03125,
    0.02627801297667858, 0.02209708691207961, 0.018581361171917516, 0.015625,
    0.01313900648833929, 0.011048543456039804, 0.009290680585958758, 0.0078125,
    0.006569503244169645, 0.005524271728019903, 0.004645340292979379, 0.00390625,
    0.0032847516220848227, 0.002762135864009951, 0.0023226701464896895, 0.001953125,
    0.0016423758110424114, 0.0013810679320049757, 0.0011613350732448448, 0.0009765625,
    0.0008211879055212057, 0.0006905339660024878, 0.0005806675366224224, 0.00048828125,
    0.00041059395276060284, 0.00034526698300124393, 0.0002903337683112112, 0.000244140625,
    0.00020529697638030142, 0.00017263349150062194, 0.0001451668841556056, 0.0001220703125,
    0.00010264848819015071, 8.631674575031098e-05, 7.25834420778028e-05, 6.103515625e-05,
    5.1324244095075355e-05, 4.3158372875155485e-05, 3.62917210389014e-05, 3.0517578125e-05,
    2.5662122047537677e-05, 2.1579186437577746e-05, 1.81458605194507e-05, 1.52587890625e-05,
    0.9170040432046712, 0.7711054127039704, 0.6484197773255048, 0.5452538663326288,
    0.4585020216023356, 0.3855527063519852, 0.3242098886627524,
};
/* alibi-slopes-mpt-bmax16-h3 */
static const double SL_6[] = {
    0.00390625, 1.52587890625e-05, 0.0625,
};
/* alibi-slopes-mpt-bmax4-h8 */
static const double SL_7[] = {
    0.7071067811865475, 0.5, 0.35355339059327373, 0.25,
    0.17677669529663687, 0.125, 0.08838834764831843, 0.0625,
};
/* alibi-slopes-mpt-bmax12-h6 */
static const double SL_8[] = {
    0.125, 0.015625, 0.001953125, 0.000244140625,
    0.35355339059327373, 0.044194173824159216,
};
/* alibi-slopes-mpt-bmax8-h71 */
static const double SL_9[] = {
    0.9170040432046712, 0.8408964152537146, 0.7711054127039704, 0.7071067811865475,
    0.6484197773255048, 0.5946035575013605, 0.5452538663326288, 0.5,
    0.4585020216023356, 0.4204482076268573, 0.3855527063519852, 0.35355339059327373,
    0.3242098886627524, 0.29730177875068026, 0.2726269331663144, 0.25,
    0.2292510108011678, 0.21022410381342865, 0.1927763531759926, 0.17677669529663687,
    0.1621049443313762, 0.14865088937534013, 0.1363134665831572, 0.125,
    0.1146255054005839, 0.10511205190671433, 0.0963881765879963, 0.08838834764831843,
    0.0810524721656881, 0.07432544468767006, 0.0681567332915786, 0.0625,
    0.05731275270029195, 0.05255602595335716, 0.04819408829399815, 0.044194173824159216,
    0.04052623608284405, 0.03716272234383503, 0.0340783666457893, 0.03125,
    0.028656376350145975, 0.02627801297667858, 0.024097044146999074, 0.02209708691207961,
    0.020263118041422026, 0.018581361171917516, 0.01703918332289465, 0.015625,
    0.014328188175072988, 0.01313900648833929, 0.012048522073499537, 0.011048543456039804,
    0.010131559020711013, 0.009290680585958758, 0.008519591661447326, 0.0078125,
    0.007164094087536494, 0.006569503244169645, 0.0060242610367497685, 0.005524271728019903,
    0.005065779510355506, 0.004645340292979379, 0.004259795830723663, 0.00390625,
    0.9576032806985737, 0.8781260801866498, 0.8052451659746271, 0.7384130729697497,
    0.6771277734684463, 0.620928906036742, 0.5693943173783458,
};
static const slope_case SLOPE_CASES[] = {
    {"alibi-slopes-press-h5", PE_ALIBI_PRESS, 5, 8.0, SL_0},
    {"alibi-slopes-press-h20", PE_ALIBI_PRESS, 20, 8.0, SL_1},
    {"alibi-slopes-press-h71", PE_ALIBI_PRESS, 71, 8.0, SL_3},
    {"alibi-slopes-press-h96", PE_ALIBI_PRESS, 96, 8.0, SL_3},
    {"alibi-slopes-mpt-bmax16-h20", PE_ALIBI_MPT, 20, 16.0, SL_4},
    {"alibi-slopes-mpt-bmax16-h71", PE_ALIBI_MPT, 71, 16.0, SL_5},
    {"alibi-slopes-mpt-bmax16-h3", PE_ALIBI_MPT, 3, 16.0, SL_6},
    {"alibi-slopes-mpt-bmax4-h8", PE_ALIBI_MPT, 8, 4.0, SL_7},
    {"alibi-slopes-mpt-bmax12-h6", PE_ALIBI_MPT, 6, 12.0, SL_8},
    {"alibi-slopes-mpt-bmax8-h71", PE_ALIBI_MPT, 71, 8.0, SL_9},
};
/* alibi-bias-press-h3-L5-causal (bias_causal.json)
 * bias [H][Tq][Tk], MSK = masked */
static const int64_t Q_10[] = {0, 1, 2, 3, 4};
static const int64_t K_10[] = {0, 1, 2, 3, 4};
static const double B_10[] = {
    0.0, MSK, MSK, MSK,
    MSK,
    -0.0625, 0.0, MSK, MSK,
    MSK,
    -0.125, -0.0625, 0.0, MSK,
    MSK,
    -0.1875, -0.125, -0.0625, 0.0,
    MSK,
    -0.25, -0.1875, -0.125, -0.0625,
    0.0,
    0.0, MSK, MSK, MSK,
    MSK,
    -0.00390625, 0.0, MSK, MSK,
    MSK,
    -0.0078125, -0.00390625, 0.0, MSK,
    MSK,
    -0.01171875, -0.0078125, -0.00390625, 0.0,
    MSK,
    -0.015625, -0.01171875, -0.0078125, -0.00390625,
    0.0,
    0.0, MSK, MSK, MSK,
    MSK,
    -0.25, 0.0, MSK, MSK,
    MSK,
    -0.5, -0.25, 0.0, MSK,
    MSK,
    -0.75, -0.5, -0.25, 0.0,
    MSK,
    -1.0, -0.75, -0.5, -0.25,
    0.0,
};
/* alibi-bias-mpt-bmax16-h4-L4-causal (bias_causal.json)
 * bias [H][Tq][Tk], MSK = masked */
static const int64_t Q_11[] = {0, 1, 2, 3};
static const int64_t K_11[] = {0, 1, 2, 3};
static const double B_11[] = {
    0.0, MSK, MSK, MSK,
    -0.0625, 0.0, MSK, MSK,
    -0.125, -0.0625, 0.0, MSK,
    -0.1875, -0.125, -0.0625, 0.0,
    0.0, MSK, MSK, MSK,
    -0.00390625, 0.0, MSK, MSK,
    -0.0078125, -0.00390625, 0.0, MSK,
    -0.01171875, -0.0078125, -0.00390625, 0.0,
    0.0, MSK, MSK, MSK,
    -0.000244140625, 0.0, MSK, MSK,
    -0.00048828125, -0.000244140625, 0.0, MSK,
    -0.000732421875, -0.00048828125, -0.000244140625, 0.0,
    0.0, MSK, MSK, MSK,
    -1.52587890625e-05, 0.0, MSK, MSK,
    -3.0517578125e-05, -1.52587890625e-05, 0.0, MSK,
    -4.57763671875e-05, -3.0517578125e-05, -1.52587890625e-05, 0.0,
};
/* alibi-bias-press-h4-L4-symmetric (bias_symmetric.json)
 * bias [H][Tq][Tk], MSK = masked */
static const int64_t Q_12[] = {0, 1, 2, 3};
static const int64_t K_12[] = {0, 1, 2, 3};
static const double B_12[] = {
    0.0, -0.25, -0.5, -0.75,
    -0.25, 0.0, -0.25, -0.5,
    -0.5, -0.25, 0.0, -0.25,
    -0.75, -0.5, -0.25, 0.0,
    0.0, -0.0625, -0.125, -0.1875,
    -0.0625, 0.0, -0.0625, -0.125,
    -0.125, -0.0625, 0.0, -0.0625,
    -0.1875, -0.125, -0.0625, 0.0,
    0.0, -0.015625, -0.03125, -0.046875,
    -0.015625, 0.0, -0.015625, -0.03125,
    -0.03125, -0.015625, 0.0, -0.015625,
    -0.046875, -0.03125, -0.015625, 0.0,
    0.0, -0.00390625, -0.0078125, -0.01171875,
    -0.00390625, 0.0, -0.00390625, -0.0078125,
    -0.0078125, -0.00390625, 0.0, -0.00390625,
    -0.01171875, -0.0078125, -0.00390625, 0.0,
};
/* alibi-bias-positions-h2-q10_11_12-k8to12-causal (bias_positions.json)
 * bias [H][Tq][Tk], MSK = masked */
static const int64_t Q_13[] = {10, 11, 12};
static const int64_t K_13[] = {8, 9, 10, 11, 12};
static const double B_13[] = {
    -0.125, -0.0625, 0.0, MSK,
    MSK,
    -0.1875, -0.125, -0.0625, 0.0,
    MSK,
    -0.25, -0.1875, -0.125, -0.0625,
    0.0,
    -0.0078125, -0.00390625, 0.0, MSK,
    MSK,
    -0.01171875, -0.0078125, -0.00390625, 0.0,
    MSK,
    -0.015625, -0.01171875, -0.0078125, -0.00390625,
    0.0,
};
/* alibi-bias-positions-h3-q1_3-k0to4-symmetric (bias_positions.json)
 * bias [H][Tq][Tk], MSK = masked */
static const int64_t Q_14[] = {1, 3};
static const int64_t K_14[] = {0, 1, 2, 3, 4};
static const double B_14[] = {
    -0.0625, 0.0, -0.0625, -0.125,
    -0.1875,
    -0.1875, -0.125, -0.0625, 0.0,
    -0.0625,
    -0.00390625, 0.0, -0.00390625, -0.0078125,
    -0.01171875,
    -0.01171875, -0.0078125, -0.00390625, 0.0,
    -0.00390625,
    -0.25, 0.0, -0.25, -0.5,
    -0.75,
    -0.75, -0.5, -0.25, 0.0,
    -0.25,
};
static const bias_case BIAS_CASES[] = {
    {"alibi-bias-press-h3-L5-causal",
     PE_ALIBI_PRESS, 8.0, 3, PE_ALIBI_CAUSAL, Q_10, 5, K_10, 5, B_10},
    {"alibi-bias-mpt-bmax16-h4-L4-causal",
     PE_ALIBI_MPT, 16.0, 4, PE_ALIBI_CAUSAL, Q_11, 4, K_11, 4, B_11},
    {"alibi-bias-press-h4-L4-symmetric",
     PE_ALIBI_PRESS, 8.0, 4, PE_ALIBI_SYMMETRIC, Q_12, 4, K_12, 4, B_12},
    {"alibi-bias-positions-h2-q10_11_12-k8to12-causal",
     PE_ALIBI_PRESS, 8.0, 2, PE_ALIBI_CAUSAL, Q_13, 3, K_13, 5, B_13},
    {"alibi-bias-positions-h3-q1_3-k0to4-symmetric",
     PE_ALIBI_PRESS, 8.0, 3, PE_ALIBI_SYMMETRIC, Q_14, 2, K_14, 5, B_14},
};

/* ---- pipeline cases (scores.json, qkv_causal.json, qkv_symmetric.json) ---- */

/* alibi-scores-h3-L3-causal (alibi/scores.json) */
/* request: {"num_heads": 3, "seq_len": 3, "mode": "causal", "slopes_rule": "press"} */
static const double SC_0[] = {
    -1.3828, 0.1761, 1.5138,
    0.7319, 0.6577, -0.4651,
    0.9178, -1.026, -2.0858,
    1.0459, -0.7396, -1.3604,
    0.2826, -0.0975, -0.1576,
    1.8819, 0.9807, -2.1417,
    1.147, -0.4084, 0.7409,
    -0.0688, -0.6858, 1.0885,
    -1.1804, -0.4468, -0.6111,
};
static const double XSL_0[] = { /* expected slopes */
    0.0625, 0.00390625, 0.25,
};
static const double XBI_0[] = { /* expected bias */
    0.0, MSK, MSK,
    -0.0625, 0.0, MSK,
    -0.125, -0.0625, 0.0,
    0.0, MSK, MSK,
    -0.00390625, 0.0, MSK,
    -0.0078125, -0.00390625, 0.0,
    0.0, MSK, MSK,
    -0.25, 0.0, MSK,
    -0.5, -0.25, 0.0,
};
static const double XWE_0[] = { /* expected weights */
    1.0, 0.0, 0.0,
    0.5029249666335193, 0.49707503336648073, 0.0,
    0.8273999969035555, 0.1260890306994341, 0.04651097239701052,
    1.0, 0.0, 0.0,
    0.5929547546948265, 0.40704524530517344, 0.0,
    0.7014097450337587, 0.28594471310149766, 0.012645541864743511,
    1.0, 0.0, 0.0,
    0.5907338742589551, 0.409266125741045, 0.0,
    0.1518048453190405, 0.40593611035043387, 0.44225904433052543,
};
/* alibi-qkv-08-h12-q3-k3-d2-causal-press (alibi/qkv_causal.json) */
/* request: {"num_heads": 12, "seq_len": 3, "mode": "causal", "slopes_rule": "press"} */
static const double Q_1[] = {
    0.4557, 0.0097,
    -0.9957, -0.8573,
    -0.0257, 1.0807,
};
static const double K_1[] = {
    1.0319, 0.7917,
    1.6951, 0.0947,
    -0.3394, -0.3687,
};
static const double V_1[] = {
    -1.568, -0.2184,
    -1.48, -0.421,
    0.6052, -1.4177,
};
static const double XSL_1[] = { /* expected slopes */
    0.5, 0.25, 0.125, 0.0625,
    0.03125, 0.015625, 0.0078125, 0.00390625,
    0.7071067811865476, 0.35355339059327384, 0.17677669529663692, 0.08838834764831849,
};
static const double XBI_1[] = { /* expected bias */
    0.0, MSK, MSK,
    -0.5, 0.0, MSK,
    -1.0, -0.5, 0.0,
    0.0, MSK, MSK,
    -0.25, 0.0, MSK,
    -0.5, -0.25, 0.0,
    0.0, MSK, MSK,
    -0.125, 0.0, MSK,
    -0.25, -0.125, 0.0,
    0.0, MSK, MSK,
    -0.0625, 0.0, MSK,
    -0.125, -0.0625, 0.0,
    0.0, MSK, MSK,
    -0.03125, 0.0, MSK,
    -0.0625, -0.03125, 0.0,
    0.0, MSK, MSK,
    -0.015625, 0.0, MSK,
    -0.03125, -0.015625, 0.0,
    0.0, MSK, MSK,
    -0.0078125, 0.0, MSK,
    -0.015625, -0.0078125, 0.0,
    0.0, MSK, MSK,
    -0.00390625, 0.0, MSK,
    -0.0078125, -0.00390625, 0.0,
    0.0, MSK, MSK,
    -0.7071067811865476, 0.0, MSK,
    -1.4142135623730951, -0.7071067811865476, 0.0,
    0.0, MSK, MSK,
    -0.35355339059327384, 0.0, MSK,
    -0.7071067811865477, -0.35355339059327384, 0.0,
    0.0, MSK, MSK,
    -0.17677669529663692, 0.0, MSK,
    -0.35355339059327384, -0.17677669529663692, 0.0,
    0.0, MSK, MSK,
    -0.08838834764831849, 0.0, MSK,
    -0.17677669529663698, -0.08838834764831849, 0.0,
};
static const double XWE_1[] = { /* expected weights */
    1.0, 0.0, 0.0,
    0.38803334381336574, 0.6119666561866343, 0.0,
    0.3221147960474156, 0.30803986172527575, 0.36984534222730864,
    1.0, 0.0, 0.0,
    0.44878363383927133, 0.5512163661607286, 0.0,
    0.4096385750287019, 0.30508683802453096, 0.28527458694676716,
    1.0, 0.0, 0.0,
    0.47986426490490985, 0.5201357350950901, 0.0,
    0.45462416521909316, 0.2988053241140732, 0.24657051066683375,
    1.0, 0.0, 0.0,
    0.4954784922368355, 0.5045215077631646, 0.0,
    0.4770835899530696, 0.2945688968342303, 0.2283475132127001,
    1.0, 0.0, 0.0,
    0.5032908214617902, 0.49670917853820984, 0.0,
    0.48826376008722694, 0.29219662710130445, 0.2195396128114686,
    1.0, 0.0, 0.0,
    0.5071966219546806, 0.49280337804531943, 0.0,
    0.49383651383636884, 0.2909497939991913, 0.2152136921644398,
    1.0, 0.0, 0.0,
    0.5091492226209346, 0.49085077737906535, 0.0,
    0.4966179559381394, 0.2903115725902186, 0.21307047147164196,
    1.0, 0.0, 0.0,
    0.5101254220056487, 0.48987457799435136, 0.0,
    0.4980073691694647, 0.2899888078907265, 0.2120038229398087,
    1.0, 0.0, 0.0,
    0.34013485764729406, 0.6598651423527059, 0.0,
    0.25550844869239425, 0.30057083857488787, 0.4439207127327179,
    1.0, 0.0, 0.0,
    0.42332468981091426, 0.5766753101890858, 0.0,
    0.3727605688008109, 0.30791103742982107, 0.31932839376936806,
    1.0, 0.0, 0.0,
    0.4669574232974196, 0.5330425767025803, 0.0,
    0.43597291467912763, 0.301773887099469, 0.2622531982214034,
    1.0, 0.0, 0.0,
    0.4890080533535927, 0.5109919466464072, 0.0,
    0.4677932250742467, 0.29640771540922217, 0.23579905951653105,
};
static const double XOU_1[] = { /* expected output */
    -1.568, -0.2184,
    -1.5141469342555762, -0.3423844445434121,
    -0.7371445944397886, -0.7243643949187522,
    -1.568, -0.2184,
    -1.5194929597778557, -0.33007643578416357,
    -0.921193625901127, -0.6223404055090278,
    -1.568, -0.2184,
    -1.522228055311632, -0.3237794999302653,
    -1.0058580976967986, -0.574649972108245,
    -1.568, -0.2184,
    -1.5236021073168415, -0.3206160574728172,
    -1.0458331213647478, -0.5519368310946063,
    -1.568, -0.2184,
    -1.5242895922886375, -0.31903327957184135,
    -1.0651832102532017, -0.5408928942955186,
    -1.568, -0.2184,
    -1.524633302732012, -0.3182419643919817,
    -1.0746940223163104, -0.5354522092770488,
    -1.568, -0.2184,
    -1.5248051315906421, -0.3178463674969986,
    -1.0794078330098884, -0.5327525410427185,
    -1.568, -0.2184,
    -1.5248910371364972, -0.3176485895016556,
    -1.0817542768928237, -0.5314079173303738,
    -1.568, -0.2184,
    -1.5099318674729618, -0.35208867784065817,
    -0.5768212732946675, -0.8116897626756208,
    -1.568, -0.2184,
    -1.5172525727033606, -0.3352344178443088,
    -0.8469393633665853, -0.6637533188308848,
    -1.568, -0.2184,
    -1.5210922532501727, -0.32639442603994273,
    -0.971515247560493, -0.5940596501532815,
    -1.568, -0.2184,
    -1.523032708695116, -0.3219269683905621,
    -1.029477604902663, -0.561246015220084,
};
/* alibi-qkv-13-h2-q2-k6-d4-causal-press (alibi/qkv_causal.json) */
/* request: {"num_heads": 2, "query_positions": [4, 5], "key_positions": [0, 1, 2, 3, 4, 5],
 * "mode": "causal", "slopes_rule": "press"} */
static const double Q_2[] = {
    -2.2939, 1.1298, 0.5964, 0.5286,
    -1.2892, 0.2137, -0.6796, 0.2709,
};
static const double K_2[] = {
    0.0182, 0.1622, 0.941, -0.5928,
    0.9215, 0.2154, 0.6471, -0.8688,
    2.4268, 1.0581, -0.1524, 0.7528,
    -1.5664, -0.5243, 0.0779, 0.34,
    0.3897, -1.9976, -0.1883, 0.225,
    -3.9219, 1.0919, -1.0386, 0.7765,
};
static const double V_2[] = {
    1.1024, 1.3192, 0.6801,
    0.3536, -0.381, -1.8605,
    -0.3386, -0.4382, 3.0104,
    -1.2589, 1.276, -0.5803,
    -1.8155, -0.0388, -0.1407,
    -0.83, -1.2428, 0.2,
};
static const double XSL_2[] = { /* expected slopes */
    0.0625, 0.00390625,
};
static const double XBI_2[] = { /* expected bias */
    -0.25, -0.1875, -0.125, -0.0625,
    0.0, MSK,
    -0.3125, -0.25, -0.1875, -0.125,
    -0.0625, 0.0,
    -0.015625, -0.01171875, -0.0078125, -0.00390625,
    0.0, MSK,
    -0.01953125, -0.015625, -0.01171875, -0.0078125,
    -0.00390625, 0.0,
};
static const double XWE_2[] = { /* expected weights */
    0.15020477410432592, 0.04979549354177883, 0.01835936619830682, 0.7486827011647523,
    0.032957664990835994, 0.0,
    0.0187661437774427, 0.01194669466959385, 0.008619237109931377, 0.08887795694776704,
    0.024688017474421644, 0.8471019500208431,
    0.17313407026833316, 0.054130482906816595, 0.018821862761285037, 0.7238619931435125,
    0.030051590920052745, 0.0,
    0.024570849601237045, 0.01475183194508076, 0.010037373332239781, 0.09761091193088825,
    0.025570756766524656, 0.8274582764240295,
};
static const double XOU_2[] = { /* expected output */
    -0.8253743451929343, 1.1251733499754906, -0.374318927812861,
    -0.8378104997936576, -0.9239002689980453, 0.13085428787472514,
    -0.7621980713950339, 1.1220089127719168, -0.35058532006569815,
    -0.8271919576054771, -0.8824107278498229, 0.12473159777361464,
};
/* alibi-qkv-14-h2-q2-k5-d4-symmetric-press (alibi/qkv_symmetric.json) */
/* request: {"num_heads": 2, "query_positions": [1, 3], "key_positions": [0, 1, 2, 3, 4], "mode":
 * "symmetric", "slopes_rule": "press"} */
static const double Q_3[] = {
    -2.2102, -1.3966, -0.9942, 0.265,
    1.6705, 1.4957, -0.6745, -0.6414,
};
static const double K_3[] = {
    0.8316, -0.7086, 0.8269, -1.3202,
    -1.3167, -0.4815, -1.2604, -1.2153,
    -0.4813, -0.3522, -0.113, -2.0819,
    0.951, -0.2855, 0.8306, -0.0403,
    -0.6898, -0.3915, -1.1169, 0.7811,
};
static const double V_3[] = {
    0.9307, 0.3791, -0.4272,
    0.5265, 0.2145, -0.5535,
    -1.1135, -1.3869, -0.2979,
    0.275, 0.2085, 0.7292,
    -0.1177, -1.0113, -0.211,
};
/* expected slopes: XSL_2; expected bias: heads 0-1 of alibi-bias-positions-h3-q1_3-k0to4-symmetric
 * (B_14: same positions and mode, and press gives 2 and 3 heads the same first slopes) */
static const double XWE_3[] = { /* expected weights */
    0.02099133560939374, 0.5861690578270541, 0.10072766335312894, 0.015210067932341484,
    0.27690187527808185,
    0.2575096774947693, 0.10556500844113587, 0.22301739700700313, 0.31199580178496883,
    0.10191211527212289,
    0.020949726767000784, 0.551714296860027, 0.10052800185721178, 0.0160959415751323,
    0.3107120329406281,
    0.2836735142097732, 0.10967263509925439, 0.2185093835699659, 0.28829237582552963,
    0.09985209129547683,
};
static const double XOU_3[] = { /* expected output */
    0.18758580981506134, -0.28286768537586127, -0.41075395713991647,
    0.12071815174467937, -0.22704981236265387, -0.028871366627139045,
    0.16589313558689603, -0.32400460277636334, -0.39809395669403713,
    0.14597519565617934, -0.21285671417496338, -0.05782906497471467,
};
/* clang-format on */

typedef struct {
    const char *id;
    size_t num_heads; /* press slopes */
    pe_alibi_mode mode;
    const int64_t *q_positions;
    size_t n_q;
    const int64_t *k_positions;
    size_t n_k;
    size_t d, dv;
    const double *q, *k, *v; /* [n_q][d], [n_k][d], [n_k][dv]; NULL when scores are given */
    const double *scores;    /* [num_heads][n_q][n_k] logits used as given, or NULL */
    const double *slopes, *bias, *weights, *output; /* expected; output NULL without v */
} pipe_case;

static const int64_t POS_0_TO_5[] = {0, 1, 2, 3, 4, 5};
static const int64_t POS_4_5[] = {4, 5};
static const int64_t POS_1_3[] = {1, 3};

static const pipe_case PIPE_CASES[] = {
    {"alibi-scores-h3-L3-causal", 3, PE_ALIBI_CAUSAL, POS_0_TO_5, 3, POS_0_TO_5, 3, 0, 0, NULL,
     NULL, NULL, SC_0, XSL_0, XBI_0, XWE_0, NULL},
    {"alibi-qkv-08-h12-q3-k3-d2-causal-press", 12, PE_ALIBI_CAUSAL, POS_0_TO_5, 3, POS_0_TO_5, 3, 2,
     2, Q_1, K_1, V_1, NULL, XSL_1, XBI_1, XWE_1, XOU_1},
    {"alibi-qkv-13-h2-q2-k6-d4-causal-press", 2, PE_ALIBI_CAUSAL, POS_4_5, 2, POS_0_TO_5, 6, 4, 3,
     Q_2, K_2, V_2, NULL, XSL_2, XBI_2, XWE_2, XOU_2},
    {"alibi-qkv-14-h2-q2-k5-d4-symmetric-press", 2, PE_ALIBI_SYMMETRIC, POS_1_3, 2, POS_0_TO_5, 5,
     4, 3, Q_3, K_3, V_3, NULL, XSL_2, B_14, XWE_3, XOU_3},
};

/*
 * Press slopes by hand (docs/conventions.md#alibi), compared exactly where the exponent is an
 * integer (the value is a power of two) and within 1 ulp (rel 2.3e-16) otherwise:
 * H = 3: c = 2, heads 0-1 = 2^-4, 2^-8; extra k = 0: 2^(-4*1/2) = 2^-2  -> (1/16, 1/256, 1/4).
 * H = 8: 2^-1 .. 2^-8. H = 1: 2^-8.
 * H = 12: c = 8: 2^-1 .. 2^-8, then 2^(-4(2k+1)/8) = 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5.
 * H = 16: 2^(-k/2): 0.707107, 0.5 (exact), 0.353553 (6 decimals, tolerance 5e-7).
 */
START_TEST(test_slopes_press_hand)
{
    double s[16];
    ck_assert_int_eq(pe_alibi_slopes(PE_ALIBI_PRESS, 3, 0.0, s), PE_OK);
    ck_assert_double_eq(s[0], 1.0 / 16.0);
    ck_assert_double_eq(s[1], 1.0 / 256.0);
    ck_assert_double_eq(s[2], 1.0 / 4.0);
    ck_assert_int_eq(pe_alibi_slopes(PE_ALIBI_PRESS, 8, 0.0, s), PE_OK);
    for (int h = 0; h < 8; h++)
        ck_assert_double_eq(s[h], ldexp(1.0, -(h + 1)));
    ck_assert_int_eq(pe_alibi_slopes(PE_ALIBI_PRESS, 1, 0.0, s), PE_OK);
    ck_assert_double_eq(s[0], 1.0 / 256.0);
    ck_assert_int_eq(pe_alibi_slopes(PE_ALIBI_PRESS, 12, 0.0, s), PE_OK);
    for (int h = 0; h < 8; h++)
        ck_assert_double_eq(s[h], ldexp(1.0, -(h + 1)));
    const double extra[4] = {0.70710678118654752, 0.35355339059327376, 0.17677669529663688,
                             0.08838834764831844}; /* 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5 */
    for (int k = 0; k < 4; k++)
        ck_assert_double_eq_tol(s[8 + k], extra[k], 2.3e-16 * extra[k]);
    ck_assert_int_eq(pe_alibi_slopes(PE_ALIBI_PRESS, 16, 0.0, s), PE_OK);
    ck_assert_double_eq_tol(s[0], 0.707107, 5e-7);
    ck_assert_double_eq(s[1], 0.5); /* the reference's 0.5000000000000001 is a rounding artefact */
    ck_assert_double_eq_tol(s[2], 0.353553, 5e-7);
    ck_assert_double_eq(s[15], 1.0 / 256.0);
}
END_TEST

/*
 * mpt by hand: H = 12, b = 16: N = 16, s_k = 2^(-16k/16) = 2^-k; N != H, so the order is
 * s_2, s_4, .., s_16 (1/4, 1/16, .., 2^-16) then s_1, s_3, s_5, s_7 (1/2, 1/8, 1/32, 1/128).
 * H = 4, b = 16: N = H, 2^-4, 2^-8, 2^-12, 2^-16 in order. With b = 8 mpt equals press for every
 * H (same dyadic exponents, so bit for bit): checked for H = 1 .. 300.
 */
START_TEST(test_slopes_mpt_hand)
{
    double s[300];
    double t[300];
    ck_assert_int_eq(pe_alibi_slopes(PE_ALIBI_MPT, 12, 16.0, s), PE_OK);
    for (int k = 0; k < 8; k++)
        ck_assert_double_eq(s[k], ldexp(1.0, -2 * (k + 1)));
    const double odd[4] = {0.5, 0.125, 1.0 / 32.0, 1.0 / 128.0};
    for (int k = 0; k < 4; k++)
        ck_assert_double_eq(s[8 + k], odd[k]);
    ck_assert_int_eq(pe_alibi_slopes(PE_ALIBI_MPT, 4, 16.0, s), PE_OK);
    for (int k = 0; k < 4; k++)
        ck_assert_double_eq(s[k], ldexp(1.0, -4 * (k + 1)));
    for (size_t h = 1; h <= 300; h++) {
        ck_assert_int_eq(pe_alibi_slopes(PE_ALIBI_MPT, h, 8.0, s), PE_OK);
        ck_assert_int_eq(pe_alibi_slopes(PE_ALIBI_PRESS, h, 8.0, t), PE_OK);
        ck_assert_msg(memcmp(s, t, h * sizeof(double)) == 0, "mpt b=8 != press at H=%zu", h);
    }
}
END_TEST

START_TEST(test_slopes_oracle)
{
    for (size_t c = 0; c < sizeof SLOPE_CASES / sizeof SLOPE_CASES[0]; c++) {
        const slope_case *tc = &SLOPE_CASES[c];
        double s[128];
        ck_assert_int_eq(pe_alibi_slopes(tc->rule, tc->num_heads, tc->bias_max, s), PE_OK);
        for (size_t h = 0; h < tc->num_heads; h++)
            check_entry(tc->id, "slopes", h, s[h], tc->expected[h], 1e-12);
    }
}
END_TEST

START_TEST(test_slopes_errors)
{
    double s[4] = {7.0, 7.0, 7.0, 7.0};
    ck_assert_int_eq(pe_alibi_slopes(PE_ALIBI_PRESS, 0, 8.0, s), PE_ERR_ARG);
    ck_assert_int_eq(pe_alibi_slopes(PE_ALIBI_MPT, 0, 8.0, s), PE_ERR_ARG);
    const double bad[] = {0.0, -8.0, NAN, INFINITY};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_int_eq(pe_alibi_slopes(PE_ALIBI_MPT, 4, bad[i], s), PE_ERR_ARG);
    ck_assert_int_eq(pe_alibi_slopes((pe_alibi_rule)5, 4, 8.0, s), PE_ERR_ARG);
    for (int h = 0; h < 4; h++)
        ck_assert_double_eq(s[h], 7.0);
    /* press ignores bias_max entirely */
    ck_assert_int_eq(pe_alibi_slopes(PE_ALIBI_PRESS, 4, NAN, s), PE_OK);
    ck_assert_double_eq(s[0], 0.25);
}
END_TEST

START_TEST(test_bias_oracle)
{
    for (size_t c = 0; c < sizeof BIAS_CASES / sizeof BIAS_CASES[0]; c++) {
        const bias_case *tc = &BIAS_CASES[c];
        double s[16];
        double b[64];
        ck_assert_int_eq(pe_alibi_slopes(tc->rule, tc->num_heads, tc->bias_max, s), PE_OK);
        size_t per = tc->n_q * tc->n_k;
        for (size_t h = 0; h < tc->num_heads; h++) {
            ck_assert_int_eq(pe_alibi_bias(s[h], tc->mode, tc->q_positions, tc->n_q,
                                           tc->k_positions, tc->n_k, b),
                             PE_OK);
            for (size_t e = 0; e < per; e++)
                check_entry(tc->id, "bias", h * per + e, b[e], tc->expected[h * per + e], 1e-12);
        }
    }
}
END_TEST

/*
 * By hand, slope 1/2, query position 3, keys 0..4:
 * causal    -0.5*(3-j) for j <= 3: (-1.5, -1, -0.5, +0), key 4 masked;
 * symmetric -0.5*|3-j|:           (-1.5, -1, -0.5, +0, -0.5).
 * A zero distance is +0.0 (so the API never prints -0). Zero slope: all +0.0 where visible.
 * KV-cache decode: query 5 over keys 0..5 equals row 5 of the full 6x6 causal bias.
 */
START_TEST(test_bias_hand)
{
    static const int64_t q3[1] = {3};
    static const int64_t k04[5] = {0, 1, 2, 3, 4};
    double b[36];
    ck_assert_int_eq(pe_alibi_bias(0.5, PE_ALIBI_CAUSAL, q3, 1, k04, 5, b), PE_OK);
    ck_assert_double_eq(b[0], -1.5);
    ck_assert_double_eq(b[1], -1.0);
    ck_assert_double_eq(b[2], -0.5);
    ck_assert_double_eq(b[3], 0.0);
    ck_assert(!signbit(b[3]));
    ck_assert(pe_attention_is_masked(b[4]));
    ck_assert_int_eq(pe_alibi_bias(0.5, PE_ALIBI_SYMMETRIC, q3, 1, k04, 5, b), PE_OK);
    ck_assert_double_eq(b[2], -0.5);
    ck_assert(!signbit(b[3]));
    ck_assert_double_eq(b[4], -0.5);
    ck_assert_int_eq(pe_alibi_bias(0.0, PE_ALIBI_SYMMETRIC, q3, 1, k04, 5, b), PE_OK);
    for (int j = 0; j < 5; j++) {
        ck_assert_double_eq(b[j], 0.0);
        ck_assert(!signbit(b[j]));
    }
    static const int64_t all[6] = {0, 1, 2, 3, 4, 5};
    static const int64_t last[1] = {5};
    double one[6];
    ck_assert_int_eq(pe_alibi_bias(0.25, PE_ALIBI_CAUSAL, all, 6, all, 6, b), PE_OK);
    ck_assert_int_eq(pe_alibi_bias(0.25, PE_ALIBI_CAUSAL, last, 1, all, 6, one), PE_OK);
    ck_assert(memcmp(one, b + 30, sizeof one) == 0);
    ck_assert(pe_attention_is_masked(b[1])); /* row 0, key 1 */
    /* n_q = 0: nothing written */
    b[0] = 9.0;
    ck_assert_int_eq(pe_alibi_bias(0.25, PE_ALIBI_CAUSAL, all, 0, all, 6, b), PE_OK);
    ck_assert_double_eq(b[0], 9.0);
}
END_TEST

START_TEST(test_bias_errors)
{
    static const int64_t q[1] = {10};
    static const int64_t k[2] = {0, 10};
    double b[2] = {3.0, 3.0};
    const double bad[] = {-0.5, NAN, INFINITY, -INFINITY};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_int_eq(pe_alibi_bias(bad[i], PE_ALIBI_CAUSAL, q, 1, k, 2, b), PE_ERR_ARG);
    ck_assert_int_eq(pe_alibi_bias(0.5, (pe_alibi_mode)3, q, 1, k, 2, b), PE_ERR_ARG);
    ck_assert_double_eq(b[0], 3.0);
    /* 1e308 * 10 overflows: an unmasked -inf would read as masked, so it is an error. */
    ck_assert_int_eq(pe_alibi_bias(1e308, PE_ALIBI_CAUSAL, q, 1, k, 2, b), PE_ERR_NONFINITE);
}
END_TEST

/*
 * The teaching example (docs/conventions.md#alibi, teaching.json): a query at position 4 sees keys
 * 1..4 with raw scores (2, 1, 3, 2); distances (3, 2, 1, 0), bias -m*(3, 2, 1, 0).
 * softmax(scores - m*dist): m = 0 -> (0.196612, 0.072329, 0.534447, 0.196612);
 * m = 1/2 -> (0.074199, 0.045004, 0.548260, 0.332537); m = 1/256 -> (0.195285, 0.072123,
 * 0.535004, 0.197587) (6 decimals: tolerance 5e-7). Full precision from the oracle cases
 * alibi-teaching-noalibi / -slope-half / -8heads-press (tolerance 1e-12). The same query at
 * position 3 over keys 0..3 gives the same weights (1e-15), and so does the key-only bias m*j
 * (Press/xformers), which differs from -m(i-j) by a per-row constant (1e-15).
 */
static void teaching_weights(double slope, int64_t qpos, double *w)
{
    static const double scores[4] = {2.0, 1.0, 3.0, 2.0};
    int64_t q[1] = {qpos};
    int64_t k[4] = {qpos - 3, qpos - 2, qpos - 1, qpos};
    double b[4];
    ck_assert_int_eq(pe_alibi_bias(slope, PE_ALIBI_CAUSAL, q, 1, k, 4, b), PE_OK);
    memcpy(w, scores, sizeof scores);
    ck_assert_int_eq(pe_attention_add_bias(w, b, 4), PE_OK);
    ck_assert_int_eq(pe_attention_softmax_row(w, 4, w), PE_OK);
}

START_TEST(test_teaching)
{
    static const double doc[3][4] = {{0.196612, 0.072329, 0.534447, 0.196612},
                                     {0.074199, 0.045004, 0.548260, 0.332537},
                                     {0.195285, 0.072123, 0.535004, 0.197587}};
    static const double oracle[3][4] = {
        /* alibi-teaching-noalibi */
        {0.19661193324148188, 0.07232948812851325, 0.5344466453885229, 0.19661193324148188},
        /* alibi-teaching-slope-half (= head 0 of alibi-teaching-8heads-press) */
        {0.0741989711191941, 0.045003950902923445, 0.5482603600826604, 0.332536717895222},
        /* alibi-teaching-8heads-press, head 7 (slope 1/256) */
        {0.19528547503706956, 0.07212269115115598, 0.5350043953912343, 0.19758743842054027}};
    static const double slopes[3] = {0.0, 0.5, 1.0 / 256.0};
    for (int c = 0; c < 3; c++) {
        double w[4];
        double w3[4];
        teaching_weights(slopes[c], 4, w);
        teaching_weights(slopes[c], 3, w3);
        for (int j = 0; j < 4; j++) {
            ck_assert_double_eq_tol(w[j], doc[c][j], 5e-7);
            ck_assert_msg(close_to(w[j], oracle[c][j], 1e-12, 1e-12), "slope %g key %d: %.17g",
                          slopes[c], j, w[j]);
            ck_assert_double_eq_tol(w3[j], w[j], 1e-15);
        }
        /* key-only form: bias m*j for keys j = 1..4 */
        double ko[4] = {2.0 + slopes[c] * 1, 1.0 + slopes[c] * 2, 3.0 + slopes[c] * 3,
                        2.0 + slopes[c] * 4};
        ck_assert_int_eq(pe_attention_softmax_row(ko, 4, ko), PE_OK);
        for (int j = 0; j < 4; j++)
            ck_assert_double_eq_tol(ko[j], w[j], 1e-15);
    }
}
END_TEST

/*
 * The /alibi pipeline per head: logits = q.k^T / sqrt(d) (or the given scores, used as is), plus
 * the head's bias, masked softmax, weights . v; against the pipeline oracle cases (slopes and bias
 * tolerance 1e-12, weights and output 1e-9; masked weights exactly 0).
 */
START_TEST(test_pipeline_oracle)
{
    for (size_t c = 0; c < sizeof PIPE_CASES / sizeof PIPE_CASES[0]; c++) {
        const pipe_case *tc = &PIPE_CASES[c];
        size_t per = tc->n_q * tc->n_k;
        double slopes[16];
        double logits[64];
        double bias[64];
        double scores[64];
        double w[64];
        double out[64];
        ck_assert_int_eq(pe_alibi_slopes(PE_ALIBI_PRESS, tc->num_heads, 8.0, slopes), PE_OK);
        if (tc->q != NULL)
            ck_assert_int_eq(pe_attention_logits(tc->q, tc->k, tc->n_q, tc->n_k, tc->d,
                                                 1.0 / sqrt((double)tc->d), logits),
                             PE_OK);
        for (size_t h = 0; h < tc->num_heads; h++) {
            check_entry(tc->id, "slopes", h, slopes[h], tc->slopes[h], 1e-12);
            ck_assert_int_eq(pe_alibi_bias(slopes[h], tc->mode, tc->q_positions, tc->n_q,
                                           tc->k_positions, tc->n_k, bias),
                             PE_OK);
            memcpy(scores, tc->q != NULL ? logits : tc->scores + h * per, per * sizeof(double));
            ck_assert_int_eq(pe_attention_add_bias(scores, bias, per), PE_OK);
            ck_assert_int_eq(pe_attention_softmax_rows(scores, tc->n_q, tc->n_k, w, NULL), PE_OK);
            for (size_t e = 0; e < per; e++) {
                check_entry(tc->id, "bias", h * per + e, bias[e], tc->bias[h * per + e], 1e-12);
                check_entry(tc->id, "weights", h * per + e, w[e], tc->weights[h * per + e], 1e-9);
                if (pe_attention_is_masked(bias[e]))
                    ck_assert(w[e] == 0.0 && !signbit(w[e]));
            }
            if (tc->v == NULL)
                continue;
            ck_assert_int_eq(pe_attention_apply(w, tc->v, tc->n_q, tc->n_k, tc->dv, out), PE_OK);
            size_t po = tc->n_q * tc->dv;
            for (size_t e = 0; e < po; e++)
                check_entry(tc->id, "output", h * po + e, out[e], tc->output[h * po + e], 1e-9);
        }
    }
}
END_TEST

Suite *alibi_suite(void)
{
    Suite *s = suite_create("alibi");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_slopes_press_hand);
    tcase_add_test(tc, test_slopes_mpt_hand);
    tcase_add_test(tc, test_slopes_oracle);
    tcase_add_test(tc, test_slopes_errors);
    tcase_add_test(tc, test_bias_oracle);
    tcase_add_test(tc, test_bias_hand);
    tcase_add_test(tc, test_bias_errors);
    tcase_add_test(tc, test_teaching);
    tcase_add_test(tc, test_pipeline_oracle);
    suite_add_tcase(s, tc);
    return s;
}
