/*
 * tests/core/check_sinusoidal.c -- core/sinusoidal: every convention and layout, odd and tiny
 * d_model, other bases, the fairseq d = 2/3 error and the frequency-in-row-0 trick of
 * pe_sinusoidal_fill.
 *
 * Expected values: the oracle cases named in the comments (tests/vectors/sinusoidal/<name>.json,
 * float64 references; tolerance |got - want| <= abs + rel*|want| with abs = rel = 1e-9, 1e-8 for
 * position 100000, as the oracle states) and hand derivations (see each test).
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/sinusoidal.h"

Suite *sinusoidal_suite(void);

typedef struct {
    const char *id;
    size_t d_model;
    double base;
    pe_sinusoidal_convention conv;
    pe_sinusoidal_layout layout;
    const int64_t *positions;
    size_t n_pos;
    const double *expected; /* [n_pos][d_model] */
} sin_case;

typedef struct {
    size_t col;
    double want;
} sin_col;

static int close_to(double got, double want, double abs_tol, double rel_tol)
{
    return fabs(got - want) <= abs_tol + rel_tol * fabs(want);
}

/* clang-format off */
/* ---- oracle data (from tests/vectors/sinusoidal/<name>.json; case ids in the comments) ---- */

/* sin-vaswani-interleaved-d4-p0_1_2_etc (vaswani_interleaved.json) */
static const int64_t P_0[] = {0, 1, 2, 3, 4, 5};
static const double E_0[] = {
    0.0, 1.0, 0.0, 1.0,
    0.8414709848078965, 0.5403023058681397, 0.009999833334166664, 0.9999500004166654,
    0.9092974268256816, -0.4161468365471424, 0.01999866669333308, 0.999800006666578,
    0.1411200080598672, -0.9899924966004454, 0.02999550020249566, 0.9995500337489878,
    -0.7568024953079284, -0.6536436208636119, 0.03998933418663416, 0.999200106660978,
    -0.9589242746631386, 0.2836621854632263, 0.04997916927067833, 0.9987502603949663,
};
/* sin-vaswani-interleaved-d5-p0_1_2_etc (vaswani_interleaved.json) */
static const int64_t P_1[] = {0, 1, 2, 3, 4, 5};
static const double E_1[] = {
    0.0, 1.0, 0.0, 1.0,
    0.0,
    0.8414709848078965, 0.5403023058681397, 0.025116222909773774, 0.99968453791521,
    0.0006309573026154199,
    0.9092974268256816, -0.4161468365471424, 0.050216599387465206, 0.9987383506934931,
    0.0012619143540422218,
    0.1411200080598672, -0.9899924966004454, 0.07528529299888895, 0.997162035307237,
    0.0018928709030918876,
    -0.7568024953079284, -0.6536436208636119, 0.10030648729934576, 0.9949565862919175,
    0.0025238266985760983,
    -0.9589242746631386, 0.2836621854632263, 0.1252643958125997, 0.9921233951186234,
    0.003154781489306837,
};
/* sin-vaswani-interleaved-d1-p0_1_2 (vaswani_interleaved.json) */
static const int64_t P_2[] = {0, 1, 2};
static const double E_2[] = {
    0.0,
    0.8414709848078965,
    0.9092974268256816,
};
/* sin-vaswani-interleaved-d2-p0_1_2_etc (vaswani_interleaved.json) */
static const int64_t P_3[] = {0, 1, 2, 3};
static const double E_3[] = {
    0.0, 1.0,
    0.8414709848078965, 0.5403023058681397,
    0.9092974268256816, -0.4161468365471424,
    0.1411200080598672, -0.9899924966004454,
};
/* sin-vaswani-interleaved-d3-p0_1_7 (vaswani_interleaved.json) */
static const int64_t P_4[] = {0, 1, 7};
static const double E_4[] = {
    0.0, 1.0, 0.0,
    0.8414709848078965, 0.5403023058681397, 0.0021544330233656045,
    0.6569865987187891, 0.7539022543433047, 0.015080471170057421,
};
/* sin-vaswani-interleaved-d6-base500000 (vaswani_interleaved.json) */
static const int64_t P_5[] = {0, 3, 1000};
static const double E_5[] = {
    0.0, 1.0, 0.0, 1.0,
    0.0, 1.0,
    0.1411200080598672, -0.9899924966004454, 0.03778863213972176, 0.9992857545672355,
    0.00047622029759046027, 0.9999998866071077,
    0.8268795405320026, 0.5623790762907028, 0.03283398216836138, 0.999460819449651,
    0.15807427797375945, 0.9874272239730251,
};
/* sin-vaswani-interleaved-d8-base100 (vaswani_interleaved.json) */
static const int64_t P_6[] = {0, 1, 5, 63};
static const double E_6[] = {
    0.0, 1.0, 0.0, 1.0,
    0.0, 1.0, 0.0, 1.0,
    0.8414709848078965, 0.5403023058681397, 0.3109835929071858, 0.9504152802551828,
    0.09983341664682817, 0.9950041652780256, 0.03161750640243371, 0.999500041665278,
    -0.9589242746631386, 0.2836621854632263, 0.9999465167896047, -0.010342318905209228,
    0.47942553860420295, 0.8775825618903725, 0.15745589818234362, 0.9875260199749631,
    0.16735570030280694, 0.9858965815825497, 0.8785382292756602, 0.4776720419923982,
    0.016813900484349713, 0.9998586363834153, 0.9125013918399071, -0.4090735996006491,
};
/* sin-vaswani-interleaved-d8-seqlen4-offset10 (vaswani_interleaved.json) */
static const int64_t P_7[] = {10, 11, 12, 13};
static const double E_7[] = {
    -0.5440211108893698, -0.8390715290764524, 0.8414709848078965, 0.5403023058681397,
    0.09983341664682817, 0.9950041652780256, 0.009999833334166664, 0.9999500004166654,
    -0.9999902065507034, 0.004425697988050786, 0.8912073600614353, 0.45359612142557726,
    0.10977830083717481, 0.9939560979566967, 0.010999778168008754, 0.9999395006100393,
    -0.5365729180004348, 0.8438539587324921, 0.9320390859672263, 0.3623577544766737,
    0.11971220728891936, 0.9928086358538661, 0.011999712002073594, 0.9999280008639959,
    0.4201670368266409, 0.907446781450196, 0.9635581854171931, 0.2674988286245874,
    0.1296341426196949, 0.9915618937147879, 0.012999633836427429, 0.9999155011900351,
};
/* sin-vaswani-concat-d4-p0_1_2_etc (vaswani_concat.json) */
static const int64_t P_8[] = {0, 1, 2, 3, 4, 5};
static const double E_8[] = {
    0.0, 0.0, 1.0, 1.0,
    0.8414709848078965, 0.009999833334166664, 0.5403023058681397, 0.9999500004166654,
    0.9092974268256816, 0.01999866669333308, -0.4161468365471424, 0.999800006666578,
    0.1411200080598672, 0.02999550020249566, -0.9899924966004454, 0.9995500337489878,
    -0.7568024953079284, 0.03998933418663416, -0.6536436208636119, 0.999200106660978,
    -0.9589242746631386, 0.04997916927067833, 0.2836621854632263, 0.9987502603949663,
};
/* sin-vaswani-concat-d5-p0_1_2_etc (vaswani_concat.json) */
static const int64_t P_9[] = {0, 1, 2, 3, 4, 5};
static const double E_9[] = {
    0.0, 0.0, 0.0, 1.0,
    1.0,
    0.8414709848078965, 0.025116222909773774, 0.0006309573026154199, 0.5403023058681397,
    0.99968453791521,
    0.9092974268256816, 0.050216599387465206, 0.0012619143540422218, -0.4161468365471424,
    0.9987383506934931,
    0.1411200080598672, 0.07528529299888895, 0.0018928709030918876, -0.9899924966004454,
    0.997162035307237,
    -0.7568024953079284, 0.10030648729934576, 0.0025238266985760983, -0.6536436208636119,
    0.9949565862919175,
    -0.9589242746631386, 0.1252643958125997, 0.003154781489306837, 0.2836621854632263,
    0.9921233951186234,
};
/* sin-vaswani-concat-d7-p0_1_2_etc (vaswani_concat.json) */
static const int64_t P_10[] = {0, 1, 2, 3};
static const double E_10[] = {
    0.0, 0.0, 0.0, 0.0,
    1.0, 1.0, 1.0,
    0.8414709848078965, 0.07190645682527372, 0.005179451521004037, 0.0003727593633990364,
    0.5403023058681397, 0.9974113802573314, 0.9999865865510106,
    0.9092974268256816, 0.14344063670302096, 0.010358764093390531, 0.0007455186750033279,
    -0.4161468365471424, 0.9896589229336699, 0.9999463465638833,
    0.1411200080598672, 0.21423219005262742, 0.015537798772269504, 0.0011182778830181365,
    -0.9899924966004454, 0.9767827643571805, 0.9998792811181322,
};
/* sin-t2t-d4-base10000-p0_1_2_etc (tensor2tensor_concat.json) */
static const int64_t P_11[] = {0, 1, 2, 3, 4, 5};
static const double E_11[] = {
    0.0, 0.0, 1.0, 1.0,
    0.8414709848078965, 9.999999983333325e-05, 0.5403023058681398, 0.999999995,
    0.9092974268256817, 0.0001999999986666665, -0.4161468365471424, 0.9999999800000001,
    0.1411200080598672, 0.0002999999954999997, -0.9899924966004454, 0.9999999550000004,
    -0.7568024953079282, 0.00039999998933333303, -0.6536436208636119, 0.999999920000001,
    -0.9589242746631385, 0.0004999999791666665, 0.28366218546322625, 0.9999998750000026,
};
/* sin-t2t-d5-base10000-p0_1_2_etc (tensor2tensor_concat.json) */
static const int64_t P_12[] = {0, 1, 2, 3, 4, 5};
static const double E_12[] = {
    0.0, 0.0, 1.0, 1.0,
    0.0,
    0.8414709848078965, 9.999999983333325e-05, 0.5403023058681398, 0.999999995,
    0.0,
    0.9092974268256817, 0.0001999999986666665, -0.4161468365471424, 0.9999999800000001,
    0.0,
    0.1411200080598672, 0.0002999999954999997, -0.9899924966004454, 0.9999999550000004,
    0.0,
    -0.7568024953079282, 0.00039999998933333303, -0.6536436208636119, 0.999999920000001,
    0.0,
    -0.9589242746631385, 0.0004999999791666665, 0.28366218546322625, 0.9999998750000026,
    0.0,
};
/* sin-t2t-d2-base10000-p0_1_2_etc (tensor2tensor_concat.json) */
static const int64_t P_13[] = {0, 1, 2, 3};
static const double E_13[] = {
    0.0, 1.0,
    0.8414709848078965, 0.5403023058681398,
    0.9092974268256817, -0.4161468365471424,
    0.1411200080598672, -0.9899924966004454,
};
/* sin-t2t-d1-base10000-p0_1_2 (tensor2tensor_concat.json) */
static const int64_t P_14[] = {0, 1, 2};
static const double E_14[] = {
    0.0,
    0.0,
    0.0,
};
/* sin-t2t-d8-base1000-p0_1_5_etc (tensor2tensor_concat.json) */
static const int64_t P_15[] = {0, 1, 5, 63};
static const double E_15[] = {
    0.0, 0.0, 0.0, 0.0,
    1.0, 1.0, 1.0, 1.0,
    0.8414709848078965, 0.09983341664682817, 0.00999983333416667, 0.000999999833333342,
    0.5403023058681398, 0.9950041652780257, 0.9999500004166653, 0.9999995000000417,
    -0.9589242746631385, 0.4794255386042031, 0.04997916927067836, 0.004999979166692709,
    0.28366218546322625, 0.8775825618903726, 0.9987502603949663, 0.9999875000260416,
    0.16735570030280691, 0.01681390048435149, 0.5891447579422698, 0.06295833376952303,
    0.9858965815825497, 0.9998586363834151, 0.8080275083121516, 0.9980161562865429,
};
/* sin-t2t-d6-seqlen3 (tensor2tensor_concat.json) */
static const int64_t P_16[] = {0, 1, 2};
static const double E_16[] = {
    0.0, 0.0, 0.0, 1.0,
    1.0, 1.0,
    0.8414709848078965, 0.00999983333416666, 9.999999983333325e-05, 0.5403023058681398,
    0.9999500004166653, 0.999999995,
    0.9092974268256817, 0.01999866669333307, 0.0001999999986666665, -0.4161468365471424,
    0.9998000066665778, 0.9999999800000001,
};
/* sin-fairseq-d4-p0_1_2_etc (fairseq_concat.json) */
static const int64_t P_17[] = {0, 1, 2, 3, 4, 5};
static const double E_17[] = {
    0.0, 0.0, 1.0, 1.0,
    0.8414709848078965, 9.999999983333325e-05, 0.5403023058681398, 0.999999995,
    0.9092974268256817, 0.0001999999986666665, -0.4161468365471424, 0.9999999800000001,
    0.1411200080598672, 0.0002999999954999997, -0.9899924966004454, 0.9999999550000004,
    -0.7568024953079282, 0.00039999998933333303, -0.6536436208636119, 0.999999920000001,
    -0.9589242746631385, 0.0004999999791666665, 0.28366218546322625, 0.9999998750000026,
};
/* sin-fairseq-d7-p0_1_2_etc (fairseq_concat.json) */
static const int64_t P_18[] = {0, 1, 2, 3, 4};
static const double E_18[] = {
    0.0, 0.0, 0.0, 1.0,
    1.0, 1.0, 0.0,
    0.8414709848078965, 0.00999983333416666, 9.999999983333325e-05, 0.5403023058681398,
    0.9999500004166653, 0.999999995, 0.0,
    0.9092974268256817, 0.01999866669333307, 0.0001999999986666665, -0.4161468365471424,
    0.9998000066665778, 0.9999999800000001, 0.0,
    0.1411200080598672, 0.029995500202495647, 0.0002999999954999997, -0.9899924966004454,
    0.9995500337489875, 0.9999999550000004, 0.0,
    -0.7568024953079282, 0.03998933418663414, 0.00039999998933333303, -0.6536436208636119,
    0.9992001066609779, 0.999999920000001, 0.0,
};
/* sin-fairseq-d1-p0_1_2 (fairseq_concat.json) */
static const int64_t P_19[] = {0, 1, 2};
static const double E_19[] = {
    0.0,
    0.0,
    0.0,
};
/* sin-fairseq-d16-p2_3_4_etc (fairseq_concat.json) */
static const int64_t P_20[] = {2, 3, 4, 12, 102};
static const double E_20[] = {
    0.9092974268256817, 0.5111645252478983, 0.1434406367030209, 0.0386043594840518,
    0.010358764093390526, 0.0027789874118199285, 0.0007455186750033278, 0.0001999999986666665,
    -0.4161468365471424, 0.8594828841391146, 0.9896589229336701, 0.9992545738843661,
    0.9999463465638831, 0.9999961386070273, 0.999999722100914, 0.9999999800000001,
    0.1411200080598672, 0.7206980643792666, 0.21423219005262734, 0.05788855144323753,
    0.015537798772269497, 0.004168474410998821, 0.0011182778830181365, 0.0002999999954999997,
    -0.9899924966004454, 0.6932490894332126, 0.9767827643571804, 0.9983230517281486,
    0.999879281118132, 0.9999913118728007, 0.9999993747270927, 0.9999999550000004,
    -0.7568024953079282, 0.8786743208593298, 0.2839146120488631, 0.07715116557263015,
    0.020716416620205985, 0.005557953362114931, 0.0014910369356487387, 0.00039999998933333303,
    -0.6536436208636119, 0.47742165625618144, 0.9588495674844639, 0.9970194068576522,
    0.9997853920129149, 0.9999845544579299, 0.9999988884038105, 0.999999920000001,
    -0.5365729180004349, -0.07756431539440635, 0.760201239908046, 0.22961658846155977,
    0.06211368640936401, 0.016673173326828692, 0.004473097547505777, 0.0011999997120000195,
    0.8438539587324921, -0.9969873504600734, 0.6496876748425119, 0.9732811630270436,
    0.9980690807557557, 0.9998609929841316, 0.9999899956491217, 0.9999992800000864,
    0.9948267913584063, 0.7900170275407931, 0.871183879454307, 0.9216381260511366,
    0.5040713817685606, 0.1412545337048372, 0.03801229577607323, 0.010199823132920055,
    0.10158570369662134, -0.6130849012947635, 0.49095686997835525, -0.3880504665748376,
    0.8636619952747336, 0.9899733111088546, 0.9992772715166859, 0.9999479804510119,
};
static const sin_case SIN_CASES[] = {
    {"sin-vaswani-interleaved-d4-p0_1_2_etc",
     4, 10000.0, PE_SINUSOIDAL_VASWANI, PE_SINUSOIDAL_INTERLEAVED, P_0, 6, E_0},
    {"sin-vaswani-interleaved-d5-p0_1_2_etc",
     5, 10000.0, PE_SINUSOIDAL_VASWANI, PE_SINUSOIDAL_INTERLEAVED, P_1, 6, E_1},
    {"sin-vaswani-interleaved-d1-p0_1_2",
     1, 10000.0, PE_SINUSOIDAL_VASWANI, PE_SINUSOIDAL_INTERLEAVED, P_2, 3, E_2},
    {"sin-vaswani-interleaved-d2-p0_1_2_etc",
     2, 10000.0, PE_SINUSOIDAL_VASWANI, PE_SINUSOIDAL_INTERLEAVED, P_3, 4, E_3},
    {"sin-vaswani-interleaved-d3-p0_1_7",
     3, 10000.0, PE_SINUSOIDAL_VASWANI, PE_SINUSOIDAL_INTERLEAVED, P_4, 3, E_4},
    {"sin-vaswani-interleaved-d6-base500000",
     6, 500000.0, PE_SINUSOIDAL_VASWANI, PE_SINUSOIDAL_INTERLEAVED, P_5, 3, E_5},
    {"sin-vaswani-interleaved-d8-base100",
     8, 100.0, PE_SINUSOIDAL_VASWANI, PE_SINUSOIDAL_INTERLEAVED, P_6, 4, E_6},
    {"sin-vaswani-interleaved-d8-seqlen4-offset10",
     8, 10000.0, PE_SINUSOIDAL_VASWANI, PE_SINUSOIDAL_INTERLEAVED, P_7, 4, E_7},
    {"sin-vaswani-concat-d4-p0_1_2_etc",
     4, 10000.0, PE_SINUSOIDAL_VASWANI, PE_SINUSOIDAL_CONCAT, P_8, 6, E_8},
    {"sin-vaswani-concat-d5-p0_1_2_etc",
     5, 10000.0, PE_SINUSOIDAL_VASWANI, PE_SINUSOIDAL_CONCAT, P_9, 6, E_9},
    {"sin-vaswani-concat-d7-p0_1_2_etc",
     7, 10000.0, PE_SINUSOIDAL_VASWANI, PE_SINUSOIDAL_CONCAT, P_10, 4, E_10},
    {"sin-t2t-d4-base10000-p0_1_2_etc",
     4, 10000.0, PE_SINUSOIDAL_TENSOR2TENSOR, PE_SINUSOIDAL_CONCAT, P_11, 6, E_11},
    {"sin-t2t-d5-base10000-p0_1_2_etc",
     5, 10000.0, PE_SINUSOIDAL_TENSOR2TENSOR, PE_SINUSOIDAL_CONCAT, P_12, 6, E_12},
    {"sin-t2t-d2-base10000-p0_1_2_etc",
     2, 10000.0, PE_SINUSOIDAL_TENSOR2TENSOR, PE_SINUSOIDAL_CONCAT, P_13, 4, E_13},
    {"sin-t2t-d1-base10000-p0_1_2",
     1, 10000.0, PE_SINUSOIDAL_TENSOR2TENSOR, PE_SINUSOIDAL_CONCAT, P_14, 3, E_14},
    {"sin-t2t-d8-base1000-p0_1_5_etc",
     8, 1000.0, PE_SINUSOIDAL_TENSOR2TENSOR, PE_SINUSOIDAL_CONCAT, P_15, 4, E_15},
    {"sin-t2t-d6-seqlen3",
     6, 10000.0, PE_SINUSOIDAL_TENSOR2TENSOR, PE_SINUSOIDAL_CONCAT, P_16, 3, E_16},
    {"sin-fairseq-d4-p0_1_2_etc",
     4, 10000.0, PE_SINUSOIDAL_FAIRSEQ, PE_SINUSOIDAL_CONCAT, P_17, 6, E_17},
    {"sin-fairseq-d7-p0_1_2_etc",
     7, 10000.0, PE_SINUSOIDAL_FAIRSEQ, PE_SINUSOIDAL_CONCAT, P_18, 5, E_18},
    {"sin-fairseq-d1-p0_1_2",
     1, 10000.0, PE_SINUSOIDAL_FAIRSEQ, PE_SINUSOIDAL_CONCAT, P_19, 3, E_19},
    {"sin-fairseq-d16-p2_3_4_etc",
     16, 10000.0, PE_SINUSOIDAL_FAIRSEQ, PE_SINUSOIDAL_CONCAT, P_20, 5, E_20},
};
/* sin-vaswani-concat-d512-p100000 (vaswani_concat.json)
 * row of position 100000, tolerance abs=rel=1e-08 */
static const sin_col COLS_VASWANI_CONCAT_P100000[] = {
    {0, 0.03574879797201651},
    {1, 0.40590603605782016},
    {2, -0.08798706072072532},
    {3, 0.7478124966610725},
    {37, 0.9205242235246297},
    {100, -0.8670047934730297},
    {127, -0.09251476400677479},
    {128, 0.8268795405320026},
    {129, -0.19148533180897132},
    {200, -0.39751102232654134},
    {254, -0.9690369891668491},
    {255, -0.8084720803883775},
    {256, -0.9993608074382127},
    {257, 0.9139148154460718},
    {300, -0.22786494843577948},
    {383, 0.9957113128014418},
    {384, 0.5623790762907028},
    {450, 0.37112552073010785},
    {510, -0.24691560020875206},
    {511, -0.5885345318946791},
};
/* sin-vaswani-interleaved-d512-p0_1_2_etc (vaswani_interleaved.json)
 * row of position 2047, tolerance abs=rel=1e-09 */
static const sin_col COLS_VASWANI_INTERLEAVED_P2047[] = {
    {0, -0.9683193119086264},
    {1, 0.24971525821383964},
    {2, 0.9853549309630186},
    {3, -0.17051586444335554},
    {37, -0.9959700501617481},
    {100, -0.5234936785223001},
    {127, 0.14078704610154227},
    {128, -0.4763313007198396},
    {129, -0.8792658824010775},
    {200, -0.4734626625796801},
    {254, 0.6970482376143914},
    {255, -0.7170242356006324},
    {256, 0.998767803511785},
    {257, -0.049627358062309994},
    {300, 0.14807967217332413},
    {383, -0.523702451273021},
    {384, 0.8887415915050153},
    {450, 0.5846455237210608},
    {510, 0.2106098499042535},
    {511, 0.9775701975425131},
};
/* sin-t2t-d512-base10000-p0_1_2_etc (tensor2tensor_concat.json)
 * row of position 2047, tolerance abs=rel=1e-09 */
static const sin_col COLS_T2T_CONCAT_P2047[] = {
    {0, -0.9683193119086263},
    {1, 0.9942561743229766},
    {2, 0.5127433335805704},
    {3, 0.8643029078839097},
    {37, -0.6575466461220735},
    {100, -0.9575990523383432},
    {127, 0.9119913004062181},
    {128, 0.9502646000344778},
    {129, 0.5149234240285878},
    {200, 0.9969225773918912},
    {254, 0.21063911942199476},
    {255, 0.2032734324533056},
    {256, 0.24971525821383958},
    {257, 0.10702644449218486},
    {300, -0.9970585138330714},
    {383, -0.41020954155574596},
    {384, 0.3114437187058266},
    {450, -0.2789038236732175},
    {510, 0.9775638911954178},
    {511, 0.9791220106088165},
};
/* clang-format on */

/* Checks every entry of a filled table against the oracle, and that each row equals the row
 * written by pe_sinusoidal_row from separately computed frequencies (bit for bit: the row-0
 * scratch trick in pe_sinusoidal_fill must not change a single value). */
START_TEST(test_oracle_cases)
{
    for (size_t c = 0; c < sizeof SIN_CASES / sizeof SIN_CASES[0]; c++) {
        const sin_case *tc = &SIN_CASES[c];
        pe_sinusoidal_params p;
        pe_sinusoidal_params_init(&p);
        p.d_model = tc->d_model;
        p.base = tc->base;
        p.convention = tc->conv;
        p.layout = tc->layout;
        double out[16 * 8];
        double omega[16];
        double row[16];
        ck_assert_uint_le(tc->n_pos * tc->d_model, sizeof out / sizeof out[0]);
        ck_assert_int_eq(pe_sinusoidal_fill(&p, tc->positions, tc->n_pos, out), PE_OK);
        ck_assert_int_eq(pe_sinusoidal_freqs(&p, omega), PE_OK);
        for (size_t i = 0; i < tc->n_pos; i++) {
            pe_sinusoidal_row(&p, omega, tc->positions[i], row);
            for (size_t k = 0; k < tc->d_model; k++) {
                double got = out[i * tc->d_model + k];
                double want = tc->expected[i * tc->d_model + k];
                ck_assert_msg(close_to(got, want, 1e-9, 1e-9),
                              "%s row %zu col %zu: got %.17g want %.17g", tc->id, i, k, got, want);
                ck_assert_msg(memcmp(&got, &row[k], sizeof got) == 0,
                              "%s row %zu col %zu: fill %.17g row %.17g", tc->id, i, k, got,
                              row[k]);
            }
        }
    }
}
END_TEST

static void check_cols(const char *id, pe_sinusoidal_convention conv, pe_sinusoidal_layout layout,
                       int64_t pos, const sin_col *cols, size_t n_cols, double tol)
{
    pe_sinusoidal_params p;
    pe_sinusoidal_params_init(&p);
    p.d_model = 512;
    p.convention = conv;
    p.layout = layout;
    double row[512];
    ck_assert_int_eq(pe_sinusoidal_fill(&p, &pos, 1, row), PE_OK);
    for (size_t i = 0; i < n_cols; i++) {
        double got = row[cols[i].col];
        ck_assert_msg(close_to(got, cols[i].want, tol, tol), "%s col %zu: got %.17g want %.17g", id,
                      cols[i].col, got, cols[i].want);
    }
}

/* d_model 512 at large positions (angles up to 100000 rad): double products p*omega. */
START_TEST(test_oracle_d512)
{
    check_cols("sin-vaswani-concat-d512-p100000", PE_SINUSOIDAL_VASWANI, PE_SINUSOIDAL_CONCAT,
               100000, COLS_VASWANI_CONCAT_P100000,
               sizeof COLS_VASWANI_CONCAT_P100000 / sizeof(sin_col), 1e-8);
    check_cols("sin-vaswani-interleaved-d512-p0_1_2_etc", PE_SINUSOIDAL_VASWANI,
               PE_SINUSOIDAL_INTERLEAVED, 2047, COLS_VASWANI_INTERLEAVED_P2047,
               sizeof COLS_VASWANI_INTERLEAVED_P2047 / sizeof(sin_col), 1e-9);
    check_cols("sin-t2t-d512-base10000-p0_1_2_etc", PE_SINUSOIDAL_TENSOR2TENSOR,
               PE_SINUSOIDAL_LAYOUT_DEFAULT, 2047, COLS_T2T_CONCAT_P2047,
               sizeof COLS_T2T_CONCAT_P2047 / sizeof(sin_col), 1e-9);
}
END_TEST

static void row_of(pe_sinusoidal_convention conv, pe_sinusoidal_layout layout, size_t d,
                   double base, int64_t pos, double *out)
{
    pe_sinusoidal_params p;
    pe_sinusoidal_params_init(&p);
    p.d_model = d;
    p.base = base;
    p.convention = conv;
    p.layout = layout;
    ck_assert_int_eq(pe_sinusoidal_fill(&p, &pos, 1, out), PE_OK);
}

/*
 * The worked check of docs/conventions.md#sinusoidal: d 4, base 10000, p 4.
 * Paper: omega = (1, 10000^(-2/4)) = (1, 1/100), row (sin 4, cos 4, sin 0.04, cos 0.04)
 *      = (-0.756802, -0.653644, 0.039989, 0.999200) (6 decimals: tolerance 5e-7).
 * Marian: the same numbers as (sin 4, sin 0.04, cos 4, cos 0.04).
 * tensor2tensor/fairseq: n = 2, g = 1, omega = (1, exp(-ln 10000)) = (1, 1/10000):
 *      (sin 4, sin 0.0004, cos 4, cos 0.0004) = (-0.756802, 0.000400, -0.653644, 1.000000).
 * Also against libm sin/cos of the same angles (tolerance 1e-15: omega_1 may differ from 0.01 by
 * an ulp).
 */
START_TEST(test_worked_d4_p4)
{
    double r[4];
    row_of(PE_SINUSOIDAL_VASWANI, PE_SINUSOIDAL_LAYOUT_DEFAULT, 4, 10000.0, 4, r);
    const double paper[4] = {-0.756802, -0.653644, 0.039989, 0.999200};
    const double exact[4] = {sin(4.0), cos(4.0), sin(0.04), cos(0.04)};
    for (int k = 0; k < 4; k++) {
        ck_assert_double_eq_tol(r[k], paper[k], 5e-7);
        ck_assert_double_eq_tol(r[k], exact[k], 1e-15);
    }
    row_of(PE_SINUSOIDAL_VASWANI, PE_SINUSOIDAL_CONCAT, 4, 10000.0, 4, r);
    const double marian[4] = {-0.756802, 0.039989, -0.653644, 0.999200};
    for (int k = 0; k < 4; k++)
        ck_assert_double_eq_tol(r[k], marian[k], 5e-7);
    const double t2t[4] = {-0.756802, 0.000400, -0.653644, 1.000000};
    const double t2t_exact[4] = {sin(4.0), sin(0.0004), cos(4.0), cos(0.0004)};
    row_of(PE_SINUSOIDAL_TENSOR2TENSOR, PE_SINUSOIDAL_LAYOUT_DEFAULT, 4, 10000.0, 4, r);
    for (int k = 0; k < 4; k++) {
        ck_assert_double_eq_tol(r[k], t2t[k], 5e-7);
        ck_assert_double_eq_tol(r[k], t2t_exact[k], 1e-15);
    }
    row_of(PE_SINUSOIDAL_FAIRSEQ, PE_SINUSOIDAL_LAYOUT_DEFAULT, 4, 10000.0, 4, r);
    for (int k = 0; k < 4; k++)
        ck_assert_double_eq_tol(r[k], t2t_exact[k], 1e-15);
}
END_TEST

START_TEST(test_layouts)
{
    pe_sinusoidal_params p;
    pe_sinusoidal_params_init(&p);
    p.d_model = 8;
    ck_assert_int_eq(pe_sinusoidal_resolved_layout(&p), PE_SINUSOIDAL_INTERLEAVED);
    p.convention = PE_SINUSOIDAL_TENSOR2TENSOR;
    ck_assert_int_eq(pe_sinusoidal_resolved_layout(&p), PE_SINUSOIDAL_CONCAT);
    p.convention = PE_SINUSOIDAL_FAIRSEQ;
    ck_assert_int_eq(pe_sinusoidal_resolved_layout(&p), PE_SINUSOIDAL_CONCAT);
    p.layout = PE_SINUSOIDAL_INTERLEAVED;
    ck_assert_int_eq(pe_sinusoidal_resolved_layout(&p), PE_SINUSOIDAL_INTERLEAVED);
    p.convention = PE_SINUSOIDAL_VASWANI;
    p.layout = PE_SINUSOIDAL_CONCAT;
    ck_assert_int_eq(pe_sinusoidal_resolved_layout(&p), PE_SINUSOIDAL_CONCAT);
}
END_TEST

/*
 * Layout overrides, checked against the oracle rows of the other layout (tolerance 1e-9):
 * vaswani d 5 interleaved (s0 c0 s1 c1 s2) vs sin-vaswani-concat-d5 (s0 s1 s2 | c0 c1);
 * tensor2tensor d 5 interleaved (s0 c0 s1 c1 0) vs sin-t2t-d5 (s0 s1 | c0 c1 | 0);
 * fairseq d 7 interleaved (s0 c0 s1 c1 s2 c2 0) vs sin-fairseq-d7 (s0 s1 s2 | c0 c1 c2 | 0);
 * vaswani d 5 concat vs sin-vaswani-interleaved-d5. Concat column -> interleaved column maps are
 * in PERM_* below (index = concat column, value = interleaved column).
 */
static void check_override(const sin_case *tc, pe_sinusoidal_layout other, const size_t *perm)
{
    for (size_t i = 0; i < tc->n_pos; i++) {
        double r[8];
        row_of(tc->conv, other, tc->d_model, tc->base, tc->positions[i], r);
        for (size_t k = 0; k < tc->d_model; k++) {
            /* tc is in the convention's default layout; perm maps concat -> interleaved. */
            size_t src = other == PE_SINUSOIDAL_INTERLEAVED ? k : perm[k];
            size_t dst = other == PE_SINUSOIDAL_INTERLEAVED ? perm[k] : k;
            double want = tc->expected[i * tc->d_model + src];
            ck_assert_msg(close_to(r[dst], want, 1e-9, 1e-9),
                          "%s override, row %zu col %zu: %.17g vs %.17g", tc->id, i, dst, r[dst],
                          want);
        }
    }
}

static const sin_case *find_case(const char *id)
{
    for (size_t c = 0; c < sizeof SIN_CASES / sizeof SIN_CASES[0]; c++)
        if (strcmp(SIN_CASES[c].id, id) == 0)
            return &SIN_CASES[c];
    ck_abort_msg("no case %s", id);
    return NULL;
}

START_TEST(test_layout_override)
{
    static const size_t perm_v5[5] = {0, 2, 4, 1, 3};       /* s0 s1 s2 c0 c1 */
    static const size_t perm_t5[5] = {0, 2, 1, 3, 4};       /* s0 s1 c0 c1 0 */
    static const size_t perm_f7[7] = {0, 2, 4, 1, 3, 5, 6}; /* s0 s1 s2 c0 c1 c2 0 */
    check_override(find_case("sin-vaswani-concat-d5-p0_1_2_etc"), PE_SINUSOIDAL_INTERLEAVED,
                   perm_v5);
    check_override(find_case("sin-t2t-d5-base10000-p0_1_2_etc"), PE_SINUSOIDAL_INTERLEAVED,
                   perm_t5);
    check_override(find_case("sin-fairseq-d7-p0_1_2_etc"), PE_SINUSOIDAL_INTERLEAVED, perm_f7);
    /* and the other way: interleaved oracle (vaswani d 5) -> concat override */
    const sin_case *v5i = find_case("sin-vaswani-interleaved-d5-p0_1_2_etc");
    for (size_t i = 0; i < v5i->n_pos; i++) {
        double r[5];
        row_of(PE_SINUSOIDAL_VASWANI, PE_SINUSOIDAL_CONCAT, 5, 10000.0, v5i->positions[i], r);
        for (size_t k = 0; k < 5; k++)
            ck_assert_double_eq_tol(r[k], v5i->expected[i * 5 + perm_v5[k]], 1e-9);
    }
}
END_TEST

/*
 * Tiny and odd d_model, by hand:
 * d 1: vaswani (sin p) (omega_0 = base^0 = 1); tensor2tensor and fairseq (0).
 * d 2: vaswani (sin p, cos p); tensor2tensor n = 1, g = max(0, 1) = 1, omega_0 = 1: (sin p, cos p).
 * d 3: vaswani interleaved (sin p, cos p, sin(p 10000^(-2/3))); tensor2tensor (sin p, cos p, 0).
 * Exact equalities: omega_0 = 1 exactly in every convention, so the angle is p itself.
 */
START_TEST(test_small_d)
{
    for (int64_t pos = 0; pos < 6; pos++) {
        double r[3];
        double x = (double)pos;
        row_of(PE_SINUSOIDAL_VASWANI, PE_SINUSOIDAL_LAYOUT_DEFAULT, 1, 10000.0, pos, r);
        ck_assert_double_eq(r[0], sin(x));
        row_of(PE_SINUSOIDAL_VASWANI, PE_SINUSOIDAL_CONCAT, 1, 10000.0, pos, r);
        ck_assert_double_eq(r[0], sin(x));
        row_of(PE_SINUSOIDAL_TENSOR2TENSOR, PE_SINUSOIDAL_LAYOUT_DEFAULT, 1, 10000.0, pos, r);
        ck_assert_double_eq(r[0], 0.0);
        row_of(PE_SINUSOIDAL_FAIRSEQ, PE_SINUSOIDAL_INTERLEAVED, 1, 10000.0, pos, r);
        ck_assert_double_eq(r[0], 0.0);
        row_of(PE_SINUSOIDAL_TENSOR2TENSOR, PE_SINUSOIDAL_LAYOUT_DEFAULT, 2, 10000.0, pos, r);
        ck_assert_double_eq(r[0], sin(x));
        ck_assert_double_eq(r[1], cos(x));
        row_of(PE_SINUSOIDAL_VASWANI, PE_SINUSOIDAL_LAYOUT_DEFAULT, 3, 10000.0, pos, r);
        ck_assert_double_eq(r[0], sin(x));
        ck_assert_double_eq(r[1], cos(x));
        ck_assert_double_eq_tol(r[2], sin(x * pow(10000.0, -2.0 / 3.0)), 1e-15);
        row_of(PE_SINUSOIDAL_VASWANI, PE_SINUSOIDAL_CONCAT, 3, 10000.0, pos, r);
        ck_assert_double_eq(r[0], sin(x));
        ck_assert_double_eq_tol(r[1], sin(x * pow(10000.0, -2.0 / 3.0)), 1e-15);
        ck_assert_double_eq(r[2], cos(x));
        row_of(PE_SINUSOIDAL_TENSOR2TENSOR, PE_SINUSOIDAL_LAYOUT_DEFAULT, 3, 10000.0, pos, r);
        ck_assert_double_eq(r[0], sin(x));
        ck_assert_double_eq(r[1], cos(x));
        ck_assert_double_eq(r[2], 0.0);
    }
    /* The largest position the contract allows: the angle is exact (omega_0 = 1). */
    double r[2];
    row_of(PE_SINUSOIDAL_VASWANI, PE_SINUSOIDAL_LAYOUT_DEFAULT, 2, 10000.0, INT64_C(2147483647), r);
    ck_assert_double_eq(r[0], sin(2147483647.0));
    ck_assert_double_eq(r[1], cos(2147483647.0));
}
END_TEST

/* Frequencies and their counts (hand values). Tolerances: exact where the exponent is an integer
 * or pow's result is exact; else 2e-15 relative (an exponent such as -4/5 or -ln(10000)/3 is
 * itself rounded, and x * ln(10000) ~ 7 amplifies that ulp). */
START_TEST(test_freqs)
{
    pe_sinusoidal_params p;
    pe_sinusoidal_params_init(&p);
    double w[8];
    p.d_model = 4; /* vaswani: 10000^0 = 1, 10000^(-1/2) = 1/100 */
    ck_assert_uint_eq(pe_sinusoidal_n_freqs(&p), 2);
    ck_assert_int_eq(pe_sinusoidal_freqs(&p, w), PE_OK);
    ck_assert_double_eq(w[0], 1.0);
    ck_assert_double_eq_tol(w[1], 0.01, 4.5e-18);
    p.d_model = 5; /* vaswani odd: 3 frequencies 10000^(-2k/5) */
    ck_assert_uint_eq(pe_sinusoidal_n_freqs(&p), 3);
    ck_assert_int_eq(pe_sinusoidal_freqs(&p, w), PE_OK);
    ck_assert_double_eq_tol(w[2], 6.309573444801932e-4, 2e-15 * 6.31e-4); /* 10000^(-4/5) */
    p.d_model = 1;
    ck_assert_uint_eq(pe_sinusoidal_n_freqs(&p), 1);
    p.convention = PE_SINUSOIDAL_TENSOR2TENSOR;
    ck_assert_uint_eq(pe_sinusoidal_n_freqs(&p), 0);
    p.d_model = 4; /* n = 2, g = 1: (1, 1/10000) */
    ck_assert_int_eq(pe_sinusoidal_freqs(&p, w), PE_OK);
    ck_assert_double_eq(w[0], 1.0);
    ck_assert_double_eq_tol(w[1], 1e-4, 2e-19);
    p.d_model = 5;
    ck_assert_uint_eq(pe_sinusoidal_n_freqs(&p), 2);
    p.convention = PE_SINUSOIDAL_FAIRSEQ;
    /* n = 4, g = 3: 10000^(-k/3) = 1, 0.0464158883361278, 0.00215443469003188, 1e-4 */
    p.d_model = 8;
    ck_assert_int_eq(pe_sinusoidal_freqs(&p, w), PE_OK);
    ck_assert_double_eq(w[0], 1.0);
    ck_assert_double_eq_tol(w[1], 0.046415888336127789, 2e-15 * 0.0465);
    ck_assert_double_eq_tol(w[2], 0.0021544346900318838, 2e-15 * 0.00216);
    ck_assert_double_eq_tol(w[3], 1e-4, 2e-19);
}
END_TEST

/* Invalid configurations are rejected before anything is written. */
START_TEST(test_errors)
{
    pe_sinusoidal_params p;
    pe_sinusoidal_params_init(&p);
    double out[4] = {42.0, 42.0, 42.0, 42.0};
    int64_t pos = 1;
    ck_assert_int_eq(pe_sinusoidal_check(NULL), PE_ERR_ARG);
    ck_assert_int_eq(pe_sinusoidal_fill(&p, &pos, 1, out), PE_ERR_ARG); /* d_model 0 */
    p.convention = PE_SINUSOIDAL_FAIRSEQ;
    p.d_model = 2; /* half_dim - 1 = 0: fairseq divides by zero */
    ck_assert_int_eq(pe_sinusoidal_fill(&p, &pos, 1, out), PE_ERR_ARG);
    ck_assert_int_eq(pe_sinusoidal_freqs(&p, out), PE_ERR_ARG);
    p.d_model = 3;
    ck_assert_int_eq(pe_sinusoidal_fill(&p, &pos, 1, out), PE_ERR_ARG);
    p.d_model = 1;
    ck_assert_int_eq(pe_sinusoidal_check(&p), PE_OK);
    p.d_model = 4;
    ck_assert_int_eq(pe_sinusoidal_check(&p), PE_OK);
    p.convention = PE_SINUSOIDAL_TENSOR2TENSOR;
    p.d_model = 2;
    ck_assert_int_eq(pe_sinusoidal_check(&p), PE_OK);
    const double bad_base[] = {1.0, 0.5, 0.0, -10.0, NAN, INFINITY};
    for (size_t i = 0; i < sizeof bad_base / sizeof bad_base[0]; i++) {
        p.base = bad_base[i];
        ck_assert_int_eq(pe_sinusoidal_fill(&p, &pos, 1, out), PE_ERR_ARG);
    }
    p.base = 1.0000001; /* any base > 1 */
    ck_assert_int_eq(pe_sinusoidal_check(&p), PE_OK);
    p.convention = (pe_sinusoidal_convention)7;
    ck_assert_int_eq(pe_sinusoidal_check(&p), PE_ERR_ARG);
    p.convention = PE_SINUSOIDAL_VASWANI;
    p.layout = (pe_sinusoidal_layout)9;
    ck_assert_int_eq(pe_sinusoidal_check(&p), PE_ERR_ARG);
    for (int k = 0; k < 4; k++)
        ck_assert_double_eq(out[k], 42.0);
    /* n_pos 0: nothing written */
    p.layout = PE_SINUSOIDAL_LAYOUT_DEFAULT;
    ck_assert_int_eq(pe_sinusoidal_fill(&p, &pos, 0, out), PE_OK);
    ck_assert_double_eq(out[0], 42.0);
}
END_TEST

/*
 * pe_sinusoidal_fill keeps the frequencies in row 0 and writes row 0 last, in place; a row with
 * omega == row must equal one from a separate omega buffer, for every convention, layout and
 * d 1..9 (bitwise), and the first position must not leak into later rows.
 */
START_TEST(test_fill_in_place)
{
    static const int64_t pos[4] = {7, 0, 123456, 3};
    for (int conv = 0; conv < 3; conv++) {
        for (int lay = 0; lay < 3; lay++) {
            for (size_t d = 1; d <= 9; d++) {
                pe_sinusoidal_params p;
                pe_sinusoidal_params_init(&p);
                p.d_model = d;
                p.convention = (pe_sinusoidal_convention)conv;
                p.layout = (pe_sinusoidal_layout)lay;
                if (pe_sinusoidal_check(&p) != PE_OK)
                    continue; /* fairseq d 2, 3 */
                double table[4 * 9];
                double omega[9];
                double row[9];
                ck_assert_int_eq(pe_sinusoidal_fill(&p, pos, 4, table), PE_OK);
                ck_assert_int_eq(pe_sinusoidal_freqs(&p, omega), PE_OK);
                for (size_t i = 0; i < 4; i++) {
                    pe_sinusoidal_row(&p, omega, pos[i], row);
                    ck_assert_msg(memcmp(row, table + i * d, d * sizeof(double)) == 0,
                                  "conv %d layout %d d %zu row %zu", conv, lay, d, i);
                }
                double one[9];
                ck_assert_int_eq(pe_sinusoidal_fill(&p, pos, 1, one), PE_OK);
                ck_assert(memcmp(one, table, d * sizeof(double)) == 0);
            }
        }
    }
}
END_TEST

Suite *sinusoidal_suite(void)
{
    Suite *s = suite_create("sinusoidal");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_oracle_cases);
    tcase_add_test(tc, test_oracle_d512);
    tcase_add_test(tc, test_worked_d4_p4);
    tcase_add_test(tc, test_layouts);
    tcase_add_test(tc, test_layout_override);
    tcase_add_test(tc, test_small_d);
    tcase_add_test(tc, test_freqs);
    tcase_add_test(tc, test_errors);
    tcase_add_test(tc, test_fill_in_place);
    suite_add_tcase(s, tc);
    return s;
}
